"""Deposits through a payment provider and their confirmation (GP §5(6), §8(6)), within the temporary account's
cap (GP §5(2)b). The provider's signed callbacks arrive through ``services.callbacks``."""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import Message, Player
from accounts.selectors import money_movement_refusal
from accounts.services import message_send
from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError
from core.money import Money
from core.rng import get_rng
from wallet import adapters, errors, methods
from wallet.adapters import CallbackEvent
from wallet.ledger import apply_credit_to_debt, check_amount, live_account, operator_account, post, wallet_lock
from wallet.models import Deposit, LedgerTransaction, PaymentMethod, Payout, Wallet
from wallet.refusals import check_temporary_cap, refuse_deposit_if_frozen, refuse_deposit_if_method_term_passed
from wallet.selectors import PayerVerdict, payer_verdict, player_status_fresh
from wallet.services.conversion import sync_mode
from wallet.services.payment_methods import method_deposits_block_locked, verify_by_first_payment
from wallet.services.payouts import payout_create

TxnKind = LedgerTransaction.Kind
CLOSED_STATUSES = ("expired", "closed", "rejected")


def new_payment_reference() -> str:
    """A fresh 10-digit payment reference: the variable symbol a player quotes with a bank transfer."""
    rng = get_rng()
    for _ in range(20):
        ref = f"{rng.randbelow(9_000_000_000) + 1_000_000_000}"
        if not Deposit.objects.filter(payment_reference=ref).exists():
            return ref
    raise RuntimeError("could not draw a unique payment reference")


def deposit_start(*, player: Player, method: PaymentMethod, amount: Money, reference: str, actor: Actor) -> Deposit:
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
        if method.deposits_blocked_at is not None:  # GP §5(6): a payment from another person came through it
            raise errors.METHOD_DEPOSITS_BLOCKED(method_id=method.pk, since=method.deposits_blocked_at)
        refuse_deposit_if_method_term_passed(wallet)
        into_temporary = wallet.mode == Wallet.Mode.TEMPORARY
        if into_temporary:
            check_temporary_cap(player.pk, amt, include_pending=True)
        fee = methods.rule_for(method.kind).fee(amount).amount
        now = clock.now()
        try:
            with transaction.atomic():
                deposit = Deposit.objects.create(
                    player_id=player.pk,
                    method=method,
                    provider=provider.code,
                    amount=amt,
                    fee=fee,
                    into_temporary=into_temporary,
                    payment_reference=new_payment_reference(),
                    idempotency_reference=reference,
                    created_at=now,
                    expires_at=now + timedelta(hours=settings.WALLET_DEPOSIT_EXPIRY_HOURS),
                )
        except IntegrityError:
            raise errors.REFERENCE_CONFLICT(reference=reference)
        audit_record(
            actor=actor,
            action="wallet.deposit_started",
            obj=deposit,
            amount=Money(amt),
            fee=Money(fee),
            method_id=method.pk,
            into_temporary=into_temporary,
            player_id=player.pk,
        )
    # The provider is asked after the row (and the cap reservation) is written.
    start = provider.start_payment(deposit=deposit)
    deposit.provider_payment_id, deposit.redirect_url = start.provider_payment_id, start.redirect_url[:300]
    deposit.instructions = start.instructions
    Deposit.objects.filter(pk=deposit.pk).update(
        provider_payment_id=deposit.provider_payment_id,
        redirect_url=deposit.redirect_url,
        instructions=deposit.instructions,
    )
    return deposit


def deposit_expire_one(*, deposit_id: int, actor: Actor) -> str:
    """Sweeper: an initiated deposit past its expiry stops counting against the temporary cap. A late
    success callback still credits it (or returns it)."""
    with transaction.atomic():
        d = (
            Deposit.objects.select_for_update(skip_locked=True, no_key=True)
            .filter(pk=deposit_id, status=Deposit.Status.INITIATED, expires_at__lte=clock.now())
            .first()
        )
        if d is None:
            return "skipped"
        d.status, d.status_reason = Deposit.Status.EXPIRED, "no confirmation from the provider in time"
        d.save(update_fields=["status", "status_reason"])
        audit_record(actor=actor, action="wallet.deposit_expired", obj=d, player_id=d.player_id)
        return "expired"


