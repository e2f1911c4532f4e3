"""Withdrawals (GP §5(2)c, §5(6), §5(8)): only from a full account, only to a verified registered method.

requested -> approved -> sending -> sent -> confirmed; requested/approved -> rejected | cancelled;
sending -> failed (provider refused); sent/confirmed -> returned (provider returned the money).
The money is moved to the player's held account at the request and leaves it when sent (to the provider's
clearing account) or comes back to the player account when the withdrawal is rejected, cancelled, failed or
returned.
"""

from __future__ import annotations

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import adapters, errors, jobs, methods
from wallet.adapters import CallbackEvent
from wallet.ledger import (
    apply_credit_to_debt,
    check_amount,
    live_account,
    operator_account,
    player_account,
    post,
    wallet_lock,
)
from wallet.models import LedgerAccount, LedgerTransaction, PaymentMethod, Wallet, WinHold, Withdrawal
from wallet.refusals import refuse_withdrawal_state
from wallet.services.conversion import sync_mode
from wallet.services.sending import claim_and_send

TxnKind = LedgerTransaction.Kind
WithdrawalStatus = Withdrawal.Status


def withdrawal_request(
    *, player: Player, method: PaymentMethod, amount: Money, reference: str, actor: Actor
) -> Withdrawal:
    """Request a withdrawal to a verified registered method; the amount is held from now on.

    Staff approve it when the amount reaches ``WALLET_WITHDRAWAL_APPROVAL_THRESHOLD`` or a win of the player
    is held; otherwise it is approved and sent at once. Idempotent on ``reference``."""
    amt = check_amount(amount)
    existing = Withdrawal.objects.filter(reference=reference).first()
    if existing:
        if existing.player_id != player.pk or existing.amount != amt or existing.method_id != method.pk:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        return existing
    if method.player_id != player.pk:
        raise errors.METHOD_NOT_USABLE(reason="not your payment method")
    refuse_withdrawal_state(player)
    methods.check_withdrawal_amount(method.kind, amount)
    provider = adapters.provider_for_kind(method.kind)
    with transaction.atomic():
        wallet = sync_mode(wallet_lock(player=player), player, actor)
        if wallet.mode != Wallet.Mode.FULL:
            raise errors.TEMPORARY_NO_WITHDRAWAL()
        method = PaymentMethod.objects.get(pk=method.pk)
        if method.status != PaymentMethod.Status.VERIFIED:
            if not method.usable:
                raise errors.METHOD_NOT_USABLE(state=method.status)
            raise errors.METHOD_NOT_VERIFIED(state=method.status)
        acc = live_account(wallet)
        if acc.debt > 0 or acc.balance < 0:
            raise errors.DEBT_OUTSTANDING(debt=Money(max(acc.debt, -acc.balance)))
        if acc.balance < amt:
            raise errors.INSUFFICIENT_FUNDS(balance=Money(acc.balance), required=amount)
        reasons: list[str] = []
        if amt >= settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD:
            reasons.append(Withdrawal.AMOUNT_AT_OR_ABOVE_THRESHOLD)
        if WinHold.objects.filter(
            player_id=player.pk, status__in=[WinHold.Status.HELD, WinHold.Status.ESCALATED]
        ).exists():
            reasons.append(Withdrawal.WIN_HELD_UNDER_DOUBT)
        now = clock.now()
        try:
            with transaction.atomic():
                w = Withdrawal.objects.create(
                    player_id=player.pk,
                    method=method,
                    provider=provider.code,
                    amount=amt,
                    status=WithdrawalStatus.REQUESTED if reasons else WithdrawalStatus.APPROVED,
                    needs_approval=bool(reasons),
                    approval_reasons=reasons,
                    reference=reference,
                    requested_at=now,
                    decided_at=None if reasons else now,
                    decided_by="" if reasons else "auto",
                )
        except IntegrityError:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        held = player_account(player.pk, LedgerAccount.Kind.PLAYER_HELD)
        post(
            kind=TxnKind.WITHDRAWAL_HOLD,
            reference=reference,
            legs=[(acc, -amt), (held, amt)],
            player_id=player.pk,
            amount=amt,
            actor=actor,
            memo=f"withdrawal to {PaymentMethod.Kind(method.kind).label} {method.masked}",
        )
        audit_record(
            actor=actor,
            action="wallet.withdrawal_requested",
            obj=w,
            amount=Money(amt),
            method_id=method.pk,
            needs_approval=bool(reasons),
            reasons=reasons,
            player_id=player.pk,
        )
        if not reasons:
            _send_after_commit(w)
        return w


