"""The wallet's reads (docs/contracts.md). No locks; for decisions, services re-read under ``wallet_lock``.

What the wallet needs to know about the person comes from the accounts app by plain imports of its selectors
(``money_movement_refusal``, ``identity_for``) and of its one name-folding function (``accounts.validation.fold``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.db.models import Q, QuerySet, Sum

from accounts.adapters import Identity
from accounts.models import PersonalData, Player
from accounts.selectors import identity_for
from accounts.validation import fold
from core import clock
from core.db_router import replica
from core.home import QueueState, queue_of
from core.money import Money
from wallet import hooks, ledger, rules
from wallet.archived_totals import carried_operator_totals
from wallet.models import (
    BankEntry,
    Debt,
    Deposit,
    Entry,
    LedgerAccount,
    LedgerTransaction,
    MethodDocument,
    PaymentMethod,
    Payout,
    Wallet,
    WinHold,
    Withdrawal,
)

AccountKind = LedgerAccount.Kind
TxnKind = LedgerTransaction.Kind

# Statement categories (what the player reads): deposits, withdrawals, stakes, wins, refunds, fees, corrections.
CATEGORY: dict[str, str] = {
    TxnKind.DEPOSIT: "deposit",
    TxnKind.BRANCH_CASH_IN: "deposit",
    TxnKind.DEPOSIT_RETURN: "deposit",
    TxnKind.DEPOSIT_REVERSAL: "deposit",
    TxnKind.WITHDRAWAL_HOLD: "withdrawal",
    TxnKind.WITHDRAWAL_RELEASE: "withdrawal",
    TxnKind.WITHDRAWAL_SEND: "withdrawal",
    TxnKind.WITHDRAWAL_RETURN: "withdrawal",
    TxnKind.BRANCH_CASH_OUT: "withdrawal",
    TxnKind.STAKE: "stake",
    TxnKind.WIN: "win",
    TxnKind.WIN_HOLD: "win",
    TxnKind.WIN_RELEASE: "win",
    TxnKind.REFUND: "refund",
    TxnKind.PAYOUT_START: "refund",
    TxnKind.FEE: "fee",
    TxnKind.WIN_FORFEIT: "correction",
    TxnKind.WIN_DEDUCTION: "correction",
    TxnKind.ADJUSTMENT: "correction",
    TxnKind.CONVERSION: "transfer",
}
ACCOUNT_LABEL: dict[str, str] = {
    AccountKind.PLAYER_TEMPORARY: "temporary",
    AccountKind.PLAYER_MAIN: "player",
    AccountKind.PLAYER_HELD: "held",
}


def _wallet(player: Player) -> Wallet | None:
    return Wallet.objects.filter(player_id=player.pk).first()


def _live(player: Player) -> LedgerAccount | None:
    w = _wallet(player)
    if w is None:
        return None
    kind = AccountKind.PLAYER_TEMPORARY if w.mode == Wallet.Mode.TEMPORARY else AccountKind.PLAYER_MAIN
    return LedgerAccount.objects.filter(player_id=player.pk, kind=kind).first()


def balance(player: Player) -> Money:
    """Available balance of the live account (temporary or player account); negative only by a debt."""
    acc = _live(player)
    return Money(acc.balance if acc else 0)


def held_balance(player: Player) -> Money:
    acc = LedgerAccount.objects.filter(player_id=player.pk, kind=AccountKind.PLAYER_HELD).first()
    return Money(acc.balance if acc else 0)


def debt(player: Player) -> Money:
    acc = _live(player)
    return Money(acc.debt if acc else 0)


def account_mode(player: Player) -> str:
    w = _wallet(player)
    if w is not None:
        return w.mode
    return Wallet.Mode.TEMPORARY if player.status in ("applicant", "temporary") else Wallet.Mode.FULL


# The player, as the accounts app knows them -------------------------------------------------------------------


def player_status_fresh(player: Player) -> str:
    """The player's status read from the database now (and set on ``player``, so the accounts selectors asked
    next see it). Services decide on it; the wallet never locks ``Player`` rows (accounts locks them first)."""
    player.refresh_from_db(fields=["status"])
    return player.status


def registration_started_at(player: Player) -> datetime:
    """GP §5(9): registration starts when the player row is created."""
    return player.created_at


def temporary_activated_at(player: Player) -> datetime | None:
    """GP §5(11): when the temporary account was activated (None before)."""
    return player.temporary_activated_at


def player_identity(player: Player) -> Identity | None:
    """The person's identity from the accounts personal data (GP §4(4)a), or None while there is none."""
    try:
        identity: Identity = identity_for(player)
    except PersonalData.DoesNotExist:  # no personal data recorded yet
        return None
    return identity


