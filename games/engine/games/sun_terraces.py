"""Sun Terraces: 5 reels of 3, 4, 5, 4 and 3 positions, 720 ways from reel 1, a wild on reels 2-4 (follows
Pyramid: Quest for Immortality's ways and wild; its avalanche is not built).

Rules as implemented, the designed figures and the exact RTP: ``docs/games/sun_terraces.md``.
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
HEIGHTS = [3, 4, 5, 4, 3]  # 3 x 4 x 5 x 4 x 3 = 720 ways
COINS_PER_LEVEL = 10
PAYTABLE = {  # per way, x the line bet (bet level x coin value), 3-5 adjacent reels from the left; designed
    "JAGUAR": {3: 10, 4: 30, 5: 100}, "CONDOR": {3: 6, 4: 20, 5: 60}, "SERPENT": {3: 5, 4: 15, 5: 40},
    "MASK": {3: 4, 4: 10, 5: 30}, "A": {3: 3, 4: 6, 5: 15}, "K": {3: 2, 4: 5, 5: 12}, "Q": {3: 2, 4: 4, 5: 10},
    "J": {3: 1, 4: 3, 5: 8}, "10": {3: 1, 4: 2, 5: 6},
}
SYMBOL_NAMES = {
    WILD: ("Sun (wild)", "Slunce (divoký symbol)"), "JAGUAR": ("Jaguar", "Jaguár"), "CONDOR": ("Condor", "Kondor"),
    "SERPENT": ("Feathered serpent", "Opeřený had"), "MASK": ("Golden mask", "Zlatá maska"), "A": ("A", "A"),
    "K": ("K", "K"), "Q": ("Q", "Q"), "J": ("J", "J"), "10": ("10", "10"),
}
REEL_COUNTS: list[dict[str, int]] = [  # designed (docs/games/sun_terraces.md): the exact RTP within 0.005 pp
    {"JAGUAR": 2, "CONDOR": 3, "SERPENT": 4, "MASK": 4, "A": 6, "K": 9, "Q": 9, "J": 10, "10": 11},
    {"JAGUAR": 1, "CONDOR": 3, "SERPENT": 3, "MASK": 5, "A": 7, "K": 8, "Q": 8, "J": 10, "10": 11, WILD: 2},
    {"JAGUAR": 2, "CONDOR": 3, "SERPENT": 4, "MASK": 4, "A": 7, "K": 10, "Q": 9, "J": 10, "10": 11, WILD: 2},
    {"JAGUAR": 2, "CONDOR": 3, "SERPENT": 4, "MASK": 5, "A": 7, "K": 8, "Q": 9, "J": 9, "10": 11, WILD: 2},
    {"JAGUAR": 2, "CONDOR": 3, "SERPENT": 4, "MASK": 4, "A": 7, "K": 8, "Q": 10, "J": 10, "10": 11},
]

RULES_EN = (
    "Five reels with 3, 4, 5, 4 and 3 positions: 720 ways; the bet is 10 coins x bet level (1-10) x coin value. A "
    "symbol on adjacent reels from the leftmost one (3, 4 or 5 reels) pays the paytable value in line bets (level x "
    "coin value) times the number of ways (the product of how many positions show it or the SUN on each of those "
    "reels); the wins of all symbols are added. The SUN (reels 2, 3 and 4 only) substitutes for every symbol. Every "
    "game is one spin, with no feature to choose.")
RULES_CS = (
    "Pět válců se 3, 4, 5, 4 a 3 pozicemi: 720 způsobů výhry; sázka je 10 mincí x úroveň sázky (1-10) x hodnota "
    "mince. Symbol na sousedních válcích od levého krajního (3, 4 nebo 5 válců) vyplácí hodnotu z tabulky v sázkách "
    "na linii (úroveň x hodnota mince) krát počet způsobů (součin počtu pozic se symbolem nebo SLUNCEM na těchto "
    "válcích); výhry všech symbolů se sčítají. SLUNCE (jen 2., 3. a 4. válec) nahrazuje všechny symboly. Každá hra "
    "je jedno otočení, bez funkce k volbě.")

DEFINITION: dict[str, Any] = {
    "code": "sun_terraces", "version": 1, "name": "Sun Terraces", "name_cs": "Sluneční terasy",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {"catalogue": "Tipsport Games, Part two", "entry": "29. Pyramid: Quest for Immortality",
                "figures": "RTP 96.48 %, max bet 1,000 CZK, bet level x 10 coins x coin value, 180 days",
                "features": ["reels of 3, 4, 5, 4 and 3 positions: 720 ways from reel 1",
                             "wild on reels 2, 3 and 4, substituting for every symbol"],
                "not_built": ["the Avalanche (winning symbols removed and replaced while wins form)",
                              "wild generation on the top positions of reels 2-4",
                              "the total-win multiplier rising every 3 avalanches up to x10"]},
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {"model": "level", "coins_per_level": COINS_PER_LEVEL, "levels": list(range(1, 11)),
            "coin_values": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000], "default": {"level": 1, "coin_value": 10}},
    "par_bet": {"level": 1, "coin_value": 10},
    "rtp": "96.48", "unfinished_deadline_days": 180,
    "max_win_multiplier": 0,  # set below: the bound of a round (SunTerraces.max_round_multiplier)
    "rules_en": RULES_EN, "rules_cs": RULES_CS,
}


class SunTerraces(mech.MechSlot):
    """``start`` plays the one spin of the round (5 draws: the reels' stops) and finishes it."""

    def __init__(self, definition: dict[str, Any]) -> None:
        self.strips: list[list[str]] = definition["strips"]
        self.evaluator = ways.WaysEvaluator(PAYTABLE, {WILD: 1})
        super().__init__(definition)

    def spin_result(self, window: list[list[str]], line_bet: int) -> JsonDict:
        wins = [[s, k, w, m * line_bet, d] for s, k, w, m, d in self.evaluator.evaluate(window)]
        return {"ways_wins": wins, "win": sum(w[3] for w in wins)}

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        stops = slots.draw_stops(self.strips, rng)
        window = [slots.column(s, stop, h) for s, stop, h in zip(self.strips, stops, HEIGHTS)]
        res = self.spin_result(window, self.pay_unit(bet.params))
        with_wild = any(WILD in col for col in window[: max((w[1] for w in res["ways_wins"]), default=0)])
        paid = self.pay(state, "base", res["win"])
        state["steps"].append({"type": "spin", "mode": "base", "stops": stops, "heights": HEIGHTS, "ways": 720,
                               "window": window, **res, "win": paid,
                               "features": ["wild"] if with_wild and res["win"] else []})
        return slots.finish(state)

    # --- exact RTP and the bound of a round -----------------------------------------------------------------------
    def max_round_multiplier(self) -> int:
        """A bound of a round in stakes: reel 1 shows at most 3 symbols, so at most the 3 largest symbol bounds
        (top pay x most ways on these strips) win, / 10 line bets a stake."""
        b = sorted((max(p.values()) * ways.max_ways(self.evaluator, self.strips, HEIGHTS, s)
                    for s, p in PAYTABLE.items()), reverse=True)
        return math.ceil(Fraction(sum(b[: HEIGHTS[0]]), COINS_PER_LEVEL))

    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        return {"base": ways.expected_pay(self.evaluator, self.strips, HEIGHTS) / COINS_PER_LEVEL}

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Exact for any bet: the reels are independent, so the ways expectation is the reel-by-reel product
        (``ways.expected_pay``, tested against enumeration with these heights). The cap is a bound no round
        reaches."""
        return dict(self._exact)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        syms = list(PAYTABLE)
        pays = np.zeros((len(syms), 6), dtype=np.int64)
        for i, s in enumerate(syms):
            for k, v in PAYTABLE[s].items():
                pays[i, k] = v
        counts = [np.array([[self.evaluator.count(slots.column(st, stop, h), s) for s in syms]
                            for stop in range(len(st))], dtype=np.int64) for st, h in zip(self.strips, HEIGHTS)]
        return {"pays": pays, "counts": counts}

    def win_units(self, stops: np.ndarray) -> np.ndarray:
        """(n,) the ways wins in line bets of the windows at ``stops`` (n, 5)."""
        t = self._fast
        prod = t["counts"][0][stops[:, 0]]
        alive = prod > 0
        k = alive.astype(np.int64)
        for j in range(1, 5):
            c = t["counts"][j][stops[:, j]]
            alive = alive & (c > 0)
            prod = np.where(alive, prod * c, prod)
            k += alive
        out: np.ndarray = (t["pays"][np.arange(prod.shape[1])[None, :], k] * prod).sum(axis=1)
        return out

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: per-reel count tables of every symbol, the ways as running products over the reels."""
        gen = np.random.Generator(np.random.PCG64(seed))
        lb = self.pay_unit(bet.params)
        tally = mech.FastTally(("base",))
        for n in mech.batches(rounds, 500_000, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            tally.add(base=self.win_units(stops) * lb)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts={})

    def describe_extra(self) -> JsonDict:
        return {"reels": 5, "heights": HEIGHTS, "ways": math.prod(HEIGHTS),
                "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
                "paytable": {"unit": "line_bet_per_way",
                             "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()}},
                "features": {"wild": {"symbol": WILD, "reels": [2, 3, 4]}}}


SUN_TERRACES = register(SunTerraces(DEFINITION))
