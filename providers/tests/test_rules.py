"""The platform's rules hold for remote games, through the signed API: limits, the 120/15 break, one open round
across engine and remote games, the 2-second rule, the approval, funds, the GP §8(3) win cap. A refusal moves
nothing and answers in the provider's vocabulary with the platform's code."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.management import call_command

from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from games import errors as games_errors
from games.errors import (
    GAME_NOT_APPROVED,
    REMOTE_BET_EXISTS,
    REMOTE_GAME_FIGURES,
    REMOTE_ROUND_CLOSED,
    ROUND_IN_PROGRESS,
    ROUND_TOO_SOON,
)
from games.models import Game, Round
from games.services import game_approval_withdraw, remote_bet
from limits.errors import BREAK_REQUIRED, DAILY_STAKE_EXCEEDED
from limits.services import self_limit_set
from providers.errors import LOGIN_ENDED, SESSION_EXPIRED, rs_status
from providers.models import Provider
from providers.tests.test_api import DETAIL, bet, win
from tests.kit.accounts import make_player
from tests.kit.games import api_bet
from tests.kit.providers import open_session, player_client
from tests.kit.wallet import fund
from wallet.errors import INSUFFICIENT_FUNDS
from wallet.selectors import balance

pytestmark = pytest.mark.django_db


def provider_refused(r, status: str, code: str) -> dict:
    assert r.json().get("status") == status, r.content
    assert r.json()["error"]["code"] == code, r.content
    return r.json()["error"]


def test_a_bet_at_the_daily_stake_limit_is_taken_and_the_next_one_refused(player, signed, session, clock):
    self_limit_set(player=player, kind="technical", limit_type="daily_stake", value=5_000, actor=Actor.player(player))
    assert bet(signed, session, "b1", "r1", 3_000, closed=True).status_code == 200
    clock.shift(3)
    assert bet(signed, session, "b2", "r2", 2_000, closed=True).status_code == 200  # exactly at the limit
    clock.shift(3)
    r = bet(signed, session, "b3", "r3", 10, closed=True)
    assert r.status_code == 403
    error = provider_refused(r, "RS_ERROR_LIMIT_REACHED", DAILY_STAKE_EXCEEDED.code)
    assert error["details"]["balance"] == {"amount": 95_000, "currency": "CZK"}
    assert balance(player).amount == 95_000 and not Round.objects.filter(provider_round_id="r3").exists()


def test_after_120_minutes_of_play_a_bet_is_refused_until_the_15_minute_break(player, signed, session, clock):
    for k in range(12):  # a round every 10 minutes: the gaps count as play (GP §7(4))
        assert bet(signed, session, f"b{k}", f"r{k}", 100, closed=True).status_code == 200, k
        clock.shift(600)
    r = bet(signed, session, "late", "late", 100, closed=True)  # at 120 minutes of play
    provider_refused(r, "RS_ERROR_LIMIT_REACHED", BREAK_REQUIRED.code)
    clock.shift(15 * 60)
    assert bet(signed, session, "after", "after", 100, closed=True).status_code == 200


def test_one_open_round_across_a_remote_game_and_an_engine_game(player, signed, session, clock):
    assert bet(signed, session, "b1", "r1").status_code == 200  # the remote round stays open
    clock.shift(3)
    engine = player_client(player).post(
        "/api/v1/games/rounds",
        {"game": "european_roulette", "bet": api_bet({"bets": [{"type": "red", "amount": 100}]})},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k-engine",
    )
    assert engine.status_code == 409 and engine.json()["error"]["code"] == ROUND_IN_PROGRESS.code
    r = bet(signed, session, "b2", "r2")  # another round of the remote game: GP §7(6) too
    provider_refused(r, "RS_ERROR_LIMIT_REACHED", ROUND_IN_PROGRESS.code)
    assert balance(player).amount == 99_000


def test_a_second_bet_on_the_same_round_is_refused(signed, session, clock):
    assert bet(signed, session, "b1", "r1").status_code == 200
    clock.shift(3)
    provider_refused(bet(signed, session, "b2", "r1"), "RS_ERROR_LIMIT_REACHED", REMOTE_BET_EXISTS.code)


def test_a_bet_within_2_seconds_of_the_last_start_is_refused(signed, session, clock):
    assert bet(signed, session, "b1", "r1", closed=True).status_code == 200
    clock.shift(1)
    r = bet(signed, session, "b2", "r2", closed=True)
    assert r.status_code == 429
    assert provider_refused(r, "RS_ERROR_LIMIT_REACHED", ROUND_TOO_SOON.code)["details"]["retry_after_ms"] == 1000


def test_a_bet_on_a_game_whose_approval_was_withdrawn_is_refused(player, signed, session, game, clock):
    game_approval_withdraw(game=game, reason="plan changed", actor=Actor.system("tests"))
    provider_refused(bet(signed, session), "RS_ERROR_INVALID_GAME", GAME_NOT_APPROVED.code)
    assert balance(player).amount == 100_000


def test_the_launch_of_an_unapproved_game_is_refused(player, signed, clock):
    from tests.kit.providers import make_game

    make_game(slug="fresh", approved=False)
    r = player_client(player).post("/api/v1/providers/sim/launch", {"game": "sim_fresh"}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == GAME_NOT_APPROVED.code


def test_a_bet_above_the_balance_is_refused_as_not_enough_money(signed, clock, game):
    poor = make_player()
    fund(poor, 500)
    session = open_session(poor, signed)
    r = bet(signed, session, amount=1_000)
    provider_refused(r, "RS_ERROR_NOT_ENOUGH_MONEY", INSUFFICIENT_FUNDS.code)
    assert balance(poor).amount == 500


def test_wins_above_the_max_win_per_round_are_credited_up_to_the_cap(player, signed, session, clock, settings):
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 10_000}
    assert bet(signed, session).status_code == 200
    first = win(signed, session, "w1", amount=6_000, closed=False)
    assert first.json()["credited"]["amount"] == 6_000 and first.json()["win_capped"] is False
    second = win(signed, session, "w2", amount=6_000, closed=True)
    assert second.status_code == 200 and second.json()["status"] == "RS_OK"
    assert second.json()["credited"]["amount"] == 4_000 and second.json()["win_capped"] is True
    rnd = Round.objects.get(provider_round_id="r1")
    assert (rnd.status, rnd.win, rnd.win_engine, rnd.win_capped) == (Round.Status.FINISHED, 10_000, 12_000, True)
    assert balance(player).amount == 100_000 - 1_000 + 10_000
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_a_win_on_a_settled_round_is_refused_and_a_round_end_after_it_answers_ok(signed, session, clock):
    assert bet(signed, session).status_code == 200
    assert win(signed, session, "w1", closed=True).status_code == 200
    provider_refused(win(signed, session, "w2", amount=100), "RS_ERROR_ROUND_CLOSED", REMOTE_ROUND_CLOSED.code)
    end = signed.call(
        "round-end", {"session": session, "round_id": "r1", "transaction_id": "e1", "round_detail": DETAIL}
    )
    assert end.status_code == 200 and end.json()["round_status"] == "finished"


def test_the_session_expires_after_its_hours_but_a_win_on_an_open_round_still_credits(signed, session, clock, player):
    assert bet(signed, session).status_code == 200
    for _ in range(13 * 3):  # the player keeps playing (each studio call is activity on the login) for 13 hours
        clock.shift(20 * 60)
        if signed.call("balance", {"session": session}).status_code != 200:
            break
    provider_refused(signed.call("balance", {"session": session}), "RS_ERROR_TOKEN_EXPIRED", SESSION_EXPIRED.code)
    assert win(signed, session).status_code == 200
    assert balance(player).amount == 101_500


def test_the_login_ends_after_idling_and_the_game_session_ends_with_it_but_a_win_on_an_open_round_still_credits(
    signed, session, clock, player
):
    assert bet(signed, session).status_code == 200
    clock.shift(13 * 3600)
    provider_refused(signed.call("balance", {"session": session}), "RS_ERROR_TOKEN_EXPIRED", LOGIN_ENDED.code)
    assert win(signed, session).status_code == 200
    assert balance(player).amount == 101_500


def test_the_remote_game_is_no_engine_game_and_the_catalogue_sync_leaves_it_alone(game):
    from games.services import games_sync

    report = games_sync()
    assert f"{game.code}@1" not in report["unregistered"]
    assert Game.objects.get(pk=game.pk).registered is True


def test_deadline_days_come_from_the_plan(signed, session, clock, game):
    assert bet(signed, session).status_code == 200
    rnd = Round.objects.get(provider_round_id="r1")
    assert rnd.deadline - rnd.started_at == timedelta(days=game.unfinished_deadline_days)


def _listed(slug: str = "wild", **changes):
    from decimal import Decimal

    from games.services import remote_game_upsert

    figures = {
        "name": f"Game {slug}",
        "kind": "slot",
        "rtp": Decimal("96.00"),
        "min_bet": 10,
        "max_bet": 100_000,
        "max_win": 5_000_000,
        "avg_hourly_loss": 100_000 * 4 * 1800 // 100,
        "unfinished_deadline_days": 90,
        **changes,
    }
    return remote_game_upsert(provider="sim", provider_game_id=slug, actor=Actor.system("tests"), **figures)


@pytest.mark.parametrize(
    "changes,field",
    [
        ({"rtp": __import__("decimal").Decimal("70.00")}, "rtp"),
        ({"rtp": __import__("decimal").Decimal("84.23")}, "rtp"),
        ({"max_bet": 100_010}, "max_bet"),
        ({"min_bet": 5}, "max_bet"),
    ],
)
def test_a_studio_game_outside_the_plans_figures_is_refused(provider, changes, field):
    from core.errors import DomainError

    with pytest.raises(DomainError) as refused_:
        _listed("odd", **changes)
    assert refused_.value.code == REMOTE_GAME_FIGURES.code and refused_.value.details["field"] == field
    assert not Game.objects.filter(code="sim_odd").exists()


def test_a_studio_game_at_the_plans_minimum_rtp_and_maximum_stake_is_listed(provider):
    from decimal import Decimal

    row = _listed("edge", rtp=Decimal("84.24"), max_bet=100_000)
    assert row.rtp == Decimal("84.24") and row.approval_state == "unapproved"


def test_a_change_of_a_declared_figure_withdraws_the_approval_and_the_same_figures_keep_it(
    game, player, signed, session, clock
):
    from decimal import Decimal

    assert Game.objects.get(pk=game.pk).approved
    assert _listed().approved  # the same figures again: still approved
    changed = _listed(rtp=Decimal("95.50"))
    assert changed.approval_state == "withdrawn"
    provider_refused(bet(signed, session), "RS_ERROR_INVALID_GAME", GAME_NOT_APPROVED.code)


def test_every_enabled_studio_is_a_declared_recipient_of_personal_data(provider, player):
    from accounts.privacy_contract import recipients

    studios = {r["code"]: r for r in recipients() if r["code"].startswith("studio:")}
    assert set(studios) == {"studio:sim"} and studios["studio:sim"]["records"] == ["providers.calls"]
    c = player_client(player)
    notice = c.get("/api/v1/accounts/privacy").json()
    assert "studio:sim" in {r["code"] for r in notice["recipients"]}
    Provider.objects.filter(code="sim").update(enabled=False)
    assert not [r for r in recipients() if r["code"].startswith("studio:")]


@pytest.mark.parametrize("round_id", ["", "r" * 101])
def test_a_round_id_out_of_its_length_is_refused_as_a_round_id_and_moves_nothing(player, game, round_id):
    """The seamless wallet's service checks the studio's round id itself (the API's serializer also does): an empty
    or over-long one is refused with the round id's own code, not as an invalid amount."""
    with pytest.raises(DomainError) as refused:
        remote_bet(
            player=player,
            game=game,
            round_id=round_id,
            transaction_id="t1",
            amount=Money(100),
            closed=True,
            actor=Actor.player(player),
        )
    assert refused.value.code == games_errors.REMOTE_INVALID_ROUND_ID.code
    assert rs_status(refused.value.code, 400) == "RS_ERROR_WRONG_SYNTAX"
    assert balance(player).amount == 100_000 and not Round.objects.filter(player=player).exists()