TITLES = frozenset(
    {"ing", "mgr", "bc", "mudr", "judr", "phdr", "rndr", "phd", "csc", "doc", "prof", "dis", "mba", "pan", "pani"}
)


def name_tokens(text: str) -> list[str]:
    """A name as comparable tokens: folded by ``accounts.validation.fold`` (case and diacritics), split on
    anything that is not a letter or digit, academic titles and forms of address left out."""
    return [t for t in re.split(r"[^a-z0-9]+", fold(text)) if t and t not in TITLES]


def payer_name_key(text: str) -> str:
    """A payer's name as one comparable key (its tokens, sorted): what staff accept as the player's own."""
    return " ".join(sorted(name_tokens(text)))


@dataclass(frozen=True)
class PayerVerdict:
    """Who paid, as far as the provider's report tells: ``player`` (the player, GP §5(8)a), ``other_person``
    (a named payer who is not the player: the deposit is refused, GP §5(6)), ``undecided`` (a payer we cannot
    compare: no personal data, no name, an unreadable birth date) or ``unknown`` (the provider reported no payer)."""

    outcome: str
    why: str


def payer_verdict(player: Player, payer: dict[str, Any] | None, *, accepted_names: Sequence[str] = ()) -> PayerVerdict:
    """GP §5(6), §5(8)a: is the payer the provider reports the player? The name (as a set of tokens) must match
    the accounts personal data, or be a name staff confirmed as the player's for this method
    (``accepted_names``, keys of :func:`payer_name_key`); a birth date, when reported, must match too.

    Fails closed for verification: only ``player`` verifies a method. Only a payer shown to be someone else is
    ``other_person``; without personal data nothing can be compared (``undecided``)."""
    if not payer:
        return PayerVerdict("unknown", "the provider reported no payer")
    identity = player_identity(player)
    if identity is None:
        return PayerVerdict("undecided", "no personal data to compare")
    mine = name_tokens(f"{identity.given_names} {identity.surname}")
    reported = str(payer.get("name") or payer.get("holder_name") or "")
    theirs = name_tokens(reported)
    if not mine or not theirs:
        return PayerVerdict("undecided", "no name to compare")
    confirmed = sorted(mine) != sorted(theirs) and payer_name_key(reported) in accepted_names
    if sorted(mine) != sorted(theirs) and not confirmed:
        return PayerVerdict("other_person", "the payer's name differs from the player's")
    reported_birth = payer.get("birth_date")
    if reported_birth:
        try:
            if date.fromisoformat(str(reported_birth)) != identity.date_of_birth:
                return PayerVerdict("other_person", "the payer's birth date differs")
        except ValueError:
            return PayerVerdict("undecided", "unreadable birth date")
    if confirmed:
        return PayerVerdict("player", "a payer name staff confirmed as the player's")
    return PayerVerdict("player", "name and birth date match" if reported_birth else "name matches")


def payer_matches(player: Player, payer: dict[str, Any]) -> tuple[bool, str]:
    """GP §5(8)a: (the payer is the player, why); :func:`payer_verdict` without staff-confirmed names."""
    verdict = payer_verdict(player, payer)
    return verdict.outcome == "player", verdict.why


