"""Shared helpers of the games services: references, JSON, the engine lookup, the engine state's contract."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings

from core.jsonable import json_copy
from games import errors
from games.engine import (
    STATUS_AWAITING_ACTION,
    STATUS_FINISHED,
    JsonDict,
    registry,
)
from games.engine import Game as EngineGame
from games.models import Round
from games.validation import valid_game_code
from wallet.selectors import balance

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("games")

LIMITS_KIND = "technical"  # the kind of gambling (GP §6(1)): internet technical games


# --- helpers ---------------------------------------------------------------------------------------------------------
def currency() -> str:
    return settings.PLATFORM_CURRENCY


def min_round_seconds() -> float:
    """GP §7(9): a round never lasts less than this; the next start of a player waits at least this long."""
    return float(settings.GP["MIN_ROUND_SECONDS"])


def qa_forced_outcomes_enabled() -> bool:
    """settings.GAMES_QA_FORCED_OUTCOMES (default False). Even when True, only play-money rounds may use it."""
    return settings.GAMES_QA_FORCED_OUTCOMES


def round_ref(rnd: Round, what: str) -> str:
    """Wallet references, unique per round and movement (the wallet is idempotent on them)."""
    return f"games:round:{rnd.pk}:{what}"


def jsonable(value: Any) -> Any:
    """The value as stored JSON gives it back (``json.loads(json.dumps(value, allow_nan=False))``): a plain copy that
    the engine cannot change behind the stored row, NaN and infinities refused (jsonb stores neither), a non-JSON
    type refused. ``core.jsonable.json_copy`` gives the same value and errors without encoding and parsing text."""
    return json_copy(value)


def player_balance(player: Player) -> int:
    return balance(player).amount


def engine_game_of(code: str, version: int | None = None) -> EngineGame:
    if not valid_game_code(code):
        raise errors.GAME_NOT_FOUND(game=str(code)[:60].replace("\x00", ""))
    try:
        return registry.get_game(code, version)
    except KeyError:
        if version is None:
            raise errors.GAME_NOT_FOUND(game=code)
        raise errors.GAME_UNAVAILABLE(game=code, version=version)


class BadState(Exception):
    """The engine returned a state that breaks the contract (a malfunction)."""


def clean_state(state: object) -> JsonDict:
    """The engine state as stored JSON; a state breaking the contract of base.Game.start is a malfunction."""
    if not isinstance(state, dict):
        raise BadState(f"the state is a {type(state).__name__}, not a dict")
    try:
        clean: JsonDict = jsonable(state)
    except (TypeError, ValueError) as exc:
        raise BadState(f"the state is not JSON-serialisable: {exc}") from exc
    status = clean.get("status")
    if status not in (STATUS_FINISHED, STATUS_AWAITING_ACTION):
        raise BadState(f"unknown state status {status!r}")
    win = clean.get("win")
    if isinstance(win, bool) or not isinstance(win, int) or win < 0:
        raise BadState(f"invalid win {win!r}")
    if not isinstance(clean.get("steps", []), list):
        raise BadState("steps must be a list")
    if status == STATUS_AWAITING_ACTION and not clean.get("pending"):
        raise BadState("an awaiting round must say what it waits for (pending)")
    return clean


def describe_exc(exc: BaseException) -> str:
    return f"{exc.__class__.__name__}: {exc}"[:2000]
