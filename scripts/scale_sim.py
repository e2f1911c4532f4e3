"""The size of 10^8 rounds, from measured row widths (docs/scaling.md, "What 10^8 rounds weigh").

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres .venv/bin/python scripts/scale_sim.py [--sample 20000]

Not a wall-clock run of 10^8 rounds: a database of its own (``scale_sim``, dropped first and afterwards) is
migrated (the partitioned tables), ``--sample`` settled rounds are loaded with everything a round writes
(``scripts/bench_data.py``: the round, its ledger transactions and entries, the settled bet, the audit event), plus
one jackpot contribution per pool a round feeds (Kobushi: its two pools and the three central levels; roulette: the
three levels); then per table the rows per round and the bytes per row (heap with TOAST, indexes: the sum of
``pg_total_relation_size`` over the partitions, and ``avg(pg_column_size(row))`` for the data alone) are measured,
and the rows, bytes and monthly partition sizes are computed for ``--rounds`` rounds at ``--per-month`` a month.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "scripts")]
DB = "scale_sim"

#: the tables a settled round writes to, and the claim tables that keep their uniqueness (core/partitioning.py)
TABLES = (
    "games_round",
    "wallet_ledgertransaction",
    "wallet_entry",
    "limits_settledbet",
    "core_auditevent",
    "jackpots_contribution",
    "games_round_unique_player_key_claim",
    "wallet_txn_unique_kind_reference_claim",
    "limits_settledbet_unique_ref_claim",
)

CONTRIBUTIONS_SQL = """
INSERT INTO jackpots_contribution (jackpot_id, round_id, reversal, player_id, basis_amount, active_micro,
                                   future_micro, created_at, fold_id)
SELECT j.id, r.id, false, r.player_id, r.stake, r.stake * 7000, r.stake * 3000, r.started_at, NULL
FROM games_round r JOIN jackpots_jackpot j
  ON j.code LIKE 'central-%%' OR (r.game_code = 'kobushi' AND j.code LIKE 'kobushi-%%')
"""


def _url(database: str) -> str:
    p = urlsplit(os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/postgres")
    return urlunsplit((p.scheme, p.netloc, f"/{database}", p.query, p.fragment))


def _psql(sql: str) -> None:
    subprocess.run(["psql", _url("postgres"), "-q", "-c", sql], check=True, capture_output=True)


def measure(sample: int) -> tuple[int, dict[str, dict[str, float]]]:
    env = {**os.environ, "DATABASE_URL": _url(DB), "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "0"}
    out = subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput"], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if out.returncode:
        raise RuntimeError(out.stderr[-3000:])
    os.environ.update({k: env[k] for k in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE", "DEBUG")})
    import io

    import django

    django.setup()
    import bench_data
    from django.db import connection

    from core.audit import Actor
    from games.demo import demo_approvals
    from jackpots.demo import seed as jackpots_seed

    jackpots_seed(io.StringIO())
    demo_approvals(actor=Actor.system("scale_sim"))
    players = bench_data.players_create(
        200, fund=10_000_000, daily_stake=5_000_000, daily_loss=2_000_000, say=lambda _s: None
    )
    with connection.cursor() as cur:  # the set-up's own rows (the players' funding, its audit) are not a round's
        before = {}
        for table in TABLES:
            cur.execute(f"SELECT count(*) FROM {table}")
            before[table] = int(cur.fetchone()[0])
    bench_data.history_load(
        player_ids=[p.player_id for p in players],
        rounds=sample,
        fund=10_000_000,
        roulette="european_roulette",
        kobushi="kobushi",
        say=lambda _s: None,
    )
    from core.partitioning import claims_refill

    claims_refill(connection)  # the bulk load runs without triggers: the claims its rows would have written
    figures: dict[str, dict[str, float]] = {}
    with connection.cursor() as cur:
        cur.execute(CONTRIBUTIONS_SQL)
        cur.execute("SELECT count(*) FROM games_round WHERE idempotency_key LIKE 'hist-%%'")
        rounds = int(cur.fetchone()[0])
        for table in TABLES:
            cur.execute(f"VACUUM ANALYZE {table}")
            cur.execute(f"SELECT count(*), coalesce(avg(pg_column_size(t.*)), 0) FROM {table} t")
            rows, data = cur.fetchone()
            cur.execute(
                """SELECT coalesce(sum(pg_table_size(relid)), 0), coalesce(sum(pg_indexes_size(relid)), 0)
                           FROM pg_partition_tree(%s::regclass) WHERE isleaf""",
                [table],
            )
            heap, indexes = cur.fetchone()
            if not heap:  # not partitioned (a claim table)
                cur.execute("SELECT pg_table_size(%s::regclass), pg_indexes_size(%s::regclass)", [table, table])
                heap, indexes = cur.fetchone()
            figures[table] = {
                "rows": int(rows),
                "of_rounds": int(rows) - before[table],
                "data": float(data),
                "heap": float(heap),
                "indexes": float(indexes),
            }
    connection.close()
    return rounds, figures


def gib(n: float) -> str:
    return f"{n / 2**30:,.1f}"


def report(rounds: int, figures: dict[str, dict[str, float]], total: int, per_month: int, months_kept: int) -> str:
    lines = [
        f"sample: {rounds:,} settled rounds (half roulette, half Kobushi); {total:,} rounds at {per_month:,} a "
        f"month ({per_month / (30 * 86400):,.1f} rounds/s on average); {months_kept} monthly partitions kept",
        "",
        "| table | rows per round | data bytes/row | heap+TOAST bytes/row | index bytes/row | rows for "
        f"{total:.0e} rounds | GiB for {total:.0e} | one month's partition, GiB | {months_kept} months, GiB |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    sums = [0.0, 0.0, 0.0]
    for table, f in figures.items():
        if not f["rows"]:
            continue
        per_round = f["of_rounds"] / rounds
        per_row = (f["heap"] + f["indexes"]) / f["rows"]
        rows_total = per_round * total
        size_total = rows_total * per_row
        month = per_round * per_month * per_row
        sums[0] += size_total
        sums[1] += month
        sums[2] += month * months_kept
        lines.append(
            f"| {table} | {per_round:.2f} | {f['data']:.0f} | {f['heap'] / f['rows']:.0f} | "
            f"{f['indexes'] / f['rows']:.0f} | {rows_total:,.0f} | {gib(size_total)} | {gib(month)} | "
            f"{gib(month * months_kept)} |"
        )
    lines.append(f"| **all** | | | | | | **{gib(sums[0])}** | **{gib(sums[1])}** | **{gib(sums[2])}** |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    p.add_argument("--sample", type=int, default=20_000, help="settled rounds generated to measure the rows")
    p.add_argument("--rounds", type=int, default=10**8)
    p.add_argument("--per-month", type=int, default=10**8, help="rounds a month (the partition size)")
    p.add_argument("--months-kept", type=int, default=60, help="monthly partitions kept live (retention)")
    a = p.parse_args(argv)
    os.chdir(ROOT)
    _psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    _psql(f"CREATE DATABASE {DB}")
    try:
        rounds, figures = measure(a.sample)
    finally:
        _psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
    print(report(rounds, figures, a.rounds, a.per_month, a.months_kept))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
