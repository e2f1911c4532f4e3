"""The ledger's primitives: accounts, the wallet lock and balanced postings.

The wallet's services post through these; other code (the jackpots' check, the bench and the fault tests) reads
the account codes and operator accounts only. A posting (:func:`post`) writes one :class:`LedgerTransaction` and its
entries; the database refuses (at commit) entries that do not sum to zero and (at once) a player balance
below its recorded debt. Player accounts are updated with ``UPDATE ... SET balance = balance + x RETURNING``
under the player's wallet lock; operator accounts are never updated (their balance is the sum of entries), so
the house account is not a hot row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

from django.db import IntegrityError, transaction
from django.db.models import Sum

from accounts.models import Player
from core import clock
from core.audit import Actor, integrity_alarm
from core.money import Money
from wallet import errors, sql
from wallet.archived_totals import carried_by_account
from wallet.models import Debt, Entry, LedgerAccount, LedgerTransaction, Wallet

AccountKind = LedgerAccount.Kind

OPERATOR_ACCOUNTS: dict[str, str] = {
    "house": AccountKind.HOUSE,
    "jackpot": AccountKind.JACKPOT,
    "fees": AccountKind.FEES,
    "refunds_payable": AccountKind.REFUNDS_PAYABLE,
    "adjustments": AccountKind.ADJUSTMENTS,
    "branch_cash": AccountKind.BRANCH_CASH,
    "bank_unmatched": AccountKind.BANK_UNMATCHED,
    # the money carry-over games hold for players between rounds (games.carry: Ismael Beiro's carried bonuses),
    # owed to them outside their accounts until a round uses it or it is paid out
    "games_carried": AccountKind.REFUNDS_PAYABLE,
}


def check_amount(amount: Money, *, allow_zero: bool = False) -> int:
    if not isinstance(amount, Money):
        raise errors.INVALID_AMOUNT(reason="amount must be Money")
    if amount.currency != "CZK":
        raise errors.CURRENCY_NOT_SUPPORTED(currency=amount.currency)
    if amount.amount < 0 or (amount.amount == 0 and not allow_zero):
        raise errors.INVALID_AMOUNT(amount=amount)
    return amount.amount


def operator_account(code: str) -> LedgerAccount:
    """An operator account by code (``house``, ``fees``, ``clearing:sandbox`` ...), created on first use."""
    kind: str = operator_kind(code)
    acc = LedgerAccount.objects.filter(code=code).first()
    if acc is None:
        try:
            with transaction.atomic():
                acc = LedgerAccount.objects.create(code=code, kind=kind, tracks_balance=False, created_at=clock.now())
        except IntegrityError:
            acc = LedgerAccount.objects.get(code=code)
    return acc


def operator_kind(code: str) -> str:
    """The kind of an operator account code: a fixed code, ``clearing:<provider>`` or ``jackpot:<pool>`` (one
    account per jackpot pool, plus ``jackpot:awards`` for wins decided and not yet paid)."""
    if code.startswith("clearing:") and len(code) > 9:
        return AccountKind.CLEARING
    if code.startswith("jackpot:") and len(code) > 8:
        return AccountKind.JACKPOT
    if code in OPERATOR_ACCOUNTS:
        return OPERATOR_ACCOUNTS[code]
    raise errors.NOT_AN_OPERATOR_ACCOUNT(account=code)


def player_account_code(player_id: int, kind: str) -> str:
    return f"player:{player_id}:{kind.removeprefix('player_')}"


def _wallet_create(player: Player) -> None:
    fresh = Player.objects.filter(pk=player.pk).first()
    status = fresh.status if fresh is not None else ""
    # A full player account once registration completed (GP §4(8)); before that the temporary account.
    completed = status in ("active", "closing") or (fresh is not None and fresh.completed_at is not None)
    mode = Wallet.Mode.FULL if completed else Wallet.Mode.TEMPORARY
    now = clock.now()
    try:
        with transaction.atomic():
            Wallet.objects.create(player_id=player.pk, mode=mode, created_at=now)
            LedgerAccount.objects.bulk_create(
                [
                    LedgerAccount(
                        code=player_account_code(player.pk, kind),
                        kind=kind,
                        player_id=player.pk,
                        tracks_balance=True,
                        created_at=now,
                    )
                    for kind in LedgerAccount.PLAYER_KINDS
                ]
            )
    except IntegrityError:
        pass  # a concurrent first use created it


def wallet_lock(*, player: Player) -> Wallet:
    """``SELECT ... FOR NO KEY UPDATE`` of the player's one wallet row (created on first use), with its live
    account (:func:`wallet_lock_live`, the one lock statement).

    Must run inside a transaction; every money and limit decision of that player runs under it."""
    return wallet_lock_live(player=player).wallet


def player_account(player_id: int, kind: str) -> LedgerAccount:
    return LedgerAccount.objects.get(player_id=player_id, kind=kind)


def live_kind(wallet: Wallet) -> str:
    return AccountKind.PLAYER_TEMPORARY if wallet.mode == Wallet.Mode.TEMPORARY else AccountKind.PLAYER_MAIN


def live_account(wallet: Wallet) -> LedgerAccount:
    return player_account(wallet.player_id, live_kind(wallet))


def existing_transaction(*, kind: str, reference: str, player_id: int | None, amount: int) -> LedgerTransaction | None:
    """The transaction already posted under ``(kind, reference)`` (a replay), or None.

    A replay with another player or amount is a conflict, never a second posting."""
    txn = LedgerTransaction.objects.filter(kind=kind, reference=reference).first()
    if txn is None:
        return None
    if txn.player_id != player_id or txn.amount != amount:
        raise errors.REFERENCE_CONFLICT(reference=reference, kind=kind)
    return txn


def post(
    *,
    kind: str,
    reference: str,
    legs: Sequence[tuple[LedgerAccount, int]],
    player_id: int | None,
    amount: int,
    actor: Actor,
    memo: str = "",
) -> LedgerTransaction:
    """Write one balanced transaction. Callers hold the wallet lock of every player account in ``legs``."""
    if not reference or len(reference) > 160:
        raise errors.INVALID_AMOUNT(reason="reference must be 1-160 characters")
    legs = [(acc, amt) for acc, amt in legs if amt != 0]
    if sum(amt for _, amt in legs) != 0 or len(legs) < 2:
        raise ValueError(f"unbalanced posting {kind}:{reference}: {[(a.code, x) for a, x in legs]}")
    now = clock.now()
    try:
        with transaction.atomic():
            txn = LedgerTransaction.objects.create(
                kind=kind,
                reference=reference,
                player_id=player_id,
                amount=amount,
                memo=memo[:255],
                created_at=now,
                actor_label=_actor_label(actor),
            )
    except IntegrityError as exc:
        _integrity_refusal(exc, kind=kind, reference=reference)
    entries = []
    try:
        for acc, amt in legs:
            balance_after = None
            if acc.tracks_balance:
                balance_after = sql.balance_add(acc.pk, amt)
                acc.balance = balance_after
            entries.append(Entry(transaction=txn, account=acc, amount=amt, balance_after=balance_after, created_at=now))
        Entry.objects.bulk_create(entries)
    except IntegrityError as exc:
        _integrity_refusal(exc, kind=kind, reference=reference)
    return txn


def _integrity_refusal(exc: IntegrityError, *, kind: str, reference: str) -> NoReturn:
    """Only the unique (kind, reference) of a posting is the client's conflict (``wallet.reference_conflict``, a
    reference reused by another posting); any other integrity failure (the balance check, the zero-sum or debt
    trigger, a NOT NULL column) is a bug in the money path: alarmed (logged at ERROR, recorded) and re-raised, so
    the client gets a server error and nothing is written."""
    if sql.is_reference_conflict(exc):
        raise errors.REFERENCE_CONFLICT(reference=reference, kind=kind) from exc
    integrity_alarm(exc, source="wallet.ledger", kind=kind, reference=reference)
    raise exc


def _actor_label(actor: Actor) -> str:
    return f"{actor.type}:{actor.label or actor.id}"[:160]


def set_debt(account: LedgerAccount, debt: int) -> None:
    LedgerAccount.objects.filter(pk=account.pk).update(debt=debt)
    account.debt = debt


def apply_credit_to_debt(account: LedgerAccount) -> None:
    """After a credit: the recorded debt shrinks to what the balance still lacks; debts are paid oldest first."""
    if account.debt <= 0:
        return
    account.refresh_from_db(fields=["balance", "debt"])
    new_debt = max(0, -account.balance)
    if new_debt == account.debt:
        return
    paid = account.debt - new_debt
    set_debt(account, new_debt)
    now = clock.now()
    for debt in Debt.objects.filter(account=account, status__in=[Debt.Status.OPEN, Debt.Status.OVERDUE]).order_by(
        "created_at", "pk"
    ):
        if paid <= 0:
            break
        part = min(paid, debt.outstanding)
        debt.outstanding -= part
        paid -= part
        if debt.outstanding == 0:
            debt.status, debt.paid_at = Debt.Status.PAID, now
        debt.save(update_fields=["outstanding", "status", "paid_at"])
    if new_debt == 0 and account.player_id is not None:
        Wallet.objects.filter(player_id=account.player_id).update(debt_flagged_at=None)


def account_sum(account_id: int) -> int:
    """The sum of the account's entries: the archived months' carried totals plus the live entries."""
    live = int(Entry.objects.filter(account_id=account_id).aggregate(s=Sum("amount"))["s"] or 0)
    return live + carried_by_account([account_id]).get(account_id, 0)


def operator_balance(code: str) -> Money:
    """An operator account's balance: the sum of its entries, carried and live (never a hot row)."""
    acc = LedgerAccount.objects.filter(code=code).first()
    return Money(account_sum(acc.pk) if acc else 0)


