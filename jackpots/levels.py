"""The running levels a game contributes to, cached per process for about a second, and the pure arithmetic of
contributions, splits, sealing and commitments (no writes here).

A spin must not read the jackpots table to learn its configuration: the configuration of a running level is frozen,
so a snapshot of the running levels is kept per process for ``JACKPOTS_CONFIG_TTL_SECONDS`` (default 1 s). A level
switched on, suspended or resumed takes effect within that time; every service that changes a level clears this
process's snapshot at once. What a spin must know exactly (the pool's live value for a must-hit or draw level) it
reads in the same statement that writes its contributions.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from jackpots.models import MICRO, PPM, Jackpot


@dataclass(frozen=True)
class Level:
    """A running level as a spin sees it (frozen configuration + the folded state at load time)."""

    id: int
    code: str
    family: str
    level: str
    pay_order: int
    games: tuple[str, ...]
    basis: str
    rate_ppm: int
    split: str
    background_ppm: int
    trigger: str
    draw_ppb: int
    reset_value: int
    win_from: int
    win_to: int
    seed_per_coin: int
    reference_coin: int
    eligible: dict[str, Any] = field(hash=False, compare=False)
    future_micro: int = 0
    generation: int = 0
    win_at: int | None = None  # must-hit: unsealed in memory only

    def covers(self, game_code: str) -> bool:
        return not self.games or game_code in self.games

    @property
    def needs_value(self) -> bool:
        """Whether every spin must read the live value: a must-hit level (is WIN_AT reached?). A draw level's value
        is read only when the draw names it (is it within its range?)."""
        return self.trigger == Jackpot.Trigger.MUST_HIT


def enabled() -> bool:
    return settings.JACKPOTS_ENABLED


# --- sealing WIN_AT -----------------------------------------------------------------------------------------------
def _pad(code: str, generation: int, nonce: str) -> int:
    key = settings.JACKPOTS_SEAL_KEY.encode()
    digest = hmac.new(key, f"{code}|{generation}|{nonce}".encode(), hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big")


def seal(win_at: int, *, code: str, generation: int, nonce: str) -> str:
    """WIN_AT encrypted with a one-time pad derived (HMAC-SHA256) from the seal key, which the database does not
    hold: staff reading the table cannot learn it before it hits."""
    return format(win_at ^ _pad(code, generation, nonce), "016x")


def unseal(sealed: str, *, code: str, generation: int, nonce: str) -> int:
    return int(sealed, 16) ^ _pad(code, generation, nonce)


def salt(*, code: str, generation: int, nonce: str) -> str:
    """The commitment's secret salt, derived from the seal key (so the database alone cannot brute-force WIN_AT
    from the commitment over its small range); revealed with WIN_AT once the level is won."""
    key = settings.JACKPOTS_SEAL_KEY.encode()
    return hmac.new(key, f"salt|{code}|{generation}|{nonce}".encode(), hashlib.sha256).hexdigest()


def commitment(*, code: str, generation: int, win_at: int, salt: str) -> str:
    """Published when the level starts; after the hit anyone can check sha256("code|run|WIN_AT|salt")."""
    return hashlib.sha256(f"{code}|{generation}|{win_at}|{salt}".encode()).hexdigest()


# --- contributions ---------------------------------------------------------------------------------------------------
def curve_share_ppm(future_micro: int, reset_value: int) -> int:
    """The future pot's share of a contribution (the APOLLO description): 50 % while the future pot is empty,
    falling exponentially to 0 % when it reaches RESET_VALUE. A policy ratio in whole ppm (the money split that
    uses it is exact integer arithmetic and recorded on each contribution row)."""
    if reset_value <= 0 or future_micro >= reset_value * MICRO:
        return 0
    x = max(future_micro, 0) / (reset_value * MICRO)
    return round(PPM // 2 * (math.exp(-4 * x) - math.exp(-4)) / (1 - math.exp(-4)))


def contribution(level: Level, *, stake: int, win: int) -> tuple[int, int, int]:
    """(basis amount in haléře, active micro-haléře, future micro-haléře) of one round for one level."""
    basis = stake if level.basis == Jackpot.Basis.STAKE else stake - win
    total = basis * level.rate_ppm  # haléře x ppm = micro-haléře, exact
    if total < 0:  # a net-revenue decrease: from the future pot first (APOLLO), then the active pot
        from_future = max(total, -max(level.future_micro, 0)) if level.split != Jackpot.Split.NONE else 0
        return basis, total - from_future, from_future
    if level.split == Jackpot.Split.FIXED:
        future = total * level.background_ppm // PPM
    elif level.split == Jackpot.Split.CURVE:
        future = total * curve_share_ppm(level.future_micro, level.reset_value) // PPM
    else:
        future = 0
    return basis, total - future, future


# --- the per-process snapshot -----------------------------------------------------------------------------------------
_lock = threading.Lock()
_snapshot: tuple[float, list[Level]] | None = None


def _load() -> list[Level]:
    levels = []
    for j in Jackpot.objects.filter(status=Jackpot.Status.RUNNING).order_by("pay_order", "id"):
        win_at = None
        if j.trigger == Jackpot.Trigger.MUST_HIT and j.win_at_sealed:
            win_at = unseal(j.win_at_sealed, code=j.code, generation=j.generation, nonce=j.win_at_nonce)
        levels.append(
            Level(
                id=j.pk,
                code=j.code,
                family=j.family,
                level=j.level,
                pay_order=j.pay_order,
                games=tuple(j.games or ()),
                basis=j.basis,
                rate_ppm=j.rate_ppm,
                split=j.split,
                background_ppm=j.background_ppm,
                trigger=j.trigger,
                draw_ppb=j.draw_ppb,
                reset_value=j.reset_value,
                win_from=j.win_from,
                win_to=j.win_to,
                seed_per_coin=j.seed_per_coin,
                reference_coin=j.reference_coin,
                eligible=dict(j.eligible or {}),
                future_micro=j.future_micro,
                generation=j.generation,
                win_at=win_at,
            )
        )
    return levels


def running_levels() -> list[Level]:
    global _snapshot
    now = time.monotonic()
    snap = _snapshot
    if snap is None or snap[0] <= now:
        levels = _load()
        with _lock:
            _snapshot = (now + settings.JACKPOTS_CONFIG_TTL_SECONDS, levels)
        return levels
    return snap[1]


def levels_for(game_code: str) -> list[Level]:
    """The running levels that game ``game_code`` contributes to (empty when jackpots are switched off)."""
    if not enabled():
        return []
    return [lv for lv in running_levels() if lv.covers(game_code)]


def progressive_offered(game_code: str, levels: Iterable[str]) -> bool:
    """Whether the game's own progressive jackpots ``levels`` (e.g. Kobushi's ``sushi`` and ``kobushi``) are all
    offered now: jackpots switched on and each of those pools running (not a draft, not suspended). Only then does a
    round of the game draw a jackpot outcome, do its rules promise the jackpots and does the catalogue state its RTP
    with jackpots (GP §7(2)); with one of them not running none is offered. From the snapshot (no statement)."""
    wanted = set(levels)
    running = {lv.level for lv in levels_for(game_code) if lv.trigger == Jackpot.Trigger.GAME_EVENT}
    return bool(wanted) and wanted <= running


def snapshot_clear() -> None:
    """Forget this process's snapshot (after a level changed, and in tests)."""
    global _snapshot
    with _lock:
        _snapshot = None
