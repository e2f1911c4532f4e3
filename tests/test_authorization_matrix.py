"""Standing suite: the authorization matrix, generated from the URL configuration.

* Every player endpoint whose path takes an identifier is called by player A with player B's identifiers (every
  method the view has): 404, and B's records are unchanged. A new endpoint with an identifier fails this test
  until its identifier is mapped to B's record in ``OWNED`` below.
* Every player endpoint answers 401 to an anonymous caller.
* Every staff endpoint answers 403 to a player and 401 to an anonymous caller.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts.permissions import IsPlayer
from core import clock
from core.audit import Actor
from core.errors import FORBIDDEN
from core.permissions import IsStaff
from tests.kit.accounts import make_player, token_for

pytestmark = pytest.mark.django_db

# (path prefix, parameter) -> the key of B's record in the ``records`` fixture
OWNED = {
    ("api/v1/wallet/payment-methods/", "pk"): "method",
    ("api/v1/wallet/deposits/", "pk"): "deposit",
    ("api/v1/wallet/sandbox/deposits/", "pk"): "deposit",
    ("api/v1/wallet/withdrawals/", "pk"): "withdrawal",
    ("api/v1/games/rounds/", "round_id"): "round",
    ("api/v1/complaints/", "reference"): "complaint",
    ("api/v1/complaints/", "attachment_id"): "attachment",
    ("api/v1/accounts/me/messages", "message_id"): "message",
    ("api/v1/aml/identifications/", "pk"): "aml_identification",
    ("api/v1/aml/identifications/", "side"): "aml_image_side",
    ("api/v1/accounts/me/data-requests", "request_id"): "data_request",
}
# parameters that name no record of a player (a kind, a game, a provider): not part of the ownership matrix
NOT_IDENTIFIERS = {"kind", "limit_type", "code", "provider", "player_id"}
METHODS = ("get", "post", "put", "patch", "delete")


def _walk(patterns: list[Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for p in patterns:
        if isinstance(p, URLResolver):
            out += _walk(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            out.append((prefix + str(p.pattern), p))
    return out


def _endpoints(permission: type) -> list[tuple[str, type, list[str]]]:
    found = []
    for path, pattern in _walk(get_resolver().url_patterns):
        view = getattr(pattern.callback, "view_class", None)
        if not path.startswith("api/v1/") or view is None:
            continue
        if any(isinstance(c, type) and issubclass(c, permission) for c in getattr(view, "permission_classes", [])):
            found.append((path, view, [m for m in METHODS if hasattr(view, m)]))
    assert found, permission
    return found


def _params(path: str) -> list[str]:
    return re.findall(r"<(?:\w+:)?(\w+)>", path)


def _request(client: APIClient, method: str, url: str, key: str) -> Any:
    """The call a real owner would make (a valid body), so that only the ownership decides the answer."""
    from complaints.tests.helpers import PDF, upload

    body: dict[str, Any] = {}
    fmt = "json"
    if method == "post" and url.endswith("/actions"):
        body = {"action": {"index": 0}}
    elif method == "post" and url.endswith("/messages"):
        body = {"text": "is it mine?"}
    elif method == "post" and url.endswith("/attachments"):
        body, fmt = {"attachments": [upload("x.pdf", PDF)]}, "multipart"
    elif method == "post" and url.endswith("/documents"):
        body, fmt = {"file": upload("x.pdf", PDF)}, "multipart"
    return getattr(client, method)(url, body, format=fmt, HTTP_IDEMPOTENCY_KEY=key)


def _fill(path: str, values: dict[str, Any]) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), path)


@pytest.fixture
def records(settings: Any, tmp_path: Any) -> dict[str, Any]:
    """Player B with one record of every kind a path can name (files in a temp dir)."""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    from django.core.files.base import ContentFile

    from accounts.services import data_request_create, message_send
    from aml.models import IdentificationCheck, IdentificationImage
    from complaints.services import complaint_file
    from complaints.tests.helpers import PDF, upload
    from games.models import Round
    from tests.kit.clients import client_for as game_client
    from tests.kit.money import czk
    from tests.kit.platform import funded_player, start
    from tests.kit.wallet import fund, verified_bank

    b = funded_player(2_000_000)
    method = verified_bank(b)
    fund(b, czk(20000))
    cb = APIClient()
    cb.credentials(HTTP_AUTHORIZATION=f"Token {token_for(b.user)}")
    deposit = cb.post(
        "/api/v1/wallet/deposits",
        {"method_id": method.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="b-dep",
    ).json()
    withdrawal = cb.post(
        "/api/v1/wallet/withdrawals",
        {"method_id": method.pk, "amount": {"amount": 15000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="b-wd",
    ).json()
    body = start(game_client(b), game="kobushi", bet={"lines": 30, "coins": 5, "coin_value": 1}).json()
    assert "id" in body, body
    # B's online identification check (created directly: B is identified already, so a new one would be refused)
    identification = IdentificationCheck.objects.create(
        player=b,
        provider="sandbox",
        reference="idc_b",
        document_type="id_card",
        document_number="AB1234567",
        document_issuing_state="CZ",
        document_issuing_authority="x",
        document_valid_until=date(2030, 1, 1),
        created_at=clock.now(),
    )
    image = IdentificationImage(
        identification=identification, side="selfie", content_type="image/jpeg", size=4, sha256="0" * 64
    )
    image.file.save("idc_b-selfie.jpg", ContentFile(b"\xff\xd8\xff\xe0"), save=False)
    image.save()
    data_request = data_request_create(player=b, kind="blocking", text="B", actor=Actor.player(b))
    message = message_send(player=b, kind="notice", subject_cs="B", subject_en="B", body_cs="B", body_en="B")
    complaint = complaint_file(
        player=b,
        reason="other",
        description="B's complaint",
        event_at=clock.now() - timedelta(days=1),
        actor=Actor.player(b),
        files=[upload("b.pdf", PDF)],
    )
    return {
        "player": b,
        "method": method.pk,
        "deposit": deposit["id"],
        "withdrawal": withdrawal["id"],
        "round": body["id"],
        "round_status": Round.objects.get(pk=body["id"]).status,
        "complaint": complaint.reference,
        "attachment": complaint.attachments.get().pk,
        "message": message.pk,
        "aml_identification": identification.pk,
        "aml_image_side": image.side,
        "data_request": data_request.pk,
    }


def _state(b: Any) -> dict[str, Any]:
    """What A must not be able to change: B's records and money."""
    from aml.models import IdentificationCheck
    from complaints.models import Complaint
    from games.models import Round, RoundAction
    from wallet.models import Deposit, LedgerTransaction, PaymentMethod, Withdrawal

    return {
        "rounds": list(Round.objects.filter(player=b).values("id", "status", "win", "actions")),
        "actions": RoundAction.objects.filter(round__player=b).count(),
        "deposits": list(Deposit.objects.filter(player=b).values("id", "status", "amount")),
        "withdrawals": list(Withdrawal.objects.filter(player=b).values("id", "status", "amount")),
        "methods": list(PaymentMethod.objects.filter(player=b).values("id", "status")),
        "complaints": list(Complaint.objects.filter(player=b).values("id", "status")),
        "messages": sum(c.messages.count() for c in Complaint.objects.filter(player=b)),
        "attachments": sum(c.attachments.count() for c in Complaint.objects.filter(player=b)),
        "ledger": LedgerTransaction.objects.filter(player_id=b.pk).count(),
        "inbox": list(b.messages.values("id", "read_at")),
        "aml_identifications": list(IdentificationCheck.objects.filter(player=b).values("id", "status")),
        "data_requests": list(b.data_requests.values("id", "state", "ended_at")),
    }


