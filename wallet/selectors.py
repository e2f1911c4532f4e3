"""The wallet's reads (docs/contracts.md). No locks; for decisions, services re-read under ``wallet_lock``."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import QuerySet, Sum

from core.money import Money
from wallet import conf
from wallet.models import (
    Debt,
    Entry,
    LedgerAccount,
    LedgerTransaction,
    PaymentMethod,
    Payout,
    Wallet,
    WinHold,
    Withdrawal,
)

K = LedgerAccount.Kind
T = LedgerTransaction.Kind

# Statement categories (what the player reads): deposits, withdrawals, stakes, wins, refunds, fees, corrections.
CATEGORY = {
    T.DEPOSIT: "deposit", T.BRANCH_CASH_IN: "deposit", T.DEPOSIT_RETURN: "deposit",
    T.WITHDRAWAL_HOLD: "withdrawal", T.WITHDRAWAL_RELEASE: "withdrawal", T.WITHDRAWAL_SEND: "withdrawal",
    T.WITHDRAWAL_RETURN: "withdrawal", T.BRANCH_CASH_OUT: "withdrawal",
    T.STAKE: "stake", T.WIN: "win", T.WIN_HOLD: "win", T.WIN_RELEASE: "win",
    T.REFUND: "refund", T.PAYOUT_START: "refund", T.FEE: "fee",
    T.WIN_FORFEIT: "correction", T.WIN_DEDUCTION: "correction", T.ADJUSTMENT: "correction",
    T.CONVERSION: "transfer",
}
ACCOUNT_LABEL = {K.PLAYER_TEMPORARY: "temporary", K.PLAYER_MAIN: "player", K.PLAYER_HELD: "held"}


def _wallet(player) -> Wallet | None:
    return Wallet.objects.filter(player_id=player.pk).first()


def _live(player) -> LedgerAccount | None:
    w = _wallet(player)
    if w is None:
        return None
    kind = K.PLAYER_TEMPORARY if w.mode == Wallet.Mode.TEMPORARY else K.PLAYER_MAIN
    return LedgerAccount.objects.filter(player_id=player.pk, kind=kind).first()


def balance(player) -> Money:
    """Available balance of the live account (temporary or player account); negative only by a debt."""
    acc = _live(player)
    return Money(acc.balance if acc else 0)


def held_balance(player) -> Money:
    acc = LedgerAccount.objects.filter(player_id=player.pk, kind=K.PLAYER_HELD).first()
    return Money(acc.balance if acc else 0)


def debt(player) -> Money:
    acc = _live(player)
    return Money(acc.debt if acc else 0)


def account_mode(player) -> str:
    w = _wallet(player)
    if w is not None:
        return w.mode
    return Wallet.Mode.TEMPORARY if getattr(player, "status", "") in ("applicant", "temporary") else Wallet.Mode.FULL


def temporary_deposit_status(player) -> dict:
    """GP §5(2)b: the temporary account's lifetime deposit cap, used and left."""
    from wallet.services.deposits import temporary_deposited, temporary_pending

    cap = conf.temp_deposit_cap()
    used, pending = temporary_deposited(player.pk), temporary_pending(player.pk)
    return {"cap": Money(cap), "deposited": Money(used), "pending": Money(pending),
            "remaining": Money(max(0, cap - used - pending))}


# Statements ------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StatementLine:
    at: datetime
    category: str
    kind: str
    account: str
    amount: Money
    balance_after: Money
    reference: str
    description: str
    entry_id: int


def statement_entries(player, start: datetime | None = None, end: datetime | None = None) -> QuerySet[Entry]:
    """The player's ledger entries (all three player accounts) in [start, end), oldest first."""
    qs = Entry.objects.filter(account__player_id=player.pk).select_related("transaction", "account")
    if start is not None:
        qs = qs.filter(created_at__gte=start)
    if end is not None:
        qs = qs.filter(created_at__lt=end)
    return qs.order_by("created_at", "id")


def statement_line(e: Entry) -> StatementLine:
    txn = e.transaction
    return StatementLine(
        at=e.created_at, category=CATEGORY.get(txn.kind, "other"), kind=txn.kind,
        account=ACCOUNT_LABEL.get(e.account.kind, e.account.kind), amount=Money(e.amount),
        balance_after=Money(e.balance_after or 0), reference=txn.reference,
        description=txn.memo or LedgerTransaction.Kind(txn.kind).label, entry_id=e.pk)


def statement(player, start: datetime | None = None, end: datetime | None = None) -> list[StatementLine]:
    """The player's movements in [start, end): deposits, withdrawals, stakes, wins, refunds, fees, corrections."""
    return [statement_line(e) for e in statement_entries(player, start, end)]


