"""Central levels (seed 002: BRONZE/SILVER/GOLD) through the round API: must-hit, draw, the per-round cap and its
excess, simultaneous wins in order, net revenue, voids, the switch. Real PostgreSQL, frozen clock."""

from __future__ import annotations

from django.core.management import call_command
from django.db.models import F as models_F

from core.money import Money
from core.rng import SeededRNG, use_rng
from games.models import Round
from games.services import round_refund
from games.tests.platform.testgames import FixedRNG
from jackpots.levels import unseal
from jackpots.models import MICRO, Award, Jackpot, Pending
from jackpots.services import jackpots_fold_all
from jackpots.tests.helpers import STAFF, books, central_level, contributions, pool
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, act, balance, funded_player, start

LOSE_1000 = {"bets": [{"type": "red", "amount": 1000}]}  # FixedRNG(0): pocket 0, red loses


def _spin(c, clock, bet=LOSE_1000, game=ROULETTE):
    clock.shift(3)
    r = start(c, game=game, bet=bet)
    assert r.status_code == 201, r.json()
    return r.json()


def _awards(body):
    return [e for e in body["jackpot_events"] if e["type"] == "jackpot_award"]


def _books_hold(code):
    jackpots_fold_all()
    b = books(code)
    assert b["ledger"] == b["ledger_expected"] == b["value_micro"] // MICRO
    assert b["log_folded_micro"] == b["contributed_micro"]
    assert b["value_micro"] == b["growth_micro"]  # contributions + seeds - awards + returns, to the micro-haléř
    return b


def test_a_must_hit_level_is_won_by_the_stake_that_reaches_win_at_and_starts_a_new_run(clock):
    jp = central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=2_000, win_to=2_500)
    win_at = unseal(jp.win_at_sealed, code=jp.code, generation=0, nonce=jp.win_at_nonce)
    player = funded_player(1_000_000)
    c = client_for(player)
    value, n = 1_000, 0  # each losing 10 CZK stake adds 0.50 CZK (5 %)
    with use_rng(FixedRNG(0)):
        while value + 50 < win_at:
            assert not _awards(_spin(c, clock))
            value += 50
            n += 1
        before = balance(player)
        body = _spin(c, clock)
    [award] = _awards(body)
    assert award["amount"] == value + 50 >= win_at  # the pot when this stake reached WIN_AT
    assert body["jackpot_win"] == Money(award["amount"]).to_json()
    assert balance(player) == before - 1000 + award["amount"]
    a = Award.objects.get()
    assert a.win_at == win_at and a.generation == 0 and a.status == Award.Status.PAID
    jp = pool("central-bronze")
    assert jp.generation == 1 and jp.win_at_commitment != a.win_at_commitment
    # the next run starts at RESET_VALUE (from the background pot, the house adds what is missing)
    assert jp.amount_micro // MICRO == 1_000
    _books_hold("central-bronze")
    call_command("ledger_check")
    call_command("jackpot_check")


def test_the_per_round_cap_applies_to_game_win_plus_jackpot_and_the_excess_stays_in_the_pool(clock, settings):
    """GP §8(3) and seed 002 page 5: jackpot plus the win of that round within the cap; the excess stays."""
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 10_000}
    central_level("central-bronze", rate_ppm=50_000, reset_value=12_000, win_from=12_000, win_to=12_000)
    player = funded_player(1_000_000)
    c = client_for(player)
    with use_rng(FixedRNG(1)):  # pocket 1: red wins 200 haléře on a 100 stake
        body = _spin(c, clock, bet={"bets": [{"type": "red", "amount": 100}]})
    [award] = _awards(body)
    assert award["amount"] == 12_000 and award["paid"] == 9_800 and award["returned_to_pool"] == 2_200
    assert body["win_capped"] is True
    rnd = Round.objects.get(pk=body["id"])
    assert (rnd.win, rnd.win_engine, rnd.jackpot_win) == (10_000, 200, 9_800)
    assert balance(player) == 1_000_000 - 100 + 10_000
    jp = pool("central-bronze")
    # the next run starts at RESET_VALUE and the capped excess stays in it
    assert jp.amount_micro // MICRO == 12_000 + 2_200 and jp.returned == 2_200
    # the limits counters see the whole win (GP §6(7) net loss, §8(5) hourly loss)
    from limits.models import PeriodTotal

    day = PeriodTotal.objects.get(player=player, period="day")
    assert (day.stakes_decided, day.wins_decided) == (100, 10_000)
    _books_hold("central-bronze")
    call_command("ledger_check")
    call_command("jackpot_check")


