"""The Ismael Beiro upper game (``game.IsmaelBeiro`` builds on it): the upper spin with its vertical lines, the
minigames (select, pick, wheel, uncover), the cumulative and its WINNING SPIN, and Double-or-Bonuses. Its draws are
listed in ``game``'s docstring.
"""

from __future__ import annotations

from ... import slots
from ...base import RNG, JsonDict
from . import features
from .machine import IsmaelBeiroMachine


class UpperPlay(IsmaelBeiroMachine):
    """The upper game of :class:`~.game.IsmaelBeiro`."""

    # Upper game ---------------------------------------------------------------------------------------------------
    def _enter_upper(self, state: JsonDict) -> None:
        state["phase"] = "upper"
        state["upper"] = {"auto_left": 0, "spin": None, "minigame": None, "dob": None, "spin_step": None, "games": 0}
        state["steps"].append(
            {
                "type": "change_game",
                "feature": "upper_game",
                "bonuses": state["bonuses"],
                "vertical_lines": state["vertical_lines"],
            }
        )
        state["stage"] = "upper_game"

    def _do_upper_spin(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        # version 3: the machine plays the highest upper bet the bonuses cover (the action names no level)
        level = action["level"] if "level" in action else max(self.affordable_levels(state))
        self._upper_spin(state, rng, level)

    def _do_auto_play(self, state: JsonDict, action: JsonDict, rng: RNG) -> None:
        """AUTO-PLAY in the upper game: up to 100 games at the highest bet the bonuses cover (seed 3.2)."""
        state["upper"]["auto_left"] = self.d["upper"]["auto_play_games"]
        state["steps"].append({"type": "auto_play", "games": state["upper"]["auto_left"]})

    def _evaluate_upper(
        self,
        state: JsonDict,
        rng: RNG,
        level: int,
        stops: tuple[int, int, int],
        vertical: bool,
        selector_draw: int,
        spin: JsonDict,
    ) -> JsonDict:
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
            spin["queue"].append(
                features.draw_minigame_block(
                    rng,
                    self.d["minigames"],
                    stake,
                    self.bet_max_x(level),
                    self.bonus_value,
                    b["island_columns"],
                    within_max=self.minigame_within_bet_max,
                )
            )
        spin["total"] += cash
        return {
            "window": ev["window"],
            "lines": 5 + (3 if vertical else 0),
            "line_wins": line_wins,
            "mixed_sevens": mixed,
            "minigame_symbols": list(ev["triggers"]),
            "selector": selector,
            "win": cash,
            "camera": ev["camera"],
            "clapper": ev["clapper"],
        }

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
        step: JsonDict = {
            "type": "spin",
            "game": "upper",
            "feature": "upper_games_played",
            "level": level,
            "stake": b["stake"],
            "bonus_price": b["bonus_price"],
            "stops": list(stops),
            **ev,
        }
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
        step.update(
            vertical_lines=state["vertical_lines"], cumulative=state["cumulative"][level], bonuses=state["bonuses"]
        )
        state["steps"].append(step)
        up["spin_step"] = len(state["steps"]) - 1
        if winning:
            wins = self.upper.winning_stops(vertical)
            ws = wins[rng.randbelow(len(wins))]
            wsel = rng.randbelow(1000)
            wev = self._evaluate_upper(state, rng, level, ws, vertical, wsel, spin)
            state["steps"].append(
                {
                    "type": "winning_spin",
                    "feature": "winning_spin",
                    "game": "upper",
                    "level": level,
                    "stops": list(ws),
                    **{k: v for k, v in wev.items() if k not in ("camera", "clapper")},
                }
            )
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
        state["steps"].append(
            {"type": "upper_prize", "level": spin["level"], "prize": prize, "max_prize": prize == top}
        )
        paid = self._pay(state, "bonus", prize)
        state["stage"] = "upper_game"
        if state["capped"]:
            return
        fraction = self.fraction_x(spin["level"]) * stake
        if self.fair_gambles:
            dob = {
                "level": spin["level"],
                "stake": stake,
                "fraction": fraction,
                "entry": paid,
                "remaining": paid,
                "banked": 0,
                "bonuses": 0,
                "max": min(top, paid + state["cap"] - state["win"]),
            }
            up["dob"] = dob
            if self._dob_can_risk(state):
                state["stage"] = "dob"
            else:
                up["dob"] = None
        elif features.dob_open(self.d["upper"], paid, stake, top, state["bonuses"]):
            up["dob"] = {
                "level": spin["level"],
                "stake": stake,
                "fraction": fraction,
                "entry": paid,
                "remaining": paid,
                "banked": 0,
                "bonuses": 0,
                "max": top,
            }
            state["stage"] = "dob"

    def _dob_can_risk(self, state: JsonDict) -> bool:
        dob = state["upper"]["dob"]
        if self.fair_gambles:
            # version 3: offered only while all the fraction can win fits under the bet's maximum prize and the
            # round's (``max`` is the smaller of the two at the prize that entered), so each risk is exactly fair
            return bool(
                dob["remaining"] >= dob["fraction"]
                and dob["banked"] + dob["remaining"] + dob["fraction"] <= dob["max"]
                and state["bonuses"] <= self.d["upper"]["max_bonuses_for_double"]
            )
        return bool(
            dob["remaining"] >= dob["fraction"]
            and dob["banked"] + dob["remaining"] < dob["max"]
            and state["bonuses"] <= self.d["upper"]["max_bonuses_for_double"]
        )

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
        state["steps"].append(
            {"type": "dob_end", "feature": "double_or_bonuses", "cash": cash, "bonuses": dob["bonuses"]}
        )
        self._gamble(state, cash - dob["entry"])
        state["upper"]["dob"] = None
        state["stage"] = "upper_game"