# The lean round path (games): one locking read, one statement per posting ------------------------------------------


@dataclass
class LockedWallet:
    """The player's wallet row, locked (``FOR NO KEY UPDATE``), with its live account's balance and debt, read in
    one statement. Postings through :func:`post_with_operator` keep ``balance`` current."""

    wallet: Wallet
    account: LedgerAccount
    account_id: int
    account_code: str
    balance: int
    debt: int

    @classmethod
    def of(cls, wallet: Wallet, account: LedgerAccount) -> LockedWallet:
        """The locked wallet from its rows (read locked by a statement that locks more, e.g. a round's)."""
        return cls(
            wallet=wallet,
            account=account,
            account_id=account.pk,
            account_code=account.code,
            balance=account.balance,
            debt=account.debt,
        )


def wallet_lock_live(*, player: Player) -> LockedWallet:
    """The wallet lock and the live account's balance and debt in ONE statement (``wallet/sql.py`` LOCK_LIVE);
    the wallet and its accounts are created on first use.

    ``FOR NO KEY UPDATE OF w, a``: the wallet row first (the lock order of docs/contracts.md), then the live
    account row, which is written only under this lock; locking it makes a read that waited see its balance."""
    got = sql.lock_live(player.pk)
    if got is None:
        _wallet_create(player)  # first use: creates the wallet and its accounts, then locks
        got = sql.lock_live(player.pk)
    assert got is not None
    return LockedWallet.of(*got)


