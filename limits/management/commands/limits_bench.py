"""Benchmark: the stake check costs the same with 10 or 1,000,000 settled rounds of history.

Two players get the same seven self-limits; one gets 10 settled bets of history, the other 1,000,000
(inserted with one INSERT ... SELECT over generate_series, spread over the last 400 days, with their day and
month counters built from the same rows so the counters reconcile). Each player's stake_gate_and_place is then timed
many times, each inside a savepoint rolled back afterwards (so history stays as inserted), under the same
lock a caller holds. Everything runs in one transaction rolled back at the end: the database is left as found.

    manage.py limits_bench [--rounds 1000000] [--repeat 300]

Not a test: timings depend on the machine; the figures to compare are the two medians and the query counts.
"""

from __future__ import annotations

import statistics
import time
from datetime import datetime, timedelta
from typing import Any

from django.core.management.base import CommandParser
from django.db import connection, reset_queries, transaction
from django.test.utils import CaptureQueriesContext

from accounts.demo_people import make_player
from accounts.models import Player
from core import clock
from core.audit import Actor
from core.management.development import DevelopmentOnlyCommand
from core.money import Money
from limits.models import LimitType
from limits.reconcile import reconcile
from limits.services import self_limits_decide, stake_gate_and_place, stake_settled


class _Rollback(Exception):
    pass


