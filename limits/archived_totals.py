"""The settled bets' archived months carried forward (``core.partitions_archive``, docs/scaling.md "Retention").

The job archives a month of ``limits_settledbet`` only through :func:`carry_settled_bets` (the hook
``core.archiving.carry_forward``, registered by ``LimitsConfig.ready``), called in the month's own transaction
before the DETACH, with the month's partition locked against writes (a void in between cannot slip past the totals):
the totals and the DETACH commit together or not at all. ``limits_reconcile`` adds
:class:`~limits.models.CarriedBetTotals` to the live bets of each day and month key. The minute buckets need none:
they cover the last 2 hours, and a month is archived years after it ended. A bet archived this way can no longer
be voided (``settled_bet_voided`` does not find it), so its counters and its carried totals stay equal.
"""

from __future__ import annotations

from core import clock
from core.archiving import ArchivingMonth
from limits import sql_archive


def carry_settled_bets(month: ArchivingMonth) -> dict[str, int]:
    """The hook of ``limits_settledbet``: the month's bets that are not voided, summed per player, kind and Prague
    day and month of their placement and decision, into :class:`~limits.models.CarriedBetTotals`."""
    keys, decided = sql_archive.carry_settled(
        month=month.month, low=month.low, high=month.high, at=month.at, tz=clock.PRAGUE.key
    )
    return {"keys": keys, "bets_decided": decided}
