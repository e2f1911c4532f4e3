"""The provider run of ``make bench``: a simulated remote studio (``provider_simulator``: its slot and its
signature) drives the providers' seamless-wallet API for the bench's players over keep-alive HTTP/1.1 connections,
the same harness as the platform's own rounds (``bench_load``).

Before the load (not measured): each player launches the provider's game through the player API
(``POST /api/v1/providers/<provider>/launch``) and the studio exchanges the launch token for a session (signed
``POST session``). The load: each connection serves its share of the players round-robin; a round is a signed
``bet`` (round_closed false), the studio's spin of Sim Fruits, and a signed ``win`` with the amount (0 for a loss)
and round_closed true; a player's next bet waits 2 s after the previous bet's answer (GP §7(9), which the
platform enforces on remote rounds too). A call that broke before its answer is sent once more with the same
transaction id (the contract's exactly-once makes it a replay).

Measured: settled rounds/s, the latency of a whole round (bet + win) and of each call, and the statements of each
call (``X-SQL-Count``). Only 127.0.0.1 is contacted; every loop is bounded in time.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import time
from dataclasses import dataclass, field
from typing import Any

from bench_load import (
    MARGIN_SECONDS,
    MIN_ROUND_SECONDS,
    Connection,
    HttpError,
    Response,
    Stats,
    _error_code,
    play_when_due,
)

from provider_simulator.signing import signed_headers
from provider_simulator.slot import Slot

STAKE = 100  # haléře: 1 CZK a round, as the roulette rounds of the platform's run


@dataclass
class RemotePlayer:
    player_id: int
    token: str
    session: str = ""
    next_at: float = 0.0


@dataclass
class ProviderStats(Stats):
    bet_ms: list[float] = field(default_factory=list)
    win_ms: list[float] = field(default_factory=list)
    sessions: int = 0  # players with a game session (the set-up)

    def merge(self, other: Stats) -> None:
        super().merge(other)
        if isinstance(other, ProviderStats):
            self.bet_ms += other.bet_ms
            self.win_ms += other.win_ms
            self.sessions += other.sessions


class Studio:
    """The signing side: one provider code and secret."""

    def __init__(self, provider: str, secret: str) -> None:
        self.provider, self.secret = provider, secret
        self.prefix = f"/api/v1/providers/{provider}/"

    async def call(self, conn: Connection, op: str, body: dict[str, Any]) -> Response:
        raw = json.dumps(body, separators=(",", ":")).encode()
        return await conn.request(
            "POST",
            self.prefix + op,
            token=None,
            raw_body=raw,
            headers=signed_headers(self.secret, int(time.time()), raw),
        )


class ProviderDriver:
    def __init__(
        self,
        port: int,
        studio: Studio,
        players: list[RemotePlayer],
        *,
        game: str,
        provider_game: str,
        rng: random.Random,
        run: str,
        stop_at: float,
        hard_stop_at: float,
        mode: str = "bet_win",
    ) -> None:
        self.conn = Connection(port)
        self.mode = mode  # "bet_win": a bet then a closing win; "play": the whole one-shot round in one call
        self.studio, self.players = studio, players
        self.game, self.provider_game = game, provider_game
        self.slot = Slot(rng)
        self.run_id = run
        self.stop_at, self.hard_stop_at = stop_at, hard_stop_at
        self.stats = ProviderStats()
        self.n = 0

    async def launch(self) -> ProviderStats:
        """Launch + session for every player of this connection (the set-up, not measured)."""
        try:
            for player in self.players:
                if time.time() > self.hard_stop_at:
                    break
                try:
                    launched = await self.conn.request(
                        "POST",
                        f"{self.studio.prefix}launch",
                        token=player.token,
                        body={"game": self.game, "lang": "en"},
                    )
                    token = (launched.json() or {}).get("launch_token") if launched.status == 201 else None
                    if not token:
                        self.stats.errors[f"launch:{_error_code(launched)}"] += 1
                        continue
                    session = await self.studio.call(self.conn, "session", {"launch_token": token})
                except HttpError as exc:
                    self.stats.errors[f"transport:{str(exc).split(':')[0]}"] += 1
                    continue
                body = session.json() or {}
                if session.status == 200 and body.get("session"):
                    player.session = str(body["session"])
                    self.stats.sessions += 1
                else:
                    self.stats.errors[f"session:{_error_code(session)}"] += 1
        finally:
            await self.conn.close()
        return self.stats

    async def run(self) -> ProviderStats:
        try:  # the players that got a game session
            await play_when_due([p for p in self.players if p.session], self.play, self.stop_at)
        finally:
            self.stats.connections_opened = self.conn.opened
            await self.conn.close()
        return self.stats

    async def _call(self, op: str, body: dict[str, Any], timings: list[float]) -> Response | None:
        started = time.perf_counter()
        try:
            response = await self.studio.call(self.conn, op, body)
        except HttpError:
            try:  # once more with the same transaction id: a replay if the first one arrived
                response = await self.studio.call(self.conn, op, body)
            except HttpError as exc:
                self.stats.errors[f"transport:{str(exc).split(':')[0]}"] += 1
                self.stats.outcomes["transport_error"] += 1
                return None
        timings.append((time.perf_counter() - started) * 1000)
        if response.status != 200:
            code = _error_code(response)
            self.stats.errors[code] += 1
            self.stats.outcomes[code] += 1
        else:
            self.stats.outcomes[op] += 1
        return response

    async def play(self, player: RemotePlayer) -> None:
        self.n += 1
        round_id = f"r{self.run_id}-{player.player_id}-{self.n}"
        bet_id, win_id = f"b{self.run_id}-{player.player_id}-{self.n}", f"w{self.run_id}-{player.player_id}-{self.n}"
        began = time.perf_counter()
        self.stats.started_rounds += 1
        if self.mode == "play":
            await self._play_one_call(player, round_id, bet_id, win_id, began)
            return
        bet = await self._call(
            "bet",
            {
                "session": player.session,
                "transaction_id": bet_id,
                "round_id": round_id,
                "game": self.provider_game,
                "amount": {"amount": STAKE, "currency": "CZK"},
                "round_closed": False,
            },
            self.stats.bet_ms,
        )
        now = time.time()
        player.next_at = now + MIN_ROUND_SECONDS + MARGIN_SECONDS
        if bet is None or bet.status != 200:
            details = ((bet.json() or {}).get("error") or {}).get("details") or {} if bet is not None else {}
            if isinstance(details, dict) and isinstance(details.get("retry_after_ms"), int):
                player.next_at = now + details["retry_after_ms"] / 1000 + MARGIN_SECONDS
            return
        spin = self.slot.spin(STAKE)
        win = await self._call(
            "win",
            {
                "session": player.session,
                "transaction_id": win_id,
                "bet_transaction_id": bet_id,
                "round_id": round_id,
                "amount": {"amount": spin.win, "currency": "CZK"},
                "round_closed": True,
                "round_detail": {"outcome": spin.as_json()},
            },
            self.stats.win_ms,
        )
        if win is None or win.status != 200:
            return
        self.stats.settled["provider"] += 1
        bet_sql, win_sql = bet.sql or 0, win.sql or 0
        self.stats.settled_sql.append(bet_sql + win_sql)
        self.stats.settled_sql_by_kind.setdefault("bet", []).append(bet_sql)
        self.stats.settled_sql_by_kind.setdefault("win", []).append(win_sql)
        ms = (time.perf_counter() - began) * 1000
        self.stats.round_ms.append(ms)
        self.stats.settled_ms.append(ms)

    async def _play_one_call(self, player: RemotePlayer, round_id: str, bet_id: str, win_id: str, began: float) -> None:
        """The studio's whole round in one signed ``play`` call (the spin drawn first, as a studio does)."""
        spin = self.slot.spin(STAKE)
        body: dict[str, Any] = {
            "session": player.session,
            "transaction_id": bet_id,
            "round_id": round_id,
            "game": self.provider_game,
            "amount": {"amount": STAKE, "currency": "CZK"},
            "round_detail": {"outcome": spin.as_json()},
        }
        if spin.win:
            body["win"] = {"transaction_id": win_id, "amount": {"amount": spin.win, "currency": "CZK"}}
        played = await self._call("play", body, self.stats.bet_ms)
        now = time.time()
        player.next_at = now + MIN_ROUND_SECONDS + MARGIN_SECONDS
        if played is None or played.status != 200:
            details = ((played.json() or {}).get("error") or {}).get("details") or {} if played is not None else {}
            if isinstance(details, dict) and isinstance(details.get("retry_after_ms"), int):
                player.next_at = now + details["retry_after_ms"] / 1000 + MARGIN_SECONDS
            return
        self.stats.settled["provider"] += 1
        self.stats.settled_sql.append(played.sql or 0)
        self.stats.settled_sql_by_kind.setdefault("play", []).append(played.sql or 0)
        ms = (time.perf_counter() - began) * 1000
        self.stats.round_ms.append(ms)
        self.stats.settled_ms.append(ms)


