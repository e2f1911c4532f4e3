"""Kobushi: 5 reels x 3 rows, 1-30 lines, 1-5 coins a line, Wild, Scatter, Kobushi pick bonus, Big Cat free spins.

Source: ``/work/shared/seeds/000_ba26597c6c8b202d.txt`` (HTML5 User Guide / Rules v1.4). What the rules give and
what this definition adds (all of it data in :data:`DEFINITION`, version 1; the design and PAR notes are in
``docs/games/kobushi.md``):

* **Paytable** (rules §7): eleven symbols, pays for 3/4/5 of a kind in multiples of the **line bet** (coins x coin
  value): 100/500/1000 (two symbols), 50/250/500, 40/100/300 (two), 20/40/120 (two), 5/25/100 (two), 4/20/50
  (two). The rules' symbol pictures were images; the names here are ours: WILD, GEISHA, SAMURAI, TEMPLE,
  LANTERN, KOI, FAN, A, K, Q, J. The 10 non-wild ones are the "10 normal symbols" of the free spins' extra wild.
  Lines pay left to right, the highest combination per line, wins of lines added (rules §7).
* **Wild** substitutes every symbol except Scatter, Kobushi Bonus and Big Cat (rules §6), and pays as itself. It lands
  on every base reel; on the free-spin strips only on reels 2 and 4, each time between a Scatter and a Big Cat (so a
  spin's own expansion never changes what any row shows, and every line has the same expectation).
* **Scatter**: 3/4/5 anywhere pay x5/x10/x25 the total bet, added to line wins (rules §6).
* **Kobushi Bonus** (rules §8): 3+ KOBUSHI symbols anywhere. A prize multiplier *m* in 2..500 is drawn from a
  weighted table, split into 2..8 random positive parts (whole multiples of the stake), and closed by a Cat -
  or, at max coins and max lines only, by a jackpot symbol (rules §9). **The whole sequence is drawn when the
  bonus triggers** (GP §7(3)); each pick reveals the next item of the sequence whatever item the player touches.
  The first two picks always win (at least two parts), a jackpot symbol never comes first, one jackpot at most.
  The bonus pays *m* x stake whichever way it ends, so the game's own RTP does not depend on the jackpots.
* **Progressive jackpots** are not paid here: the engine emits ``jackpot_events`` ({"type":
  "kobushi_progressive", "level": "sushi"|"kobushi", ...}) for the jackpots app (rules §9).
* **Big Cat free spins** (rules §8): 3+ BIG_CAT symbols anywhere: 5-20 spins (uniform), a multiplier x2-x5
  (weighted table), an extra wild drawn uniformly from the 10 normal symbols (substitutes all but Scatter, Big Cat
  and Wild, pays as itself), a normal Wild in the **middle row** expands over its reel (not over Scatter or Big Cat)
  and sticks for the rest of that set. 3+ BIG_CAT during free spins award 5-20 more spins as a new set, played
  after the current one, with a new extra wild, no sticky wilds carried over, and a multiplier drawn uniformly
  among the values above the previous set's (x5 stays x5). At most 100 free spins per round in all. Free spins use
  their own strips (no KOBUSHI symbol, rules §8) and the triggering bet; every free spin win (lines and scatter)
  is multiplied by the set's multiplier.
* **Max win**: one round pays at most 5,000 x the total stake (design cap; when it is reached the round ends
  and unplayed free spins lapse). The declared max win is that cap at the max bet.
* Bets (CZK): coin values 0.01, 0.02, 0.05, 0.10, 0.20, 0.50, 1, 2, 5 CZK; total = coin value x coins x lines,
  between 0.10 CZK and 750 CZK and a multiple of 0.10 CZK (GP §8(1)-(2); other combinations are refused).

The round: ``start`` plays the base spin and draws every feature's parameters; the round then waits for picks
(``{"type": "pick", "index": i}``, i = 0..14, the 15 "Pick Me!" positions) and for each free spin (``{"type":
"spin"}``). Free spins and the bonus are part of the round (GP §7(3)).
"""
from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction

from .. import slots as S
from ..base import Bet, Declared, EngineError
from ..registry import register

WILD, SCATTER, KOBUSHI, BIG_CAT = "WILD", "SCATTER", "KOBUSHI", "BIG_CAT"
NORMAL = ["GEISHA", "SAMURAI", "TEMPLE", "LANTERN", "KOI", "FAN", "A", "K", "Q", "J"]
SPECIAL = (SCATTER, KOBUSHI, BIG_CAT)
PICK_ITEMS = 15  # every position of the 5x3 window turns into a "KOBUSHI Pick Me!" symbol
TERMINATORS = ("cat", "jackpot_sushi", "jackpot_kobushi")

SYMBOL_NAMES = {
    WILD: ("Wild", "Wild (divoký symbol)"), "GEISHA": ("Geisha", "Gejša"), "SAMURAI": ("Samurai", "Samuraj"),
    "TEMPLE": ("Temple", "Chrám"), "LANTERN": ("Lantern", "Lampion"), "KOI": ("Koi", "Kapr koi"),
    "FAN": ("Fan", "Vějíř"), "A": ("A", "A"), "K": ("K", "K"), "Q": ("Q", "Q"), "J": ("J", "J"),
    SCATTER: ("Scatter", "Scatter"), KOBUSHI: ("Kobushi Bonus", "Bonus Kobushi"),
    BIG_CAT: ("Big Cat Bonus", "Bonus Velká kočka"),
}

# Rules §7: wins for 5 coins at 0.01 EUR (line bet 0.05 EUR) divided by the line bet.
PAYTABLE = {
    WILD: {3: 100, 4: 500, 5: 1000},
    "GEISHA": {3: 100, 4: 500, 5: 1000},
    "SAMURAI": {3: 50, 4: 250, 5: 500},
    "TEMPLE": {3: 40, 4: 100, 5: 300},
    "LANTERN": {3: 40, 4: 100, 5: 300},
    "KOI": {3: 20, 4: 40, 5: 120},
    "FAN": {3: 20, 4: 40, 5: 120},
    "A": {3: 5, 4: 25, 5: 100},
    "K": {3: 5, 4: 25, 5: 100},
    "Q": {3: 4, 4: 20, 5: 50},
    "J": {3: 4, 4: 20, 5: 50},
}
SCATTER_PAYS = {3: 5, 4: 10, 5: 25}  # x total bet (rules §6)

