"""The wallet API as a player and staff use it: shapes, refusals, isolation between players, no 500s."""

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from core import clock
from core.api_money import INVALID_MONEY
from core.errors import NOT_A_PLAYER, NOT_AUTHENTICATED, VALIDATION
from core.idempotency import KEY_REQUIRED
from tests.kit.accounts import make_player, make_staff
from tests.kit.clients import client_for
from tests.kit.money import czk
from tests.kit.wallet import fund, verified_bank
from wallet.adapters import sandbox_event
from wallet.errors import (
    BAD_SIGNATURE,
    BANK_NOT_CZECH,
    BRANCH_CASH_24H,
    DOCUMENT_TYPE,
    METHOD_INVALID,
    SANDBOX_DISABLED,
    UNKNOWN_PROVIDER,
)
from wallet.models import Deposit, PaymentMethod, Withdrawal

pytestmark = pytest.mark.django_db
API = "/api/v1/wallet"


def code(r):
    return r.json()["error"]["code"]


def test_a_player_registers_a_bank_account_and_sees_it_listed():
    p = make_player(status="temporary")
    c = client_for(p.user)
    r = c.post(
        f"{API}/payment-methods", {"kind": "bank_account", "account_number": "19-2000145399/0800"}, format="json"
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["iban"] == "CZ6508000000192000145399" and body["status"] == "pending" and body["registered"] is False
    listed = c.get(f"{API}/payment-methods").json()
    assert listed["count"] == 1 and listed["results"][0]["id"] == body["id"]


def test_invalid_or_foreign_accounts_are_refused_with_clear_codes_in_both_languages():
    c = client_for(make_player().user)
    r = c.post(f"{API}/payment-methods", {"kind": "bank_account", "iban": "DE89370400440532013000"}, format="json")
    assert r.status_code == 400 and code(r) == BANK_NOT_CZECH.code
    assert "České republice" in r.json()["error"]["message"] and "Czech Republic" in r.json()["error"]["message_en"]
    r = c.post(
        f"{API}/payment-methods",
        {"kind": "bank_account", "account_number": "19-2000145398/0800"},
        format="json",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert r.status_code == 400 and code(r) == METHOD_INVALID.code and r.json()["error"]["message"].startswith("The")
    r = c.post(f"{API}/payment-methods", {"kind": "crypto"}, format="json")
    assert r.status_code == 400 and code(r) == VALIDATION.code
    assert not PaymentMethod.objects.exists()


def test_money_moving_calls_need_an_idempotency_key_and_a_replay_moves_nothing():
    p = make_player(status="temporary")
    c = client_for(p.user)
    m = c.post(
        f"{API}/payment-methods", {"kind": "bank_account", "account_number": "19-2000145399/0800"}, format="json"
    ).json()
    r = c.post(f"{API}/deposits", {"method_id": m["id"], "amount": {"amount": 10000, "currency": "CZK"}}, format="json")
    assert r.status_code == 400 and code(r) == KEY_REQUIRED.code
    r1 = c.post(
        f"{API}/deposits",
        {"method_id": m["id"], "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="d1",
    )
    r2 = c.post(
        f"{API}/deposits",
        {"method_id": m["id"], "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="d1",
    )
    assert r1.status_code == r2.status_code == 201 and r1.json()["id"] == r2.json()["id"]
    assert Deposit.objects.count() == 1
    assert r1.json()["amount"] == {"amount": 10000, "currency": "CZK", "formatted": "100,00\xa0Kč"}


def test_an_amount_is_a_money_object_of_integer_halere_and_every_other_form_is_refused():
    """One convention (docs/player-api.md): {"amount": <haléře>, "currency": "CZK"}; the CZK text the
    wallet once read ("1 500,50 Kč", "1500.50") is refused with request.invalid_money, as a float or a bare number."""
    p = make_player()
    m = verified_bank(p)
    c = client_for(p.user)
    r = c.post(
        f"{API}/deposits",
        {"method_id": m.pk, "amount": {"amount": 150050, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k1",
    )
    assert r.status_code == 201 and r.json()["amount"]["amount"] == 150050
    # what an answer carries may be sent back as it is: "formatted" is ignored
    r = c.post(
        f"{API}/deposits", {"method_id": m.pk, "amount": r.json()["amount"]}, format="json", HTTP_IDEMPOTENCY_KEY="k2"
    )
    assert r.status_code == 201 and r.json()["amount"]["amount"] == 150050
    for i, bad in enumerate(
        [
            "1 500,50 Kč",
            "1500.50",
            "1,500.50 CZK",
            "0.125",
            "1.000,50",
            150050,
            1500.5,
            True,
            None,
            [150050],
            {"amount": "150050", "currency": "CZK"},
            {"amount": 1500.5, "currency": "CZK"},
            {"amount": True, "currency": "CZK"},
            {"amount": 150050},
            {"currency": "CZK"},
            {"amount": 150050, "currency": "EUR"},
            {"amount": 150050, "currency": "CZK", "value": 1},
        ]
    ):
        r = c.post(f"{API}/deposits", {"method_id": m.pk, "amount": bad}, format="json", HTTP_IDEMPOTENCY_KEY=f"b{i}")
        if bad is None:
            assert r.status_code == 400 and code(r) == VALIDATION.code, r.json()  # a required field
            continue
        assert r.status_code == 400 and code(r) == INVALID_MONEY.code, (bad, r.json())
        details = r.json()["error"]["details"]
        assert details["field"] == "amount" and details["expected"]["currency"] == "CZK"
        assert "haléře" in details["expected"]["amount"] and "haléř" in r.json()["error"]["message_cs"]
    for i, bad in enumerate([0, -5]):
        r = c.post(
            f"{API}/deposits",
            {"method_id": m.pk, "amount": {"amount": bad, "currency": "CZK"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"n{i}",
        )
        assert r.status_code == 400 and code(r) == VALIDATION.code, r.json()
    assert Deposit.objects.filter(player=p).count() == 2


def test_amounts_above_the_operations_maximum_are_refused_with_a_400_not_a_500(settings):
    """92,233,720,368,547,758.08 CZK once gave a 500 (overflow); 2^63-1 haléře was accepted."""
    settings.WALLET_DEPOSIT_MAX_AMOUNT = 100_000_000
    settings.WALLET_WITHDRAWAL_MAX_AMOUNT = 5_000_000
    p = make_player()
    m = verified_bank(p)
    fund(p, czk(200000))
    c = client_for(p.user)
    for i, huge in enumerate([9223372036854775808, 9223372036854775807, 100000001, 10**30, int("9" * 40)]):
        r = c.post(
            f"{API}/deposits",
            {"method_id": m.pk, "amount": {"amount": huge, "currency": "CZK"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"h{i}",
        )
        assert r.status_code == 400 and code(r) in (VALIDATION.code, INVALID_MONEY.code), (huge, r.content)
    ok = c.post(
        f"{API}/deposits",
        {"method_id": m.pk, "amount": {"amount": 100000000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="at-max",
    )
    assert ok.status_code == 201, ok.content  # exactly the maximum
    over = c.post(
        f"{API}/withdrawals",
        {"method_id": m.pk, "amount": {"amount": 5000001, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="w-over",
    )
    assert over.status_code == 400 and "WALLET_WITHDRAWAL_MAX_AMOUNT" in str(over.json())
    assert Deposit.objects.filter(player=p).count() == 1 and not Withdrawal.objects.filter(player=p).exists()


@pytest.mark.parametrize(
    "query",
    [
        "start=2026-13-45",
        "end=2026-01-01T25:00",
        "end=2026-02-30",
        "end=9999-12-31",
        "start=0001-01-01",
        "start=9999-12-31T23:59:59-23:59",
        "start=2026-01-01T00:00%2B99:00",
        "start=99999-01-01",
    ],
)
def test_an_impossible_or_out_of_range_statement_period_is_a_400_never_a_500(query):
    """A period ending "9999-12-31" once overflowed into a 500 (the day after it does not exist)."""
    c = client_for(make_player().user)
    for path in ("statement", "statement.csv"):
        r = c.get(f"{API}/{path}?{query}")
        assert r.status_code == 400 and code(r) == VALIDATION.code, (query, path, r.status_code)


def test_a_player_never_sees_or_touches_another_players_rows():
    a, b = make_player(), make_player()
    ma = verified_bank(a)
    fund(a, czk(20000))
    ca, cb = client_for(a.user), client_for(b.user)
    dep = ca.post(
        f"{API}/deposits",
        {"method_id": ma.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="x",
    ).json()
    w = ca.post(
        f"{API}/withdrawals",
        {"method_id": ma.pk, "amount": {"amount": 1500000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="w",
    ).json()
    assert w["status"] == "requested"
    for url in (f"{API}/payment-methods/{ma.pk}", f"{API}/deposits/{dep['id']}", f"{API}/withdrawals/{w['id']}"):
        assert cb.get(url).status_code == 404
    assert cb.delete(f"{API}/payment-methods/{ma.pk}").status_code == 404
    assert cb.post(f"{API}/withdrawals/{w['id']}/cancel", HTTP_IDEMPOTENCY_KEY="c").status_code == 404
    assert (
        cb.post(f"{API}/sandbox/deposits/{dep['id']}/pay", {}, format="json", HTTP_IDEMPOTENCY_KEY="p").status_code
        == 404
    )
    r = cb.post(
        f"{API}/deposits",
        {"method_id": ma.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="y",
    )
    assert r.status_code == 404
    r = cb.post(
        f"{API}/withdrawals",
        {"method_id": ma.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="z",
    )
    assert r.status_code == 404
    for url in ("deposits", "withdrawals", "payment-methods", "statement", "payouts", "holds", "deductions"):
        assert cb.get(f"{API}/{url}").json()["count"] == 0
    assert Withdrawal.objects.get(pk=w["id"]).status == "requested"
    assert cb.get(f"{API}/staff/players/{a.pk}/statement").status_code == 403


def test_the_statement_is_paginated_filterable_by_period_and_downloadable_as_csv():
    p = make_player()
    for _ in range(3):
        fund(p, czk(10))
    c = client_for(p.user)
    page = c.get(f"{API}/statement", {"page_size": 2}).json()
    assert page["count"] == 3 and len(page["results"]) == 2
    line = page["results"][0]
    assert line["category"] == "correction" and line["amount"]["amount"] == 1000 and line["account"] == "player"
    assert c.get(f"{API}/statement", {"start": "2000-01-01", "end": "2000-01-31"}).json()["count"] == 0
    assert c.get(f"{API}/statement", {"start": "yesterday"}).status_code == 400
    assert c.get(f"{API}/statement", {"start": "", "end": ""}).json()["count"] == 3
    r = c.get(f"{API}/statement.csv")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(r.content.decode())))
    assert rows[0][:5] == ["at", "category", "kind", "account", "amount_czk"] and len(rows) == 4
    assert rows[-1][4:8] == ["10.00", "30.00", "1000", "3000"]


def test_an_unreadable_or_empty_period_is_a_request_error_naming_the_field():
    c = client_for(make_player().user)
    r = c.get(f"{API}/statement", {"start": "yesterday"})
    assert r.status_code == 400 and code(r) == VALIDATION.code and "start" in r.json()["error"]["details"]["fields"]
    r = c.get(f"{API}/statement.csv", {"start": "2026-02-01", "end": "2026-01-01"})
    assert r.status_code == 400 and code(r) == VALIDATION.code and "end" in r.json()["error"]["details"]["fields"]
    assert c.get(f"{API}/statement", {"end": "2026-02-30"}).status_code == 400  # not a real day: no 500


def test_a_date_as_the_end_of_the_period_includes_that_whole_prague_day():
    p = make_player()
    fund(p, czk(10))
    today = clock.business_date().isoformat()
    c = client_for(p.user)
    assert c.get(f"{API}/statement", {"start": today, "end": today}).json()["count"] == 1


def test_only_players_use_the_player_endpoints():
    staff = client_for(make_staff())
    for url in (
        "overview",
        "statement",
        "statement.csv",
        "payment-methods",
        "deposits",
        "withdrawals",
        "payouts",
        "holds",
        "deductions",
    ):
        r = staff.get(f"{API}/{url}")
        assert r.status_code == 403 and code(r) == NOT_A_PLAYER.code, url
    r = APIClient(raise_request_exception=False).get(f"{API}/overview")
    assert r.status_code == 401 and code(r) == NOT_AUTHENTICATED.code


def test_the_callback_endpoint_needs_no_login_but_a_valid_signature():
    p = make_player(status="temporary")
    c = client_for(p.user)
    m = c.post(
        f"{API}/payment-methods", {"kind": "bank_account", "account_number": "19-2000145399/0800"}, format="json"
    ).json()
    dep = c.post(
        f"{API}/deposits",
        {"method_id": m["id"], "amount": {"amount": 20000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="d",
    ).json()
    body, sig = sandbox_event("payment.succeeded", dep["payment_reference"], 20000, event_id="e-1")
    anon = APIClient(raise_request_exception=False)
    r = anon.post(f"{API}/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE="sha256=bad")
    assert r.status_code == 401 and code(r) == BAD_SIGNATURE.code
    r = anon.post(f"{API}/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=sig)
    assert r.status_code == 200 and r.json()["result"] == "confirmed"
    r = anon.post(f"{API}/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=sig)
    assert r.json()["status"] == "duplicate"
    r = anon.post(f"{API}/callbacks/unknown", body, content_type="application/json", HTTP_X_SIGNATURE=sig)
    assert r.status_code == 404 and code(r) == UNKNOWN_PROVIDER.code
    assert c.get(f"{API}/overview").json()["balance"]["amount"] == 20000


def test_the_sandbox_can_be_switched_off(settings):
    settings.WALLET_SANDBOX_ENABLED = False
    p = make_player()
    m = verified_bank(p)
    c = client_for(p.user)
    r = c.post(
        f"{API}/deposits",
        {"method_id": m.pk, "amount": {"amount": 10000, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="d",
    )
    assert r.status_code == 404 and code(r) == SANDBOX_DISABLED.code


def test_a_document_is_uploaded_as_multipart_and_checked_by_content():
    p = make_player(status="temporary")
    c = client_for(p.user)
    m = c.post(
        f"{API}/payment-methods", {"kind": "bank_account", "account_number": "19-2000145399/0800"}, format="json"
    ).json()
    pdf = SimpleUploadedFile("smlouva.pdf", b"%PDF-1.4 test", content_type="application/pdf")
    r = c.post(f"{API}/payment-methods/{m['id']}/documents", {"file": pdf}, format="multipart")
    assert r.status_code == 201 and r.json()["content_type"] == "application/pdf" and r.json()["status"] == "pending"
    fake = SimpleUploadedFile("evil.pdf", b"MZ\x90\x00 not a pdf", content_type="application/pdf")
    r = c.post(f"{API}/payment-methods/{m['id']}/documents", {"file": fake}, format="multipart")
    assert r.status_code == 400 and code(r) == DOCUMENT_TYPE.code


def test_staff_record_branch_cash_through_the_staff_api_and_players_cannot():
    p = make_player()
    staff = make_staff(role="finance")
    body = {"player_id": p.pk, "direction": "in", "amount": {"amount": 500000, "currency": "CZK"}, "branch": "Praha 1"}
    assert (
        client_for(p.user).post(f"{API}/staff/branch-cash", body, format="json", HTTP_IDEMPOTENCY_KEY="s").status_code
        == 403
    )
    cs = client_for(staff)
    r = cs.post(f"{API}/staff/branch-cash", body, format="json", HTTP_IDEMPOTENCY_KEY="s1")
    assert r.status_code == 201 and r.json()["amount"]["amount"] == 500000
    r = cs.post(
        f"{API}/staff/branch-cash",
        {**body, "amount": {"amount": 100, "currency": "CZK"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="s2",
    )
    assert r.status_code == 409 and code(r) == BRANCH_CASH_24H.code
    assert cs.get(f"{API}/staff/players/{p.pk}/statement").json()["count"] == 1
    assert cs.get(f"{API}/overview").status_code == 403  # staff have no wallet of their own


def test_no_wallet_endpoint_answers_500_and_anonymous_callers_get_401():
    p = make_player(status="temporary")
    c = client_for(p.user)
    anon = APIClient(raise_request_exception=False)
    gets = [
        "overview",
        "statement",
        "statement.csv",
        "payment-methods",
        "payment-methods/999",
        "deposits",
        "deposits/999",
        "withdrawals",
        "withdrawals/999",
        "payouts",
        "holds",
        "deductions",
    ]
    for url in gets:
        assert c.get(f"{API}/{url}").status_code in (200, 404), url
        assert anon.get(f"{API}/{url}").status_code == 401, url
    posts = [
        "payment-methods",
        "deposits",
        "withdrawals",
        "withdrawals/999/cancel",
        "sandbox/deposits/999/pay",
        "payment-methods/999/documents",
        "callbacks/sandbox",
        "staff/branch-cash",
    ]
    for url in posts:
        for payload in ({}, {"amount": None, "method_id": "x"}, {"kind": "card"}):
            r = c.post(f"{API}/{url}", payload, format="json", HTTP_IDEMPOTENCY_KEY=f"{url}{payload}")
            assert r.status_code < 500, (url, payload, r.content)
