"""Shared helpers of the games services: references, JSON, the engine lookup, the state contract, the round lock."""
from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from django.conf import settings

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
from wallet.services import wallet_lock

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("games")

LIMITS_KIND = "technical"  # the kind of gambling (GP §6(1)): internet technical games


# --- helpers ---------------------------------------------------------------------------------------------------------
def _currency() -> str:
    return str(settings.PLATFORM_CURRENCY)


def min_round_seconds() -> float:
    """GP §7(9): a round never lasts less than this; the next start of a player waits at least this long."""
    return float(settings.GP["MIN_ROUND_SECONDS"])


def qa_forced_outcomes_enabled() -> bool:
    """settings.GAMES_QA_FORCED_OUTCOMES (default False). Even when True, only play-money rounds may use it."""
    return bool(settings.GAMES_QA_FORCED_OUTCOMES)


def _ref(rnd: Round, what: str) -> str:
    """Wallet references, unique per round and movement (the wallet is idempotent on them)."""
    return f"games:round:{rnd.pk}:{what}"


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, allow_nan=False))


def _balance(player: Player) -> int:
    return balance(player).amount


def _engine_game(code: str, version: int | None = None) -> EngineGame:
    if not valid_game_code(code):
        raise errors.GAME_NOT_FOUND(game=str(code)[:60].replace("\x00", ""))
    try:
        return registry.get_game(code, version)
    except KeyError:
        if version is None:
            raise errors.GAME_NOT_FOUND(game=code)
        raise errors.GAME_UNAVAILABLE(game=code, version=version)


class _BadState(Exception):
    """The engine returned a state that breaks the contract (a malfunction)."""


def _clean_state(state: object) -> JsonDict:
    """The engine state as stored JSON; a state breaking the contract of base.Game.start is a malfunction."""
    if not isinstance(state, dict):
        raise _BadState(f"the state is a {type(state).__name__}, not a dict")
    try:
        clean: JsonDict = _jsonable(state)
    except (TypeError, ValueError) as exc:
        raise _BadState(f"the state is not JSON-serialisable: {exc}") from exc
    status = clean.get("status")
    if status not in (STATUS_FINISHED, STATUS_AWAITING_ACTION):
        raise _BadState(f"unknown state status {status!r}")
    win = clean.get("win")
    if isinstance(win, bool) or not isinstance(win, int) or win < 0:
        raise _BadState(f"invalid win {win!r}")
    if not isinstance(clean.get("steps", []), list):
        raise _BadState("steps must be a list")
    if status == STATUS_AWAITING_ACTION and not clean.get("pending"):
        raise _BadState("an awaiting round must say what it waits for (pending)")
    return clean


def _describe_exc(exc: BaseException) -> str:
    return f"{exc.__class__.__name__}: {exc}"[:2000]


def _round_lock(round_id: int, *, player: Player | None = None, skip_locked: bool = False,
                **filters: Any) -> Round | None:
    """The round row locked in the house lock order (docs/contracts.md): the player's wallet first (real money),
    then the round (``FOR NO KEY UPDATE``), with its player. ``player`` scopes the round to its owner (a player's
    action); ``filters`` must hold again under the lock; ``skip_locked`` passes over a round another worker holds
    (the sweeper). None when no such round (or it is held elsewhere). The one prelude of round_act, round_refund,
    round_void_settled and round_expire."""
    scope = Round.objects.filter(pk=round_id, **filters)
    if player is not None:
        head = scope.filter(player=player).values("play_money").first()
        if head is None:
            return None
        play_money = bool(head["play_money"])
    else:
        row = scope.select_related("player").first()
        if row is None:
            return None
        player, play_money = row.player, row.play_money
    if not play_money:
        wallet_lock(player=player)
    return (Round.objects.select_for_update(no_key=True, skip_locked=skip_locked).select_related("player")
            .filter(pk=round_id, **filters).first())
