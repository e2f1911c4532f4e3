"""Ismael Beiro's analysis: the lower game exactly (every stop, offer, respin and nudge count enumerated under the
automatic holds and nudges) and the upper game's value of the bonuses (a dynamic programme over the bonuses, the
vertical-line counter and the cumulative, in floats).

The PAR sheet adds the exact lower-game cash (``exact_base``) to the simulated rest (the upper game); the upper
analysis (``upper_analysis``) predicts that rest and the tests check it against the simulators.
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from . import features

if TYPE_CHECKING:
    from .game import IsmaelBeiro

# (kind, value, vertical marks): kind "cash" (value = prize x stake), "bonus" (value = upper games),
# "confessional" (value 0) or "none"
Outcome = tuple[str, int, int]


def _final_key(game: IsmaelBeiro, stops: tuple[int, int, int]) -> Outcome:
    r = game.lower.result(stops)
    value = r["prize"] if r["kind"] == "cash" else r["credits"] if r["kind"] == "bonus" else 0
    return (r["kind"], value, game.lower.vertical_marks(stops))


class _LowerEnumeration:
    """The enumeration behind :func:`lower_distribution`, with integer weights."""

    def __init__(self, game: IsmaelBeiro) -> None:
        self.game, self.lo = game, game.lower
        cfg = game.d["lower"]
        self.n = self.lo.n
        self.h, self.nu, self.hn = cfg["hold_per_mille"], cfg["nudge_per_mille"], cfg["hold_after_nudge_per_mille"]
        self.counts = cfg["nudge_counts"]
        self.tw = sum(w for _, w in self.counts)
        self.cap = cfg["max_vertical_lines"]
        self.s2_total = 1000 * self.tw
        self.r_total = self.n**3 * self.s2_total
        self.unit = 1000 * 1000 * self.tw * 1000 * self.r_total  # one stops' total weight
        self.acc: dict[tuple[str, int, int], int] = defaultdict(int)

    @functools.cache  # noqa: B019 - one enumeration per call of lower_distribution
    def spin2(self, stops: tuple[int, int, int]) -> tuple[tuple[Outcome, int], ...]:
        """The respin's outcomes over 1000 x W: its own nudges (no hold after a respin)."""
        lo = self.lo
        out: dict[Outcome, int] = defaultdict(int)
        if not lo.is_prize(lo.result(stops)) and lo.near_miss(stops):
            for k, w in self.counts:
                out[_final_key(self.game, lo.nudged(stops, lo.best_nudges(stops, k, False)))] += self.nu * w
            out[_final_key(self.game, stops)] += (1000 - self.nu) * self.tw
        else:
            out[_final_key(self.game, stops)] += self.s2_total
        return tuple(out.items())

    @functools.cache  # noqa: B019
    def respin(self, stops: tuple[int, int, int], held: tuple[int, ...]) -> tuple[tuple[Outcome, int], ...]:
        """The held reels keep their stops, the others take every stop: outcomes over R."""
        free = [j for j in range(3) if j not in held]
        combos = list(itertools.product(range(self.n), repeat=len(free)))
        scale = self.n**3 // len(combos)
        out: dict[Outcome, int] = defaultdict(int)
        for c in combos:
            s = list(stops)
            for j, v in zip(free, c):
                s[j] = v
            for key, w in self.spin2((s[0], s[1], s[2])):
                out[key] += scale * w
        return tuple(out.items())

    def add(self, w: int, key: Outcome, marks_before: int = 0) -> None:
        self.acc[(key[0], key[1], min(self.cap, marks_before + key[2]))] += w

    def hold(self, w: int, stops: tuple[int, int, int], pair: list[int], marks: int) -> None:
        """w over 1000^3 x W, times a respin's weight over R."""
        for key, q in self.respin(stops, tuple(pair)):
            self.add(w * q, key, marks)

    def spin1(self, stops: tuple[int, int, int]) -> None:
        """One stops of spin 1, its branches' weights adding up to ``unit``."""
        lo, game, r_total = self.lo, self.game, self.r_total
        r = lo.result(stops)
        if lo.is_prize(r):
            self.add(self.unit, _final_key(game, stops))
            return
        rest = 1000  # the hold draw's share left (over 1000)
        if r["pair"] is not None:
            self.hold(self.h * 1000 * self.tw * 1000, stops, r["pair"], lo.vertical_marks(stops))
            rest = 1000 - self.h
        if not lo.near_miss(stops):
            self.add(rest * 1000 * self.tw * 1000 * r_total, _final_key(game, stops))
            return
        for k, w in self.counts:
            q = rest * self.nu * w  # over 1000 x 1000 x W
            s2 = lo.nudged(stops, lo.best_nudges(stops, k, True))
            r2 = lo.result(s2)
            if not lo.is_prize(r2) and r2["pair"] is not None:
                self.hold(q * self.hn, s2, r2["pair"], lo.vertical_marks(s2))
                self.add(q * (1000 - self.hn) * r_total, _final_key(game, s2))
            else:
                self.add(q * 1000 * r_total, _final_key(game, s2))
        self.add(rest * (1000 - self.nu) * self.tw * 1000 * r_total, _final_key(game, stops))


