"""The Ismael Beiro machine's ground (``game.IsmaelBeiro`` builds on it): the definition it plays and its checks,
the bets, and the helpers every part of the round uses (a prize paid into the round, the lower game's draws, the
upper bets a level may play, a gamble's gain or loss). The round itself is ``upper_play`` (the upper game) and
``game`` (the lower game, the ladders, the state machine, the declared figures).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from ... import definition as definition_
from ... import slots
from ...base import RNG, Bet, Declared, JsonDict
from .lower import Lower
from .upper import Upper


class IsmaelBeiroMachine(slots.SlotGame):
    """The definition, the bets and the shared helpers of :class:`~.game.IsmaelBeiro`."""

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
        self.declared = Declared(
            rtp=Decimal(d["rtp"]),
            min_bet=min(enabled),
            max_bet=max(enabled),
            max_win=self.max_prize * max(enabled),
            unfinished_deadline_days=d["unfinished_deadline_days"],
        )
        default = d["default_stake"] if d["default_stake"] in enabled else min(enabled)
        lower_bets = [b for b in self.bets if not b.get("upper_only")]
        self.bet_model = definition_.StakeChoice(
            code="ismael_beiro",
            stakes=tuple(b["stake"] for b in lower_bets),
            enabled=tuple(bool(b["enabled"]) for b in lower_bets),
            default_stake=default,
            flags=("auto_play", "auto_risk"),
        )
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
        assert all(b.get("upper_only") for b in self.bets[self.top_lower_level + 1 :]), "upper-only bets come last"

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
        return {
            "stops": stops,
            "hold": rng.randbelow(1000),
            "nudge": rng.randbelow(1000),
            "nudges": slots.draw_weighted(rng, cfg["nudge_counts"]),
            "hold_after_nudge": rng.randbelow(1000),
        }

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

    def _gamble(self, state: JsonDict, delta: int) -> None:
        if delta > 0:
            self._pay(state, "gamble", delta)
        elif delta < 0:
            slots.add_win(state, "gamble", delta)
