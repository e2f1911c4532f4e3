"""The jackpots' hot statements, as the SQL they are (see core/sql.py; ``tests/test_sql_contracts.py`` checks their
tables and columns against the models and EXPLAINs each).

* :data:`CONTRIBUTE`: a round's contributions to its levels (``unnest`` of one row per level: the pending rows the
  fold moves into the log, and the same amounts added to the round's slot of each pool's running counter) and the
  live value of every level whose trigger needs it, in ONE statement, without a lock on the pool rows (a spin waits
  for another only when both hold the same slot: round ids equal modulo ``SLOTS``, transactions overlapping). Also
  a voided round's reversal (negative rows, ``reversal``).
* :data:`LIVE`: the status, run and live value of one level (the folded pot plus its counter beyond what the folds
  counted: ``SLOTS`` rows at most, however many spins are pending), no lock.
* :data:`PENDING_BY_COUNTER`: the pending value of pools by their counters (the values shown).
* :data:`FOLD`: the committed pending rows of a level moved into the permanent log, each exactly once (``DELETE
  ... RETURNING`` into ``INSERT``), in ONE statement that waits on no spin; the fold adds the sums it returns to the
  pool and to its ``counted_*``.
* :data:`CARRY_CONTRIBUTIONS`: an archived month of the log carried forward per pool (``jackpots.archived_totals``,
  the hook of ``core.partitions_archive``), not on the round path.

Pinned by ``games/tests/platform/test_round_cost.py`` (one jackpot statement per round), the jackpots tests,
``jackpot_check`` (value = folded contributions + seeds - awards + returns; the counter = counted + pending rows)
and ``tests/test_sql_contracts.py``.
"""

from __future__ import annotations

from datetime import date, datetime

from django.db import connection

from core.sql import execute, register
from jackpots.models import SLOTS, CarriedContributions, Contribution, Jackpot, Pending, PendingTotal

J, PD, PT, C, CC = Jackpot, Pending, PendingTotal, Contribution, CarriedContributions
_ROW = ("jackpot_id", "round_id", "reversal", "player_id", "basis_amount", "active_micro", "future_micro", "created_at")
_SLOT = ("jackpot_id", "slot", "active_micro", "future_micro")

#: the live active value of pool ``j``: the folded pot plus what its counter holds beyond what the folds took
_LIVE_VALUE = """j.amount_micro - j.counted_active_micro
       + COALESCE((SELECT sum(s.active_micro) FROM jackpots_pendingtotal s WHERE s.jackpot_id = j.id), 0)"""

CONTRIBUTE = register(
    "jackpots.contribute",
    f"""WITH ins AS (
    INSERT INTO jackpots_pending (jackpot_id, round_id, reversal, player_id, basis_amount, active_micro, future_micro,
                                  created_at)
    SELECT t.j, %(round)s, %(reversal)s, %(player)s, t.b, t.a, t.f, %(now)s
    FROM unnest(%(j)s::bigint[], %(b)s::bigint[], %(a)s::bigint[], %(f)s::bigint[]) AS t(j, b, a, f)
), counted AS (
    INSERT INTO jackpots_pendingtotal AS s (jackpot_id, slot, active_micro, future_micro)
    SELECT t.j, %(slot)s, t.a, t.f FROM unnest(%(j)s::bigint[], %(a)s::bigint[], %(f)s::bigint[]) AS t(j, a, f)
    ORDER BY t.j
    ON CONFLICT (jackpot_id, slot) DO UPDATE
    SET active_micro = s.active_micro + excluded.active_micro, future_micro = s.future_micro + excluded.future_micro
)
SELECT j.id, j.generation, j.status, {_LIVE_VALUE}
       + COALESCE((SELECT sum(t.a) FROM unnest(%(j)s::bigint[], %(a)s::bigint[]) AS t(j, a) WHERE t.j = j.id), 0)
FROM jackpots_jackpot j WHERE j.id = ANY(%(check)s::bigint[])""",
    columns={PD: _ROW, PT: _SLOT, J: ("id", "generation", "status", "amount_micro", "counted_active_micro")},
    inserts=(PD, PT),
    params={
        "round": int,
        "reversal": bool,
        "player": int,
        "now": datetime,
        "slot": int,
        "j": list,
        "b": list,
        "a": list,
        "f": list,
        "check": list,
    },
    doc="a round's contributions to its levels (pending rows and the counter's slot) and the live value of the "
    "levels in ``check``; the main query's snapshot does not see the CTEs' writes, so its own are added",
)


def contribute(
    *,
    round_id: int,
    player_id: int,
    now: datetime,
    rows: list[tuple[int, int, int, int]],
    check: list[int],
    reversal: bool = False,
) -> list[tuple[int, int, str, int]]:
    """Run :data:`CONTRIBUTE` with ``rows`` (level id, basis, active, future), one per level: (level id, run,
    status, live value) of each level in ``check``. The slots are taken in level id order (two spins that share a
    slot wait on each other, never in a cycle)."""
    rows = sorted(rows)
    with connection.cursor() as cur:
        execute(
            cur,
            CONTRIBUTE,
            {
                "round": round_id,
                "reversal": reversal,
                "player": player_id,
                "now": now,
                "slot": round_id % SLOTS,
                "j": [r[0] for r in rows],
                "b": [r[1] for r in rows],
                "a": [r[2] for r in rows],
                "f": [r[3] for r in rows],
                "check": check,
            },
        )
        return [(int(i), int(gen), str(status), int(value)) for i, gen, status, value in cur.fetchall()]


