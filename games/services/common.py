"""Shared helpers of the games services: references, JSON, the engine lookup, the state contract, the round lock."""
from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.conf import settings

from games import errors
from games import sql as games_sql
from games.engine import (
    STATUS_AWAITING_ACTION,
    STATUS_FINISHED,
    JsonDict,
    registry,
)
from games.engine import Game as EngineGame
from games.models import Round, RoundAction
from games.validation import valid_game_code
from wallet.selectors import balance
from wallet.services import LockedWallet

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


@dataclass
class LockedRound:
    """What the round-lock prelude holds: the round, the player's wallet (None for play money) and the action
    already applied under the Idempotency-Key asked for (a replay), if any."""

    round: Round
    wallet: LockedWallet | None
    keyed: RoundAction | None


def _round_lock(round_id: int, *, player: Player | None = None, key: str = "", skip_locked: bool = False,
                due_at: datetime | None = None) -> LockedRound | None:
    """The round locked in the house lock order (docs/contracts.md): the player's wallet first, then the round
    (``FOR NO KEY UPDATE``). The one prelude of round_act, round_refund, round_void_settled and round_expire.

    A real-money round takes ONE statement (``games/sql.py`` ROUND_LOCK: the wallet, its live account and the
    round, with the game's names, the action log and the action of ``key``); a play-money round has no wallet and
    locks only its row. ``player`` scopes the round to its owner (a player's action); ``due_at``: only a round
    still in progress whose deadline is at or before it (the sweeper); ``skip_locked`` passes over a round whose
    rows another transaction holds. None when there is no such round."""
    got = games_sql.round_lock(round_id, player_id=player.pk if player is not None else None, key=key,
                               skip_locked=skip_locked)
    if got is not None:
        rnd = got.round
        if player is not None:
            rnd._state.fields_cache["player"] = player
        locked: LockedRound = LockedRound(round=rnd, wallet=LockedWallet.of(got.wallet, got.account),
                                          keyed=got.keyed)
    else:
        scope = Round.objects.filter(pk=round_id, play_money=True)
        if player is not None:
            scope = scope.filter(player=player)
        if not scope.exists():  # no such round (a real-money round whose rows are held, with skip_locked)
            return None
        row = (Round.objects.select_for_update(no_key=True, skip_locked=skip_locked).select_related("player")
               .filter(pk=round_id).first())
        if row is None:
            return None
        keyed = RoundAction.objects.filter(round=row, idempotency_key=key).first() if key else None
        locked = LockedRound(round=row, wallet=None, keyed=keyed)
    if due_at is not None and (locked.round.status != Round.Status.IN_PROGRESS or locked.round.deadline > due_at):
        return None
    return locked
