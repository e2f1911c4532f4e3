"""Tome of Sands: 5x3, 1-10 lines, the TOME as wild and scatter, 10 free spins with an expanding symbol chosen when
they start (follows Book of Dead).

Rules as implemented, the designed figures and the RTP (exact base game, simulated free spins):
``docs/games/tome_of_sands.md``.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import Any

import numpy as np

from .. import mech, slots
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

TOME = "TOME"
PAYTABLE = {  # x the line bet (coins x coin value), from the leftmost reel
    "EXPLORER": {2: 10, 3: 100, 4: 1000, 5: 5000},
    "PHARAOH": {2: 5, 3: 40, 4: 400, 5: 2000},
    "STATUE": {2: 5, 3: 30, 4: 100, 5: 750},
    "SCARAB": {2: 5, 3: 30, 4: 100, 5: 750},
    "A": {3: 15, 4: 40, 5: 150},
    "K": {3: 15, 4: 40, 5: 150},
    "Q": {3: 5, 4: 25, 5: 100},
    "J": {3: 5, 4: 25, 5: 100},
    "TEN": {3: 5, 4: 25, 5: 100},
}
SYMBOLS = [TOME, *PAYTABLE]
SYMBOL_NAMES = {
    TOME: ("Tome (wild and scatter)", "Kniha (divoký symbol a scatter)"),
    "EXPLORER": ("Explorer", "Badatel"),
    "PHARAOH": ("Pharaoh", "Faraon"),
    "STATUE": ("Statue", "Socha"),
    "SCARAB": ("Scarab", "Skarabeus"),
    "A": ("A", "A"),
    "K": ("K", "K"),
    "Q": ("Q", "Q"),
    "J": ("J", "J"),
    "TEN": ("10", "10"),
}
SCATTER_PAYS = {3: 2, 4: 20, 5: 200}  # x the total bet
LINES = [
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0],
    [2, 2, 2, 2, 2],
    [0, 1, 2, 1, 0],
    [2, 1, 0, 1, 2],
    [1, 2, 2, 2, 1],
    [1, 0, 0, 0, 1],
    [2, 2, 1, 0, 0],
    [0, 0, 1, 2, 2],
    [2, 1, 1, 1, 0],
]
FREE_SPINS = 10
MAX_FREE_SPINS = 100
EXPANDING = list(PAYTABLE)  # drawn uniformly when the free spins start
REEL_COUNTS: list[dict[str, int]] = [  # designed (docs/games/tome_of_sands.md)
    {TOME: 1, "EXPLORER": 1, "PHARAOH": 1, "STATUE": 8, "SCARAB": 4, "A": 7, "K": 7, "Q": 6, "J": 9, "TEN": 9},
    {TOME: 1, "EXPLORER": 3, "PHARAOH": 2, "STATUE": 6, "SCARAB": 4, "A": 7, "K": 10, "Q": 8, "J": 9, "TEN": 11},
    {TOME: 2, "EXPLORER": 2, "PHARAOH": 5, "STATUE": 9, "SCARAB": 2, "A": 2, "K": 9, "Q": 9, "J": 10, "TEN": 7},
    {TOME: 2, "EXPLORER": 2, "PHARAOH": 4, "STATUE": 4, "SCARAB": 3, "A": 5, "K": 3, "Q": 8, "J": 11, "TEN": 10},
    {TOME: 1, "EXPLORER": 5, "PHARAOH": 2, "STATUE": 3, "SCARAB": 6, "A": 5, "K": 8, "Q": 9, "J": 7, "TEN": 6},
]

RULES_EN = (
    "Five reels, three rows, 1 to 10 lines; the bet is coin value x coins x lines. Identical symbols on a played "
    "line from the leftmost reel pay the paytable multiple of the line bet (coins x coin value): EXPLORER, PHARAOH, "
    "STATUE and SCARAB from 2, the others from 3; only the highest win per line counts, wins are added. The TOME "
    "substitutes for every symbol and is also the scatter: 3, 4 or 5 anywhere pay 2, 20 or 200 x the total bet and "
    "3 or more give 10 free spins at the same bet (3 or more again during them: 10 more, at most 100 in a game). "
    "When the free spins start, one of the nine symbols is drawn as the expanding symbol. In every free spin, after "
    "the normal wins, when it shows on at least as many reels as it needs to pay (2 for the four high symbols, 3 "
    "for the others), it expands over those reels and pays on every played line for the number of reels it covers, "
    "even when they are not adjacent. A game pays at most 5,200 x the total bet."
)
RULES_CS = (
    "Pět válců, tři řady, 1 až 10 linií; sázka je hodnota mince x počet mincí x počet linií. Stejné symboly na hrané "
    "linii od levého krajního válce vyplácí násobek sázky na linii (mince x hodnota mince) podle tabulky: BADATEL, "
    "FARAON, SOCHA a SKARABEUS od 2, ostatní od 3; na linii platí jen nejvyšší výhra, výhry se sčítají. KNIHA "
    "nahrazuje všechny symboly a je zároveň scatter: 3, 4 nebo 5 kdekoli vyplácí 2, 20 nebo 200násobek celkové "
    "sázky a 3 a více dají 10 volných otočení se stejnou sázkou (další 3 a více během nich: 10 dalších, nejvýše 100 "
    "ve hře). Na začátku volných otočení se vylosuje jeden z devíti symbolů jako rozšiřující se symbol. V každém "
    "volném otočení, po běžných výhrách, pokud je na alespoň tolika válcích, kolik potřebuje k výhře (2 u čtyř "
    "vysokých symbolů, 3 u ostatních), rozšíří se přes tyto válce a vyplácí na všech hraných liniích podle počtu "
    "zakrytých válců, i když spolu nesousedí. Jedna hra vyplatí nejvýše 5 200násobek celkové sázky."
)

DEFINITION: dict[str, Any] = {
    "code": "tome_of_sands",
    "version": 1,
    "name": "Tome of Sands",
    "name_cs": "Kniha písků",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "4. Book of Dead",
        "figures": "RTP 96.21 %, max bet 100 CZK, coin x coins x lines (10 selectable), 90 days",
        "features": [
            "10 selectable lines",
            "book = wild and scatter",
            "3+ books: 10 free spins, +10 again",
            "scatter 3 = 2x, 4 = 20x, 5 = 200x the total bet",
            "expanding symbol in free spins (not in the catalogue's text)",
        ],
    },
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {
        "model": "lines",
        "max_lines": 10,
        "max_coins": 5,
        "coin_values": [10, 20, 50, 100, 200],
        "default": {"lines": 10, "coins": 1, "coin_value": 10},
    },
    "par_bet": {"lines": 10, "coins": 1, "coin_value": 10},
    "rtp": "96.20",
    "unfinished_deadline_days": 90,
    "max_win_multiplier": 5200,  # >= every base spin (5,000 on the lines + 200 TOMEs): the base is never cut
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class TomeOfSands(mech.MechSlot):
    """``start`` plays the base spin; 3+ TOMEs draw the expanding symbol and wait for ``{"type": "spin"}`` per
    free spin."""

    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        self.strips: list[list[str]] = definition["strips"]
        self.evaluator = slots.LineEvaluator(PAYTABLE, {TOME: ()})

    @staticmethod
    def min_count(symbol: str) -> int:
        return min(PAYTABLE[symbol])

    def spin_result(
        self, window: list[list[str]], lines: int, line_bet: int, stake: int, expanding: str | None
    ) -> JsonDict:
        wins = [[w[0], w[1], w[2], w[3] * line_bet] for w in slots.line_wins(window, LINES, self.evaluator, lines)]
        n_sc = slots.count_symbols(window, TOME)
        sc = SCATTER_PAYS.get(n_sc, 0) * stake
        out: JsonDict = {"line_wins": wins, "scatter": {"count": n_sc, "win": sc}}
        total = sum(w[3] for w in wins) + sc
        if expanding is not None:
            reels = [j for j, col in enumerate(window) if expanding in col]
            k = len(reels)
            pay = PAYTABLE[expanding].get(k, 0) * line_bet * lines if k >= self.min_count(expanding) else 0
            out["expansion"] = {"symbol": expanding, "reels": reels if pay else [], "count": k, "win": pay}
            if pay:
                out["expanded_window"] = [[expanding] * 3 if j in reels else list(col) for j, col in enumerate(window)]
            total += pay
        out["win"] = total
        return out

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        p = bet.params
        state = self.new_round(bet)
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, 3)
        res = self.spin_result(window, p["lines"], self.pay_unit(p), bet.total_stake, None)
        n_sc = res["scatter"]["count"]
        paid = self.pay(state, "base", res["win"])
        state["steps"].append(
            {
                "type": "spin",
                "mode": "base",
                "stops": stops,
                "window": window,
                **res,
                "win": paid,
                "features": ["free_spins"] if n_sc >= 3 else [],
            }
        )
        if n_sc >= 3 and not state["capped"]:
            symbol = EXPANDING[rng.randbelow(len(EXPANDING))]
            state["free_spins"] = {"awarded": 0, "played": 0, "expanding": symbol}
            self._award(state, "free_spins")
        return self._next(state)

    def _award(self, state: JsonDict, feature: str) -> None:
        fs = state["free_spins"]
        n = min(FREE_SPINS, MAX_FREE_SPINS - fs["awarded"])
        fs["awarded"] += n
        state["steps"].append({"type": "trigger", "feature": feature, "spins": n, "expanding": fs["expanding"]})

    def _next(self, state: JsonDict) -> JsonDict:
        fs = state.get("free_spins")
        if fs and fs["played"] < fs["awarded"] and not state["capped"]:
            return slots.await_action(
                state,
                "free_spin",
                [{"type": "spin"}],
                spins_left=fs["awarded"] - fs["played"],
                expanding=fs["expanding"],
                free_spins_win=state["breakdown"]["free_spins"],
            )
        return slots.finish(state)

    def _act_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        fs = state["free_spins"]
        p = state["bet"]
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, 3)
        res = self.spin_result(window, p["lines"], self.pay_unit(p), state["stake"], fs["expanding"])
        fs["played"] += 1
        paid = self.pay(state, "free_spins", res["win"])
        step = {
            "type": "spin",
            "mode": "free",
            "spin": fs["played"],
            "stops": stops,
            "window": window,
            **res,
            "win": paid,
            "features": ["expanding_symbol"] if res["expansion"]["win"] else [],
        }
        if paid < res["win"]:
            step["capped"] = True
        state["steps"].append(step)
        if res["scatter"]["count"] >= 3 and fs["awarded"] < MAX_FREE_SPINS and not state["capped"]:
            self._award(state, "free_spins_retrigger")
        return self._next(state)

    # --- exact base game ------------------------------------------------------------------------------------------
    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        counts = [slots.symbol_counts(s) for s in self.strips]
        lines = slots.expected_line_multiplier(self.evaluator, counts)
        sc = slots.count_probabilities(self.strips, 3, TOME)
        return {
            "base_lines": lines,
            "base_scatter": sum((p * SCATTER_PAYS.get(k, 0) for k, p in sc.items()), Fraction(0)),
        }

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """The base game exactly (every line has the same expectation, so per line bet and line it is the RTP for
        any number of lines; plus the TOME pays); the free spins are simulated. A base spin pays at most 5,000 line
        bets per line (= 5,000 stakes over all lines) + 200 stakes of TOMEs = the cap of 5,200 stakes, so the base
        part is never cut."""
        return dict(self._exact)

    def free_spins_value(self) -> dict[str, Fraction]:
        """The free spins' exact return per stake **without the round cap** (the design figure; the RTP itself
        simulates them): P(3+ TOMEs) x E[free spins played] x the mean over the expanding symbols of one spin's
        value (its line and TOME pays as in the base game, plus the expansion's pay on every line). The spins
        are independent, so E[win] = E[spins] x E[spin] (Wald); E[spins] follows the retriggers up to 100."""
        sc = slots.count_probabilities(self.strips, 3, TOME)
        q = sum((p for k, p in sc.items() if k >= 3), Fraction(0))
        base = sum(self._exact.values(), Fraction(0))
        values = []
        for sym in EXPANDING:
            dists = [
                {
                    1: sum(1 for i in range(len(st)) if sym in slots.column(st, i, 3)),
                    0: sum(1 for i in range(len(st)) if sym not in slots.column(st, i, 3)),
                }
                for st in self.strips
            ]
            total = 1
            for st in self.strips:
                total *= len(st)
            conv = slots.convolve_counts(dists)
            exp = sum(
                (Fraction(w, total) * PAYTABLE[sym].get(k, 0) for k, w in conv.items() if k >= self.min_count(sym)),
                Fraction(0),
            )
            values.append(base + exp)
        spin = sum(values, Fraction(0)) / len(values)
        # E[spins still to play] from (awarded so far, spins left); each spin retriggers with probability q
        further: dict[tuple[int, int], Fraction] = {}
        for awarded in range(MAX_FREE_SPINS, FREE_SPINS - 1, -1):
            nxt = min(awarded + FREE_SPINS, MAX_FREE_SPINS)
            for left in range(0, awarded + 1):
                if left == 0:
                    further[(awarded, 0)] = Fraction(0)
                    continue
                stay = further[(awarded, left - 1)]
                go = further[(nxt, left - 1 + nxt - awarded)] if nxt > awarded else stay
                further[(awarded, left)] = 1 + q * go + (1 - q) * stay
        spins = {FREE_SPINS: further[(FREE_SPINS, FREE_SPINS)]}
        return {"trigger": q, "spins": spins[FREE_SPINS], "spin": spin, "free_spins": q * spins[FREE_SPINS] * spin}

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        a = len(SYMBOLS)
        lut = slots.build_line_lut_np(self.evaluator, SYMBOLS, 5).ravel().astype(np.int64)
        weights = [a ** (4 - j) for j in range(5)]
        code, sc, pres = [], [], []
        for j, strip in enumerate(self.strips):
            cols = [slots.column(strip, stop, 3) for stop in range(len(strip))]
            code.append(np.array([[SYMBOLS.index(c[r]) * weights[j] for c in cols] for r in range(3)]))
            sc.append(np.array([c.count(TOME) for c in cols]))
            pres.append(np.array([[s in c for s in EXPANDING] for c in cols], dtype=np.int64))
        exp_pay = np.zeros((len(EXPANDING), 6), dtype=np.int64)
        for i, s in enumerate(EXPANDING):
            for k, v in PAYTABLE[s].items():
                exp_pay[i, k] = v
        sc_pay = np.zeros(16, dtype=np.int64)
        for k, v in SCATTER_PAYS.items():
            sc_pay[k] = v
        return {"lut": lut, "code": code, "sc": sc, "pres": pres, "exp_pay": exp_pay, "sc_pay": sc_pay}

    def _spins(self, gen: np.random.Generator, m: int, lines: int) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
        t = self._fast
        stops = [gen.integers(0, len(s), size=m) for s in self.strips]
        units = np.zeros(m, dtype=np.int64)
        for line in LINES[:lines]:
            idx = t["code"][0][line[0]][stops[0]]
            for j in range(1, 5):
                idx = idx + t["code"][j][line[j]][stops[j]]
            units += t["lut"][idx]
        sc = sum(t["sc"][j][stops[j]] for j in range(5))
        return units, sc, stops

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: base spins; the free spins as side-by-side sessions (expanding symbol, retriggers, the cap)."""
        t = self._fast
        gen = np.random.Generator(np.random.PCG64(seed))
        p = bet.params
        lines, lb, stake = p["lines"], self.pay_unit(p), bet.total_stake
        cap = self.max_win_multiplier * stake
        tally = mech.FastTally(("base", "free_spins"))
        counts = {"feature:free_spins": 0, "free_spins_played": 0, "capped": 0}
        for n in mech.batches(rounds, 200_000, progress):
            units, sc, _ = self._spins(gen, n, lines)
            base = units * lb + t["sc_pay"][sc] * stake
            fs = np.zeros(n, dtype=np.int64)
            sess = np.nonzero(sc >= 3)[0]
            counts["feature:free_spins"] += int(sess.size)
            sym = gen.integers(0, len(EXPANDING), size=sess.size)
            left = np.full(sess.size, FREE_SPINS, dtype=np.int64)
            awarded = left.copy()
            while sess.size:
                m = sess.size
                counts["free_spins_played"] += m
                u, s2, stops = self._spins(gen, m, lines)
                k = sum(t["pres"][j][stops[j], sym] for j in range(5))
                need = np.array([self.min_count(s) for s in EXPANDING])[sym]
                exp = np.where(k >= need, t["exp_pay"][sym, k], 0) * lines
                fs[sess] += (u + exp) * lb + t["sc_pay"][s2] * stake
                left -= 1
                add = (s2 >= 3) & (awarded < MAX_FREE_SPINS)
                more = np.minimum(FREE_SPINS, MAX_FREE_SPINS - awarded)
                left += np.where(add, more, 0)
                awarded += np.where(add, more, 0)
                keep = (left > 0) & (base[sess] + fs[sess] < cap)
                sess, sym, left, awarded = sess[keep], sym[keep], left[keep], awarded[keep]
            win = base + fs
            over = win > cap
            if over.any():
                counts["capped"] += int(over.sum())
                fs = np.where(over, np.maximum(cap - base, 0), fs)
                base = np.minimum(base, cap)
            tally.add(base=base, free_spins=fs)
        return tally.stats(
            rounds=rounds,
            total_stake=rounds * stake,
            feature_counts=counts,
            remainder_sum_sq=tally.sq["free_spins"],
            remainder_parts=["base"],
        )

    def describe_extra(self) -> JsonDict:
        return {
            "reels": 5,
            "rows": 3,
            "lines": LINES,
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {
                "unit": "line_bet",
                "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
            },
            "scatter_pays": {"unit": "total_bet", "pays": {str(k): v for k, v in SCATTER_PAYS.items()}},
            "features": {
                "free_spins": {
                    "trigger": "3+ TOME",
                    "spins": FREE_SPINS,
                    "max": MAX_FREE_SPINS,
                    "expanding_symbol": EXPANDING,
                }
            },
        }


TOME_OF_SANDS = register(TomeOfSands(DEFINITION))