# The temporary account's cap ---------------------------------------------------------------------------------


def temporary_deposited(player_id: int) -> int:
    """Gross deposits credited to the temporary account so far (deposits and branch cash, GP §5(2)b)."""
    total = Entry.objects.filter(
        account__player_id=player_id,
        account__kind=AccountKind.PLAYER_TEMPORARY,
        amount__gt=0,
        transaction__kind__in=[TxnKind.DEPOSIT, TxnKind.BRANCH_CASH_IN],
    ).aggregate(s=Sum("amount"))["s"]
    return int(total or 0)


def temporary_pending(player_id: int) -> int:
    """Initiated deposits into the temporary account not yet expired: they reserve the cap (GP §5(2)b)."""
    total = Deposit.objects.filter(
        player_id=player_id, into_temporary=True, status=Deposit.Status.INITIATED, expires_at__gt=clock.now()
    ).aggregate(s=Sum("amount"))["s"]
    return int(total or 0)


def temporary_deposit_status(player: Player) -> dict[str, Money]:
    """GP §5(2)b: the temporary account's lifetime deposit cap, used and left."""
    cap = rules.temp_deposit_cap()
    used, pending = temporary_deposited(player.pk), temporary_pending(player.pk)
    return {
        "cap": Money(cap),
        "deposited": Money(used),
        "pending": Money(pending),
        "remaining": Money(max(0, cap - used - pending)),
    }


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


def statement_entries(player: Player, start: datetime | None = None, end: datetime | None = None) -> QuerySet[Entry]:
    """The player's ledger entries (all three player accounts) in [start, end), oldest first. A statement may lag:
    read from the replica when there is one (core/db_router.py)."""
    qs = Entry.objects.using(replica()).filter(account__player_id=player.pk).select_related("transaction", "account")
    if start is not None:
        qs = qs.filter(created_at__gte=start)
    if end is not None:
        qs = qs.filter(created_at__lt=end)
    return qs.order_by("created_at", "id")


def statement_line(e: Entry) -> StatementLine:
    txn = e.transaction
    return StatementLine(
        at=e.created_at,
        category=CATEGORY.get(txn.kind, "other"),
        kind=txn.kind,
        account=ACCOUNT_LABEL.get(e.account.kind, e.account.kind),
        amount=Money(e.amount),
        balance_after=Money(e.balance_after or 0),
        reference=txn.reference,
        description=txn.memo or str(TxnKind(txn.kind).label),
        entry_id=e.pk,
    )


def statement(player: Player, start: datetime | None = None, end: datetime | None = None) -> list[StatementLine]:
    """The player's movements in [start, end): deposits, withdrawals, stakes, wins, refunds, fees, corrections."""
    return [statement_line(e) for e in statement_entries(player, start, end)]


def statement_totals(player: Player, start: datetime | None = None, end: datetime | None = None) -> dict[str, Money]:
    totals: dict[str, int] = {}
    qs = statement_entries(player, start, end).exclude(account__kind=AccountKind.PLAYER_HELD)
    for row in qs.values("transaction__kind").annotate(s=Sum("amount")):
        cat = CATEGORY.get(row["transaction__kind"], "other")
        totals[cat] = totals.get(cat, 0) + row["s"]
    return {k: Money(v) for k, v in sorted(totals.items())}


# Payment methods --------------------------------------------------------------------------------------


def payment_methods(player: Player) -> QuerySet[PaymentMethod]:
    return PaymentMethod.objects.filter(player_id=player.pk).order_by("-created_at", "-pk")


def player_has_verified_payment_method(player: Player) -> bool:
    """GP §4(4)g, §5(10): the player has a registered (ownership-verified) payment method."""
    return PaymentMethod.objects.filter(player_id=player.pk, status=PaymentMethod.Status.VERIFIED).exists()


