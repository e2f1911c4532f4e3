"""Withdrawals (GP §5(2)c, §5(6), §5(8)): only from a full account, only to a verified registered method.

requested -> approved -> sending -> sent -> confirmed; requested/approved -> rejected | cancelled;
sending -> failed (provider refused); sent/confirmed -> returned (provider returned the money).
The money is moved to the player's held account at the request and leaves it when sent (to the provider's
clearing account) or comes back to the player account when the withdrawal is rejected, cancelled, failed or
returned.
"""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Q

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import adapters, conf, errors, methods
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
from wallet.services.accounts_bridge import fresh_status, money_refusal

logger = logging.getLogger("wallet.withdrawals")
T = LedgerTransaction.Kind
W = Withdrawal.Status


def refuse_withdrawal_state(player) -> None:
    """GP §5(2)c: nothing is withdrawn from a temporary account; withdrawals need the full account."""
    status = fresh_status(player)
    if status == "temporary":
        raise errors.TEMPORARY_NO_WITHDRAWAL()
    err = money_refusal(player, "withdrawal")
    if err is not None:
        raise err
    if status != "active":
        raise errors.WITHDRAWAL_NOT_FULL_ACCOUNT(state=status)


def withdrawal_request(*, player, method: PaymentMethod, amount: Money, reference: str, actor: Actor) -> Withdrawal:
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
        from wallet.services.deposits import sync_mode

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
        reasons = []
        if amt >= conf.get("WALLET_WITHDRAWAL_APPROVAL_THRESHOLD"):
            reasons.append("amount_at_or_above_threshold")
        if WinHold.objects.filter(player_id=player.pk, status__in=[WinHold.Status.HELD, WinHold.Status.ESCALATED]).exists():
            reasons.append("win_held_under_doubt")
        now = clock.now()
        try:
            with transaction.atomic():
                w = Withdrawal.objects.create(
                    player_id=player.pk, method=method, provider=provider.code, amount=amt,
                    status=W.REQUESTED if reasons else W.APPROVED, needs_approval=bool(reasons),
                    approval_reasons=reasons, reference=reference, requested_at=now,
                    decided_at=None if reasons else now, decided_by="" if reasons else "auto")
        except IntegrityError:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        held = player_account(player.pk, LedgerAccount.Kind.PLAYER_HELD)
        post(kind=T.WITHDRAWAL_HOLD, reference=reference, legs=[(acc, -amt), (held, amt)], player_id=player.pk,
             amount=amt, actor=actor, memo=f"withdrawal to {method.get_kind_display()} {method.display}")
        audit_record(actor=actor, action="wallet.withdrawal_requested", obj=w, amount=Money(amt), method_id=method.pk,
                     needs_approval=bool(reasons), reasons=reasons, player_id=player.pk)
        if not reasons:
            _send_after_commit(w)
        return w


def _send_after_commit(w: Withdrawal) -> None:
    from wallet.tasks import withdrawal_send

    withdrawal_send.delay_on_commit(w.pk)


def _lock(w: Withdrawal) -> Withdrawal:
    return Withdrawal.objects.select_for_update(of=("self",)).select_related("method").get(pk=w.pk)


def withdrawal_approve(*, withdrawal: Withdrawal, actor: Actor) -> Withdrawal:
    """Staff approve a withdrawal that needed approval; it is sent after commit."""
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status != W.REQUESTED:
            raise errors.WITHDRAWAL_STATE(state=w.status)
        if w.method.status != PaymentMethod.Status.VERIFIED:
            raise errors.METHOD_NOT_VERIFIED(state=w.method.status)
        w.status, w.decided_at, w.decided_by = W.APPROVED, clock.now(), actor.label
        w.save(update_fields=["status", "decided_at", "decided_by"])
        audit_record(actor=actor, action="wallet.withdrawal_approved", obj=w, old={"status": W.REQUESTED},
                     new={"status": W.APPROVED}, player_id=w.player_id)
        _send_after_commit(w)
        return w


def withdrawal_release_locked(*, withdrawal: Withdrawal, status: str, reason: str, actor: Actor) -> Withdrawal:
    """Held -> player account (rejected, cancelled, failed). Caller holds the wallet and withdrawal locks."""
    w = withdrawal
    held = player_account(w.player_id, LedgerAccount.Kind.PLAYER_HELD)
    main = player_account(w.player_id, LedgerAccount.Kind.PLAYER_MAIN)
    post(kind=T.WITHDRAWAL_RELEASE, reference=w.reference, legs=[(held, -w.amount), (main, w.amount)],
         player_id=w.player_id, amount=w.amount, actor=actor, memo=reason)
    apply_credit_to_debt(main)
    old = w.status
    w.status, w.status_reason, w.finished_at = status, reason[:255], clock.now()
    if status in (W.REJECTED, W.CANCELLED):
        w.decided_at, w.decided_by = w.finished_at, actor.label
    w.save(update_fields=["status", "status_reason", "finished_at", "decided_at", "decided_by"])
    audit_record(actor=actor, action=f"wallet.withdrawal_{status}", obj=w, old={"status": old}, new={"status": status},
                 reason=reason, player_id=w.player_id)
    return w


