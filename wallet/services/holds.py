"""Win holds (GP §10(3)): a win held under doubt, released, forfeited, extended or swept at its term."""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import errors, rules
from wallet.ledger import (
    apply_credit_to_debt,
    live_account,
    player_account,
    post,
    wallet_lock,
)
from wallet.models import LedgerAccount, LedgerTransaction, WinHold, Withdrawal
from wallet.services.notices import hold_notice
from wallet.services.withdrawals import withdrawal_release_locked

TxnKind = LedgerTransaction.Kind
HOLD_REASONS = {r.value for r in WinHold.Reason}


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