def payment_method_deadline(player: Player, wallet: Wallet | None = None) -> datetime | None:
    """By when the player must have a verified payment method, or None when they have one (or no term runs).

    * GP §5(9): within 30 days from the start of registration (while registration is not complete);
    * GP §5(11): after the last registered method was refused or cancelled, 30 days to register another;
      a temporary account with none is cancelled at the latest 30 days after its activation.
    The accounts expiry job acts on it; the wallet only reports it."""
    if player_has_verified_payment_method(player):
        return None
    wallet = wallet or _wallet(player)
    status = player.status
    candidates: list[datetime] = []
    if status in ("applicant", "temporary") or (
        wallet is not None and wallet.mode == Wallet.Mode.TEMPORARY and status not in ("active",)
    ):
        candidates.append(registration_started_at(player) + timedelta(days=rules.VERIFY_METHOD_DAYS))
        activated = temporary_activated_at(player)
        if activated is not None:
            candidates.append(activated + timedelta(days=rules.NEW_METHOD_DAYS))
    if wallet is not None and wallet.method_missing_since is not None:
        candidates.append(wallet.method_missing_since + timedelta(days=rules.NEW_METHOD_DAYS))
    return min(candidates) if candidates else None


def method_term_passed(wallet: Wallet, now: datetime) -> datetime | None:
    """GP §5(11) for a full account: its last registered method was refused, cancelled or removed and no method
    was verified within the 30 days (``rules.NEW_METHOD_DAYS``) since. Returns the deadline once ``now`` reached it
    (at the deadline itself the term has run out), else None. The consequence (docs/wallet.md): deposits are
    refused, stakes stay allowed, the sweeper flags the wallet for staff. A temporary account's term is the
    accounts app's (its expiry, GP §5(2)a)."""
    if wallet.mode != Wallet.Mode.FULL or wallet.method_missing_since is None:
        return None
    deadline = wallet.method_missing_since + timedelta(days=rules.NEW_METHOD_DAYS)
    if now < deadline:
        return None
    if PaymentMethod.objects.filter(player_id=wallet.player_id, status=PaymentMethod.Status.VERIFIED).exists():
        return None
    return deadline


def payment_method_status(player: Player) -> dict[str, Any]:
    w = _wallet(player)
    return {
        "has_verified": player_has_verified_payment_method(player),
        "deadline": payment_method_deadline(player, wallet=w),
        "missing_since": w.method_missing_since if w else None,
    }


# Closure ---------------------------------------------------------------------------------------------------

SETTLEMENT_KINDS = (Payout.Kind.CLOSURE, Payout.Kind.TEMPORARY_REFUND, Payout.Kind.MISUSE)


def closure_settled_at(player: Player) -> datetime | None:
    """GP §5(15): when the balance at cancellation was settled (the account closes within 10 days of it), or
    None while anything is still owed or moving: an open settlement payout (a closure, a GP §5(2)e refund or a
    GP §5(13) misuse payout), an open withdrawal, a held win, a balance left on the account."""
    payouts = Payout.objects.filter(player_id=player.pk, kind__in=SETTLEMENT_KINDS)
    if not payouts.exists() or payouts.exclude(status=Payout.Status.COMPLETED).exists():
        return None
    if Withdrawal.objects.filter(player_id=player.pk, status__in=Withdrawal.OPEN).exists():
        return None
    if WinHold.objects.filter(player_id=player.pk, status__in=[WinHold.Status.HELD, WinHold.Status.ESCALATED]).exists():
        return None
    if LedgerAccount.objects.filter(player_id=player.pk).exclude(balance=0).exists():
        return None
    return payouts.order_by("-completed_at").values_list("completed_at", flat=True).first()


def closure_close_by(player: Player) -> datetime | None:
    settled = closure_settled_at(player)
    return settled + timedelta(days=rules.CLOSE_AFTER_SETTLEMENT_DAYS) if settled else None


