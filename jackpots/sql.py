"""The jackpots' hot statements, built from the models (see core/sql.py).

* :data:`CONTRIBUTE`: a round's contributions to its levels (``unnest`` of one row per level) and the live value
  of every level whose trigger needs it, in ONE statement, without a lock on the pool rows (a spin that wins
  nothing never waits for another player's).
* :data:`LIVE`: the status, run and live value of one level (the folded pot plus its pending rows), no lock.
* :data:`FOLD`: the committed pending rows of a level moved into the permanent log, each exactly once (``DELETE
  ... RETURNING`` into ``INSERT``), in ONE statement that waits on no spin.
* :data:`CARRY_CONTRIBUTIONS`: an archived month of the log carried forward per pool (``jackpots.carry``, the hook
  of ``core.partitions_archive``), not on the round path.

Pinned by ``games/tests/platform/test_round_cost.py`` (one jackpot statement per round), the jackpots tests,
``jackpot_check`` (value = folded contributions + seeds - awards + returns) and ``tests/test_sql_contracts.py``.
"""
from __future__ import annotations

from datetime import date, datetime

from django.db import connection

from core.sql import attnames, col, cols, execute, register, table
from jackpots.models import CarriedContributions, Contribution, Jackpot, Pending

J, PD, C, CC = Jackpot, Pending, Contribution, CarriedContributions
_ROW = ("jackpot_id", "round_id", "reversal", "player_id", "basis_amount", "active_micro", "future_micro",
        "created_at")


def _live_value(alias: str) -> str:
    return (f"{alias}.{col(J, 'amount_micro')} + COALESCE((SELECT sum(p.{col(PD, 'active_micro')}) "
            f"FROM {table(PD)} p WHERE p.{col(PD, 'jackpot')} = {alias}.id), 0)")


CONTRIBUTE = register(
    "jackpots.contribute",
    f"""WITH ins AS (
    INSERT INTO {table(PD)} ({cols(PD, _ROW)})
    SELECT t.j, %(round)s, false, %(player)s, t.b, t.a, t.f, %(now)s
    FROM unnest(%(j)s::bigint[], %(b)s::bigint[], %(a)s::bigint[], %(f)s::bigint[]) AS t(j, b, a, f)
    RETURNING {cols(PD, ('jackpot_id', 'active_micro'))}
)
SELECT j.id, j.{col(J, 'generation')}, j.{col(J, 'status')}, {_live_value('j')}
       + COALESCE((SELECT sum(i.{col(PD, 'active_micro')}) FROM ins i WHERE i.{col(PD, 'jackpot')} = j.id), 0)
FROM {table(J)} j WHERE j.id = ANY(%(check)s::bigint[])""",
    columns={PD: _ROW, J: ("id", "generation", "status", "amount_micro")}, inserts=(PD,),
    params={"round": int, "player": int, "now": datetime, "j": list, "b": list, "a": list, "f": list, "check": list},
)


def contribute(*, round_id: int, player_id: int, now: datetime, rows: list[tuple[int, int, int, int]],
               check: list[int]) -> list[tuple[int, int, str, int]]:
    """Run :data:`CONTRIBUTE` with ``rows`` (level id, basis, active, future): (level id, run, status, live value)
    of each level in ``check``."""
    with connection.cursor() as cur:
        execute(cur, CONTRIBUTE, {"round": round_id, "player": player_id, "now": now,
                                     "j": [r[0] for r in rows], "b": [r[1] for r in rows],
                                     "a": [r[2] for r in rows], "f": [r[3] for r in rows], "check": check})
        return [(int(i), int(gen), str(status), int(value)) for i, gen, status, value in cur.fetchall()]


LIVE = register(
    "jackpots.live",
    f"SELECT j.{col(J, 'status')}, j.{col(J, 'generation')}, {_live_value('j')} FROM {table(J)} j "
    "WHERE j.id = %(level)s",
    columns={J: ("id", "status", "generation", "amount_micro"), PD: ("jackpot_id", "active_micro")},
    params={"level": int},
)


def live(level_id: int) -> tuple[str, int, int]:
    with connection.cursor() as cur:
        execute(cur, LIVE, {"level": level_id})
        status, generation, value = cur.fetchone()
    return str(status), int(generation), int(value)


_LOG = attnames(C, exclude=("id",))

FOLD = register(
    "jackpots.fold",
    f"""WITH moved AS (
    DELETE FROM {table(PD)} WHERE {col(PD, 'jackpot')} = %(jackpot)s RETURNING {cols(PD, _ROW)}
), logged AS (
    INSERT INTO {table(C)} ({cols(C, _LOG)})
    SELECT {", ".join(f'"{col(PD, n)}"' if n != "fold_id" else "%(fold)s" for n in _LOG)}
    FROM moved RETURNING {cols(C, ('active_micro', 'future_micro'))}
)
SELECT count(*), COALESCE(sum({col(C, 'active_micro')}), 0), COALESCE(sum({col(C, 'future_micro')}), 0) FROM logged""",
    columns={PD: _ROW, C: _LOG}, inserts=(C,), params={"jackpot": int, "fold": int},
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
    f"""WITH carried AS (
    INSERT INTO {table(CC)} ({cols(CC, _CARRIED)})
    SELECT c.{col(C, 'jackpot')}, %(month)s, %(low)s, %(high)s, sum(c.{col(C, 'active_micro')}),
           sum(c.{col(C, 'future_micro')}), count(*), %(at)s
    FROM {table(C)} c WHERE c.id >= %(low)s AND c.id < %(high)s GROUP BY c.{col(C, 'jackpot')}
    RETURNING {col(CC, 'row_count')}
)
SELECT count(*), COALESCE(sum({col(CC, 'row_count')}), 0) FROM carried""",
    columns={C: ("id", "jackpot_id", "active_micro", "future_micro"), CC: _CARRIED}, inserts=(CC,),
    params={"month": date, "low": int, "high": int, "at": datetime},
)


def carry_contributions(*, month: date, low: int, high: int, at: datetime) -> tuple[int, int]:
    """Run :data:`CARRY_CONTRIBUTIONS`: (pools carried, contribution rows)."""
    with connection.cursor() as cur:
        execute(cur, CARRY_CONTRIBUTIONS, {"month": month, "low": low, "high": high, "at": at})
        pools, rows = cur.fetchone()
    return int(pools), int(rows)