# Rows 0 (top), 1 (middle), 2 (bottom) on reels 1-5. Line 1 is the middle row.
LINES = [
    [1, 1, 1, 1, 1], [0, 0, 0, 0, 0], [2, 2, 2, 2, 2], [0, 1, 2, 1, 0], [2, 1, 0, 1, 2],
    [0, 0, 1, 2, 2], [2, 2, 1, 0, 0], [1, 0, 1, 2, 1], [1, 2, 1, 0, 1], [0, 1, 1, 1, 0],
    [2, 1, 1, 1, 2], [1, 0, 0, 0, 1], [1, 2, 2, 2, 1], [0, 1, 0, 1, 0], [2, 1, 2, 1, 2],
    [1, 1, 0, 1, 1], [1, 1, 2, 1, 1], [0, 0, 2, 0, 0], [2, 2, 0, 2, 2], [0, 2, 2, 2, 0],
    [2, 0, 0, 0, 2], [1, 0, 2, 0, 1], [1, 2, 0, 2, 1], [0, 2, 0, 2, 0], [2, 0, 2, 0, 2],
    [0, 0, 1, 0, 0], [2, 2, 1, 2, 2], [1, 0, 1, 0, 1], [1, 2, 1, 2, 1], [0, 1, 2, 2, 2],
]

# @@STRIPS@@ (generated by the design script, see docs/games/kobushi.md)
BASE_STRIPS: list[list[str]] = [
    [
        "WILD", "KOI", "J", "WILD", "TEMPLE", "K", "J", "BIG_CAT", "J", "Q", "J", "K", "A", "FAN", "Q", "K", "A",
        "TEMPLE", "LANTERN", "KOBUSHI", "FAN", "J", "WILD", "J", "FAN", "SAMURAI", "A", "K", "Q", "A", "Q", "K",
        "SCATTER", "J", "K", "GEISHA", "SAMURAI", "KOI", "LANTERN", "A", "GEISHA", "Q", "J", "FAN", "KOBUSHI",
        "TEMPLE", "LANTERN", "J", "WILD", "Q", "KOI", "K", "Q", "J", "Q", "A", "BIG_CAT", "K", "FAN", "KOI", "A",
        "TEMPLE", "J", "A", "LANTERN", "A", "Q", "SAMURAI", "KOI", "SCATTER", "FAN", "KOI", "K", "Q",
    ],
    [
        "Q", "K", "SCATTER", "FAN", "J", "TEMPLE", "A", "LANTERN", "WILD", "K", "WILD", "K", "LANTERN", "FAN",
        "TEMPLE", "BIG_CAT", "A", "KOI", "A", "J", "GEISHA", "SAMURAI", "TEMPLE", "KOI", "TEMPLE", "J", "KOI",
        "KOBUSHI", "A", "SAMURAI", "J", "K", "J", "FAN", "KOI", "J", "A", "WILD", "A", "SCATTER", "J", "FAN", "Q",
        "J", "Q", "FAN", "K", "FAN", "KOI", "Q", "K", "Q", "BIG_CAT", "Q", "J", "Q", "K", "J", "A", "GEISHA",
        "LANTERN", "Q", "KOI", "A", "KOBUSHI", "J", "SAMURAI", "K", "Q", "WILD", "Q", "LANTERN", "A", "K",
    ],
    [
        "SCATTER", "FAN", "K", "TEMPLE", "J", "A", "K", "J", "Q", "A", "TEMPLE", "LANTERN", "KOBUSHI", "LANTERN",
        "SAMURAI", "J", "K", "A", "WILD", "FAN", "Q", "SAMURAI", "Q", "SAMURAI", "KOI", "BIG_CAT", "J", "LANTERN",
        "A", "K", "FAN", "K", "J", "KOI", "J", "Q", "K", "SCATTER", "Q", "A", "GEISHA", "A", "Q", "J", "WILD", "KOI",
        "FAN", "J", "WILD", "BIG_CAT", "KOI", "GEISHA", "J", "K", "A", "KOI", "TEMPLE", "Q", "KOI", "A", "Q",
        "KOBUSHI", "K", "Q", "A", "LANTERN", "Q", "J", "K", "FAN", "TEMPLE", "FAN", "J",
    ],
    [
        "K", "A", "FAN", "BIG_CAT", "FAN", "K", "WILD", "SAMURAI", "Q", "J", "A", "LANTERN", "A", "TEMPLE", "K",
        "BIG_CAT", "Q", "WILD", "FAN", "TEMPLE", "A", "GEISHA", "K", "J", "GEISHA", "K", "KOI", "SCATTER", "A", "KOI",
        "J", "LANTERN", "KOI", "SAMURAI", "J", "LANTERN", "K", "WILD", "FAN", "Q", "KOBUSHI", "KOI", "J", "FAN", "Q",
        "SAMURAI", "WILD", "K", "KOI", "K", "FAN", "Q", "SCATTER", "J", "Q", "A", "Q", "J", "TEMPLE", "LANTERN", "J",
        "Q", "J", "A", "KOBUSHI", "K", "Q", "A", "Q", "KOI", "J", "TEMPLE", "A", "J",
    ],
    [
        "J", "TEMPLE", "J", "KOI", "FAN", "Q", "KOBUSHI", "KOI", "Q", "K", "KOI", "J", "K", "A", "WILD", "J", "A",
        "Q", "LANTERN", "Q", "WILD", "SCATTER", "KOI", "TEMPLE", "GEISHA", "A", "FAN", "SAMURAI", "TEMPLE", "A", "Q",
        "A", "J", "K", "Q", "SCATTER", "FAN", "J", "Q", "J", "A", "WILD", "FAN", "KOI", "A", "FAN", "J", "K", "Q",
        "J", "KOBUSHI", "J", "K", "TEMPLE", "WILD", "GEISHA", "LANTERN", "FAN", "K", "KOI", "SAMURAI", "K", "LANTERN",
        "K", "Q", "BIG_CAT", "J", "K", "SAMURAI", "A", "Q", "LANTERN", "A",
    ],
]
FREE_SPIN_STRIPS: list[list[str]] = [
    [
        "Q", "A", "K", "Q", "LANTERN", "A", "LANTERN", "A", "FAN", "A", "K", "BIG_CAT", "K", "A", "KOI", "LANTERN",
        "J", "KOI", "TEMPLE", "KOI", "TEMPLE", "A", "J", "TEMPLE", "J", "FAN", "K", "KOI", "SCATTER", "GEISHA", "J",
        "K", "J", "SAMURAI", "J", "K", "TEMPLE", "Q", "K", "Q", "J", "Q", "FAN", "KOI", "Q", "SCATTER", "Q", "FAN",
        "LANTERN", "FAN", "J", "K", "KOI", "K", "A", "J", "Q", "GEISHA", "SAMURAI", "A", "Q", "J", "BIG_CAT", "Q",
        "J", "SAMURAI", "A", "FAN",
    ],
    [
        "TEMPLE", "FAN", "BIG_CAT", "WILD", "SCATTER", "A", "SAMURAI", "K", "A", "J", "K", "J", "TEMPLE", "GEISHA",
        "KOI", "FAN", "A", "J", "Q", "J", "LANTERN", "FAN", "KOI", "FAN", "J", "A", "SCATTER", "K", "Q", "LANTERN",
        "Q", "K", "FAN", "K", "J", "Q", "A", "SAMURAI", "TEMPLE", "A", "KOI", "GEISHA", "J", "A", "Q", "A", "K", "J",
        "Q", "BIG_CAT", "J", "LANTERN", "FAN", "K", "J", "Q", "K", "Q", "LANTERN", "J", "A", "KOI", "Q", "SAMURAI",
        "KOI", "K", "KOI", "TEMPLE", "Q",
    ],
    [
        "Q", "J", "KOI", "A", "K", "Q", "FAN", "LANTERN", "Q", "A", "J", "A", "K", "KOI", "Q", "BIG_CAT", "J", "KOI",
        "K", "GEISHA", "K", "A", "FAN", "K", "KOI", "TEMPLE", "FAN", "J", "LANTERN", "Q", "K", "GEISHA", "SCATTER",
        "A", "LANTERN", "Q", "J", "Q", "FAN", "KOI", "A", "J", "FAN", "J", "A", "FAN", "Q", "LANTERN", "J", "BIG_CAT",
        "TEMPLE", "A", "SAMURAI", "J", "SAMURAI", "Q", "J", "K", "TEMPLE", "K", "J", "K", "SAMURAI", "Q", "A",
        "TEMPLE", "SCATTER", "KOI",
    ],
    [
        "A", "Q", "LANTERN", "SAMURAI", "K", "FAN", "J", "K", "A", "J", "K", "J", "KOI", "SCATTER", "WILD", "BIG_CAT",
        "SAMURAI", "Q", "K", "TEMPLE", "A", "TEMPLE", "KOI", "A", "J", "K", "Q", "K", "J", "Q", "GEISHA", "LANTERN",
        "J", "Q", "SAMURAI", "FAN", "Q", "SCATTER", "J", "FAN", "Q", "FAN", "J", "A", "TEMPLE", "KOI", "GEISHA",
        "KOI", "K", "KOI", "K", "FAN", "J", "A", "Q", "K", "A", "Q", "J", "BIG_CAT", "A", "TEMPLE", "FAN", "A", "Q",
        "LANTERN", "KOI", "LANTERN", "J",
    ],
    [
        "A", "Q", "TEMPLE", "KOI", "LANTERN", "J", "A", "J", "FAN", "KOI", "Q", "FAN", "Q", "KOI", "A", "TEMPLE",
        "SCATTER", "K", "KOI", "J", "K", "FAN", "J", "SAMURAI", "GEISHA", "A", "J", "A", "Q", "K", "KOI", "J", "Q",
        "BIG_CAT", "LANTERN", "KOI", "K", "Q", "K", "A", "SAMURAI", "J", "K", "Q", "J", "Q", "SAMURAI", "K", "A",
        "FAN", "SCATTER", "K", "LANTERN", "GEISHA", "K", "A", "J", "TEMPLE", "FAN", "Q", "J", "A", "LANTERN", "FAN",
        "J", "TEMPLE", "Q", "BIG_CAT",
    ],
]
# @@END STRIPS@@

