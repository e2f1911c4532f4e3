"""Prism Respin: 5x3 slot, 10 fixed lines paying both ways, expanding sticky wilds on reels 2-4 with re-spins
(follows Starburst).

Rules as implemented, the designed figures and the exact RTP: ``docs/games/prism_respin.md``.
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import mech, slots, wilds
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD = "WILD"
SYMBOLS = [WILD, "BAR", "SEVEN", "VIOLET", "BLUE", "AMBER", "GREEN", "GOLD"]
SYMBOL_NAMES = {
    WILD: ("Prism Wild", "Hranol (divoký)"),
    "BAR": ("Bar", "Bar"),
    "SEVEN": ("Seven", "Sedmička"),
    "VIOLET": ("Violet gem", "Fialový drahokam"),
    "BLUE": ("Blue gem", "Modrý drahokam"),
    "AMBER": ("Amber gem", "Jantarový drahokam"),
    "GREEN": ("Green gem", "Zelený drahokam"),
    "GOLD": ("Gold gem", "Zlatý drahokam"),
}
PAYTABLE = {  # x the line bet (bet level x coin value), 3-5 of a kind from either end
    "BAR": {3: 50, 4: 200, 5: 250},
    "SEVEN": {3: 25, 4: 60, 5: 120},
    "VIOLET": {3: 10, 4: 25, 5: 60},
    "BLUE": {3: 8, 4: 20, 5: 50},
    "AMBER": {3: 7, 4: 15, 5: 40},
    "GREEN": {3: 5, 4: 10, 5: 25},
    "GOLD": {3: 5, 4: 10, 5: 25},
}
LINES = [
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0],
    [2, 2, 2, 2, 2],
    [0, 1, 2, 1, 0],
    [2, 1, 0, 1, 2],
    [0, 0, 1, 2, 2],
    [2, 2, 1, 0, 0],
    [1, 0, 1, 2, 1],
    [1, 2, 1, 0, 1],
    [0, 1, 0, 1, 0],
]
WILD_REELS = [1, 2, 3]  # reels 2, 3 and 4 (0-based)
# symbol counts per reel (designed; docs/games/prism_respin.md)
REEL_COUNTS: list[dict[str, int]] = [
    {"BAR": 1, "SEVEN": 1, "VIOLET": 2, "BLUE": 3, "AMBER": 17, "GREEN": 14, "GOLD": 14},
    {WILD: 1, "BAR": 7, "SEVEN": 13, "VIOLET": 13, "BLUE": 8, "AMBER": 10, "GREEN": 11, "GOLD": 13},
    {WILD: 1, "BAR": 8, "SEVEN": 8, "VIOLET": 8, "BLUE": 15, "AMBER": 10, "GREEN": 15, "GOLD": 16},
    {WILD: 1, "BAR": 5, "SEVEN": 15, "VIOLET": 15, "BLUE": 13, "AMBER": 12, "GREEN": 14, "GOLD": 13},
    {"BAR": 1, "SEVEN": 1, "VIOLET": 4, "BLUE": 6, "AMBER": 13, "GREEN": 15, "GOLD": 16},
]
MAX_RESPINS = len(WILD_REELS)

RULES_EN = (
    "Five reels, three rows, 10 fixed lines; the bet is 10 coins x bet level (1-10) x coin value. Three to five "
    "identical symbols on a line pay from the leftmost reel and from the rightmost reel (both ways); a line pays its "
    "best combination in each direction, five of a kind once; wins are added, in multiples of the line bet (level x "
    "coin value). The PRISM WILD appears on reels 2, 3 and 4 and substitutes for every symbol. A wild expands over "
    "its whole reel and stays there while the other reels re-spin for free; every new wild also expands and stays "
    "and gives another re-spin; the re-spins end when no new wild lands (at most 3). The re-spins are part of the "
    "game and play by themselves."
)
RULES_CS = (
    "Pět válců, tři řady, 10 pevných linií; sázka je 10 mincí x úroveň sázky (1-10) x hodnota mince. Tři až pět "
    "stejných symbolů na linii vyhrává od levého i od pravého krajního válce (oběma směry); linie vyplácí nejlepší "
    "kombinaci v každém směru, pět stejných jednou; výhry se sčítají jako násobek sázky na linii (úroveň x hodnota "
    "mince). Divoký HRANOL padá na 2., 3. a 4. válec a nahrazuje všechny symboly. Rozšíří se na celý válec a zůstane "
    "na něm, zatímco se ostatní válce zdarma zatočí znovu; každý nový divoký symbol se také rozšíří, zůstane a dá "
    "další otočení; otočení končí, když nepadne nový divoký symbol (nejvýše 3). Otočení jsou součástí hry a hrají "
    "se sama."
)

DEFINITION: dict[str, Any] = {
    "code": "prism_respin",
    "version": 1,
    "name": "Prism Respin",
    "name_cs": "Hranolové otočky",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "34. Starburst",
        "figures": "RTP 96.10 %, max bet 1,000 CZK, bet level x 10 coins x coin value, 180 days",
        "features": [
            "10 fixed lines paying both ways",
            "wild on reels 2-4",
            "expanding sticky wilds",
            "re-spins while new wilds land",
            "no scatter, no free spins",
        ],
    },
    "reels": 5,
    "rows": 3,
    "lines": LINES,
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {
        "model": "level",
        "coins_per_level": 10,
        "levels": list(range(1, 11)),
        "coin_values": [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000],
        "default": {"level": 1, "coin_value": 10},
    },
    "par_bet": {"level": 1, "coin_value": 10},
    "rtp": "96.09",
    "unfinished_deadline_days": 180,
    # a bound the round cannot pass: PrismRespin.max_round_multiplier() (tested equal)
    "max_win_multiplier": 1020,
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class PrismRespin(mech.MechSlot):
    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        self.strips: list[list[str]] = definition["strips"]
        self.lines: list[list[int]] = definition["lines"]
        self.evaluator = slots.LineEvaluator(PAYTABLE, {WILD: ()})

    def spin(self, rng: RNG, sticky: list[int]) -> JsonDict:
        """One spin (the first or a re-spin): held wild reels stay, the others get a stop each (left to right)."""
        stops: list[int | None] = [None if j in sticky else rng.randbelow(len(s)) for j, s in enumerate(self.strips)]
        raw = [[WILD] * 3 if stop is None else slots.column(self.strips[j], stop, 3) for j, stop in enumerate(stops)]
        new = [j for j in wilds.wild_reels(raw, WILD, WILD_REELS) if j not in sticky]
        window = wilds.expand_reels(raw, WILD, sticky + new)
        wins = slots.line_wins(window, self.lines, self.evaluator, both_ways=True)
        return {
            "stops": stops,
            "raw_window": raw,
            "window": window,
            "new_wild_reels": new,
            "line_wins": wins,
            "multiplier": sum(w[3] for w in wins),
        }

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        lb = self.pay_unit(bet.params)
        sticky: list[int] = []
        for n in range(MAX_RESPINS + 1):
            s = self.spin(rng, sticky)
            wins = [[w[0], w[1], w[2], w[3] * lb, w[4]] for w in s.pop("line_wins")]
            paid = self.pay(state, "base" if n == 0 else "free_spins", s.pop("multiplier") * lb)
            state["steps"].append(
                {
                    "type": "spin",
                    "mode": "base" if n == 0 else "respin",
                    "respin": n,
                    "sticky_reels": list(sticky),
                    **s,
                    "line_wins": wins,
                    "win": paid,
                    "features": ["expanding_wild_respin"] if s["new_wild_reels"] else [],
                }
            )
            sticky = sorted(sticky + s["new_wild_reels"])
            if not s["new_wild_reels"] or state["capped"]:
                break
        return slots.finish(state)

    # --- exact RTP ------------------------------------------------------------------------------------------------
    @functools.cached_property
    def lut(self) -> npt.NDArray[np.int64]:
        """Both-ways line multiplier of every symbol sequence (alphabet ``SYMBOLS``), shape (8,) * 5."""
        a = len(SYMBOLS)
        out = np.zeros((a,) * 5, dtype=np.int64)
        for idx in itertools.product(range(a), repeat=5):
            seq = tuple(SYMBOLS[i] for i in idx)
            w = self.evaluator.evaluate(seq)
            m = w[2] if w else 0
            if not (w and w[1] == 5):
                r = self.evaluator.evaluate(seq[::-1])
                m += r[2] if r else 0
            out[idx] = m
        return out

    def reel_row_counts(self, j: int, sticky: bool) -> list[list[int]]:
        """Per row, the count of each symbol over the reel's stops as the evaluated window shows it."""
        if sticky:
            return [[1 if s == WILD else 0 for s in SYMBOLS] for _ in range(3)]
        strip = self.strips[j]
        expand = j in WILD_REELS
        rows = [[0] * len(SYMBOLS) for _ in range(3)]
        for stop in range(len(strip)):
            col = slots.column(strip, stop, 3)
            if expand and WILD in col:
                col = [WILD] * 3
            for r in range(3):
                rows[r][SYMBOLS.index(col[r])] += 1
        return rows

    def p_wild(self, j: int) -> Fraction:
        strip = self.strips[j]
        return Fraction(sum(1 for stop in range(len(strip)) if WILD in slots.column(strip, stop, 3)), len(strip))

    def spin_value(self, sticky: frozenset[int]) -> Fraction:
        """E[line multiplier sum of one spin] with the reels in ``sticky`` held wild (in line bets)."""
        rows = [self.reel_row_counts(j, j in sticky) for j in range(5)]
        total = Fraction(0)
        for line in self.lines:
            dists = [rows[j][line[j]] for j in range(5)]
            den = 1
            for d in dists:
                den *= sum(d)
            total += Fraction(slots.lut_expectation(self.lut, dists), den)
        return total

    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        """Sum over the held-reel states S of P(a spin is played from S) x E[spin | S] (the chain of re-spins)."""
        pw = {j: self.p_wild(j) for j in WILD_REELS}
        visit: dict[frozenset[int], Fraction] = {frozenset(): Fraction(1)}
        parts = {"base": Fraction(0), "free_spins": Fraction(0)}
        for size in range(len(WILD_REELS) + 1):  # states in order of size: every predecessor is smaller
            for combo in itertools.combinations(WILD_REELS, size):
                s = frozenset(combo)
                v = visit.get(s, Fraction(0))
                if not v:
                    continue
                parts["base" if not s else "free_spins"] += v * self.spin_value(s) / 10
                free = [j for j in WILD_REELS if j not in s]
                for k in range(1, len(free) + 1):
                    for new in itertools.combinations(free, k):
                        p = Fraction(1)
                        for j in free:
                            p *= pw[j] if j in new else 1 - pw[j]
                        t = s | frozenset(new)
                        visit[t] = visit.get(t, Fraction(0)) + v * p
        return parts

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Exact: the first spin ("base") and the re-spins ("free_spins"), every state of the held reels. The cap is
        a bound the round cannot reach, so nothing is cut."""
        return dict(self._exact)

    def max_round_multiplier(self) -> int:
        """A bound of a round's win in stakes: over every chain of wild reels (a spin expands the reels in E), the
        sum of 10 lines x the best line with exactly E wild / 10 line bets per stake, rounded up."""
        a = len(SYMBOLS)
        lut = self.lut

        def best(e: frozenset[int]) -> int:
            idx = tuple(slice(0, 1) if j in e else slice(1, a) for j in range(5))
            return int(lut[idx].max())

        def chain(held: frozenset[int]) -> int:
            # the spin from ``held`` expands ``held | new``; with no new wild the round ends
            top = best(held)
            free = [j for j in WILD_REELS if j not in held]
            for k in range(1, len(free) + 1):
                for new in itertools.combinations(free, k):
                    e = held | frozenset(new)
                    top = max(top, best(e) + chain(e))
            return top

        return -(-chain(frozenset()) * len(self.lines) // 10)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        a = len(SYMBOLS)
        weights = [a ** (4 - j) for j in range(5)]
        code, exp, wild = [], [], []
        for j, strip in enumerate(self.strips):
            cols = [slots.column(strip, stop, 3) for stop in range(len(strip))]
            code.append(np.array([[SYMBOLS.index(c[r]) * weights[j] for c in cols] for r in range(3)]))
            has = np.array([WILD in c for c in cols]) if j in WILD_REELS else np.zeros(len(cols), dtype=bool)
            wild.append(has)
            exp.append(np.where(has[None, :], 0, code[-1]))  # WILD is code 0
        return {"code": code, "exp": exp, "wild": wild, "lut": self.lut.ravel()}

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's spin and re-spins side by side (held reels as a boolean mask)."""
        t = self._fast
        gen = np.random.Generator(np.random.PCG64(seed))
        lb = self.pay_unit(bet.params)
        tally = mech.FastTally(("base", "free_spins"))
        respins = 0
        for n in mech.batches(rounds, 500_000, progress):
            sticky = np.zeros((n, 5), dtype=bool)
            base = np.zeros(n, dtype=np.int64)
            extra = np.zeros(n, dtype=np.int64)
            act = np.arange(n)
            for k in range(MAX_RESPINS + 1):
                m = act.size
                if not m:
                    break
                if k:
                    respins += m
                cols = []
                new = np.zeros((m, 5), dtype=bool)
                for j in range(5):
                    stops = gen.integers(0, len(self.strips[j]), size=m)
                    held = sticky[act, j]
                    nw = t["wild"][j][stops] & ~held
                    new[:, j] = nw
                    cols.append(np.where((held | nw)[None, :], 0, t["code"][j][:, stops]))
                mult = np.zeros(m, dtype=np.int64)
                for line in self.lines:
                    idx = cols[0][line[0]] + cols[1][line[1]] + cols[2][line[2]] + cols[3][line[3]] + cols[4][line[4]]
                    mult += t["lut"][idx]
                if k == 0:
                    base[act] = mult
                else:
                    extra[act] += mult
                sticky[act] |= new
                act = act[new.any(axis=1)]
            tally.add(base=base * lb, free_spins=extra * lb)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts={"respins": respins})

    def describe_extra(self) -> JsonDict:
        return {
            "reels": 5,
            "rows": 3,
            "lines": self.lines,
            "pays": "both ways",
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {
                "unit": "line_bet",
                "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
            },
            "features": {"expanding_sticky_wild": {"reels": [j + 1 for j in WILD_REELS], "max_respins": MAX_RESPINS}},
        }


PRISM_RESPIN = register(PrismRespin(DEFINITION))