def payment_event(provider: str, event: CallbackEvent, actor: Actor) -> tuple[str, str]:
    """A provider payment callback (``payment.succeeded`` / ``payment.failed``) for one of our deposits."""
    found = Deposit.objects.filter(provider=provider, payment_reference=event.reference).first()
    if found is None:
        return "unknown_reference", event.reference
    wallet = wallet_lock(player=found.player)
    d = Deposit.objects.select_for_update(of=("self",), no_key=True).select_related("method", "player").get(pk=found.pk)
    if event.type == "payment.failed":
        if d.status in (Deposit.Status.INITIATED, Deposit.Status.EXPIRED):
            d.status, d.status_reason = Deposit.Status.FAILED, (event.reason or "failed at the provider")[:255]
            d.save(update_fields=["status", "status_reason"])
            audit_record(actor=actor, action="wallet.deposit_failed", obj=d, player_id=d.player_id)
            return "failed", ""
        return "ignored_out_of_order", f"deposit is {d.status}"
    # payment.succeeded: the money is at the provider; credit it exactly once, or return it.
    if d.status in (Deposit.Status.CONFIRMED, Deposit.Status.RETURNED, Deposit.Status.REFUSED):
        return "already_" + d.status, ""
    if event.amount <= 0:
        return "amount_mismatch", "no amount received"
    return deposit_confirm_locked(deposit=d, wallet=wallet, received=event.amount, payer=event.payer, actor=actor)


def _why_not_credited(d: Deposit, received: int) -> str:
    """Why a deposit whose money arrived may not be credited ("" when it may)."""
    player = d.player
    status = player_status_fresh(player)
    if received != d.amount:
        return f"amount received {received} differs from {d.amount}"
    if status in CLOSED_STATUSES or status == "closing":
        return f"account is {status}"
    if not d.method.usable:
        return f"payment method is {d.method.status}"
    frozen = money_movement_refusal(player, direction="deposit")
    if frozen is not None:
        return f"money movements frozen: {frozen.code}"
    return ""


def _refusal_to_source(d: Deposit, verdict: PayerVerdict, source_account: str | None) -> tuple[str, bool]:
    """GP §5(6) ("výhradně"): why the money must go back to where it came from, never to the player ("" when it
    need not), and whether the method is to be blocked for deposits: the money came from an account that is not the
    registered method (the method itself is not in doubt: not blocked), the provider names a payer who is not the
    player, or the method is blocked for deposits after such a payment (its ownership is in doubt until staff
    decide)."""
    if source_account and not methods.same_bank_account(d.method, source_account):
        return (f"paid from account {source_account}, not from the registered payment method {d.method.display}", False)
    if verdict.outcome == "other_person":
        return f"paid by another person: {verdict.why}", True
    if d.method.deposits_blocked_at is not None:
        return f"payment method blocked for deposits: {d.method.deposits_blocked_reason}", True
    return "", False


