"""Deposits through a payment provider, the provider callbacks, and the temporary-account cap (GP §5(2)b)."""
from __future__ import annotations

import logging
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.db.models import Sum

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.rng import get_rng
from wallet import adapters, conf, errors, methods
from wallet.ledger import apply_credit_to_debt, check_amount, live_account, operator_account, post, wallet_lock
from wallet.models import Deposit, Entry, LedgerAccount, LedgerTransaction, PaymentMethod, ProviderEvent, Wallet
from wallet.services.accounts_bridge import fresh_status, money_refusal, refuse_deposit_if_frozen

logger = logging.getLogger("wallet.deposits")
T = LedgerTransaction.Kind
CLOSED_STATUSES = ("expired", "closed", "rejected")


def temporary_deposited(player_id: int) -> int:
    """Gross deposits credited to the temporary account so far (deposits and branch cash, GP §5(2)b)."""
    return Entry.objects.filter(
        account__player_id=player_id, account__kind=LedgerAccount.Kind.PLAYER_TEMPORARY, amount__gt=0,
        transaction__kind__in=[T.DEPOSIT, T.BRANCH_CASH_IN],
    ).aggregate(s=Sum("amount"))["s"] or 0


def temporary_pending(player_id: int) -> int:
    return Deposit.objects.filter(player_id=player_id, into_temporary=True, status=Deposit.Status.INITIATED,
                                  expires_at__gt=clock.now()).aggregate(s=Sum("amount"))["s"] or 0


def check_temporary_cap(player_id: int, amount: int, *, include_pending: bool) -> None:
    """GP §5(2)b, §5(12): the temporary account's deposits, summed over its life, stay within the cap
    (3,000.00 CZK passes, 3,000.01 is refused)."""
    cap = conf.temp_deposit_cap()
    used = temporary_deposited(player_id)
    pending = temporary_pending(player_id) if include_pending else 0
    if used + pending + amount > cap:
        raise errors.TEMPORARY_DEPOSIT_CAP(cap=Money(cap), deposited=Money(used), pending=Money(pending),
                                           requested=Money(amount), remaining=Money(max(0, cap - used - pending)))


def sync_mode(wallet: Wallet, player, actor: Actor) -> Wallet:
    """A player whose registration completed (status active) while the wallet still runs the temporary
    account gets the GP §5(2)d move now (the accounts app normally calls ``wallet_convert_temporary``)."""
    if wallet.mode == Wallet.Mode.TEMPORARY and player.status == "active":
        from wallet.services.conversion import convert_locked

        convert_locked(wallet=wallet, player=player, actor=actor)
    return wallet


def _new_payment_reference() -> str:
    rng = get_rng()
    for _ in range(20):
        ref = f"{rng.randbelow(9_000_000_000) + 1_000_000_000}"
        if not Deposit.objects.filter(payment_reference=ref).exists():
            return ref
    raise RuntimeError("could not draw a unique payment reference")


def deposit_start(*, player, method: PaymentMethod, amount: Money, reference: str, actor: Actor) -> Deposit:
    """Start a deposit from the player's registered method (GP §5(6)): the provider gives a redirect URL or
    payment instructions; the money is credited when the provider's signed callback confirms it.

    Idempotent on ``reference``. Refuses: the account's state, a frozen account, an unusable method, the
    method's limits (GP §8(6)) and, on a temporary account, the lifetime cap counting pending deposits."""
    amt = check_amount(amount)
    if method.player_id != player.pk:
        raise errors.METHOD_NOT_USABLE(reason="not your payment method")
    existing = Deposit.objects.filter(idempotency_reference=reference).first()
    if existing:
        if existing.player_id != player.pk or existing.amount != amt or existing.method_id != method.pk:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        return existing
    refuse_deposit_if_frozen(player)
    methods.check_deposit_amount(method.kind, amount)
    provider = adapters.provider_for_kind(method.kind)
    with transaction.atomic():
        wallet = sync_mode(wallet_lock(player=player), player, actor)
        method = PaymentMethod.objects.get(pk=method.pk)
        if not method.usable:
            raise errors.METHOD_NOT_USABLE(state=method.status)
        into_temporary = wallet.mode == Wallet.Mode.TEMPORARY
        if into_temporary:
            check_temporary_cap(player.pk, amt, include_pending=True)
        fee = methods.rule_for(method.kind).fee(amount).amount
        now = clock.now()
        try:
            with transaction.atomic():
                deposit = Deposit.objects.create(
                    player_id=player.pk, method=method, provider=provider.code, amount=amt, fee=fee,
                    into_temporary=into_temporary, payment_reference=_new_payment_reference(),
                    idempotency_reference=reference, created_at=now,
                    expires_at=now + timedelta(hours=conf.get("WALLET_DEPOSIT_EXPIRY_HOURS")))
        except IntegrityError:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        audit_record(actor=actor, action="wallet.deposit_started", obj=deposit, amount=Money(amt), fee=Money(fee),
                     method_id=method.pk, into_temporary=into_temporary, player_id=player.pk)
    # The provider is asked after the row (and the cap reservation) is written.
    start = provider.start_payment(deposit=deposit)
    deposit.provider_payment_id, deposit.redirect_url = start.provider_payment_id, start.redirect_url[:300]
    deposit.instructions = start.instructions
    Deposit.objects.filter(pk=deposit.pk).update(provider_payment_id=deposit.provider_payment_id,
                                                 redirect_url=deposit.redirect_url, instructions=deposit.instructions)
    return deposit


