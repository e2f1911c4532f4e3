"""The Kobushi game class: bets, evaluation, the round (base spin, pick bonus, free spins) and the catalogue entry.

The exact RTP parts and the free-spin analysis are in ``analysis.py``, the vectorised simulator in ``fast_sim.py``.
"""

from __future__ import annotations

import functools
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np
import numpy.typing as npt

from ... import definition as definition_
from ... import slots
from ...base import RNG, Bet, Declared, JsonDict, Progress
from . import analysis, fast_sim
from .definition import BIG_CAT, KOBUSHI, NORMAL, PICK_ITEMS, SCATTER, SPECIAL, WILD
from .texts import RULES_CS, RULES_CS_WITHOUT_JACKPOTS, RULES_EN, RULES_EN_WITHOUT_JACKPOTS, SYMBOL_NAMES

# a bet parameter the platform sets (``with_jackpots_offered``): false while the progressive jackpots are not offered
PROGRESSIVE = "progressive"


class Kobushi(slots.SlotGame):
    bet_model: definition_.LinesCoins

    """The Kobushi game for one definition (a dict like :data:`definition.DEFINITION`).

    ``start`` plays the base spin and draws every feature's parameters; the round then waits for picks
    (``{"type": "pick", "index": i}``, i = 0..14, the 15 "Pick Me!" positions) and for each free spin
    (``{"type": "spin"}``). Free spins and the bonus are part of the round (GP §7(3)).
    """

    # line symbols of the lookup tables; Scatter/Kobushi/Big Cat never pay on a line
    ALPHABET: list[str] = [WILD, *NORMAL, "BLANK"]

    def __init__(self, definition: dict[str, Any]) -> None:
        d = self.d = definition
        self.code, self.version, self.name, self.name_cs = d["code"], d["version"], d["name"], d["name_cs"]
        self.rows: int = d["rows"]
        self.reels: int = d["reels"]
        self.lines: list[list[int]] = d["lines"]
        self.base_strips: list[list[str]] = d["base_strips"]
        self.fs_strips: list[list[str]] = d["free_spin_strips"]
        excl = frozenset(SPECIAL)
        self.base_eval = slots.LineEvaluator(d["paytable"], {WILD: excl})
        self.fs_evals = {
            x: slots.LineEvaluator(d["paytable"], {WILD: excl, x: excl | {WILD}})
            for x in d["free_spins"]["extra_wild_symbols"]
        }
        bet = definition_.bet_model_from_dict(d["bet"])
        assert isinstance(bet, definition_.LinesCoins), "Kobushi's bet is lines x coins x coin value"
        self.bet_model = bet
        self.declared = Declared(
            rtp=Decimal(d["rtp"]),
            min_bet=bet.min_bet,
            max_bet=bet.max_bet,
            max_win=d["max_win_multiplier"] * bet.max_bet,
            unfinished_deadline_days=d["unfinished_deadline_days"],
            rtp_with_jackpots=Decimal(d["rtp_with_jackpots"]),
        )
        self.default_bet_params: JsonDict = bet.default
        # PAR sheets use max coins and max lines (the jackpot-eligible bet; the game's own RTP is the same).
        self.par_bet_params: JsonDict = {"lines": bet.max_lines, "coins": bet.max_coins, "coin_value": 10}

    # --- bets -------------------------------------------------------------------------------------------------
    def validate_bet(self, params: JsonDict) -> Bet:
        """Total = coin value x coins x lines, 0.10-750 CZK on the 0.10 CZK grid (GP §8(1)-(2)), by the bet model;
        ``progressive`` (the platform's, see :meth:`with_jackpots_offered`) is kept only when false."""
        progressive = params.get(PROGRESSIVE, True) if isinstance(params, dict) else True
        if not isinstance(progressive, bool):
            raise slots.bet_error(
                "game.invalid_bet",
                "progressive must be true or false.",
                "Pole progressive musí být true nebo false.",
                progressive=progressive,
            )
        bet = self.bet_model.validate(params, extra=(PROGRESSIVE,))
        if progressive:
            return bet
        return Bet(total_stake=bet.total_stake, params={**bet.params, PROGRESSIVE: False})

    def with_jackpots_offered(self, bet: Bet, offered: bool) -> Bet:
        """Rules §9 as the platform offers them now: when the Sushi and Kobushi pools are not running (jackpots off,
        the pools drafts or suspended), ``progressive: false`` in the bet's parameters and the pick bonus ends on
        the Cat only (no jackpot symbol that would pay nothing; the bonus prize is the same). Whatever the player
        sent, the platform decides it."""
        params = {k: v for k, v in bet.params.items() if k != PROGRESSIVE}
        if not offered:
            params[PROGRESSIVE] = False
        return Bet(total_stake=bet.total_stake, params=params)

    def progressive(self) -> JsonDict:
        """Rules §9 for the platform's jackpots app: 0.25 % of every stake to each pool, seeds per coin, the pool
        kept at the largest coin value, won only at the maximum coins and lines."""
        prog = self.d["progressive"]
        return {
            "contribution_ppm": dict(prog["contribution_ppm"]),
            "seed_per_coin": dict(prog["seed_per_coin"]),
            "reference_coin": max(self.bet_model.coin_values),
            "eligible": {"coins": self.bet_model.max_coins, "lines": self.bet_model.max_lines},
            "names": {lv: f"{name} Jackpot" for lv, name in prog["names"].items()},
        }

    def is_max_bet(self, params: JsonDict) -> bool:
        """Rules §9: jackpots only with the maximum coins and the maximum lines (any coin value)."""
        return bool(params["lines"] == self.bet_model.max_lines and params["coins"] == self.bet_model.max_coins)

    # --- evaluation -------------------------------------------------------------------------------------------
    @staticmethod
    def expand_column(col: list[str]) -> list[str]:
        """An expanded wild covers its reel except Scatter / Big Cat (/ Kobushi) symbols (rules §8 note)."""
        return [s if s in SPECIAL else WILD for s in col]

    def free_spin_window(self, raw: list[list[str]], sticky: list[int]) -> tuple[list[list[str]], list[int]]:
        """Apply sticky reels and new middle-row wilds; returns (window, newly expanded reels)."""
        window: list[list[str]] = []
        expanded: list[int] = []
        for j, col in enumerate(raw):
            if j in sticky or col[1] == WILD:
                window.append(self.expand_column(col))
                if j not in sticky:
                    expanded.append(j)
            else:
                window.append(list(col))
        return window, expanded

    def evaluate(
        self,
        window: list[list[str]],
        evaluator: slots.LineEvaluator,
        lines: int,
        line_bet: int,
        stake: int,
        multiplier: int = 1,
    ) -> JsonDict:
        wins = slots.line_wins(window, self.lines, evaluator, active=lines)
        line_wins = [[w[0], w[1], w[2], w[3] * line_bet * multiplier] for w in wins]
        n_sc = slots.count_symbols(window, SCATTER)
        sc_win = self.d["scatter_pays"].get(n_sc, 0) * stake * multiplier
        line_total = sum(w[3] for w in line_wins)
        return {
            "line_wins": line_wins,
            "line_win": line_total,
            "scatter": {"count": n_sc, "win": sc_win},
            "win": line_total + sc_win,
        }

    # --- round ------------------------------------------------------------------------------------------------
    def _pay(self, state: JsonDict, part: str, amount: int) -> int:
        """Add a win within the round's cap (max_win_multiplier x stake); reaching the cap ends the round."""
        room = state["cap"] - state["win"]
        paid: int = min(amount, room)
        slots.add_win(state, part, paid)
        if state["win"] >= state["cap"]:
            state["capped"] = True
        return paid

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        p = bet.params
        state = slots.new_state(self, bet)
        state["line_bet"] = p["coins"] * p["coin_value"]
        state["cap"] = self.d["max_win_multiplier"] * bet.total_stake
        state["capped"] = False
        stops = slots.draw_stops(self.base_strips, rng)
        window = slots.window_at(self.base_strips, stops, self.rows)
        ev = self.evaluate(window, self.base_eval, p["lines"], state["line_bet"], bet.total_stake)
        n_kb, n_bc = slots.count_symbols(window, KOBUSHI), slots.count_symbols(window, BIG_CAT)
        features = (["kobushi_bonus"] if n_kb >= 3 else []) + (["big_cat_free_spins"] if n_bc >= 3 else [])
        paid = self._pay(state, "base", ev["win"])
        state["steps"].append(
            {"type": "spin", "mode": "base", "stops": stops, "window": window, **ev, "win": paid, "features": features}
        )
        if n_kb >= 3:
            self._start_bonus(state, rng, bet, n_kb)
        if n_bc >= 3:
            self._award_free_spins(state, rng, n_bc, retrigger=False)
        return self._next(state)

    def _next(self, state: JsonDict) -> JsonDict:
        if state.get("capped"):
            if state.get("bonus"):
                state["bonus"]["active"] = False
            return slots.finish(state)
        b = state.get("bonus")
        if b and b["active"]:
            picked = b["picked"]
            return slots.await_action(
                state,
                "pick",
                [{"type": "pick", "index": i} for i in range(PICK_ITEMS) if i not in picked],
                items=PICK_ITEMS,
                picked=list(picked),
                bonus_win=state["breakdown"]["bonus"],
            )
        fs = state.get("free_spins")
        if fs and fs["current"] < len(fs["sets"]):
            cur = fs["sets"][fs["current"]]
            left = fs["awarded"] - fs["played"]
            return slots.await_action(
                state,
                "free_spin",
                [{"type": "spin"}],
                spins_left=left,
                set=fs["current"] + 1,
                set_spins_left=cur["spins"] - cur["played"],
                multiplier=cur["multiplier"],
                extra_wild=cur["extra_wild"],
                sticky_reels=list(cur["sticky"]),
                free_spins_win=state["breakdown"]["free_spins"],
            )
        return slots.finish(state)

    # Kobushi pick bonus ------------------------------------------------------------------------------------------
    def _start_bonus(self, state: JsonDict, rng: RNG, bet: Bet, n_kb: int) -> None:
        """Draw the whole prize sequence now (GP §7(3)): prize m, number of parts, the parts, the closing item."""
        cfg = self.d["bonus"]
        m = slots.draw_weighted(rng, cfg["prize_table"])
        k = 2 + rng.randbelow(min(cfg["max_parts"] - 1, m - 1))  # 2..min(max_parts, m) parts, each >= 1 x stake
        parts = slots.split_prize(rng, m, k)
        # the jackpot symbols only at max coins and lines (rules §9) and while the platform offers the jackpots
        jackpots = self.is_max_bet(bet.params) and bet.params.get(PROGRESSIVE, True)
        end = slots.draw_weighted(rng, cfg["terminators"]) if jackpots else "cat"
        state["bonus"] = {
            "active": True,
            "prize_multiplier": m,
            "sequence": [x * bet.total_stake for x in parts] + [end],
            "picked": [],
        }
        state["steps"].append({"type": "trigger", "feature": "kobushi_bonus", "symbols": n_kb, "items": PICK_ITEMS})

    def _act_pick(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        b = state["bonus"]
        item = b["sequence"][len(b["picked"])]
        b["picked"].append(action["index"])
        step: JsonDict = {"type": "pick", "index": action["index"], "pick": len(b["picked"])}
        if isinstance(item, int):
            step.update(reveal="prize", win=self._pay(state, "bonus", item))
        else:
            step.update(reveal=item, win=0)
            b["active"] = False
            if item != "cat":
                level = item.split("_", 1)[1]
                p = state["bet"]
                state["jackpot_events"].append(
                    {
                        "type": "kobushi_progressive",
                        "level": level,
                        "tier": level,
                        "trigger": "kobushi_bonus_pick",
                        "pick": len(b["picked"]),
                        "index": action["index"],
                        "coin_value": p["coin_value"],
                        "coins": p["coins"],
                        "lines": p["lines"],
                        "stake": state["stake"],
                        "seed_per_coin": self.d["bonus"]["jackpot_seed_per_coin"][level],
                    }
                )
        step["bonus_win"] = state["breakdown"]["bonus"]
        state["steps"].append(step)
        return self._next(state)

    # Big Cat free spins ------------------------------------------------------------------------------------------
    def _award_free_spins(self, state: JsonDict, rng: RNG, n_bc: int, retrigger: bool) -> None:
        cfg = self.d["free_spins"]
        fs = state.setdefault(
            "free_spins",
            {"awarded": 0, "played": 0, "max": cfg["max_spins"], "current": 0, "last_multiplier": 0, "sets": []},
        )
        room = fs["max"] - fs["awarded"]
        step: JsonDict = {
            "type": "trigger",
            "feature": "big_cat_retrigger" if retrigger else "big_cat_free_spins",
            "symbols": n_bc,
        }
        if room <= 0:
            step.update(spins=0, reason="max_free_spins_reached")
            state["steps"].append(step)
            return
        lo, hi = cfg["spins"]
        n = min(slots.draw_range(rng, lo, hi), room)
        if not retrigger:
            mult = slots.draw_weighted(rng, cfg["multiplier_table"])
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

    def _act_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        fs = state["free_spins"]
        cur = fs["sets"][fs["current"]]
        stops = slots.draw_stops(self.fs_strips, rng)
        raw = slots.window_at(self.fs_strips, stops, self.rows)
        sticky_before = list(cur["sticky"])
        window, expanded = self.free_spin_window(raw, sticky_before)
        cur["sticky"] = sorted(sticky_before + expanded)
        p = state["bet"]
        ev = self.evaluate(
            window, self.fs_evals[cur["extra_wild"]], p["lines"], state["line_bet"], state["stake"], cur["multiplier"]
        )
        n_bc = slots.count_symbols(window, BIG_CAT)
        cur["played"] += 1
        fs["played"] += 1
        paid = self._pay(state, "free_spins", ev["win"])
        step = {
            "type": "spin",
            "mode": "free",
            "set": fs["current"] + 1,
            "spin": cur["played"],
            "of": cur["spins"],
            "multiplier": cur["multiplier"],
            "extra_wild": cur["extra_wild"],
            "stops": stops,
            "raw_window": raw,
            "window": window,
            "sticky_reels": sticky_before,
            "expanded_reels": expanded,
            **ev,
            "win": paid,
            "features": ["big_cat_retrigger"] if n_bc >= 3 else [],
        }
        if paid < ev["win"]:
            step["capped"] = True
        state["steps"].append(step)
        if n_bc >= 3 and not state["capped"]:
            self._award_free_spins(state, rng, n_bc, retrigger=True)
        if cur["played"] >= cur["spins"]:
            fs["current"] += 1
        return self._next(state)

    # --- catalogue ----------------------------------------------------------------------------------------------
    def catalogue_entry(self) -> definition_.CatalogueEntry:
        d = self.d
        return definition_.CatalogueEntry(
            code=self.code,
            version=self.version,
            name=self.name,
            name_cs=self.name_cs,
            kind=self.kind,
            source=d["source"],
            bet=self.bet_model,
            default_bet=self.default_bet_params,
            par_bet=self.par_bet_params,
            max_win_multiplier=d["max_win_multiplier"],
            declared=self.declared,
            rules_en=RULES_EN,
            rules_cs=RULES_CS,
            extra={
                "reels": self.reels,
                "rows": self.rows,
                "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
                "paytable": {
                    "unit": "line_bet",
                    "pays": {s: {str(k): v for k, v in p.items()} for s, p in d["paytable"].items()},
                },
                "scatter_pays": {"unit": "total_bet", "pays": {str(k): v for k, v in d["scatter_pays"].items()}},
                "lines": d["lines"],
                "features": {
                    "kobushi_bonus": {
                        "trigger": "3+ KOBUSHI anywhere",
                        "prize_multiplier": [2, 500],
                        "items": PICK_ITEMS,
                        "min_winning_picks": 2,
                    },
                    "free_spins": {
                        "trigger": "3+ BIG_CAT anywhere",
                        "spins": d["free_spins"]["spins"],
                        "multipliers": [v for v, _ in d["free_spins"]["multiplier_table"]],
                        "max_spins": d["free_spins"]["max_spins"],
                    },
                    "jackpots": {
                        "levels": ["sushi", "kobushi"],
                        "eligible": "max coins and max lines",
                        "seed_per_coin": d["bonus"]["jackpot_seed_per_coin"],
                    },
                },
                # what the rules say while the platform does not offer the progressive jackpots (the catalogue
                # shows it)
                "rules_without_jackpots": {"en": RULES_EN_WITHOUT_JACKPOTS, "cs": RULES_CS_WITHOUT_JACKPOTS},
            },
        )

    # --- exact RTP, analysis and the fast simulator (analysis.py, fast_sim.py) ------------------------------------
    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        return analysis.exact_parts(self)

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Base-game line pays (every line has the same symbol distribution, so the per-line expectation in line
        bets is the RTP for any number of lines and coins), scatter pays and the Kobushi bonus (P(3+ KOBUSHI) x
        mean prize multiplier; the round cap can never cut base + bonus: 1,000 + 25 + 500 < 5,000)."""
        return dict(self._exact)

    def jackpot_return(self, bet: Bet) -> dict[str, Fraction] | None:
        """Rules §9 with the platform's decided jackpot model (``DEFINITION["progressive"]``): at max coins and max
        lines (any coin value) the exact seed return of each level plus the 0.25 % contribution to each pool; None
        at any other bet (it can never win a jackpot, so its RTP with jackpots is the game's RTP)."""
        if not self.is_max_bet(bet.params):
            return None
        return analysis.jackpot_return(self, bet.params["coin_value"], bet.total_stake)

    def trigger_probabilities(self) -> dict[str, Fraction]:
        """Exact P(3+ KOBUSHI), P(3+ BIG_CAT) in the base game and P(3+ BIG_CAT) in a free spin (retrigger)."""
        return analysis.trigger_probabilities(self)

    def free_spins_analysis(self, lines: int | None = None) -> JsonDict:
        """Expected free-spin win per trigger, in stakes, without the round cap (see analysis.free_spins_analysis)."""
        return analysis.free_spins_analysis(self, lines)

    def code_of(self, symbol: str) -> int:
        """The symbol's index in :attr:`ALPHABET` (any symbol that never pays on a line is BLANK)."""
        return self.ALPHABET.index(symbol) if symbol in self.ALPHABET else len(self.ALPHABET) - 1

    @functools.cached_property
    def luts(self) -> dict[str | None, npt.NDArray[np.int32]]:
        """Line multiplier lookup tables (numpy, 12**5): key None = base game, key X = free spins with extra wild X."""
        out: dict[str | None, npt.NDArray[np.int32]] = {
            None: slots.build_line_lut_np(self.base_eval, self.ALPHABET, self.reels)
        }
        for x, ev in self.fs_evals.items():
            out[x] = slots.build_line_lut_np(ev, self.ALPHABET, self.reels)
        return out

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        return fast_sim.simulate_fast(self, bet, rounds, seed, progress)