def deposit_confirm_locked(
    *,
    deposit: Deposit,
    wallet: Wallet,
    received: int,
    payer: dict[str, object] | None,
    actor: Actor,
    source_account: str | None = None,
) -> tuple[str, str]:
    """Credit a confirmed deposit (wallet and deposit locked), refuse it when another person paid or the money did not
    come from the registered method (GP §5(6)), or return it when it may not be credited.

    ``source_account`` is the account the money came from as a bank statement reports it (an IBAN, else the bank's
    id of the account; "" when the statement names none); None for a provider that takes the money through the
    method itself (a card, an e-wallet). From another account than the method's the deposit is refused; with no
    account named, a payment can prove nothing about the method (GP §5(8)a: it stays as it is)."""
    d = deposit
    player = d.player
    d.payer = payer if isinstance(payer, dict) else None
    verdict = payer_verdict(player, d.payer, accepted_names=d.method.accepted_payers)
    refusal, block = _refusal_to_source(d, verdict, source_account)
    if refusal:
        return _refuse_deposit(d, received, refusal, actor, block=block)
    if source_account == "" and verdict.outcome != "other_person":
        verdict = PayerVerdict("unknown", "the bank statement names no payer account")
    reason = _why_not_credited(d, received)
    sync_mode(wallet, player, actor)
    if not reason and wallet.mode == Wallet.Mode.TEMPORARY:
        try:
            check_temporary_cap(player.pk, d.amount, include_pending=False)
        except DomainError as exc:  # the cap would be exceeded
            reason = f"temporary account cap: {exc.code}"
    if reason:
        return _return_deposit(d, received, reason, actor)
    clearing = operator_account(f"clearing:{d.provider}")
    acc = live_account(wallet)
    txn = post(
        kind=TxnKind.DEPOSIT,
        reference=d.payment_reference,
        legs=[(clearing, -d.amount), (acc, d.amount)],
        player_id=player.pk,
        amount=d.amount,
        actor=actor,
        memo=f"{PaymentMethod.Kind(d.method.kind).label} {d.method.masked}",
    )
    if d.fee:
        post(
            kind=TxnKind.FEE,
            reference=f"{d.payment_reference}:fee",
            legs=[(acc, -d.fee), (operator_account("fees"), d.fee)],
            player_id=player.pk,
            amount=d.fee,
            actor=actor,
            memo=f"{d.method.kind} fee (GP §8(6))",
        )
    apply_credit_to_debt(acc)
    d.status, d.confirmed_at, d.transaction, d.status_reason = Deposit.Status.CONFIRMED, clock.now(), txn, ""
    d.into_temporary = wallet.mode == Wallet.Mode.TEMPORARY
    d.save(update_fields=["status", "confirmed_at", "transaction", "status_reason", "into_temporary", "payer"])
    verification = verify_by_first_payment(method=d.method, verdict=verdict, actor=actor)
    audit_record(
        actor=actor,
        action="wallet.deposit_confirmed",
        obj=d,
        amount=Money(d.amount),
        fee=Money(d.fee),
        method_verification=verification,
        player_id=player.pk,
    )
    return "confirmed", f"method {verification}"


