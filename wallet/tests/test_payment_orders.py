"""Bank transfers out: withdrawals to a verified bank account (GP §5(6), §5(8)) exported as pain.001.001.03 payment
orders, each in exactly one file, settled by the next statement's debit, failed by a returned payment."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.core.management import call_command
from lxml import etree
from rest_framework.test import APIClient

from core.audit import Actor
from tests.kit.accounts import make_player, make_staff, token_for
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, fund, ledger_clean, ref, verified_bank
from wallet import iso20022, selectors
from wallet.errors import PAYMENT_ORDER_FILE_ERASED
from wallet.ledger import operator_balance
from wallet.models import BankEntry, PaymentOrder, PaymentOrderBatch, Withdrawal
from wallet.services import bank_payment_order_export, bank_statement_import, withdrawal_request
from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt, pain_header, pain_transfers

pytestmark = pytest.mark.django_db
API = "/api/v1/wallet"


@pytest.fixture(autouse=True)
def operator_bank(settings):
    settings.WALLET_PROVIDER_BY_KIND = {"bank_account": "bank"}
    settings.WALLET_BANK_IBAN = OPERATOR_IBAN
    settings.WALLET_BANK_BIC = ""
    settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_NAME


def withdraw(player, method, amount, capture) -> Withdrawal:
    with capture(execute=True):
        w = withdrawal_request(
            player=player, method=method, amount=amount, reference=ref("wd"), actor=Actor.player(player)
        )
    w.refresh_from_db()
    return w


def statement(txs, capture, **kw) -> dict:
    with capture(execute=True):
        return bank_statement_import(raw=camt(txs, **kw), name="s.xml", actor=SYSTEM)[1]


def player_with_money(amount="5000"):
    p = make_player()
    method = verified_bank(p)
    method.holder_name = "Jiří Dvořák"
    method.save(update_fields=["holder_name"])
    fund(p, czk(amount))
    return p, method


def test_a_withdrawal_to_a_verified_bank_account_goes_into_one_valid_pain001_and_the_statement_debit_confirms_it(
    django_capture_on_commit_callbacks,
):
    p, method = player_with_money()
    w = withdraw(p, method, czk("1234.56"), django_capture_on_commit_callbacks)
    assert w.provider == "bank" and w.status == Withdrawal.Status.SENT  # accepted into the payment-order outbox
    assert selectors.balance(p) == czk("3765.44")
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    assert batch is not None and batch.count == 1 and batch.control_sum == 123456
    iso20022.payment_order_validate(batch.xml.encode())
    head = pain_header(batch.xml)
    assert head == {
        "msg_id": batch.message_id,
        "count": "1",
        "sum": "1234.56",
        "debtor_iban": OPERATOR_IBAN,
        "debtor_bic": "FIOBCZPP",
        "debtor_name": "Herni Provozovatel s.r.o.",
        "batch_booking": "false",
        "execution_date": batch.execution_date.isoformat(),
    }
    [tx] = pain_transfers(batch.xml)
    order = PaymentOrder.objects.get()
    assert tx == {
        "end_to_end_id": order.end_to_end_id,
        "amount": "1234.56",
        "currency": "CZK",
        "name": "Jiri Dvorak",
        "iban": method.iban,
        "other": "",
        "bic": "GIBACZPX" if method.iban[4:8] == "0800" else tx["bic"],
        "remittance": f"Vyber / withdrawal {w.pk}",
    }
    assert order.withdrawal == w and order.kind == PaymentOrder.Kind.WITHDRAWAL
    # a second export does not include it again
    assert bank_payment_order_export(actor=SYSTEM) is None
    assert PaymentOrder.objects.filter(withdrawal=w).count() == 1
    summary = statement(
        [Tx("1234.56", direction="DBIT", e2e=str(order.end_to_end_id), name="Jiri Dvorak", iban=method.iban)],
        django_capture_on_commit_callbacks,
    )
    assert summary["by_status"] == {"settled": 1}
    w.refresh_from_db()
    order.refresh_from_db()
    batch.refresh_from_db()
    assert w.status == Withdrawal.Status.CONFIRMED and order.status == PaymentOrder.Status.SETTLED
    assert batch.status == PaymentOrderBatch.Status.SETTLED and batch.settled_count == 1
    assert operator_balance("clearing:bank") == czk("1234.56")  # paid out of the bank (asset side: positive)
    ledger_clean()


def test_the_pain001_is_valid_against_the_subset_schema_and_a_broken_one_is_not(django_capture_on_commit_callbacks):
    p, method = player_with_money()
    withdraw(p, method, czk(200), django_capture_on_commit_callbacks)
    withdraw(p, method, czk("300.10"), django_capture_on_commit_callbacks)
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    assert batch.count == 2 and batch.control_sum == 50010
    assert [t["amount"] for t in pain_transfers(batch.xml)] == ["200.00", "300.10"]
    iso20022.payment_order_validate(batch.xml.encode())
    doc = etree.fromstring(batch.xml.encode())
    ns = {"p": iso20022.PAIN001}
    doc.find(".//p:CdtTrfTxInf/p:PmtId/p:EndToEndId", ns).text = "x" * 36  # longer than Max35Text
    with pytest.raises(ValueError, match="does not validate"):
        iso20022.payment_order_validate(etree.tostring(doc))
    amt = etree.fromstring(batch.xml.encode())
    amt.find(".//p:InstdAmt", ns).attrib.pop("Ccy")
    with pytest.raises(ValueError, match="does not validate"):
        iso20022.payment_order_validate(etree.tostring(amt))


@pytest.mark.parametrize("how", ["rtrinf", "reversal"])
def test_a_returned_payment_fails_the_withdrawal_and_the_money_comes_back_to_the_player(
    django_capture_on_commit_callbacks, how
):
    p, method = player_with_money("1000")
    w = withdraw(p, method, czk(600), django_capture_on_commit_callbacks)
    bank_payment_order_export(actor=SYSTEM)
    order = PaymentOrder.objects.get()
    statement(
        [Tx("600.00", direction="DBIT", e2e=str(order.end_to_end_id), iban=method.iban)],
        django_capture_on_commit_callbacks,
    )
    w.refresh_from_db()
    assert w.status == Withdrawal.Status.CONFIRMED and selectors.balance(p) == czk(400)
    back = Tx(
        "600.00",
        e2e=str(order.end_to_end_id),
        iban=method.iban,
        **({"return_code": "AC04"} if how == "rtrinf" else {"reversal": True}),
    )
    summary = statement([back], django_capture_on_commit_callbacks, version="08")
    assert summary["by_status"] == {"payment_returned": 1}
    w.refresh_from_db()
    order.refresh_from_db()
    assert w.status == Withdrawal.Status.RETURNED and order.status == PaymentOrder.Status.RETURNED
    assert selectors.balance(p) == czk(1000) and operator_balance("clearing:bank") == czk(0)
    entry = BankEntry.objects.get(status=BankEntry.Status.PAYMENT_RETURNED)
    assert entry.order == order and entry.return_reason == ("AC04 Ucet zrusen" if how == "rtrinf" else "reversal")
    batch = order.batch
    batch.refresh_from_db()
    assert batch.returned_count == 1 and batch.status == PaymentOrderBatch.Status.SETTLED
    ledger_clean()


def test_a_return_before_the_debit_also_fails_the_withdrawal(django_capture_on_commit_callbacks):
    p, method = player_with_money("1000")
    w = withdraw(p, method, czk(250), django_capture_on_commit_callbacks)
    bank_payment_order_export(actor=SYSTEM)
    order = PaymentOrder.objects.get()
    statement([Tx("250.00", e2e=str(order.end_to_end_id), return_code="AC01")], django_capture_on_commit_callbacks)
    w.refresh_from_db()
    assert w.status == Withdrawal.Status.RETURNED and selectors.balance(p) == czk(1000)
    ledger_clean()


def test_a_debit_with_another_amount_or_an_unknown_end_to_end_id_settles_nothing(django_capture_on_commit_callbacks):
    p, method = player_with_money()
    w = withdraw(p, method, czk(100), django_capture_on_commit_callbacks)
    bank_payment_order_export(actor=SYSTEM)
    order = PaymentOrder.objects.get()
    summary = statement(
        [
            Tx("100.01", direction="DBIT", e2e=str(order.end_to_end_id)),
            Tx("100.00", direction="DBIT", e2e="999999999"),
            Tx("25.00", direction="DBIT"),
        ],
        django_capture_on_commit_callbacks,
    )
    assert summary["by_status"] == {"other": 3}
    w.refresh_from_db()
    assert w.status == Withdrawal.Status.SENT
    assert PaymentOrder.objects.get().status == PaymentOrder.Status.EXPORTED


def test_a_return_naming_none_of_our_orders_goes_to_the_staff_queue(django_capture_on_commit_callbacks):
    summary = statement(
        [Tx("70.00", e2e="424242", return_code="AC04", name="Someone")], django_capture_on_commit_callbacks
    )
    assert summary["by_status"] == {"unmatched": 1}
    assert operator_balance("bank_unmatched") == czk(70)
    ledger_clean()


def test_a_sandbox_withdrawal_is_not_in_a_bank_file(settings, django_capture_on_commit_callbacks):
    settings.WALLET_PROVIDER_BY_KIND = {}
    p, method = player_with_money()
    withdraw(p, method, czk(100), django_capture_on_commit_callbacks)
    assert bank_payment_order_export(actor=SYSTEM) is None


def test_the_management_commands_import_a_statement_and_write_the_payment_order_file(
    tmp_path: Path, django_capture_on_commit_callbacks, capsys
):
    p, method = player_with_money()
    withdraw(p, method, czk(321), django_capture_on_commit_callbacks)
    out = tmp_path / "orders.xml"
    call_command("bank_payment_order_export", "--output", str(out))
    assert "1 payment orders" in capsys.readouterr().out
    [tx] = pain_transfers(out.read_bytes())
    iso20022.payment_order_validate(out.read_bytes())
    call_command("bank_payment_order_export", "--output", str(tmp_path / "none.xml"))
    assert capsys.readouterr().out.strip() == "nothing to export" and not (tmp_path / "none.xml").exists()
    stmt = tmp_path / "camt053.xml"
    stmt.write_bytes(camt([Tx("321.00", direction="DBIT", e2e=tx["end_to_end_id"], iban=method.iban)]))
    with django_capture_on_commit_callbacks(execute=True):
        call_command("bank_statement_import", str(stmt))
    printed = capsys.readouterr().out
    assert "1 booked entries" in printed and "settled: 1" in printed
    assert Withdrawal.objects.get().status == Withdrawal.Status.CONFIRMED
    call_command("bank_statement_import", "--json", str(stmt))
    assert '"duplicate": 1' in capsys.readouterr().out


def test_staff_export_through_the_api_with_the_permission_and_download_the_file(django_capture_on_commit_callbacks):
    from django.contrib.auth.models import Permission

    p, method = player_with_money()
    withdraw(p, method, czk(150), django_capture_on_commit_callbacks)
    plain = make_staff()
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(plain)}")
    assert c.post(f"{API}/staff/bank/payment-orders", HTTP_IDEMPOTENCY_KEY="e0").status_code == 403
    assert not PaymentOrderBatch.objects.exists()
    plain.user_permissions.add(
        *Permission.objects.filter(codename__in=["export_payment_orders", "view_paymentorderbatch"])
    )
    r = c.post(f"{API}/staff/bank/payment-orders", HTTP_IDEMPOTENCY_KEY="e1")
    assert r.status_code == 201 and r.json()["exported"] is True
    batch = r.json()["batch"]
    assert batch["count"] == 1 and batch["control_sum"]["amount"] == 15000 and len(batch["orders"]) == 1
    again = c.post(f"{API}/staff/bank/payment-orders", HTTP_IDEMPOTENCY_KEY="e2")
    assert again.status_code == 200 and again.json() == {"exported": False, "batch": None}
    f = c.get(f"{API}/staff/bank/payment-orders/{batch['id']}/file")
    assert f.status_code == 200 and f["Content-Type"].startswith("application/xml")
    assert pain_transfers(f.content)[0]["amount"] == "150.00"
    assert c.get(f"{API}/staff/bank/payment-orders").json()["count"] == 1
    player = APIClient(raise_request_exception=False)
    player.credentials(HTTP_AUTHORIZATION=f"Token {token_for(p.user)}")
    assert player.get(f"{API}/staff/bank/payment-orders/{batch['id']}/file").status_code == 403
    # once the retention job blanked the file (wallet/privacy.py), the download says it is gone, not an empty file
    PaymentOrderBatch.objects.filter(pk=batch["id"]).update(xml="")
    gone = c.get(f"{API}/staff/bank/payment-orders/{batch['id']}/file")
    assert gone.status_code == 410 and gone.json()["error"]["code"] == PAYMENT_ORDER_FILE_ERASED.code


def test_a_return_of_another_persons_money_that_the_bank_sends_back_stops_for_staff_and_goes_out_again(
    django_capture_on_commit_callbacks,
):
    """GP §5(6): another person's money goes back to its source only: a failed return is never offered to the
    player; staff send it again (a new payment order, a new EndToEndId)."""
    from tests.kit.wallet import bank, bank_number
    from wallet.methods import czech_account_iban
    from wallet.models import Payout
    from wallet.services import deposit_start, payout_resend

    p = make_player()
    method = bank(p)
    d = deposit_start(player=p, method=method, amount=czk(90), reference=ref("dep"), actor=Actor.player(p))
    stranger = czech_account_iban(bank_number("0600"))
    statement(
        [Tx("90.00", vs=d.payment_reference, name="Petr Svoboda", iban=stranger)], django_capture_on_commit_callbacks
    )
    bank_payment_order_export(actor=SYSTEM)
    first = PaymentOrder.objects.get()
    assert first.creditor_iban == stranger and first.kind == PaymentOrder.Kind.PAYOUT and first.payout_attempt == 0
    statement(
        [Tx("90.00", e2e=str(first.end_to_end_id), return_code="AC04", iban=stranger)],
        django_capture_on_commit_callbacks,
    )
    payout = Payout.objects.get()
    assert payout.status == Payout.Status.STOPPED and selectors.balance(p) == czk(0)
    with django_capture_on_commit_callbacks(execute=True):
        payout_resend(payout=payout, actor=SYSTEM)
    batch = bank_payment_order_export(actor=SYSTEM)
    assert batch is not None
    second = batch.orders.get()
    assert second.payout_attempt == 1 and second.end_to_end_id != first.end_to_end_id
    statement(
        [Tx("90.00", direction="DBIT", e2e=str(second.end_to_end_id), iban=stranger)],
        django_capture_on_commit_callbacks,
    )
    payout.refresh_from_db()
    assert payout.status == Payout.Status.COMPLETED and selectors.balance(p) == czk(0)
    ledger_clean()


def test_a_refused_deposit_whose_statement_named_no_account_cannot_be_paid_back_and_stops_for_staff(
    django_capture_on_commit_callbacks,
):
    from tests.kit.wallet import bank
    from wallet.models import Payout
    from wallet.services import deposit_start

    p = make_player()
    method = bank(p)
    d = deposit_start(player=p, method=method, amount=czk(50), reference=ref("dep"), actor=Actor.player(p))
    statement([Tx("50.00", vs=d.payment_reference, name="Petr Svoboda")], django_capture_on_commit_callbacks)
    assert Payout.objects.get().status == Payout.Status.SENT
    assert bank_payment_order_export(actor=SYSTEM) is None
    payout = Payout.objects.get()
    assert payout.status == Payout.Status.STOPPED and "no account to pay it to" in str(payout.history)
    ledger_clean()


def test_a_transfer_to_an_account_without_an_iban_is_written_as_another_id_and_validates():
    from datetime import UTC, date, datetime

    xml = iso20022.payment_order_xml(
        message_id="PO-T-1",
        created_at=datetime(2026, 12, 3, 12, 0, tzinfo=UTC),
        execution_date=date(2026, 12, 4),
        debtor_name=OPERATOR_NAME,
        debtor_iban=OPERATOR_IBAN,
        debtor_bic="FIOBCZPP",
        transfers=[
            iso20022.CreditTransfer(
                end_to_end_id="7",
                amount=1,
                creditor_name="Žluťoučký kůň & syn",
                creditor_iban="",
                creditor_account="123456789",
                creditor_bic="",
                remittance="Vrácení <platby>",
            )
        ],
    )
    iso20022.payment_order_validate(xml)
    [tx] = pain_transfers(xml)
    assert (tx["other"], tx["iban"], tx["amount"], tx["bic"]) == ("123456789", "", "0.01", "")
    assert tx["name"] == "Zlutoucky kun syn" and tx["remittance"] == "Vraceni platby"
