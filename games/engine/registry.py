"""Registry of shipped games: code -> {version -> Game}."""

from __future__ import annotations

import threading
from typing import TypeVar

from .base import Game

_GAMES: dict[str, dict[int, Game]] = {}
GameT = TypeVar("GameT", bound=Game)
# The catalogue is complete only once the games package has finished importing. A non-empty _GAMES is not that:
# while one thread imports the games (each module registers itself in turn), a second thread of a fresh web worker
# saw some games registered, skipped the import and refused a round on a game not yet registered (game.not_found,
# tests/faults/test_web_kill.py after a restart). The flag is set after the import, under a lock.
_loaded = False
_load_lock = threading.Lock()


def register(game: GameT) -> GameT:
    _GAMES.setdefault(game.code, {})[game.version] = game
    return game


def _load() -> None:
    global _loaded
    if _loaded:
        return
    with _load_lock:
        if _loaded:
            return
        # Imported on first use, not at the top: each game module imports this module to register itself (a cycle).
        from . import games  # noqa: F401

        _loaded = True


def load_catalogue() -> None:
    """Import every shipped game now (the games app's ready(): a web or Celery worker has its whole catalogue
    before its first request or task, and no request thread ever imports a game)."""
    _load()


def get_game(code: str, version: int | None = None) -> Game:
    _load()
    versions = _GAMES.get(code)
    if not versions:
        raise KeyError(code)
    return versions[version if version is not None else max(versions)]


def list_games() -> list[Game]:
    _load()
    return [v[max(v)] for _, v in sorted(_GAMES.items())]
