"""The contribution log's archived months carried forward (``core.partitions_archive``, docs/scaling.md "Retention").

The job archives a month of ``jackpots_contribution`` only through :func:`carry_contributions` (the hook
``core.archiving.carry_forward``, registered by ``JackpotsConfig.ready``), called in the month's own transaction
before the DETACH: the totals and the DETACH commit together or not at all. ``pool_books`` (so ``jackpot_check``)
adds :func:`carried_by_pool` to the live rows; the reports' contributions of a period read the live
rows only (a month is archived ten years after it ended).
"""

from __future__ import annotations

from django.db.models import Sum

from core.archiving import ArchivingMonth
from jackpots import sql
from jackpots.models import CarriedContributions


def carry_contributions(month: ArchivingMonth) -> dict[str, int]:
    """The hook of ``jackpots_contribution``: each pool's sums of the month into
    :class:`~jackpots.models.CarriedContributions`."""
    pools, rows = sql.carry_contributions(month=month.month, low=month.low, high=month.high, at=month.at)
    return {"pools": pools, "contributions": rows}


def carried_by_pool(jackpot_id: int) -> int:
    """The micro-haléře (active + future) of the pool's contributions in the archived months."""
    agg = CarriedContributions.objects.filter(jackpot_id=jackpot_id).aggregate(
        a=Sum("active_micro"), f=Sum("future_micro")
    )
    return int(agg["a"] or 0) + int(agg["f"] or 0)
