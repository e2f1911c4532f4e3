"""The kit's games: game versions approved for the tests, bets and amounts as the API takes them.

Real money needs a version approved in the game plan (GP §13(6)) and a version the catalogue sync adds starts
unapproved, so a test that plays real money needs approved versions. The kit's pytest plugin (``tests/kit/plugin.py``,
loaded by the root ``conftest.py``) sees to it that every test with
database access has the current version of each game approved, as the demo does, once: before its other fixtures
(an autouse fixture: a fixture may play a round). A fixture that registers and syncs a game of its own (the test-only
pick game) approves it with ``approve_current_games()``. A test of the refusal sets its version unapproved itself, in
its body.
"""

from __future__ import annotations

from tests.kit.money import api_money  # noqa: F401  (where the kit kept it)

TEST_PLAN_VERSION = "tests"
TEST_REFERENCE = "test data - not a decision of the Ministry of Finance"


def approve_current_games() -> int:
    """Mark the current version of every registered game approved, as test data (ONE statement, no audit event;
    staff record real approvals with ``games.services.game_approve``). Returns how many rows it approved."""
    from core import clock
    from games.models import Game

    return (
        Game.objects.filter(current=True, registered=True, provider="")
        .exclude(approval_state=Game.Approval.APPROVED)
        .update(
            approval_state=Game.Approval.APPROVED,
            approval_plan_version=TEST_PLAN_VERSION,
            approval_reference=TEST_REFERENCE,
            approved_at=clock.now(),
        )
    )


def api_bet(bet: object, game: str | None = None) -> object:
    """A bet written in engine units (``{"bets": [{"type": "red", "amount": 100}]}``) as the API takes it, every
    amount a Money object (``core.api_money``): the tests write bets as the engine keeps them and post them as a
    client must. The amounts are the money fields ``game`` declares (its current version); without ``game``, those
    of any shipped game (a test's bet for whichever game it posts to). Values that are not integers (a test of a
    malformed bet) are left as written."""
    from games.engine.registry import list_games
    from games.serializers import bet_to_api, money_bet_fields

    money = money_bet_fields(game) if game is not None else {f for g in list_games() for f in g.money_bet_fields}
    return bet_to_api(bet, money, formatted=False)