async def _drive(
    port: int,
    players: list[RemotePlayer],
    studio: Studio,
    *,
    game: str,
    provider_game: str,
    connections: int,
    seconds: float,
    seed: int,
    grace: float,
    launch_only: bool,
    mode: str = "bet_win",
) -> ProviderStats:
    start = time.time()
    stop_at, hard_stop_at = start + seconds, start + seconds + grace
    run = os.urandom(3).hex()  # transaction ids are unique per provider across runs
    shares = [players[i::connections] for i in range(connections)]
    drivers = [
        ProviderDriver(
            port,
            studio,
            share,
            game=game,
            provider_game=provider_game,
            rng=random.Random(seed + i),
            run=run,
            stop_at=stop_at,
            hard_stop_at=hard_stop_at,
            mode=mode,
        )
        for i, share in enumerate(shares)
        if share
    ]
    results = await asyncio.gather(*((d.launch() if launch_only else d.run()) for d in drivers))
    total = ProviderStats(first_start=start)
    for result in results:
        total.merge(result)
    total.first_start, total.last_end = start, time.time()
    return total


def launch_sessions(
    port: int, players: list[RemotePlayer], studio: Studio, *, game: str, connections: int = 32, timeout: float = 600.0
) -> ProviderStats:
    """Give every player a game session of the provider's game (launch + session); those that fail stay without."""
    return asyncio.run(
        _drive(
            port,
            players,
            studio,
            game=game,
            provider_game="",
            connections=connections,
            seconds=0.0,
            seed=0,
            grace=timeout,
            launch_only=True,
        )
    )


