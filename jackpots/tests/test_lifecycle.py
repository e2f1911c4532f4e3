"""A level's lifecycle and the configuration rules at their boundaries; malfunction voids; replayed events."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from core.audit import Actor
from core.errors import DomainError
from core.rng import use_rng
from games.tests.platform.testgames import FixedRNG
from jackpots.errors import INVALID_CONFIG, NOT_DRAFT
from jackpots.models import MICRO, Award, Jackpot
from jackpots.services import (
    jackpot_configure,
    jackpot_create,
    jackpot_set_status,
    jackpot_start,
    jackpots_fold_all,
    round_events,
)
from jackpots.tests.helpers import STAFF, TEST_APPROVAL, central_level, contributions, pool
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, start


def _draft(**cfg) -> Jackpot:
    fields = dict(
        code="central-x",
        name="X",
        name_cs="X",
        family=Jackpot.Family.CENTRAL,
        level="bronze",
        pay_order=1,
        basis=Jackpot.Basis.STAKE,
        rate_ppm=10_000,
        trigger=Jackpot.Trigger.MUST_HIT,
        reseed=Jackpot.Reseed.FROM_BACKGROUND,
        reset_value=100,
        win_from=200,
        win_to=300,
        **TEST_APPROVAL,
    )
    fields.update(cfg)
    return jackpot_create(jackpot=Jackpot(**fields), actor=STAFF)


@pytest.mark.parametrize(
    ("basis", "rate", "ok"),
    [
        ("stake", 999, False),
        ("stake", 1_000, True),
        ("stake", 50_000, True),
        ("stake", 50_001, False),
        ("net_revenue", 9_999, False),
        ("net_revenue", 10_000, True),
        ("net_revenue", 400_000, True),
    ],
)
def test_contribution_rates_are_within_their_basis_range(basis, rate, ok):
    """Seed 002: 0.1-5 % of stakes (page 1), 1-40 % of net revenue (page 3)."""
    jp = _draft(basis=basis, rate_ppm=rate)
    if ok:
        assert jackpot_start(jackpot=jp, actor=STAFF).status == Jackpot.Status.RUNNING
    else:
        with pytest.raises(DomainError) as exc:
            jackpot_start(jackpot=jp, actor=STAFF)
        assert exc.value.code == INVALID_CONFIG.code and pool("central-x").status == Jackpot.Status.DRAFT


@pytest.mark.parametrize(
    ("reset", "low", "high", "ok"),
    [
        (100, 100, 100, True),
        (101, 100, 200, False),
        (100, 201, 200, False),
        (0, 0, 0, False),
    ],
)
def test_reset_value_win_range_order_is_enforced(reset, low, high, ok):
    """Seed 002 page 3: RESET_VALUE <= WINRANGE_FROM <= WINRANGE_TO."""
    jp = _draft(reset_value=reset, win_from=low, win_to=high)
    if ok:
        jackpot_start(jackpot=jp, actor=STAFF)
    else:
        with pytest.raises(DomainError):
            jackpot_start(jackpot=jp, actor=STAFF)


def test_draw_chances_of_the_levels_must_leave_room_for_no_win():
    central_level(
        "central-a", trigger=Jackpot.Trigger.DRAW, draw_ppb=600_000_000, win_from=100, win_to=200, reset_value=100
    )
    with pytest.raises(DomainError) as exc:
        central_level(
            "central-b", trigger=Jackpot.Trigger.DRAW, draw_ppb=400_000_000, win_from=100, win_to=200, reset_value=100
        )
    assert "draw chances" in str(exc.value.details.get("reason")) and pool("central-b").status == Jackpot.Status.DRAFT
    central_level(
        "central-c", trigger=Jackpot.Trigger.DRAW, draw_ppb=399_999_999, win_from=100, win_to=200, reset_value=100
    )


def test_a_running_level_is_frozen_and_its_start_is_audited():
    from core.models import AuditEvent

    jp = _draft()
    jackpot_configure(jackpot_id=jp.pk, changes={"rate_ppm": 20_000}, actor=STAFF)
    jp = jackpot_start(jackpot=pool("central-x"), actor=STAFF)
    started = AuditEvent.objects.get(action="jackpots.started", object_id=str(jp.pk))
    assert started.new_values is not None and started.details is not None
    assert started.new_values["rate_ppm"] == 20_000 and started.details["commitment"] == jp.win_at_commitment
    with pytest.raises(DomainError) as exc:
        jackpot_configure(jackpot_id=jp.pk, changes={"rate_ppm": 30_000}, actor=STAFF)
    assert exc.value.code == NOT_DRAFT.code and pool("central-x").rate_ppm == 20_000
    with pytest.raises(DomainError):
        jackpot_start(jackpot=jp, actor=STAFF)
    with pytest.raises(DomainError):
        jackpot_configure(jackpot_id=jp.pk, changes={"status": "draft"}, actor=STAFF)


def test_a_suspended_level_takes_no_contributions_and_resumes(clock):
    jp = central_level("central-bronze", rate_ppm=10_000, reset_value=1_000, win_from=50_000, win_to=60_000)
    jackpot_set_status(jackpot=jp, status=Jackpot.Status.SUSPENDED, actor=STAFF)
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        clock.shift(3)
        start(c, bet={"bets": [{"type": "red", "amount": 100}]})
        assert not contributions()
        jackpot_set_status(jackpot=jp, status=Jackpot.Status.RUNNING, actor=STAFF)
        clock.shift(3)
        start(c, bet={"bets": [{"type": "red", "amount": 100}]})
    assert len(contributions()) == 1
    with pytest.raises(DomainError):
        jackpot_set_status(jackpot=jp, status=Jackpot.Status.DRAFT, actor=STAFF)


def test_a_round_voided_for_malfunction_reverses_its_contributions_and_its_award(clock):
    """GP §7(8) and seed 000: "in case of malfunction all pays and plays are voided"."""
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(100_000)
    c = client_for(player)
    clock.shift(3)
    body = start(c, game="test_pick", bet={"stake": 1_000, "boom": "act"}).json()
    assert body["status"] == "in_progress" and Award.objects.get().status == Award.Status.DECIDED
    voided = act(c, body["id"], {"pick": 0}).json()  # the engine fails: a malfunction
    assert voided["status"] == "voided" and voided["void_reason"] == "malfunction"
    award = Award.objects.get()
    assert award.status == Award.Status.REVERSED and award.paid == 0 and award.returned == award.amount
    assert balance(player) == 100_000
    assert sum(r.active_micro + r.future_micro for r in contributions(round_id=body["id"])) == 0
    jackpots_fold_all()
    jp = pool("central-bronze")
    # the new run's RESET_VALUE + the award that came back - this round's reversed 50
    assert jp.amount_micro == (1_000 + 1_000 - 50) * MICRO
    call_command("ledger_check")
    call_command("jackpot_check")


def test_the_same_engine_event_wins_once_however_often_the_hook_runs(clock):
    """The engine returns its whole event list after every action; event n of a round is decided once."""
    player = funded_player(0)
    event = {"type": "kobushi_progressive", "level": "sushi"}
    bet = {"coins": 5, "lines": 30, "coin_value": 5}
    first = round_events(
        player=player,
        round_id=987654,
        game_code="kobushi",
        bet_params=bet,
        engine_events=[event],
        actor=Actor.player(player),
    )
    again = round_events(
        player=player,
        round_id=987654,
        game_code="kobushi",
        bet_params=bet,
        engine_events=[event],
        actor=Actor.player(player),
    )
    assert len(first) == 1 and again == []
    assert Award.objects.filter(round_id=987654).count() == 1
    # a bet below max coins or lines never wins, even with an event
    assert (
        round_events(
            player=player,
            round_id=987655,
            game_code="kobushi",
            bet_params={**bet, "coins": 4},
            engine_events=[event],
            actor=Actor.player(player),
        )
        == []
    )


def test_a_level_for_a_group_of_games_takes_only_their_stakes(clock):
    """Scope: a level covers every game (network) or a group of games."""
    central_level(
        "central-group", games=["test_pick"], rate_ppm=10_000, reset_value=1_000, win_from=50_000, win_to=60_000
    )
    player = funded_player(100_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        clock.shift(3)
        start(c, bet={"bets": [{"type": "red", "amount": 100}]})  # roulette: not in the group
        assert not contributions()
        clock.shift(3)
        start(c, game="test_pick", bet={"stake": 100})
    [row] = contributions()
    assert row.active_micro == 100 * 10_000
