"""Sun Terraces: 5 reels of 3, 4, 5, 4 and 3 positions, 720 ways from reel 1, a wild on reels 2-4 (follows
Pyramid: Quest for Immortality). Version 1: the ways and the wild, one spin a round (its exact RTP). Version 2 adds
Pyramid's Avalanche (the winning symbols fall away and the strip refills while wins form) with the multiplier rising
every 3 avalanches up to x10 (its RTP simulated).

Rules as implemented, the designed figures and the exact RTP: ``docs/games/sun_terraces.md``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, mech, slots, ways
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD = "WILD"
HEIGHTS = [3, 4, 5, 4, 3]  # 3 x 4 x 5 x 4 x 3 = 720 ways
COINS_PER_LEVEL = 10
PAYTABLE = {  # per way, x the line bet (bet level x coin value), 3-5 adjacent reels from the left; designed
    "JAGUAR": {3: 10, 4: 30, 5: 100},
    "CONDOR": {3: 6, 4: 20, 5: 60},
    "SERPENT": {3: 5, 4: 15, 5: 40},
    "MASK": {3: 4, 4: 10, 5: 30},
    "A": {3: 3, 4: 6, 5: 15},
    "K": {3: 2, 4: 5, 5: 12},
    "Q": {3: 2, 4: 4, 5: 10},
    "J": {3: 1, 4: 3, 5: 8},
    "10": {3: 1, 4: 2, 5: 6},
}
SYMBOL_NAMES = {
    WILD: ("Sun (wild)", "Slunce (divoký symbol)"),
    "JAGUAR": ("Jaguar", "Jaguár"),
    "CONDOR": ("Condor", "Kondor"),
    "SERPENT": ("Feathered serpent", "Opeřený had"),
    "MASK": ("Golden mask", "Zlatá maska"),
    "A": ("A", "A"),
    "K": ("K", "K"),
    "Q": ("Q", "Q"),
    "J": ("J", "J"),
    "10": ("10", "10"),
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
    "game is one spin, with no feature to choose."
)
RULES_CS = (
    "Pět válců se 3, 4, 5, 4 a 3 pozicemi: 720 způsobů výhry; sázka je 10 mincí x úroveň sázky (1-10) x hodnota "
    "mince. Symbol na sousedních válcích od levého krajního (3, 4 nebo 5 válců) vyplácí hodnotu z tabulky v sázkách "
    "na linii (úroveň x hodnota mince) krát počet způsobů (součin počtu pozic se symbolem nebo SLUNCEM na těchto "
    "válcích); výhry všech symbolů se sčítají. SLUNCE (jen 2., 3. a 4. válec) nahrazuje všechny symboly. Každá hra "
    "je jedno otočení, bez funkce k volbě."
)

DEFINITION: dict[str, Any] = {
    "code": "sun_terraces",
    "version": 1,
    "name": "Sun Terraces",
    "name_cs": "Sluneční terasy",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "29. Pyramid: Quest for Immortality",
        "figures": "RTP 96.48 %, max bet 1,000 CZK, bet level x 10 coins x coin value, 180 days",
        "features": [
            "reels of 3, 4, 5, 4 and 3 positions: 720 ways from reel 1",
            "wild on reels 2, 3 and 4, substituting for every symbol",
        ],
        "not_built": [
            "the Avalanche (winning symbols removed and replaced while wins form)",
            "wild generation on the top positions of reels 2-4",
            "the total-win multiplier rising every 3 avalanches up to x10",
        ],
    },
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {
        "model": "level",
        "coins_per_level": COINS_PER_LEVEL,
        "levels": list(range(1, 11)),
        "coin_values": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
        "default": {"level": 1, "coin_value": 10},
    },
    "par_bet": {"level": 1, "coin_value": 10},
    "rtp": "96.48",
    "unfinished_deadline_days": 180,
    "max_win_multiplier": 0,  # set below: the bound of a round (SunTerraces.max_round_multiplier)
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class SunTerraces(mech.MechSlot):
    """``start`` plays the one spin of the round (5 draws: the reels' stops) and finishes it."""

    def __init__(self, definition: dict[str, Any]) -> None:
        self.strips: list[list[str]] = definition["strips"]
        self.paytable: dict[str, dict[int, int]] = definition.get("paytable", PAYTABLE)
        self.evaluator = ways.WaysEvaluator(self.paytable, {WILD: 1})
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
        state["steps"].append(
            {
                "type": "spin",
                "mode": "base",
                "stops": stops,
                "heights": HEIGHTS,
                "ways": 720,
                "window": window,
                **res,
                "win": paid,
                "features": ["wild"] if with_wild and res["win"] else [],
            }
        )
        return slots.finish(state)

    # --- exact RTP and the bound of a round -----------------------------------------------------------------------
    def max_round_multiplier(self) -> int:
        """A bound of a round in stakes: reel 1 shows at most 3 symbols, so at most the 3 largest symbol bounds
        (top pay x most ways on these strips) win, / 10 line bets a stake."""
        b = sorted(
            (max(p.values()) * ways.max_ways(self.evaluator, self.strips, HEIGHTS, s) for s, p in PAYTABLE.items()),
            reverse=True,
        )
        return math.ceil(Fraction(sum(b[: HEIGHTS[0]]), COINS_PER_LEVEL))

    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        return {"base": ways.expected_pay(self.evaluator, self.strips, HEIGHTS) / COINS_PER_LEVEL}

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction] | None:
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
        counts = [
            np.array(
                [[self.evaluator.count(slots.column(st, stop, h), s) for s in syms] for stop in range(len(st))],
                dtype=np.int64,
            )
            for st, h in zip(self.strips, HEIGHTS)
        ]
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
        return {
            "reels": 5,
            "heights": HEIGHTS,
            "ways": math.prod(HEIGHTS),
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {
                "unit": "line_bet_per_way",
                "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
            },
            "features": {"wild": {"symbol": WILD, "reels": [2, 3, 4]}},
        }


