"""How long one 8-hour remote-access package of N rounds (default 1,000,000) takes to write, and in how much memory:
printed, not asserted.

    createdb -h 127.0.0.1 -U postgres regulator_bench
    DATABASE_URL=postgres://postgres@127.0.0.1:5432/regulator_bench .venv/bin/python scripts/bench_regulator.py

Run it against a database of its own: it migrates it and (once) inserts N settled real-money rounds of two games
spread over the period 2026-01-15 08:00-16:00 Prague (``INSERT ... SELECT generate_series``), each with its stake
and win ledger postings and their entries (balances not moved: a bench database only), then ANALYZEs. It then
writes the period's 16 data files (``regulator.services.write_files``: rows streamed through server-side cursors),
validates them (``regulator.validator``), and with ``--seal`` zips, encrypts and seals them with throw-away test
certificates. Peak memory is the process's maximum resident set size (``ru_maxrss``) after each step.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402

PERIOD = "2026011508"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _load(n: int) -> None:
    from accounts.demo_people import make_player
    from games.models import Game, Round
    from games.services import games_sync
    from regulator.wire import Period
    from wallet.ledger import operator_account
    from wallet.models import Entry, LedgerAccount, LedgerTransaction
    from wallet.services import wallet_lock

    period = Period.parse(PERIOD)
    start, end = period.start, period.end
    rounds, txns, entries = Round._meta.db_table, LedgerTransaction._meta.db_table, Entry._meta.db_table
    accounts = LedgerAccount._meta.db_table
    if not Round.objects.filter(idempotency_key__startswith="gbench-").exists():
        t0 = time.perf_counter()
        games_sync()
        games = list(Game.objects.filter(code__in=["european_roulette", "kobushi"], current=True).order_by("code"))
        Game.objects.filter(pk__in=[g.pk for g in games]).update(
            approval_state="approved", approved_at=start, approval_plan_version="bench", approval_reference="BENCH"
        )
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
                       CASE WHEN g %% 2 = 0 THEN %(v1)s ELSE %(v2)s END, false, false, '[]'::jsonb, 'gbench-' || g,
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
        print(f"loaded {n:,} rounds in {time.perf_counter() - t0:.1f} s", flush=True)
    if not LedgerTransaction.objects.filter(actor_label="gbench").exists():
        from accounts.models import Player

        t0 = time.perf_counter()
        ids = Round.objects.filter(idempotency_key__startswith="gbench-").values_list("player_id", flat=True).distinct()
        for player in Player.objects.filter(pk__in=list(ids)):
            with transaction.atomic():
                wallet_lock(player=player)
        house = operator_account("house").pk
        with transaction.atomic(), connection.cursor() as cur:
            cur.execute(f"""
                INSERT INTO {txns} (kind, reference, player_id, amount, currency, memo, created_at, actor_label)
                SELECT k.kind, 'games:round:' || r.id || ':' || k.kind, r.player_id,
                       CASE WHEN k.kind = 'stake' THEN r.stake ELSE r.win END, 'CZK', '',
                       CASE WHEN k.kind = 'stake' THEN r.started_at ELSE r.settled_at END, 'gbench'
                FROM {rounds} r CROSS JOIN (VALUES (1, 'stake'), (2, 'win')) AS k(o, kind)
                WHERE r.idempotency_key LIKE 'gbench-%%' AND (k.kind = 'stake' OR r.win > 0) ORDER BY r.id, k.o""")
            cur.execute(
                f"""
                INSERT INTO {entries} (transaction_id, account_id, amount, balance_after, created_at)
                SELECT t.id, a.id, CASE WHEN t.kind = 'stake' THEN -t.amount ELSE t.amount END, NULL::bigint,
                       t.created_at
                FROM {txns} t JOIN {accounts} a ON a.player_id = t.player_id AND a.kind = 'player_main'
                WHERE t.actor_label = 'gbench'
                UNION ALL
                SELECT t.id, %(house)s, CASE WHEN t.kind = 'stake' THEN t.amount ELSE -t.amount END, NULL::bigint,
                       t.created_at
                FROM {txns} t WHERE t.actor_label = 'gbench'""",
                {"house": house},
            )
        print(f"loaded the ledger postings and entries in {time.perf_counter() - t0:.1f} s", flush=True)
    with connection.cursor() as cur:
        for table in (rounds, txns, entries):
            cur.execute(f"ANALYZE {table}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=1_000_000)
    parser.add_argument("--seal", action="store_true", help="also zip, encrypt and seal (test certificates)")
    args = parser.parse_args()
    call_command("migrate", verbosity=0)
    _load(args.rounds)
    from regulator import services, validator
    from regulator.wire import Period

    print(f"peak RSS after loading: {_rss_mb():.0f} MB", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-regulator-") as tmp:
        t0 = time.perf_counter()
        written = services.write_files(Period.parse(PERIOD), 1, Path(tmp, "csv"))
        size = sum(f.stat().st_size for f in written.folder.iterdir())
        print(
            f"write_files {PERIOD}: {time.perf_counter() - t0:.1f} s, hra_toky {written.counts['hra_toky.csv']:,} "
            f"records, {size / 1e6:.0f} MB of CSV, peak RSS {_rss_mb():.0f} MB",
            flush=True,
        )
        t0 = time.perf_counter()
        report = validator.validate_folder(written.folder, written.name)
        print(
            f"validate: {time.perf_counter() - t0:.1f} s, {len(report.errors)} errors, peak RSS {_rss_mb():.0f} MB",
            flush=True,
        )
        if args.seal:
            from tests.kit.regulator import make_pki

            pki = make_pki(Path(tmp, "pki"))
            settings.REGULATOR_SEAL_P12, settings.REGULATOR_SEAL_P12_PASSWORD = str(pki.seal_p12), pki.seal_password
            settings.REGULATOR_MINISTRY_ENCRYPTION_CERTS = [str(pki.ministry_cert)]
            t0 = time.perf_counter()
            sealed = services.seal_package(written, Path(tmp, "out"))
            print(
                f"zip + encrypt + seal: {time.perf_counter() - t0:.1f} s, {sealed.stat().st_size / 1e6:.1f} MB, "
                f"peak RSS {_rss_mb():.0f} MB (openssl runs in its own process)",
                flush=True,
            )


if __name__ == "__main__":
    main()
