"""The failover test's load (tests/faults/test_failover.py): the bench's engine rounds (``scripts/bench_load.py``:
its connection, its bets, its schedule of >= 2 s between a player's round starts, GP §7(9)) with a client that never
forgets a round it started.

Each round has its own ``Idempotency-Key``. A request that gets no answer (the connection broke, timed out) or a 503
(``core.unavailable``: the database could not be reached) is sent again with the **same** key until an answer comes:
the round row is unique on (player, key), so the retry returns the round the first attempt committed
(``Idempotent-Replayed: true``) or plays it for the first time, never a second round. Every 201 is kept
(:class:`Ack`: player, key, round id, when, after how many attempts, replayed or not) so that the test can find each
acknowledged round in the database afterwards, exactly once.

``python scripts/ha_load.py setup N`` (Django on ``DATABASE_URL``) creates N funded players as the bench does
(``scripts/bench_data.py``), the jackpots and the approved game versions, and prints them as JSON.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import (
    BETS,
    MARGIN_SECONDS,
    MIN_ROUND_SECONDS,
    ROULETTE,
    Connection,
    HttpError,
    Player,
    _error_code,
    _started_at,
    play_when_due,
)

ATTEMPT_TIMEOUT = 20.0  # one request; gunicorn's own timeout is longer
RETRY_PAUSE = 0.2  # between attempts of one key (transport failure or 503)


@dataclass(frozen=True)
class Ack:
    player_id: int
    key: str
    round_id: int
    at: float  # time.monotonic() when the 201 arrived
    started: float  # time.monotonic() when its first attempt was sent
    attempts: int
    replayed: bool


@dataclass
class LoadRecord:
    acks: list[Ack] = field(default_factory=list)
    sent_keys: set[tuple[int, str]] = field(default_factory=set)  # (player, key) of every round asked for
    unanswered: list[tuple[int, str]] = field(default_factory=list)  # keys given up at the stop without a 201
    outcomes: Counter[str] = field(default_factory=Counter)  # every answer: 201, error code, transport
    refused: Counter[str] = field(default_factory=Counter)  # 4xx refusals (the round was not played)
    retries: int = 0


class FailoverLoad:
    """Roulette rounds for ``players`` over ``connections`` keep-alive connections, in a thread, until :meth:`stop`."""

    def __init__(self, port: int, players: list[tuple[int, str]], *, connections: int = 8) -> None:
        self.port = port
        self.players = [Player(pid, token) for pid, token in players]
        self.connections = connections
        self.record = LoadRecord()
        self._stop_at = float("inf")
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self) -> FailoverLoad:
        self._thread = threading.Thread(target=lambda: asyncio.run(self._drive()), name="ha-load", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 90.0) -> LoadRecord:
        """No round starts after now; a round whose answer is still missing is retried until ``timeout``."""
        self._stop_at = time.time()
        self._give_up_at = time.monotonic() + timeout
        assert self._thread is not None
        self._thread.join(timeout + 30)
        assert not self._thread.is_alive(), "the load did not stop"
        return self.record

    def acks_since(self, moment: float) -> int:
        with self._lock:
            return sum(1 for a in self.record.acks if a.at >= moment)

    def first_ack_after(self, moment: float) -> float | None:
        """When the first round asked for after ``moment`` (monotonic) was acknowledged."""
        with self._lock:
            times = [a.at for a in self.record.acks if a.started >= moment]
        return min(times) if times else None

    async def _drive(self) -> None:
        self._give_up_at = float("inf")
        shares = [self.players[i :: self.connections] for i in range(self.connections)]
        await asyncio.gather(*(self._connection(share) for share in shares if share))

    async def _connection(self, players: list[Player]) -> None:
        conn = Connection(self.port)

        async def play(player: Player) -> None:
            await self._round(conn, player)

        try:
            while time.time() < self._stop_at:  # play_when_due reads stop_at once: re-enter while running
                await play_when_due(players, play, min(self._stop_at, time.time() + 1.0))
        finally:
            await conn.close()

    async def _round(self, conn: Connection, player: Player) -> None:
        key = os.urandom(12).hex()
        body = {"game": ROULETTE, "bet": BETS[ROULETTE]}
        with self._lock:
            self.record.sent_keys.add((player.player_id, key))
        attempts, started = 0, time.monotonic()
        while True:
            attempts += 1
            try:
                response = await asyncio.wait_for(
                    conn.request("POST", "/api/v1/games/rounds", token=player.token, body=body, key=key),
                    ATTEMPT_TIMEOUT,
                )
            except (TimeoutError, HttpError, OSError) as exc:
                await conn.close()
                self._note(f"transport:{type(exc).__name__}")
                if await self._again():
                    continue
                break
            now = time.time()
            if response.status == 201:
                answer = response.json() or {}
                with self._lock:
                    self.record.outcomes["201"] += 1
                    self.record.acks.append(
                        Ack(
                            player.player_id,
                            key,
                            int(answer["id"]),
                            time.monotonic(),
                            started,
                            attempts,
                            response.headers.get("idempotent-replayed") == "true",
                        )
                    )
                player.next_at = _started_at(answer, now) + MIN_ROUND_SECONDS + MARGIN_SECONDS
                return
            code = _error_code(response)
            self._note(f"{response.status} {code}")
            if response.status == 503:  # the database could not be reached: the same key again
                if await self._again():
                    continue
                break
            with self._lock:
                self.record.refused[code] += 1
            details = ((response.json() or {}).get("error") or {}).get("details") or {}
            wait = details.get("retry_after_ms", 0) / 1000 if code == "game.round_too_soon" else 0
            player.next_at = now + max(wait, MIN_ROUND_SECONDS / 4) + MARGIN_SECONDS
            return
        with self._lock:
            self.record.unanswered.append((player.player_id, key))
        player.next_at = time.time() + MIN_ROUND_SECONDS

    def _note(self, outcome: str) -> None:
        with self._lock:
            self.record.outcomes[outcome] += 1

    async def _again(self) -> bool:
        """Wait a moment before the same key again; False once the stop's grace has run out."""
        if time.monotonic() > self._give_up_at:
            return False
        with self._lock:
            self.record.retries += 1
        await asyncio.sleep(RETRY_PAUSE)
        return True


def setup(players: int) -> list[tuple[int, str]]:
    """Funded players, the demo's jackpots and approved game versions, on Django's ``DATABASE_URL`` (as the bench)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    import io

    import django

    django.setup()
    import bench_data

    from core.audit import Actor
    from games.demo import demo_approvals
    from jackpots.demo import seed as jackpots_seed

    created = bench_data.players_create(
        players, fund=10_000_000, daily_stake=10**12, daily_loss=10**12, say=lambda _text: None
    )
    jackpots_seed(io.StringIO())
    demo_approvals(actor=Actor.system("ha-test"))
    return [(p.player_id, p.token) for p in created]


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "setup":
        sys.exit("usage: ha_load.py setup <players>")
    print(json.dumps(setup(int(sys.argv[2]))))
