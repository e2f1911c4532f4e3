"""Bank files that could fool the wallet (security review V-4, V-6): the bank's reversal of a credited deposit is
taken back from the player (or recorded as a debt) and staff are told; a line with an amount no posting can hold is
refused with a clear error while every other line of the file books once."""

from __future__ import annotations

import pytest

from accounts.models import Message
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, bank, ledger_clean
from wallet import errors, iso20022, selectors
from wallet.ledger import operator_balance
from wallet.models import BankEntry, Debt, Deposit
from wallet.services import stake_debit
from wallet.tests.bankfiles import Tx, camt
from wallet.tests.test_bank_statements import imported, operator_bank, paid, start  # noqa: F401 - a fixture

pytestmark = pytest.mark.django_db


def credited(capture, amount="700.00"):
    from tests.kit.accounts import make_player

    p = make_player()
    method = bank(p)
    d = start(p, method, czk(amount))
    assert imported(camt([paid(d, method)]), capture)["by_status"] == {"confirmed": 1}
    return p, method, d


def reversal_of(d: Deposit, method, **kw) -> Tx:
    """The bank takes the credit back: a debit marked as a reversal, with the deposit's symbol and payer."""
    return paid(d, method, direction="DBIT", reversal=True, **kw)


def test_a_reversal_of_a_credited_deposit_takes_the_money_back_and_tells_staff_and_the_player(
    django_capture_on_commit_callbacks,
):
    """V-4: the reversal was filed as "other" and the player kept (and could withdraw) the 700 CZK."""
    p, method, d = credited(django_capture_on_commit_callbacks)
    assert selectors.balance(p) == czk(700)
    summary = imported(camt([reversal_of(d, method)]), django_capture_on_commit_callbacks)
    assert summary["by_status"] == {"reversed": 1}
    entry = BankEntry.objects.get(direction="debit")
    assert (entry.status, entry.deposit, entry.player) == ("reversed", d, p)
    d.refresh_from_db()
    assert d.status == Deposit.Status.REVERSED and selectors.balance(p) == czk(0)
    assert operator_balance("clearing:bank") == czk(0)  # the money left the bank account again
    assert AuditEvent.objects.filter(action="wallet.bank_deposit_reversed", object_id=str(entry.pk)).exists()
    assert Message.objects.filter(player=p, reference=f"wallet.deposit_reversed:{d.pk}").exists()
    assert not Debt.objects.filter(player=p).exists()
    ledger_clean()


def test_a_reversal_after_the_money_was_played_leaves_a_debt_with_its_notice(django_capture_on_commit_callbacks):
    p, method, d = credited(django_capture_on_commit_callbacks)
    stake_debit(player=p, amount=czk(500), reference="spent-500", actor=SYSTEM)
    imported(camt([reversal_of(d, method)]), django_capture_on_commit_callbacks)
    assert selectors.balance(p) == czk(-500)
    debt = Debt.objects.get(player=p)
    assert (debt.amount, debt.outstanding, debt.status) == (czk(500).amount, czk(500).amount, "open")
    assert debt.deduction is None and debt.bank_entry is not None and debt.bank_entry.deposit == d
    assert Message.objects.filter(player=p, reference=f"wallet.debt:{debt.pk}").exists()
    with pytest.raises(DomainError) as exc:  # no stake while the debt is open
        stake_debit(player=p, amount=czk(10), reference="after-debt", actor=SYSTEM)
    assert exc.value.code in (errors.DEBT_OUTSTANDING.code, errors.INSUFFICIENT_FUNDS.code)
    ledger_clean()


def test_a_reversal_that_names_no_credited_deposit_is_recorded_for_staff_and_moves_nothing(
    django_capture_on_commit_callbacks,
):
    summary = imported(
        camt([Tx("300.00", direction="DBIT", reversal=True, vs="99999999", name="Nikdo")]),
        django_capture_on_commit_callbacks,
    )
    assert summary["by_status"] == {"reversal_unmatched": 1}
    entry = BankEntry.objects.get()
    assert "no credited deposit" in entry.status_reason
    assert AuditEvent.objects.filter(action="wallet.bank_reversal_unmatched").exists()
    assert selectors.bank_reversals_unmatched() == 1
    ledger_clean()


def test_the_same_reversal_twice_takes_the_money_back_once(django_capture_on_commit_callbacks):
    p, method, d = credited(django_capture_on_commit_callbacks)
    raw = camt([reversal_of(d, method, ref="CZREV000001")])
    imported(raw, django_capture_on_commit_callbacks)
    imported(camt([reversal_of(d, method, ref="CZREV000001")]), django_capture_on_commit_callbacks)
    assert selectors.balance(p) == czk(0) and BankEntry.objects.filter(direction="debit").count() == 1
    ledger_clean()


def test_an_unbookable_amount_is_refused_with_a_clear_error_and_every_other_line_books_once(
    django_capture_on_commit_callbacks,
):
    """V-6: 10^17 CZK was a DataError: the import failed on every run and the rest of the file was never booked."""
    p, method, d = credited(django_capture_on_commit_callbacks, amount="100.00")
    from tests.kit.accounts import make_player

    q = make_player()
    method_q = bank(q)
    d2, d3 = start(q, method_q, czk(200)), start(q, method_q, czk(300))
    raw = camt([paid(d2, method_q), Tx("99999999999999999.99", vs="12345678", name="Obr"), paid(d3, method_q)])
    summary = imported(raw, django_capture_on_commit_callbacks)
    assert summary["by_status"] == {"confirmed": 2, "invalid": 1}
    bad = BankEntry.objects.get(status="invalid")
    assert bad.amount == 0 and "99999999999999999.99" in bad.status_reason and "maximum" in bad.status_reason
    assert selectors.balance(q) == czk(500)
    again = imported(raw, django_capture_on_commit_callbacks)  # the same file again: nothing twice
    assert again["this_run"] == {"duplicate": 3}
    assert selectors.balance(q) == czk(500)
    assert AuditEvent.objects.filter(action="wallet.bank_entry_invalid").count() == 1
    ledger_clean()


@pytest.mark.parametrize("text", ["5E+2", "٥٠٠.00", "5_00.00", "+500.00", " 500.00x"])
def test_an_amount_outside_the_iso_decimal_grammar_refuses_the_file(text):
    raw = camt([Tx(text, vs="1")])
    with pytest.raises(Exception) as exc:
        iso20022.statement_parse(raw)
    assert getattr(exc.value, "code", "") == errors.BANK_FILE_INVALID.code