def run_provider_load(
    port: int,
    players: list[RemotePlayer],
    studio: Studio,
    *,
    game: str,
    provider_game: str,
    connections: int = 32,
    seconds: float = 60.0,
    seed: int = 1,
    grace: float = 30.0,
    mode: str = "bet_win",
) -> ProviderStats:
    """Drive rounds of the players that have a session for ``seconds``: bet + win calls (``bet_win``) or one
    ``play`` call a round (``play``)."""
    return asyncio.run(
        _drive(
            port,
            players,
            studio,
            game=game,
            provider_game=provider_game,
            connections=connections,
            seconds=seconds,
            seed=seed,
            grace=grace,
            launch_only=False,
            mode=mode,
        )
    )


# --- the set-up (Django in the bench's process, on the bench database) ----------------------------------------------
CODE = "benchstudio"
SECRET = "bench-provider-secret-" + "0123456789abcdef" * 2  # the bench database's own provider, dropped afterwards
GAME_SLUG = "sim_fruits"


def provider_setup() -> str:
    """The bench's provider (calls from 127.0.0.1 only) and its game, Sim Fruits, listed and approved; returns the
    platform's game code. Nothing calls the provider's own URLs during the bench."""
    from decimal import Decimal

    from django.conf import settings

    from core.audit import Actor
    from games.services import game_approve, remote_game_upsert
    from provider_simulator.slot import MAX_STAKE, RTP
    from providers.models import Provider
    from providers.services import provider_save

    actor = Actor.system("bench")
    if not Provider.objects.filter(code=CODE).exists():
        provider_save(
            provider=Provider(
                code=CODE,
                name="Bench studio (provider simulator)",
                enabled=True,
                launch_url="http://127.0.0.1:9/play",
                api_url="http://127.0.0.1:9/api",
                allowed_sources=["127.0.0.1/32"],
            ),
            new_secret=SECRET,
            actor=actor,
        )
    rtp = (Decimal(RTP.numerator) * 100 / Decimal(RTP.denominator)).quantize(Decimal("0.01"))
    row = remote_game_upsert(
        provider=CODE,
        provider_game_id=GAME_SLUG,
        name="Sim Fruits",
        kind="slot",
        rtp=rtp,
        min_bet=settings.GP["MIN_STAKE"],
        max_bet=MAX_STAKE,
        max_win=settings.GP["MAX_WIN_PER_ROUND"],
        avg_hourly_loss=int(MAX_STAKE * 1800 * (1 - RTP)),
        unfinished_deadline_days=90,
        actor=actor,
    )
    if not row.approved:
        game_approve(
            game=row, plan_version="bench", reference="bench data - not a decision of the Ministry", actor=actor
        )
    return row.code
