"""The Ismael Beiro game class: bets, the round (lower game with holds, nudges, the Confessional and the ladders;
the upper game with its vertical lines, minigames, cumulative and Double-or-Bonuses), auto-play, auto-risk and the
declared figures of each option. The offers shown to the player, the restoration hints and the automatic choices
are in ``offers``, the catalogue entry in ``catalogue``.

One platform round is one start of the machine at one bet: the lower game's spin and everything it leads to. The
bonuses it wins are played in the upper game inside the same round (no second stake is ever taken), and the
round ends when no bonus is left to play (or the round reaches its maximum prize). See
``docs/games/ismael_beiro.md``.

Draw order (fixed; a choice never changes a value drawn):

* the start draws **two lower spins of 7 numbers each**: the spin and the respin a hold may give. Each is three
  stops ``randbelow(16)``, then ``randbelow(1000)`` for the hold offer, ``randbelow(1000)`` for the nudge offer,
  one weighted draw for the number of nudges and ``randbelow(1000)`` for a hold after nudges. Whatever the player
  holds or nudges, these values are the same; a held reel ignores its stop of the respin;
* a Confessional (lower) draws its block when it opens (``features.draw_confessional``);
* each ladder or Double-or-Bonuses PLAY draws when it is pressed (and a conversion into bonuses one more draw when
  the amount is not a whole number of bonuses);
* each upper game draws, when it is launched: three stops, the CAMERA's 1-5, the CLAPPER's 1-3, the selector's
  ``randbelow(1000)``; then the Mixed prizes of its mixed-sevens lines, the selector's block
  (``features.draw_minigame_block``) and, when the cumulative completes, the WINNING SPIN (its stops' index, its
  selector draw, its Mixed prizes and block). The minigame chosen and the items picked draw nothing.
"""
from __future__ import annotations

import functools
import json
from decimal import Decimal
from fractions import Fraction
from typing import Any

from ... import definition as definition_
from ... import slots
from ...base import RNG, ActionError, Bet, Declared, JsonDict, Progress
from . import analysis, catalogue, fast_sim, features, offers
from .lower import Lower
from .upper import Upper

LOWER_SPIN_DRAWS = 7
UPPER_STAGES = ("upper_game", "minigame_select", "minigame", "dob")


