"""Stakes, wins, refunds, adjustments and operator transfers; the lean round path under the wallet lock.

Win holds (GP §10(3)) are in :mod:`wallet.services.holds`, win deductions and debts (GP §7(7), §10(4)) in
:mod:`wallet.services.deductions`."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.sql import instance
from wallet import errors, rules
from wallet.ledger import (
    DeferredPosting,
    LockedWallet,
    apply_credit_to_debt,
    check_amount,
    existing_transaction,
    live_account,
    operator_account,
    player_account,
    post,
    post_with_operator,
    wallet_lock,
    wallet_lock_live,
)
from wallet.models import LedgerAccount, LedgerTransaction, WinHold
from wallet.services.holds import HOLD_REASONS
from wallet.services.notices import hold_notice

TxnKind = LedgerTransaction.Kind
# and every "jackpot:<pool>" account (jackpots pays from "jackpot:awards")
WIN_SOURCES = ("house", "jackpot", "games_carried")


def _win_source_ok(source: str) -> bool:
    return source in WIN_SOURCES or (source.startswith("jackpot:") and len(source) > 8)


def _refuse_stake(*, balance: int, debt: int, amount: Money) -> None:
    """The refusals of a stake (the one place): a recorded debt or a negative balance (``wallet.debt_outstanding``,
    GP §7(7)), then the funds (``wallet.insufficient_funds``)."""
    if debt > 0 or balance < 0:
        raise errors.DEBT_OUTSTANDING(debt=Money(max(debt, -balance)))
    if balance < amount.amount:
        raise errors.INSUFFICIENT_FUNDS(balance=Money(balance), required=amount)


def _posted(txn_id: int, *, kind: str, reference: str, player: Player, amount: int) -> LedgerTransaction:
    """The transaction a one-statement posting wrote, as a model instance (its other fields deferred)."""
    return instance(
        LedgerTransaction,
        ("id", "kind", "reference", "player_id", "amount"),
        (txn_id, kind, reference, player.pk, amount),
    )


def stake_debit(*, player: Player, amount: Money, reference: str, actor: Actor) -> LedgerTransaction:
    """Debit a stake from the player's live account (temporary or full) to the house.

    Refuses ``wallet.insufficient_funds`` and ``wallet.debt_outstanding`` (GP §7(7)). Idempotent on
    ``reference``: a replay returns the first transaction. Runs in the caller's transaction (savepoint). The
    posting is :func:`round_stake_debit`'s (one implementation), after the lock and the replay lookup."""
    amt = check_amount(amount)
    with transaction.atomic():
        locked = wallet_lock_live(player=player)
        done = existing_transaction(kind=TxnKind.STAKE, reference=reference, player_id=player.pk, amount=amt)
        if done:
            return done
        txn_id = _debit(locked, amount, reference=reference, actor=actor)
        return _posted(txn_id, kind=TxnKind.STAKE, reference=reference, player=player, amount=amt)


