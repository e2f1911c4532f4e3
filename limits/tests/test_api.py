"""The player's limits API: read, set/decline/change (pending loosening visible), history, play status, panic
button, self-listing; only the player's own data; errors in the one shape, never a 500."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from rest_framework.test import APIClient

from core.errors import NOT_A_PLAYER
from limits.errors import UNKNOWN_KIND
from limits.models import PanicExclusion, SelfLimit, SelfLimitChange, SelfListingRequest
from tests.kit.accounts import make_staff, token_for
from tests.kit.clients import client_for
from tests.kit.limits import REFUSAL_LOG_DATABASES, stake
from tests.kit.money import prague

T = prague(2025, 5, 5, 12)
BASE = "/api/v1/limits"


@pytest.fixture
def frozen():
    with time_machine.travel(T, tick=False) as traveller:
        yield traveller


def M(minor: int) -> dict[str, object]:
    """An amount as a request carries it (core.api_money)."""
    return {"amount": minor, "currency": "CZK"}


def test_the_player_reads_the_seven_limits_undecided_at_first(player, frozen):
    r = client_for(player).get(f"{BASE}/self-limits")
    assert r.status_code == 200
    body = r.json()
    assert body["count"] == 7
    assert [i["limit_type"] for i in body["results"]] == [
        "daily_stake",
        "monthly_stake",
        "daily_loss",
        "monthly_loss",
        "monthly_logins",
        "daily_time",
        "pause_after_logout",
    ]
    assert all(not i["decided"] for i in body["results"])
    assert body["results"][0]["unit"] == "CZK_minor" and body["results"][5]["unit"] == "minutes"


def test_the_player_sets_declines_tightens_and_loosens_with_the_pending_date_shown(player, frozen):
    c = client_for(player)
    r = c.put(f"{BASE}/self-limits/technical/daily_stake", {"value": M(10_000)}, format="json")
    assert r.status_code == 200 and r.json()["value"]["amount"] == 10_000 and r.json()["decided"]
    r = c.put(f"{BASE}/self-limits/technical/monthly_loss", {"value": None}, format="json")
    assert r.status_code == 200 and r.json()["declined"] is True
    frozen.shift(timedelta(hours=1))
    r = c.put(f"{BASE}/self-limits/technical/daily_stake", {"value": M(50_000)}, format="json")
    body = r.json()
    assert body["value"]["amount"] == 10_000 and body["pending"] is True and body["pending_value"]["amount"] == 50_000
    assert body["pending_effective_at"].startswith("2025-05-12T11:00:00")  # 7 days after the request (UTC)
    stake(player, "30", T + timedelta(hours=1, minutes=1))
    body = c.get(f"{BASE}/self-limits/technical/daily_stake").json()
    assert body["used"] == {"amount": 3_000, "currency": "CZK", "formatted": "30,00\u00a0Kč"} and body[
        "resets_at"
    ].startswith("2025-05-05T22:00:00")
    hist = c.get(f"{BASE}/self-limits/history?kind=technical").json()
    assert [h["action"] for h in hist["results"]] == ["loosening_requested", "declined", "set"]


def test_writing_a_limit_requires_a_value_and_refuses_bad_ones_without_a_500(player, frozen):
    c = client_for(player)
    for path, body, code in [
        ("technical/daily_stake", {}, "request.invalid"),
        ("technical/daily_stake", {"value": "lots"}, "request.invalid_money"),
        ("technical/daily_stake", {"value": M(-5)}, "request.invalid"),
        ("technical/daily_stake", {"value": M(2**63)}, "request.invalid_money"),  # bounded at the API
        ("technical/daily_stake", {"value": M(10**12 + 1)}, "request.invalid"),
        ("technical/daily_time", {"value": "60"}, "request.invalid"),  # minutes: a JSON integer, not text
        ("technical/daily_time", {"value": M(60)}, "request.invalid"),
        ("technical/daily_time", {"value": 5000}, "limits.invalid_limit_value"),
        ("technical/weekly", {"value": 5}, "limits.unknown_limit"),
        ("poker/daily_stake", {"value": 5}, "limits.unknown_kind"),
    ]:
        r = c.put(f"{BASE}/self-limits/{path}", body, format="json")
        assert 400 <= r.status_code < 500, (path, r.status_code)
        assert r.json()["error"]["code"] == code
    assert c.get(f"{BASE}/self-limits/technical/weekly").status_code == 400
    assert c.get(f"{BASE}/self-limits?kind=bingo").json()["error"]["code"] == UNKNOWN_KIND.code
    assert not SelfLimit.objects.filter(player=player, decided_at__isnull=False).exists()


def test_play_status_shows_play_left(player, frozen):
    stake(player, "1", T - timedelta(minutes=30))
    body = client_for(player).get(f"{BASE}/play-status").json()
    assert body["round_open"] is True and body["play_seconds_used"] == 1800 and body["play_seconds_left"] == 5400


def test_the_panic_button_excludes_at_once_and_shows_when_it_ends(player, frozen):
    c = client_for(player)
    assert c.get(f"{BASE}/panic").json() == {"active": False, "ends_at": None}
    r = c.post(f"{BASE}/panic")
    assert r.status_code == 201 and r.json()["ends_at"].startswith("2025-05-07T10:00:00")
    assert PanicExclusion.objects.filter(player=player).count() == 1
    # the player is logged out at once: the token no longer works
    assert c.get(f"{BASE}/panic").status_code == 401
    assert client_for(player).get(f"{BASE}/panic").json()["active"] is True


def test_a_self_listing_request_is_accepted_for_at_least_a_year(player, frozen):
    c = client_for(player)
    r = c.post(f"{BASE}/self-listing", {"years": 0}, format="json")
    assert r.status_code == 400 and not SelfListingRequest.objects.filter(player=player).exists()
    r = c.post(f"{BASE}/self-listing", {"years": 2}, format="json")
    assert r.status_code == 201 and r.json()["listed_until"].startswith("2027-05-05")
    listed = client_for(player).get(f"{BASE}/self-listing").json()
    assert listed["count"] == 1 and listed["results"][0]["status"] in ("pending", "sent")


def test_a_player_never_sees_or_changes_another_players_limits(player, other_player, frozen):
    c_other = client_for(other_player)
    c_other.put(f"{BASE}/self-limits/technical/daily_stake", {"value": M(700)}, format="json")
    c_other.post(f"{BASE}/self-listing", {"years": 1}, format="json")
    c = client_for(player)
    mine = c.get(f"{BASE}/self-limits").json()["results"]
    assert all(i["value"] is None for i in mine)
    assert c.get(f"{BASE}/self-limits/history").json()["count"] == 0
    assert c.get(f"{BASE}/self-listing").json()["count"] == 0
    c.put(f"{BASE}/self-limits/technical/daily_stake", {"value": M(900)}, format="json")
    assert SelfLimit.objects.get(player=other_player, limit_type="daily_stake").value == 700
    assert SelfLimitChange.objects.filter(player=other_player).count() == 1


def test_anonymous_and_staff_without_a_player_are_refused(db, frozen):
    assert APIClient().get(f"{BASE}/self-limits").status_code == 401
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff())}")
    r = staff.get(f"{BASE}/play-status")
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code
    assert staff.post(f"{BASE}/panic").status_code == 403


def test_the_openapi_schema_of_the_limits_endpoints_is_valid_without_warnings(db, tmp_path):
    from django.core.management import call_command

    call_command("spectacular", "--validate", "--fail-on-warn", "--file", str(tmp_path / "openapi.yaml"))


@pytest.mark.django_db(databases=REFUSAL_LOG_DATABASES, transaction=True)  # the admin reads on default
def test_staff_see_limits_history_and_refusals_in_the_admin(player, frozen):
    from django.test import Client

    from tests.kit.refusals import refusal_of

    stake(player, "1", T)
    refusal_of(stake, player, "1", T)
    staff = make_staff(superuser=True)
    c = Client()
    c.force_login(staff)
    for model in (
        "selflimit",
        "selflimitchange",
        "stakerefusal",
        "panicexclusion",
        "selflistingrequest",
        "exclusionwatch",
        "exclusionsweep",
        "settledbet",
        "periodtotal",
        "openbet",
        "playerkindstate",
        "closingsnapshot",
        "panicreport",
        "responsiblegamingtext",
        "helpcontact",
    ):
        r = c.get(f"/admin/limits/{model}/")
        assert r.status_code == 200, model
    r = c.get("/admin/limits/stakerefusal/")
    assert b"limits.round_in_progress" in r.content


def test_a_self_listing_request_is_sent_to_the_register_right_after_it_commits(
    player, frozen, django_capture_on_commit_callbacks
):
    from config.celery import app

    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            r = client_for(player).post(f"{BASE}/self-listing", {"years": 1}, format="json")
    finally:
        app.conf.task_always_eager = eager
    assert r.status_code == 201 and len(callbacks) == 1
    assert SelfListingRequest.objects.get(player=player).status == "sent"
