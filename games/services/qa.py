"""QA forced outcomes (play money only, settings.GAMES_QA_FORCED_OUTCOMES): the forced draws and the RNG a round uses,
and the QA presets: for a game version, the forced draws whose round start triggers each of its features, found with
the pure engine by searching seeds (:func:`find_seed`, :func:`start_draws`: the one implementation; the tests use it
too)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from core.rng import SeededRNG, get_rng
from games import errors
from games.engine import (
    RNG,
    RecordingRNG,
    ReplayRNG,
    registry,
)
from games.engine.base import JsonDict
from games.services.common import qa_forced_outcomes_enabled

logger = logging.getLogger("games")

MAX_FORCED_DRAWS = 10_000

# The presets' search: at most this many seeds and this many seconds per game version (once per process), and it
# stops early (at PRESET_MIN_SEEDS at the least) once nothing new (a feature, or a feature alone) turned up for
# PRESET_QUIET_FACTOR times the seeds it took to find the last new one.
PRESET_MAX_SEEDS = 20_000
PRESET_MAX_SECONDS = 5.0
PRESET_QUIET_FACTOR = 20
PRESET_MIN_SEEDS = 5_000


class _ForcedRNG:
    """QA forced outcome: the given draws first (through the engine's ReplayRNG), then the platform RNG.

    Play money only (see :func:`check_forced`). A draw that does not fit (another range) is a refusal."""

    def __init__(self, forced: list[list[int]], fallback: RNG) -> None:
        self._forced = [list(d) for d in forced]
        self._replay = ReplayRNG(self._forced)
        self._used = 0
        self._fallback = fallback
        self.mismatch: str | None = None

    def randbelow(self, n: int) -> int:
        if self._used < len(self._forced):
            try:
                value = self._replay.randbelow(n)
            except Exception as exc:
                self.mismatch = str(exc)
                raise
            self._used += 1
            return value
        return self._fallback.randbelow(n)

    def left(self) -> list[list[int]]:
        return self._forced[self._used :]


def check_forced(forced_draws: object, play_money: bool) -> list[list[int]] | None:
    """QA forced outcomes: never with real money, and only when settings.GAMES_QA_FORCED_OUTCOMES is True."""
    if forced_draws is None:
        return None
    if not play_money:
        raise errors.QA_FORCED_REAL_MONEY()
    if not qa_forced_outcomes_enabled():
        raise errors.QA_FORCED_DISABLED()
    ok = isinstance(forced_draws, list) and len(forced_draws) <= MAX_FORCED_DRAWS
    if ok and isinstance(forced_draws, list):
        for d in forced_draws:
            if not (
                isinstance(d, (list, tuple))
                and len(d) == 2
                and all(isinstance(x, int) and not isinstance(x, bool) for x in d)
                and 0 <= d[1] < d[0]
            ):
                ok = False
                break
    if not ok or not isinstance(forced_draws, list):
        raise errors.QA_FORCED_INVALID(reason="forced_draws must be a list of [n, value] with 0 <= value < n")
    return [list(d) for d in forced_draws]


def rng_for(forced: list[list[int]] | None) -> tuple[_ForcedRNG | None, RecordingRNG]:
    """(the QA forced source or None, the recording RNG the engine draws from)."""
    if forced is None:
        return None, RecordingRNG(get_rng())
    source = _ForcedRNG(forced, get_rng())
    return source, RecordingRNG(source)


# --- finding draws with the pure engine (QA presets; the tests' feature rounds) ---------------------------------------
def start_features(state: JsonDict) -> list[str]:
    """The features a round's start triggered (its first step's ``features``: ``["big_cat_free_spins"]``)."""
    steps = state.get("steps") or [{}]
    return list(steps[0].get("features", []) or [])


def find_seed(
    code: str, bet: JsonDict, predicate: Callable[[JsonDict], bool], limit: int = 50_000, *, version: int | None = None
) -> int:
    """The first seed of ``core.rng.SeededRNG`` whose round start (pure engine, the bet in engine units) satisfies
    ``predicate(state)``; an AssertionError when none below ``limit`` does."""
    g = registry.get_game(code, version)
    b = g.validate_bet(bet)
    for seed in range(limit):
        if predicate(g.start(b, SeededRNG(seed))):
            return seed
    raise AssertionError(f"no seed below {limit} gives the wanted {code} round")


def start_draws(code: str, bet: JsonDict, seed: int, *, version: int | None = None) -> list[list[int]]:
    """The draws ``[n, value]`` the round start of ``seed`` takes: as QA forced draws, they replay that start."""
    g = registry.get_game(code, version)
    rec = RecordingRNG(SeededRNG(seed))
    g.start(g.validate_bet(bet), rec)
    return [list(d) for d in rec.draws]


def preset_bet(code: str, version: int | None = None) -> JsonDict | None:
    """The bet (engine units) the presets of a game are searched with: the game's default bet."""
    g = registry.get_game(code, version)
    declared = getattr(g, "bet_example", None)
    if isinstance(declared, dict):
        return dict(declared)
    default = getattr(g, "default_bet_params", None)
    return dict(default) if isinstance(default, dict) else None