def win_credit(
    *,
    player: Player,
    amount: Money,
    reference: str,
    actor: Actor,
    hold_reason: str | None = None,
    source: str = "house",
) -> LedgerTransaction | None:
    """Credit a win at once (GP §10(1)); with ``hold_reason`` ("regularity" | "aml") the win goes to the
    player's held account instead, with a release deadline (GP §10(3)). ``source`` is the operator account
    paying it ("house" or "jackpot"). A zero win posts nothing and returns None. Idempotent on ``reference``."""
    amt = check_amount(amount, allow_zero=True)
    if amt == 0:
        return None
    if hold_reason is not None and hold_reason not in HOLD_REASONS:
        raise errors.HOLD_INVALID(field="hold_reason", allowed=sorted(HOLD_REASONS))
    if not _win_source_ok(source):
        raise errors.NOT_AN_OPERATOR_ACCOUNT(account=source)
    kind = TxnKind.WIN if hold_reason is None else TxnKind.WIN_HOLD
    with transaction.atomic():
        locked = wallet_lock_live(player=player)
        done = existing_transaction(kind=kind, reference=reference, player_id=player.pk, amount=amt)
        if done:
            return done
        if hold_reason is None:  # the one credit posting (round_win_credit's)
            txn_id = _credit(locked, kind=kind, amt=amt, reference=reference, source=source, actor=actor)
            return _posted(txn_id, kind=kind, reference=reference, player=player, amount=amt)
        held = player_account(player.pk, LedgerAccount.Kind.PLAYER_HELD)
        txn = post(
            kind=kind,
            reference=reference,
            legs=[(operator_account(source), -amt), (held, amt)],
            player_id=player.pk,
            amount=amt,
            actor=actor,
            memo=f"held: {hold_reason}",
        )
        now = clock.now()
        days = rules.REGULARITY_HOLD_DAYS if hold_reason == WinHold.Reason.REGULARITY else settings.WALLET_AML_HOLD_DAYS
        hold = WinHold.objects.create(
            player_id=player.pk,
            amount=amt,
            reference=reference,
            reason=hold_reason,
            held_at=now,
            release_due_at=now + timedelta(days=days),
            transaction=txn,
        )
        audit_record(
            actor=actor,
            action="wallet.win_held",
            obj=hold,
            amount=Money(amt),
            reason=hold_reason,
            release_due_at=hold.release_due_at,
        )
        hold_notice(hold=hold, win_amount=amt, win_reference=reference)
        return txn


def stake_refund(*, player: Player, amount: Money, reference: str, actor: Actor) -> LedgerTransaction:
    """Return a stake (e.g. a round ended past its deadline, GP §7(8)b). Idempotent on ``reference``."""
    amt = check_amount(amount)
    with transaction.atomic():
        locked = wallet_lock_live(player=player)
        done = existing_transaction(kind=TxnKind.REFUND, reference=reference, player_id=player.pk, amount=amt)
        if done:
            return done
        txn_id = _credit(locked, kind=TxnKind.REFUND, amt=amt, reference=reference, source="house", actor=actor)
        return _posted(txn_id, kind=TxnKind.REFUND, reference=reference, player=player, amount=amt)


def adjustment_credit(*, player: Player, amount: Money, reference: str, reason: str, actor: Actor) -> LedgerTransaction:
    """Credit a correction or a complaint remedy to the live account; idempotent on ``reference``."""
    amt = check_amount(amount)
    if not reason:
        raise errors.INVALID_AMOUNT(reason="an adjustment needs a reason")
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        done = existing_transaction(kind=TxnKind.ADJUSTMENT, reference=reference, player_id=player.pk, amount=amt)
        if done:
            return done
        acc = live_account(wallet)
        txn = post(
            kind=TxnKind.ADJUSTMENT,
            reference=reference,
            legs=[(operator_account("adjustments"), -amt), (acc, amt)],
            player_id=player.pk,
            amount=amt,
            actor=actor,
            memo=reason,
        )
        apply_credit_to_debt(acc)
        audit_record(
            actor=actor,
            action="wallet.adjustment_credit",
            obj=txn,
            amount=Money(amt),
            reason=reason,
            player_id=player.pk,
        )
        return txn


def operator_transfer(
    *, from_code: str, to_code: str, amount: Money, reference: str, memo: str, actor: Actor
) -> LedgerTransaction:
    """Move money between two operator accounts (e.g. jackpot contributions house -> jackpot). Never touches
    a player account (GP §5(5)); no row lock (operator balances are sums of entries)."""
    amt = check_amount(amount)
    src, dst = operator_account(from_code), operator_account(to_code)
    with transaction.atomic():
        done = existing_transaction(kind=TxnKind.OPERATOR, reference=reference, player_id=None, amount=amt)
        if done:
            return done
        return post(
            kind=TxnKind.OPERATOR,
            reference=reference,
            legs=[(src, -amt), (dst, amt)],
            player_id=None,
            amount=amt,
            actor=actor,
            memo=memo,
        )


