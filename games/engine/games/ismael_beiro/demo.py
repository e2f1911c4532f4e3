"""Seed 6, demo mode: "you can choose the prizes". The platform's play money is the demo, and its QA forced draws
(play money only, when the operator enables them) choose the prize: :func:`draws` gives the first draws of a
round that lead to the chosen outcome (the platform's RNG continues after them).

The draws follow the round's fixed order (``game.py``): two lower spins of 7 draws at the start, then the
features and the upper games as they come.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .definition import BONUS, CAMEL, CHEF_HAT, COCONUT, CONFESSIONAL, SEVEN_RED, WILD

if TYPE_CHECKING:
    from .game import IsmaelBeiro

Draws = list[list[int]]

OPTIONS = (
    "lower_three_sevens",
    "lower_three_bars",
    "lower_three_cherries",
    "lower_three_lemons",
    "lower_three_oranges",
    "lower_bonus_1",
    "lower_bonus_2",
    "lower_bonus_3",
    "lower_confessional",
    "lower_hold",
    "lower_nudges",
    "upper_camel",
    "upper_coconut",
    "upper_chef_hat",
    "upper_red_sevens",
    "upper_mixed_sevens",
    "upper_camera",
    "upper_winning_spin",
)
_SYMBOL = {"sevens": "SEVEN", "bars": "BAR", "cherries": "CHERRY", "lemons": "LEMON", "oranges": "ORANGE"}


def _stops(game: IsmaelBeiro, pred: Callable[[list[str], tuple[int, int, int]], bool]) -> tuple[int, int, int]:
    n = game.lower.n
    for a in range(n):
        for b in range(n):
            for c in range(n):
                s = (a, b, c)
                if pred(game.lower.line(s), s):
                    return s
    raise ValueError("no such line on the strips")


def _spin(
    game: IsmaelBeiro,
    stops: tuple[int, int, int],
    hold: int = 999,
    nudge: int = 999,
    nudges_index: int = 0,
    hold_after: int = 999,
) -> Draws:
    n = game.lower.n
    w = sum(x for _, x in game.d["lower"]["nudge_counts"])
    cum = 0
    for i, (_, x) in enumerate(game.d["lower"]["nudge_counts"]):
        if i == nudges_index:
            break
        cum += x
    return [[n, stops[0]], [n, stops[1]], [n, stops[2]], [1000, hold], [1000, nudge], [w, cum], [1000, hold_after]]


def _no_marks(game: IsmaelBeiro, s: tuple[int, int, int]) -> bool:
    return game.lower.vertical_marks(s) == 0


def _upper_spin(game: IsmaelBeiro, stops: tuple[int, int, int], selector: int = 999, clapper: int = 0) -> Draws:
    n = game.upper.n
    cam_lo, cam_hi = game.d["upper"]["camera"]
    cl_lo, cl_hi = game.d["upper"]["clapper"]
    return [
        [n, stops[0]],
        [n, stops[1]],
        [n, stops[2]],
        [cam_hi - cam_lo + 1, cam_hi - cam_lo],
        [cl_hi - cl_lo + 1, clapper],
        [1000, selector],
    ]


def _upper_stops(game: IsmaelBeiro, pred: Callable[[dict[str, Any], list[list[str]]], bool]) -> tuple[int, int, int]:
    for s in game.upper.all_stops:
        e = game.upper.evaluate(s, False)
        if pred(e, e["window"]):
            return s
    raise ValueError("no such window on the strips")


def draws(game: IsmaelBeiro, option: str, stake: int) -> Draws:
    """The forced draws (a prefix) that give ``option`` at ``stake``; the upper options start with a lower spin
    paying bonuses, then the upper game's first draws (played with the action ``upper_spin`` at the round's bet)."""
    if option not in OPTIONS:
        raise ValueError(f"unknown demo option {option!r}; options: {', '.join(OPTIONS)}")
    zero = _spin(game, (0, 0, 0))
    kind, _, what = option.partition("_")
    if kind == "lower":
        if what.startswith("three_"):
            sym = _SYMBOL[what.removeprefix("three_")]
            return _spin(game, _stops(game, lambda line, s: line == [sym] * 3)) + zero
        if what.startswith("bonus_"):
            k = int(what.removeprefix("bonus_"))
            return _spin(game, _stops(game, lambda line, s: line.count(BONUS) == k)) + zero
        if what == "confessional":
            return _spin(game, _stops(game, lambda line, s: line == [CONFESSIONAL] * 3)) + zero
        if what == "hold":
            s = _stops(
                game,
                lambda line, st: (
                    game.lower.result(st)["pair"] == [0, 1] and WILD not in line and line[0] not in (CONFESSIONAL,)
                ),
            )
            sym = game.lower.line(s)[1]
            third = next(i for i, x in enumerate(game.lower.strips[2]) if x == sym)
            return _spin(game, s, hold=0) + _spin(game, (0, 0, third))
        # nudges: a near miss without a pair, offered the most nudges
        s = _stops(
            game,
            lambda line, st: (
                game.lower.result(st)["kind"] == "none"
                and game.lower.result(st)["pair"] is None
                and game.lower.near_miss(st)
            ),
        )
        return _spin(game, s, nudge=0, nudges_index=len(game.d["lower"]["nudge_counts"]) - 1) + zero
    # upper options: the lower spin pays bonuses (1 BONUS, no vertical marks; 3 BONUS for the winning spin)
    k = 3 if what == "winning_spin" else 1
    lower = _spin(game, _stops(game, lambda line, s: line.count(BONUS) == k and _no_marks(game, s))) + zero
    if what in ("camel", "coconut", "chef_hat"):
        sym = {"camel": CAMEL, "coconut": COCONUT, "chef_hat": CHEF_HAT}[what]
        s = _upper_stops(game, lambda e, w: [1, sym, game.d["upper"]["pays"][sym]] in e["line_wins"])
        return lower + _upper_spin(game, s, selector=0)
    if what == "red_sevens":
        return lower + _upper_spin(
            game, _upper_stops(game, lambda e, w: any(x[1] == SEVEN_RED for x in e["line_wins"]))
        )
    if what == "mixed_sevens":
        return lower + _upper_spin(game, _upper_stops(game, lambda e, w: bool(e["mixed_lines"])))
    if what == "camera":
        return lower + _upper_spin(game, _upper_stops(game, lambda e, w: e["camera"] and not e["line_wins"]))
    # the winning spin: three upper games each showing a CLAPPER with 3 pieces
    s = _upper_stops(
        game, lambda e, w: e["clapper"] and not e["camera"] and not e["line_wins"] and not e["mixed_lines"]
    )
    cl = game.d["upper"]["clapper"]
    return lower + _upper_spin(game, s, clapper=cl[1] - cl[0]) * 3