def withdrawal_reject(*, withdrawal: Withdrawal, reason: str, actor: Actor) -> Withdrawal:
    if not reason:
        raise errors.WITHDRAWAL_STATE(reason="a rejection needs a reason")
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status not in (W.REQUESTED, W.APPROVED):
            raise errors.WITHDRAWAL_STATE(state=w.status)
        return withdrawal_release_locked(withdrawal=w, status=W.REJECTED, reason=reason, actor=actor)


def withdrawal_cancel(*, withdrawal: Withdrawal, actor: Actor) -> Withdrawal:
    """The player cancels a withdrawal not yet being sent."""
    with transaction.atomic():
        wallet_lock(player=withdrawal.player)
        w = _lock(withdrawal)
        if w.status not in (W.REQUESTED, W.APPROVED):
            raise errors.WITHDRAWAL_STATE(state=w.status)
        return withdrawal_release_locked(withdrawal=w, status=W.CANCELLED, reason="cancelled by the player", actor=actor)


def _mark_sent_locked(w: Withdrawal, provider_payout_id: str, actor: Actor) -> None:
    held = player_account(w.player_id, LedgerAccount.Kind.PLAYER_HELD)
    post(kind=T.WITHDRAWAL_SEND, reference=w.reference,
         legs=[(held, -w.amount), (operator_account(f"clearing:{w.provider}"), w.amount)],
         player_id=w.player_id, amount=w.amount, actor=actor, memo="sent to the provider")
    w.status, w.sent_at = W.SENT, clock.now()
    if provider_payout_id:
        w.provider_payout_id = provider_payout_id
    w.save(update_fields=["status", "sent_at", "provider_payout_id"])
    audit_record(actor=actor, action="wallet.withdrawal_sent", obj=w, player_id=w.player_id)


def withdrawal_dispatch(*, withdrawal_id: int, actor: Actor) -> str:
    """Send an approved withdrawal to the provider (no lock is held during the provider call).

    The row is claimed (approved -> sending) first; a row stuck in "sending" is retried after
    ``WALLET_SEND_RETRY_MINUTES`` with the same reference (the provider de-duplicates on it)."""
    now = clock.now()
    stale = now - timedelta(minutes=conf.get("WALLET_SEND_RETRY_MINUTES"))
    with transaction.atomic():
        w = (Withdrawal.objects.select_for_update(skip_locked=True, of=("self",)).select_related("method")
             .filter(Q(status=W.APPROVED) | Q(status=W.SENDING, sending_since__lte=stale), pk=withdrawal_id).first())
        if w is None:
            return "skipped"
        w.status, w.sending_since = W.SENDING, now
        w.save(update_fields=["status", "sending_since"])
    try:
        result = adapters.get_provider(w.provider).send_payout(reference=w.reference, method=w.method,
                                                               amount=Money(w.amount))
    except Exception:  # noqa: BLE001 - stays "sending", retried by the sweeper
        logger.exception("withdrawal %s: provider call failed", w.pk)
        return "retry"
    with transaction.atomic():
        wallet_lock(player=w.player)
        w = _lock(w)
        if w.status != W.SENDING:
            return f"already_{w.status}"  # the provider's callback came first
        if result.accepted:
            _mark_sent_locked(w, result.provider_payout_id, actor)
            return "sent"
        withdrawal_release_locked(withdrawal=w, status=W.FAILED, reason=result.reason or "refused by the provider",
                                  actor=actor)
        return "failed"


def withdrawal_event_locked(w: Withdrawal, event, actor: Actor) -> tuple[str, str]:
    """A provider payout callback for a withdrawal (wallet and row locked)."""
    if event.amount != w.amount:
        return "amount_mismatch", f"{event.amount} != {w.amount}"
    if event.type == "payout.succeeded":
        if w.status in (W.SENDING, W.APPROVED):
            _mark_sent_locked(w, "", actor)
        if w.status == W.SENT:
            w.status, w.finished_at = W.CONFIRMED, clock.now()
            w.save(update_fields=["status", "finished_at"])
            audit_record(actor=actor, action="wallet.withdrawal_confirmed", obj=w, player_id=w.player_id)
            return "confirmed", ""
        return "ignored_out_of_order", f"withdrawal is {w.status}"
    # payout.failed
    if w.status in (W.SENDING, W.APPROVED):
        withdrawal_release_locked(withdrawal=w, status=W.FAILED, reason=event.reason or "failed at the provider",
                                  actor=actor)
        return "failed", ""
    if w.status in (W.SENT, W.CONFIRMED):
        main = player_account(w.player_id, LedgerAccount.Kind.PLAYER_MAIN)
        post(kind=T.WITHDRAWAL_RETURN, reference=w.reference,
             legs=[(operator_account(f"clearing:{w.provider}"), -w.amount), (main, w.amount)],
             player_id=w.player_id, amount=w.amount, actor=actor, memo=event.reason or "returned by the provider")
        apply_credit_to_debt(main)
        old = w.status
        w.status, w.finished_at, w.status_reason = W.RETURNED, clock.now(), (event.reason or "returned")[:255]
        w.save(update_fields=["status", "finished_at", "status_reason"])
        audit_record(actor=actor, action="wallet.withdrawal_returned", obj=w, old={"status": old},
                     new={"status": W.RETURNED}, player_id=w.player_id)
        return "returned", ""
    return "ignored_out_of_order", f"withdrawal is {w.status}"