# --- version 2: the Avalanche and the rising multiplier (Pyramid's avalanche) ---------------------------------------
SYMBOLS = [*PAYTABLE, WILD]  # the codes of the fast simulator's columns
MULTIPLIER_EVERY, MULTIPLIER_MAX = 3, 10
# version 1's pays with four more: K x4 6 (v1: 5), J x3 2 (1), 10 x4 3 (2), 10 x5 7 (6); the avalanche and its
# multiplier make up for the rest of the RTP the strips below take away (designed: tuned by simulation, the RTP
# being linear in the pays; the catalogue's example, 3 K pay 2 line bets, holds)
PAYTABLE_V2 = {
    s: {k: {("K", 4): 6, ("J", 3): 2, ("10", 4): 3, ("10", 5): 7}.get((s, k), v) for k, v in p.items()}
    for s, p in PAYTABLE.items()
}
# each symbol is rare (one stop) on one of reels 1-3: the three groups below, rare on reels 1, 2 and 3 in turn, so
# that about a third of the spins win and an avalanche goes on about as often (designed)
RARE_ON = [["SERPENT", "MASK", "Q"], ["JAGUAR", "A", "J"], ["CONDOR", "K", "10"]]
_COUNTS_V2 = {"JAGUAR": 3, "CONDOR": 4, "SERPENT": 4, "MASK": 5, "A": 6, "K": 7, "Q": 7, "J": 8, "10": 8}
REEL_COUNTS_V2: list[dict[str, int]] = [
    {s: 1 if j < 3 and s in RARE_ON[j] else c for s, c in _COUNTS_V2.items()} | ({WILD: 1} if 1 <= j <= 3 else {})
    for j in range(5)
]
MAX_WIN_V2 = 1000  # the round's cap in stakes (stated: an avalanche has no bound of its own below it)

RULES_EN_V2 = (
    "Five reels with 3, 4, 5, 4 and 3 positions: 720 ways; the bet is 10 coins x bet level (1-10) x coin value. A "
    "symbol on adjacent reels from the leftmost one (3, 4 or 5 reels) pays the paytable value in line bets (level x "
    "coin value) times the number of ways (the product of how many positions show it or the SUN on each of those "
    "reels); the wins of all symbols are added. The SUN (reels 2, 3 and 4 only) substitutes for every symbol. "
    "Avalanche: every symbol of a winning way (a SUN in it too) falls away, the symbols above drop down and new "
    "ones fall in from the reel above; the new window pays again, and so on until it has no win. The spin and the "
    "first two avalanches pay x1; every 3 avalanches raise the multiplier by 1 (avalanches 3-5 x2, 6-8 x3, ...), up "
    "to x10, where it stays while the avalanche lasts. The whole avalanche is one game and plays by itself. A game "
    "pays at most 1,000 x the total bet."
)
RULES_CS_V2 = (
    "Pět válců se 3, 4, 5, 4 a 3 pozicemi: 720 způsobů výhry; sázka je 10 mincí x úroveň sázky (1-10) x hodnota "
    "mince. Symbol na sousedních válcích od levého krajního (3, 4 nebo 5 válců) vyplácí hodnotu z tabulky v sázkách "
    "na linii (úroveň x hodnota mince) krát počet způsobů (součin počtu pozic se symbolem nebo SLUNCEM na těchto "
    "válcích); výhry všech symbolů se sčítají. SLUNCE (jen 2., 3. a 4. válec) nahrazuje všechny symboly. Lavina: "
    "všechny symboly výherních způsobů (i SLUNCE v nich) zmizí, symboly nad nimi spadnou dolů a shora dopadnou nové "
    "z válce; nové okno znovu vyplácí, dokud nemá výhru. Otočení a první dvě laviny platí x1; každé 3 laviny zvýší "
    "násobitel o 1 (laviny 3-5 x2, 6-8 x3, ...) až na x10, kde zůstane do konce laviny. Celá lavina je jedna hra a "
    "hraje se sama. Jedna hra vyplatí nejvýše 1 000násobek celkové sázky."
)

