"""The bank's rejection of our payment orders (pain.002 Customer Payment Status Report): a rejected withdrawal is
returned to the player; an accepted one waits for the statement's debit; a report twice changes nothing."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from core.errors import DomainError
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, ledger_clean
from wallet import errors, selectors
from wallet.models import PaymentOrder, PaymentOrderBatch, Withdrawal
from wallet.services import bank_payment_order_export, bank_payment_status_import
from wallet.tests.bankfiles import pain002
from wallet.tests.test_payment_orders import operator_bank, player_with_money, withdraw  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("version", ["03", "10"])
def test_a_rejected_payment_order_returns_the_withdrawal_to_the_player_and_an_accepted_one_waits(
    django_capture_on_commit_callbacks, version
):
    p, method = player_with_money("1000")
    q, method_q = player_with_money("1000")
    w = withdraw(p, method, czk(600), django_capture_on_commit_callbacks)
    v = withdraw(q, method_q, czk(300), django_capture_on_commit_callbacks)
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    order_w, order_v = PaymentOrder.objects.get(withdrawal=w), PaymentOrder.objects.get(withdrawal=v)
    assert selectors.balance(p) == czk(400)
    raw = pain002(
        batch.message_id,
        [(str(order_w.end_to_end_id), "RJCT", "AC01"), (str(order_v.end_to_end_id), "ACCP", "")],
        version=version,
    )
    with django_capture_on_commit_callbacks(execute=True):
        summary = bank_payment_status_import(raw=raw, actor=SYSTEM)
    assert summary["rejected"] == 1 and summary["transactions"] == 2
    w.refresh_from_db()
    v.refresh_from_db()
    order_w.refresh_from_db()
    assert w.status == Withdrawal.Status.RETURNED and order_w.status == PaymentOrder.Status.RETURNED
    assert selectors.balance(p) == czk(1000)
    assert v.status != Withdrawal.Status.RETURNED and PaymentOrder.objects.get(pk=order_v.pk).status == "exported"
    again = bank_payment_status_import(raw=raw, actor=SYSTEM)
    assert again.get("rejected", 0) == 0 and again["already_returned"] == 1
    assert selectors.balance(p) == czk(1000)
    ledger_clean()


def test_a_rejected_file_returns_every_order_of_it(django_capture_on_commit_callbacks, tmp_path):
    p, method = player_with_money("1000")
    w = withdraw(p, method, czk(250), django_capture_on_commit_callbacks)
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    path = tmp_path / "pain002.xml"
    path.write_bytes(pain002(batch.message_id, [], group_status="RJCT", group_reason="FF01"))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("bank_payment_status_import", str(path))
    w.refresh_from_db()
    assert w.status == Withdrawal.Status.RETURNED and selectors.balance(p) == czk(1000)
    batch.refresh_from_db()
    assert batch.returned_count == 1 and batch.status == PaymentOrderBatch.Status.SETTLED
    ledger_clean()


def test_a_report_on_a_file_that_is_not_ours_is_refused():
    with pytest.raises(DomainError) as exc:
        bank_payment_status_import(raw=pain002("NOT-OURS", [("1", "RJCT", "AC01")]), actor=SYSTEM)
    assert exc.value.code == errors.BANK_FILE_INVALID.code
