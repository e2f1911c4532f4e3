"""GP §3(6): a settled bet declared void whose round was paid a jackpot award. The award was paid out of the
players' pool and the bet that won it is void, so the paid part goes back from the house (which took the win back
from the player) to the pool, recorded as a return (``award_paid_return``, through ``round_void(settled=True)``);
jackpot_check proves value = folded contributions + seeds - awards + returns. Real PostgreSQL, frozen clock."""

from __future__ import annotations

import io

from django.core.management import call_command

from core.models import AuditEvent
from games.models import Round
from games.services import round_refund, round_void_settled
from games.tests.platform.testgames import FixedRNG
from jackpots.models import MICRO, Award, Jackpot
from jackpots.services import award_paid_return, jackpots_fold_all, round_void
from jackpots.tests.helpers import STAFF, books, central_level, pool
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, balance, funded_player, start
from wallet.ledger import operator_balance
from wallet.models import Entry

LOSE = FixedRNG(0)  # roulette pocket 0 (red loses); every jackpot draw 0 (names the first draw level)


def _spin(c, clock, amount, game=ROULETTE, rng=LOSE):
    from core.rng import use_rng

    clock.shift(3)  # GP §7(9)
    with use_rng(rng):
        r = start(
            c, game=game, bet={"bets": [{"type": "red", "amount": amount}]} if game == ROULETTE else {"stake": amount}
        )
    assert r.status_code == 201, r.json()
    return r.json()


def _books_clean(code):
    jackpots_fold_all()
    b = books(code)
    assert b["ledger"] == b["ledger_expected"] == b["value_micro"] // MICRO
    assert b["value_micro"] == b["growth_micro"]  # folded contributions + seeds - awards + returns
    call_command("ledger_check", verbosity=0)
    call_command("jackpot_check", stdout=io.StringIO())
    call_command("limits_reconcile", stdout=io.StringIO())
    return b


def test_a_capped_award_gives_back_what_was_paid_and_the_award_is_returned_whole(clock, settings):
    """GP §8(3): the award was cut by the per-round cap and its excess went back at settlement; the void returns
    the part the player was paid, so the pool has the whole award back."""
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 10_000}
    central_level("central-bronze", rate_ppm=50_000, reset_value=12_000, win_from=12_000, win_to=12_000)
    player = funded_player(1_000_000)
    body = _spin(client_for(player), clock, 100, rng=FixedRNG(1))  # red wins 200 on 100, the level is crossed
    award = Award.objects.get(round_id=body["id"])
    assert (award.amount, award.paid, award.returned) == (12_000, 9_800, 2_200)
    before = _books_clean("central-bronze")["value_micro"]
    round_void_settled(round_id=body["id"], reason="placed by proxy", actor=STAFF)
    assert balance(player) == 1_000_000
    award.refresh_from_db()
    assert (award.status, award.paid, award.returned) == (Award.Status.REVERSED, 9_800, 12_000)
    after = _books_clean("central-bronze")
    assert after["value_micro"] == before + (9_800 - 5) * MICRO  # the paid part back, the void bet's 5 % out
    assert pool("central-bronze").returned == 2_200 + 9_800


def test_a_draw_levels_pot_stays_within_its_range_and_the_rest_of_the_return_waits_in_the_background(clock):
    """Seed 002 page 1: a draw level's pot stays within WINRANGE_TO; what the return lifts above it goes to the
    background pot, as at a fold. The pool's value still grows by the whole paid award."""
    central_level(
        "central-silver",
        trigger=Jackpot.Trigger.DRAW,
        draw_ppb=100_000_000,
        reset_value=1_000,
        win_from=1_000,
        win_to=1_000,
    )
    player = funded_player(1_000_000)
    body = _spin(client_for(player), clock, 1_000)  # 1 % = 10 haléře: 1,010 in the pot, the draw names the level
    award = Award.objects.get(round_id=body["id"])
    assert (award.amount, award.paid) == (1_000, 1_000)
    jackpots_fold_all()
    jp = pool("central-silver")
    assert (jp.amount_micro, jp.future_micro) == (1_000 * MICRO, 0)  # the next run's seed
    round_void_settled(round_id=body["id"], reason="placed by proxy", actor=STAFF)
    jp = pool("central-silver")
    assert (jp.amount_micro, jp.future_micro) == (1_000 * MICRO, 1_000 * MICRO)
    b = _books_clean("central-silver")
    assert b["value_micro"] == (1_000 + 1_000 - 10) * MICRO  # the void bet's own contribution reversed


def test_the_returned_award_is_there_for_the_next_player(clock):
    """The money is the other players': the pool, back above the new run's WIN_AT, is won by the next stake."""
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    proxy, other = funded_player(1_000_000), funded_player(1_000_000)
    body = _spin(client_for(proxy), clock, 1_000)
    round_void_settled(round_id=body["id"], reason="placed by proxy", actor=STAFF)
    nxt = _spin(client_for(other), clock, 100)
    [award] = Award.objects.filter(round_id=nxt["id"])
    # the new run's seed 1,000 + the returned 1,000 - the void bet's 50 + 5 % of 1.00: WINRANGE_TO is paid
    assert (award.player_id, award.amount, award.pool_value) == (other.pk, 1_000, 1_955)
    _books_clean("central-bronze")


def test_repeated_or_on_an_award_not_paid_it_changes_nothing(clock):
    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(1_000_000)
    c = client_for(player)
    paid = _spin(c, clock, 1_000)
    round_void_settled(round_id=paid["id"], reason="placed by proxy", actor=STAFF)
    award = Award.objects.get(round_id=paid["id"])
    state = (Entry.objects.count(), AuditEvent.objects.count(), pool("central-bronze").amount_micro)
    assert award_paid_return(award=award, actor=STAFF) == 0  # reversed already
    assert round_void(round_id=paid["id"], actor=STAFF, settled=True)["paid_returned_to_pools"] == 0
    assert (Entry.objects.count(), AuditEvent.objects.count(), pool("central-bronze").amount_micro) == state
    # an award decided but not paid yet (the round waits for the player) is not this service's: nothing moves,
    # and the round's own void sends it back from jackpot:awards as before
    waiting = _spin(c, clock, 1_000, game="test_pick", rng=FixedRNG(1, 1))
    assert Round.objects.get(pk=waiting["id"]).status == "in_progress"
    decided = Award.objects.get(round_id=waiting["id"])
    assert decided.status == Award.Status.DECIDED
    state = (Entry.objects.count(), AuditEvent.objects.count(), operator_balance("jackpot:awards").amount)
    assert award_paid_return(award=decided, actor=STAFF) == 0
    assert (Entry.objects.count(), AuditEvent.objects.count(), operator_balance("jackpot:awards").amount) == state
    decided.refresh_from_db()
    assert decided.status == Award.Status.DECIDED
    round_refund(round_id=waiting["id"], reason="stuck", actor=STAFF)
    decided.refresh_from_db()
    assert (decided.status, decided.returned, decided.paid) == (Award.Status.REVERSED, 1_000, 0)
    _books_clean("central-bronze")
