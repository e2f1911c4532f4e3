"""The bank screens of the admin: upload a statement, assign a queued credit, export and download payment orders,
each only with its permission."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from tests.kit.accounts import make_player, make_staff
from tests.kit.money import czk
from tests.kit.wallet import bank, ledger_clean
from wallet import selectors
from wallet.models import BankEntry, BankStatement, PaymentOrderBatch
from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt, pain_transfers

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def operator_bank(settings):
    settings.WALLET_PROVIDER_BY_KIND = {"bank_account": "bank"}
    settings.WALLET_BANK_IBAN = OPERATOR_IBAN
    settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_NAME


def admin_client(*perms: str) -> Client:
    user = make_staff()
    for codename in ("view_bankstatement", "view_bankentry", "view_paymentorderbatch", *perms):
        user.user_permissions.add(Permission.objects.get(content_type__app_label="wallet", codename=codename))
    c = Client(raise_request_exception=False)
    c.force_login(user)
    return c


def test_finance_staff_upload_a_statement_assign_a_queued_credit_and_return_another_in_the_admin(
    django_capture_on_commit_callbacks,
):
    p = make_player()
    method = bank(p)
    identity = selectors.player_identity(p)
    assert identity is not None
    raw = camt(
        [
            Tx("250.00", vs="8888888888", name=f"{identity.given_names} {identity.surname}", iban=method.iban),
            Tx("40.00", name="Neznamy", iban="CZ6508000000192000145399"),
        ]
    )
    url = "/admin/wallet/bankstatement/add/"
    assert admin_client().get(url).status_code == 403
    c = admin_client("import_bank_statement", "match_bank_credit", "export_payment_orders")
    assert c.get(url).status_code == 200
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(url, {"file": SimpleUploadedFile("vypis.xml", raw)})
    assert r.status_code == 302 and BankStatement.objects.get().status == BankStatement.Status.PROCESSED
    queued = BankEntry.objects.order_by("pk")
    assert [e.status for e in queued] == ["unmatched", "unmatched"]
    listing = c.get("/admin/wallet/bankentry/?status__exact=unmatched")
    assert listing.status_code == 200 and b"assign" in listing.content
    first, second = queued
    assign = f"/admin/wallet/bankentry/{first.pk}/assign/"
    assert admin_client().get(assign).status_code == 403
    assert c.get(assign).status_code == 200
    assert c.post(assign, {"player_id": p.pk}).status_code == 302
    first.refresh_from_db()
    assert first.status == BankEntry.Status.CONFIRMED and selectors.balance(p) == czk(250)
    r = c.post("/admin/wallet/bankentry/", {"action": "return_to_payer", "_selected_action": [second.pk]})
    assert r.status_code == 302
    second.refresh_from_db()
    assert second.status == BankEntry.Status.RETURNING
    assert c.get("/admin/wallet/paymentorderbatch/add/").status_code == 200
    assert c.post("/admin/wallet/paymentorderbatch/add/", {}).status_code == 302
    batch = PaymentOrderBatch.objects.get()
    f = c.get(f"/admin/wallet/paymentorderbatch/{batch.pk}/file/")
    assert f.status_code == 200 and pain_transfers(f.content)[0]["iban"] == "CZ6508000000192000145399"
    assert admin_client().get(f"/admin/wallet/paymentorderbatch/{batch.pk}/file/").status_code == 403
    assert c.get(f"/admin/wallet/paymentorderbatch/{batch.pk}/change/").status_code == 200
    ledger_clean()
