"""Proof that the running counters equal the ledger of settled bets (``manage.py limits_reconcile``).

* Day and month totals (:class:`~limits.models.PeriodTotal`): stakes placed = the stakes of the ledger's
  bets (not voided) by the Prague day/month of ``placed_at`` plus the open bets; decided stakes, wins and
  counts = the ledger's bets (not voided) by the Prague day/month of ``settled_at``. The ledger is its live bets
  plus the totals carried forward from its archived months (:class:`~limits.models.CarriedBetTotals`, keyed the
  same way, written when ``core.partitions_archive`` detached the month; docs/scaling.md "Retention").
* Minute buckets (:class:`~limits.models.MinuteBucket`) still kept (the last 2 hours): stakes by the minute
  of ``placed_at`` (plus open bets), wins by the minute of ``settled_at``; and each bucket's ``peak`` is at
  least its own net loss (the whole minute is one of its tails).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db import connection

from core import clock
from limits.kinds import KINDS
from limits.rules import BUCKET_RETENTION, minute_of


@dataclass(frozen=True)
class Mismatch:
    table: str
    player_id: int
    kind: str
    key: str
    counter: tuple[int, ...]
    ledger: tuple[int, ...]

    def __str__(self) -> str:
        return (
            f"{self.table} player={self.player_id} kind={self.kind} {self.key}: "
            f"counter={self.counter} ledger={self.ledger}"
        )


_PERIOD_SQL = """
WITH placed AS (
    SELECT player_id, kind, {key_placed} AS k, stake FROM limits_settledbet WHERE NOT voided {pf}
    UNION ALL
    SELECT player_id, kind, {key_placed} AS k, stake FROM limits_openbet WHERE TRUE {pf}
), lp AS (
    SELECT player_id, kind, k, SUM(stake) AS s, COUNT(*) AS n FROM placed GROUP BY 1, 2, 3
), ld AS (
    SELECT player_id, kind, {key_settled} AS k, SUM(stake) AS s, SUM(win) AS w, COUNT(*) AS n
    FROM limits_settledbet WHERE NOT voided {pf} GROUP BY 1, 2, 3
), expected AS (
    SELECT player_id, kind, k, SUM(sp) AS sp, SUM(np) AS np, SUM(sd) AS sd, SUM(wd) AS wd, SUM(nd) AS nd FROM (
        SELECT player_id, kind, k, s AS sp, n AS np, 0 AS sd, 0 AS wd, 0 AS nd FROM lp
        UNION ALL
        SELECT player_id, kind, k, 0, 0, s, w, n FROM ld
        UNION ALL
        SELECT player_id, kind, start, stakes_placed, bets_placed, stakes_decided, wins_decided, bets_decided
        FROM limits_carriedbettotals WHERE period = %s {pf}
    ) x GROUP BY 1, 2, 3
), counters AS (
    SELECT player_id, kind, start AS k, stakes_placed AS sp, bets_placed AS np, stakes_decided AS sd,
           wins_decided AS wd, bets_decided AS nd
    FROM limits_periodtotal WHERE period = %s {pf}
)
SELECT COALESCE(c.player_id, e.player_id), COALESCE(c.kind, e.kind), COALESCE(c.k, e.k),
       COALESCE(c.sp, 0), COALESCE(c.np, 0), COALESCE(c.sd, 0), COALESCE(c.wd, 0), COALESCE(c.nd, 0),
       COALESCE(e.sp, 0), COALESCE(e.np, 0), COALESCE(e.sd, 0), COALESCE(e.wd, 0), COALESCE(e.nd, 0)
FROM counters c FULL OUTER JOIN expected e ON c.player_id = e.player_id AND c.kind = e.kind AND c.k = e.k
WHERE (COALESCE(c.sp, 0), COALESCE(c.np, 0), COALESCE(c.sd, 0), COALESCE(c.wd, 0), COALESCE(c.nd, 0))
   <> (COALESCE(e.sp, 0), COALESCE(e.np, 0), COALESCE(e.sd, 0), COALESCE(e.wd, 0), COALESCE(e.nd, 0))