DEFINITION = {
    "code": "kobushi",
    "version": 1,
    "name": "Kobushi",
    "name_cs": "Kobushi",
    "source": "Kobushi HTML5 User Guide / Rules v1.4 (seeds/000_ba26597c6c8b202d.txt)",
    "reels": 5,
    "rows": 3,
    "paytable": PAYTABLE,
    "wild": WILD,
    "wild_reels": {"base": [1, 2, 3, 4, 5], "free_spins": [2, 4]},  # informational (the strips decide)
    "scatter_pays": SCATTER_PAYS,
    "lines": LINES,
    "base_strips": BASE_STRIPS,
    "free_spin_strips": FREE_SPIN_STRIPS,
    "coin_values": [1, 2, 5, 10, 20, 50, 100, 200, 500],  # haléř
    "max_coins": 5,
    "max_lines": 30,
    "default_bet": {"lines": 15, "coins": 5, "coin_value": 10},
    "stake_step": 10,
    "min_stake": 10,
    "bonus": {
        # prize multiplier of the stake, 2..500: [value, weight]
        "prize_table": [[2, 18642], [3, 13812], [4, 11170], [5, 9473], [6, 8281], [8, 6697], [10, 5680], [12, 4965],
                        [15, 4211], [20, 3405], [25, 2888], [30, 2524], [40, 2042], [50, 1732], [75, 1284],
                        [100, 1038], [150, 774], [200, 622], [300, 461], [500, 316]],
        "max_parts": 8,
        # what closes the sequence at max coins and max lines (a Cat otherwise): [item, weight]
        "terminators": [["cat", 96910], ["jackpot_sushi", 2575], ["jackpot_kobushi", 515]],
        "jackpot_seed_per_coin": {"sushi": 5000, "kobushi": 25000},  # rules §9 table: seed / coin value
    },
    "free_spins": {
        "spins": [5, 20],
        "multiplier_table": [[2, 60], [3, 25], [4, 10], [5, 5]],
        "extra_wild_symbols": NORMAL,
        "max_spins": 100,
    },
    "max_win_multiplier": 5000,
    "rtp": "96.89",
    "rtp_with_jackpots": "98.21",
    "unfinished_deadline_days": 90,
}