def _send_after_commit(w: Withdrawal) -> None:
    jobs.withdrawal_send(w.pk)


def _lock(w: Withdrawal) -> Withdrawal:
    return Withdrawal.objects.select_for_update(of=("self",), no_key=True).select_related("method").get(pk=w.pk)


def withdrawal_approve(*, withdrawal: Withdrawal, actor: Actor) -> Withdrawal:
    """Staff approve a withdrawal that needed approval; it is sent after commit."""
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status != WithdrawalStatus.REQUESTED:
            raise errors.WITHDRAWAL_STATE(state=w.status)
        if w.method.status != PaymentMethod.Status.VERIFIED:
            raise errors.METHOD_NOT_VERIFIED(state=w.method.status)
        w.status, w.decided_at, w.decided_by = WithdrawalStatus.APPROVED, clock.now(), actor.label
        w.save(update_fields=["status", "decided_at", "decided_by"])
        audit_record(
            actor=actor,
            action="wallet.withdrawal_approved",
            obj=w,
            old={"status": WithdrawalStatus.REQUESTED},
            new={"status": WithdrawalStatus.APPROVED},
            player_id=w.player_id,
        )
        _send_after_commit(w)
        return w


def withdrawal_release_locked(*, withdrawal: Withdrawal, status: str, reason: str, actor: Actor) -> Withdrawal:
    """Held -> player account (rejected, cancelled, failed). Caller holds the wallet and withdrawal locks."""
    w = withdrawal
    held = player_account(w.player_id, LedgerAccount.Kind.PLAYER_HELD)
    main = player_account(w.player_id, LedgerAccount.Kind.PLAYER_MAIN)
    post(
        kind=TxnKind.WITHDRAWAL_RELEASE,
        reference=w.reference,
        legs=[(held, -w.amount), (main, w.amount)],
        player_id=w.player_id,
        amount=w.amount,
        actor=actor,
        memo=reason,
    )
    apply_credit_to_debt(main)
    old = w.status
    w.status, w.status_reason, w.finished_at = status, reason[:255], clock.now()
    if status in (WithdrawalStatus.REJECTED, WithdrawalStatus.CANCELLED):
        w.decided_at, w.decided_by = w.finished_at, actor.label
    w.save(update_fields=["status", "status_reason", "finished_at", "decided_at", "decided_by"])
    audit_record(
        actor=actor,
        action=f"wallet.withdrawal_{status}",
        obj=w,
        old={"status": old},
        new={"status": status},
        reason=reason,
        player_id=w.player_id,
    )
    return w


def withdrawal_reject(*, withdrawal: Withdrawal, reason: str, actor: Actor) -> Withdrawal:
    if not reason:
        raise errors.WITHDRAWAL_STATE(reason="a rejection needs a reason")
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status not in (WithdrawalStatus.REQUESTED, WithdrawalStatus.APPROVED):
            raise errors.WITHDRAWAL_STATE(state=w.status)
        return withdrawal_release_locked(withdrawal=w, status=WithdrawalStatus.REJECTED, reason=reason, actor=actor)


def withdrawal_cancel(*, withdrawal: Withdrawal, actor: Actor) -> Withdrawal:
    """The player cancels a withdrawal not yet being sent."""
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status not in (WithdrawalStatus.REQUESTED, WithdrawalStatus.APPROVED):
            raise errors.WITHDRAWAL_STATE(state=w.status)
        return withdrawal_release_locked(
            withdrawal=w, status=WithdrawalStatus.CANCELLED, reason="cancelled by the player", actor=actor
        )