@functools.cache
def lower_distribution(game: IsmaelBeiro) -> dict[tuple[str, int, int], Fraction]:
    """Exact distribution of the lower game's outcome under the automatic choices: {(kind, value, vertical
    lines added (capped at 9)): probability}. Follows ``game.py`` step by step: spin 1; a pair with the hold draw
    below its per mille is held (the automatic pair) and respun; otherwise a near miss with the nudge draw below its
    per mille gets 1-4 nudges (AUTO-ADVANCE), after which a pair may be held (its own draw); the respin may get
    nudges too (no hold). The vertical marks of each spin's final line count.

    Integer weights throughout (one Fraction per outcome at the end): a respin's outcomes over R = 16^3 x 1000 x W
    (W = the nudge counts' total weight), spin 1's branches over 1000 (hold) x 1000 x W (nudges) x 1000 (a hold
    after nudges) x R, the stops over 16^3."""
    e = _LowerEnumeration(game)
    for s in itertools.product(range(e.n), repeat=3):
        e.spin1((s[0], s[1], s[2]))
    denominator = e.n**3 * e.unit
    assert sum(e.acc.values()) == denominator, "the branches' weights must add up to one"
    return {k: Fraction(w, denominator) for k, w in e.acc.items()}


def confessional_means(game: IsmaelBeiro) -> tuple[Fraction, dict[int, Fraction]]:
    """The lower Confessional: E[cash prize] x stake, and P(upper games = n)."""
    table = game.d["confessional"]["prizes"]
    tw = sum(w for _, w in table)
    cash = sum((Fraction(v * w, tw) for (k, v), w in table if k == "cash"), Fraction(0))
    bonus: dict[int, Fraction] = defaultdict(Fraction)
    for (k, v), w in table:
        if k == "bonus":
            bonus[v] += Fraction(w, tw)
    return cash, dict(bonus)


def exact_base(game: IsmaelBeiro) -> dict[str, Fraction]:
    """The lower game's cash as awarded, in stakes: direct prizes and the Confessional's cash prizes."""
    dist = lower_distribution(game)
    direct = sum((p * v for (k, v, _), p in dist.items() if k == "cash"), Fraction(0))
    p_conf = sum((p for (k, _, _), p in dist.items() if k == "confessional"), Fraction(0))
    cash, _ = confessional_means(game)
    return {"base_lines": direct, "base_confessional": p_conf * cash}


def lower_summary(game: IsmaelBeiro) -> dict[str, Any]:
    """Frequencies of the lower game's outcomes (exact fractions) and the upper games it gives per round."""
    dist = lower_distribution(game)
    _, conf_bonus = confessional_means(game)
    p = {
        k: sum((q for (kk, _, _), q in dist.items() if kk == k), Fraction(0))
        for k in ("cash", "bonus", "confessional", "none")
    }
    upper_games = sum((q * v for (k, v, _), q in dist.items() if k == "bonus"), Fraction(0))
    upper_games += p["confessional"] * sum((q * v for v, q in conf_bonus.items()), Fraction(0))
    return {"p": p, "upper_games_per_round": upper_games}


# --- the upper game ----------------------------------------------------------------------------------------------
def spin_classes(game: IsmaelBeiro, level: int, vertical: bool) -> tuple[dict[tuple[float, bool, bool], float], float]:
    """One upper game's outcomes grouped by (expected cash x stake, CAMERA, CLAPPER): probabilities; and the WINNING
    SPIN's expected cash. Cash = line pays + mixed sevens (the Mixed prize's mean at bets with it, the fixed prize
    otherwise) + P(selector) x the minigame prize's mean (the supplement's bonuses are counted separately)."""
    d = game.d
    up = d["upper"]
    mg = d["minigames"]
    mg_mean = features.weighted_mean(mg["prizes"])
    mixed = features.weighted_mean(mg["mixed_prizes"]) if game.bets[level]["mixed"] else up["mixed_sevens_fixed"]
    top = game.max_prize

    def cash(stops: tuple[int, int, int]) -> float:
        e = game.upper.evaluate(stops, vertical)
        ps = max((up["selector_per_mille"][t] for t in e["triggers"]), default=0) / 1000
        return float(min(top, e["line_pay"] + len(e["mixed_lines"]) * mixed + ps * mg_mean))

    classes: dict[tuple[float, bool, bool], float] = defaultdict(float)
    each = 1 / len(game.upper.all_stops)
    for s in game.upper.all_stops:
        e = game.upper.evaluate(s, vertical)
        classes[(cash(s), e["camera"], e["clapper"])] += each
    wins = game.upper.winning_stops(vertical)
    return dict(classes), sum(cash(s) for s in wins) / len(wins)