class Kobushi(S.SlotGame):
    """The Kobushi game for one definition (a dict like :data:`DEFINITION`)."""

    def __init__(self, definition: dict):
        d = self.d = definition
        self.code, self.version, self.name, self.name_cs = d["code"], d["version"], d["name"], d["name_cs"]
        self.rows, self.reels = d["rows"], d["reels"]
        self.lines = d["lines"]
        self.base_strips, self.fs_strips = d["base_strips"], d["free_spin_strips"]
        excl = frozenset(SPECIAL)
        self.base_eval = S.LineEvaluator(d["paytable"], {WILD: excl})
        self.fs_evals = {x: S.LineEvaluator(d["paytable"], {WILD: excl, x: excl | {WILD}})
                         for x in d["free_spins"]["extra_wild_symbols"]}
        max_bet = max(d["coin_values"]) * d["max_coins"] * d["max_lines"]
        self.declared = Declared(
            rtp=Decimal(d["rtp"]), min_bet=d["min_stake"], max_bet=max_bet,
            max_win=d["max_win_multiplier"] * max_bet, unfinished_deadline_days=d["unfinished_deadline_days"],
            rtp_with_jackpots=Decimal(d["rtp_with_jackpots"]),
        )
        self.default_bet_params = dict(d["default_bet"])
        # PAR sheets use max coins and max lines (the jackpot-eligible bet; the game's own RTP is the same).
        self.par_bet_params = {"lines": d["max_lines"], "coins": d["max_coins"], "coin_value": 10}

    # --- bets -------------------------------------------------------------------------------------------------
    def validate_bet(self, params: dict) -> Bet:
        d = self.d
        S.check_keys(params, ("lines", "coins", "coin_value"))
        lines = params.get("lines", d["default_bet"]["lines"])
        coins = params.get("coins", d["default_bet"]["coins"])
        coin = params.get("coin_value", d["default_bet"]["coin_value"])
        if not S.is_int(lines) or not 1 <= lines <= d["max_lines"]:
            raise S.bet_error("game.invalid_lines", f"Lines must be a whole number from 1 to {d['max_lines']}.",
                              f"Počet linií musí být celé číslo od 1 do {d['max_lines']}.", lines=lines)
        if not S.is_int(coins) or not 1 <= coins <= d["max_coins"]:
            raise S.bet_error("game.invalid_coins", f"Coins per line must be 1 to {d['max_coins']}.",
                              f"Počet mincí na linii musí být 1 až {d['max_coins']}.", coins=coins)
        if not S.is_int(coin) or coin not in d["coin_values"]:
            raise S.bet_error("game.invalid_coin", "Unknown coin value.", "Neznámá hodnota mince.",
                              coin_value=coin, allowed=d["coin_values"])
        total = lines * coins * coin
        S.check_stake(total, min_bet=d["min_stake"], max_bet=self.declared.max_bet, step=d["stake_step"])
        return Bet(total_stake=total, params={"lines": lines, "coins": coins, "coin_value": coin})

    def is_max_bet(self, params: dict) -> bool:
        """Rules §9: jackpots only with the maximum coins and the maximum lines (any coin value)."""
        return params["lines"] == self.d["max_lines"] and params["coins"] == self.d["max_coins"]

    # --- evaluation -------------------------------------------------------------------------------------------
    @staticmethod
    def expand_column(col: list[str]) -> list[str]:
        """An expanded wild covers its reel except Scatter / Big Cat (/ Kobushi) symbols (rules §8 note)."""
        return [s if s in SPECIAL else WILD for s in col]

    def free_spin_window(self, raw: list[list[str]], sticky: list[int]) -> tuple[list[list[str]], list[int]]:
        """Apply sticky reels and new middle-row wilds; returns (window, newly expanded reels)."""
        window, expanded = [], []
        for j, col in enumerate(raw):
            if j in sticky or col[1] == WILD:
                window.append(self.expand_column(col))
                if j not in sticky:
                    expanded.append(j)
            else:
                window.append(list(col))
        return window, expanded

    def evaluate(self, window, evaluator, lines: int, line_bet: int, stake: int, multiplier: int = 1) -> dict:
        wins = S.line_wins(window, self.lines, evaluator, active=lines)
        line_wins = [[w[0], w[1], w[2], w[3] * line_bet * multiplier] for w in wins]
        n_sc = S.count_symbols(window, SCATTER)
        sc_win = self.d["scatter_pays"].get(n_sc, 0) * stake * multiplier
        line_total = sum(w[3] for w in line_wins)
        return {"line_wins": line_wins, "line_win": line_total, "scatter": {"count": n_sc, "win": sc_win},
                "win": line_total + sc_win}

    # --- round ------------------------------------------------------------------------------------------------
    def _pay(self, state: dict, part: str, amount: int) -> int:
        """Add a win within the round's cap (max_win_multiplier x stake); reaching the cap ends the round."""
        room = state["cap"] - state["win"]
        paid = min(amount, room)
        S.add_win(state, part, paid)
        if state["win"] >= state["cap"]:
            state["capped"] = True
        return paid

    def start(self, bet: Bet, rng) -> dict:
        p = bet.params
        state = S.new_state(self, bet)
        state["line_bet"] = p["coins"] * p["coin_value"]
        state["cap"] = self.d["max_win_multiplier"] * bet.total_stake
        state["capped"] = False
        stops = S.draw_stops(self.base_strips, rng)
        window = S.window_at(self.base_strips, stops, self.rows)
        ev = self.evaluate(window, self.base_eval, p["lines"], state["line_bet"], bet.total_stake)
        n_kb, n_bc = S.count_symbols(window, KOBUSHI), S.count_symbols(window, BIG_CAT)
        features = (["kobushi_bonus"] if n_kb >= 3 else []) + (["big_cat_free_spins"] if n_bc >= 3 else [])
        paid = self._pay(state, "base", ev["win"])
        state["steps"].append({"type": "spin", "mode": "base", "stops": stops, "window": window, **ev, "win": paid,
                               "features": features})
        if n_kb >= 3:
            self._start_bonus(state, rng, bet, n_kb)
        if n_bc >= 3:
            self._award_free_spins(state, rng, n_bc, retrigger=False)
        return self._next(state)

    def _next(self, state: dict) -> dict:
        if state.get("capped"):
            if state.get("bonus"):
                state["bonus"]["active"] = False
            return S.finish(state)
        b = state.get("bonus")
        if b and b["active"]:
            picked = b["picked"]
            return S.await_action(
                state, "pick", [{"type": "pick", "index": i} for i in range(PICK_ITEMS) if i not in picked],
                items=PICK_ITEMS, picked=list(picked), bonus_win=state["breakdown"]["bonus"])
        fs = state.get("free_spins")
        if fs and fs["current"] < len(fs["sets"]):
            cur = fs["sets"][fs["current"]]
            left = fs["awarded"] - fs["played"]
            return S.await_action(
                state, "free_spin", [{"type": "spin"}], spins_left=left, set=fs["current"] + 1,
                set_spins_left=cur["spins"] - cur["played"], multiplier=cur["multiplier"],
                extra_wild=cur["extra_wild"], sticky_reels=list(cur["sticky"]),
                free_spins_win=state["breakdown"]["free_spins"])
        return S.finish(state)

    # Kobushi pick bonus ------------------------------------------------------------------------------------------
    def _start_bonus(self, state: dict, rng, bet: Bet, n_kb: int) -> None:
        """Draw the whole prize sequence now (GP §7(3)): prize m, number of parts, the parts, the closing item."""
        cfg = self.d["bonus"]
        m = S.draw_weighted(rng, cfg["prize_table"])
        k = 2 + rng.randbelow(min(cfg["max_parts"] - 1, m - 1))  # 2..min(max_parts, m) parts, each >= 1 x stake
        parts = S.split_prize(rng, m, k)
        end = S.draw_weighted(rng, cfg["terminators"]) if self.is_max_bet(bet.params) else "cat"
        state["bonus"] = {"active": True, "prize_multiplier": m,
                          "sequence": [x * bet.total_stake for x in parts] + [end], "picked": []}
        state["steps"].append({"type": "trigger", "feature": "kobushi_bonus", "symbols": n_kb, "items": PICK_ITEMS})

    def _act_pick(self, state: dict, action: dict, rng) -> dict:
        b = state["bonus"]
        item = b["sequence"][len(b["picked"])]
        b["picked"].append(action["index"])
        step = {"type": "pick", "index": action["index"], "pick": len(b["picked"])}
        if isinstance(item, int):
            step.update(reveal="prize", win=self._pay(state, "bonus", item))
        else:
            step.update(reveal=item, win=0)
            b["active"] = False
            if item != "cat":
                level = item.split("_", 1)[1]
                p = state["bet"]
                state["jackpot_events"].append({
                    "type": "kobushi_progressive", "level": level, "tier": level, "trigger": "kobushi_bonus_pick",
                    "pick": len(b["picked"]), "index": action["index"], "coin_value": p["coin_value"],
                    "coins": p["coins"], "lines": p["lines"], "stake": state["stake"],
                    "seed_per_coin": self.d["bonus"]["jackpot_seed_per_coin"][level],
                })
        step["bonus_win"] = state["breakdown"]["bonus"]
        state["steps"].append(step)
        return self._next(state)

    # Big Cat free spins ------------------------------------------------------------------------------------------
    def _award_free_spins(self, state: dict, rng, n_bc: int, retrigger: bool) -> None:
        cfg = self.d["free_spins"]
        fs = state.setdefault("free_spins", {"awarded": 0, "played": 0, "max": cfg["max_spins"], "current": 0,
                                             "last_multiplier": 0, "sets": []})
        room = fs["max"] - fs["awarded"]
        step = {"type": "trigger", "feature": "big_cat_retrigger" if retrigger else "big_cat_free_spins",
                "symbols": n_bc}
        if room <= 0:
            step.update(spins=0, reason="max_free_spins_reached")
            state["steps"].append(step)
            return
        lo, hi = cfg["spins"]
        n = min(S.draw_range(rng, lo, hi), room)
        if not retrigger:
            mult = S.draw_weighted(rng, cfg["multiplier_table"])
        else:
            last = fs["last_multiplier"]
            top = max(v for v, _ in cfg["multiplier_table"])
            mult = last + 1 + rng.randbelow(top - last) if last < top else top
        extra = cfg["extra_wild_symbols"][rng.randbelow(len(cfg["extra_wild_symbols"]))]
        fs["sets"].append({"spins": n, "played": 0, "multiplier": mult, "extra_wild": extra, "sticky": []})
        fs["awarded"] += n
        fs["last_multiplier"] = mult
        step.update(spins=n, multiplier=mult, extra_wild=extra)
        state["steps"].append(step)

    def _act_spin(self, state: dict, action: dict, rng) -> dict:
        fs = state["free_spins"]
        cur = fs["sets"][fs["current"]]
        stops = S.draw_stops(self.fs_strips, rng)
        raw = S.window_at(self.fs_strips, stops, self.rows)
        sticky_before = list(cur["sticky"])
        window, expanded = self.free_spin_window(raw, sticky_before)
        cur["sticky"] = sorted(sticky_before + expanded)
        p = state["bet"]
        ev = self.evaluate(window, self.fs_evals[cur["extra_wild"]], p["lines"], state["line_bet"], state["stake"],
                           cur["multiplier"])
        n_bc = S.count_symbols(window, BIG_CAT)
        cur["played"] += 1
        fs["played"] += 1
        paid = self._pay(state, "free_spins", ev["win"])
        step = {"type": "spin", "mode": "free", "set": fs["current"] + 1, "spin": cur["played"],
                "of": cur["spins"], "multiplier": cur["multiplier"], "extra_wild": cur["extra_wild"],
                "stops": stops, "raw_window": raw, "window": window, "sticky_reels": sticky_before,
                "expanded_reels": expanded, **ev, "win": paid,
                "features": ["big_cat_retrigger"] if n_bc >= 3 else []}
        if paid < ev["win"]:
            step["capped"] = True
        state["steps"].append(step)
        if n_bc >= 3 and not state["capped"]:
            self._award_free_spins(state, rng, n_bc, retrigger=True)
        if cur["played"] >= cur["spins"]:
            fs["current"] += 1
        return self._next(state)

    # --- catalogue ----------------------------------------------------------------------------------------------
    def describe(self) -> dict:
        d, dec = self.d, self.declared
        return {
            "code": self.code, "version": self.version, "name": self.name, "name_cs": self.name_cs, "kind": self.kind,
            "source": d["source"],
            "reels": self.reels, "rows": self.rows,
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "paytable": {"unit": "line_bet",
                         "pays": {s: {str(k): v for k, v in p.items()} for s, p in d["paytable"].items()}},
            "scatter_pays": {"unit": "total_bet", "pays": {str(k): v for k, v in d["scatter_pays"].items()}},
            "lines": d["lines"],
            "bet_options": {"lines": [1, d["max_lines"]], "coins": [1, d["max_coins"]], "coin_values": d["coin_values"],
                            "stake": {"min": dec.min_bet, "max": dec.max_bet, "step": d["stake_step"]},
                            "formula": "coin_value x coins x lines"},
            "default_bet": dict(d["default_bet"]),
            "par_bet": dict(self.par_bet_params),
            "features": {
                "kobushi_bonus": {"trigger": "3+ KOBUSHI anywhere", "prize_multiplier": [2, 500], "items": PICK_ITEMS,
                                  "min_winning_picks": 2},
                "free_spins": {"trigger": "3+ BIG_CAT anywhere", "spins": d["free_spins"]["spins"],
                               "multipliers": [v for v, _ in d["free_spins"]["multiplier_table"]],
                               "max_spins": d["free_spins"]["max_spins"]},
                "jackpots": {"levels": ["sushi", "kobushi"], "eligible": "max coins and max lines",
                             "seed_per_coin": d["bonus"]["jackpot_seed_per_coin"]},
            },
            "max_win_multiplier": d["max_win_multiplier"],
            "declared": {"rtp": str(dec.rtp), "rtp_with_jackpots": str(dec.rtp_with_jackpots), "min_bet": dec.min_bet,
                         "max_bet": dec.max_bet, "max_win": dec.max_win, "avg_hourly_loss": dec.avg_hourly_loss,
                         "unfinished_deadline_days": dec.unfinished_deadline_days},
            "rules_en": RULES_EN,
            "rules_cs": RULES_CS,
        }

    # --- exact RTP ----------------------------------------------------------------------------------------------
    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        counts = [S.symbol_counts(s) for s in self.base_strips]
        lines = S.expected_line_multiplier(self.base_eval, counts)
        sc = S.count_probabilities(self.base_strips, self.rows, SCATTER)
        scatter = sum((p * self.d["scatter_pays"].get(k, 0) for k, p in sc.items()), Fraction(0))
        kb = S.count_probabilities(self.base_strips, self.rows, KOBUSHI)
        p_bonus = sum((p for k, p in kb.items() if k >= 3), Fraction(0))
        bonus = p_bonus * S.weighted_mean(self.d["bonus"]["prize_table"])
        return {"base_lines": lines, "base_scatter": scatter, "bonus": bonus}

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Base-game line pays (every line has the same symbol distribution, so the per-line expectation in line
        bets is the RTP for any number of lines and coins), scatter pays and the Kobushi bonus (P(3+ KOBUSHI) x
        mean prize multiplier; the round cap can never cut base + bonus: 1,000 + 25 + 500 < 5,000)."""
        return dict(self._exact)

    def trigger_probabilities(self) -> dict[str, Fraction]:
        out = {}
        for name, strips, sym in (("bonus", self.base_strips, KOBUSHI), ("free_spins", self.base_strips, BIG_CAT),
                                  ("retrigger", self.fs_strips, BIG_CAT)):
            dist = S.count_probabilities(strips, self.rows, sym)
            out[name] = sum((p for k, p in dist.items() if k >= 3), Fraction(0))
        return out

    # --- free spins: semi-exact expectation ----------------------------------------------------------------------
    ALPHABET = [WILD] + NORMAL + ["BLANK"]  # line symbols; Scatter/Kobushi/Big Cat never pay on a line

    def code_of(self, symbol: str) -> int:
        return self.ALPHABET.index(symbol) if symbol in self.ALPHABET else len(self.ALPHABET) - 1

    @functools.cached_property
    def luts(self) -> dict:
        """Line multiplier lookup tables (numpy, 12**5): key None = base game, key X = free spins with extra wild X."""
        out = {None: S.build_line_lut_np(self.base_eval, self.ALPHABET, self.reels)}
        for x, ev in self.fs_evals.items():
            out[x] = S.build_line_lut_np(ev, self.ALPHABET, self.reels)
        return out

    def _fs_reel_dists(self) -> list[dict]:
        """Per free-spin reel: symbol-code counts over all stops at each row, for a sticky reel and a free one
        (a free reel expands when its middle row shows WILD)."""
        a = len(self.ALPHABET)
        out = []
        for strip in self.fs_strips:
            sticky = [0] * a
            free = [[0] * a for _ in range(self.rows)]
            for stop in range(len(strip)):
                col = S.column(strip, stop, self.rows)
                sticky[self.code_of(self.expand_column(col)[0])] += 1
                shown = self.expand_column(col) if col[1] == WILD else col
                for r in range(self.rows):
                    free[r][self.code_of(shown[r])] += 1
            out.append({"sticky": sticky, "free": free, "len": len(strip),
                        "p_expand": Fraction(strip.count(WILD), len(strip))})
        return out

    def free_spins_analysis(self, lines: int | None = None) -> dict:
        """Expected free-spin win per trigger, in stakes, without the round cap (floats; exact line tables).

        Per spin, E[pay | sticky reels S before the spin, extra wild X] is exact (lookup tables contracted with the
        reels' symbol counts, the spin's own expansions included). The sticky state of a set after t spins is a
        product over the wild reels of 1 - (1 - w_j)^t (w_j = P(WILD in the middle row)), so a set of n spins is
        worth G(n) = sum_{t<n} E_S[v(S)] (X uniform). Retriggers (3+ BIG_CAT, probability r per spin, independent
        of sticky wilds and extra wild, since expansions never cover Big Cats) form a Markov chain over (spins
        awarded, spins played, last multiplier); each award (n, m) adds m x G(n). Only the 5,000 x stake cap is
        left out (the simulation includes it)."""
        import itertools

        import numpy as np

        n_lines = lines or self.d["max_lines"]
        dists = self._fs_reel_dists()
        wild_reels = [j for j, dd in enumerate(dists) if dd["p_expand"] > 0]
        denom = 1
        for dd in dists:
            denom *= dd["len"]
        xs = list(self.fs_evals)
        cache: dict = {}

        def line_value(x, key) -> float:
            k = (x, key)
            if k not in cache:
                vecs = [np.array(dists[j]["sticky"] if kind == "s" else dists[j]["free"][kind]) for j, kind in
                        enumerate(key)]
                cache[k] = S.lut_expectation(self.luts[x], vecs) / denom
            return cache[k]

        sc = S.count_probabilities(self.fs_strips, self.rows, SCATTER)
        scatter_ev = float(sum(p * self.d["scatter_pays"].get(k, 0) for k, p in sc.items()))
        v: dict[frozenset, float] = {}
        for size in range(len(wild_reels) + 1):
            for sticky in itertools.combinations(wild_reels, size):
                st = frozenset(sticky)
                tot = 0.0
                for x in xs:
                    for rows in self.lines[:n_lines]:
                        key = tuple("s" if j in st else rows[j] for j in range(self.reels))
                        tot += line_value(x, key)
                v[st] = tot / len(xs) / n_lines + scatter_ev  # in stakes, before the multiplier
        w = {j: float(dists[j]["p_expand"]) for j in wild_reels}
        cfg = self.d["free_spins"]
        lo, hi = cfg["spins"]
        max_spins = cfg["max_spins"]
        per_t = []
        for t in range(max_spins):
            e = 0.0
            for st, val in v.items():
                pr = 1.0
                for j in wild_reels:
                    q = 1 - (1 - w[j]) ** t
                    pr *= q if j in st else 1 - q
                e += pr * val
            per_t.append(e)
        g = [0.0]
        for t in range(max_spins):
            g.append(g[-1] + per_t[t])
        r = float(self.trigger_probabilities()["retrigger"])
        mults = [m for m, _ in cfg["multiplier_table"]]
        top = max(mults)
        awards = range(lo, hi + 1)

        @functools.cache
        def W(awarded: int, played: int, last: int) -> float:
            if played >= awarded:
                return 0.0
            stay = W(awarded, played + 1, last)
            room = max_spins - awarded
            if room <= 0:
                return stay  # a retrigger awards nothing any more
            nxt = [last + 1 + i for i in range(top - last)] if last < top else [top]
            acc = 0.0
            for n in awards:
                n2 = min(n, room)
                for m in nxt:
                    acc += m * g[n2] + W(awarded + n2, played + 1, m)
            acc /= len(awards) * len(nxt)
            return r * acc + (1 - r) * stay

        import sys

        old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(old, 10_000))
        try:
            tw = sum(w_ for _, w_ in cfg["multiplier_table"])
            per_trigger = 0.0
            for n in awards:
                for m, wm in cfg["multiplier_table"]:
                    per_trigger += wm / tw / len(awards) * (m * g[n] + W(n, 0, m))
        finally:
            sys.setrecursionlimit(old)
        p_fs = float(self.trigger_probabilities()["free_spins"])
        return {"lines": n_lines, "spin_value_by_sticky": {",".join(map(str, sorted(k))): val for k, val in v.items()},
                "scatter_per_spin": scatter_ev, "retrigger_probability": r, "per_trigger": per_trigger,
                "trigger_probability": p_fs, "rtp": p_fs * per_trigger, "set_value": g}

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress=None) -> dict | None:
        return _simulate_fast(self, bet, rounds, seed, progress)


RULES_EN = (
    "Kobushi is a 5-reel, 3-row video slot with 1-30 lines and 1-5 coins per line. Total bet = coin value x coins "
    "x lines. Line wins pay left to right (3, 4 or 5 of a kind from reel 1) in multiples of the line bet; only the "
    "highest win per line is paid and wins on different lines are added. Wild substitutes every symbol "
    "except Scatter, Kobushi Bonus and Big Cat. 3/4/5 Scatters anywhere pay 5/10/25 x the total bet. 3 or more "
    "Kobushi Bonus symbols start the Kobushi Bonus: a prize of 2 to 500 x the total bet is split into parts hidden "
    "behind the 15 'Pick Me!' symbols; the first two picks always win, the bonus ends when a Cat (or, at the "
    "maximum coins and lines, a Sushi or Kobushi jackpot symbol) is found, and the whole prize is paid. The prize "
    "sequence is drawn when the bonus starts; which symbol you pick does not change it. 3 or more Big Cat symbols "
    "award 5-20 free spins with a x2-x5 multiplier and an extra wild (one of the 10 normal symbols, substituting "
    "all but Scatter, Big Cat and Wild, paying as itself). A Wild in the middle row of a reel expands over the "
    "reel (not over Scatter or Big Cat) and stays for the rest of those free spins. 3 or more Big Cats during free "
    "spins award 5-20 more spins, played afterwards with a new extra wild and a higher multiplier (at most x5). At "
    "most 100 free spins per round; Kobushi Bonus symbols do not appear in free spins. A round pays at most 5,000 x "
    "the total bet; when that is reached the round ends. The progressive jackpots are paid by the jackpot system "
    "and only at the maximum coins and lines."
)
RULES_CS = (
    "Kobushi je video automat s 5 válci a 3 řadami, 1-30 liniemi a 1-5 mincemi na linii. Celková sázka = hodnota "
    "mince x počet mincí x počet linií. Výhry na liniích se počítají zleva doprava (3, 4 nebo 5 stejných symbolů "
    "od 1. válce) jako násobek sázky na linii; na každé linii se vyplácí jen nejvyšší výhra a výhry na různých "
    "liniích se sčítají. Wild nahrazuje všechny symboly kromě Scatteru, Bonusu Kobushi a Velké kočky. "
    "3/4/5 Scatterů kdekoli vyplácí 5/10/25násobek celkové sázky. 3 a více symbolů Bonus Kobushi spustí Bonus "
    "Kobushi: výhra 2 až 500násobku celkové sázky je rozdělena na části skryté pod 15 symboly 'Pick Me!'; první "
    "dva výběry vždy vyhrávají, bonus končí nalezením kočky (nebo při maximálním počtu mincí a linií symbolu "
    "jackpotu Sushi nebo Kobushi) a vyplatí se celá výhra. Pořadí výher se losuje při spuštění bonusu; volba "
    "symbolu hráčem je neovlivní. 3 a více symbolů Velké kočky přinese 5-20 volných otočení s násobitelem x2-x5 a "
    "extra wild symbolem (jeden z 10 běžných symbolů, nahrazuje vše kromě Scatteru, Velké kočky a Wild, vyplácí "
    "jako on sám). Wild ve prostřední řadě se roztáhne přes celý válec (kromě Scatteru a Velké kočky) a zůstane "
    "do konce těchto volných otočení. 3 a více Velkých koček během volných otočení přinese dalších 5-20 otočení, "
    "odehraných potom s novým extra wild a vyšším násobitelem (nejvýše x5). Nejvýše 100 volných otočení za hru; "
    "symboly Bonus Kobushi se ve volných otočeních neobjevují. Jedna hra vyplatí nejvýše 5 000násobek celkové "
    "sázky; po jeho dosažení hra končí. Progresivní jackpoty vyplácí systém jackpotů, a to jen při maximálním "
    "počtu mincí a linií."
)

KOBUSHI_GAME = register(Kobushi(DEFINITION))


# --- vectorised simulator -----------------------------------------------------------------------------------------
class _FastTables:
    """numpy tables of one Kobushi definition for :func:`_simulate_fast` (built once per game instance)."""

    def __init__(self, game: Kobushi):
        import numpy as np

        a = len(game.ALPHABET)
        self.a5 = a ** game.reels
        self.weights = [a ** (game.reels - 1 - j) for j in range(game.reels)]
        self.lut_base = game.luts[None].ravel().astype(np.int32)
        xs = list(game.fs_evals)
        self.x_codes = np.array([game.code_of(x) for x in xs])
        # one flat table: block i (offset i * a**5) = free spins with extra wild xs[i]
        self.lut_fs = np.concatenate([game.luts[x].ravel() for x in xs]).astype(np.int32)
        self.n_x = len(xs)

        def reel_tables(strips):
            out = []
            for j, strip in enumerate(strips):
                n = len(strip)
                cols = [S.column(strip, stop, game.rows) for stop in range(n)]
                code = np.array([[game.code_of(c[r]) for c in cols] for r in range(game.rows)], dtype=np.int32)
                exp = np.array([[game.code_of(game.expand_column(c)[r]) for c in cols] for r in range(game.rows)],
                               dtype=np.int32)
                out.append({
                    "len": n,
                    "code": code * self.weights[j],  # (rows, stops), weighted for the flat LUT index
                    "exp": exp * self.weights[j],
                    "midw": np.array([c[1] == WILD for c in cols]),
                    "sc": np.array([c.count(SCATTER) for c in cols], dtype=np.int8),
                    "kb": np.array([c.count(KOBUSHI) for c in cols], dtype=np.int8),
                    "bc": np.array([c.count(BIG_CAT) for c in cols], dtype=np.int8),
                })
            return out

        self.base = reel_tables(game.base_strips)
        self.fs = reel_tables(game.fs_strips)
        self.sc_pay = np.zeros(game.reels * game.rows + 1, dtype=np.int64)
        for k, v in game.d["scatter_pays"].items():
            self.sc_pay[k] = v
        pt = game.d["bonus"]["prize_table"]
        self.prize_values = np.array([v for v, _ in pt], dtype=np.int64)
        self.prize_cum = np.cumsum([w for _, w in pt])
        tt = game.d["bonus"]["terminators"]
        self.term_names = [t for t, _ in tt]
        self.term_cum = np.cumsum([w for _, w in tt])
        mt = game.d["free_spins"]["multiplier_table"]
        self.mult_values = np.array([v for v, _ in mt], dtype=np.int64)
        self.mult_cum = np.cumsum([w for _, w in mt])
        self.mult_top = int(self.mult_values.max())


def _weighted(gen, cum, values, size):
    import numpy as np

    return values[np.searchsorted(cum, gen.integers(0, int(cum[-1]), size=size), side="right")]


def _line_units(tables, reels_codes, lines, lut, offset=None):
    """Sum of line multipliers for each column of ``reels_codes`` (list per reel of (rows, n) weighted codes)."""
    import numpy as np

    n = reels_codes[0].shape[1]
    total = np.zeros(n, dtype=np.int64)
    for rows in lines:
        idx = reels_codes[0][rows[0]] + reels_codes[1][rows[1]]
        for j in range(2, len(rows)):
            idx = idx + reels_codes[j][rows[j]]
        if offset is not None:
            idx = idx + offset
        total += lut[idx]
    return total


def _free_spin_sessions(game: Kobushi, tables: _FastTables, gen, count: int, lines: list, counts: dict):
    """Play ``count`` Big Cat sessions side by side; returns each session's win in line bets (before the cap)."""
    import numpy as np

    cfg = game.d["free_spins"]
    lo, hi = cfg["spins"]
    max_spins = cfg["max_spins"]
    n_lines = len(lines)
    left = gen.integers(lo, hi + 1, size=count)
    mult = _weighted(gen, tables.mult_cum, tables.mult_values, count)
    xi = gen.integers(0, tables.n_x, size=count)
    awarded = left.copy()
    last = mult.copy()
    sticky = np.zeros((count, game.reels), dtype=bool)
    total = np.zeros(count, dtype=np.int64)
    queue: dict[int, list] = {}
    top = tables.mult_top
    while True:
        act = np.nonzero(left > 0)[0]
        if act.size == 0:
            break
        k = act.size
        counts["free_spins_played"] = counts.get("free_spins_played", 0) + k
        codes = []
        sc = np.zeros(k, dtype=np.int64)
        bc = np.zeros(k, dtype=np.int64)
        for j, rt in enumerate(tables.fs):
            stops = gen.integers(0, rt["len"], size=k)
            expand = sticky[act, j] | rt["midw"][stops]
            sticky[act, j] = expand
            codes.append(np.where(expand[None, :], rt["exp"][:, stops], rt["code"][:, stops]))
            sc += rt["sc"][stops]
            bc += rt["bc"][stops]
        units = _line_units(tables, codes, lines, tables.lut_fs, offset=xi[act] * tables.a5)
        units += tables.sc_pay[sc] * n_lines
        total[act] += units * mult[act]
        left[act] -= 1
        for s in act[bc >= 3].tolist():  # retriggers (rare): a new set after the current one
            counts["feature:big_cat_retrigger"] = counts.get("feature:big_cat_retrigger", 0) + 1
            room = max_spins - int(awarded[s])
            if room <= 0:
                continue
            n = min(int(gen.integers(lo, hi + 1)), room)
            lm = int(last[s])
            m = lm + 1 + int(gen.integers(0, top - lm)) if lm < top else top
            queue.setdefault(s, []).append((n, m, int(gen.integers(0, tables.n_x))))
            awarded[s] += n
            last[s] = m
        for s in act[left[act] == 0].tolist():
            q = queue.get(s)
            if q:
                n, m, x = q.pop(0)
                left[s], mult[s], xi[s] = n, m, x
                sticky[s] = False
    return total


