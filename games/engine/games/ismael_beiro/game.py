"""The Ismael Beiro game class: bets, the round (lower game with holds, nudges, the Confessional and the ladders;
the upper game with its vertical lines, minigames, cumulative and Double-or-Bonuses), auto-play, auto-risk and the
declared figures of each option. The offers shown to the player, the restoration hints and the automatic choices
are in ``offers``, the catalogue entry in ``catalogue``; the definition, the bets and the shared helpers in
``machine``, the upper game in ``upper_play`` (the class builds on both).

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

from ... import definition as definition_
from ... import slots
from ...base import RNG, ActionError, Bet, JsonDict, Progress
from . import analysis, catalogue, fast_sim, features, offers
from .upper_play import UpperPlay

LOWER_SPIN_DRAWS = 7
UPPER_STAGES = ("upper_game", "minigame_select", "minigame", "dob")


class IsmaelBeiro(UpperPlay):
    """The Ismael Beiro machine for one definition (a dict like :data:`definition.DEFINITION`)."""

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
        ok = (
            isinstance(carry, dict)
            and set(carry) == {"vertical_lines", "cumulative", "bonuses"}
            and isinstance(carry["vertical_lines"], int)
            and 0 <= carry["vertical_lines"] <= self.d["lower"]["max_vertical_lines"]
            and isinstance(carry["bonuses"], int)
            and carry["bonuses"] >= 0
            and isinstance(carry["cumulative"], list)
            and len(carry["cumulative"]) == len(self.bets)
            and all(isinstance(c, int) and 0 <= c < self.d["upper"]["cumulative_pieces"] for c in carry["cumulative"])
        )
        if not ok:
            raise ActionError(
                "game.ismael_beiro.bad_carry",
                "The carried machine state is malformed.",
                "Přenesený stav automatu je poškozený.",
                carry=carry,
            )
        return {
            "vertical_lines": carry["vertical_lines"],
            "cumulative": list(carry["cumulative"]),
            "bonuses": carry["bonuses"],
        }

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
        state.update(
            level=level,
            bonus_price=self.bets[level]["bonus_price"],
            cap=self.max_prize * bet.total_stake,
            capped=False,
            bonuses=0,
            vertical_lines=0,
            cumulative=[0] * len(self.bets),
            auto_play=p["auto_play"],
            auto_risk=p["auto_risk"],
            phase="lower",
            stage="lower_end",
            ladder=None,
            confessional=None,
            upper=None,
        )
        if self.carry_over:
            c = self._valid_carry(carry)
            state.update(
                carry_in=c, vertical_lines=c["vertical_lines"], cumulative=list(c["cumulative"]), bonuses=c["bonuses"]
            )
        spins = [self._lower_draws(rng) for _ in range(2)]
        state["lower"] = {"draws": spins, "spin": 1, "stops": list(spins[0]["stops"]), "nudges_left": 0, "spin_step": 0}
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
        step: JsonDict = {
            "type": "spin",
            "game": "lower",
            "spin": spin,
            "stops": list(stops),
            "window": self.lower.window(stops),
            "line": self.lower.line(stops),
            "held": list(lo.get("held", [])),
            "result": self._result_view(r),
            "win": 0,
        }
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
        state["ladder"] = {
            "mode": mode,
            "rung": features.rung_of(cfg["scale"], prize),
            "entry": prize,
            "origin": origin,
            "ended": None,
        }
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
        state["steps"].append(
            {
                "type": "nudges_end",
                "feature": "nudges",
                "used": list(lo["nudges_used"]),
                "stops": list(stops),
                "line": self.lower.line(stops),
                "result": self._result_view(r),
            }
        )
        if (
            not self.lower.is_prize(r)
            and lo["spin"] == 1
            and r["pair"] is not None
            and draw["hold_after_nudge"] < self.d["lower"]["hold_after_nudge_per_mille"]
        ):
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
        state["steps"].append(
            {
                "type": "nudge",
                "reel": j,
                "stops": list(stops),
                "line": self.lower.line(stops),
                "nudges_left": lo["nudges_left"],
            }
        )
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
        step: JsonDict = {
            "type": "confessional",
            "feature": "confessional",
            "game": "lower",
            "options": conf["options"],
            "lit": conf["lit"],
            "prize": [kind, value],
            "win": 0,
        }
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

    # The state machine ------------------------------------------------------------------------------------------
    def act(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        """One player action: it must be literally one of ``state["pending"]["options"]``; the given state is
        never changed (the action works on a copy)."""
        if not isinstance(state, dict) or state.get("status") != "awaiting_action" or not state.get("pending"):
            raise ActionError("game.round_finished", "The round awaits no action.", "Hra nečeká na žádnou akci.")
        if state.get("game") != self.code or state.get("version") != self.version:
            raise ActionError(
                "game.wrong_game", "The round belongs to another game or version.", "Hra patří jiné hře nebo verzi."
            )
        if not any(slots.same_action(action, o) for o in state["pending"]["options"]):
            raise ActionError(
                "game.invalid_action",
                "This action is not allowed now.",
                "Tuto akci nyní nelze provést.",
                allowed=state["pending"]["options"],
            )
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
            state["carry_out"] = {
                "vertical_lines": state["vertical_lines"],
                "cumulative": list(state["cumulative"]),
                "bonuses": state["bonuses"],
            }
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
        return [
            {"option": "automatic_choices", "rtp": str(self.declared.rtp), "par_bet": dict(self.par_bet_params)}
        ] + [{"option": o["option"], "rtp": o["rtp"], "par_bet": dict(o["bet"])} for o in self.declared_options]

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