def search_presets(
    code: str, version: int | None = None, *, max_seeds: int = PRESET_MAX_SEEDS, max_seconds: float = PRESET_MAX_SECONDS
) -> dict[str, Any]:
    """For each feature the round start of ``code`` (``version``) can trigger, the first seed that triggers it alone
    (else the first that triggers it with others) and its draws; bounded by seeds and time (no database).

    ``{"bet": <engine units>, "presets": [{"feature", "features", "seed", "bet", "forced_draws"}],
    "searched_seeds", "complete"}``; ``complete`` is False when the time ran out before the seed bound or the quiet
    rule."""
    g = registry.get_game(code, version)
    params = preset_bet(code, version)
    out: dict[str, Any] = {"bet": params, "presets": [], "searched_seeds": 0, "complete": True}
    if params is None:
        return out
    bet = g.validate_bet(params)
    alone: dict[str, int] = {}
    mixed: dict[str, int] = {}
    last_new = 0
    deadline = time.monotonic() + max_seconds
    seed = 0
    for seed in range(max_seeds):
        if seed % 256 == 0 and time.monotonic() > deadline:
            out["complete"] = False
            break
        if seed >= max(PRESET_MIN_SEEDS, PRESET_QUIET_FACTOR * last_new):
            break
        try:
            features = start_features(g.start(bet, SeededRNG(seed)))
        except Exception:  # a game whose plain start needs more (a carried state): no presets
            logger.warning("QA presets: %s v%s cannot start from seed %s", code, g.version, seed, exc_info=True)
            out["complete"] = False
            break
        for feature in features:
            if feature not in mixed:
                mixed[feature] = seed
                last_new = seed
            if len(features) == 1 and feature not in alone:
                alone[feature] = seed
                last_new = seed
    else:
        seed = max_seeds
    out["searched_seeds"] = seed
    for feature in sorted(mixed):
        found = alone.get(feature, mixed[feature])
        state = g.start(bet, SeededRNG(found))
        out["presets"].append(
            {
                "feature": feature,
                "features": start_features(state),
                "seed": found,
                "bet": params,
                "forced_draws": start_draws(code, params, found, version=g.version),
            }
        )
    return out


_PRESETS: dict[tuple[str, int], dict[str, Any]] = {}
_PRESETS_LOCK = threading.Lock()


def game_presets(code: str, version: int) -> dict[str, Any]:
    """The QA presets of a game version (:func:`search_presets`, cached per (code, version) in the process).
    Development only: refused unless settings.GAMES_QA_FORCED_OUTCOMES (never in production; the presets are forced
    draws, which only a play-money round takes)."""
    if not qa_forced_outcomes_enabled():
        raise errors.QA_FORCED_DISABLED()
    key = (code, version)
    with _PRESETS_LOCK:  # one search per game version, whoever asks first
        if key not in _PRESETS:
            started = time.monotonic()
            _PRESETS[key] = search_presets(code, version)
            logger.info(
                "QA presets of %s v%s: %s in %.1f s",
                code,
                version,
                [p["feature"] for p in _PRESETS[key]["presets"]],
                time.monotonic() - started,
            )
        return _PRESETS[key]