LIVE = register(
    "jackpots.live",
    f"SELECT j.status, j.generation, {_LIVE_VALUE}\nFROM jackpots_jackpot j WHERE j.id = %(level)s",
    columns={
        J: ("id", "status", "generation", "amount_micro", "counted_active_micro"),
        PT: ("jackpot_id", "active_micro"),
    },
    params={"level": int},
)


def live(level_id: int) -> tuple[str, int, int]:
    with connection.cursor() as cur:
        execute(cur, LIVE, {"level": level_id})
        status, generation, value = cur.fetchone()
    return str(status), int(generation), int(value)


PENDING_BY_COUNTER = register(
    "jackpots.pending_by_counter",
    """SELECT j.id, COALESCE(sum(s.active_micro), 0) - j.counted_active_micro,
       COALESCE(sum(s.future_micro), 0) - j.counted_future_micro
FROM jackpots_jackpot j LEFT JOIN jackpots_pendingtotal s ON s.jackpot_id = j.id
WHERE j.id = ANY(%(ids)s::bigint[]) GROUP BY j.id""",
    columns={
        J: ("id", "counted_active_micro", "counted_future_micro"),
        PT: ("jackpot_id", "active_micro", "future_micro"),
    },
    params={"ids": list},
)


def pending_by_counter(ids: list[int]) -> dict[int, tuple[int, int]]:
    """{pool id: (pending active, pending future)} in micro-haléře by the running counter (slots minus counted)."""
    with connection.cursor() as cur:
        execute(cur, PENDING_BY_COUNTER, {"ids": ids})
        return {int(i): (int(a), int(f)) for i, a, f in cur.fetchall()}


#: the permanent log's columns (every field but its id; the contract test checks the list is whole)
_LOG = (
    "jackpot_id",
    "round_id",
    "player_id",
    "basis_amount",
    "active_micro",
    "future_micro",
    "reversal",
    "fold_id",
    "created_at",
)

FOLD = register(
    "jackpots.fold",
    """WITH moved AS (
    DELETE FROM jackpots_pending WHERE jackpot_id = %(jackpot)s
    RETURNING jackpot_id, round_id, reversal, player_id, basis_amount, active_micro, future_micro, created_at
), logged AS (
    INSERT INTO jackpots_contribution (jackpot_id, round_id, player_id, basis_amount, active_micro, future_micro,
                                       reversal, fold_id, created_at)
    SELECT jackpot_id, round_id, player_id, basis_amount, active_micro, future_micro, reversal, %(fold)s, created_at
    FROM moved RETURNING active_micro, future_micro
)
SELECT count(*), COALESCE(sum(active_micro), 0), COALESCE(sum(future_micro), 0) FROM logged""",
    columns={PD: _ROW, C: _LOG},
    inserts=(C,),
    params={"jackpot": int, "fold": int},
)


def fold(*, jackpot_id: int, fold_id: int) -> tuple[int, int, int]:
    """Run :data:`FOLD`: (rows moved, active micro-haléře, future micro-haléře)."""
    with connection.cursor() as cur:
        execute(cur, FOLD, {"fold": fold_id, "jackpot": jackpot_id})
        rows, active, future = (int(x) for x in cur.fetchone())
    return rows, active, future


_CARRIED = ("jackpot_id", "month", "ids_from", "ids_to", "active_micro", "future_micro", "row_count", "archived_at")

#: each pool's sums of one month of the log (``id >= low AND id < high``: that month's partition, read once, whole)
CARRY_CONTRIBUTIONS = register(
    "jackpots.carry_contributions",
    """WITH carried AS (
    INSERT INTO jackpots_carriedcontributions (jackpot_id, month, ids_from, ids_to, active_micro, future_micro,
                                               row_count, archived_at)
    SELECT c.jackpot_id, %(month)s, %(low)s, %(high)s, sum(c.active_micro),
           sum(c.future_micro), count(*), %(at)s
    FROM jackpots_contribution c WHERE c.id >= %(low)s AND c.id < %(high)s GROUP BY c.jackpot_id
    RETURNING row_count
)
SELECT count(*), COALESCE(sum(row_count), 0) FROM carried""",
    columns={C: ("id", "jackpot_id", "active_micro", "future_micro"), CC: _CARRIED},
    inserts=(CC,),
    params={"month": date, "low": int, "high": int, "at": datetime},
)


def carry_contributions(*, month: date, low: int, high: int, at: datetime) -> tuple[int, int]:
    """Run :data:`CARRY_CONTRIBUTIONS`: (pools carried, contribution rows)."""
    with connection.cursor() as cur:
        execute(cur, CARRY_CONTRIBUTIONS, {"month": month, "low": low, "high": high, "at": at})
        pools, rows = cur.fetchone()
    return int(pools), int(rows)
