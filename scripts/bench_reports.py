"""How long the report job takes for one operating day of N rounds (default 1,000,000), printed, not asserted.

    createdb -h 127.0.0.1 -U postgres reports_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/reports_bench .venv/bin/python scripts/bench_reports.py

Run it against a database of its own: it migrates it, and (once) inserts N settled real-money rounds of two games
spread over one Prague day (``INSERT ... SELECT generate_series``, table names from the models), each with its stake
and win ledger transactions and their entries (the account balances are not moved: a bench database only), then
ANALYZEs. It then times ``reports_compute_day`` for that day (twice: the first run
reads the day from disk, the second from the cache) and the streamed writing of the day's regulator's record
(``--seal`` also seals it; the seal parses the whole file, see docs/reports.md).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

DAY = date(2026, 1, 15)


def _load(n: int) -> None:
    from django.db import transaction

    from accounts.demo_people import make_player
    from games.models import Game, Round
    from games.services import games_sync
    from reports.services import day_range
    from wallet.ledger import operator_account
    from wallet.models import Entry, LedgerAccount, LedgerTransaction
    from wallet.services import wallet_lock

    start, end = day_range(DAY)
    rounds, txns, entries = Round._meta.db_table, LedgerTransaction._meta.db_table, Entry._meta.db_table
    accounts = LedgerAccount._meta.db_table
    t0 = time.perf_counter()
    if not Round.objects.filter(idempotency_key__startswith="rbench-").exists():
        games_sync()
        games = list(Game.objects.filter(code__in=["european_roulette", "kobushi"], current=True).order_by("code"))
        players = [make_player(personal=False).pk for _ in range(200)]
        with connection.cursor() as cur:
            cur.execute(
                f"""
                INSERT INTO {rounds} (player_id, game_id, game_code, game_version, play_money, forced_outcome,
                    forced_draws_left, idempotency_key, status, bet_request, bet_params, stake, currency, draws,
                    actions, state, win_engine, win, jackpot_win, win_capped, jackpot_events, void_reason,
                    void_detail, started_at, last_activity_at, settled_at, deadline)
                SELECT p.players[1 + (g - 1) %% cardinality(p.players)],
                       CASE WHEN g %% 2 = 0 THEN %(g1)s ELSE %(g2)s END,
                       CASE WHEN g %% 2 = 0 THEN %(c1)s ELSE %(c2)s END,
                       CASE WHEN g %% 2 = 0 THEN %(v1)s ELSE %(v2)s END, false, false, '[]'::jsonb, 'rbench-' || g,
                       'finished', '{{}}'::jsonb, '{{}}'::jsonb, 100 + 50 * (g %% 3), 'CZK', '[]'::jsonb, '[]'::jsonb,
                       '{{}}'::jsonb, w.win, w.win, 0, false, '[]'::jsonb, '', '', t.t, t.t, t.t,
                       t.t + interval '90 days'
                FROM generate_series(1, %(n)s) AS g
                CROSS JOIN (SELECT %(players)s::bigint[] AS players) AS p
                CROSS JOIN LATERAL (SELECT %(start)s + ((g - 1)::float8 / %(n)s) * (%(end)s - %(start)s) AS t) AS t
                CROSS JOIN LATERAL (SELECT CASE WHEN (g * 7) %% 37 BETWEEN 1 AND 18 THEN 2 * (100 + 50 * (g %% 3))
                                                ELSE 0 END AS win) AS w
                ORDER BY g""",
                {
                    "n": n,
                    "players": players,
                    "start": start,
                    "end": end,
                    "g1": games[0].pk,
                    "c1": games[0].code,
                    "v1": games[0].version,
                    "g2": games[1].pk,
                    "c2": games[1].code,
                    "v2": games[1].version,
                },
            )
        print(f"loaded {n:,} rounds in {time.perf_counter() - t0:.1f} s")
    if not LedgerTransaction.objects.filter(actor_label="bench").exists():
        from accounts.models import Player

        t0 = time.perf_counter()
        ids = Round.objects.filter(idempotency_key__startswith="rbench-").values_list("player_id", flat=True).distinct()
        for player in Player.objects.filter(pk__in=list(ids)):
            with transaction.atomic():
                wallet_lock(player=player)  # creates the player's wallet and ledger accounts (first use)
        house = operator_account("house").pk
        with transaction.atomic(), connection.cursor() as cur:  # the ledger's deferred triggers check at commit
            cur.execute(f"""
                INSERT INTO {txns} (kind, reference, player_id, amount, currency, memo, created_at, actor_label)
                SELECT k.kind, 'games:round:' || r.id || ':' || k.kind, r.player_id,
                       CASE WHEN k.kind = 'stake' THEN r.stake ELSE r.win END, 'CZK', '',
                       CASE WHEN k.kind = 'stake' THEN r.started_at ELSE r.settled_at END, 'bench'
                FROM {rounds} r CROSS JOIN (VALUES (1, 'stake'), (2, 'win')) AS k(o, kind)
                WHERE r.idempotency_key LIKE 'rbench-%%' AND (k.kind = 'stake' OR r.win > 0) ORDER BY r.id, k.o""")
            cur.execute(
                f"""
                INSERT INTO {entries} (transaction_id, account_id, amount, balance_after, created_at)
                SELECT t.id, a.id, CASE WHEN t.kind = 'stake' THEN -t.amount ELSE t.amount END, NULL::bigint,
                       t.created_at
                FROM {txns} t JOIN {accounts} a ON a.player_id = t.player_id AND a.kind = 'player_main'
                WHERE t.actor_label = 'bench'
                UNION ALL
                SELECT t.id, %(house)s, CASE WHEN t.kind = 'stake' THEN t.amount ELSE -t.amount END, NULL::bigint,
                       t.created_at
                FROM {txns} t WHERE t.actor_label = 'bench'""",
                {"house": house},
            )
        print(
            f"loaded the rounds' ledger transactions and entries in {time.perf_counter() - t0:.1f} s "
            f"(balances not moved: a bench database only)"
        )
    with connection.cursor() as cur:
        for table in (rounds, txns, entries):
            cur.execute(f"ANALYZE {table}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seal", action="store_true", help="also seal the record (parses the whole file)")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    _load(args.rounds)
    from reports import record, seal
    from reports.services import reports_compute_day

    for label in ("first run", "second run"):
        t0 = time.perf_counter()
        rep = reports_compute_day(day=DAY)
        print(
            f"reports_compute_day {DAY} ({label}): {time.perf_counter() - t0:.2f} s for {rep.rounds:,} rounds "
            f"(stakes {rep.stakes}, wins {rep.wins}, GGR {rep.ggr} h, ledger agrees: {rep.ledger_agrees})"
        )
    folder = Path(tempfile.mkdtemp(prefix="bench-record-"))
    t0 = time.perf_counter()
    written = record.record_write(day=DAY, path=folder / "unsigned.xml")
    size = (folder / "unsigned.xml").stat().st_size
    print(
        f"record_write {DAY}: {time.perf_counter() - t0:.2f} s, {written.counts['Round']:,} rounds, "
        f"{size / 1e6:.0f} MB (streamed)"
    )
    if args.seal:
        t0 = time.perf_counter()
        seal.seal(unsigned=folder / "unsigned.xml", sealed=folder / "sealed.xml")
        print(f"seal: {time.perf_counter() - t0:.2f} s")
    for f in folder.iterdir():
        f.unlink()
    folder.rmdir()


if __name__ == "__main__":
    main()
