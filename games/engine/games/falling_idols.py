"""Falling Idols: 5x3, 20 fixed lines, avalanches (winning symbols fall away, the strip refills) with a rising
multiplier, and Free Falls with a higher ladder (follows Gonzo's Quest).

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/falling_idols.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, mech, slots
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD, FREEFALL = "WILD", "FREEFALL"
PAYTABLE = {  # x the line bet (bet level x coin value), 3-5 of a kind from the left; designed
    "GOLD_IDOL": {3: 50, 4: 250, 5: 1250},
    "JADE_IDOL": {3: 40, 4: 150, 5: 750},
    "RED_IDOL": {3: 27, 4: 75, 5: 300},
    "BLUE_IDOL": {3: 16, 4: 50, 5: 200},
    "SUN_STONE": {3: 12, 4: 30, 5: 150},
    "MOON_STONE": {3: 9, 4: 25, 5: 100},
    "SNAKE_STONE": {3: 5, 4: 15, 5: 75},
    "BIRD_STONE": {3: 4, 4: 15, 5: 60},
}
SYMBOLS = [WILD, FREEFALL, *PAYTABLE]
SYMBOL_NAMES = {
    WILD: ("Wild", "Divoký symbol"),
    FREEFALL: ("Free Fall", "Volný pád"),
    "GOLD_IDOL": ("Gold idol", "Zlatá modla"),
    "JADE_IDOL": ("Jade idol", "Nefritová modla"),
    "RED_IDOL": ("Red idol", "Červená modla"),
    "BLUE_IDOL": ("Blue idol", "Modrá modla"),
    "SUN_STONE": ("Sun stone", "Kámen slunce"),
    "MOON_STONE": ("Moon stone", "Kámen měsíce"),
    "SNAKE_STONE": ("Snake stone", "Hadí kámen"),
    "BIRD_STONE": ("Bird stone", "Ptačí kámen"),
}
LINES = [
    [1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0],
    [2, 2, 2, 2, 2],
    [0, 1, 2, 1, 0],
    [2, 1, 0, 1, 2],
    [1, 0, 0, 0, 1],
    [1, 2, 2, 2, 1],
    [0, 0, 1, 2, 2],
    [2, 2, 1, 0, 0],
    [1, 2, 1, 0, 1],
    [1, 0, 1, 2, 1],
    [0, 1, 1, 1, 0],
    [2, 1, 1, 1, 2],
    [0, 1, 0, 1, 0],
    [2, 1, 2, 1, 2],
    [1, 1, 0, 1, 1],
    [1, 1, 2, 1, 1],
    [0, 0, 2, 0, 0],
    [2, 2, 0, 2, 2],
    [0, 2, 2, 2, 0],
]
BASE_LADDER = [1, 2, 3, 5]  # multiplier of the spin's win, the avalanche after it, ...; stays at the last
FREE_FALL_LADDER = [3, 6, 9, 15]
FREE_FALLS = 10
MAX_FREE_FALLS = 50
_LOW = {
    "GOLD_IDOL": 2,
    "JADE_IDOL": 3,
    "RED_IDOL": 4,
    "BLUE_IDOL": 5,
    "SUN_STONE": 6,
    "MOON_STONE": 7,
    "SNAKE_STONE": 8,
    "BIRD_STONE": 8,
}
REEL_COUNTS: list[dict[str, int]] = [
    {**_LOW, FREEFALL: 2},
    {**_LOW, WILD: 2, FREEFALL: 2},
    {**_LOW, WILD: 2, FREEFALL: 2},
    {**_LOW, WILD: 2},
    dict(_LOW),
]
STRIP_SEEDS = [201, 202, 203, 204, 205]

RULES_EN = (
    "Five reels, three rows, 20 fixed lines; the bet is 20 coins x bet level (1-10) x coin value. Three to five "
    "identical symbols on a line from the leftmost reel pay the paytable multiple of the line bet (level x coin "
    "value); only the highest win per line counts, wins are added. WILD appears on reels 2, 3 and 4 and substitutes "
    "for every symbol, FREE FALL included. Avalanche: the symbols of every winning line fall away, the symbols above "
    "drop down and new ones fall in; the new window pays again, and so on until it has no win. The spin's win is "
    "multiplied x1, the first avalanche's x2, the second's x3, every further one x5. Three FREE FALL symbols "
    "(reels 1, 2 and 3) on a line from the leftmost reel, in any window of the avalanche, give 10 Free Falls: spins "
    "at the same bet whose avalanches multiply x3, x6, x9 and then x15; three FREE FALLs again give 10 more (at "
    "most 50 Free Falls in a game). A game pays at most 2,500 x the total bet."
)
RULES_CS = (
    "Pět válců, tři řady, 20 pevných linií; sázka je 20 mincí x úroveň sázky (1-10) x hodnota mince. Tři až pět "
    "stejných symbolů na linii od levého krajního válce vyplácí násobek sázky na linii (úroveň x hodnota mince); na "
    "linii platí jen nejvyšší výhra, výhry se sčítají. WILD padá na 2., 3. a 4. válec a nahrazuje všechny symboly "
    "včetně VOLNÉHO PÁDU. Lavina: symboly všech výherních linií zmizí, symboly nad nimi spadnou dolů a shora "
    "dopadnou nové; nové okno znovu vyplácí, dokud nemá výhru. Výhra otočení se násobí x1, první laviny x2, druhé "
    "x3, každé další x5. Tři symboly VOLNÝ PÁD (1., 2. a 3. válec) na linii od levého válce v kterémkoli okně laviny "
    "dávají 10 volných pádů: otočení se stejnou sázkou, jejichž laviny násobí x3, x6, x9 a dále x15; další tři "
    "VOLNÉ PÁDY dají 10 dalších (nejvýše 50 volných pádů ve hře). Jedna hra vyplatí nejvýše 2 500násobek celkové "
    "sázky."
)

DEFINITION: dict[str, Any] = {
    "code": "falling_idols",
    "version": 1,
    "name": "Falling Idols",
    "name_cs": "Padající modly",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "15. Gonzo's Quest",
        "figures": "RTP 96.00 %, max bet 1,000 CZK, bet level x 20 coins x coin value, 180 days",
        "features": [
            "20 fixed lines",
            "avalanche with a win multiplier up to 5x",
            "wild on reels 2-4, substitutes Free Fall too",
            "3 Free Fall symbols on a line from reel 1 (reels 1-3): "
            "10 Free Falls with their own multipliers, +10 again",
        ],
    },
    "strips": [mech.shuffled_strip(c, s) for c, s in zip(REEL_COUNTS, STRIP_SEEDS)],
    "bet": {
        "model": "level",
        "coins_per_level": 20,
        "levels": list(range(1, 11)),
        "coin_values": [1, 2, 5, 10, 20, 50, 100, 200, 500],
        "default": {"level": 1, "coin_value": 5},
    },
    "par_bet": {"level": 1, "coin_value": 5},
    "rtp": "96.00",
    "unfinished_deadline_days": 180,
    "max_win_multiplier": 2500,
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}


class FallingIdols(mech.MechSlot):
    """``start`` plays the spin and its avalanches; a Free Fall trigger waits for ``{"type": "spin"}`` per free
    fall (each one a spin with its avalanches)."""

    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        self.strips: list[list[str]] = definition["strips"]
        self.evaluator = slots.LineEvaluator(PAYTABLE, {WILD: ()})
        self.trigger_eval = slots.LineEvaluator({FREEFALL: {3: 1, 4: 1, 5: 1}}, {WILD: ()})

    def sequence(self, rng: RNG, line_bet: int, ladder: list[int]) -> tuple[list[JsonDict], int, bool]:
        """One spin and its avalanches: (steps, win, whether a window showed 3 FREE FALLs on a line)."""
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, 3)
        pointers = list(stops)
        steps: list[JsonDict] = []
        total, trig, n = 0, False, 0
        while True:
            mult = ladder[min(n, len(ladder) - 1)]
            wins = slots.line_wins(window, LINES, self.evaluator)
            ff = bool(slots.line_wins(window, LINES, self.trigger_eval))
            amount = sum(w[3] for w in wins) * line_bet * mult
            step: JsonDict = {
                "avalanche": n,
                "multiplier": mult,
                "window": window,
                "line_wins": [[w[0], w[1], w[2], w[3] * line_bet * mult] for w in wins],
                "win": amount,
                "free_fall_line": ff,
            }
            if n == 0:
                step["stops"] = stops
            steps.append(step)
            total += amount
            trig = trig or ff
            if not wins:
                return steps, total, trig
            removed = {(j, LINES[w[0] - 1][j]) for w in wins for j in range(w[2])}
            window, pointers = cascade.refill(self.strips, pointers, window, removed)
            n += 1

    def _play(self, state: JsonDict, rng: RNG, mode: str) -> bool:
        ladder = BASE_LADDER if mode == "base" else FREE_FALL_LADDER
        steps, win, trig = self.sequence(rng, self.pay_unit(state["bet"]), ladder)
        part = "base" if mode == "base" else "free_spins"
        for s in steps:
            s["type"] = "spin" if s["avalanche"] == 0 else "avalanche"
            s["mode"] = mode
            full = s["win"]
            s["win"] = self.pay(state, part, full)
            if s["win"] < full:
                s["capped"] = True
            state["steps"].append(s)
            if state["capped"]:
                break
        return trig and not state["capped"]

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        trig = self._play(state, rng, "base")
        state["steps"][0]["features"] = (["avalanche"] if len(state["steps"]) > 1 else []) + (
            ["free_falls"] if trig else []
        )
        if trig:
            self._award(state)
        return self._next(state)

    def _award(self, state: JsonDict) -> None:
        ff = state.setdefault("free_falls", {"awarded": 0, "played": 0})
        n = min(FREE_FALLS, MAX_FREE_FALLS - ff["awarded"])
        ff["awarded"] += n
        state["steps"].append(
            {
                "type": "trigger",
                "feature": "free_falls" if ff["played"] == 0 and ff["awarded"] == n else "free_falls_retrigger",
                "free_falls": n,
            }
        )

    def _next(self, state: JsonDict) -> JsonDict:
        ff = state.get("free_falls")
        if ff and ff["played"] < ff["awarded"] and not state["capped"]:
            return slots.await_action(
                state,
                "free_spin",
                [{"type": "spin"}],
                free_falls_left=ff["awarded"] - ff["played"],
                ladder=FREE_FALL_LADDER,
                free_falls_win=state["breakdown"]["free_spins"],
            )
        return slots.finish(state)

    def _act_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        ff = state["free_falls"]
        ff["played"] += 1
        first = len(state["steps"])
        trig = self._play(state, rng, "free")
        state["steps"][first]["free_fall"] = ff["played"]
        if trig and ff["awarded"] < MAX_FREE_FALLS:
            self._award(state)
        return self._next(state)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        a = len(SYMBOLS)
        idx = np.indices((a,) * 5).reshape(5, -1).T
        lut = slots.build_line_lut_np(self.evaluator, SYMBOLS, 5).ravel().astype(np.int64)
        trig = slots.build_line_lut_np(self.trigger_eval, SYMBOLS, 5).ravel() > 0
        # the count of the paying combination: the longest run from the left matching the paid symbol
        cnt = np.zeros(a**5, dtype=np.int64)
        for k in range(3, 6):
            for sym, pays in PAYTABLE.items():
                if k not in pays:
                    continue
                c = SYMBOLS.index(sym)
                match = (idx == c) | (idx == SYMBOLS.index(WILD))
                run = np.where(match.all(axis=1), 5, (~match).argmax(axis=1))
                hit = (run == k) & (lut == pays[k])
                cnt = np.where(hit & (cnt == 0), k, cnt)
        packed = (lut << 8) | (cnt << 1) | trig.astype(np.int64)  # one lookup per line
        ct = cascade.ColumnTables(self.strips, SYMBOLS, 3)
        weights = [a ** (4 - j) for j in range(5)]
        rowcode = [[(ct.codes[:, r] * weights[j]).astype(np.int64) for r in range(3)] for j in range(5)]
        # the cells a line's combination of each length removes, as bits j * 3 + row
        rem = np.zeros((len(LINES), 6), dtype=np.int64)
        for li, line in enumerate(LINES):
            for k in range(6):
                rem[li, k] = sum(1 << (j * 3 + line[j]) for j in range(k))
        return {"packed": packed, "ct": ct, "rowcode": rowcode, "rem": rem}

    def sequence_units(
        self, stops: npt.NDArray[np.int64], ladder: list[int]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_], npt.NDArray[np.int64]]:
        """For each row of ``stops`` (n, 5): the spin-and-avalanches win in line bets, whether a window showed a
        Free Fall line, and the number of avalanches; the same as :meth:`sequence`."""
        t = self._fast
        ct: cascade.ColumnTables = t["ct"]
        n = stops.shape[0]
        units = np.zeros(n, dtype=np.int64)
        trig = np.zeros(n, dtype=bool)
        aval = np.zeros(n, dtype=np.int64)
        cols, ptr, act = ct.start(stops), stops.astype(np.int64), np.arange(n)
        step = 0
        while act.size:
            mult = ladder[min(step, len(ladder) - 1)]
            part = [[t["rowcode"][j][r][cols[:, j]] for r in range(3)] for j in range(5)]
            pay = np.zeros(act.size, dtype=np.int64)
            ff = np.zeros(act.size, dtype=np.int64)
            rem = np.zeros(act.size, dtype=np.int64)
            for li, line in enumerate(LINES):
                v = t["packed"][
                    part[0][line[0]] + part[1][line[1]] + part[2][line[2]] + part[3][line[3]] + part[4][line[4]]
                ]
                pay += v >> 8
                ff |= v
                rem |= t["rem"][li][(v >> 1) & 7]
            units[act] += pay * mult
            trig[act] |= (ff & 1).astype(bool)
            hit = pay > 0
            act, cols, ptr, rem = act[hit], cols[hit], ptr[hit], rem[hit]
            if act.size:
                aval[act] += 1
                removed = np.stack([(rem >> (3 * j)) & 7 for j in range(5)], axis=1)
                cols, ptr = ct.refill(cols, ptr, removed)
            step += 1
        return units, trig, aval

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: base sequences side by side, then the Free Falls as side-by-side sessions; the cap applied to
        each round's total."""
        gen = np.random.Generator(np.random.PCG64(seed))
        lb = self.pay_unit(bet.params)
        cap = self.max_win_multiplier * bet.total_stake
        tally = mech.FastTally(("base", "free_spins"))
        counts = {"avalanches": 0, "feature:free_falls": 0, "free_falls_played": 0, "capped": 0}
        for n in mech.batches(rounds, 100_000, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            units, trig, aval = self.sequence_units(stops, BASE_LADDER)
            counts["avalanches"] += int(aval.sum())
            base = units * lb
            fs = np.zeros(n, dtype=np.int64)
            sess = np.nonzero(trig)[0]
            counts["feature:free_falls"] += int(sess.size)
            left = np.full(sess.size, FREE_FALLS, dtype=np.int64)
            awarded = left.copy()
            while sess.size:
                st = np.stack([gen.integers(0, len(s), size=sess.size) for s in self.strips], axis=1)
                u, tr, _ = self.sequence_units(st, FREE_FALL_LADDER)
                counts["free_falls_played"] += int(sess.size)
                fs[sess] += u * lb
                left -= 1
                add = tr & (awarded < MAX_FREE_FALLS)
                more = np.minimum(FREE_FALLS, MAX_FREE_FALLS - awarded)
                left += np.where(add, more, 0)
                awarded += np.where(add, more, 0)
                keep = left > 0
                sess, left, awarded = sess[keep], left[keep], awarded[keep]
            win = base + fs
            over = win > cap
            if over.any():
                counts["capped"] += int(over.sum())
                cut = win - cap
                fs_cut = np.minimum(fs, np.where(over, cut, 0))
                fs -= fs_cut
                base -= np.where(over, cut - fs_cut, 0)
            tally.add(base=base, free_spins=fs)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)

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
            "features": {
                "avalanche": {"ladder": BASE_LADDER},
                "free_falls": {
                    "trigger": "3 FREEFALL on a line from reel 1",
                    "free_falls": FREE_FALLS,
                    "ladder": FREE_FALL_LADDER,
                    "max": MAX_FREE_FALLS,
                },
            },
        }


FALLING_IDOLS = register(FallingIdols(DEFINITION))
