"""A primary that can die: a three-member Patroni cluster (its own etcd, synchronous replication,
``scripts/ha_cluster.py``) on loopback ports, the platform migrated onto it, a real gunicorn (the project's config,
``CONN_MAX_AGE`` 60 s with health checks) reaching it through libpq's multi-host URL
(``target_session_attrs=read-write``), the bench's engine rounds as load (``scripts/ha_load.py``), and the primary's
postmaster SIGKILLed mid-load.

It shows:
- failover: a new primary accepts writes within ``FAILOVER_LIMIT`` seconds of the kill (measured and printed);
- every round the client saw acknowledged (201) is in the database exactly once, under its key and its id; no round
  exists that the client did not ask for; a request whose answer was lost is sent again with its Idempotency-Key and
  gets the same round (a replay) or the round played once, and rounds acknowledged before the kill, sent again with
  their keys to the new primary, are answered as replays of the same round; no answer was a 500 (a request caught
  by the kill is a 503 ``server.unavailable``, and its retry tells the truth);
- no round or posting half-written: each round has its stake posted once, a finished round its settlement and its
  win posted once, its settled bet once, and no stake or win posting is without its round;
- ``ledger_check``, ``limits_reconcile`` and ``jackpot_check`` clean on the new primary;
- the load goes on on the new primary (rounds asked for and acknowledged after the failover > 0, the first within
  ``RECOVERY_LIMIT`` of the kill); a real Celery worker that ran a task on the old primary runs the next one on the
  new primary (``core.heartbeat`` writes its row); the old primary rejoins as a replica (Patroni's pg_rewind), so
  the cluster is whole again.

Skipped with its reason only where Patroni, etcd or the PostgreSQL server binaries are missing (``make ha-deps``
installs them as root; CI runs it first).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.faults.harness import Gunicorn, Worker, _transport_options, request

SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
sys.path.insert(0, str(SCRIPTS))

import ha_cluster  # noqa: E402  (scripts/ is not a package)
from bench_load import BETS, ROULETTE  # noqa: E402
from ha_load import FailoverLoad, LoadRecord  # noqa: E402

pytestmark = [
    pytest.mark.process,
    pytest.mark.faults,
    pytest.mark.skipif(ha_cluster.missing() is not None, reason=str(ha_cluster.missing())),
]

DATABASE = "platform_ha"
PLAYERS, CONNECTIONS, WORKERS = 120, 8, 3
WARM_SECONDS = 8.0  # load before the kill
AFTER_ROUNDS = 40  # first-attempt rounds acknowledged after the failover before the load stops
FAILOVER_LIMIT = 30.0  # seconds from the SIGKILL to a writable new primary (loop_wait 1 s: measured 2.4-3.3 s)
RECOVERY_LIMIT = 45.0  # seconds from the SIGKILL to the first new round acknowledged (measured 2.9-8.3 s)
REJOIN_LIMIT = 90.0
BROKER = "filesystem://"  # the worker's broker: a folder of the test's own


def _manage(env: dict[str, str], *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=SCRIPTS.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def _writable_elsewhere(url: str, killed_port: int) -> bool:
    """A member other than the killed one accepts a write through the multi-host URL."""
    try:
        # psycopg 3's connection block closes the connection at its end
        with psycopg.connect(url.replace("connect_timeout=2", "connect_timeout=1")) as conn, conn.cursor() as cur:
            cur.execute("SELECT NOT pg_is_in_recovery(), inet_server_port()")
            row = cur.fetchone()
            assert row is not None  # a SELECT without FROM: one row
            writable, port = row
            conn.rollback()
        return bool(writable) and port != killed_port
    except psycopg.Error:
        return False


def _rows(url: str, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
    with psycopg.connect(url) as conn, conn.cursor() as cur:  # closed at the block's end
        cur.execute(sql, params)
        return cur.fetchall()


def _rounds_exactly_once(url: str, record: LoadRecord, player_ids: list[int]) -> dict[str, int]:
    """Every acknowledged round once under its key and id; every round one the client asked for; each whole."""
    rounds = _rows(
        url,
        """SELECT id, player_id, idempotency_key, status, stake, win, jackpot_win,
                                  settled_at IS NOT NULL
                           FROM games_round WHERE player_id = ANY(%s) AND NOT play_money""",
        [player_ids],
    )
    by_key: dict[tuple[int, str], list[tuple[Any, ...]]] = {}
    for row in rounds:
        by_key.setdefault((row[1], row[2]), []).append(row)
    for ack in record.acks:
        found = by_key.get((ack.player_id, ack.key), [])
        assert len(found) == 1, f"acknowledged round {ack} found {len(found)} times"
        assert found[0][0] == ack.round_id, f"acknowledged round {ack} stored as round {found[0][0]}"
    acked_keys = {(a.player_id, a.key) for a in record.acks}
    assert len(acked_keys) == len(record.acks), "one key acknowledged as two rounds"
    unknown = set(by_key) - record.sent_keys
    assert not unknown, f"rounds the client never asked for: {sorted(unknown)[:5]}"
    not_acked = set(by_key) - acked_keys
    assert not_acked <= set(record.unanswered), f"rounds stored but refused to the client: {sorted(not_acked)[:5]}"

    postings = _rows(
        url,
        """SELECT kind, reference, amount FROM wallet_ledgertransaction
                             WHERE player_id = ANY(%s) AND kind IN ('stake', 'win', 'refund')""",
        [player_ids],
    )
    by_ref: dict[tuple[str, str], list[int]] = {}
    jackpot_paid = 0  # a jackpot's award is its own win posting (jackpots.services), not the round's
    for kind, reference, amount in postings:
        if kind == "win" and not reference.startswith("games:round:"):
            jackpot_paid += int(amount)
            continue
        by_ref.setdefault((kind, reference), []).append(int(amount))
    bets = _rows(
        url,
        """SELECT round_ref, count(*) FROM limits_settledbet WHERE player_id = ANY(%s)
                         GROUP BY round_ref""",
        [player_ids],
    )
    bets_by_ref = dict(bets)
    for rid, _player, _key, status, stake, win, jackpot_win, settled in rounds:
        ref = f"games:round:{rid}"
        assert by_ref.pop(("stake", f"{ref}:stake"), None) == [stake], f"round {rid}: its stake not posted once"
        wins = by_ref.pop(("win", f"{ref}:win"), [])
        assert status == "finished" and settled, f"round {rid} {status}: not settled in its one transaction"
        game_win = win - jackpot_win
        assert wins == ([game_win] if game_win else []), f"round {rid}: win {game_win} posted as {wins}"
        assert bets_by_ref.pop(f"{ref}:bet", 0) == 1, f"round {rid}: not one settled bet"
    assert by_ref == {}, f"stake/win/refund postings without their round: {list(by_ref)[:5]}"
    assert bets_by_ref == {}, f"settled bets without their round: {list(bets_by_ref)[:5]}"
    assert jackpot_paid == sum(r[6] for r in rounds), "jackpot awards paid differ from the rounds' jackpot wins"
    return {
        "rounds found": len(rounds),
        "jackpot wins among them": sum(1 for r in rounds if r[6]),
        "stored, never acknowledged (answer lost at the stop)": len(not_acked),
    }


def _replays(port: int, record: LoadRecord, tokens: dict[int, str], killed_at: float, n: int = 20) -> str:
    """Rounds acknowledged on the old primary whose answer the client "lost": sent again with the same key to the
    new primary, each is answered with the same round as a replay (``Idempotent-Replayed``), nothing played again."""
    before = [a for a in record.acks if a.at < killed_at][-n:]
    assert before, "no round acknowledged before the kill"
    for ack in before:
        status, headers, body = request(
            port,
            "POST",
            "/api/v1/games/rounds",
            token=tokens[ack.player_id],
            body={"game": ROULETTE, "bet": BETS[ROULETTE]},
            key=ack.key,
        )
        assert status == 201 and headers.get("idempotent-replayed") == "true", (ack, status, body)
        assert body["id"] == ack.round_id, f"{ack}: replayed as round {body['id']}"
    return f"{len(before)} rounds of the old primary, each the same round as a replay"


def _heartbeat(cluster: ha_cluster.HaCluster, tmp_path: Path, queue: str, timeout: float = 90.0) -> float:
    """A task through the broker to the real worker, which writes its row on whichever member is the primary
    (``core.heartbeat``): seconds until the row says it ran."""
    from config.celery import app

    marker = os.urandom(8).hex()
    cluster.psql(f"INSERT INTO core_taskheartbeat (marker, sent_at, worker) VALUES ('{marker}', now(), '')", DATABASE)
    sent = time.monotonic()
    eager, app.conf.task_always_eager = app.conf.task_always_eager, False  # sent to the worker, not run here
    try:
        with app.connection_for_write(BROKER, transport_options=_transport_options(BROKER, tmp_path)) as conn:
            app.send_task("core.heartbeat", args=[marker], queue=queue, connection=conn)
    finally:
        app.conf.task_always_eager = eager
    while time.monotonic() - sent < timeout:
        if (
            cluster.psql(f"SELECT ran_at IS NOT NULL FROM core_taskheartbeat WHERE marker = '{marker}'", DATABASE)
            == "t"
        ):
            return round(time.monotonic() - sent, 1)
        time.sleep(0.25)
    raise AssertionError(f"the worker did not run the heartbeat within {timeout:.0f} s")


def _checks(env: dict[str, str]) -> dict[str, str]:
    results = {}
    for command in ("ledger_check", "limits_reconcile", "jackpot_check"):
        out = _manage(env, command)
        text = " | ".join(line.strip() for line in (out.stdout + out.stderr).strip().splitlines()[-3:])
        assert out.returncode == 0, f"{command} failed (exit {out.returncode}): {out.stdout}\n{out.stderr}"
        results[command] = text[:300]
    return results


def test_the_primary_killed_mid_load_loses_no_acknowledged_round_and_the_load_goes_on(tmp_path):
    cluster = ha_cluster.HaCluster(strict=os.environ.get("HA_SYNC_STRICT", "1") != "0")
    web: Gunicorn | None = None
    worker: Worker | None = None
    load: FailoverLoad | None = None
    facts: dict[str, Any] = {"synchronous_mode_strict": cluster.strict}
    try:
        t0 = time.monotonic()
        cluster.start()
        cluster.psql(f"CREATE DATABASE {DATABASE}")
        url = cluster.url(DATABASE)
        facts["cluster up (s)"] = round(time.monotonic() - t0, 1)
        facts["cluster"] = cluster.describe()

        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_NAME", "DATABASE_REPLICA_URL", "DATABASE_SIDE_URL", "DATABASE_POOLER")
        }
        env.update({"DATABASE_URL": url, "LOG_LEVEL": "WARNING", "WALLET_SANDBOX_ENABLED": "true"})
        # the set-up's commits do not wait for the standby's flush (hundreds of DDL commits); the load's do: every
        # round's commit waits for the sync standby, and flushes the set-up's WAL before it
        setup_env = {**env, "PGOPTIONS": "-c synchronous_commit=off"}
        t1 = time.monotonic()
        out = _manage(setup_env, "migrate", "--noinput")
        assert out.returncode == 0, out.stderr[-3000:]
        facts["migrated (s)"] = round(time.monotonic() - t1, 1)
        setup = subprocess.run(
            [sys.executable, str(SCRIPTS / "ha_load.py"), "setup", str(PLAYERS)],
            cwd=SCRIPTS.parent,
            env=setup_env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        assert setup.returncode == 0, setup.stderr[-3000:]
        players = [(int(pid), token) for pid, token in json.loads(setup.stdout.strip().splitlines()[-1])]
        facts["players set up (s)"] = round(time.monotonic() - t1 - facts["migrated (s)"], 1)

        web = Gunicorn(tmp_path, workers=WORKERS)
        web.env.pop("DATABASE_NAME", None)  # the cluster's database, not the test database
        web.env.update({"DATABASE_URL": url, "CONN_MAX_AGE": "60", "CONN_HEALTH_CHECKS": "true"})
        queue = f"ha-{os.urandom(5).hex()}"
        worker = Worker(tmp_path, broker=BROKER, queue=queue, concurrency=1)
        worker.env.pop("DATABASE_NAME", None)
        worker.env.update({"DATABASE_URL": url, "CONN_MAX_AGE": "60", "CONN_HEALTH_CHECKS": "true"})
        worker.start()
        web.start()
        facts["worker's task before the kill (s)"] = _heartbeat(cluster, tmp_path, queue)

        load = FailoverLoad(web.port, players, connections=CONNECTIONS).start()
        time.sleep(WARM_SECONDS)
        before = len(load.record.acks)
        assert before > 0, f"no round acknowledged before the kill: {load.record.outcomes}"

        killed = cluster.kill_primary_postmaster()
        killed_at = time.monotonic()
        while not _writable_elsewhere(url, killed.pg_port):
            assert time.monotonic() - killed_at < FAILOVER_LIMIT, f"no writable primary: {cluster.describe()}"
            time.sleep(0.05)
        failover = time.monotonic() - killed_at
        new_leader = cluster.leader()
        facts["failover: SIGKILL to a writable new primary (s)"] = round(failover, 2)

        deadline = time.monotonic() + 60
        while (
            sum(1 for a in load.record.acks if a.started > killed_at + failover) < AFTER_ROUNDS
            and time.monotonic() < deadline
        ):
            time.sleep(0.2)
        first_after = load.first_ack_after(killed_at)
        record = load.stop(timeout=60)
        load = None
        facts["answers lost on purpose, sent again"] = _replays(web.port, record, dict(players), killed_at)
        facts["worker's task after the failover (s)"] = _heartbeat(cluster, tmp_path, queue)
        web.stop()
        worker.stop()
        web_log = web.tail(20000)

        after = [a for a in record.acks if a.started > killed_at + failover]
        facts.update(
            {
                "killed": killed.name,
                "new primary": new_leader.name if new_leader else None,
                "first round asked for after the kill, acknowledged (s after the kill)": round(
                    first_after - killed_at, 2
                )
                if first_after
                else None,
                "rounds acknowledged": len(record.acks),
                "before the kill": before,
                "asked for and acknowledged after the failover": len(after),
                "retried with the same key (attempts)": record.retries,
                "acknowledged after a retry": sum(1 for a in record.acks if a.attempts > 1),
                "of them replays (committed before the answer was lost)": sum(1 for a in record.acks if a.replayed),
                "answers": dict(record.outcomes),
                "unanswered at the stop": len(record.unanswered),
            }
        )
        assert len(after) > 0, f"no round acknowledged on the new primary: {record.outcomes}\n{web_log[-3000:]}"
        assert first_after is not None and first_after - killed_at < RECOVERY_LIMIT, facts
        assert not [o for o in record.outcomes if o.startswith("500")], f"a 500: {record.outcomes}\n{web_log[-3000:]}"
        assert new_leader is not None and new_leader.name != killed.name

        facts.update(_rounds_exactly_once(url, record, [pid for pid, _ in players]))
        facts.update(_checks(env))
        t2 = time.monotonic()
        cluster.wait_healthy(REJOIN_LIMIT)  # the old primary back as a replica (pg_rewind), one sync standby
        facts["old primary rejoined (s after the checks)"] = round(time.monotonic() - t2, 1)
        facts["cluster after"] = cluster.describe()
    finally:
        if load is not None:
            load.stop(timeout=5)
        if web is not None:
            web.stop()
        if worker is not None:
            worker.stop()
        logs = cluster.logs() if cluster.members else ""
        cluster.stop()
        print("\n== failover test ==")
        for name, value in facts.items():
            print(f"{name}: {value}")
        if logs and len(facts) < 10:
            print(logs)