def statement_totals(player, start: datetime | None = None, end: datetime | None = None) -> dict[str, Money]:
    totals: dict[str, int] = {}
    qs = statement_entries(player, start, end).exclude(account__kind=K.PLAYER_HELD)
    for row in qs.values("transaction__kind").annotate(s=Sum("amount")):
        cat = CATEGORY.get(row["transaction__kind"], "other")
        totals[cat] = totals.get(cat, 0) + row["s"]
    return {k: Money(v) for k, v in sorted(totals.items())}


# Payment methods --------------------------------------------------------------------------------------

def payment_methods(player) -> QuerySet[PaymentMethod]:
    return PaymentMethod.objects.filter(player_id=player.pk).order_by("-created_at", "-pk")


def player_has_verified_payment_method(player) -> bool:
    """GP §4(4)g, §5(10): the player has a registered (ownership-verified) payment method."""
    return PaymentMethod.objects.filter(player_id=player.pk, status=PaymentMethod.Status.VERIFIED).exists()


def payment_method_deadline(player, wallet: Wallet | None = None) -> datetime | None:
    """By when the player must have a verified payment method, or None when they have one (or no term runs).

    * GP §5(9): within 30 days from the start of registration (while registration is not complete);
    * GP §5(11): after the last registered method was refused or cancelled, 30 days to register another;
      a temporary account with none is cancelled at the latest 30 days after its activation.
    The accounts expiry job acts on it; the wallet only reports it."""
    if player_has_verified_payment_method(player):
        return None
    from wallet.services.accounts_bridge import registration_started_at, temporary_activated_at

    wallet = wallet or _wallet(player)
    status = getattr(player, "status", "")
    candidates = []
    if status in ("applicant", "temporary") or (wallet is not None and wallet.mode == Wallet.Mode.TEMPORARY
                                                 and status not in ("active",)):
        candidates.append(registration_started_at(player) + timedelta(days=conf.VERIFY_METHOD_DAYS))
        activated = temporary_activated_at(player)
        if activated is not None:
            candidates.append(activated + timedelta(days=conf.NEW_METHOD_DAYS))
    if wallet is not None and wallet.method_missing_since is not None:
        candidates.append(wallet.method_missing_since + timedelta(days=conf.NEW_METHOD_DAYS))
    return min(candidates) if candidates else None


def payment_method_status(player) -> dict:
    w = _wallet(player)
    return {"has_verified": player_has_verified_payment_method(player),
            "deadline": payment_method_deadline(player, wallet=w),
            "missing_since": w.method_missing_since if w else None}


# Closure ---------------------------------------------------------------------------------------------------

def closure_settled_at(player) -> datetime | None:
    """GP §5(15): when the balance at cancellation was settled (the account closes within 10 days of it), or
    None while anything is still owed or moving: an open settlement payout, an open withdrawal, a held win, a
    balance left on the account."""
    payouts = Payout.objects.filter(player_id=player.pk, kind__in=[Payout.Kind.CLOSURE, Payout.Kind.TEMPORARY_REFUND])
    if not payouts.exists() or payouts.exclude(status=Payout.Status.COMPLETED).exists():
        return None
    if Withdrawal.objects.filter(player_id=player.pk, status__in=Withdrawal.OPEN).exists():
        return None
    if WinHold.objects.filter(player_id=player.pk, status__in=[WinHold.Status.HELD, WinHold.Status.ESCALATED]).exists():
        return None
    if LedgerAccount.objects.filter(player_id=player.pk).exclude(balance=0).exists():
        return None
    return payouts.order_by("-completed_at").values_list("completed_at", flat=True).first()


def closure_close_by(player) -> datetime | None:
    settled = closure_settled_at(player)
    return settled + timedelta(days=conf.CLOSE_AFTER_SETTLEMENT_DAYS) if settled else None


# Overviews --------------------------------------------------------------------------------------------------

def open_debts(player) -> QuerySet[Debt]:
    return Debt.objects.filter(player_id=player.pk, status__in=[Debt.Status.OPEN, Debt.Status.OVERDUE])


def wallet_overview(player) -> dict:
    mode = account_mode(player)
    debts = list(open_debts(player).order_by("due_at"))
    data = {
        "account": mode,
        "balance": balance(player),
        "held": held_balance(player),
        "debt": debt(player),
        "debt_due_at": debts[0].due_at if debts else None,
        "payment_method": payment_method_status(player),
        "temporary_deposits": temporary_deposit_status(player) if mode == Wallet.Mode.TEMPORARY else None,
    }
    return data


def operator_balances() -> dict[str, Money]:
    """Operator account balances (sums of entries; credit-positive)."""
    rows = (Entry.objects.filter(account__player__isnull=True).values("account__code")
            .annotate(s=Sum("amount")).order_by("account__code"))
    return {r["account__code"]: Money(r["s"]) for r in rows}