def test_simultaneous_wins_are_paid_bronze_then_silver_then_gold_within_the_cap(clock, settings):
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 5_000}
    for order, code in enumerate(("central-gold", "central-silver", "central-bronze")):
        central_level(code, pay_order=3 - order, rate_ppm=10_000, reset_value=2_000, win_from=2_000, win_to=2_000)
    player = funded_player(1_000_000)
    with use_rng(FixedRNG(0)):
        body = _spin(client_for(player), clock, bet={"bets": [{"type": "red", "amount": 100}]})
    paid = [(a["jackpot"], a["amount"], a["paid"]) for a in _awards(body)]
    assert [p[0] for p in paid] == ["central-bronze", "central-silver", "central-gold"]
    assert paid == [("central-bronze", 2_000, 2_000), ("central-silver", 2_000, 2_000), ("central-gold", 2_000, 1_000)]
    # each pot was 2,001 (seed 2,000 + 1 % of 100): WINRANGE_TO 2,000 is paid and the haléř left over is part of
    # the next run's RESET_VALUE; gold's capped 1,000 stays in its pot
    assert pool("central-gold").amount_micro // MICRO == 2_000 + 1_000
    for code in ("central-bronze", "central-silver", "central-gold"):
        _books_hold(code)
    call_command("ledger_check")
    call_command("jackpot_check")


def test_a_draw_level_gives_every_stake_the_same_chance_whatever_its_size(clock):
    """Seed 002 page 1: drawn after every START, equal chance regardless of the bet."""
    central_level(
        "central-silver",
        trigger=Jackpot.Trigger.DRAW,
        draw_ppb=100_000_000,
        reset_value=500,
        win_from=500,
        win_to=100_000,
    )
    small, big = funded_player(1_000_000), funded_player(1_000_000)
    outcomes = {}
    for player, amount in ((small, 100), (big, 10_000)):
        with use_rng(SeededRNG(7)):
            seq = [
                bool(_awards(_spin(client_for(player), clock, bet={"bets": [{"type": "red", "amount": amount}]})))
                for _ in range(30)
            ]
        outcomes[amount] = seq
        jp = pool("central-silver")
        Award.objects.filter(jackpot=jp).delete()
    assert outcomes[100] == outcomes[10_000] and any(outcomes[100])
    draws = Round.objects.filter(player=small).values_list("jackpot_events", flat=True)
    assert all(any(e["type"] == "jackpot_draw" for e in evs) for evs in draws)