# Overviews --------------------------------------------------------------------------------------------------

HOLD_OPEN = (WinHold.Status.HELD, WinHold.Status.ESCALATED)


def open_win_holds(player_id: int, win_references: Sequence[str]) -> QuerySet[WinHold]:
    """The holds still open (held or escalated) on the credited wins ``win_references`` of the player: a hold placed
    afterwards (``win_hold_place``, reference ``hold:<win>``) or a win held when credited (the win's own reference)."""
    refs = [*win_references, *(f"hold:{r}" for r in win_references)]
    return WinHold.objects.filter(player_id=player_id, status__in=HOLD_OPEN, reference__in=refs).order_by("pk")


def win_held_amount(player: Player, win_references: Sequence[str]) -> Money:
    """What the operator still holds of the wins ``win_references`` (GP §10(3)): the part ``win_deduct`` with the same
    ``win_references`` takes from the held account before the live balance."""
    return Money(sum(open_win_holds(player.pk, win_references).values_list("amount", flat=True)))


def open_debts(player: Player) -> QuerySet[Debt]:
    return Debt.objects.filter(player_id=player.pk, status__in=[Debt.Status.OPEN, Debt.Status.OVERDUE])


def wallet_overview(player: Player) -> dict[str, Any]:
    mode = account_mode(player)
    debts = list(open_debts(player).order_by("due_at"))
    return {
        "account": mode,
        "balance": balance(player),
        "held": held_balance(player),
        # GP §10(1)-(2): money a game holds for the player between rounds (carried bonuses), the player's
        "held_in_games": hooks.held_in_games(player),
        "debt": debt(player),
        "debt_due_at": debts[0].due_at if debts else None,
        "payment_method": payment_method_status(player),
        "temporary_deposits": temporary_deposit_status(player) if mode == Wallet.Mode.TEMPORARY else None,
    }


def operator_balance(code: str) -> Money:
    """One operator account's balance (the sum of its entries, the archived months' carried totals included): the
    read the other apps' checks use (``jackpot_check``), so that ``wallet.ledger`` stays the wallet's own."""
    return ledger.operator_balance(code)


def operator_balances() -> dict[str, Money]:
    """Operator account balances (sums of entries, the archived months' carried totals included; credit-positive)."""
    totals = carried_operator_totals()
    rows = Entry.objects.filter(account__player__isnull=True).values("account__code").annotate(s=Sum("amount"))
    for r in rows.order_by():
        totals[r["account__code"]] = totals.get(r["account__code"], 0) + int(r["s"])
    return {code: Money(totals[code]) for code in sorted(totals)}


# The back office ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Balances:
    available: Money
    held: Money
    debt: Money
    mode: str
    wallet_id: int | None


def balances(player: Player) -> Balances:
    """The live account's balance and debt, the held balance and the wallet's mode: two statements (three without
    a wallet)."""
    accounts = {a.kind: a for a in LedgerAccount.objects.filter(player_id=player.pk)}
    held = accounts.get(AccountKind.PLAYER_HELD)
    wallet = _wallet(player)
    mode = wallet.mode if wallet is not None else account_mode(player)
    live = accounts.get(AccountKind.PLAYER_TEMPORARY if mode == Wallet.Mode.TEMPORARY else AccountKind.PLAYER_MAIN)
    return Balances(
        Money(live.balance if live else 0),
        Money(held.balance if held else 0),
        Money(live.debt if live else 0),
        mode,
        wallet.pk if wallet is not None else None,
    )


def method_document_of(player: Player, document_id: int) -> MethodDocument | None:
    """One of the player's payment-method documents (None when it is another player's or does not exist)."""
    return MethodDocument.objects.select_related("method").filter(pk=document_id, method__player_id=player.pk).first()


