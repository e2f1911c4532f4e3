"""Stakes, wins, refunds, adjustments, win holds (GP §10(3)), win deductions and debts (GP §7(7), §10(4))."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.sql import instance
from wallet import errors, rules
from wallet.ledger import (
    LockedWallet,
    apply_credit_to_debt,
    check_amount,
    existing_transaction,
    live_account,
    operator_account,
    player_account,
    post,
    post_with_operator,
    set_debt,
    wallet_lock,
    wallet_lock_live,
)
from wallet.models import Debt, LedgerAccount, LedgerTransaction, Wallet, WinDeduction, WinHold, Withdrawal
from wallet.selectors import open_win_holds
from wallet.services.notices import debt_notice, deduction_notice, hold_notice
from wallet.services.withdrawals import withdrawal_release_locked

TxnKind = LedgerTransaction.Kind
HOLD_REASONS = {r.value for r in WinHold.Reason}
NOTICE_CHANNEL = "inbox+email"  # a deduction's notice: an accounts message in the inbox, e-mailed after commit
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


# Holds -------------------------------------------------------------------------------------------------


def _hold_locked(hold_id: int) -> WinHold:
    return WinHold.objects.select_for_update(no_key=True).get(pk=hold_id)


def win_hold_place(*, player: Player, win_reference: str, reason: str, note: str, actor: Actor) -> WinHold:
    """Hold a win already credited (GP §10(3): the operator may hold the payout of a win under doubt).

    Under the wallet lock: the ``win`` transaction ``win_reference`` of ``player`` (else ``wallet.win_not_found``;
    another player's win is not found either); a repeat returns the existing hold (the same win held for the
    other reason is ``wallet.hold_exists``). ``regularity``: held until the win's credit time + 60 days, refused
    from that instant on (``wallet.hold_too_late``); ``aml``: ``WALLET_AML_HOLD_DAYS`` from now (the AML-law
    period; ``win_hold_extend`` when the FAU extends it). Moves ``min(win, live balance)`` live -> held in one
    balanced ``win_hold`` posting with reference ``hold:<win_reference>``. When the live balance does not cover the
    win, the player's withdrawals not yet handed to the provider (``requested``/``approved``) are stopped first,
    newest first, as far as needed: a payout not yet made is what GP §10(3) holds. Nothing left of the win is
    ``wallet.nothing_to_hold``. Audited; the player is told (``wallet.hold:<id>``). Release, forfeit (back to the
    account that paid the win), extension and the sweeper work on it as on a hold placed at crediting."""
    if reason not in HOLD_REASONS:
        raise errors.HOLD_INVALID(field="reason", allowed=sorted(HOLD_REASONS))
    note = (note or "").strip()
    if not note:
        raise errors.HOLD_INVALID(field="note")
    reference = f"hold:{win_reference}"
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        win = LedgerTransaction.objects.filter(kind=TxnKind.WIN, reference=win_reference).first()
        if win is None or win.player_id != player.pk:
            raise errors.WIN_NOT_FOUND(win_reference=win_reference)
        existing = WinHold.objects.filter(reference=reference).first()
        if existing is not None:
            if existing.win_transaction_id != win.pk:
                raise errors.REFERENCE_CONFLICT(reference=reference)
            if existing.reason != reason:
                raise errors.HOLD_EXISTS(hold_id=existing.pk, reason=existing.reason, status=existing.status)
            return existing
        now = clock.now()
        if reason == WinHold.Reason.REGULARITY:
            release_due_at = win.created_at + timedelta(days=rules.REGULARITY_HOLD_DAYS)
            if now >= release_due_at:  # GP §10(3): at most until the 60-day payout term ends
                raise errors.HOLD_TOO_LATE(
                    win_reference=win_reference, credited_at=win.created_at, deadline=release_due_at
                )
        else:
            release_due_at = now + timedelta(days=settings.WALLET_AML_HOLD_DAYS)
        acc = live_account(wallet)
        stopped = _withdrawals_stop_for_hold(
            player_id=player.pk, account=acc, needed=win.amount, reference=reference, actor=actor
        )
        amt = min(win.amount, max(acc.balance, 0))
        if amt <= 0:
            raise errors.NOTHING_TO_HOLD(win_reference=win_reference, win=Money(win.amount), balance=Money(acc.balance))
        held = player_account(player.pk, LedgerAccount.Kind.PLAYER_HELD)
        txn = post(
            kind=TxnKind.WIN_HOLD,
            reference=reference,
            legs=[(acc, -amt), (held, amt)],
            player_id=player.pk,
            amount=amt,
            actor=actor,
            memo=f"held: {reason}",
        )
        hold = WinHold.objects.create(
            player_id=player.pk,
            amount=amt,
            reference=reference,
            reason=reason,
            held_at=now,
            release_due_at=release_due_at,
            transaction=txn,
            win_transaction=win,
            note=note[:255],
        )
        audit_record(
            actor=actor,
            action="wallet.win_hold_placed",
            obj=hold,
            player_id=player.pk,
            win_reference=win_reference,
            win=Money(win.amount),
            amount=Money(amt),
            reason=reason,
            note=note,
            credited_at=win.created_at,
            release_due_at=release_due_at,
            withdrawals_stopped=[w.pk for w in stopped],
        )
        hold_notice(hold=hold, win_amount=win.amount, win_reference=win_reference, stopped=stopped)
        return hold


def _withdrawals_stop_for_hold(
    *, player_id: int, account: LedgerAccount, needed: int, reference: str, actor: Actor
) -> list[Withdrawal]:
    """Stop the player's withdrawals not yet handed to the provider, newest first, until the live ``account``
    covers ``needed`` (GP §10(3)). Caller holds the wallet lock; ``account.balance`` is kept current."""
    stopped: list[Withdrawal] = []
    if account.balance >= needed:
        return stopped
    unsent = (
        Withdrawal.objects.select_for_update(no_key=True)
        .filter(player_id=player_id, status__in=[Withdrawal.Status.REQUESTED, Withdrawal.Status.APPROVED])
        .order_by("-requested_at", "-pk")
    )
    for w in unsent:
        stopped.append(
            withdrawal_release_locked(
                withdrawal=w,
                status=Withdrawal.Status.REJECTED,
                actor=actor,
                reason=f"stopped: a win is held ({reference}, GP §10(3))",
            )
        )
        account.refresh_from_db(fields=["balance", "debt"])
        if account.balance >= needed:
            break
    return stopped


def win_hold_release(*, hold: WinHold, actor: Actor, note: str = "") -> WinHold:
    """Release a held win to the live account (doubt cleared or the term ended)."""
    with transaction.atomic():
        wallet = wallet_lock(player=hold.player)
        hold = _hold_locked(hold.pk)
        if hold.status not in (WinHold.Status.HELD, WinHold.Status.ESCALATED):
            raise errors.HOLD_STATE(state=hold.status)
        held = player_account(hold.player_id, LedgerAccount.Kind.PLAYER_HELD)
        acc = live_account(wallet)
        post(
            kind=TxnKind.WIN_RELEASE,
            reference=hold.reference,
            legs=[(held, -hold.amount), (acc, hold.amount)],
            player_id=hold.player_id,
            amount=hold.amount,
            actor=actor,
            memo=note or "held win released",
        )
        apply_credit_to_debt(acc)
        old = hold.status
        hold.status, hold.decided_at, hold.decided_by, hold.note = (
            WinHold.Status.RELEASED,
            clock.now(),
            actor.label,
            note[:255],
        )
        hold.save(update_fields=["status", "decided_at", "decided_by", "note"])
        audit_record(
            actor=actor,
            action="wallet.win_released",
            obj=hold,
            old={"status": old},
            new={"status": hold.status},
            note=note,
        )
        return hold


def win_hold_forfeit(*, hold: WinHold, reason: str, actor: Actor) -> WinHold:
    """Staff: the bet was irregular (GP §9(2), §10(3)); the held win goes back to the house."""
    if not reason:
        raise errors.INVALID_AMOUNT(reason="a forfeit needs a reason")
    with transaction.atomic():
        wallet_lock(player=hold.player)
        hold = _hold_locked(hold.pk)
        if hold.status not in (WinHold.Status.HELD, WinHold.Status.ESCALATED):
            raise errors.HOLD_STATE(state=hold.status)
        held = player_account(hold.player_id, LedgerAccount.Kind.PLAYER_HELD)
        # back to the operator account that paid the win: the hold's own posting for a win held when credited,
        # the win's posting for a hold placed afterwards (win_hold_place)
        paid_by = hold.win_transaction_id or hold.transaction_id
        source = LedgerAccount.objects.get(entries__transaction_id=paid_by, player__isnull=True)
        post(
            kind=TxnKind.WIN_FORFEIT,
            reference=hold.reference,
            legs=[(held, -hold.amount), (source, hold.amount)],
            player_id=hold.player_id,
            amount=hold.amount,
            actor=actor,
            memo=reason,
        )
        old = hold.status
        hold.status, hold.decided_at, hold.decided_by, hold.note = (
            WinHold.Status.FORFEITED,
            clock.now(),
            actor.label,
            reason[:255],
        )
        hold.save(update_fields=["status", "decided_at", "decided_by", "note"])
        audit_record(
            actor=actor,
            action="wallet.win_forfeited",
            obj=hold,
            old={"status": old},
            new={"status": hold.status},
            reason=reason,
        )
        return hold


def win_hold_extend(*, hold: WinHold, until: datetime, reason: str, actor: Actor) -> WinHold:
    """Staff: an authority extended an AML hold (GP §10(3): the period the AML law sets). Regularity holds
    cannot pass the 60 days of GP §10(3)."""
    with transaction.atomic():
        hold = _hold_locked(hold.pk)
        if hold.status not in (WinHold.Status.HELD, WinHold.Status.ESCALATED):
            raise errors.HOLD_STATE(state=hold.status)
        longest = hold.credited_at + timedelta(days=rules.REGULARITY_HOLD_DAYS)
        if hold.reason == WinHold.Reason.REGULARITY and until > longest:
            raise errors.HOLD_STATE(reason="a regularity hold lasts at most 60 days (GP §10(3))")
        old = {"release_due_at": hold.release_due_at, "status": hold.status}
        hold.release_due_at, hold.status = until, WinHold.Status.HELD
        hold.note = reason[:255]
        hold.save(update_fields=["release_due_at", "status", "note"])
        audit_record(
            actor=actor,
            action="wallet.win_hold_extended",
            obj=hold,
            old=old,
            new={"release_due_at": until, "status": hold.status},
            reason=reason,
        )
        return hold


def win_hold_sweep_one(*, hold_id: int, actor: Actor) -> str:
    """Due hold: a regularity hold is released at its 60-day term (GP §10(3)); an AML hold at the end of
    its period is escalated to compliance (the FAU may have extended it), and released by staff."""
    with transaction.atomic():
        hold = (
            WinHold.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=hold_id, status=WinHold.Status.HELD, release_due_at__lte=clock.now())
            .first()
        )
        if hold is None:
            return "skipped"
        if hold.reason == WinHold.Reason.REGULARITY:
            win_hold_release(hold=hold, actor=actor, note="GP §10(3): 60-day term ended")
            return "released"
        hold.status = WinHold.Status.ESCALATED
        hold.save(update_fields=["status"])
        audit_record(actor=actor, action="wallet.win_hold_escalated", obj=hold, reason=hold.reason)
        return "escalated"


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