def test_a_player_gets_404_for_every_record_of_another_player_and_changes_nothing(records):
    a = make_player()
    ca = APIClient(raise_request_exception=False)
    ca.credentials(HTTP_AUTHORIZATION=f"Token {token_for(a.user)}")
    before = _state(records["player"])
    tried: list[tuple[str, str, int]] = []
    for path, _view, methods in _endpoints(IsPlayer):
        names = [n for n in _params(path) if n not in NOT_IDENTIFIERS]
        if not names:
            continue
        values = {}
        for name in _params(path):
            key = next((v for (prefix, param), v in OWNED.items() if param == name and path.startswith(prefix)), None)
            assert key is not None or name in NOT_IDENTIFIERS, f"map {name!r} of {path} to a record in OWNED"
            values[name] = records[key] if key else "technical"
        url = _fill(path, values)
        for method in methods:
            r = _request(ca, method, url, f"a-{len(tried)}")
            tried.append((method.upper(), url, r.status_code))
            assert r.status_code == 404, (method, url, r.status_code, r.content[:300])
    assert len(tried) >= 12, tried
    assert _state(records["player"]) == before
    print(f"authorization matrix: {len(tried)} calls with another player's identifiers, all 404")


def test_every_player_endpoint_refuses_an_anonymous_caller():
    anonymous = APIClient(raise_request_exception=False)
    calls = 0
    for path, _view, methods in _endpoints(IsPlayer):
        url = _fill(path, {n: 1 for n in _params(path)})
        for method in methods:
            r = getattr(anonymous, method)(url, {}, format="json")
            calls += 1
            assert r.status_code == 401, (method, url, r.status_code)
    print(f"anonymous: {calls} player calls, all 401")


def test_every_staff_endpoint_refuses_players_and_anonymous_callers():
    player = APIClient(raise_request_exception=False)
    player.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_player().user)}")
    anonymous = APIClient(raise_request_exception=False)
    calls = 0
    for path, _view, methods in _endpoints(IsStaff):
        url = _fill(path, {n: 1 for n in _params(path)})
        for method in methods:
            assert getattr(anonymous, method)(url, {}, format="json").status_code == 401, (method, url)
            r = getattr(player, method)(url, {}, format="json")
            assert r.status_code == 403 and r.json()["error"]["code"] == FORBIDDEN.code, (method, url)
            calls += 2
    assert calls >= 8
