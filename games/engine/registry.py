"""Registry of shipped games: code -> {version -> Game}."""

from __future__ import annotations

from typing import TypeVar

from .base import Game

_GAMES: dict[str, dict[int, Game]] = {}
GameT = TypeVar("GameT", bound=Game)


def register(game: GameT) -> GameT:
    _GAMES.setdefault(game.code, {})[game.version] = game
    return game


def _load() -> None:
    if _GAMES:
        return
    # Imported on first use, not at the top: each game module imports this module to register itself (a cycle).
    from . import games  # noqa: F401


def get_game(code: str, version: int | None = None) -> Game:
    _load()
    versions = _GAMES.get(code)
    if not versions:
        raise KeyError(code)
    return versions[version if version is not None else max(versions)]


def list_games() -> list[Game]:
    _load()
    return [v[max(v)] for _, v in sorted(_GAMES.items())]
