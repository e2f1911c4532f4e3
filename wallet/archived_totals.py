"""The ledger's archived months carried forward (``core.partitions_archive``, docs/scaling.md "Retention").

The job archives a month of ``wallet_entry`` only through :func:`carry_entries` and a month of
``wallet_ledgertransaction`` only through :func:`carry_transactions` (the carry-forward hooks of ``core.archiving``,
registered by ``WalletConfig.ready``), each called in the month's own transaction, before the DETACH: the totals and
the DETACH commit together or not at all.

Every figure that sums an account's entries over all time adds what was carried (:func:`carried_by_account`):
``wallet.ledger.account_sum`` (so ``operator_balance``), ``wallet.selectors.operator_balances``, the reports'
jackpot liability (:func:`carried_total`) and ``ledger_check``, which reads the carried tables in its own SQL. A
figure of a period (a player's statement, the temporary account's deposits of its few weeks) reads the live
entries only: a month is archived ten years after it ended.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, date, datetime

from django.db.models import Sum

from core.archiving import ArchivingMonth
from wallet import sql
from wallet.models_carried import CarriedEntries


def carry_entries(month: ArchivingMonth) -> dict[str, int]:
    """The hook of ``wallet_entry``: each account's sum and count of the month's entries into
    :class:`~wallet.models.CarriedEntries`, and the month into :class:`~wallet.models.ArchivedLedgerMonth` (ONE
    statement). A month whose entries do not sum to zero is refused (every transaction balances, so they must):
    the job's transaction rolls back and the month stays."""
    accounts, entries, total = sql.carry_entries(month=month.month, low=month.low, high=month.high, at=month.at)
    if total != 0:
        raise ValueError(f"{month.partition}: the month's entries sum to {total}, not 0")
    return {"accounts": accounts, "entries": entries}


def carry_transactions(month: ArchivingMonth) -> dict[str, int]:
    """The hook of ``wallet_ledgertransaction``: the month recorded with its count. The job reaches it only when no
    live entry points into the month (its entries' month was archived first) and nothing else does (a deposit, a
    hold)."""
    return {"transactions": sql.carry_transactions(month=month.month, low=month.low, high=month.high, at=month.at)}


def carried_by_account(account_ids: Iterable[int] | None = None) -> dict[int, int]:
    """{account id: the sum of its entries in the archived months} (accounts with none are left out)."""
    qs = CarriedEntries.objects.all()
    if account_ids is not None:
        qs = qs.filter(account_id__in=list(account_ids))
    return {r["account_id"]: int(r["s"]) for r in qs.values("account_id").annotate(s=Sum("amount")).order_by()}


def carried_operator_totals() -> dict[str, int]:
    """{operator account code: the sum of its entries in the archived months} (accounts with none left out)."""
    rows = (
        CarriedEntries.objects.filter(account__player__isnull=True)
        .values("account__code")
        .annotate(s=Sum("amount"))
        .order_by()
    )
    return {r["account__code"]: int(r["s"]) for r in rows}


def carried_total(*, account_kind: str, before: datetime, using: str = "default") -> int:
    """The carried sum of the accounts of ``account_kind`` over the archived months that ended by ``before`` (a
    month ends when the next UTC month begins), read from the database ``using``."""
    utc = before.astimezone(UTC)
    first = date(utc.year, utc.month, 1)
    return int(
        CarriedEntries.objects.using(using)
        .filter(account__kind=account_kind, month__lt=first)
        .aggregate(s=Sum("amount"))["s"]
        or 0
    )