DEFINITION_V2: dict[str, Any] = {
    **DEFINITION,
    "version": 2,
    "paytable": PAYTABLE_V2,
    "follows": {
        **DEFINITION["follows"],
        "features": DEFINITION["follows"]["features"]
        + [
            "the Avalanche: the symbols of every winning way fall away and the reel strip refills while wins form",
            "the multiplier rising by 1 every 3 avalanches up to x10",
        ],
        "not_built": ["wild generation on the top positions of reels 2-4"],
    },
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS_V2],
    "max_win_multiplier": MAX_WIN_V2,
    "rules_en": RULES_EN_V2,
    "rules_cs": RULES_CS_V2,
}


def multiplier(avalanche: int) -> int:
    """The win multiplier of the spin (0) and of the n-th avalanche: +1 every 3 avalanches, at most x10."""
    return min(1 + avalanche // MULTIPLIER_EVERY, MULTIPLIER_MAX)


class SunTerracesAvalanche(SunTerraces):
    """Version 2: ``start`` plays the spin (5 draws: the stops) and its avalanches, which follow from the stops (the
    strips refill, ``cascade.refill``: no further draw), and finishes the round: the player has no action in it and
    nothing is drawn again (GP §7(3))."""

    def removed(self, window: list[list[str]], wins: list[list[Any]]) -> list[tuple[int, int]]:
        """The cells of every winning way: the symbol or the wild on each of its reels."""
        return [(j, r) for s, k, *_ in wins for j in range(k) for r, x in enumerate(window[j]) if x in (s, WILD)]

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        lb = self.pay_unit(bet.params)
        stops = slots.draw_stops(self.strips, rng)
        window = [slots.column(s, stop, h) for s, stop, h in zip(self.strips, stops, HEIGHTS)]
        pointers = list(stops)
        n, with_wild = 0, False
        while True:
            mult = multiplier(n)
            res = self.spin_result(window, lb * mult)
            wins = res["ways_wins"]
            with_wild = with_wild or any(WILD in col for w in wins for col in window[: w[1]])
            step: JsonDict = {
                "type": "spin" if n == 0 else "avalanche",
                "mode": "base",
                "avalanche": n,
                "multiplier": mult,
            }
            if n == 0:
                step.update(stops=stops, heights=HEIGHTS, ways=720)
            step.update(window=window, **res)
            step["win"] = self.pay(state, "base", res["win"])
            if step["win"] < res["win"]:
                step["capped"] = True
            state["steps"].append(step)
            if not wins or state["capped"]:
                break
            window, pointers = cascade.refill(self.strips, pointers, window, self.removed(window, wins))
            n += 1
        state["steps"][0]["features"] = (
            (["wild"] if with_wild else [])
            + (["avalanche"] if n else [])
            + (["multiplier"] if multiplier(n) > 1 else [])
        )
        return slots.finish(state)

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction] | None:
        """None: the avalanches couple the reels (simulated, ``simulate_fast``)."""
        return None

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast_v2(self) -> JsonDict:
        """Per reel: its columns as integers (``cascade.ColumnTables``, 10 codes), for every column the count of each
        symbol with the wild (int8) and the bit mask of those rows; the same per stop; the pays by symbol and
        reels."""
        nsym = len(PAYTABLE)
        pays = np.zeros((6, nsym), dtype=np.int32)
        for i, s in enumerate(PAYTABLE):
            for k, v in self.paytable[s].items():
                pays[k, i] = v
        cts, cnt, msk, cnt_stop = [], [], [], []
        for st, h in zip(self.strips, HEIGHTS):
            ct = cascade.ColumnTables([st], SYMBOLS, h)
            wild = (ct.codes == SYMBOLS.index(WILD))[:, :, None]
            hit = (ct.codes[:, :, None] == np.arange(nsym)[None, None, :]) | wild
            cts.append(ct)
            cnt.append(hit.sum(axis=1).astype(np.int8))
            msk.append((hit * (1 << np.arange(h))[None, :, None]).sum(axis=1).astype(np.int64))
            cnt_stop.append(cnt[-1][ct.start_col[0]])
        return {"pays": pays, "cts": cts, "cnt": cnt, "msk": msk, "cnt_stop": cnt_stop}

    def _evaluate(self, counts: list[npt.NDArray[np.int8]]) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int8]]:
        """(m,) the ways wins in line bets and (m, 9) the reels each symbol spans (0 below 3) of windows given by
        their per-reel symbol counts (m, 9)."""
        ways_ = counts[0].astype(np.int32)
        alive = counts[0] > 0
        k = alive.astype(np.int8)
        for j in range(1, 5):
            alive &= counts[j] > 0
            ways_ = np.where(alive, ways_ * counts[j], ways_)
            k += alive
        k[k < 3] = 0
        pays = self._fast_v2["pays"]
        units: npt.NDArray[np.int32] = (pays[k, np.arange(k.shape[1])[None, :]] * ways_).sum(axis=1, dtype=np.int32)
        return units, k

    def sequence_units(
        self, stops: npt.NDArray[np.int64], cap_units: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """For each row of ``stops`` (n, 5): the spin-and-avalanches win in line bets (at most ``cap_units``) and
        the number of avalanches; the same as :meth:`start`. All rows' spins at once, then avalanche by avalanche
        only the rows whose last window won."""
        t = self._fast_v2
        n = stops.shape[0]
        units, k = self._evaluate([t["cnt_stop"][j][stops[:, j]] for j in range(5)])
        total = units.astype(np.int64)
        aval = np.zeros(n, dtype=np.int64)
        act = np.nonzero((units > 0) & (total < cap_units))[0]
        k = k[act]
        ptr = stops[act]
        cols = np.stack([t["cts"][j].start_col[0][ptr[:, j]] for j in range(5)], axis=1)
        step = 0
        while act.size:
            for j in range(5):  # the refill: each reel loses the rows of the symbols whose ways span it
                rm = np.bitwise_or.reduce(np.where(k > j, t["msk"][j][cols[:, j]], 0), axis=1)
                o, p = t["cts"][j].refill(cols[:, j : j + 1], ptr[:, j : j + 1], rm[:, None])
                cols[:, j], ptr[:, j] = o[:, 0], p[:, 0]
            step += 1
            aval[act] += 1
            units, k = self._evaluate([t["cnt"][j][cols[:, j]] for j in range(5)])
            total[act] = np.minimum(total[act] + units.astype(np.int64) * multiplier(step), cap_units)
            go = (units > 0) & (total[act] < cap_units)
            act, cols, ptr, k = act[go], cols[go], ptr[go], k[go]
        return np.minimum(total, cap_units), aval

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's spin from per-stop count tables, then the avalanches of the winning rows side by
        side (columns as integers, ``cascade.ColumnTables``); the cap applied to each round's total."""
        gen = np.random.Generator(np.random.PCG64(seed))
        lb = self.pay_unit(bet.params)
        cap_units = self.max_win_multiplier * COINS_PER_LEVEL  # the stake is 10 line bets
        tally = mech.FastTally(("base",))
        counts = {"avalanches": 0, "feature:avalanche": 0, "feature:multiplier": 0, "capped": 0}
        for n in mech.batches(rounds, 250_000, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            units, aval = self.sequence_units(stops, cap_units)
            counts["avalanches"] += int(aval.sum())
            counts["feature:avalanche"] += int(np.count_nonzero(aval))
            counts["feature:multiplier"] += int(np.count_nonzero(aval >= MULTIPLIER_EVERY))
            counts["capped"] += int(np.count_nonzero(units >= cap_units))
            tally.add(base=units * lb)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)

    def describe_extra(self) -> JsonDict:
        out = super().describe_extra()
        out["paytable"]["pays"] = {s: {str(k): v for k, v in p.items()} for s, p in self.paytable.items()}
        out["features"]["avalanche"] = {"multiplier": {"every": MULTIPLIER_EVERY, "max": MULTIPLIER_MAX}}
        return out


SUN_TERRACES_V1 = register(SunTerraces(DEFINITION))
SUN_TERRACES = register(SunTerracesAvalanche(DEFINITION_V2))  # current: the Avalanche and the rising multiplier
