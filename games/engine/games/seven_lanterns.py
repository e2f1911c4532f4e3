"""Seven Lanterns: 5x3, 243 ways, WILD and DOUBLE WILD, LANTERN scatters, 7 free spins x2 and the "second chance"
pick (follows 7 Sins).

Rules as implemented, the designed figures and the exact RTP: ``docs/games/seven_lanterns.md``.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .. import mech, pick, slots, ways
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD, DOUBLE, LANTERN = "WILD", "DOUBLE_WILD", "LANTERN"
PAYTABLE = {  # per way, in tenths of the total bet (3, 4, 5 adjacent reels from the left)
    "DRAGON": {3: 5, 4: 15, 5: 40},
    "TIGER": {3: 4, 4: 10, 5: 30},
    "CRANE": {3: 3, 4: 8, 5: 20},
    "PEONY": {3: 2, 4: 6, 5: 15},
    "A": {3: 1, 4: 3, 5: 8},
    "K": {3: 1, 4: 3, 5: 8},
    "Q": {3: 1, 4: 2, 5: 6},
    "J": {3: 1, 4: 2, 5: 6},
}
SYMBOL_NAMES = {
    WILD: ("Wild", "Divoký symbol"),
    DOUBLE: ("Double Wild (counts twice)", "Dvojitý divoký symbol (počítá se 2x)"),
    LANTERN: ("Lantern (scatter)", "Lampion (scatter)"),
    "DRAGON": ("Dragon", "Drak"),
    "TIGER": ("Tiger", "Tygr"),
    "CRANE": ("Crane", "Jeřáb"),
    "PEONY": ("Peony", "Pivoňka"),
    "A": ("A", "A"),
    "K": ("K", "K"),
    "Q": ("Q", "Q"),
    "J": ("J", "J"),
}
WILD_WEIGHTS = {WILD: 1, DOUBLE: 2}
HEIGHTS = [3, 3, 3, 3, 3]  # 3 x 3 x 3 x 3 x 3 = 243 ways
SCATTER_PAY_3 = 2  # x the total bet
FREE_SPINS = 7
FREE_SPIN_MULTIPLIER = 2
PICK_OPTIONS = 7  # hiding 2 LANTERNs and 5 multipliers
PICK_SCATTERS = 2
# the second-chance multipliers of the total bet: [value, weight] (the fine knob of the RTP, designed)
PICK_MULTIPLIERS = [[1, 400], [2, 300], [3, 150], [5, 100], [10, 40], [20, 10]]

REEL_COUNTS: list[dict[str, int]] = [  # designed (docs/games/seven_lanterns.md)
    {"DRAGON": 2, "TIGER": 4, "CRANE": 2, "PEONY": 3, "A": 12, "K": 13, "Q": 9, "J": 14, LANTERN: 4},
    {"DRAGON": 1, "TIGER": 1, "CRANE": 2, "PEONY": 5, "A": 14, "K": 12, "Q": 12, "J": 12, WILD: 1, DOUBLE: 1},
    {"DRAGON": 1, "TIGER": 1, "CRANE": 4, "PEONY": 2, "A": 13, "K": 12, "Q": 13, "J": 17, WILD: 1, LANTERN: 4},
    {"DRAGON": 1, "TIGER": 2, "CRANE": 2, "PEONY": 3, "A": 15, "K": 13, "Q": 14, "J": 12, WILD: 1, DOUBLE: 1},
    {"DRAGON": 3, "TIGER": 2, "CRANE": 3, "PEONY": 1, "A": 15, "K": 12, "Q": 10, "J": 12, LANTERN: 5},
]

RULES_EN = (
    "Five reels, three rows, 243 ways; the player sets the total bet. A symbol on adjacent reels from the leftmost "
    "one (3, 4 or 5 reels) pays the paytable value in tenths of the total bet times the number of ways (the product "
    "of how many positions show it on each of those reels); the wins of all symbols are added. WILD (reels 2, 3 and "
    "4) substitutes for every symbol except LANTERN; DOUBLE WILD (reels 2 and 4) does too and counts as two "
    "positions. LANTERN appears on reels 1, 3 and 5: three pay 2 x the total bet and give 7 free spins in which "
    "every win is doubled (free spins are not won again). Two LANTERNs start the Second Chance: 7 lanterns hide "
    "2 LANTERNs and 5 multipliers of the total bet (1, 2, 3, 5, 10 or 20); the one opened gives the 7 free spins "
    "or pays its multiplier. What the lanterns hide is drawn before the player opens one, so the choice never "
    "changes the result. The bonus and the free spins are part of the game."
)
RULES_CS = (
    "Pět válců, tři řady, 243 způsobů výhry; hráč volí celkovou sázku. Symbol na sousedních válcích od levého "
    "krajního (3, 4 nebo 5 válců) vyplácí hodnotu z tabulky v desetinách celkové sázky krát počet způsobů (součin "
    "počtu pozic se symbolem na těchto válcích); výhry všech symbolů se sčítají. WILD (2., 3. a 4. válec) nahrazuje "
    "všechny symboly kromě LAMPIONU; DVOJITÝ WILD (2. a 4. válec) také a počítá se jako dvě pozice. LAMPION padá "
    "na 1., 3. a 5. válec: tři vyplácí 2násobek celkové sázky a dávají 7 volných otočení, ve kterých se každá "
    "výhra zdvojnásobí (volná otočení nelze získat znovu). Dva LAMPIONY spustí Druhou šanci: 7 lampionů skrývá 2 "
    "LAMPIONY a 5 násobků celkové sázky (1, 2, 3, 5, 10 nebo 20); otevřený lampion dá 7 volných otočení nebo "
    "vyplatí svůj násobek. Co lampiony skrývají, je vylosováno dříve, než hráč jeden otevře, takže volba výsledek "
    "nikdy nezmění. Bonus a volná otočení jsou součástí hry."
)

DEFINITION: dict[str, Any] = {
    "code": "seven_lanterns",
    "version": 1,
    "name": "Seven Lanterns",
    "name_cs": "Sedm lampionů",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "2. 7 Sins",
        "figures": "RTP 96.28 %, max bet 300 CZK, total-bet selector, 90 days",
        "features": [
            "243 ways from reel 1",
            "wild and double wild",
            "scatter on reels 1, 3, 5",
            "3 scatters pay 2x and give 7 free spins",
            "2 scatters: Second Chance pick among 7 hiding 2 scatters or bet multipliers",
        ],
    },
    "strips": [mech.spread_strip(c) for c in REEL_COUNTS],
    "bet": {"model": "total", "min": 10, "max": 30_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.27",
    "unfinished_deadline_days": 90,
    "max_win_multiplier": 0,  # set below: the bound of a round (SevenLanterns.max_round_multiplier)
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class SevenLanterns(mech.MechSlot):
    """``start`` plays the base spin; 3 LANTERNs wait for 7 ``{"type": "spin"}``, 2 LANTERNs for one
    ``{"type": "pick", "index": 0..6}`` (then the free spins when a LANTERN was behind it)."""

    def __init__(self, definition: dict[str, Any]) -> None:
        self.strips: list[list[str]] = definition["strips"]
        self.evaluator = ways.WaysEvaluator(PAYTABLE, WILD_WEIGHTS)
        super().__init__(definition)

    def spin_result(self, window: list[list[str]], stake: int, multiplier: int) -> JsonDict:
        unit = stake // 10
        wins = [[s, k, w, m * unit * multiplier, d] for s, k, w, m, d in self.evaluator.evaluate(window)]
        n_sc = slots.count_symbols(window, LANTERN)
        sc = SCATTER_PAY_3 * stake * multiplier if n_sc >= 3 else 0
        return {"ways_wins": wins, "scatter": {"count": n_sc, "win": sc}, "win": sum(w[3] for w in wins) + sc}

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, 3)
        res = self.spin_result(window, bet.total_stake, 1)
        n_sc = res["scatter"]["count"]
        feats = ["free_spins"] if n_sc >= 3 else (["second_chance"] if n_sc == 2 else [])
        paid = self.pay(state, "base", res["win"])
        state["steps"].append(
            {"type": "spin", "mode": "base", "stops": stops, "window": window, **res, "win": paid, "features": feats}
        )
        if n_sc >= 3:
            self._award(state, "scatters")
        elif n_sc == 2:
            multipliers = [slots.draw_weighted(rng, PICK_MULTIPLIERS) for _ in range(PICK_OPTIONS - PICK_SCATTERS)]
            order = pick.draw_reveal_order(rng, [LANTERN] * PICK_SCATTERS + multipliers)
            state["pick"] = {"order": order, "picked": []}
            state["steps"].append({"type": "trigger", "feature": "second_chance", "options": PICK_OPTIONS})
        return self._next(state)

    def _award(self, state: JsonDict, source: str) -> None:
        state["free_spins"] = {"awarded": FREE_SPINS, "played": 0}
        state["steps"].append(
            {
                "type": "trigger",
                "feature": "free_spins",
                "source": source,
                "spins": FREE_SPINS,
                "multiplier": FREE_SPIN_MULTIPLIER,
            }
        )

    def _next(self, state: JsonDict) -> JsonDict:
        if state["capped"]:
            return slots.finish(state)
        pk = state.get("pick")
        if pk is not None and not pk["picked"]:
            return slots.await_action(
                state, "pick", [{"type": "pick", "index": i} for i in range(PICK_OPTIONS)], options_count=PICK_OPTIONS
            )
        fs = state.get("free_spins")
        if fs and fs["played"] < fs["awarded"]:
            return slots.await_action(
                state,
                "free_spin",
                [{"type": "spin"}],
                spins_left=fs["awarded"] - fs["played"],
                multiplier=FREE_SPIN_MULTIPLIER,
                free_spins_win=state["breakdown"]["free_spins"],
            )
        return slots.finish(state)

    def _act_pick(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        pk = state["pick"]
        pk["picked"].append(action["index"])
        item = pk["order"][0]  # the first pick reveals the first item, whichever option it is
        step: JsonDict = {
            "type": "pick",
            "index": action["index"],
            "reveal": item,
            "board": pick.board(pk["order"], pk["picked"], PICK_OPTIONS),
        }
        if item == LANTERN:
            step["win"] = 0
            state["steps"].append(step)
            self._award(state, "second_chance")
        else:
            step["multiplier"] = item
            step["win"] = self.pay(state, "bonus", item * state["stake"])
            state["steps"].append(step)
        return self._next(state)

    def _act_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        fs = state["free_spins"]
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, 3)
        res = self.spin_result(window, state["stake"], FREE_SPIN_MULTIPLIER)
        fs["played"] += 1
        paid = self.pay(state, "free_spins", res["win"])
        state["steps"].append(
            {
                "type": "spin",
                "mode": "free",
                "spin": fs["played"],
                "of": fs["awarded"],
                "multiplier": FREE_SPIN_MULTIPLIER,
                "stops": stops,
                "window": window,
                **res,
                "win": paid,
            }
        )
        return self._next(state)

    # --- exact RTP and the bound of a round -----------------------------------------------------------------------
    def max_round_multiplier(self) -> int:
        """A bound of a round's win in stakes: a spin pays at most the 3 largest symbol bounds (reel 1 shows at
        most 3 symbols; a symbol's bound = its top pay x its most ways) / 10 + the scatter; a round is at most the
        base spin and 7 doubled free spins (a pick multiplier is at most 20 < 14 spins' bound)."""
        bounds = sorted(
            (max(p.values()) * ways.max_ways(self.evaluator, self.strips, HEIGHTS, s) for s, p in PAYTABLE.items()),
            reverse=True,
        )
        spin = Fraction(sum(bounds[:3]), 10) + SCATTER_PAY_3
        top_pick = Fraction(max(v for v, _ in PICK_MULTIPLIERS))
        free = FREE_SPINS * FREE_SPIN_MULTIPLIER * spin
        return math.ceil(spin + (free if free >= top_pick else top_pick))

    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        ways_part = ways.expected_pay(self.evaluator, self.strips, HEIGHTS) / 10
        sc = slots.count_probabilities(self.strips, 3, LANTERN)
        p3 = sum((p for k, p in sc.items() if k >= 3), Fraction(0))
        p2 = sc.get(2, Fraction(0))
        spin = FREE_SPIN_MULTIPLIER * (ways_part + p3 * SCATTER_PAY_3)  # one free spin, in stakes
        p_fs = Fraction(PICK_SCATTERS, PICK_OPTIONS)
        return {
            "base_ways": ways_part,
            "base_scatter": p3 * SCATTER_PAY_3,
            "free_spins": (p3 + p2 * p_fs) * FREE_SPINS * spin,
            "bonus": p2 * (1 - p_fs) * slots.weighted_mean(PICK_MULTIPLIERS),
        }

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Exact for any stake: ways (reel by reel products), LANTERN pays, free spins (P(3 LANTERNs) + P(2) x 2/7,
        7 spins x 2) and the Second Chance multipliers (P(2) x 5/7 x mean multiplier). The cap is a bound no round
        reaches, so nothing is cut."""
        return dict(self._exact)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        syms = list(PAYTABLE)
        counts = [
            np.array(
                [[self.evaluator.count(slots.column(st, stop, 3), s) for s in syms] for stop in range(len(st))],
                dtype=np.int32,
            )
            for st in self.strips
        ]
        sc = [np.array([slots.column(st, stop, 3).count(LANTERN) for stop in range(len(st))]) for st in self.strips]
        pays = np.zeros((len(syms), 6), dtype=np.int64)
        for i, s in enumerate(syms):
            for k, v in PAYTABLE[s].items():
                pays[i, k] = v
        cum = np.cumsum([w for _, w in PICK_MULTIPLIERS])
        vals = np.array([v for v, _ in PICK_MULTIPLIERS], dtype=np.int64)
        return {"counts": counts, "sc": sc, "pays": pays, "cum": cum, "vals": vals}

    def _spins(self, gen: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
        """n spins: (ways multiplier sum in tenths of the stake, LANTERN count)."""
        t = self._fast
        stops = [gen.integers(0, len(st), size=n) for st in self.strips]
        prod = t["counts"][0][stops[0]].astype(np.int64)  # (n, symbols): ways so far
        alive = prod > 0
        k = alive.astype(np.int64)  # the run's length: adjacent reels from the left
        for j in range(1, 5):
            c = t["counts"][j][stops[j]]
            alive = alive & (c > 0)
            prod = np.where(alive, prod * c, prod)
            k += alive
        total = (t["pays"][np.arange(prod.shape[1])[None, :], k] * prod).sum(axis=1)
        sc = t["sc"][0][stops[0]] + t["sc"][2][stops[2]] + t["sc"][4][stops[4]]
        return total, sc

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: base spins; the pick reveals a LANTERN with P 2/7 (the first item of a uniform order) or a
        multiplier from the table; free spins as 7 batches of spins."""
        t = self._fast
        gen = np.random.Generator(np.random.PCG64(seed))
        stake = bet.total_stake
        unit = stake // 10
        tally = mech.FastTally(("base", "free_spins", "bonus"))
        counts = {"feature:free_spins": 0, "feature:second_chance": 0}
        for n in mech.batches(rounds, 200_000, progress):
            w, sc = self._spins(gen, n)
            base = w * unit + np.where(sc >= 3, SCATTER_PAY_3 * stake, 0)
            bonus = np.zeros(n, dtype=np.int64)
            two = np.nonzero(sc == 2)[0]
            fs_idx = np.nonzero(sc >= 3)[0]
            counts["feature:second_chance"] += int(two.size)
            if two.size:
                first = gen.integers(0, PICK_OPTIONS, size=two.size)  # the revealed item's place in the shuffle
                lantern = first < PICK_SCATTERS
                m = t["vals"][
                    np.searchsorted(t["cum"], gen.integers(0, int(t["cum"][-1]), size=two.size), side="right")
                ]
                bonus[two] = np.where(lantern, 0, m * stake)
                fs_idx = np.concatenate([fs_idx, two[lantern]])
            fs = np.zeros(n, dtype=np.int64)
            counts["feature:free_spins"] += int(fs_idx.size)
            for _ in range(FREE_SPINS):
                if not fs_idx.size:
                    break
                fw, fsc = self._spins(gen, fs_idx.size)
                fs[fs_idx] += FREE_SPIN_MULTIPLIER * (fw * unit + np.where(fsc >= 3, SCATTER_PAY_3 * stake, 0))
            tally.add(base=base, free_spins=fs, bonus=bonus)
        return tally.stats(rounds=rounds, total_stake=rounds * stake, feature_counts=counts)

    def describe_extra(self) -> JsonDict:
        return {
            "reels": 5,
            "rows": 3,
            "ways": 243,
            "heights": HEIGHTS,
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {
                "unit": "tenth_of_total_bet_per_way",
                "pays": {s: {str(k): v for k, v in p.items()} for s, p in PAYTABLE.items()},
            },
            "features": {
                "free_spins": {
                    "trigger": "3 LANTERN",
                    "spins": FREE_SPINS,
                    "multiplier": FREE_SPIN_MULTIPLIER,
                    "scatter_pay": SCATTER_PAY_3,
                },
                "second_chance": {
                    "trigger": "2 LANTERN",
                    "options": PICK_OPTIONS,
                    "lanterns": PICK_SCATTERS,
                    "multipliers": [v for v, _ in PICK_MULTIPLIERS],
                },
            },
        }


SEVEN_LANTERNS = register(SevenLanterns(DEFINITION))
