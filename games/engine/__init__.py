"""Pure-Python game engine (no Django). See base.py for the contract."""
from .base import (  # noqa: F401
    STATUS_AWAITING_ACTION,
    STATUS_FINISHED,
    ActionError,
    Bet,
    BetError,
    Declared,
    EngineError,
    Game,
    RecordingRNG,
    ReplayMismatch,
    ReplayRNG,
    play,
)
from .registry import get_game, list_games  # noqa: F401