# The lean round path: the caller (games.round_play) holds wallet_lock_live's lock --------------------------------


def _debit(locked: LockedWallet, amount: Money, *, reference: str, actor: Actor) -> int:
    """The one stake posting: the refusals on the locked read, then ONE statement. Returns the transaction id."""
    amt = check_amount(amount)
    _refuse_stake(balance=locked.balance, debt=locked.debt, amount=amount)
    return post_with_operator(
        locked=locked, kind=TxnKind.STAKE, reference=reference, delta=-amt, operator="house", actor=actor
    )


def _credit(locked: LockedWallet, *, kind: str, amt: int, reference: str, source: str, actor: Actor) -> int:
    """The one credit posting (a win, a refund): ONE statement from ``source`` to the live account; a player with a
    recorded debt pays it down from the credit (GP §7(7), :func:`~wallet.ledger.apply_credit_to_debt`). Returns
    the transaction id; ``locked`` stays current."""
    txn_id = post_with_operator(locked=locked, kind=kind, reference=reference, delta=amt, operator=source, actor=actor)
    if locked.debt > 0:
        apply_credit_to_debt(locked.account)
        locked.balance, locked.debt = locked.account.balance, locked.account.debt
    return txn_id


def round_stake_debit(*, locked: LockedWallet, amount: Money, reference: str, actor: Actor) -> int:
    """:func:`stake_debit` for a new round under ``wallet_lock_live``: the same refusals and posting (``_debit``),
    without the replay lookup: the reference names a round created in this transaction (a repeat would be a
    ``wallet.reference_conflict``). Returns the balance after."""
    _debit(locked, amount, reference=reference, actor=actor)
    return locked.balance


def round_win_credit(
    *, locked: LockedWallet, player: Player, amount: Money, reference: str, actor: Actor, source: str = "house"
) -> int:
    """:func:`win_credit` (GP §10(1), paid at once) under ``wallet_lock_live``: the same posting (``_credit``),
    without the replay lookup; a zero win posts nothing. ``source`` is the operator account paying it ("house", or
    "jackpot:awards" for a jackpot). Returns the balance after."""
    amt = check_amount(amount, allow_zero=True)
    if amt == 0:
        return locked.balance
    if not _win_source_ok(source):
        raise errors.NOT_AN_OPERATOR_ACCOUNT(account=source)
    _credit(locked, kind=TxnKind.WIN, amt=amt, reference=reference, source=source, actor=actor)
    return locked.balance


def round_win_deferred(
    *, locked: LockedWallet, amount: Money, reference: str, actor: Actor, source: str = "house"
) -> DeferredPosting | None:
    """:func:`round_win_credit` for a round settled at its start whose insert can carry the win (games/sql.py
    ROUND_INSERT_DECIDED_WIN, one round trip fewer): the same checks and the same posting (``_credit``'s), returned
    unwritten (:class:`~wallet.ledger.DeferredPosting`; ``locked.balance`` is already the balance after) when it is
    a plain posting. A player with a recorded debt pays it down from the win first (GP §7(7)): that credit is posted
    at once, the paydown follows (``_credit``), and None is returned; a zero win posts nothing (None). The caller
    posted the round's stake to ``source`` in this transaction (its account is visible to the carrying statement)."""
    amt = check_amount(amount, allow_zero=True)
    if amt == 0:
        return None
    if not _win_source_ok(source):
        raise errors.NOT_AN_OPERATOR_ACCOUNT(account=source)
    if locked.debt > 0:
        _credit(locked, kind=TxnKind.WIN, amt=amt, reference=reference, source=source, actor=actor)
        return None
    return DeferredPosting.of(
        locked=locked, kind=TxnKind.WIN, reference=reference, delta=amt, operator=source, actor=actor
    )
