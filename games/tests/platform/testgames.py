"""Test-only engine games (registered only while a test uses the ``test_games`` fixture).

``test_pick`` is an interactive "pick" game: the start draws the first prize, the player opens a box (the choice
does not change the prize, GP §7(3)), the act draws the second prize, a second pick reveals it and the round
finishes with win = stake x (m1 + m2). A bet ``{"stake": 100, "boom": "start"|"act"}`` makes the engine raise
(a malfunction) at that point.
"""

from __future__ import annotations

from decimal import Decimal

from core.rng import SystemRNG
from games.engine import STATUS_AWAITING_ACTION, STATUS_FINISHED, ActionError, Bet, BetError, Declared, Game

MULTIPLIERS = [0, 1, 2, 5]


class PickGame(Game):
    code = "test_pick"
    version = 1
    name = "Test Pick"
    name_cs = "Testovací výběr"
    kind = "slot"
    declared = Declared(
        rtp=Decimal("100.00"), min_bet=10, max_bet=100_000, max_win=1_000_000, unfinished_deadline_days=90
    )

    def describe(self) -> dict:
        return {
            "code": self.code,
            "version": self.version,
            "name": self.name,
            "name_cs": self.name_cs,
            "rules_en": "Pick a box twice.",
            "rules_cs": "Dvakrát vyberte krabičku.",
            "paytable": {"multipliers": MULTIPLIERS},
            "bet_example": {"stake": 100},
        }

    @property
    def money_bet_fields(self) -> tuple[str, ...]:
        return ("stake",)  # its bet's one amount (this test game parses its bet itself, without a bet model)

    def validate_bet(self, params: dict) -> Bet:
        if not isinstance(params, dict) or set(params) - {"stake", "boom"}:
            raise BetError("game.test_pick.invalid_bet", 'A bet is {"stake": n}.', 'Sázka je {"stake": n}.')
        stake = params.get("stake")
        if not isinstance(stake, int) or isinstance(stake, bool) or stake % 10 or not 10 <= stake <= 100_000:
            raise BetError(
                "game.stake_step",
                "The stake must be a multiple of 0.10 CZK within the limits.",
                "Sázka musí být násobkem 0,10 Kč v mezích.",
                stake=stake,
            )
        out = {"stake": stake}
        if params.get("boom"):
            out["boom"] = params["boom"]
        return Bet(total_stake=stake, params=out)

    def start(self, bet: Bet, rng) -> dict:
        if bet.params.get("boom") == "start":
            raise RuntimeError("reel motor on fire")
        m1 = MULTIPLIERS[rng.randbelow(len(MULTIPLIERS))]
        return {
            "status": STATUS_AWAITING_ACTION,
            "win": 0,
            "stake": bet.total_stake,
            "boom": bet.params.get("boom"),
            "steps": [{"type": "spin", "symbols": [["A", "B", "C"]], "win": 0}],
            "pending": {"type": "pick", "stage": 1, "options": [{"pick": i} for i in range(3)]},
            "hidden": {"prize": m1},
            "jackpot_events": [],
            "breakdown": {"base": 0, "free_spins": 0, "bonus": 0, "gamble": 0},
        }

    def act(self, state: dict, action: dict, rng) -> dict:
        if state.get("status") != STATUS_AWAITING_ACTION:
            raise ActionError("game.test_pick.not_waiting", "Nothing to pick.", "Není co vybírat.")
        pick = action.get("pick") if isinstance(action, dict) else None
        if pick not in (0, 1, 2) or set(action) != {"pick"}:
            raise ActionError(
                "game.test_pick.invalid_pick", "Pick box 0, 1 or 2.", "Vyberte krabičku 0, 1 nebo 2.", pick=pick
            )
        if state.get("boom") == "act":
            raise ZeroDivisionError("bonus wheel divided by zero")
        stage = state["pending"]["stage"]
        prize = state["hidden"]["prize"]
        win = state["win"] + state["stake"] * prize
        steps = state["steps"] + [
            {"type": "pick", "stage": stage, "pick": pick, "multiplier": prize, "win": state["stake"] * prize}
        ]
        new = dict(state, win=win, steps=steps, breakdown=dict(state["breakdown"], bonus=win))
        if stage == 1:
            new["hidden"] = {"prize": MULTIPLIERS[rng.randbelow(len(MULTIPLIERS))]}
            new["pending"] = {"type": "pick", "stage": 2, "options": [{"pick": i} for i in range(3)]}
            return new
        new.update(status=STATUS_FINISHED, pending=None, hidden=None)
        return new

    def default_action(self, state: dict) -> dict:
        return {"pick": 0}


PICK = PickGame()


class FixedRNG(SystemRNG):
    """Returns the given values in turn (modulo the range) - deterministic outcomes for money assertions."""

    name = "fixed"

    def __init__(self, *values: int):
        self.values = list(values) or [0]
        self.i = 0

    def randbelow(self, n: int) -> int:
        value = self.values[self.i % len(self.values)] % n
        self.i += 1
        return value