class Command(DevelopmentOnlyCommand):
    help = "Time limits.services.stake_gate_and_place with 10 vs N rounds of history (default 1,000,000)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--rounds", type=int, default=1_000_000)
        parser.add_argument("--small", type=int, default=10)
        parser.add_argument("--repeat", type=int, default=300)
        parser.add_argument("--explain", action="store_true", help="print the query plans of the big player's check")

    def handle(self, *args: Any, **opts: Any) -> None:
        try:
            with transaction.atomic():
                self._run(opts)
                raise _Rollback
        except _Rollback:
            self.stdout.write("(everything rolled back)")

    @staticmethod
    def _sessions(n: int) -> int:
        return 1 if n < 100 else 400 * 4

    def _history(self, player: Player, n: int, now: datetime) -> float:
        started = time.perf_counter()
        with connection.cursor() as cur:
            # n bets over the last 400 days (never within the last 2 hours), 1-second rounds.
            cur.execute(
                """
                INSERT INTO limits_settledbet
                    (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at, settled_at, voided)
                SELECT %(p)s, 'technical', 'bench', '', 100 + (g %% 50) * 10, CASE WHEN g %% 3 = 0 THEN 250 ELSE 0 END,
                       t, t, t + interval '1 second', false
                FROM (SELECT g, %(now)s - interval '2 hours' - (g::float8 / %(n)s) * interval '400 days' AS t
                      FROM generate_series(1, %(n)s) AS g) AS s
                """,
                {"p": player.pk, "n": n, "now": now},
            )
            for period, key in (
                ("day", "(x AT TIME ZONE 'Europe/Prague')::date"),
                ("month", "date_trunc('month', x AT TIME ZONE 'Europe/Prague')::date"),
            ):
                cur.execute(
                    f"""
                    INSERT INTO limits_periodtotal (player_id, kind, period, start, stakes_placed, bets_placed,
                                                    stakes_decided, wins_decided, bets_decided)
                    SELECT player_id, kind, %(period)s, k, SUM(sp), SUM(np), SUM(sd), SUM(wd), SUM(nd) FROM (
                        SELECT player_id, kind, {key.replace("x", "placed_at")} AS k, stake AS sp, 1 AS np,
                               0 AS sd, 0 AS wd, 0 AS nd FROM limits_settledbet WHERE player_id = %(p)s
                        UNION ALL
                        SELECT player_id, kind, {key.replace("x", "settled_at")}, 0, 0, stake, win, 1
                        FROM limits_settledbet WHERE player_id = %(p)s
                    ) AS u GROUP BY player_id, kind, k
                    """,
                    {"period": period, "p": player.pk},
                )
            # login history too (the session limits read it): a heavy player logs in 4 times a day, 20 minutes
            # each, over the same 400 days (the small player once); written straight into accounts' table
            # because this is a rolled-back benchmark only.
            cur.execute(
                """
                INSERT INTO accounts_loginsession (player_id, started_at, last_seen_at, ended_at, end_reason,
                                                   end_detail, user_agent)
                SELECT %(p)s, t, t, t + interval '20 minutes', 'logout', '', 'bench'
                FROM (SELECT %(now)s - interval '3 hours' - (g::float8 / %(k)s) * interval '400 days' AS t
                      FROM generate_series(1, %(k)s) AS g) AS s
                """,
                {"p": player.pk, "k": self._sessions(n), "now": now},
            )
            cur.execute(
                "INSERT INTO accounts_loginsession (player_id, started_at, last_seen_at, end_reason, end_detail, "
                "user_agent) VALUES (%s, %s, %s, '', '', 'bench')",
                [player.pk, now - timedelta(hours=1), now],
            )
            cur.execute("ANALYZE accounts_loginsession")
            cur.execute("ANALYZE limits_settledbet")
            cur.execute("ANALYZE limits_periodtotal")
        return time.perf_counter() - started

    def _one_check(self, player: Player) -> None:
        # the caller's lock (games holds the wallet row; limits may not import wallet, the Player row stands in)
        Player.objects.select_for_update(no_key=True).get(pk=player.pk)
        stake_gate_and_place(
            player=player,
            kind="technical",
            stake=Money(1000),
            game_code="bench",
            game_max_bet=Money(100_000),
            now=clock.now(),
        )

    def _time_checks(self, players: dict[str, Player], repeat: int) -> dict[str, tuple[list[float], int]]:
        """Alternate the players check by check, so load on the machine hits both alike."""
        out: dict[str, tuple[list[float], int]] = {}
        for label, player in players.items():  # query count, and a warm-up
            sid = transaction.savepoint()
            reset_queries()
            with CaptureQueriesContext(connection) as ctx:
                self._one_check(player)
            out[label] = ([], len(ctx.captured_queries))
            transaction.savepoint_rollback(sid)
        for _ in range(repeat):
            for label, player in players.items():
                sid = transaction.savepoint()
                t0 = time.perf_counter()
                self._one_check(player)
                out[label][0].append(time.perf_counter() - t0)
                transaction.savepoint_rollback(sid)
        return out

    def _explain(self, player: Player) -> None:
        sid = transaction.savepoint()
        reset_queries()
        with CaptureQueriesContext(connection) as ctx:
            self._one_check(player)
        transaction.savepoint_rollback(sid)
        with connection.cursor() as cur:
            for q in ctx.captured_queries:
                sql = q["sql"]
                if not sql.lstrip().upper().startswith("SELECT"):
                    continue
                cur.execute("EXPLAIN (ANALYZE, BUFFERS OFF, TIMING OFF, SUMMARY OFF) " + sql.split(" FOR ")[0])
                plan = [r[0] for r in cur.fetchall()]
                self.stdout.write(sql[:160])
                for line in plan:
                    self.stdout.write("    " + line)

    def _naive_sum(self, player: Player) -> float:
        """What a sum over the whole history would cost (the design this app avoids)."""
        day_start, _ = clock.day_bounds()
        t0 = time.perf_counter()
        with connection.cursor() as cur:
            cur.execute("SELECT COALESCE(SUM(stake), 0) FROM limits_settledbet WHERE player_id = %s", [player.pk])
            cur.fetchone()
        return time.perf_counter() - t0

    def _run(self, opts: dict[str, Any]) -> None:
        now = clock.now()
        big_n, small_n, repeat = opts["rounds"], opts["small"], opts["repeat"]
        players: dict[str, Player] = {}
        for label in ("small", "big"):
            p = make_player(status="active", username=f"bench_{label}_{int(now.timestamp())}")
            self_limits_decide(
                player=p,
                kind="technical",
                actor=Actor.system("limits_bench"),
                now=now - timedelta(days=500),
                decisions={
                    LimitType.DAILY_STAKE: 10**11,
                    LimitType.MONTHLY_STAKE: 10**11,
                    LimitType.DAILY_LOSS: 10**11,
                    LimitType.MONTHLY_LOSS: 10**11,
                    LimitType.MONTHLY_LOGINS: 100_000,
                    LimitType.DAILY_TIME: 1440,
                    LimitType.PAUSE_AFTER_LOGOUT: 1,
                },
            )
            players[label] = p
        for label, n in (("small", small_n), ("big", big_n)):
            secs = self._history(players[label], n, now)
            self.stdout.write(
                f"inserted {n:>9,} settled bets + counters and {self._sessions(n):>5,} login sessions "
                f"for the {label} player in {secs:.1f} s"
            )
        # Some play in the last hour for both (minute buckets in use).
        for label in ("small", "big"):
            for k in range(30):
                t = now - timedelta(minutes=59 - 2 * k)
                stake_settled(
                    player=players[label],
                    kind="technical",
                    stake=Money(500),
                    win=Money(200 if k % 2 else 0),
                    started_at=t,
                    settled_at=t + timedelta(seconds=3),
                )
        results = self._time_checks(players, repeat)
        if opts["explain"]:
            self._explain(players["big"])
        self.stdout.write("")
        self.stdout.write(
            f"stake_gate_and_place, {repeat} runs each (allowed path, all seven self-limits set, hourly cap on):"
        )
        for label, n in (("small", small_n), ("big", big_n)):
            times, queries = results[label]
            ms = sorted(t * 1000 for t in times)
            self.stdout.write(
                f"  {n:>9,} rounds of history: median {statistics.median(ms):.3f} ms, "
                f"p95 {ms[int(len(ms) * 0.95) - 1]:.3f} ms, {queries} SQL queries per check"
            )
        ratio = statistics.median(results["big"][0]) / statistics.median(results["small"][0])
        self.stdout.write(f"  ratio big/small (median): {ratio:.2f}")
        self.stdout.write("")
        for label, n in (("small", small_n), ("big", big_n)):
            self.stdout.write(
                f"  for contrast, one SUM over the ledger of {n:>9,} rounds: "
                f"{self._naive_sum(players[label]) * 1000:.1f} ms"
            )
        mism = reconcile(player_ids=[p.pk for p in players.values()])
        self.stdout.write(
            f"  reconciliation of the bench players' counters with the ledger: "
            f"{'OK' if not mism else f'{len(mism)} differences'}"
        )