def withdrawal_of(player: Player, withdrawal_id: int) -> Withdrawal | None:
    return Withdrawal.objects.select_related("method").filter(pk=withdrawal_id, player_id=player.pk).first()


def ledger_recent(player: Player, *, limit: int = 10) -> list[StatementLine]:
    """The player's latest ledger lines, newest first (the full statement is the admin's statement view)."""
    qs = Entry.objects.filter(account__player_id=player.pk).select_related("transaction", "account")
    return [statement_line(e) for e in qs.order_by("-created_at", "-id")[:limit]]


def payment_methods_with_documents(player: Player, *, limit: int = 20) -> list[PaymentMethod]:
    """The player's payment methods with their ownership documents (two statements)."""
    return list(payment_methods(player).prefetch_related("documents")[:limit])


def deposits_of(player: Player, *, limit: int = 10) -> list[Deposit]:
    return list(
        Deposit.objects.filter(player_id=player.pk).select_related("method").order_by("-created_at", "-pk")[:limit]
    )


def withdrawals_of(player: Player, *, limit: int = 10) -> list[Withdrawal]:
    return list(
        Withdrawal.objects.filter(player_id=player.pk).select_related("method").order_by("-requested_at", "-pk")[:limit]
    )


def win_holds_of(player: Player, *, limit: int = 10) -> list[WinHold]:
    return list(WinHold.objects.filter(player_id=player.pk).order_by("-held_at", "-pk")[:limit])


def player_id_by_reference(reference: str) -> int | None:
    """The player a money reference belongs to: a deposit's payment reference (the variable symbol of a bank
    transfer) or provider id, a withdrawal's or payout's reference, a ledger transaction's reference. Exact match;
    at most four statements."""
    ref = reference.strip()
    if not ref:
        return None
    for qs in (
        Deposit.objects.filter(Q(payment_reference=ref) | Q(provider_payment_id=ref)),
        Withdrawal.objects.filter(Q(reference=ref) | Q(provider_payout_id=ref)),
        Payout.objects.filter(reference=ref),
        LedgerTransaction.objects.filter(reference=ref, player_id__isnull=False),
    ):
        found = qs.values_list("player_id", flat=True).first()
        if found is not None:
            return int(found)
    return None


def method_documents_queue() -> QueueState:
    """Payment-method ownership documents waiting for a review (GP §5(8)b)."""
    return queue_of(MethodDocument.objects.filter(status=MethodDocument.Status.PENDING), "uploaded_at")


def withdrawals_queue() -> QueueState:
    """Withdrawals held for a staff approval."""
    return queue_of(Withdrawal.objects.filter(status=Withdrawal.Status.REQUESTED, needs_approval=True), "requested_at")


def unmatched_credits_queue() -> QueueState:
    """Bank credits matched to no deposit, waiting for staff to assign or return them."""
    return queue_of(BankEntry.objects.filter(status=BankEntry.Status.UNMATCHED), "created_at")


def bank_attention_queue() -> QueueState:
    """Statement lines staff must look at that move no money by themselves: a reversal the platform could not match
    to a credited deposit, and a line not bookable (an amount beyond the maximum)."""
    return queue_of(
        BankEntry.objects.filter(status__in=(BankEntry.Status.REVERSAL_UNMATCHED, BankEntry.Status.INVALID)),
        "created_at",
    )


def bank_reversals_unmatched() -> int:
    """How many reversals wait for staff (no credited deposit matched)."""
    return BankEntry.objects.filter(status=BankEntry.Status.REVERSAL_UNMATCHED).count()


def refunds_due_queue() -> QueueState:
    """Money owed outside a player account (refunds of temporary accounts, closures, returned deposits) that is
    stuck: a return its source did not take back, or a payout past its legal term and not completed."""
    return queue_of(
        Payout.objects.exclude(status=Payout.Status.COMPLETED).filter(
            Q(status=Payout.Status.STOPPED) | Q(due_at__lte=clock.now())
        ),
        "started_at",
    )