def _simulate_fast(game: Kobushi, bet: Bet, rounds: int, seed: int, progress=None) -> dict:
    """Vectorised simulation (numpy PCG64 seeded with ``seed``): base spins in batches through the flat line
    lookup table, the bonus from its prize table, free spins as side-by-side sessions (same rules as the engine).
    Amounts are summed in line bets (integers) and converted to minor units at the end."""
    import numpy as np

    if rounds <= 0:
        raise EngineError("game.simulation_rounds", "rounds must be positive")
    tables = game.__dict__.get("_fast_tables")
    if tables is None:
        tables = game.__dict__["_fast_tables"] = _FastTables(game)
    gen = np.random.Generator(np.random.PCG64(seed))
    p = bet.params
    n_lines = p["lines"]
    lines = game.lines[:n_lines]
    lb = p["coins"] * p["coin_value"]
    cap_units = game.d["max_win_multiplier"] * n_lines
    max_bet = game.is_max_bet(p)
    counts: dict[str, int] = {}
    tot = {"base": 0, "bonus": 0, "free_spins": 0}
    sq = {"base": 0, "bonus": 0, "free_spins": 0}
    total_win = sum_sq = hits = max_units = 0
    done, batch = 0, 250_000
    while done < rounds:
        n = min(batch, rounds - done)
        codes, sc, kb, bc = [], np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        for rt in tables.base:
            stops = gen.integers(0, rt["len"], size=n)
            codes.append(rt["code"][:, stops])
            sc += rt["sc"][stops]
            kb += rt["kb"][stops]
            bc += rt["bc"][stops]
        base = _line_units(tables, codes, lines, tables.lut_base) + tables.sc_pay[sc] * n_lines
        bonus = np.zeros(n, dtype=np.int64)
        b_idx = np.nonzero(kb >= 3)[0]
        if b_idx.size:
            counts["feature:kobushi_bonus"] = counts.get("feature:kobushi_bonus", 0) + int(b_idx.size)
            bonus[b_idx] = _weighted(gen, tables.prize_cum, tables.prize_values, b_idx.size) * n_lines
            if max_bet:
                ends = np.searchsorted(tables.term_cum, gen.integers(0, int(tables.term_cum[-1]), size=b_idx.size),
                                       side="right")
                for i, name in enumerate(tables.term_names):
                    if name != "cat":
                        c = int(np.sum(ends == i))
                        if c:
                            level = name.split("_", 1)[1]
                            counts["jackpot_events"] = counts.get("jackpot_events", 0) + c
                            counts[f"jackpot:{level}"] = counts.get(f"jackpot:{level}", 0) + c
        fs = np.zeros(n, dtype=np.int64)
        f_idx = np.nonzero(bc >= 3)[0]
        if f_idx.size:
            counts["feature:big_cat_free_spins"] = counts.get("feature:big_cat_free_spins", 0) + int(f_idx.size)
            fs[f_idx] = _free_spin_sessions(game, tables, gen, int(f_idx.size), lines, counts)
        win = base + bonus + fs
        over = win > cap_units
        if over.any():
            counts["capped"] = counts.get("capped", 0) + int(over.sum())
            fs = np.where(over, fs - (win - cap_units), fs)
            win = np.minimum(win, cap_units)
        for key, arr in (("base", base), ("bonus", bonus), ("free_spins", fs)):
            tot[key] += int(arr.sum())
            sq[key] += int(np.dot(arr, arr))
        total_win += int(win.sum())
        sum_sq += int(np.dot(win, win))
        hits += int(np.count_nonzero(win))
        max_units = max(max_units, int(win.max()))
        done += n
        if progress:
            progress(done, rounds)
    stake = bet.total_stake
    return {
        "rounds": rounds, "total_stake": rounds * stake, "total_win": total_win * lb,
        "rtp": total_win * lb / (rounds * stake),
        "breakdown": {"base": tot["base"] * lb, "free_spins": tot["free_spins"] * lb, "bonus": tot["bonus"] * lb,
                      "gamble": 0, "jackpot": 0},
        "breakdown_sum_sq": {k: v * lb * lb for k, v in sq.items()},
        "remainder_sum_sq": sq["free_spins"] * lb * lb, "remainder_parts": ["base", "bonus"],
        "hit_count": hits, "hit_frequency": hits / rounds, "sum_sq": sum_sq * lb * lb, "max_win": max_units * lb,
        "feature_counts": dict(sorted(counts.items())),
    }
