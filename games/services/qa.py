"""QA forced outcomes (play money only, settings.GAMES_QA_FORCED_OUTCOMES): the forced draws and the RNG a round uses."""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from core.rng import get_rng
from games import errors
from games.engine import (
    RNG,
    RecordingRNG,
    ReplayRNG,
)
from games.services.common import qa_forced_outcomes_enabled

if TYPE_CHECKING:
    pass

logger = logging.getLogger("games")

MAX_FORCED_DRAWS = 10_000


class _ForcedRNG:
    """QA forced outcome: the given draws first (through the engine's ReplayRNG), then the platform RNG.

    Play money only (see :func:`_check_forced`). A draw that does not fit (another range) is a refusal."""

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
        return self._forced[self._used:]


def _check_forced(forced_draws: object, play_money: bool) -> list[list[int]] | None:
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
            if not (isinstance(d, (list, tuple)) and len(d) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in d) and 0 <= d[1] < d[0]):
                ok = False
                break
    if not ok or not isinstance(forced_draws, list):
        raise errors.QA_FORCED_INVALID(reason="forced_draws must be a list of [n, value] with 0 <= value < n")
    return [list(d) for d in forced_draws]


def _rng_for(forced: list[list[int]] | None) -> tuple[_ForcedRNG | None, RecordingRNG]:
    """(the QA forced source or None, the recording RNG the engine draws from)."""
    if forced is None:
        return None, RecordingRNG(get_rng())
    source = _ForcedRNG(forced, get_rng())
    return source, RecordingRNG(source)
