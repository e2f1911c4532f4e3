"""Bad input never gives a 500 (review N-6, N-7).

N-6: JSON nested 1,000 levels deep (a 2 KB body) raised ``RecursionError`` in DRF's parser, a logged 500 on every
JSON endpoint (the login too, anonymously), and a correctly signed provider callback with such a body was a 500 the
provider would retry forever. Now: 400 ``request.invalid`` in the one error shape, and the callback is a malformed
body (400 ``*.callback_invalid``, nothing stored).
N-7: a NUL byte in a filter value (``?status=%00`` on the AML staff lists, any admin list filter) or in the admin image
view's ``side`` reached PostgreSQL, which refuses NUL in a string: a 500. Now a 400 (query, header) or a 404 (path).
"""

from __future__ import annotations

import http.server
import json
import logging
import threading
from collections.abc import Iterator

import pytest
from django.contrib import admin
from django.test import Client
from rest_framework.test import APIClient

from aml.errors import BAD_CALLBACK as AML_BAD_CALLBACK
from core.errors import NOT_FOUND, VALIDATION
from core.models import AuditEvent
from jackpots.errors import INVALID_QUERY
from tests.kit.accounts import make_player, make_staff, token_for
from tests.kit.clients import staff_api_client
from wallet.errors import BAD_CALLBACK

pytestmark = pytest.mark.django_db(databases=["default", "refusal_log"])

DEPTHS = (33, 1_000, 100_000)  # one past the bound (core.parsers.MAX_DEPTH), the review's 2 KB body, a deep one


def deep(depth: int, kind: str) -> str:
    return "[" * depth + "]" * depth if kind == "list" else '{"a":' * depth + "1" + "}" * depth


def refused_as_invalid(r, status: int = 400) -> dict:
    assert r.status_code == status, (r.status_code, r.content[:300])
    error = r.json()["error"]
    assert error["code"] == VALIDATION.code and error["message_cs"] and error["message_en"], error
    return error


def player_client(player=None) -> APIClient:
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for((player or make_player()).user)}")
    return c


@pytest.fixture
def no_error_logged(caplog) -> Iterator[None]:
    """The refusals are answers, not crashes: nothing is logged at ERROR (the 500 logged a traceback)."""
    with caplog.at_level(logging.ERROR):
        yield
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [r.getMessage() for r in caplog.records]


# N-6: nesting depth --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["list", "object"])
@pytest.mark.parametrize("depth", DEPTHS)
def test_deeply_nested_json_on_the_login_is_a_400_even_anonymously(depth, kind, no_error_logged):
    r = APIClient(raise_request_exception=False).generic(
        "POST", "/api/v1/accounts/auth/login", deep(depth, kind), content_type="application/json"
    )
    error = refused_as_invalid(r)
    assert "nested deeper than 32" in error["details"]["reason"]


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/complaints",
        "/api/v1/aml/pep-declaration",
        "/api/v1/aml/source-of-funds",
        "/api/v1/accounts/me/data-requests",
        "/api/v1/accounts/me/terms/accept",
        "/api/v1/accounts/me/corrections",
        "/api/v1/games/play-money/rounds",
    ],
)
def test_deeply_nested_json_is_a_400_on_the_players_json_endpoints(url, no_error_logged):
    c = player_client()
    for depth in (1_000, 100_000):
        refused_as_invalid(
            c.generic(
                "POST", url, deep(depth, "list"), content_type="application/json", HTTP_IDEMPOTENCY_KEY=f"deep-{depth}"
            )
        )


def test_json_nested_to_the_bound_is_still_read_as_json():
    """32 levels are parsed (and then judged by the endpoint: a login body must be an object of two strings)."""
    r = APIClient(raise_request_exception=False).generic(
        "POST",
        "/api/v1/accounts/auth/login",
        json.dumps({"username": deep(31, "list"), "password": "x"}),
        content_type="application/json",
    )
    assert r.status_code in (400, 401) and "nested" not in json.dumps(r.json()), r.content[:300]


def test_every_api_view_reads_json_with_the_bounded_parser():
    """A view naming its own parsers (complaints did: DRF's JSONParser) must use core.parsers.JSONParser too."""
    from django.urls import get_resolver
    from rest_framework.parsers import JSONParser as DrfJSONParser

    from core.parsers import JSONParser
    from tests.test_authorization_matrix import _walk

    views = [getattr(p.callback, "view_class", None) for _, p in _walk(get_resolver().url_patterns)]
    checked = 0
    for view in {v for v in views if v is not None and hasattr(v, "parser_classes")}:
        for parser in view.parser_classes:
            if issubclass(parser, DrfJSONParser):
                assert issubclass(parser, JSONParser), (view, parser)
                checked += 1
    assert checked >= 50


