"""The limits' statement for an archived month (core.partitions_archive, ``limits/archived_totals.py``), as the SQL it
is (see core/sql.py; not on the round path).

* :data:`CARRY_SETTLED`: an archived month of settled bets carried forward into the day and month keys
  ``limits_reconcile`` compares (``limits.archived_totals``, the hook of ``core.partitions_archive``).

Pinned by ``tests/test_partition_carry_forward.py`` and ``tests/test_sql_contracts.py``.
"""

from __future__ import annotations

from datetime import date, datetime

from django.db import connection

from core.sql import execute, register
from limits.models import CarriedBetTotals, PeriodTotal, SettledBet

P, S, CB = PeriodTotal, SettledBet, CarriedBetTotals
FIGURES = P.FIGURES
_CARRIED = ("player_id", "kind", "period", "start", "month", *FIGURES, "archived_at")


#: one month of settled bets (``id >= low AND id < high``: that month's partition, read four times, whole) summed into
#: the placement (by ``placed_at``) and the decision (by ``settled_at``) of each player's day and month, not voided
CARRY_SETTLED = register(
    "limits.carry_settled",
    """WITH keyed AS (
    SELECT b.player_id AS p, b.kind AS k, %(period_day)s AS period, ((b.placed_at AT TIME ZONE %(tz)s)::date) AS s,
           b.stake AS sp, 1 AS np, 0 AS sd, 0 AS wd, 0 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_day)s AS period, ((b.settled_at AT TIME ZONE %(tz)s)::date) AS s,
           0 AS sp, 0 AS np, b.stake AS sd, b.win AS wd, 1 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_month)s AS period,
           (date_trunc('month', (b.placed_at AT TIME ZONE %(tz)s))::date) AS s,
           b.stake AS sp, 1 AS np, 0 AS sd, 0 AS wd, 0 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
    UNION ALL
    SELECT b.player_id AS p, b.kind AS k, %(period_month)s AS period,
           (date_trunc('month', (b.settled_at AT TIME ZONE %(tz)s))::date) AS s,
           0 AS sp, 0 AS np, b.stake AS sd, b.win AS wd, 1 AS nd
    FROM limits_settledbet b WHERE b.id >= %(low)s AND b.id < %(high)s AND NOT b.voided
), carried AS (
    INSERT INTO limits_carriedbettotals (player_id, kind, period, start, month, stakes_placed, bets_placed,
                                         stakes_decided, wins_decided, bets_decided, archived_at)
    SELECT p, k, period, s, %(archived_month)s, sum(sp), sum(np), sum(sd), sum(wd), sum(nd), %(at)s
    FROM keyed GROUP BY p, k, period, s
    RETURNING period, bets_decided
)
SELECT count(*), COALESCE(sum(bets_decided) FILTER (WHERE period = %(period_day)s), 0)
FROM carried""",
    columns={S: ("id", "player_id", "kind", "stake", "win", "placed_at", "settled_at", "voided"), CB: _CARRIED},
    inserts=(CB,),
    params={
        "tz": str,
        "period_day": str,
        "period_month": str,
        "archived_month": date,
        "low": int,
        "high": int,
        "at": datetime,
    },
)


def carry_settled(*, month: date, low: int, high: int, at: datetime, tz: str) -> tuple[int, int]:
    """Run :data:`CARRY_SETTLED`: (keys carried, bets decided in the month: not voided)."""
    with connection.cursor() as cur:
        execute(
            cur,
            CARRY_SETTLED,
            {
                "tz": tz,
                "period_day": P.Period.DAY,
                "period_month": P.Period.MONTH,
                "archived_month": month,
                "low": low,
                "high": high,
                "at": at,
            },
        )
        keys, decided = cur.fetchone()
    return int(keys), int(decided)