class IsmaelBeiro(slots.SlotGame):
    """The Ismael Beiro machine for one definition (a dict like :data:`definition.DEFINITION`)."""

    def __init__(self, definition: dict[str, Any]) -> None:
        d = self.d = definition
        self.code, self.version, self.name, self.name_cs = d["code"], d["version"], d["name"], d["name_cs"]
        self.bets: list[dict[str, Any]] = d["bets"]
        self.stakes = [b["stake"] for b in self.bets]
        # the lower game's bets (the sixth upper bet of version 2 is an upper bet only)
        self.lower_stakes = [b["stake"] for b in self.bets if not b.get("upper_only")]
        self.top_lower_level = max(j for j, b in enumerate(self.bets) if not b.get("upper_only"))
        self.carry_over = bool(d.get("carry_over"))
        # version 3: the machine makes the choices that change the return; the gambles are fair (see definition)
        self.machine_choices = bool(d.get("machine_choices"))
        self.fair_gambles = bool(d.get("fair_gambles"))
        self.minigame_within_bet_max = bool(d.get("minigame_within_bet_max"))
        self.carry_within_cap = bool(d.get("carry_within_cap"))
        conf = d["confessional"]["prizes"]
        tw = sum(w for _, w in conf)
        self.confessional_value = sum((v if k == "cash" else 4 * v) * w for (k, v), w in conf) / tw
        self.lower = Lower(d["lower"], self.confessional_value)
        self.upper = Upper(d["upper"])
        self.max_prize: int = d["max_prize"]
        self.bonus_value: int = d["bonus_value"]
        enabled = [b["stake"] for b in self.bets if b["enabled"] and not b.get("upper_only")]
        if not enabled:
            raise ValueError("at least one bet must be enabled")
        self.declared = Declared(rtp=Decimal(d["rtp"]), min_bet=min(enabled), max_bet=max(enabled),
                                 max_win=self.max_prize * max(enabled),
                                 unfinished_deadline_days=d["unfinished_deadline_days"])
        default = d["default_stake"] if d["default_stake"] in enabled else min(enabled)
        lower_bets = [b for b in self.bets if not b.get("upper_only")]
        self.bet_model = definition_.StakeChoice(
            code="ismael_beiro", stakes=tuple(b["stake"] for b in lower_bets),
            enabled=tuple(bool(b["enabled"]) for b in lower_bets), default_stake=default,
            flags=("auto_play", "auto_risk"))
        self.default_bet_params: JsonDict = self.bet_model.default
        self.par_bet_params: JsonDict = dict(self.default_bet_params)
        # the declared RTP of the player's other options (version 2: AUTO-RISK), each with the bet its PAR sheet uses
        self.declared_options: list[JsonDict] = [dict(o) for o in d.get("declared_options", [])]
        self._check_definition()

    def _check_definition(self) -> None:
        d = self.d
        scale = d["ladder"]["scale"]
        assert all(len(s) == 16 for s in d["lower"]["strips"] + d["upper"]["strips"]), "16 symbols a reel"
        assert all(p in scale for p in d["lower"]["pays"].values()), "every lower prize is on the payout scale"
        assert all(v in scale for (k, v), _ in d["confessional"]["prizes"] if k == "cash")
        assert scale == sorted(set(scale)) and scale[-1] == self.max_prize
        assert len(d["ladder"]["raise_nothing_up_per_mille"]) == len(d["ladder"]["up_per_mille"]) == len(scale) - 1
        mg = d["minigames"]
        assert min(v for v, _ in mg["prizes"]) >= mg["island_parts"] >= 3 * max(b["island_columns"] for b in self.bets)
        if not self.fair_gambles:
            assert min(v for v, _ in mg["prizes"]) > d["upper"]["fraction"], "a minigame pays more than a fraction"
        assert max(v for v, _ in mg["prizes"]) <= self.max_prize
        assert {v for v, _ in mg["prizes"]} <= {v for _, v in mg["monologue_wheel"]}
        for b in self.bets:
            assert b["bonus_price"] * self.bonus_value == 4 * b["stake"], "an upper game costs 4 stakes of bonuses"
        assert self.stakes == sorted(self.stakes), "bets ascending"
        assert all(b.get("upper_only") for b in self.bets[self.top_lower_level + 1:]), "upper-only bets come last"

    # --- bets -------------------------------------------------------------------------------------------------
    def validate_bet(self, params: JsonDict) -> Bet:
        """``{"stake": one of the bets, "auto_play": bool, "auto_risk": bool}`` (the bet model); a bet the operator
        switched off is refused (``game.ismael_beiro.bet_disabled``)."""
        return self.bet_model.validate(params)

    # --- helpers --------------------------------------------------------------------------------------------------
    def _pay(self, state: JsonDict, part: str, amount: int) -> int:
        """Add to the round's win within its cap (the maximum prize of its bet); reaching the cap ends the round."""
        paid: int = min(amount, state["cap"] - state["win"])
        slots.add_win(state, part, paid)
        if state["win"] >= state["cap"]:
            state["capped"] = True
        return paid

    def _lower_draws(self, rng: RNG) -> JsonDict:
        cfg = self.d["lower"]
        stops = [rng.randbelow(self.lower.n) for _ in range(3)]
        return {"stops": stops, "hold": rng.randbelow(1000), "nudge": rng.randbelow(1000),
                "nudges": slots.draw_weighted(rng, cfg["nudge_counts"]), "hold_after_nudge": rng.randbelow(1000)}

    def upper_levels(self, level: int) -> list[int]:
        """The upper bets a round at lower bet ``level`` may play, switched on: its own bet and the lower ones, and
        at the top lower bet the upper-only bets above it (version 2's sixth upper bet)."""
        top = len(self.bets) - 1 if level == self.top_lower_level else level
        return [j for j in range(top + 1) if self.bets[j]["enabled"]]

    def bet_max_x(self, level: int) -> int:
        """A bet's maximum prize in its stakes: 1,000 x, the sixth upper bet's ``max_prize`` (500 x 100 CZK, the
        same 50,000 CZK as the 50 CZK bet's, seed 3: "10 EUR + 100: up to 10,000 EUR")."""
        return int(self.bets[level].get("max_prize", self.max_prize))

    def fraction_x(self, level: int) -> int:
        """Double-or-Bonuses' fraction of an upper bet, x its stake (version 3: each bet's own, seed 3.10)."""
        return int(self.bets[level].get("fraction", self.d["upper"]["fraction"]))

    def affordable_levels(self, state: JsonDict) -> list[int]:
        """The upper bets the round can play now (:meth:`upper_levels`) whose bonus price the round's bonuses
        cover."""
        return [j for j in self.upper_levels(state["level"]) if self.bets[j]["bonus_price"] <= state["bonuses"]]

    # --- the round --------------------------------------------------------------------------------------------
    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        return self.start_carried(bet, rng, None)

    def fresh_carry(self) -> JsonDict:
        """The machine's counters of a new player (or a new version): nothing carried."""
        return {"vertical_lines": 0, "cumulative": [0] * len(self.bets), "bonuses": 0}

    def _valid_carry(self, carry: JsonDict | None) -> JsonDict:
        """The carried state as the platform stored it, checked (a malformed one is a malfunction, not a guess)."""
        if carry is None:
            return self.fresh_carry()
        ok = (isinstance(carry, dict) and set(carry) == {"vertical_lines", "cumulative", "bonuses"}
              and isinstance(carry["vertical_lines"], int)
              and 0 <= carry["vertical_lines"] <= self.d["lower"]["max_vertical_lines"]
              and isinstance(carry["bonuses"], int) and carry["bonuses"] >= 0
              and isinstance(carry["cumulative"], list) and len(carry["cumulative"]) == len(self.bets)
              and all(isinstance(c, int) and 0 <= c < self.d["upper"]["cumulative_pieces"]
                      for c in carry["cumulative"]))
        if not ok:
            raise ActionError("game.ismael_beiro.bad_carry", "The carried machine state is malformed.",
                              "Přenesený stav automatu je poškozený.", carry=carry)
        return {"vertical_lines": carry["vertical_lines"], "cumulative": list(carry["cumulative"]),
                "bonuses": carry["bonuses"]}

    def carry_value(self, carry: JsonDict) -> int:
        """The carried bonuses' worth in haléř (one bonus = ``bonus_value``, seed 2.8): the player's money while
        carried; the counters (vertical lines, cumulative) are no money."""
        return int(carry.get("bonuses", 0)) * self.bonus_value

    def start_carried(self, bet: Bet, rng: RNG, carry: JsonDict | None) -> JsonDict:
        """A start of the machine. Version 2 (``carry_over``) begins with the vertical-line counter, the
        cumulatives and the bonuses the player's previous round left (``carry``), recorded as ``carry_in``;
        version 1 starts every round from nothing."""
        p = bet.params
        state = slots.new_state(self, bet)
        level = self.stakes.index(bet.total_stake)
        state.update(level=level, bonus_price=self.bets[level]["bonus_price"], cap=self.max_prize * bet.total_stake,
                     capped=False, bonuses=0, vertical_lines=0, cumulative=[0] * len(self.bets),
                     auto_play=p["auto_play"], auto_risk=p["auto_risk"], phase="lower", stage="lower_end",
                     ladder=None, confessional=None, upper=None)
        if self.carry_over:
            c = self._valid_carry(carry)
            state.update(carry_in=c, vertical_lines=c["vertical_lines"], cumulative=list(c["cumulative"]),
                         bonuses=c["bonuses"])
        spins = [self._lower_draws(rng) for _ in range(2)]
        state["lower"] = {"draws": spins, "spin": 1, "stops": list(spins[0]["stops"]), "nudges_left": 0,
                          "spin_step": 0}
        self._lower_landed(state, rng)
        return self._next(state, rng)

    # Lower game ---------------------------------------------------------------------------------------------------
    def _lower_landed(self, state: JsonDict, rng: RNG) -> None:
        """A lower spin has stopped: record it, then a prize, a hold offer (spin 1), nudges, or the end."""
        lo = state["lower"]
        cfg = self.d["lower"]
        spin = lo["spin"]
        draw = lo["draws"][spin - 1]
        stops = tuple(lo["stops"])
        r = self.lower.result(stops)
        step: JsonDict = {"type": "spin", "game": "lower", "spin": spin, "stops": list(stops),
                          "window": self.lower.window(stops), "line": self.lower.line(stops),
                          "held": list(lo.get("held", [])), "result": self._result_view(r), "win": 0}
        state["steps"].append(step)
        lo["spin_step"] = len(state["steps"]) - 1
        if self.lower.is_prize(r):
            self._lower_final(state, rng, stops)
            return
        if spin == 1 and r["pair"] is not None and draw["hold"] < cfg["hold_per_mille"]:
            self._count_vertical_marks(state, stops)
            self._offer_hold(state, r["pair"])
            return
        if self.lower.near_miss(stops) and draw["nudge"] < cfg["nudge_per_mille"]:
            lo["nudges_left"] = draw["nudges"]
            lo["nudges_used"] = [0, 0, 0]
            step["features"] = ["nudges"]
            state["stage"] = "nudge"
            return
        self._lower_final(state, rng, stops)

    def _offer_hold(self, state: JsonDict, pair: list[int]) -> None:
        state["lower"]["auto_hold"] = list(pair)
        state["steps"][state["lower"]["spin_step"]].setdefault("features", []).append("hold")
        state["stage"] = "hold"

    def _count_vertical_marks(self, state: JsonDict, stops: tuple[int, ...]) -> None:
        n = self.lower.vertical_marks((stops[0], stops[1], stops[2]))
        if n:
            state["vertical_lines"] = min(self.d["lower"]["max_vertical_lines"], state["vertical_lines"] + n)
        state["steps"][state["lower"]["spin_step"]]["vertical_lines_added"] = n

    def _lower_final(self, state: JsonDict, rng: RNG, stops: tuple[int, ...]) -> None:
        """The lower spin's line is final (after any nudges): its marks count and its prize is awarded."""
        self._count_vertical_marks(state, stops)
        r = self.lower.result((stops[0], stops[1], stops[2]))
        step = state["steps"][state["lower"]["spin_step"]]
        step["final_stops"], step["final_line"] = list(stops), self.lower.line((stops[0], stops[1], stops[2]))
        step["final_result"] = self._result_view(r)
        stake = state["stake"]
        if r["kind"] == "cash":
            step["win"] = self._pay(state, "base", r["prize"] * stake)
            self._enter_ladder(state, r["prize"], r["symbol"], "direct")
        elif r["kind"] == "bonus":
            n = r["credits"] * state["bonus_price"]
            state["bonuses"] += n
            step["bonuses"] = n
            state["stage"] = "lower_end"
        elif r["kind"] == "confessional":
            block = features.draw_confessional(rng, self.d["confessional"])
            state["confessional"] = {**block, "spin_step": state["lower"]["spin_step"]}
            step.setdefault("features", []).append("confessional")
            state["stage"] = "confessional"
        else:
            state["stage"] = "lower_end"

    def _result_view(self, r: JsonDict) -> JsonDict:
        out = {"kind": r["kind"]}
        if r["kind"] == "cash":
            out.update(symbol=r["symbol"], prize=r["prize"])
        elif r["kind"] == "bonus":
            out.update(count=r["count"], upper_games=r["credits"])
        elif r["kind"] == "none" and r["pair"] is not None:
            out["pair"] = list(r["pair"])
        return out

    def _enter_ladder(self, state: JsonDict, prize: int, symbol: str | None, origin: str) -> None:
        cfg = self.d["ladder"]
        mode = features.ladder_entry(cfg, prize, symbol, fair=self.fair_gambles)
        if state["capped"] or mode is None:
            state["stage"] = "lower_end"
            return
        state["ladder"] = {"mode": mode, "rung": features.rung_of(cfg["scale"], prize), "entry": prize,
                           "origin": origin, "ended": None}
        state["stage"] = "ladder"

    def _do_respin(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """The free next game with the chosen reels held: the held reels keep their stops, the others take the
        respin's stops drawn at the start."""
        lo = state["lower"]
        held = list(action["hold"])
        new = lo["draws"][1]["stops"]
        lo["stops"] = [lo["stops"][j] if j in held else new[j] for j in range(3)]
        lo["held"] = held
        lo["spin"] = 2
        state["steps"].append({"type": "hold", "feature": "hold", "reels": held, "auto": held == lo.get("auto_hold")})
        self._lower_landed(state, rng)

    def _nudge_end(self, state: JsonDict, rng: RNG) -> None:
        lo = state["lower"]
        stops = tuple(lo["stops"])
        lo["nudges_left"] = 0
        r = self.lower.result(stops)
        draw = lo["draws"][lo["spin"] - 1]
        state["steps"].append({"type": "nudges_end", "feature": "nudges", "used": list(lo["nudges_used"]), "stops": list(stops),
                               "line": self.lower.line(stops), "result": self._result_view(r)})
        if (not self.lower.is_prize(r) and lo["spin"] == 1 and r["pair"] is not None
                and draw["hold_after_nudge"] < self.d["lower"]["hold_after_nudge_per_mille"]):
            self._count_vertical_marks(state, stops)
            self._offer_hold(state, r["pair"])
            return
        self._lower_final(state, rng, stops)

    def _do_nudge(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        lo = state["lower"]
        j = action["reel"]
        lo["stops"][j] = (lo["stops"][j] - 1) % self.lower.n
        lo["nudges_used"][j] += 1
        lo["nudges_left"] -= 1
        stops = tuple(lo["stops"])
        state["steps"].append({"type": "nudge", "reel": j, "stops": list(stops), "line": self.lower.line(stops),
                               "nudges_left": lo["nudges_left"]})
        if lo["nudges_left"] == 0:
            self._nudge_end(state, rng)

    def _do_auto_nudge(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """AUTO-ADVANCE: the remaining nudges spent for the best outcome (``Lower.best_nudges``)."""
        lo = state["lower"]
        stops = tuple(lo["stops"])
        alloc = self.lower.best_nudges((stops[0], stops[1], stops[2]), lo["nudges_left"], lo["spin"] == 1)
        lo["stops"] = list(self.lower.nudged((stops[0], stops[1], stops[2]), alloc))
        lo["nudges_used"] = [u + a for u, a in zip(lo["nudges_used"], alloc)]
        state["steps"].append({"type": "auto_nudge", "nudges": list(alloc), "stops": list(lo["stops"])})
        self._nudge_end(state, rng)

    def _do_end_nudges(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        self._nudge_end(state, rng)

    # The lower Confessional and the ladders ----------------------------------------------------------------------
    def _do_stop(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        if state["stage"] == "minigame":
            self._minigame_reveal(state, {})
            return
        conf = state["confessional"]
        kind, value = conf["prize"]
        step: JsonDict = {"type": "confessional", "feature": "confessional", "game": "lower", "options": conf["options"], "lit": conf["lit"],
                          "prize": [kind, value], "win": 0}
        state["steps"].append(step)
        state["stage"] = "lower_end"
        if kind == "cash":
            step["win"] = self._pay(state, "base", value * state["stake"])
            self._enter_ladder(state, value, None, "confessional")
        else:
            n = value * state["bonus_price"]
            state["bonuses"] += n
            step["bonuses"] = n

    def _do_risk(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        if state["stage"] == "dob":
            self._dob_step(state, rng)
        else:
            self._ladder_step(state, rng)

    def _do_collect(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        if state["stage"] == "dob":
            self._dob_collect(state)
        else:
            self._ladder_end(state, "collect")

    def _do_auto_risk(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """AUTO-RISK switched on: every prize from now on is risked to the end (seed 2.8.1, 3.10.1)."""
        state["auto_risk"] = True
        state["steps"].append({"type": "auto_risk"})

    def _ladder_step(self, state: JsonDict, rng: RNG) -> None:
        lad = state["ladder"]
        if self.fair_gambles:
            step = features.ladder_step_fair(rng, self.d["ladder"], lad)
        else:
            step = features.ladder_step(rng, self.d["ladder"], lad)
        state["steps"].append(step)
        if lad["ended"]:
            self._ladder_end(state, lad["ended"], rng)

    def _ladder_end(self, state: JsonDict, how: str, rng: RNG | None = None) -> None:
        """The ladder ends: the prize on its rung is collected, becomes bonuses, or is lost; the difference from the
        prize that entered it is the ladder's part (gamble) of the win."""
        lad = state["ladder"]
        stake = state["stake"]
        scale = self.d["ladder"]["scale"]
        entry = lad["entry"] * stake
        cash = 0 if how in ("bonuses", "nothing") else scale[lad["rung"]] * stake
        step: JsonDict = {"type": "ladder_end", "feature": f"ladder_{how}", "how": how, "cash": cash}
        if how == "bonuses":
            assert rng is not None
            n = features.to_bonuses(rng, scale[lad["rung"]] * stake, self.bonus_value)
            state["bonuses"] += n
            step["bonuses"] = n
        self._gamble(state, cash - entry)
        lad["ended"] = how
        state["steps"].append(step)
        state["stage"] = "lower_end"

    def _gamble(self, state: JsonDict, delta: int) -> None:
        if delta > 0:
            self._pay(state, "gamble", delta)
        elif delta < 0:
            slots.add_win(state, "gamble", delta)

    # Upper game ---------------------------------------------------------------------------------------------------
    def _enter_upper(self, state: JsonDict) -> None:
        state["phase"] = "upper"
        state["upper"] = {"auto_left": 0, "spin": None, "minigame": None, "dob": None, "spin_step": None,
                          "games": 0}
        state["steps"].append({"type": "change_game", "feature": "upper_game", "bonuses": state["bonuses"],
                               "vertical_lines": state["vertical_lines"]})
        state["stage"] = "upper_game"

    def _do_upper_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        # version 3: the machine plays the highest upper bet the bonuses cover (the action names no level)
        level = action["level"] if "level" in action else max(self.affordable_levels(state))
        self._upper_spin(state, rng, level)

    def _do_auto_play(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """AUTO-PLAY in the upper game: up to 100 games at the highest bet the bonuses cover (seed 3.2)."""
        state["upper"]["auto_left"] = self.d["upper"]["auto_play_games"]
        state["steps"].append({"type": "auto_play", "games": state["upper"]["auto_left"]})

    def _evaluate_upper(self, state: JsonDict, rng: RNG, level: int, stops: tuple[int, int, int], vertical: bool,
                        selector_draw: int, spin: JsonDict) -> JsonDict:
        """Line wins, mixed sevens (their Mixed prizes drawn now) and the selector of one upper spin."""
        b = self.bets[level]
        stake = b["stake"]
        cfg = self.d["upper"]
        ev = self.upper.evaluate(stops, vertical)
        line_wins = [[n, s, m * stake] for n, s, m in ev["line_wins"]]
        cash = sum(w[2] for w in line_wins)
        mixed = []
        for number in ev["mixed_lines"]:
            if b["mixed"]:
                x = slots.draw_weighted(rng, self.d["minigames"]["mixed_prizes"])
                mixed.append({"line": number, "minigame": "mixed", "prize": x * stake})
            else:
                mixed.append({"line": number, "minigame": None, "prize": cfg["mixed_sevens_fixed"] * stake})
            cash += mixed[-1]["prize"]
        threshold = max((cfg["selector_per_mille"][t] for t in ev["triggers"]), default=0)
        selector = selector_draw < threshold
        if selector:
            spin["queue"].append(features.draw_minigame_block(
                rng, self.d["minigames"], stake, self.bet_max_x(level), self.bonus_value, b["island_columns"],
                within_max=self.minigame_within_bet_max))
        spin["total"] += cash
        return {"window": ev["window"], "lines": 5 + (3 if vertical else 0), "line_wins": line_wins,
                "mixed_sevens": mixed, "minigame_symbols": list(ev["triggers"]), "selector": selector,
                "win": cash, "camera": ev["camera"], "clapper": ev["clapper"]}

    def _upper_spin(self, state: JsonDict, rng: RNG, level: int) -> None:
        """One upper game: its bonuses are paid, the vertical-line counter gives 8 lines (and goes down by one),
        the reels stop, CAMERA and CLAPPER count, minigames and the WINNING SPIN are drawn."""
        cfg = self.d["upper"]
        b = self.bets[level]
        up = state["upper"]
        state["bonuses"] -= b["bonus_price"]
        vertical = state["vertical_lines"] > 0
        if vertical:
            state["vertical_lines"] -= 1
        stops = (rng.randbelow(self.upper.n), rng.randbelow(self.upper.n), rng.randbelow(self.upper.n))
        cam_lo, cam_hi = cfg["camera"]
        cam = cam_lo + rng.randbelow(cam_hi - cam_lo + 1)
        cl_lo, cl_hi = cfg["clapper"]
        clap = cl_lo + rng.randbelow(cl_hi - cl_lo + 1)
        sel = rng.randbelow(1000)
        spin: JsonDict = {"level": level, "stake": b["stake"], "total": 0, "queue": []}
        up["spin"] = spin
        up["games"] += 1
        ev = self._evaluate_upper(state, rng, level, stops, vertical, sel, spin)
        step: JsonDict = {"type": "spin", "game": "upper", "feature": "upper_games_played", "level": level, "stake": b["stake"],
                          "bonus_price": b["bonus_price"], "stops": list(stops), **ev}
        if ev["camera"]:
            state["vertical_lines"] = min(self.d["lower"]["max_vertical_lines"], state["vertical_lines"] + cam)
            step["camera_lines"] = cam
        winning = False
        if ev["clapper"]:
            state["cumulative"][level] += clap
            step["clapper_pieces"] = clap
            if state["cumulative"][level] >= cfg["cumulative_pieces"]:
                state["cumulative"][level] = 0
                winning = True
        step.update(vertical_lines=state["vertical_lines"], cumulative=state["cumulative"][level],
                    bonuses=state["bonuses"])
        state["steps"].append(step)
        up["spin_step"] = len(state["steps"]) - 1
        if winning:
            wins = self.upper.winning_stops(vertical)
            ws = wins[rng.randbelow(len(wins))]
            wsel = rng.randbelow(1000)
            wev = self._evaluate_upper(state, rng, level, ws, vertical, wsel, spin)
            state["steps"].append({"type": "winning_spin", "feature": "winning_spin", "game": "upper", "level": level, "stops": list(ws),
                                   **{k: v for k, v in wev.items() if k not in ("camera", "clapper")}})
        state["stage"] = "minigame_select" if spin["queue"] else "upper_spin_end"

    def _do_select(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """The minigame selector: the chosen minigame shows the prize drawn when the selector opened."""
        up = state["upper"]
        up["minigame"] = {"name": action["minigame"], "picked": []}
        state["steps"].append({"type": "minigame_select", "minigame": action["minigame"]})
        state["stage"] = "minigame"

    def _do_pick(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        self._minigame_reveal(state, {"character": action["character"]})

    def _do_spin_wheel(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        self._minigame_reveal(state, {})

    def _do_uncover(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """The Dinner: each dish uncovered shows the next item of the sequence drawn at the selector (a prize or
        EXIT), whichever dish the player touches."""
        up = state["upper"]
        mg = up["minigame"]
        block = up["spin"]["queue"][0]
        item = block["dinner"][len(mg["picked"])]
        mg["picked"].append(action["dish"])
        state["steps"].append({"type": "dinner_dish", "dish": action["dish"], "reveal": item})
        if item == "exit" or len(mg["picked"]) == len(block["dinner"]):
            self._minigame_reveal(state, {"dishes": list(mg["picked"])})

    def _minigame_reveal(self, state: JsonDict, extra: JsonDict) -> None:
        """A minigame's end: it shows its pictures of the prize drawn at the selector, which is paid (with the
        supplement's bonuses)."""
        up = state["upper"]
        mg = up["minigame"]
        block = up["spin"]["queue"].pop(0)
        name = mg["name"]
        step: JsonDict = {"type": "minigame", "feature": "minigame", "minigame": name, **extra}
        if name == "desert_expedition":
            c = extra["character"]
            others = block["desert"][1:]
            shown = others[:c] + [block["desert"][0]] + others[c:]
            step["characters"] = shown
        elif name == "dinner":
            step["dishes_shown"] = block["dinner"]
        elif name == "confessional":
            step["options"], step["lit"] = block["confessional"]["options"], block["confessional"]["lit"]
        elif name == "island":
            step["columns"] = block["island_columns"]
            step["amounts"] = block["island"]
        else:
            step["segment"], step["element"] = block["monologue"]["segment"], block["monologue"]["element"]
        step.update(prize=block["prize"], supplement=block["supplement"], bonuses=block["bonuses"])
        up["spin"]["total"] += block["prize"]
        if block["bonuses"]:
            state["bonuses"] += block["bonuses"]
        state["steps"].append(step)
        up["minigame"] = None
        state["stage"] = "minigame_select" if up["spin"]["queue"] else "upper_spin_end"

    def _upper_spin_end(self, state: JsonDict) -> None:
        """The upper game's prize (lines, mixed sevens, minigames, the winning spin; at most the bet's maximum
        prize) is paid and offered to Double-or-Bonuses."""
        up = state["upper"]
        spin = up["spin"]
        stake = spin["stake"]
        top = self.bet_max_x(spin["level"]) * stake
        prize = min(spin["total"], top)
        state["steps"].append({"type": "upper_prize", "level": spin["level"], "prize": prize,
                               "max_prize": prize == top})
        paid = self._pay(state, "bonus", prize)
        state["stage"] = "upper_game"
        if state["capped"]:
            return
        fraction = self.fraction_x(spin["level"]) * stake
        if self.fair_gambles:
            dob = {"level": spin["level"], "stake": stake, "fraction": fraction, "entry": paid, "remaining": paid,
                   "banked": 0, "bonuses": 0, "max": min(top, paid + state["cap"] - state["win"])}
            up["dob"] = dob
            if self._dob_can_risk(state):
                state["stage"] = "dob"
            else:
                up["dob"] = None
        elif features.dob_open(self.d["upper"], paid, stake, top, state["bonuses"]):
            up["dob"] = {"level": spin["level"], "stake": stake, "fraction": fraction,
                         "entry": paid, "remaining": paid, "banked": 0, "bonuses": 0, "max": top}
            state["stage"] = "dob"

    def _dob_can_risk(self, state: JsonDict) -> bool:
        dob = state["upper"]["dob"]
        if self.fair_gambles:
            # version 3: offered only while all the fraction can win fits under the bet's maximum prize and the
            # round's (``max`` is the smaller of the two at the prize that entered), so each risk is exactly fair
            return bool(dob["remaining"] >= dob["fraction"]
                        and dob["banked"] + dob["remaining"] + dob["fraction"] <= dob["max"]
                        and state["bonuses"] <= self.d["upper"]["max_bonuses_for_double"])
        return bool(dob["remaining"] >= dob["fraction"] and dob["banked"] + dob["remaining"] < dob["max"]
                    and state["bonuses"] <= self.d["upper"]["max_bonuses_for_double"])

    def _dob_step(self, state: JsonDict, rng: RNG) -> None:
        dob = state["upper"]["dob"]
        if self.fair_gambles:
            step = features.dob_step_fair(rng, dob)
        else:
            step = features.dob_step(rng, self.d["upper"], dob, self.bonus_value)
        state["bonuses"] += step.get("bonuses", 0)
        state["steps"].append(step)
        if not self._dob_can_risk(state):
            self._dob_collect(state)

    def _dob_collect(self, state: JsonDict) -> None:
        dob = state["upper"]["dob"]
        cash = dob["banked"] + dob["remaining"]
        state["steps"].append({"type": "dob_end", "feature": "double_or_bonuses", "cash": cash, "bonuses": dob["bonuses"]})
        self._gamble(state, cash - dob["entry"])
        state["upper"]["dob"] = None
        state["stage"] = "upper_game"

    # The state machine ------------------------------------------------------------------------------------------
    def act(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        """One player action: it must be literally one of ``state["pending"]["options"]``; the given state is
        never changed (the action works on a copy)."""
        if not isinstance(state, dict) or state.get("status") != "awaiting_action" or not state.get("pending"):
            raise ActionError("game.round_finished", "The round awaits no action.", "Hra nečeká na žádnou akci.")
        if state.get("game") != self.code or state.get("version") != self.version:
            raise ActionError("game.wrong_game", "The round belongs to another game or version.",
                              "Hra patří jiné hře nebo verzi.")
        if not any(slots.same_action(action, o) for o in state["pending"]["options"]):
            raise ActionError("game.invalid_action", "This action is not allowed now.",
                              "Tuto akci nyní nelze provést.", allowed=state["pending"]["options"])
        s: JsonDict = json.loads(json.dumps(state))  # a deep copy (the state is plain JSON)
        s["pending"] = None
        self._apply(s, dict(action), rng)
        return self._next(s, rng)

    def _apply(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        getattr(self, f"_do_{action['type']}")(state, action, rng)

    def _next(self, state: JsonDict, rng: RNG) -> JsonDict:
        """Move the round on until it needs the player or ends: automatic transitions, AUTO-RISK and AUTO-PLAY
        (a loop, so a long automatic session never nests calls)."""
        while True:
            if state["capped"]:
                return self._end(state, "max_prize")
            stage = state["stage"]
            if stage == "lower_end":
                if self.affordable_levels(state):
                    self._enter_upper(state)
                    continue
                return self._end(state, "no_bonuses")
            if stage == "upper_spin_end":
                self._upper_spin_end(state)
                continue
            if stage == "upper_game" and not self.affordable_levels(state):
                return self._end(state, "no_bonuses")
            if stage == "ladder" and state["auto_risk"]:
                self._ladder_step(state, rng)
                continue
            if stage == "dob" and state["auto_risk"]:
                self._dob_step(state, rng)
                continue
            pending = self._pending(state)
            if self._automatic(state):
                action = self._default_for(state, pending)
                if stage == "upper_game":
                    up = state["upper"]
                    up["auto_left"] = max(0, up["auto_left"] - 1)
                    self._apply(state, action, rng)
                    up["spin"]["auto"] = True
                else:
                    self._apply(state, action, rng)
                continue
            return slots.await_action(state, pending["type"], pending["options"], **pending["info"])

    def _automatic(self, state: JsonDict) -> bool:
        """The bet's AUTO-PLAY decides everything; the upper game's AUTO-PLAY launches its games and plays the
        minigames and Double-or-Bonuses of the games it launched."""
        if state["auto_play"]:
            return True
        if self.machine_choices and state["stage"] in ("hold", "nudge"):
            return True  # version 3: the machine holds and nudges
        up = state.get("upper")
        if not up:
            return False
        if state["stage"] == "upper_game":
            return bool(up["auto_left"] > 0)
        return bool(state["stage"] in UPPER_STAGES and up["spin"] and up["spin"].get("auto"))

    def _end(self, state: JsonDict, reason: str) -> JsonDict:
        step: JsonDict = {"type": "end", "reason": reason, "win": state["win"]}
        if self.carry_within_cap:
            self._bonuses_within_cap(state, step)
        if self.carry_over:  # the counters and bonuses stay on the machine for the player's next round
            state["carry_out"] = {"vertical_lines": state["vertical_lines"], "cumulative": list(state["cumulative"]),
                                  "bonuses": state["bonuses"]}
            step["carried"] = dict(state["carry_out"])
        elif state["bonuses"]:
            step["bonuses_lapsed"] = state["bonuses"]
        state["steps"].append(step)
        state["stage"] = "done"
        return slots.finish(state)

    def _bonuses_within_cap(self, state: JsonDict, step: JsonDict) -> None:
        """Version 3: the round's value is its cash win plus the bonuses it adds to the carried ones at face value
        (the ledger's measure); what would take it over the round's maximum prize lapses (recorded)."""
        carried_in = int((state.get("carry_in") or {}).get("bonuses", 0))
        allowed = carried_in + max(0, state["cap"] - state["win"]) // self.bonus_value
        if state["bonuses"] > allowed:
            step["bonuses_beyond_max_prize"] = state["bonuses"] - allowed
            state["bonuses"] = allowed

    def _pending(self, state: JsonDict) -> JsonDict:
        """The pending offer of the current stage: type, options and what the player is shown (``offers``)."""
        return offers.pending(self, state)

    def _restore(self, state: JsonDict) -> JsonDict:
        """Seed 5 (restorations): what the client shows when the player comes back (``offers``)."""
        return offers.restore(self, state)

    def _default_for(self, state: JsonDict, pending: JsonDict) -> JsonDict:
        return offers.default_for(self, state, pending)

    def default_action(self, state: JsonDict) -> JsonDict:
        """The automatic choices (the simulator's policy and AUTO-PLAY): the automatic hold, AUTO-ADVANCE, stop
        at once, collect (risk with AUTO-RISK), auto-play the upper game, the first minigame and the first item."""
        if state.get("status") != "awaiting_action" or not state.get("pending"):
            raise ActionError("game.no_action", "The round awaits no action.", "Hra nečeká na žádnou akci.")
        if state["stage"] == "upper_game":
            return {"type": "auto_play"}
        return self._default_for(state, state["pending"])

    # --- declared figures of the player's options ------------------------------------------------------------------
    def rtp_by_option(self) -> list[JsonDict]:
        """The declared RTP of each of the player's options: the automatic choices (collect) and each declared
        option (version 2: AUTO-RISK), with the bet its PAR sheet simulates."""
        return [{"option": "automatic_choices", "rtp": str(self.declared.rtp), "par_bet": dict(self.par_bet_params)}] + [
            {"option": o["option"], "rtp": o["rtp"], "par_bet": dict(o["bet"])} for o in self.declared_options]

    def lowest_declared_rtp(self) -> Decimal:
        """The lowest declared RTP over the player's options (what any way of playing returns at least)."""
        return min(Decimal(o["rtp"]) for o in self.rtp_by_option())

    def declared_rtp_for(self, params: JsonDict) -> Decimal:
        """The declared RTP that applies to a bet: an option's own figure when the bet turns it on (a PAR sheet of
        an AUTO-RISK bet is checked against the AUTO-RISK figure), else the game's declared RTP."""
        for o in self.declared_options:
            if params.get(o["option"]):
                return Decimal(o["rtp"])
        return self.declared.rtp

    def rtp_range(self) -> tuple[Decimal, Decimal] | None:
        """Version 3: the declared RTP range over every way of playing: the declared RTP +- the stated bound on the
        spread between strategies (``rtp_spread_bound``); None for the older versions (which declare none)."""
        if "rtp_spread_bound" not in self.d:
            return None
        bound = Decimal(self.d["rtp_spread_bound"])
        return self.declared.rtp - bound, self.declared.rtp + bound

    def strategy_table(self, bet: Bet, rounds: int, seed: int) -> JsonDict | None:
        """The PAR sheet's RTP by way of playing (version 3; ``strategies``), None for the older versions."""
        if not self.fair_gambles:
            return None
        from . import strategies

        return strategies.strategy_table(self, bet, rounds, seed)

    # --- catalogue ----------------------------------------------------------------------------------------------
    def catalogue_entry(self) -> definition_.CatalogueEntry:
        return catalogue.catalogue_entry(self)

    def demo_options(self) -> list[str]:
        from . import demo

        return list(demo.OPTIONS)

    def demo_draws(self, option: str, stake: int | None = None) -> list[list[int]]:
        """Seed 6 (demo mode): the draws that give the chosen outcome, for QA's forced draws in play money."""
        from . import demo

        return demo.draws(self, option, stake or self.default_bet_params["stake"])

    # --- exact RTP, analysis and the fast simulator ---------------------------------------------------------------
    @functools.cached_property
    def _exact(self) -> dict[str, Fraction]:
        return analysis.exact_base(self)

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """The lower game's cash prizes as awarded (direct prizes and the Confessional's cash) under the automatic
        holds and nudges, exactly (every stop, every offer, every respin, every nudge count enumerated). Risking
        them is the "gamble" part; the upper game is simulated."""
        return dict(self._exact)

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        return fast_sim.simulate_fast(self, bet, rounds, seed, progress)