def deposit_expire_one(*, deposit_id: int, actor: Actor) -> str:
    """Sweeper: an initiated deposit past its expiry stops counting against the temporary cap. A late
    success callback still credits it (or returns it)."""
    with transaction.atomic():
        d = Deposit.objects.select_for_update(skip_locked=True).filter(
            pk=deposit_id, status=Deposit.Status.INITIATED, expires_at__lte=clock.now()).first()
        if d is None:
            return "skipped"
        d.status, d.status_reason = Deposit.Status.EXPIRED, "no confirmation from the provider in time"
        d.save(update_fields=["status", "status_reason"])
        audit_record(actor=actor, action="wallet.deposit_expired", obj=d, player_id=d.player_id)
        return "expired"


# Provider callbacks --------------------------------------------------------------------------------------

def provider_callback_handle(*, provider: str, raw_body: bytes, signature: str) -> dict:
    """Handle one signed provider callback exactly once.

    A bad signature or body changes nothing (``wallet.callback_bad_signature`` / ``wallet.callback_invalid``);
    a repeated event id returns the first result; events for unknown references are recorded and ignored."""
    prov = adapters.get_provider(provider)
    if not prov.verify_signature(raw_body, signature or ""):
        logger.warning("provider callback with a bad signature", extra={"provider": provider})
        raise errors.BAD_SIGNATURE()
    event = prov.parse_callback(raw_body)
    actor = Actor.system(f"provider:{provider}")
    with transaction.atomic():
        try:
            with transaction.atomic():
                rec = ProviderEvent.objects.create(provider=provider, provider_txn_id=event.event_id,
                                                   event_type=event.type, raw_body=raw_body.decode()[:20000],
                                                   received_at=clock.now(), result="processing")
        except IntegrityError:
            rec = ProviderEvent.objects.get(provider=provider, provider_txn_id=event.event_id)
            return {"status": "duplicate", "event_id": event.event_id, "result": rec.result}
        if event.currency != "CZK":
            result, detail = "ignored_currency", event.currency
        elif event.type.startswith("payment."):
            result, detail = _payment_event(provider, event, actor)
        else:
            from wallet.services.payouts import payout_event

            result, detail = payout_event(provider, event, actor)
        rec.result, rec.detail = result, detail[:255]
        rec.save(update_fields=["result", "detail"])
        return {"status": "processed", "event_id": event.event_id, "result": result}


def _payment_event(provider: str, event, actor: Actor) -> tuple[str, str]:
    d = Deposit.objects.filter(provider=provider, payment_reference=event.reference).select_related("method").first()
    if d is None:
        return "unknown_reference", event.reference
    wallet = wallet_lock(player=d.player)
    d = Deposit.objects.select_for_update(of=("self",)).select_related("method", "player").get(pk=d.pk)
    if event.type == "payment.failed":
        if d.status in (Deposit.Status.INITIATED, Deposit.Status.EXPIRED):
            d.status, d.status_reason = Deposit.Status.FAILED, (event.reason or "failed at the provider")[:255]
            d.save(update_fields=["status", "status_reason"])
            audit_record(actor=actor, action="wallet.deposit_failed", obj=d, player_id=d.player_id)
            return "failed", ""
        return "ignored_out_of_order", f"deposit is {d.status}"
    # payment.succeeded: the money is at the provider; credit it exactly once, or return it.
    if d.status in (Deposit.Status.CONFIRMED, Deposit.Status.RETURNED):
        return "already_" + d.status, ""
    if event.amount <= 0:
        return "amount_mismatch", "no amount received"
    return deposit_confirm_locked(deposit=d, wallet=wallet, received=event.amount, payer=event.payer, actor=actor)


