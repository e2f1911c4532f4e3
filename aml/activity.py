"""What the AML rules read about a player's money: deposits, withdrawals, stakes, wins and payment methods.

Read-only queries of the wallet's tables (``wallet.models``; aml sits above wallet in the layering, as
``complaints/records.py`` reads the ledger). This is the one module of aml that reads them, so that a wallet
selector can replace each function without touching the rules. Amounts are integer haléře; windows are
half-open ``[since, until)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet, Sum
from django.db.models.functions import Coalesce

from wallet.models import BranchCash, Deposit, LedgerTransaction, PaymentMethod, Withdrawal

# A withdrawal counts as "withdrawn" unless staff rejected it, the player cancelled it or the provider refused it.
WITHDRAWN_STATUSES = ("requested", "approved", "sending", "sent", "confirmed")


@dataclass(frozen=True)
class Movement:
    id: int
    at: datetime
    amount: int


@dataclass(frozen=True)
class Win:
    player_id: int
    reference: str
    at: datetime
    amount: int


def _sum(qs: QuerySet[Any], field: str) -> int:
    return int(qs.aggregate(total=Coalesce(Sum(field), 0))["total"])


def deposits_total(player_id: int, since: datetime, until: datetime) -> int:
    """Confirmed deposits (provider deposits by their confirmation time, cash paid in at a branch)."""
    provider = _sum(
        Deposit.objects.filter(
            player_id=player_id, status=Deposit.Status.CONFIRMED, confirmed_at__gte=since, confirmed_at__lt=until
        ),
        "amount",
    )
    cash = _sum(
        BranchCash.objects.filter(player_id=player_id, direction=BranchCash.Direction.IN, at__gte=since, at__lt=until),
        "amount",
    )
    return provider + cash


def deposits(player_id: int, since: datetime, until: datetime) -> list[Movement]:
    """Confirmed provider deposits and branch cash paid in, oldest first."""
    rows = [
        Movement(d.pk, d.confirmed_at, d.amount)
        for d in Deposit.objects.filter(
            player_id=player_id, status=Deposit.Status.CONFIRMED, confirmed_at__gte=since, confirmed_at__lt=until
        ).only("pk", "confirmed_at", "amount")
        if d.confirmed_at is not None
    ]
    rows += [
        Movement(-c.pk, c.at, c.amount)
        for c in BranchCash.objects.filter(
            player_id=player_id, direction=BranchCash.Direction.IN, at__gte=since, at__lt=until
        ).only("pk", "at", "amount")
    ]
    return sorted(rows, key=lambda m: (m.at, m.id))


def withdrawals(player_id: int, since: datetime, until: datetime) -> list[Movement]:
    """Withdrawals requested in the window that were not rejected, cancelled or refused, oldest first."""
    return [
        Movement(w.pk, w.requested_at, w.amount)
        for w in Withdrawal.objects.filter(
            player_id=player_id,
            status__in=WITHDRAWN_STATUSES,
            requested_at__gte=since,
            requested_at__lt=until,
        )
        .order_by("requested_at", "pk")
        .only("pk", "requested_at", "amount")
    ]


def stakes_total(player_id: int, since: datetime, until: datetime) -> int:
    """Stakes placed in the window, less stakes returned (refunds of voided rounds)."""
    txns = LedgerTransaction.objects.filter(player_id=player_id, created_at__gte=since, created_at__lt=until)
    return _sum(txns.filter(kind=LedgerTransaction.Kind.STAKE), "amount") - _sum(
        txns.filter(kind=LedgerTransaction.Kind.REFUND), "amount"
    )


def methods_registered(player_id: int, since: datetime, until: datetime) -> list[Movement]:
    """Payment methods the player registered in the window (whatever became of them), oldest first."""
    return [
        Movement(m.pk, m.created_at, 0)
        for m in PaymentMethod.objects.filter(player_id=player_id, created_at__gte=since, created_at__lt=until)
        .order_by("created_at", "pk")
        .only("pk", "created_at")
    ]


def large_wins(since: datetime, until: datetime, min_amount: int) -> list[Win]:
    """Wins credited to a player's account in the window of at least ``min_amount``."""
    return [
        Win(t.player_id, t.reference, t.created_at, t.amount)
        for t in LedgerTransaction.objects.filter(
            kind=LedgerTransaction.Kind.WIN,
            amount__gte=min_amount,
            created_at__gte=since,
            created_at__lt=until,
            player_id__isnull=False,
        )
        .order_by("created_at", "pk")
        .only("player_id", "reference", "created_at", "amount")
        if t.player_id is not None
    ]


def win(player_id: int, reference: str) -> Win | None:
    """The win credited to this player under ``reference`` (None if there is none)."""
    t = LedgerTransaction.objects.filter(
        kind=LedgerTransaction.Kind.WIN, reference=reference, player_id=player_id
    ).first()
    return None if t is None else Win(player_id, t.reference, t.created_at, t.amount)


def players_withdrawing(since: datetime, until: datetime) -> list[int]:
    return sorted(
        set(
            Withdrawal.objects.filter(
                status__in=WITHDRAWN_STATUSES, requested_at__gte=since, requested_at__lt=until
            ).values_list("player_id", flat=True)
        )
    )


def players_registering_methods(since: datetime, until: datetime) -> list[int]:
    return sorted(
        set(
            PaymentMethod.objects.filter(created_at__gte=since, created_at__lt=until).values_list(
                "player_id", flat=True
            )
        )
    )


def players_depositing(since: datetime, until: datetime) -> list[int]:
    ids = set(
        Deposit.objects.filter(
            status=Deposit.Status.CONFIRMED, confirmed_at__gte=since, confirmed_at__lt=until
        ).values_list("player_id", flat=True)
    )
    ids |= set(
        BranchCash.objects.filter(direction=BranchCash.Direction.IN, at__gte=since, at__lt=until).values_list(
            "player_id", flat=True
        )
    )
    return sorted(ids)
