"""Win deductions and debts (GP §7(7), §10(4)): a win taken back with its notice, a debt recorded and swept."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import errors, rules
from wallet.ledger import (
    check_amount,
    live_account,
    operator_account,
    player_account,
    post,
    set_debt,
    wallet_lock,
)
from wallet.models import Debt, LedgerAccount, LedgerTransaction, Wallet, WinDeduction, WinHold
from wallet.selectors import open_win_holds
from wallet.services.notices import debt_notice, deduction_notice

TxnKind = LedgerTransaction.Kind
NOTICE_CHANNEL = "inbox+email"  # a deduction's notice: an accounts message in the inbox, e-mailed after commit


# Deductions and debts -------------------------------------------------------------------------------------


def _holds_on_wins_locked(player_id: int, win_references: Sequence[str]) -> list[WinHold]:
    return list(open_win_holds(player_id, win_references).select_for_update(no_key=True))


def win_deduct(
    *,
    player: Player,
    amount: Money,
    reference: str,
    reason: str,
    notice_text: str,
    actor: Actor,
    win_references: Sequence[str] = (),
) -> WinDeduction:
    """Deduct a win credited in error or for a breach/fraud, with a notice the operator can prove (GP §7(7),
    §10(4)): an ``accounts`` message (``wallet.deduction:<id>``, inbox + e-mail) carrying ``notice_text``;
    ``notice_sent_at`` is the message's time and ``notice_channel`` ``inbox+email``.

    ``win_references`` names the credited wins the deduction takes back. Money the operator still holds of them (a
    GP §10(3) hold, ``held`` or ``escalated``) is taken first: the held account gives the held amount and the
    live account only the rest, in the one ``win_deduction`` posting, and each such hold ends ``forfeited`` (audited
    ``wallet.win_hold_deducted``), so no debt is ever recorded for money the operator holds. Holds worth more than
    ``amount`` are refused (``wallet.invalid_amount``: a hold is taken whole, never split).

    A resulting negative balance is recorded as a debt payable within 10 days, with its own notice
    (``wallet.debt:<id>``); until paid, stakes and withdrawals are refused (``wallet.debt_outstanding``).
    Idempotent on ``reference``: a repeat returns the first deduction and notifies nobody again."""
    amt = check_amount(amount)
    if not reason or not notice_text:
        raise errors.INVALID_AMOUNT(reason="a deduction needs a reason and the notice text")
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        existing = WinDeduction.objects.filter(reference=reference).first()
        if existing:
            if existing.player_id != player.pk or existing.amount != amt:
                raise errors.REFERENCE_CONFLICT(reference=reference)
            return existing
        holds = _holds_on_wins_locked(player.pk, win_references)
        from_held = sum(h.amount for h in holds)
        if from_held > amt:
            raise errors.INVALID_AMOUNT(
                reason="the holds on these wins exceed the deduction", held=Money(from_held), amount=Money(amt)
            )
        acc = live_account(wallet)
        from_live = amt - from_held
        new_balance = acc.balance - from_live
        shortfall = max(0, -new_balance)
        if shortfall > acc.debt:
            set_debt(acc, shortfall)
        legs = [(acc, -from_live), (operator_account("house"), amt)]
        if from_held:
            legs.append((player_account(player.pk, LedgerAccount.Kind.PLAYER_HELD), -from_held))
        txn = post(
            kind=TxnKind.WIN_DEDUCTION,
            reference=reference,
            legs=legs,
            player_id=player.pk,
            amount=amt,
            actor=actor,
            memo=reason,
        )
        now = clock.now()
        for hold in holds:
            old = hold.status
            hold.status, hold.decided_at, hold.decided_by = WinHold.Status.FORFEITED, now, actor.label
            hold.note = f"taken back by the deduction {reference}"[:255]
            hold.save(update_fields=["status", "decided_at", "decided_by", "note"])
            audit_record(
                actor=actor,
                action="wallet.win_hold_deducted",
                obj=hold,
                old={"status": old},
                new={"status": hold.status},
                amount=Money(hold.amount),
                deduction=reference,
                reason=reason,
            )
        deduction = WinDeduction.objects.create(
            player_id=player.pk,
            amount=amt,
            reference=reference,
            reason=reason[:255],
            notice_text=notice_text,
            notice_sent_at=now,
            notice_channel=NOTICE_CHANNEL,
            created_by=actor.label,
            transaction=txn,
        )
        new_debt = max(0, -acc.balance)
        already = sum(
            d.outstanding for d in Debt.objects.filter(account=acc, status__in=[Debt.Status.OPEN, Debt.Status.OVERDUE])
        )
        debt = None
        if new_debt > already:
            debt = Debt.objects.create(
                player_id=player.pk,
                account=acc,
                deduction=deduction,
                amount=new_debt - already,
                outstanding=new_debt - already,
                created_at=now,
                due_at=now + timedelta(days=rules.DEBT_DAYS),
            )
            audit_record(
                actor=actor, action="wallet.debt_recorded", obj=debt, amount=Money(debt.amount), due_at=debt.due_at
            )
        audit_record(
            actor=actor,
            action="wallet.win_deducted",
            obj=deduction,
            amount=Money(amt),
            reason=reason,
            notice=notice_text,
            balance_after=Money(acc.balance),
            from_held=Money(from_held),
            holds=[h.pk for h in holds],
        )
        message = deduction_notice(deduction=deduction, balance_after=acc.balance)
        if message.created_at != deduction.notice_sent_at:
            deduction.notice_sent_at = message.created_at
            deduction.save(update_fields=["notice_sent_at"])
        if debt is not None:
            debt_notice(debt=debt)  # GP §7(7): the debt, its amount and its due date
        return deduction


def debt_sweep_one(*, debt_id: int, actor: Actor) -> str:
    """An unpaid debt past its 10 days (GP §7(7)) is flagged for staff, who may cancel the account."""
    with transaction.atomic():
        debt = (
            Debt.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=debt_id, status=Debt.Status.OPEN, due_at__lte=clock.now())
            .first()
        )
        if debt is None:
            return "skipped"
        now = clock.now()
        debt.status, debt.flagged_at = Debt.Status.OVERDUE, now
        debt.save(update_fields=["status", "flagged_at"])
        Wallet.objects.filter(player_id=debt.player_id).update(debt_flagged_at=now)
        audit_record(actor=actor, action="wallet.debt_overdue_flagged", obj=debt, outstanding=Money(debt.outstanding))
        return "flagged"
