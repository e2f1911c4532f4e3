"""Forwarding headers are trusted only from configured proxies."""

from __future__ import annotations

import ipaddress
import random
import uuid
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from core.middleware import client_address

PROXY = [ipaddress.ip_network("10.0.0.0/8")]


@pytest.mark.parametrize(
    ("remote", "xff", "trusted", "expected"),
    [
        ("203.0.113.7", "1.2.3.4", [], "203.0.113.7"),  # no proxy configured: the header is ignored
        ("203.0.113.7", "1.2.3.4", PROXY, "203.0.113.7"),  # the peer is not a trusted proxy: ignored
        ("10.0.0.5", "198.51.100.9", PROXY, "198.51.100.9"),  # through the load balancer
        ("10.0.0.5", "1.2.3.4, 198.51.100.9", PROXY, "198.51.100.9"),  # a forged left part is not read
        ("10.0.0.5", "198.51.100.9, 10.0.0.7", PROXY, "198.51.100.9"),  # two trusted hops
        ("10.0.0.5", "not-an-ip", PROXY, "10.0.0.5"),  # garbage: the last trusted proxy
        ("10.0.0.5", "", PROXY, "10.0.0.5"),
    ],
)
def test_the_client_address_is_read_through_trusted_proxies_only(remote, xff, trusted, expected):
    assert client_address(remote, xff, trusted) == expected


def _former_client_address(remote_addr, forwarded_for, trusted):
    """The function as it was before it skipped parsing the peer's address without a header or a trusted proxy."""
    try:
        peer = ipaddress.ip_address(remote_addr.strip())
    except ValueError:
        peer = None
    if peer is None or not forwarded_for or not any(peer in net for net in trusted):
        return remote_addr
    hops = [h for h in forwarded_for.split(",")][-20:]
    for hop in reversed(hops):
        try:
            addr = ipaddress.ip_address(hop.strip())
        except ValueError:
            break
        if not any(addr in net for net in trusted):
            return str(addr)
        peer = addr
    return str(peer)


def test_the_client_address_is_the_former_function_s_on_generated_cases():
    rng = random.Random(36)
    addresses = ["203.0.113.7", "10.0.0.5", "10.1.2.3", " 10.0.0.9 ", "::1", "2001:db8::7", "fe80::1", "", "junk"]
    headers: list[Any] = [
        None,
        "",
        " ",
        "198.51.100.9",
        "1.2.3.4, 10.0.0.7",
        "not-an-ip",
        "10.0.0.1,10.0.0.2",
        "2001:db8::9",
    ]
    trusts = [[], PROXY, [ipaddress.ip_network("::1/128")], [*PROXY, ipaddress.ip_network("2001:db8::/32")]]
    for _ in range(2000):
        remote, xff, trusted = rng.choice(addresses), rng.choice(headers), rng.choice(trusts)
        if xff and rng.random() < 0.5:
            xff = ", ".join(rng.choice(addresses + headers[3:]) for _ in range(rng.randint(1, 4)))
        assert client_address(remote, xff, trusted) == _former_client_address(remote, xff, trusted), (remote, xff)


@pytest.mark.django_db
def test_a_forged_forwarding_header_does_not_escape_the_login_throttle():
    """15 logins with random X-Forwarded-For values after the per-address limit got 401 instead of 429."""
    cache.clear()
    c = APIClient(raise_request_exception=False)
    codes = []
    for i in range(15):  # another username each time: the per-user lock-out is not what is tested here
        r = c.post(
            "/api/v1/accounts/auth/login",
            {"username": f"nobody{i}", "password": "wrong-password-1"},
            format="json",
            HTTP_X_FORWARDED_FOR=f"198.51.100.{uuid.uuid4().int % 250}",
        )
        codes.append(r.status_code)
    assert set(codes[:10]) == {401} and set(codes[10:]) == {429}, codes  # "login": 10/min per address
    cache.clear()


@pytest.mark.django_db
def test_a_session_records_the_address_the_trusted_proxy_saw(settings):
    from accounts.models import LoginSession
    from tests.kit.accounts import make_player

    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]  # the test client's peer address plays the load balancer
    cache.clear()
    player = make_player()  # tests.kit.accounts.DEFAULT_PASSWORD
    r = APIClient().post(
        "/api/v1/accounts/auth/login",
        {"username": player.user.username, "password": "Secret-pass-123"},
        format="json",
        HTTP_X_FORWARDED_FOR="1.2.3.4, 198.51.100.23",
    )
    assert r.status_code == 200, r.content
    assert LoginSession.objects.get(pk=r.json()["session_id"]).ip_address == "198.51.100.23"
    cache.clear()