def deposit_confirm_locked(*, deposit: Deposit, wallet: Wallet, received: int, payer: dict | None,
                           actor: Actor) -> tuple[str, str]:
    """Credit a confirmed deposit (wallet and deposit locked), or return it when it may not be credited."""
    d = deposit
    player = d.player
    status = fresh_status(player)
    reason = ""
    if received != d.amount:
        reason = f"amount received {received} differs from {d.amount}"
    elif status in CLOSED_STATUSES or status == "closing":
        reason = f"account is {status}"
    elif not d.method.usable:
        reason = f"payment method is {d.method.status}"
    else:
        frozen = money_refusal(player, "deposit")
        if frozen is not None:
            reason = f"money movements frozen: {frozen.code}"
    sync_mode(wallet, player, actor)
    if not reason and wallet.mode == Wallet.Mode.TEMPORARY:
        try:
            check_temporary_cap(player.pk, d.amount, include_pending=False)
        except Exception as exc:  # DomainError: the cap would be exceeded
            reason = f"temporary account cap: {getattr(exc, 'code', exc)}"
    clearing = operator_account(f"clearing:{d.provider}")
    now = clock.now()
    if reason:
        from wallet.services.payouts import payout_create

        txn = post(kind=T.DEPOSIT_RETURN, reference=d.payment_reference,
                   legs=[(clearing, -received), (operator_account("refunds_payable"), received)],
                   player_id=player.pk, amount=received, actor=actor, memo=reason)
        d.status, d.status_reason, d.transaction = Deposit.Status.RETURNED, reason[:255], txn
        d.save(update_fields=["status", "status_reason", "transaction"])
        payout_create(player=player, kind="deposit_return", amount=received, reference=f"deposit_return:{d.pk}",
                      method=d.method, actor=actor, already_payable=True)
        audit_record(actor=actor, action="wallet.deposit_returned", obj=d, reason=reason, player_id=player.pk)
        return "returned", reason
    acc = live_account(wallet)
    txn = post(kind=T.DEPOSIT, reference=d.payment_reference, legs=[(clearing, -d.amount), (acc, d.amount)],
               player_id=player.pk, amount=d.amount, actor=actor, memo=f"{d.method.get_kind_display()} {d.method.display}")
    if d.fee:
        post(kind=T.FEE, reference=f"{d.payment_reference}:fee", legs=[(acc, -d.fee), (operator_account("fees"), d.fee)],
             player_id=player.pk, amount=d.fee, actor=actor, memo=f"{d.method.kind} fee (GP §8(6))")
    apply_credit_to_debt(acc)
    d.status, d.confirmed_at, d.transaction, d.status_reason = Deposit.Status.CONFIRMED, now, txn, ""
    d.into_temporary = wallet.mode == Wallet.Mode.TEMPORARY
    d.save(update_fields=["status", "confirmed_at", "transaction", "status_reason", "into_temporary"])
    from wallet.services.payment_methods import verify_by_first_payment

    verification = verify_by_first_payment(method=d.method, payer=payer, actor=actor)
    audit_record(actor=actor, action="wallet.deposit_confirmed", obj=d, amount=Money(d.amount), fee=Money(d.fee),
                 method_verification=verification, player_id=player.pk)
    return "confirmed", f"method {verification}"


# Sandbox ------------------------------------------------------------------------------------------------

def sandbox_pay(*, deposit: Deposit, actor: Actor, outcome: str = "succeeded", payer: dict | None = None,
                amount: int | None = None) -> dict:
    """Make the sandbox provider confirm (or fail) a deposit: a correctly signed callback is sent by a Celery
    task after commit. ``payer`` defaults to the player's own identity (so the first payment verifies the
    method, GP §5(8)a)."""
    if not conf.get("WALLET_SANDBOX_ENABLED"):
        raise errors.SANDBOX_DISABLED()
    if deposit.provider != "sandbox":
        raise errors.UNKNOWN_PROVIDER(provider=deposit.provider)
    if outcome not in ("succeeded", "failed"):
        raise errors.BAD_CALLBACK(reason="outcome must be succeeded or failed")
    if payer is None:
        payer = default_sandbox_payer(deposit.player)
    body, sig = adapters.sandbox_event(f"payment.{outcome}", deposit.payment_reference,
                                       deposit.amount if amount is None else amount, payer=payer)
    with transaction.atomic():
        adapters.sandbox_deliver_later(body, sig)
        audit_record(actor=actor, action="wallet.sandbox_pay", obj=deposit, outcome=outcome, player_id=deposit.player_id)
    return {"deposit_id": deposit.pk, "outcome": outcome, "callback_queued": True}


def default_sandbox_payer(player) -> dict:
    from wallet.services.accounts_bridge import _acc_selector

    fn = _acc_selector("identity_for")
    if fn is not None:
        try:
            ident = fn(player)
            return {"name": f"{ident.given_names} {ident.surname}", "birth_date": ident.date_of_birth.isoformat()}
        except Exception:  # noqa: BLE001 - no personal data yet
            pass
    user = player.user
    return {"name": f"{user.first_name} {user.last_name}".strip()}
