"""Rising Reels: 5 reels whose windows grow with every winning re-spin, 45 -> 135 -> 405 -> 675 -> 1,125 -> 1,875
ways, and 8 free spins on 3,125 ways after a win on the fifth re-spin (follows Reel Rush).

Rules as implemented, the designed figures and the exact RTP: ``docs/games/rising_reels.md``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .. import mech, slots, ways
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD = "WILD"
PAYTABLE = {  # per way, x the line bet (bet level x coin value), 3-5 adjacent reels from the left
    "SEVEN": {3: 10, 4: 40, 5: 150},
    "BELL": {3: 6, 4: 25, 5: 100},
    "PLUM": {3: 4, 4: 15, 5: 60},
    "GRAPES": {3: 3, 4: 10, 5: 40},
    "ORANGE": {3: 2, 4: 6, 5: 25},
    "LEMON": {3: 1, 4: 4, 5: 15},
    "CHERRY": {3: 1, 4: 3, 5: 10},
}
SYMBOL_NAMES = {
    WILD: ("Wild", "Divoký symbol"),
    "BLANK": ("Blank", "Prázdné pole"),
    "SEVEN": ("Seven", "Sedmička"),
    "BELL": ("Bell", "Zvonek"),
    "PLUM": ("Plum", "Švestka"),
    "GRAPES": ("Grapes", "Hrozny"),
    "ORANGE": ("Orange", "Pomeranč"),
    "LEMON": ("Lemon", "Citron"),
    "CHERRY": ("Cherry", "Třešně"),
}
# the positions open on each reel: the spin, re-spins 1-5, the free spins
STAGES = [[1, 3, 5, 3, 1], [3, 3, 5, 3, 1], [3, 3, 5, 3, 3], [3, 5, 5, 3, 3], [5, 5, 5, 3, 3], [5, 5, 5, 5, 3]]
FREE_SPIN_HEIGHTS = [5, 5, 5, 5, 5]
MAX_RESPINS = 5
FREE_SPINS = 8
REEL_COUNTS: list[dict[str, int]] = [  # designed (docs/games/rising_reels.md)
    {"SEVEN": 2, "BELL": 3, "PLUM": 4, "GRAPES": 5, "ORANGE": 7, "LEMON": 7, "CHERRY": 8, "BLANK": 7},
    {WILD: 1, "SEVEN": 2, "BELL": 3, "PLUM": 4, "GRAPES": 5, "ORANGE": 6, "LEMON": 7, "CHERRY": 8, "BLANK": 7},
    {WILD: 1, "SEVEN": 2, "BELL": 3, "PLUM": 4, "GRAPES": 5, "ORANGE": 6, "LEMON": 7, "CHERRY": 9, "BLANK": 7},
    {WILD: 1, "SEVEN": 2, "BELL": 3, "PLUM": 4, "GRAPES": 5, "ORANGE": 6, "LEMON": 6, "CHERRY": 8, "BLANK": 7},
    {WILD: 2, "SEVEN": 2, "BELL": 3, "PLUM": 5, "GRAPES": 5, "ORANGE": 6, "LEMON": 7, "CHERRY": 8, "BLANK": 7},
]

RULES_EN = (
    "Five reels; the bet is 50 coins x bet level (1-10) x coin value. A symbol on adjacent reels from the leftmost "
    "one (3, 4 or 5 reels) pays the paytable value in line bets (level x coin value) times the number of ways (the "
    "product of how many open positions show it on each of those reels); the wins of all symbols are added. WILD "
    "(reels 2-5) substitutes for every symbol. The spin has 1, 3, 5, 3 and 1 open positions (45 ways). Every win "
    "gives a free re-spin that opens 2 more positions: 135, 405, 675, 1,125 and 1,875 ways, at most 5 re-spins; a "
    "spin without a win ends them. A win on the fifth re-spin gives 8 free spins on all 25 positions (3,125 ways), "
    "at the same bet; free spins are not won again. Re-spins play by themselves; the whole sequence is one game."
)
RULES_CS = (
    "Pět válců; sázka je 50 mincí x úroveň sázky (1-10) x hodnota mince. Symbol na sousedních válcích od levého "
    "krajního (3, 4 nebo 5 válců) vyplácí hodnotu z tabulky v sázkách na linii (úroveň x hodnota mince) krát počet "
    "způsobů (součin počtu otevřených pozic se symbolem na těchto válcích); výhry všech symbolů se sčítají. WILD "
    "(2.-5. válec) nahrazuje všechny symboly. Otočení má 1, 3, 5, 3 a 1 otevřenou pozici (45 způsobů). Každá výhra "
    "dá otočení zdarma, které otevře 2 další pozice: 135, 405, 675, 1 125 a 1 875 způsobů, nejvýše 5 otočení; "
    "otočení bez výhry je ukončí. Výhra v pátém otočení dá 8 volných otočení na všech 25 pozicích (3 125 způsobů) "
    "se stejnou sázkou; volná otočení nelze získat znovu. Otočení se hrají sama; celý sled je jedna hra."
)

DEFINITION: dict[str, Any] = {
    "code": "rising_reels",
    "version": 1,
    "name": "Rising Reels",
    "name_cs": "Rostoucí válce",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "30. Reel Rush",
        "figures": "RTP 97.00 %, max bet 1,000 CZK, bet level x 50 coins x coin value, 180 days",
        "features": [
            "ways from reel 1, growing 45 -> 135 -> 405 -> 675 -> 1125 -> 1875",
            "any win: a re-spin opening 2 positions, at most 5",
            "a win on the 5th re-spin: 8 free spins on 3125 ways, no retrigger",
            "wild on reels 2-5",
        ],
    },
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {
        "model": "level",
        "coins_per_level": 50,
        "levels": list(range(1, 11)),
        "coin_values": [1, 2, 5, 10, 20, 50, 100, 200],
        "default": {"level": 1, "coin_value": 2},
    },
    "par_bet": {"level": 1, "coin_value": 2},
    "rtp": "97.00",
    "unfinished_deadline_days": 180,
    "max_win_multiplier": 0,  # set below: the bound of a round (RisingReels.max_round_multiplier)
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class RisingReels(mech.MechSlot):
    """``start`` plays the spin and its re-spins; a win on the fifth re-spin waits for 8 ``{"type": "spin"}``."""

    def __init__(self, definition: dict[str, Any]) -> None:
        self.strips: list[list[str]] = definition["strips"]
        self.evaluator = ways.WaysEvaluator(PAYTABLE, {WILD: 1})
        super().__init__(definition)

    def spin(self, rng: RNG, heights: list[int], line_bet: int) -> JsonDict:
        stops = slots.draw_stops(self.strips, rng)
        window = [slots.column(s, stop, h) for s, stop, h in zip(self.strips, stops, heights)]
        wins = [[s, k, w, m * line_bet, d] for s, k, w, m, d in self.evaluator.evaluate(window)]
        return {
            "stops": stops,
            "heights": list(heights),
            "ways": math.prod(heights),
            "window": window,
            "ways_wins": wins,
            "win": sum(w[3] for w in wins),
        }

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        lb = self.pay_unit(bet.params)
        for n, heights in enumerate(STAGES):
            s = self.spin(rng, heights, lb)
            full = s["win"]
            s["win"] = self.pay(state, "base" if n == 0 else "bonus", full)
            state["steps"].append(
                {
                    "type": "spin" if n == 0 else "respin",
                    "mode": "base",
                    "respin": n,
                    **s,
                    "features": ["respin"] if full and n < MAX_RESPINS else [],
                }
            )
            if not full or state["capped"]:
                break
            if n == MAX_RESPINS:
                state["free_spins"] = {"awarded": FREE_SPINS, "played": 0}
                state["steps"].append(
                    {
                        "type": "trigger",
                        "feature": "free_spins",
                        "spins": FREE_SPINS,
                        "ways": math.prod(FREE_SPIN_HEIGHTS),
                    }
                )
        return self._next(state)

    def _next(self, state: JsonDict) -> JsonDict:
        fs = state.get("free_spins")
        if fs and fs["played"] < fs["awarded"] and not state["capped"]:
            return slots.await_action(
                state,
                "free_spin",
                [{"type": "spin"}],
                spins_left=fs["awarded"] - fs["played"],
                ways=math.prod(FREE_SPIN_HEIGHTS),
                free_spins_win=state["breakdown"]["free_spins"],
            )
        return slots.finish(state)

    def _act_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        fs = state["free_spins"]
        s = self.spin(rng, FREE_SPIN_HEIGHTS, self.pay_unit(state["bet"]))
        fs["played"] += 1
        s["win"] = self.pay(state, "free_spins", s["win"])
        state["steps"].append({"type": "spin", "mode": "free", "spin": fs["played"], **s})
        return self._next(state)

    # --- exact RTP ------------------------------------------------------------------------------------------------
    def p_win(self, heights: list[int]) -> Fraction:
        """P(a spin with these open positions wins): some symbol (or wild) on each of reels 1-3 (every pay needs
        3 reels), every stop combination of the first three reels enumerated."""
        syms = list(PAYTABLE)
        masks = []
        for j in range(3):
            st, h = self.strips[j], heights[j]
            masks.append(
                np.array(
                    [
                        sum(1 << i for i, s in enumerate(syms) if self.evaluator.count(slots.column(st, stop, h), s))
                        for stop in range(len(st))
                    ],
                    dtype=np.int64,
                )
            )
        both = masks[0][:, None] & masks[1][None, :]
        hits = int(np.count_nonzero((both[:, :, None] & masks[2][None, None, :]) != 0))
        return Fraction(hits, len(masks[0]) * len(masks[1]) * len(masks[2]))

    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        """Per stake (50 line bets): the spin ("base"), the re-spins ("bonus": each stage reached with the product
        of the earlier stages' P(win)) and the free spins (P(all six win) x 8 x E[spin on 3,125 ways])."""
        reach = Fraction(1)
        parts = {"base": Fraction(0), "bonus": Fraction(0), "free_spins": Fraction(0)}
        for n, heights in enumerate(STAGES):
            value = ways.expected_pay(self.evaluator, self.strips, heights) / 50
            parts["base" if n == 0 else "bonus"] += reach * value
            reach *= self.p_win(heights)
        parts["free_spins"] = (
            reach * FREE_SPINS * ways.expected_pay(self.evaluator, self.strips, FREE_SPIN_HEIGHTS) / 50
        )
        return parts

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Exact for any bet: every spin's reels are independent, so each stage is its ways expectation and the
        chance to reach it the product of the earlier stages' P(win). The cap is a bound no round reaches."""
        return dict(self._exact)

    def max_round_multiplier(self) -> int:
        """A bound of a round in stakes: per spin, the sum over the symbols that reel 1 can show (at most its
        height) of the largest symbol bounds (top pay x most ways at those heights), / 50; the 6 stages and 8 free
        spins added."""

        def spin_bound(heights: list[int]) -> Fraction:
            b = sorted(
                (max(p.values()) * ways.max_ways(self.evaluator, self.strips, heights, s) for s, p in PAYTABLE.items()),
                reverse=True,
            )
            return Fraction(sum(b[: heights[0]]), 50)

        total = sum((spin_bound(h) for h in STAGES), Fraction(0)) + FREE_SPINS * spin_bound(FREE_SPIN_HEIGHTS)
        return math.ceil(total)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        syms = list(PAYTABLE)
        pays = np.zeros((len(syms), 6), dtype=np.int64)
        for i, s in enumerate(syms):
            for k, v in PAYTABLE[s].items():
                pays[i, k] = v
        counts = {}
        for h in range(1, 6):
            counts[h] = [
                np.array(
                    [[self.evaluator.count(slots.column(st, stop, h), s) for s in syms] for stop in range(len(st))],
                    dtype=np.int64,
                )
                for st in self.strips
            ]
        return {"pays": pays, "counts": counts}

    def _ways_units(self, gen: np.random.Generator, n: int, heights: list[int]) -> np.ndarray:
        t = self._fast
        prod = t["counts"][heights[0]][0][gen.integers(0, len(self.strips[0]), size=n)]
        alive = prod > 0
        k = alive.astype(np.int64)
        for j in range(1, 5):
            c = t["counts"][heights[j]][j][gen.integers(0, len(self.strips[j]), size=n)]
            alive = alive & (c > 0)
            prod = np.where(alive, prod * c, prod)
            k += alive
        out: np.ndarray = (t["pays"][np.arange(prod.shape[1])[None, :], k] * prod).sum(axis=1)
        return out

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every stage for the rounds still going, then the free spins."""
        gen = np.random.Generator(np.random.PCG64(seed))
        lb = self.pay_unit(bet.params)
        tally = mech.FastTally(("base", "bonus", "free_spins"))
        counts = {"respins": 0, "feature:free_spins": 0}
        for n in mech.batches(rounds, 200_000, progress):
            base = np.zeros(n, dtype=np.int64)
            bonus = np.zeros(n, dtype=np.int64)
            fs = np.zeros(n, dtype=np.int64)
            act = np.arange(n)
            for st, heights in enumerate(STAGES):
                if not act.size:
                    break
                if st:
                    counts["respins"] += int(act.size)
                u = self._ways_units(gen, act.size, heights)
                (base if st == 0 else bonus)[act] += u * lb
                act = act[u > 0]
            counts["feature:free_spins"] += int(act.size)
            for _ in range(FREE_SPINS):
                if act.size:
                    fs[act] += self._ways_units(gen, act.size, FREE_SPIN_HEIGHTS) * lb
            tally.add(base=base, bonus=bonus, free_spins=fs)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)

    def describe_extra(self) -> JsonDict:
        return {
            "reels": 5,
            "rows": 5,
            "stages": [{"heights": h, "ways": math.prod(h)} for h in STAGES],
            "free_spins": {"heights": FREE_SPIN_HEIGHTS, "ways": math.prod(FREE_SPIN_HEIGHTS), "spins": FREE_SPINS},
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {
                "unit": "line_bet_per_way",
                "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
            },
        }


RISING_REELS = register(RisingReels(DEFINITION))