def _signed_aml(body: bytes) -> str:
    from django.conf import settings

    from aml.adapters import hmac_signature

    return hmac_signature(settings.AML_SANDBOX_SECRET, body)


def _signed_wallet(body: bytes) -> str:
    from django.conf import settings

    from wallet.adapters import hmac_signature

    return hmac_signature(settings.WALLET_SANDBOX_SECRET, body)


@pytest.mark.parametrize("depth", [33, 50_000])
def test_a_signed_identification_callback_nested_too_deep_is_a_malformed_body(settings, depth, no_error_logged):
    from aml.models import IdentificationEvent

    settings.AML_SANDBOX_ENABLED = True
    body = (
        '{"event_id": "e1", "type": "identification.completed", "reference": "idc_x", "outcome": "approved", '
        '"score": 90, "extracted": ' + deep(depth, "object") + "}"
    ).encode()
    r = APIClient(raise_request_exception=False).post(
        "/api/v1/aml/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=_signed_aml(body)
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == AML_BAD_CALLBACK.code, r.content[:300]
    assert not IdentificationEvent.objects.exists()


def test_a_signed_identification_callback_with_a_nul_is_a_malformed_body(settings, no_error_logged):
    """jsonb refuses ``\\u0000``: storing what the provider read off the document was a 500."""
    from aml.models import IdentificationEvent

    settings.AML_SANDBOX_ENABLED = True
    body = json.dumps(
        {
            "event_id": "e2",
            "type": "identification.completed",
            "reference": "idc_x",
            "outcome": "approved",
            "score": 90,
            "extracted": {"surname": "Nov\u0000k"},
        }
    ).encode()
    r = APIClient(raise_request_exception=False).post(
        "/api/v1/aml/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=_signed_aml(body)
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == AML_BAD_CALLBACK.code, r.content[:300]
    assert not IdentificationEvent.objects.exists()


@pytest.mark.parametrize("depth", [33, 50_000])
def test_a_signed_payment_callback_nested_too_deep_is_a_malformed_body(depth, no_error_logged):
    from wallet.models import ProviderEvent

    body = (
        '{"event_id": "e1", "type": "payment.succeeded", "reference": "X", "amount": 100, "payer": '
        + deep(depth, "object")
        + "}"
    ).encode()
    r = APIClient(raise_request_exception=False).post(
        "/api/v1/wallet/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=_signed_wallet(body)
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == BAD_CALLBACK.code, r.content[:300]
    assert not ProviderEvent.objects.exists()


class _DeepJson(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = deep(100_000, "list").encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


def test_a_register_gateway_answering_deeply_nested_json_is_unavailable_not_a_crash(settings):
    """The JSON gateways' answers are read with the same bound (accounts/adapters.py): a register that answers
    100,000 levels deep is a register that did not answer (retried), not a RecursionError in a login."""
    from accounts.adapters import HttpExclusionRegister, Identity, RegisterUnavailable

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _DeepJson)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        settings.ACCOUNTS_EXCLUSION_REGISTER_URL = f"http://127.0.0.1:{server.server_address[1]}"
        player = make_player()
        with pytest.raises(RegisterUnavailable):
            HttpExclusionRegister().is_listed(Identity.from_personal(player.personal))
    finally:
        server.shutdown()
        server.server_close()


# N-7: NUL bytes -------------------------------------------------------------------------------------------------------

STAFF_LISTS = ["/api/v1/aml/staff/identifications", "/api/v1/aml/staff/cases", "/api/v1/aml/staff/source-of-funds"]


@pytest.mark.parametrize("url", STAFF_LISTS)
def test_a_nul_or_an_unknown_status_on_an_aml_staff_list_is_a_400(url, no_error_logged):
    c = staff_api_client(superuser=True)
    for value in ("%00", "doubtful%00", "no-such-status"):
        error = refused_as_invalid(c.get(f"{url}?status={value}"))
        assert error["details"], error
    error = refused_as_invalid(c.get(f"{url}?status=open&status=open"))  # at most once
    assert c.get(url).status_code == 200  # the default queue
    assert c.get(f"{url}?status=").status_code == 200  # blank: the default


def test_the_status_filter_still_filters_by_its_choices():
    from datetime import date

    from aml.models import IdentificationCheck
    from core import clock

    player = make_player()
    check = IdentificationCheck.objects.create(
        player=player,
        provider="sandbox",
        reference="idc_f",
        document_type="id_card",
        document_number="AB1",
        document_issuing_state="CZ",
        document_issuing_authority="x",
        document_valid_until=date(2030, 1, 1),
        created_at=clock.now(),
        status="rejected",
    )
    c = staff_api_client(superuser=True)
    assert [r["id"] for r in c.get("/api/v1/aml/staff/identifications?status=rejected").json()["results"]] == [check.pk]
    assert c.get("/api/v1/aml/staff/identifications?status=doubtful").json()["results"] == []


def test_a_nul_in_the_admin_image_side_is_a_404_and_a_known_side_is_served(settings, tmp_path, no_error_logged):
    from datetime import date

    from django.core.files.base import ContentFile

    from aml.models import IdentificationCheck, IdentificationImage
    from core import clock

    settings.MEDIA_ROOT = str(tmp_path)
    check = IdentificationCheck.objects.create(
        player=make_player(),
        provider="sandbox",
        reference="idc_img",
        document_type="id_card",
        document_number="AB2",
        document_issuing_state="CZ",
        document_issuing_authority="x",
        document_valid_until=date(2030, 1, 1),
        created_at=clock.now(),
        status="doubtful",
    )
    img = IdentificationImage(identification=check, side="front", content_type="image/jpeg", size=4, sha256="0")
    img.file.save("idc_img-front.jpg", ContentFile(b"\xff\xd8\xff\xe0"), save=True)
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(superuser=True))
    base = f"/admin/aml/identificationcheck/{check.pk}/image"
    assert c.get(f"{base}/front/").status_code == 200
    for side in ("front%00", "%00", "selfie%00x", "passport"):
        assert c.get(f"{base}/{side}/").status_code == 404, side


def test_a_nul_in_any_admin_list_filter_or_path_is_refused_not_a_500(no_error_logged):
    """Every registered admin's list filters (the review found 60+ that were a 500 with ``%00``) and change paths."""
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(superuser=True))
    tried = 0
    for model, model_admin in admin.site._registry.items():
        base = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        names = {"q", "o", "p"}
        for spec in model_admin.list_filter:
            field = spec if isinstance(spec, str) else spec[0] if isinstance(spec, tuple) else None
            if isinstance(field, str):
                names |= {field, f"{field}__exact"}
            else:
                names.add(getattr(spec, "parameter_name", "x"))
        for name in sorted(names):
            assert c.get(f"{base}?{name}=%00").status_code == 400, (base, name)
            tried += 1
        assert c.get(f"{base}%00/change/").status_code == 404, base
        assert c.get(f"{base}1%00/change/").status_code == 404, base
        tried += 2
    assert tried > 300


def test_a_nul_in_any_api_query_path_or_header_is_a_400_or_404_in_the_error_shape(no_error_logged):
    c = player_client()
    refused_as_invalid(c.get("/api/v1/limits/play-status?kind=technical&x=%00"))
    refused_as_invalid(c.get("/api/v1/games/rounds?play_money=%00"))
    refused_as_invalid(c.get("/api/v1/jackpots?game=%00"))
    r = c.get("/api/v1/complaints/RK-1%00")
    assert r.status_code == 404 and r.json()["error"]["code"] == NOT_FOUND.code
    r = c.get("/api/v1/accounts/me", HTTP_USER_AGENT="x\x00y")
    error = refused_as_invalid(r)
    assert "User-Agent" in error["details"]["reason"]
    r = APIClient(raise_request_exception=False).post(
        "/api/v1/accounts/auth/login", {"username": "a", "password": "b"}, format="json", HTTP_USER_AGENT="\x00"
    )
    refused_as_invalid(r)
    assert c.get("/api/v1/jackpots?game=a%2500").status_code == 400  # "%00" written out is no NUL: the view judges
    assert c.get("/api/v1/jackpots?game=a%2500").json()["error"]["code"] == INVALID_QUERY.code


def test_a_security_event_with_a_nul_in_what_was_tried_is_still_recorded():
    """jsonb refuses ``\\u0000``: the record of a refusal carrying one was lost (logged as not recorded)."""
    from core.audit import security_event

    assert security_event(action="security.test_nul", source="198.51.100.1", tried="POST x\x00y", provider="\x00")
    event = AuditEvent.objects.using("refusal_log").get(action="security.test_nul")
    assert event.details["tried"] == "POST x\\0y" and event.details["provider"] == "\\0"


@pytest.mark.parametrize("body", ["{", deep(1_000, "list")], ids=["malformed", "too-deep"])
def test_an_unreadable_body_with_an_idempotency_key_is_a_400_and_changes_nothing(body, no_error_logged):
    """The Idempotency-Key's request hash read the body first and swallowed DRF's parse error; DRF then hands the
    view an empty body, so ``POST limits/self-listing`` with a broken body asked the register of excluded persons to
    list the player for the default year (and logged them out). Now the parse error is the answer."""
    from limits.models import SelfListingRequest

    player = make_player()
    c = player_client(player)
    r = c.generic(
        "POST",
        "/api/v1/limits/self-listing",
        body,
        content_type="application/json",
        HTTP_IDEMPOTENCY_KEY="broken-body-1",
    )
    refused_as_invalid(r)
    assert not SelfListingRequest.objects.filter(player=player).exists()
    assert c.get("/api/v1/accounts/me").status_code == 200  # still signed in