def selector_probability(game: IsmaelBeiro, vertical: bool) -> float:
    up = game.d["upper"]
    total = 0.0
    for s in game.upper.all_stops:
        e = game.upper.evaluate(s, vertical)
        total += max((up["selector_per_mille"][t] for t in e["triggers"]), default=0) / 1000
    return total / len(game.upper.all_stops)


def upper_values(game: IsmaelBeiro, level: int = 0, max_games: int = 64) -> np.ndarray:
    """V[g, vl, acc]: the expected cash (x the upper stake) of g upper games at ``level`` still to play, with the
    vertical-line counter at vl and the cumulative at acc, everything collected (no Double-or-Bonuses). Leaves out
    the supplement's bonuses (``upper_analysis`` adds them) and the round's cap."""
    up = game.d["upper"]
    cam_lo, cam_hi = up["camera"]
    cl_lo, cl_hi = up["clapper"]
    pieces = up["cumulative_pieces"]
    vmax = game.d["lower"]["max_vertical_lines"]
    tables = {vert: spin_classes(game, level, vert) for vert in (False, True)}
    v = np.zeros((max_games + 1, vmax + 1, pieces))
    for g in range(1, max_games + 1):
        for vl in range(vmax + 1):
            vert = vl > 0
            vl1 = vl - 1 if vert else 0
            classes, win_spin = tables[vert]
            for acc in range(pieces):
                tot = 0.0
                for (c, cam, clap), p in classes.items():
                    vls = [min(vmax, vl1 + k) for k in range(cam_lo, cam_hi + 1)] if cam else [vl1]
                    accs = [acc + k for k in range(cl_lo, cl_hi + 1)] if clap else [acc]
                    fut = 0.0
                    for v2 in vls:
                        for a2 in accs:
                            if a2 >= pieces:
                                fut += win_spin + v[g - 1, v2, 0]
                            else:
                                fut += v[g - 1, v2, a2]
                    tot += p * (c + fut / (len(vls) * len(accs)))
                v[g, vl, acc] = tot
    return v


def upper_analysis(game: IsmaelBeiro, level: int = 0) -> dict[str, Any]:
    """The upper game's return per round in stakes of the round (at its own bet, everything collected): the lower
    game's distribution of upper games and vertical lines through ``upper_values``, plus the supplement (its bonuses
    valued at the marginal worth of one more upper game). Floats; the round cap is left out (the simulation has it)."""
    dist = lower_distribution(game)
    _, conf_bonus = confessional_means(game)
    values = upper_values(game, level)
    g_max = values.shape[0] - 1
    total = 0.0
    sessions: dict[tuple[int, int], float] = defaultdict(float)
    for (k, v, vl), p in dist.items():
        if k == "bonus":
            sessions[(v, vl)] += float(p)
        elif k == "confessional":
            for g, pg in conf_bonus.items():
                sessions[(g, vl)] += float(p * pg)
    games = 0.0
    for (g, vl), q in sessions.items():
        total += q * float(values[min(g, g_max), vl, 0])
        games += q * g
    mg = game.d["minigames"]
    marginal = float(values[g_max, 0, 0] - values[g_max - 1, 0, 0])
    tw = sum(w for _, w in mg["prizes"])
    sup_credits = sum((game.max_prize - x) / 4 * w for x, w in mg["prizes"]) / tw
    p_sel = (selector_probability(game, False) + selector_probability(game, True)) / 2
    supplement = games * p_sel * mg["supplement_per_mille"] / 1000 * sup_credits * marginal
    return {
        "upper": total,
        "supplement": supplement,
        "upper_games_per_round": games,
        "marginal_game_value": marginal,
        "value_of_one_game": float(values[1, 0, 0]),
        "value_of_one_game_with_vertical_lines": float(values[1, 1, 0]),
    }


def rtp_analysis(game: IsmaelBeiro) -> dict[str, Any]:
    """Exact lower game + the upper game's dynamic programme: the predicted RTP (fractions of the stake)."""
    base = exact_base(game)
    up = upper_analysis(game)
    total = float(sum(base.values())) + up["upper"] + up["supplement"]
    return {"base": {k: float(v) for k, v in base.items()}, **up, "rtp": total}