ORDER BY 1, 2, 3
"""

_BUCKET_SQL = """
WITH placed AS (
    SELECT player_id, kind, date_trunc('minute', placed_at) AS m, stake FROM limits_settledbet
    WHERE NOT voided AND placed_at >= %(h)s AND kind = ANY(%(kinds)s) {pf}
    UNION ALL
    SELECT player_id, kind, date_trunc('minute', placed_at), stake FROM limits_openbet
    WHERE placed_at >= %(h)s AND kind = ANY(%(kinds)s) {pf}
), lp AS (SELECT player_id, kind, m, SUM(stake) AS s FROM placed GROUP BY 1, 2, 3
), lw AS (
    SELECT player_id, kind, date_trunc('minute', settled_at) AS m, SUM(win) AS w FROM limits_settledbet
    WHERE NOT voided AND settled_at >= %(h)s AND kind = ANY(%(kinds)s) {pf} GROUP BY 1, 2, 3
), expected AS (
    SELECT COALESCE(lp.player_id, lw.player_id) AS player_id, COALESCE(lp.kind, lw.kind) AS kind,
           COALESCE(lp.m, lw.m) AS m, COALESCE(lp.s, 0) AS s, COALESCE(lw.w, 0) AS w
    FROM lp FULL OUTER JOIN lw ON lp.player_id = lw.player_id AND lp.kind = lw.kind AND lp.m = lw.m
), counters AS (
    SELECT player_id, kind, minute AS m, stakes AS s, wins AS w, peak AS p FROM limits_minutebucket
    WHERE minute >= %(h)s {pf}
)
SELECT COALESCE(c.player_id, e.player_id), COALESCE(c.kind, e.kind), COALESCE(c.m, e.m),
       COALESCE(c.s, 0), COALESCE(c.w, 0), COALESCE(e.s, 0), COALESCE(e.w, 0)
FROM counters c FULL OUTER JOIN expected e ON c.player_id = e.player_id AND c.kind = e.kind AND c.m = e.m
WHERE (COALESCE(c.s, 0), COALESCE(c.w, 0)) <> (COALESCE(e.s, 0), COALESCE(e.w, 0))
   OR COALESCE(c.p, 0) < GREATEST(0, COALESCE(c.s, 0) - COALESCE(c.w, 0))
ORDER BY 1, 2, 3
"""

_KEYS = {
    "day": ("((placed_at AT TIME ZONE 'Europe/Prague')::date)", "((settled_at AT TIME ZONE 'Europe/Prague')::date)"),
    "month": (
        "(date_trunc('month', placed_at AT TIME ZONE 'Europe/Prague')::date)",
        "(date_trunc('month', settled_at AT TIME ZONE 'Europe/Prague')::date)",
    ),
}


def reconcile(*, player_ids: list[int] | None = None, now: datetime | None = None) -> list[Mismatch]:
    """Every difference between the counters and the ledger (empty list = all counters proven)."""
    now = now or clock.now()
    out: list[Mismatch] = []
    pf = "AND player_id = ANY(%(players)s)" if player_ids is not None else ""
    with connection.cursor() as cur:
        for period, (kp, ks) in _KEYS.items():
            sql = _PERIOD_SQL.format(key_placed=kp, key_settled=ks, pf=pf.replace("%(players)s", "%s"))
            # placeholders in order: placed (2 x players), ld (players), carried (period, players), counters (period,
            # players)
            ids = list(player_ids or [])
            params: list[list[int] | str] = (
                [ids, ids, ids, period, ids, period, ids] if player_ids is not None else [period, period]
            )
            cur.execute(sql, params)
            for row in cur.fetchall():
                out.append(
                    Mismatch(f"periodtotal.{period}", row[0], row[1], str(row[2]), tuple(row[3:8]), tuple(row[8:13]))
                )
        hourly_kinds = [k for k, r in KINDS.items() if r.hourly_loss]
        cur.execute(
            _BUCKET_SQL.format(pf=pf),
            {"h": minute_of(now) - BUCKET_RETENTION, "kinds": hourly_kinds, "players": list(player_ids or [])},
        )
        for row in cur.fetchall():
            out.append(Mismatch("minutebucket", row[0], row[1], row[2].isoformat(), tuple(row[3:5]), tuple(row[5:7])))
    return out