def _refuse_deposit(d: Deposit, received: int, reason: str, actor: Actor, *, block: bool = True) -> tuple[str, str]:
    """GP §5(6): the money of another person, or from another account than the registered method, is not credited.
    It moves from the provider's clearing to ``refunds_payable`` (what is owed outside any player account) and goes
    back to its source by a ``deposit_refused`` payout (its own provider callback; a failed return stops for staff,
    never reaches the player). With ``block`` (another person paid through the method) the method is blocked for
    deposits until staff decide. The player is told."""
    player = d.player
    txn = post(
        kind=TxnKind.DEPOSIT_RETURN,
        reference=d.payment_reference,
        legs=[(operator_account(f"clearing:{d.provider}"), -received), (operator_account("refunds_payable"), received)],
        player_id=player.pk,
        amount=received,
        actor=actor,
        memo=f"refused (GP §5(6)): {reason}",
    )
    d.status, d.status_reason, d.transaction = Deposit.Status.REFUSED, reason[:255], txn
    d.save(update_fields=["status", "status_reason", "transaction", "payer"])
    payout_create(
        player=player,
        kind=Payout.Kind.DEPOSIT_REFUSED,
        amount=received,
        reference=f"deposit_refused:{d.pk}",
        method=d.method,
        actor=actor,
        already_payable=True,
    )
    if block:
        method_deposits_block_locked(method=d.method, reason=f"deposit {d.pk} refused: {reason}", actor=actor)
    audit_record(
        actor=actor,
        action="wallet.deposit_refused",
        obj=d,
        reason=reason,
        amount=Money(received),
        method_id=d.method_id,
        payer_reported=d.payer is not None,
        method_blocked=block,
        player_id=player.pk,
    )
    if not block:
        message_send(  # a notice the operator can prove (inbox + e-mail)
            player=player,
            kind=Message.Kind.NOTICE,
            reference=f"wallet.deposit_refused:{d.pk}",
            subject_cs="Vklad odmítnut a vrácen",
            subject_en="Deposit refused and returned",
            body_cs=(
                f"Platbu {Money(received)} (vklad {d.payment_reference}) jsme nepřipsali: nepřišla z vašeho "
                f"registrovaného platebního prostředku {d.method.display}, ale z jiného účtu. Vklady jsou možné "
                f"výhradně z registrovaného platebního prostředku (HP §5 odst. 6). Částku vracíme na účet, ze "
                f"kterého přišla. Jiný účet můžete zaregistrovat jako platební prostředek."
            ),
            body_en=(
                f"We did not credit the payment of {Money(received).format('en')} (deposit "
                f"{d.payment_reference}): it did not come from your registered payment method "
                f"{d.method.display} but from another account. Deposits are accepted only from the registered "
                f"payment method (GP §5(6)). The amount goes back to the account it came from. You may register "
                f"the other account as a payment method."
            ),
        )
        return "refused", reason
    message_send(  # a notice the operator can prove (inbox + e-mail)
        player=player,
        kind=Message.Kind.NOTICE,
        reference=f"wallet.deposit_refused:{d.pk}",
        subject_cs="Vklad odmítnut a vrácen",
        subject_en="Deposit refused and returned",
        body_cs=(
            f"Platbu {Money(received)} (vklad {d.payment_reference}) jsme nepřipsali: podle poskytovatele plateb "
            f"ji neodeslal majitel konta, ale jiná osoba. Vklady jsou možné výhradně z vašeho vlastního platebního "
            f"prostředku (HP §5 odst. 6). Částku vracíme na zdroj platby. Další vklady z tohoto platebního "
            f"prostředku jsou pozastaveny, dokud jeho vlastnictví neposoudíme; můžete nám zaslat doklad "
            f"(výpis z účtu, smlouvu)."
        ),
        body_en=(
            f"We did not credit the payment of {Money(received).format('en')} (deposit {d.payment_reference}): "
            f"the payment provider reports that it was paid by another person, not by the account holder. "
            f"Deposits are accepted only from your own payment method (GP §5(6)). The amount goes back to where "
            f"it came from. Further deposits from this payment method are stopped until we have decided on its "
            f"ownership; you may send us a document (account statement, contract)."
        ),
    )
    return "refused", reason


def _return_deposit(d: Deposit, received: int, reason: str, actor: Actor) -> tuple[str, str]:
    """The money arrived but may not be credited: it is owed back (``refunds_payable``) and paid out to the
    method it came from (a ``deposit_return`` payout)."""
    player = d.player
    txn = post(
        kind=TxnKind.DEPOSIT_RETURN,
        reference=d.payment_reference,
        legs=[(operator_account(f"clearing:{d.provider}"), -received), (operator_account("refunds_payable"), received)],
        player_id=player.pk,
        amount=received,
        actor=actor,
        memo=reason,
    )
    d.status, d.status_reason, d.transaction = Deposit.Status.RETURNED, reason[:255], txn
    d.save(update_fields=["status", "status_reason", "transaction", "payer"])
    payout_create(
        player=player,
        kind=Payout.Kind.DEPOSIT_RETURN,
        amount=received,
        reference=f"deposit_return:{d.pk}",
        method=d.method,
        actor=actor,
        already_payable=True,
    )
    audit_record(actor=actor, action="wallet.deposit_returned", obj=d, reason=reason, player_id=player.pk)
    return "returned", reason