def _posting_params(
    *, locked: LockedWallet, kind: str, reference: str, delta: int, operator: str, actor: Actor
) -> dict[str, Any]:
    """The parameters of the posting's statement (``wallet/sql.py`` posting_ctes), for both ways it is written."""
    if delta == 0 or not reference or len(reference) > 160:
        raise ValueError(f"bad posting {kind}:{reference} {delta}")
    return {
        "op_code": operator,
        "op_kind": operator_kind(operator),
        "now": clock.now(),
        "kind": kind,
        "reference": reference,
        "player_id": locked.wallet.player_id,
        "amount": abs(delta),
        "actor": _actor_label(actor),
        "delta": delta,
        "account_id": locked.account_id,
    }


def _post_alone(params: dict[str, Any], *, kind: str, reference: str) -> tuple[int | None, int | None, int]:
    """Run the posting's statement (``wallet/sql.py`` POST_WITH_OPERATOR): (transaction id, balance after,
    entries written). Only a reused reference is ``wallet.reference_conflict``, any other integrity failure is
    alarmed and re-raised (:func:`_integrity_refusal`)."""
    # The operator account is created on first use. When another transaction creates it at the same moment, the
    # insert skips it (ON CONFLICT) and this statement's snapshot cannot see it yet: then NOTHING is written (every
    # part needs the operator row) and the statement runs once more; a new statement sees the committed row.
    for _attempt in range(2):
        try:
            row = sql.post_with_operator(params)
        except IntegrityError as exc:
            _integrity_refusal(exc, kind=kind, reference=reference)
        if row[2] != 0:
            break
    return row


