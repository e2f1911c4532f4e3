"""The upper game's rules as pure functions of the reel stops: the 3x3 window, the 5 fixed lines and the 3
vertical lines, line wins, mixed sevens, the minigame triggers, the CAMERA and CLAPPER symbols.

Row r of reel j shows ``strip[(stop + r) % 16]`` (rows 0-2, top to bottom). The vertical line of a reel is its
three rows. There is no wild in the upper game. Deterministic: the round draws the stops (``game.py``); the
analysis and the fast simulator use the same evaluation (``analysis.py``, ``fast_sim.py``).
"""

from __future__ import annotations

import functools
from typing import Any

from .definition import CAMERA, CLAPPER, MINIGAME_SYMBOLS, SEVENS

Stops = tuple[int, int, int]


class Upper:
    """The upper game of one definition (``DEFINITION["upper"]``); immutable, results cached per stops."""

    def __init__(self, d: dict[str, Any]) -> None:
        self.strips: list[list[str]] = d["strips"]
        self.n = len(self.strips[0])
        self.lines: list[list[int]] = d["lines"]
        self.pays: dict[str, int] = d["pays"]
        # the rows on which a CAMERA / CLAPPER counts (version 1: anywhere in the window; version 2, whose counters
        # carry between rounds: the centre row only)
        self.camera_rows: list[int] = d.get("camera_rows", [0, 1, 2])
        self.clapper_rows: list[int] = d.get("clapper_rows", [0, 1, 2])

    def window(self, stops: Stops) -> list[list[str]]:
        return [[self.strips[j][(stops[j] + r) % self.n] for r in range(3)] for j in range(3)]

    def all_lines(self, window: list[list[str]], vertical: bool) -> list[tuple[int, list[str]]]:
        """(line number, the three symbols) of the 5 fixed lines, and of lines 6-8 (the reels' columns) when the
        vertical lines are on."""
        out = [(i + 1, [window[j][rows[j]] for j in range(3)]) for i, rows in enumerate(self.lines)]
        if vertical:
            out += [(len(self.lines) + 1 + j, list(window[j])) for j in range(3)]
        return out

    @functools.lru_cache(maxsize=16384)  # noqa: B019 - one Upper per game definition, kept for the process
    def evaluate(self, stops: Stops, vertical: bool) -> dict[str, Any]:
        """Line wins ([line, symbol, x stake]), mixed-sevens lines, the minigame symbols won on lines, and whether
        a CAMERA / CLAPPER shows on the rows where it counts (anywhere in the window in version 1)."""
        window = self.window(stops)
        wins: list[list[Any]] = []
        mixed: list[int] = []
        triggers: list[str] = []
        for number, syms in self.all_lines(window, vertical):
            if syms[0] == syms[1] == syms[2] and syms[0] in self.pays:
                wins.append([number, syms[0], self.pays[syms[0]]])
                if syms[0] in MINIGAME_SYMBOLS and syms[0] not in triggers:
                    triggers.append(syms[0])
            elif all(s in SEVENS for s in syms):
                mixed.append(number)
        return {
            "window": window,
            "line_wins": wins,
            "line_pay": sum(w[2] for w in wins),
            "mixed_lines": mixed,
            "triggers": triggers,
            "camera": any(col[r] == CAMERA for col in window for r in self.camera_rows),
            "clapper": any(col[r] == CLAPPER for col in window for r in self.clapper_rows),
        }

    @functools.cached_property
    def all_stops(self) -> list[Stops]:
        return [(a, b, c) for a in range(self.n) for b in range(self.n) for c in range(self.n)]

    @functools.lru_cache(maxsize=4)  # noqa: B019
    def winning_stops(self, vertical: bool) -> list[Stops]:
        """The stops whose window wins on a line or shows mixed sevens: the cumulative's WINNING SPIN draws one of
        them (seed 3.8: "a prize based on a winning line, mini-game, or mixed sevens")."""
        return [
            s
            for s in self.all_stops
            if self.evaluate(s, vertical)["line_wins"] or self.evaluate(s, vertical)["mixed_lines"]
        ]
