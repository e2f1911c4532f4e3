"""Payouts outside the player account, each step a recorded row state with its deadline.

* GP §5(2)e: a cancelled temporary account's unused deposit is returned to the payment method within 7 days;
  if impossible, the person is invited to collect it at a branch within 5 days (never past the 7 days); if not
  collected, it is sent by post within the 7-day term, the postage deducted.
* GP §5(13): an account closed for misuse is paid to the last registered method; if impossible, the person is
  invited to collect it at a branch within 15 days, then it is sent by post.
* GP §5(15): the balance at cancellation is settled by transfer to the registered method or in cash at a branch
  (max 5,000 CZK per 24 h, so possibly in several visits); the accounts app closes the account within 10 days of
  ``wallet.selectors.closure_settled_at``.
* A deposit received but not credited (cap, closed account, frozen account) is returned to its method.

Ledger: the balance moves to ``refunds_payable`` when the payout starts; from there to the provider's clearing
(sent), branch cash (collected) or ``clearing:post`` and ``fees`` (posted, postage deducted).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import adapters, errors, jobs, rules
from wallet.adapters import CallbackEvent
from wallet.ledger import live_account, operator_account, post, wallet_lock
from wallet.methods import rule_for
from wallet.models import Deposit, LedgerTransaction, PaymentMethod, Payout, Wallet, Withdrawal
from wallet.services.branch import branch_cash_out_for_payout
from wallet.services.notices import payout_invited_notice, payout_posted_notice
from wallet.services.sending import claim_and_send
from wallet.services.withdrawals import withdrawal_event_locked

TxnKind = LedgerTransaction.Kind
PayoutStatus = Payout.Status
COLLECT_DAYS: dict[str, int] = {
    Payout.Kind.TEMPORARY_REFUND: rules.TEMPORARY_COLLECT_DAYS,
    Payout.Kind.MISUSE: rules.MISUSE_COLLECT_DAYS,
    Payout.Kind.CLOSURE: rules.MISUSE_COLLECT_DAYS,
    Payout.Kind.DEPOSIT_RETURN: rules.MISUSE_COLLECT_DAYS,
}


def _log(p: Payout, step: str, **data: Any) -> None:
    p.history = [*p.history, {"at": clock.now().isoformat(), "step": step, **{k: str(v) for k, v in data.items()}}]


def _invite(p: Payout, actor: Actor, why: str) -> None:
    now = clock.now()
    days = COLLECT_DAYS[p.kind]
    collect_by = now + timedelta(days=days)
    if p.due_at is not None:
        collect_by = min(collect_by, p.due_at)  # GP §5(2)e: the post still goes within the 7-day term
    p.status, p.channel, p.invited_at = PayoutStatus.INVITED, Payout.Channel.BRANCH, now
    p.collect_by = p.next_action_at = collect_by
    _log(p, "invited", collect_by=collect_by.isoformat(), why=why)
    p.save()
    audit_record(
        actor=actor,
        action="wallet.payout_invited",
        obj=p,
        collect_by=collect_by,
        why=why,
        amount=Money(p.outstanding),
        player_id=p.player_id,
    )
    payout_invited_notice(payout=p, amount=p.outstanding, collect_by=collect_by)


def _stop(p: Payout, actor: Actor, why: str) -> None:
    """GP §5(6): a return of another person's money that the source did not take stops here for staff (send it
    again, ``payout_resend``); it is never offered to the player at a branch nor posted to them."""
    p.status, p.next_action_at = PayoutStatus.STOPPED, None
    _log(p, "stopped", why=why)
    p.save()
    audit_record(
        actor=actor, action="wallet.payout_stopped", obj=p, why=why, amount=Money(p.outstanding), player_id=p.player_id
    )


def _not_sent(p: Payout, actor: Actor, why: str) -> str:
    """The method did not take the payout: the person is invited to a branch, except for money that goes back
    to its source only (stopped for staff)."""
    if p.kind in Payout.SOURCE_ONLY_KINDS:
        _stop(p, actor, why)
        return "stopped"
    _invite(p, actor, why)
    return "invited"


def payout_create(
    *,
    player: Player,
    kind: str,
    amount: int,
    reference: str,
    method: PaymentMethod | None,
    actor: Actor,
    already_payable: bool = False,
    due_days: int | None = None,
    branch: bool = False,
) -> Payout:
    """Start a payout (caller holds the wallet lock). Unless ``already_payable``, the amount moves from the live
    account to ``refunds_payable`` now."""
    now = clock.now()
    if not already_payable and amount:
        wallet = Wallet.objects.get(player_id=player.pk)
        post(
            kind=TxnKind.PAYOUT_START,
            reference=reference,
            legs=[(live_account(wallet), -amount), (operator_account("refunds_payable"), amount)],
            player_id=player.pk,
            amount=amount,
            actor=actor,
            memo=Payout.Kind(kind).label,
        )
    p = Payout(
        player_id=player.pk,
        kind=kind,
        reference=reference,
        amount=amount,
        method=method,
        channel=Payout.Channel.METHOD if method is not None else Payout.Channel.BRANCH,
        status=PayoutStatus.PENDING,
        started_at=now,
        due_at=now + timedelta(days=due_days) if due_days else None,
    )
    p.player = player
    _log(p, "started", amount=Money(amount), method=method.display if method else "-")
    if amount == 0:
        p.status, p.completed_at = PayoutStatus.COMPLETED, now
        _log(p, "completed", note="nothing to pay")
        p.save()
    elif method is not None and not branch:
        p.provider = adapters.provider_for_kind(method.kind).code
        p.next_action_at = now
        p.save()
        jobs.payout_send(p.pk)
    elif kind in Payout.SOURCE_ONLY_KINDS:
        raise ValueError(f"a {kind} payout goes back to its source method only")
    else:
        p.save()
        _invite(p, actor, "cash at a branch chosen" if branch else "no payment method to return the money to")
    audit_record(
        actor=actor,
        action="wallet.payout_started",
        obj=p,
        kind=kind,
        amount=Money(amount),
        method_id=method.pk if method else None,
        player_id=player.pk,
    )
    return p


def _next_reference(prefix: str) -> str:
    n = Payout.objects.filter(reference__startswith=prefix).count()
    return prefix if n == 0 else f"{prefix}:{n + 1}"


def _open_payout(player_id: int, kinds: list[str]) -> Payout | None:
    return (
        Payout.objects.filter(player_id=player_id, kind__in=kinds)
        .exclude(status=PayoutStatus.COMPLETED)
        .order_by("-pk")
        .first()
    )


def temporary_refund_start(*, player: Player, actor: Actor) -> Payout | None:
    """GP §5(2)e: the unused deposit of a cancelled temporary account goes back to the payment method it came
    from within 7 days (else branch within 5 days, else post). Idempotent: with nothing new to pay it returns
    the last refund (or None when there never was anything)."""
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        if wallet.mode != Wallet.Mode.TEMPORARY:
            raise errors.ACCOUNT_STATE(reason="the wallet is a full player account; use closure_settlement_start")
        acc = live_account(wallet)
        last = Payout.objects.filter(player_id=player.pk, kind=Payout.Kind.TEMPORARY_REFUND).order_by("-pk").first()
        if acc.balance <= 0:
            if last is None:
                audit_record(
                    actor=actor,
                    action="wallet.temporary_refund_nothing",
                    obj=wallet,
                    balance=Money(acc.balance),
                    player_id=player.pk,
                )
            return last
        source = (
            Deposit.objects.filter(player_id=player.pk, status=Deposit.Status.CONFIRMED)
            .exclude(method__status=PaymentMethod.Status.CANCELLED)
            .select_related("method")
            .order_by("-confirmed_at", "-pk")
            .first()
        )
        return payout_create(
            player=player,
            kind=Payout.Kind.TEMPORARY_REFUND,
            amount=acc.balance,
            reference=_next_reference(f"temporary_refund:{player.pk}"),
            method=source.method if source else None,
            actor=actor,
            due_days=rules.TEMPORARY_REFUND_DAYS,
        )


def _payout_method(player_id: int) -> PaymentMethod | None:
    """The last registered (verified) method money can be sent to."""
    for m in PaymentMethod.objects.filter(player_id=player_id, status=PaymentMethod.Status.VERIFIED).order_by(
        "-verified_at", "-pk"
    ):
        if rule_for(m.kind).withdrawal:
            return m
    return None


def closure_settlement_start(*, player: Player, method: str, actor: Actor) -> Payout | None:
    """GP §5(15): settle the balance at cancellation by ``method`` "transfer" (to the registered payment method)
    or "branch_cash" (collected at a branch, 5,000 CZK per 24 h). A temporary-only account is paid per GP §5(2)e.
    A zero balance is settled at once. Idempotent while a settlement is open."""
    if method not in ("transfer", "branch_cash", "branch"):
        raise errors.INVALID_AMOUNT(reason="method must be transfer or branch_cash")
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        if wallet.mode == Wallet.Mode.TEMPORARY:
            return temporary_refund_start(player=player, actor=actor) or _zero_payout(
                player, Payout.Kind.TEMPORARY_REFUND, actor
            )
        open_ = _open_payout(player.pk, [Payout.Kind.CLOSURE])
        if open_ is not None:
            return open_
        acc = live_account(wallet)
        if acc.balance < 0:
            raise errors.DEBT_OUTSTANDING(debt=Money(-acc.balance))
        target = None if method != "transfer" else _payout_method(player.pk)
        return payout_create(
            player=player,
            kind=Payout.Kind.CLOSURE,
            amount=acc.balance,
            reference=_next_reference(f"closure:{player.pk}"),
            method=target,
            actor=actor,
            branch=method != "transfer",
        )


def _zero_payout(player: Player, kind: str, actor: Actor) -> Payout:
    return payout_create(
        player=player, kind=kind, amount=0, reference=_next_reference(f"{kind}:{player.pk}"), method=None, actor=actor
    )


def misuse_payout_start(*, player: Player, actor: Actor) -> Payout | None:
    """GP §5(13): an account cancelled for evident misuse: the balance goes to the last registered method; if
    impossible, the person may collect it at a branch within 15 days, then it is sent by post."""
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        open_ = _open_payout(player.pk, [Payout.Kind.MISUSE])
        if open_ is not None:
            return open_
        acc = live_account(wallet)
        if acc.balance <= 0:
            return _zero_payout(player, Payout.Kind.MISUSE, actor)
        return payout_create(
            player=player,
            kind=Payout.Kind.MISUSE,
            amount=acc.balance,
            reference=_next_reference(f"misuse:{player.pk}"),
            method=_payout_method(player.pk),
            actor=actor,
        )


# Steps ---------------------------------------------------------------------------------------------------


def _lock(p: Payout) -> Payout:
    return (
        Payout.objects.select_for_update(of=("self",), no_key=True)
        .select_related("method", "player__user")
        .get(pk=p.pk)
    )


def _mark_sent_locked(p: Payout, provider_payout_id: str, actor: Actor) -> None:
    amount = p.outstanding
    post(
        kind=TxnKind.PAYOUT_SEND,
        reference=p.send_reference,
        legs=[(operator_account("refunds_payable"), -amount), (operator_account(f"clearing:{p.provider}"), amount)],
        player_id=p.player_id,
        amount=amount,
        actor=actor,
        memo=f"{p.kind} sent",
    )
    p.status, p.sent_at, p.paid = PayoutStatus.SENT, clock.now(), p.paid + amount
    if provider_payout_id:
        p.provider_payout_id = provider_payout_id
    _log(p, "sent", amount=Money(amount))
    p.save()
    audit_record(actor=actor, action="wallet.payout_sent", obj=p, amount=Money(amount), player_id=p.player_id)


def payout_dispatch(*, payout_id: int, actor: Actor) -> str:
    """Send a pending payout to its method (claim-then-send, ``services.sending``: no lock held during the
    provider call); a refusal invites the person to collect it at a branch."""
    attempt = claim_and_send(Payout, pk=payout_id, claimable=PayoutStatus.PENDING, amount=lambda p: p.outstanding)
    if attempt is None:
        return "skipped"
    if attempt.result is None:
        return "retry"
    result = attempt.result
    with transaction.atomic():
        wallet_lock(player=attempt.row.player)
        p = _lock(attempt.row)
        if p.status != PayoutStatus.SENDING:
            return f"already_{p.status}"  # the provider's callback came first
        if result.accepted:
            _mark_sent_locked(p, result.provider_payout_id, actor)
            return "sent"
        return _not_sent(p, actor, f"the payment method refused: {result.reason}")


def payout_event(provider: str, event: CallbackEvent, actor: Actor) -> tuple[str, str]:
    """A provider payout callback: for a withdrawal or a payout (by our reference)."""
    withdrawal = Withdrawal.objects.filter(provider=provider, reference=event.reference).first()
    if withdrawal is not None:
        wallet_lock(player=withdrawal.player)
        locked = (
            Withdrawal.objects.select_for_update(of=("self",), no_key=True)
            .select_related("method")
            .get(pk=withdrawal.pk)
        )
        return withdrawal_event_locked(locked, event, actor)
    found, attempt = _payout_for(provider, event.reference)
    if found is None:
        return "unknown_reference", event.reference
    wallet_lock(player=found.player)
    p = _lock(found)
    if attempt != p.attempt:  # a callback about an earlier send (before a stop and a send again)
        return "ignored_out_of_order", f"about send {attempt}, the payout is at send {p.attempt}"
    if event.type == "payout.succeeded":
        if p.status == PayoutStatus.SENDING:
            _mark_sent_locked(p, "", actor)
        if p.status == PayoutStatus.SENT:
            p.status, p.completed_at = PayoutStatus.COMPLETED, clock.now()
            _log(p, "completed", via="provider confirmation")
            p.save()
            audit_record(actor=actor, action="wallet.payout_completed", obj=p, player_id=p.player_id)
            return "completed", ""
        return "ignored_out_of_order", f"payout is {p.status}"
    # payout.failed: the money did not arrive (or came back): invite to the branch (or stop, source-only money)
    if p.status == PayoutStatus.SENDING:
        return _not_sent(p, actor, f"the provider reported a failure: {event.reason}"), ""
    if p.status in (PayoutStatus.SENT, PayoutStatus.COMPLETED) and p.channel == Payout.Channel.METHOD:
        amount = event.amount
        if amount <= 0 or amount > p.paid:
            return "amount_mismatch", f"{amount} > paid {p.paid}"
        post(
            kind=TxnKind.PAYOUT_RETURN,
            reference=p.send_reference,
            legs=[(operator_account(f"clearing:{p.provider}"), -amount), (operator_account("refunds_payable"), amount)],
            player_id=p.player_id,
            amount=amount,
            actor=actor,
            memo="returned by the provider",
        )
        p.paid -= amount
        p.completed_at = None
        _log(p, "returned", amount=Money(amount))
        _not_sent(p, actor, f"returned by the provider: {event.reason}")
        return "returned", ""
    return "ignored_out_of_order", f"payout is {p.status}"


def _payout_for(provider: str, reference: str) -> tuple[Payout | None, int]:
    """The payout a provider reference names, and which send of it (``Payout.send_reference``)."""
    found = Payout.objects.filter(provider=provider, reference=reference).first()
    if found is not None:
        return found, 0
    base, sep, n = reference.rpartition("/a")
    if not sep or not n.isdigit():
        return None, 0
    return Payout.objects.filter(provider=provider, reference=base).first(), int(n)


def payout_resend(*, payout: Payout, actor: Actor) -> Payout:
    """Staff: send a stopped return (money of another person, GP §5(6)) to its source again, under a new
    provider reference (``send_reference``; the provider de-duplicates on it, and the earlier send failed)."""
    with transaction.atomic():
        wallet_lock(player=payout.player)
        p = _lock(payout)
        if p.status != PayoutStatus.STOPPED:
            raise errors.PAYOUT_STATE(state=p.status)
        p.attempt += 1
        p.status, p.channel, p.sending_since, p.next_action_at = (
            PayoutStatus.PENDING,
            Payout.Channel.METHOD,
            None,
            clock.now(),
        )
        _log(p, "send_again", attempt=p.attempt)
        p.save()
        audit_record(
            actor=actor,
            action="wallet.payout_resent",
            obj=p,
            attempt=p.attempt,
            amount=Money(p.outstanding),
            player_id=p.player_id,
        )
        jobs.payout_send(p.pk)
        return p


def payout_collect_cash(*, payout: Payout, amount: Money, reference: str, branch: str, actor: Actor) -> Payout:
    """Staff: the person collected (part of) a payout in cash at a branch (GP §5(12): 5,000 CZK per 24 h)."""
    with transaction.atomic():
        wallet_lock(player=payout.player)
        p = _lock(payout)
        if p.status != PayoutStatus.INVITED:
            raise errors.PAYOUT_STATE(state=p.status)
        if amount.amount <= 0 or amount.amount > p.outstanding:
            raise errors.INVALID_AMOUNT(outstanding=Money(p.outstanding), amount=amount)
        branch_cash_out_for_payout(payout=p, amount=amount, reference=reference, branch=branch, actor=actor)
        p.paid += amount.amount
        _log(p, "collected", amount=amount, branch=branch)
        if p.outstanding == 0:
            p.status, p.completed_at, p.next_action_at = PayoutStatus.COMPLETED, clock.now(), None
            _log(p, "completed", via="branch")
        p.save()
        audit_record(
            actor=actor, action="wallet.payout_collected", obj=p, amount=amount, branch=branch, player_id=p.player_id
        )
        return p


def payout_post_one(*, payout_id: int, actor: Actor) -> str:
    """Sweeper: not collected by ``collect_by`` -> sent by post, the postage deducted (GP §5(2)e, §5(13))."""
    with transaction.atomic():
        due = (
            Payout.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=payout_id, status=PayoutStatus.INVITED, collect_by__lte=clock.now())
            .first()
        )
        if due is None:
            return "skipped"
        wallet_lock(player=due.player)
        p = _lock(due)
        outstanding = p.outstanding
        postage = min(settings.WALLET_POSTAGE, outstanding)
        net = outstanding - postage
        legs = [
            (operator_account("refunds_payable"), -outstanding),
            (operator_account("fees"), postage),
            (operator_account("clearing:post"), net),
        ]
        post(
            kind=TxnKind.PAYOUT_POST,
            reference=p.reference,
            legs=legs,
            player_id=p.player_id,
            amount=outstanding,
            actor=actor,
            memo=f"sent by post, postage {Money(postage)} deducted",
        )
        now = clock.now()
        p.paid += net
        p.postage += postage
        p.status, p.channel, p.posted_at, p.completed_at = PayoutStatus.COMPLETED, Payout.Channel.POST, now, now
        p.next_action_at = None
        _log(p, "posted", net=Money(net), postage=Money(postage), late=bool(p.due_at and now > p.due_at))
        p.save()
        audit_record(
            actor=actor,
            action="wallet.payout_posted",
            obj=p,
            net=Money(net),
            postage=Money(postage),
            player_id=p.player_id,
        )
        payout_posted_notice(payout=p, net=net, postage=postage)
        return "posted"