def test_a_net_revenue_level_shrinks_on_a_players_win_from_the_future_pot_first(clock):
    """Seed 002 page 3: (stakes - wins) x rate, can decrease; a decrease comes out of the future pot first."""
    central_level(
        "central-gold",
        basis=Jackpot.Basis.NET_REVENUE,
        rate_ppm=100_000,
        split=Jackpot.Split.CURVE,
        reseed=Jackpot.Reseed.WHOLE_FUTURE,
        reset_value=10_000,
        win_from=50_000,
        win_to=60_000,
    )
    player = funded_player(1_000_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        _spin(c, clock)  # loses 1,000: +100 haléře, half to the empty future pot (the curve starts at 50 %)
    [first] = contributions()
    assert (first.basis_amount, first.active_micro, first.future_micro) == (1_000, 50 * MICRO, 50 * MICRO)
    jackpots_fold_all()
    with use_rng(FixedRNG(1)):
        _spin(c, clock)  # wins 2,000 on 1,000: revenue -1,000, -100 haléře: the future pot's 50 first
    [second] = Pending.objects.all()  # the first was folded above
    assert (second.basis_amount, second.future_micro, second.active_micro) == (-1_000, -50 * MICRO, -50 * MICRO)
    b = _books_hold("central-gold")
    assert b["value_micro"] == 0


def test_a_voided_round_reverses_its_contributions_and_its_decided_award(clock):
    """Seed 000: in case of malfunction all pays and plays are voided."""
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(1_000_000)
    c = client_for(player)
    body = _spin(c, clock, game="test_pick", bet={"stake": 1_000})  # waits for a pick; crosses WIN_AT at once
    assert body["status"] == "in_progress"
    award = Award.objects.get()
    assert award.status == Award.Status.DECIDED and award.amount == 1_000  # WINRANGE_TO; 50 stays in the pot
    round_refund(round_id=body["id"], reason="stuck", actor=STAFF)
    award.refresh_from_db()
    assert award.status == Award.Status.REVERSED and award.returned == 1_000 and award.paid == 0
    assert balance(player) == 1_000_000
    rows = contributions(round_id=body["id"])
    assert sorted(r.active_micro for r in rows) == [-50 * MICRO, 50 * MICRO]
    b = _books_hold("central-bronze")
    # the run was won (and is over), its money is back: the new run holds its seed plus the returned award
    assert b["value_micro"] == (1_000 + 1_000 - 50) * MICRO
    call_command("ledger_check")
    call_command("jackpot_check")


def test_an_award_decided_in_an_interactive_round_is_paid_when_it_settles_and_replays_pay_nothing(clock):
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(1_000_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        body = _spin(c, clock, game="test_pick", bet={"stake": 1_000})
        r1 = act(c, body["id"], {"pick": 0}, idem="pick-1")
        act(c, body["id"], {"pick": 0}, idem="pick-1")  # a replay
        r2 = act(c, body["id"], {"pick": 1}, idem="pick-2")
        act(c, body["id"], {"pick": 1}, idem="pick-2")
    assert r1.status_code == 200 and r2.json()["status"] == "finished", r2.json()
    rnd = Round.objects.get(pk=body["id"])
    assert rnd.jackpot_win == 1_000 and rnd.win == rnd.win_engine + 1_000
    assert Award.objects.get().status == Award.Status.PAID
    assert balance(player) == 1_000_000 - 1_000 + rnd.win
    call_command("ledger_check")
    call_command("jackpot_check")


def test_with_jackpots_switched_off_nothing_is_contributed_or_won(clock, settings):
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    settings.JACKPOTS_ENABLED = False
    player = funded_player(1_000_000)
    with use_rng(FixedRNG(0)):
        body = _spin(client_for(player), clock)
    assert body["jackpot_events"] == [] and not contributions() and not Award.objects.exists()
    cat = client_for(player).get("/api/v1/games/catalogue").json()
    games = cat["results"] if isinstance(cat, dict) and "results" in cat else cat
    kob = [g for g in games if g["code"] == "kobushi"]
    assert kob and kob[0]["declared"]["rtp_with_jackpots"] is None and kob[0]["declared"]["rtp"] == "96.89"


def test_jackpot_check_finds_a_pool_whose_books_were_tampered_with(clock):
    import pytest
    from django.core.management.base import CommandError

    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=5_000, win_to=6_000)
    with use_rng(FixedRNG(0)):
        _spin(client_for(funded_player(100_000)), clock)
    jackpots_fold_all()
    call_command("jackpot_check")
    Jackpot.objects.filter(code="central-bronze").update(amount_micro=models_F("amount_micro") + 1)
    with pytest.raises(CommandError, match="central-bronze: value"):
        call_command("jackpot_check")
