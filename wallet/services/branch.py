"""Cash at a branch, recorded by staff (GP §5(12)): at most 5,000 CZK in any rolling 24 hours, counted for
deposits and for withdrawals/collections separately; a temporary account keeps its 3,000 CZK cap and its
withdrawal ban."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Sum

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import errors, methods, rules
from wallet.ledger import apply_credit_to_debt, check_amount, live_account, operator_account, post, wallet_lock
from wallet.models import BranchCash, LedgerAccount, LedgerTransaction, Payout, Wallet
from wallet.refusals import (
    check_temporary_cap,
    refuse_deposit_if_frozen,
    refuse_deposit_if_method_term_passed,
    refuse_withdrawal_state,
)
from wallet.services.conversion import sync_mode

TxnKind = LedgerTransaction.Kind
Direction = BranchCash.Direction


def cash_in_window(player_id: int, direction: str) -> int:
    """Cash of ``direction`` in the rolling 24 hours (both directions with ``WALLET_BRANCH_CASH_COMBINED``)."""
    since = clock.now() - timedelta(hours=24)
    qs = BranchCash.objects.filter(player_id=player_id, at__gt=since)
    if not settings.WALLET_BRANCH_CASH_COMBINED:
        qs = qs.filter(direction=direction)
    return int(qs.aggregate(s=Sum("amount"))["s"] or 0)


def _check_24h(player_id: int, direction: str, amount: int) -> None:
    cap = rules.branch_cash_per_24h()
    used = cash_in_window(player_id, direction)
    if used + amount > cap:
        raise errors.BRANCH_CASH_24H(
            cap=Money(cap),
            used=Money(used),
            requested=Money(amount),
            remaining=Money(max(0, cap - used)),
            direction=direction,
        )


def _existing(reference: str, player_id: int, direction: str, amount: int) -> BranchCash | None:
    bc = BranchCash.objects.filter(reference=reference).first()
    if bc and (bc.player_id != player_id or bc.direction != direction or bc.amount != amount):
        raise errors.REFERENCE_CONFLICT(reference=reference)
    return bc


def _create(**kw: Any) -> BranchCash:
    try:
        with transaction.atomic():
            return BranchCash.objects.create(**kw)
    except IntegrityError:
        raise errors.REFERENCE_CONFLICT(reference=kw["reference"])


def _refuse_before_lock(player: Player, direction: str, amount: Money) -> None:
    """The account's state and the method limits of cash at a branch (GP §8(6))."""
    if direction == Direction.IN:
        refuse_deposit_if_frozen(player)
        methods.check_deposit_amount(methods.BRANCH, amount)
        return
    refuse_withdrawal_state(player)
    rule = methods.rule_for(methods.BRANCH)
    if rule.withdrawal_min is not None and amount.amount < rule.withdrawal_min:
        raise errors.BELOW_METHOD_MIN(kind="branch_cash", minimum=Money(rule.withdrawal_min), amount=amount)
    if rule.withdrawal_max is not None and amount.amount > rule.withdrawal_max:
        raise errors.ABOVE_METHOD_MAX(kind="branch_cash", maximum=Money(rule.withdrawal_max), amount=amount)


def _cash_out_refusal(wallet: Wallet, acc: LedgerAccount, amount: Money) -> None:
    """Cash out only from a full account with no debt and enough money (GP §5(2)c, §7(7))."""
    if wallet.mode == Wallet.Mode.TEMPORARY:
        raise errors.TEMPORARY_NO_WITHDRAWAL()
    if acc.debt > 0 or acc.balance < 0:
        raise errors.DEBT_OUTSTANDING(debt=Money(max(acc.debt, -acc.balance)))
    if acc.balance < amount.amount:
        raise errors.INSUFFICIENT_FUNDS(balance=Money(acc.balance), required=amount)


def branch_cash_record(
    *, player: Player, direction: str, amount: Money, reference: str, branch: str, actor: Actor
) -> BranchCash:
    """Staff record cash paid in ("in") or out ("out") at a branch. Idempotent on ``reference``."""
    amt = check_amount(amount)
    if direction not in Direction.values:
        raise errors.INVALID_AMOUNT(reason="direction must be in or out")
    done = _existing(reference, player.pk, direction, amt)
    if done:
        return done
    _refuse_before_lock(player, direction, amount)
    with transaction.atomic():
        wallet = sync_mode(wallet_lock(player=player), player, actor)
        done = _existing(reference, player.pk, direction, amt)
        if done:
            return done
        _check_24h(player.pk, direction, amt)
        acc = live_account(wallet)
        cash = operator_account("branch_cash")
        where = f"cash at {branch or 'branch'}"
        if direction == Direction.IN:
            refuse_deposit_if_method_term_passed(wallet)
            if wallet.mode == Wallet.Mode.TEMPORARY:
                check_temporary_cap(player.pk, amt, include_pending=True)
            txn = post(
                kind=TxnKind.BRANCH_CASH_IN,
                reference=reference,
                legs=[(cash, -amt), (acc, amt)],
                player_id=player.pk,
                amount=amt,
                actor=actor,
                memo=where,
            )
            apply_credit_to_debt(acc)
        else:
            _cash_out_refusal(wallet, acc, amount)
            txn = post(
                kind=TxnKind.BRANCH_CASH_OUT,
                reference=reference,
                legs=[(acc, -amt), (cash, amt)],
                player_id=player.pk,
                amount=amt,
                actor=actor,
                memo=where,
            )
        bc = _create(
            player_id=player.pk,
            direction=direction,
            amount=amt,
            branch=branch[:100],
            reference=reference,
            at=clock.now(),
            staff=actor.label[:150],
            transaction=txn,
        )
        audit_record(
            actor=actor,
            action=f"wallet.branch_cash_{direction}",
            obj=bc,
            amount=amount,
            branch=branch,
            player_id=player.pk,
        )
        return bc


def branch_cash_out_for_payout(
    *, payout: Payout, amount: Money, reference: str, branch: str, actor: Actor
) -> BranchCash:
    """A payout collected in cash (caller holds the wallet and payout locks); counts to the 24 h cap."""
    amt = amount.amount
    _check_24h(payout.player_id, Direction.OUT, amt)
    txn = post(
        kind=TxnKind.PAYOUT_CASH,
        reference=reference,
        legs=[(operator_account("refunds_payable"), -amt), (operator_account("branch_cash"), amt)],
        player_id=payout.player_id,
        amount=amt,
        actor=actor,
        memo=f"{payout.kind} collected at {branch or 'branch'}",
    )
    return _create(
        player_id=payout.player_id,
        direction=Direction.OUT,
        amount=amt,
        branch=branch[:100],
        reference=reference,
        at=clock.now(),
        staff=actor.label[:150],
        payout=payout,
        transaction=txn,
    )