def post_with_operator(
    *, locked: LockedWallet, kind: str, reference: str, delta: int, operator: str, actor: Actor
) -> int:
    """One balanced transaction between the locked player's live account (``delta``) and an operator account
    (``-delta``), written in ONE statement: the transaction row, the balance update and both entries. The
    database still enforces the balance (a check), the zero sum and the debt rule (deferred triggers) and
    append-only rows; only a reused reference is ``wallet.reference_conflict``, any other integrity failure is
    alarmed and re-raised (:func:`_integrity_refusal`). Returns the
    transaction id; ``locked.balance`` becomes the balance after. The caller checked the amount and funds."""
    params = _posting_params(locked=locked, kind=kind, reference=reference, delta=delta, operator=operator, actor=actor)
    txn_id, balance, entries = _post_alone(params, kind=kind, reference=reference)
    if entries != 2 or txn_id is None or balance is None:
        raise RuntimeError(f"posting {kind}:{reference} wrote {entries} entries")
    locked.balance = locked.account.balance = int(balance)
    return int(txn_id)


#: the tables of the posting's rows: an integrity failure on one of them is the posting's
#: (:meth:`DeferredPosting.refused`)
_POSTING_TABLES = frozenset(m._meta.db_table for m in sql.POSTING_INSERTS)


@dataclass
class DeferredPosting:
    """A posting of :func:`post_with_operator` computed under the wallet lock and written by the caller's next
    statement, which carries it (``wallet/sql.py`` posting_ctes under ``DEFERRED_PREFIX``: games/sql.py
    ROUND_INSERT_DECIDED_WIN, a round's win in its insert): one round trip fewer. Only a plain posting is deferred:
    nothing follows it in Python (no debt paydown, GP §7(7)), and its operator account is visible already (the
    stake of the same round was posted to it in this transaction): the carrying statement does not run again as
    :func:`post_with_operator` does when another transaction creates the account at that moment.
    ``locked.balance`` is the balance after from the moment it is made, so what the caller writes beside it (the
    round's ``balance_after``) is that balance; :meth:`written` fails the transaction unless the statement wrote
    exactly this posting and that balance."""

    locked: LockedWallet
    kind: str
    reference: str
    plain: dict[str, Any]  # the posting's parameters
    params: dict[str, Any]  # the same, named with DEFERRED_PREFIX (the carrying statement's)
    balance_after: int

    @classmethod
    def of(
        cls, *, locked: LockedWallet, kind: str, reference: str, delta: int, operator: str, actor: Actor
    ) -> DeferredPosting:
        """The posting, its statement's parameters and the balance it leaves; ``locked`` shows that balance."""
        params = _posting_params(
            locked=locked, kind=kind, reference=reference, delta=delta, operator=operator, actor=actor
        )
        posting = cls(
            locked=locked,
            kind=kind,
            reference=reference,
            plain=params,
            params=sql.posting_params(params, sql.DEFERRED_PREFIX),
            balance_after=locked.balance + delta,
        )
        locked.balance = locked.account.balance = posting.balance_after
        return posting

    def written(self, row: Sequence[Any]) -> int:
        """``row``: what the statement returned of the posting (``wallet/sql.py`` POSTING_RETURNS). Its
        transaction, both entries and the balance computed under the lock, or the transaction fails. Returns the
        transaction id."""
        txn_id, balance, entries = row
        if txn_id is None or entries != 2 or balance != self.balance_after:
            raise RuntimeError(
                f"posting {self.kind}:{self.reference} not written: {tuple(row)}, balance {self.balance_after} expected"
            )
        return int(txn_id)

    def refused(self, exc: IntegrityError) -> None:
        """An integrity failure of the statement that carried the posting: the posting's own (a reused reference:
        ``wallet.reference_conflict``; any other on its rows alarmed and re-raised, :func:`_integrity_refusal`)
        is refused as :func:`post_with_operator` refuses it; returns for a failure of another part."""
        diag = getattr(exc.__cause__, "diag", None)
        if sql.is_reference_conflict(exc) or getattr(diag, "table_name", None) in _POSTING_TABLES:
            _integrity_refusal(exc, kind=self.kind, reference=self.reference)

    def post(self) -> int:
        """Write the posting in a statement of its own (:data:`wallet.sql.POST_WITH_OPERATOR`, with its retry and
        refusals): when the statement that was to carry it is not run. Returns the transaction id."""
        return self.written(_post_alone(self.plain, kind=self.kind, reference=self.reference))