def _mark_sent_locked(w: Withdrawal, provider_payout_id: str, actor: Actor) -> None:
    held = player_account(w.player_id, LedgerAccount.Kind.PLAYER_HELD)
    post(
        kind=TxnKind.WITHDRAWAL_SEND,
        reference=w.reference,
        legs=[(held, -w.amount), (operator_account(f"clearing:{w.provider}"), w.amount)],
        player_id=w.player_id,
        amount=w.amount,
        actor=actor,
        memo="sent to the provider",
    )
    w.status, w.sent_at = WithdrawalStatus.SENT, clock.now()
    if provider_payout_id:
        w.provider_payout_id = provider_payout_id
    w.save(update_fields=["status", "sent_at", "provider_payout_id"])
    audit_record(actor=actor, action="wallet.withdrawal_sent", obj=w, player_id=w.player_id)


def withdrawal_dispatch(*, withdrawal_id: int, actor: Actor) -> str:
    """Send an approved withdrawal to the provider (claim-then-send, ``services.sending``: no lock is held
    during the provider call). A row stuck in "sending" is retried after ``WALLET_SEND_RETRY_MINUTES`` with the
    same reference (the provider de-duplicates on it)."""
    attempt = claim_and_send(
        Withdrawal, pk=withdrawal_id, claimable=WithdrawalStatus.APPROVED, amount=lambda w: w.amount
    )
    if attempt is None:
        return "skipped"
    if attempt.result is None:
        return "retry"
    result = attempt.result
    with transaction.atomic():
        wallet_lock(player=attempt.row.player)
        w = _lock(attempt.row)
        if w.status != WithdrawalStatus.SENDING:
            return f"already_{w.status}"  # the provider's callback came first
        if result.accepted:
            _mark_sent_locked(w, result.provider_payout_id, actor)
            return "sent"
        withdrawal_release_locked(
            withdrawal=w, status=WithdrawalStatus.FAILED, reason=result.reason or "refused by the provider", actor=actor
        )
        return "failed"


def withdrawal_event_locked(w: Withdrawal, event: CallbackEvent, actor: Actor) -> tuple[str, str]:
    """A provider payout callback for a withdrawal (wallet and row locked)."""
    if event.amount != w.amount:
        return "amount_mismatch", f"{event.amount} != {w.amount}"
    if event.type == "payout.succeeded":
        if w.status in (WithdrawalStatus.SENDING, WithdrawalStatus.APPROVED):
            _mark_sent_locked(w, "", actor)
        if w.status == WithdrawalStatus.SENT:
            w.status, w.finished_at = WithdrawalStatus.CONFIRMED, clock.now()
            w.save(update_fields=["status", "finished_at"])
            audit_record(actor=actor, action="wallet.withdrawal_confirmed", obj=w, player_id=w.player_id)
            return "confirmed", ""
        return "ignored_out_of_order", f"withdrawal is {w.status}"
    # payout.failed
    if w.status in (WithdrawalStatus.SENDING, WithdrawalStatus.APPROVED):
        withdrawal_release_locked(
            withdrawal=w, status=WithdrawalStatus.FAILED, reason=event.reason or "failed at the provider", actor=actor
        )
        return "failed", ""
    if w.status in (WithdrawalStatus.SENT, WithdrawalStatus.CONFIRMED):
        main = player_account(w.player_id, LedgerAccount.Kind.PLAYER_MAIN)
        post(
            kind=TxnKind.WITHDRAWAL_RETURN,
            reference=w.reference,
            legs=[(operator_account(f"clearing:{w.provider}"), -w.amount), (main, w.amount)],
            player_id=w.player_id,
            amount=w.amount,
            actor=actor,
            memo=event.reason or "returned by the provider",
        )
        apply_credit_to_debt(main)
        old = w.status
        w.status, w.finished_at = WithdrawalStatus.RETURNED, clock.now()
        w.status_reason = (event.reason or "returned")[:255]
        w.save(update_fields=["status", "finished_at", "status_reason"])
        audit_record(
            actor=actor,
            action="wallet.withdrawal_returned",
            obj=w,
            old={"status": old},
            new={"status": WithdrawalStatus.RETURNED},
            player_id=w.player_id,
        )
        return "returned", ""
    return "ignored_out_of_order", f"withdrawal is {w.status}"
