"""The staff queue of bank credits that match no deposit (GP §5(6)): ``BankEntry.Status.UNMATCHED``, money in the
``bank_unmatched`` account, until staff assign a credit to a deposit (``bank_credit_assign``) or return it to the
account it came from (``bank_credit_return``, paid by the next payment-order file of ``wallet.services.bank_orders``).
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Sum

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import errors, methods
from wallet.ledger import operator_account, post, wallet_lock
from wallet.models import (
    BankEntry,
    Deposit,
    PaymentMethod,
    Wallet,
)
from wallet.services.bank import CLEARING, PROVIDER, SETTLED_DEPOSITS, UNMATCHED, Status, TxnKind, _confirm, _set
from wallet.services.deposits import new_payment_reference

# The staff queue -------------------------------------------------------------------------------------------------


def _lock_entry(entry: BankEntry) -> BankEntry:
    e = BankEntry.objects.select_for_update(no_key=True).get(pk=entry.pk)
    if e.direction != BankEntry.Direction.CREDIT or e.status != Status.UNMATCHED:
        raise errors.BANK_ENTRY_STATE(state=e.status, direction=e.direction)
    return e


def _unqueue(e: BankEntry, why: str, actor: Actor) -> None:
    post(
        kind=TxnKind.BANK_UNMATCHED_OUT,
        reference=f"bank_entry:{e.pk}:{why}:{e.return_attempts}",
        legs=[(operator_account(UNMATCHED), -e.amount), (operator_account(CLEARING), e.amount)],
        player_id=None,
        amount=e.amount,
        actor=actor,
        memo=f"bank credit {e.bank_reference}: {why}",
    )


def bank_credit_assign(
    *, entry: BankEntry, actor: Actor, deposit: Deposit | None = None, player: Player | None = None
) -> BankEntry:
    """Staff: an unmatched credit is ``deposit``'s (a bank-transfer deposit of that player not yet settled) or a new
    deposit of ``player`` from their registered bank account the credit came from. The deposit is then confirmed,
    refused or returned exactly as a matched credit (GP §5(6)). Refuses ``wallet.bank_entry_state``,
    ``wallet.bank_deposit_not_assignable``, ``wallet.bank_credit_not_from_method``."""
    if (deposit is None) == (player is None):
        raise errors.BANK_DEPOSIT_NOT_ASSIGNABLE(reason="name either a deposit or a player")
    target = deposit.player if deposit is not None else player
    assert target is not None
    with transaction.atomic():
        wallet = wallet_lock(player=target)
        e = _lock_entry(entry)
        if deposit is not None:
            d = (
                Deposit.objects.select_for_update(of=("self",), no_key=True)
                .select_related("method", "player")
                .get(pk=deposit.pk)
            )
            if d.provider != PROVIDER or d.status in SETTLED_DEPOSITS:
                raise errors.BANK_DEPOSIT_NOT_ASSIGNABLE(deposit_id=d.pk, provider=d.provider, state=d.status)
        else:
            source = e.counterparty_iban or e.counterparty_account
            method = next(
                (
                    m
                    for m in PaymentMethod.objects.filter(
                        player_id=target.pk,
                        kind=PaymentMethod.Kind.BANK_ACCOUNT,
                        status__in=PaymentMethod.ACTIVE_STATUSES,
                    ).order_by("pk")
                    if methods.same_bank_account(m, source)
                ),
                None,
            )
            if method is None:
                raise errors.BANK_CREDIT_NOT_FROM_METHOD(account=source or None, player_id=target.pk)
            now = clock.now()
            d = Deposit.objects.create(
                player_id=target.pk,
                method=method,
                provider=PROVIDER,
                amount=e.amount,
                fee=0,
                into_temporary=wallet.mode == Wallet.Mode.TEMPORARY,
                payment_reference=new_payment_reference(),
                idempotency_reference=f"bank_entry:{e.pk}",
                created_at=now,
                expires_at=now,
                instructions={"bank_entry": e.bank_reference},
            )
            d.player, d.method = target, method
            audit_record(
                actor=actor,
                action="wallet.deposit_started",
                obj=d,
                amount=Money(d.amount),
                fee=Money(0),
                method_id=method.pk,
                into_temporary=d.into_temporary,
                player_id=target.pk,
                bank_entry=e.bank_reference,
            )
        _unqueue(e, "assigned", actor)
        status = _confirm(e, d, wallet, actor)
        BankEntry.objects.filter(pk=e.pk).update(decided_at=clock.now(), decided_by=actor.label or actor.id)
        audit_record(
            actor=actor,
            action="wallet.bank_credit_assigned",
            obj=e,
            deposit_id=d.pk,
            outcome=status,
            amount=Money(e.amount),
            player_id=target.pk,
        )
        e.refresh_from_db()
        return e


def bank_credit_return(*, entry: BankEntry, reason: str, actor: Actor) -> BankEntry:
    """Staff: an unmatched credit goes back to the account it came from, by the next payment-order file."""
    if not (reason or "").strip():
        raise errors.BANK_ENTRY_STATE(reason="a return needs a reason")
    with transaction.atomic():
        e = _lock_entry(entry)
        if not (e.counterparty_iban or e.counterparty_account):
            raise errors.BANK_CREDIT_NO_ACCOUNT(entry=e.bank_reference)
        _unqueue(e, "return", actor)
        e.return_attempts += 1
        _set(
            e,
            Status.RETURNING,
            reason,
            return_attempts=e.return_attempts,
            decided_at=clock.now(),
            decided_by=actor.label or actor.id,
        )
        audit_record(
            actor=actor,
            action="wallet.bank_credit_returned",
            obj=e,
            reason=reason,
            amount=Money(e.amount),
            to=e.counterparty_iban or e.counterparty_account,
        )
        return e


def bank_unmatched_total() -> int:
    """What the staff queue holds (the ``bank_unmatched`` account must equal it: ``manage.py ledger_check``)."""
    return int(BankEntry.objects.filter(status=Status.UNMATCHED).aggregate(s=Sum("amount"))["s"] or 0)
