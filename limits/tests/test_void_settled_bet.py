"""GP §3(6): a decided bet declared void after it settled (placed on order or by proxy) is taken out of every
counter it went into (``settled_bet_voided``): the stakes per day/month by the instant it was placed (GP §6(6)a-b),
the net loss and the player's statistics by the instant it was decided (GP §6(7), §13(4)), the hourly-loss
buckets (GP §8(5)). A limit it used up allows again, exactly at its boundary; a second call changes nothing; the
counters still equal the ledger (limits_reconcile)."""

from __future__ import annotations

import io
from datetime import date, timedelta

import pytest
import time_machine
from django.core.management import call_command

from core.money import Money
from limits import errors
from limits.models import MinuteBucket, PeriodTotal, SettledBet
from limits.reconcile import reconcile
from limits.selectors import hourly_loss, self_limits
from tests.kit.limits import caller_lock, set_limits, settle, stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

SEC = timedelta(seconds=1)
T = prague(2025, 5, 5, 10)
DAY = date(2025, 5, 5)  # T's Prague day


def bet(player, amount, win, at, ref, *, seconds=2):
    """One bet named ``ref``: staked at ``at``, decided ``seconds`` later."""
    stake(player, amount, at, round_ref=ref)
    return settle(player, amount, win, at, at + timedelta(seconds=seconds), round_ref=ref)


def void(player, ref, at):
    from limits.services import settled_bet_voided

    with caller_lock(player):
        return settled_bet_voided(player=player, kind="technical", round_ref=ref, at=at)


def totals(player, period, start):
    """(stakes placed, bets placed, stakes decided, wins decided, bets decided) of one day or month."""
    row = PeriodTotal.objects.filter(player=player, kind="technical", period=period, start=start).first()
    if row is None:
        return (0, 0, 0, 0, 0)
    return (row.stakes_placed, row.bets_placed, row.stakes_decided, row.wins_decided, row.bets_decided)


def used(player, limit_type, at):
    return next(v.used for v in self_limits(player, "technical", at) if v.limit_type == limit_type)


def test_a_void_lost_bet_gives_back_the_daily_loss_it_used_exactly_to_the_limit(player):
    set_limits(player, T - timedelta(days=1), daily_loss=1_000)  # 10 Kč
    bet(player, "10", "0", T, "r:1")
    err = refusal_of(stake, player, "0.10", T + 10 * SEC)
    assert err.code == errors.DAILY_LOSS_EXCEEDED.code and err.details["used"] == czk(10)
    voided = void(player, "r:1", T + 20 * SEC)
    assert voided is not None and voided.voided and voided.voided_at == T + 20 * SEC
    assert totals(player, "day", DAY) == (0, 0, 0, 0, 0)
    assert used(player, "daily_loss", T + 30 * SEC) == 0
    # the other side of the boundary first: 10.10 Kč is still refused, and the refusal counts nothing
    err = refusal_of(stake, player, "10.10", T + 30 * SEC)
    assert err.code == errors.DAILY_LOSS_EXCEEDED.code and err.details["used"] == Money(0)
    stake(player, "10", T + 30 * SEC)  # exactly the limit again
    assert reconcile(player_ids=[player.pk], now=T + 40 * SEC) == []


def test_a_void_bet_gives_back_the_daily_stake_it_used_and_a_void_win_no_longer_leaves_room(player):
    """The void bet's stake leaves the stakes of the day; its win leaves the net loss, so the room the win gave
    goes too (the bet never happened)."""
    set_limits(player, T - timedelta(days=1), daily_stake=1_000, daily_loss=1_000)
    bet(player, "5", "20", T, "r:won")  # net loss -15 Kč: room for 25 Kč of loss
    bet(player, "4", "0", T + 10 * SEC, "r:lost")
    at = T + 20 * SEC
    assert (used(player, "daily_stake", at), used(player, "daily_loss", at)) == (900, -1_100)
    assert void(player, "r:won", at) is not None
    assert (used(player, "daily_stake", at), used(player, "daily_loss", at)) == (400, 400)  # exactly the other bet
    assert totals(player, "day", DAY) == (400, 1, 400, 0, 1)
    err = refusal_of(stake, player, "6.10", at + 10 * SEC)
    assert err.code == errors.DAILY_STAKE_EXCEEDED.code and err.details["used"] == czk(4)
    stake(player, "6", at + 10 * SEC)  # 4 + 6 = the 10 Kč daily stake limit exactly
    assert reconcile(player_ids=[player.pk], now=at + 20 * SEC) == []


def test_the_stake_leaves_the_day_it_was_placed_in_and_the_result_the_day_it_was_decided_in(player, other_player):
    """Placed on 31 May 23:59:59, decided on 1 June: each figure leaves the Prague day and month it was counted in;
    the player's other bets and other players stay as they were."""
    placed, decided = prague(2025, 5, 31, 23, 59, 59), prague(2025, 6, 1, 0, 0, 2)
    bet(player, "2", "1", prague(2025, 5, 31, 12), "r:may")  # stays
    stake(player, "5", placed, round_ref="r:night")
    settle(player, "5", "25", placed, decided, round_ref="r:night")
    bet(player, "3", "0", prague(2025, 6, 1, 9), "r:june")  # stays
    bet(other_player, "5", "0", placed - 10 * SEC, "r:night")  # the same reference, another player: stays
    may, june = date(2025, 5, 31), date(2025, 6, 1)  # Prague days
    assert totals(player, "day", may) == (700, 2, 200, 100, 1)
    assert totals(player, "day", june) == (300, 1, 800, 2_500, 2)
    void(player, "r:night", prague(2025, 6, 2, 10))
    assert totals(player, "day", may) == (200, 1, 200, 100, 1)
    assert totals(player, "day", june) == (300, 1, 300, 0, 1)
    assert totals(player, "month", may.replace(day=1)) == (200, 1, 200, 100, 1)
    assert totals(player, "month", june) == (300, 1, 300, 0, 1)
    assert totals(other_player, "day", may) == (500, 1, 500, 0, 1)
    assert reconcile(now=prague(2025, 6, 2, 10)) == []


def test_the_statistics_endpoint_no_longer_shows_the_void_bet(player):
    """GP §13(4): the player's own statistics come from the same counters."""
    from rest_framework.test import APIClient

    from tests.kit.accounts import token_for

    bet(player, "10", "4", T, "r:1")
    bet(player, "2", "0", T + 10 * SEC, "r:2")

    def figures(entry):  # (logged-in seconds, bets, stakes, wins, net loss)
        return (
            entry["logged_in_seconds"],
            entry["bets"],
            entry["stakes"]["amount"],
            entry["wins"]["amount"],
            entry["net_loss"]["amount"],
        )

    def day():
        c = APIClient()
        c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
        with time_machine.travel(T + timedelta(hours=1), tick=False):
            r = c.get("/api/v1/limits/statistics?from=2025-05-05&to=2025-05-05")
        assert r.status_code == 200
        body = r.json()
        return figures(body["days"][0]), figures(body["months"][0])

    assert day() == ((0, 2, 1_200, 400, 800), (0, 2, 1_200, 400, 800))
    void(player, "r:1", T + 20 * SEC)
    assert day() == ((0, 1, 200, 0, 200), (0, 1, 200, 0, 200))


def test_a_second_call_an_unknown_reference_and_a_returned_stake_change_nothing(player):
    from limits.services import stake_voided

    bet(player, "10", "4", T, "r:1")
    stake(player, "3", T + 10 * SEC, round_ref="r:open")
    with caller_lock(player):  # a stake returned before its bet was decided is no decided bet to void
        stake_voided(player=player, kind="technical", at=T + 15 * SEC, round_ref="r:open")
    assert void(player, "r:1", T + 20 * SEC) is not None
    before = (
        list(PeriodTotal.objects.filter(player=player).values().order_by("id")),
        list(MinuteBucket.objects.filter(player=player).values().order_by("id")),
        list(SettledBet.objects.filter(player=player).values().order_by("id")),
    )
    assert void(player, "r:1", T + 30 * SEC) is None  # again
    assert void(player, "r:open", T + 30 * SEC) is None
    assert void(player, "r:unknown", T + 30 * SEC) is None
    after = (
        list(PeriodTotal.objects.filter(player=player).values().order_by("id")),
        list(MinuteBucket.objects.filter(player=player).values().order_by("id")),
        list(SettledBet.objects.filter(player=player).values().order_by("id")),
    )
    assert after == before
    assert SettledBet.objects.get(round_ref="r:1").voided_at == T + 20 * SEC  # the first void's instant stays
    with pytest.raises(ValueError):
        void(player, "", T + 30 * SEC)
    assert reconcile(player_ids=[player.pk], now=T + 40 * SEC) == []


NOW = prague(2025, 5, 5, 12)


def test_the_hourly_loss_frees_what_the_void_bet_used(player):
    """GP §8(5): the buckets the bet went into lose its stake and win; the hourly loss read after the void is the
    loss of the other bets (the buckets' peaks are re-read from the ledger)."""
    t0 = NOW - timedelta(minutes=30)
    bet(player, "50", "0", t0, "r:lost")  # 50 Kč lost in minute t0
    bet(player, "10", "4", t0 + 20 * SEC, "r:won", seconds=70)  # staked in minute t0, 4 Kč won the next minute
    bet(player, "7", "0", t0 + 3 * timedelta(minutes=1), "r:later")
    assert hourly_loss(player, "technical", NOW).used == 5_000 + 1_000 - 400 + 700
    void(player, "r:lost", NOW)
    assert hourly_loss(player, "technical", NOW).used == 1_000 - 400 + 700
    void(player, "r:won", NOW)
    assert hourly_loss(player, "technical", NOW).used == 700
    first = MinuteBucket.objects.get(player=player, minute=t0)
    second = MinuteBucket.objects.get(player=player, minute=t0 + timedelta(minutes=1))
    assert (first.stakes, first.wins, first.peak) == (0, 0, 0)
    assert (second.stakes, second.wins, second.peak) == (0, 0, 0)
    assert reconcile(player_ids=[player.pk], now=NOW) == []
    with time_machine.travel(NOW, tick=False):
        call_command("limits_reconcile", "--player", str(player.pk), stdout=io.StringIO())


def test_a_void_win_no_longer_hides_the_loss_before_it_in_its_minute(player):
    """Two bets in one minute, the later one a big win, then void: the loss of the first bet is read again (the
    bucket's peak rises to it, never below the real figure)."""
    t0 = NOW - timedelta(minutes=5)
    bet(player, "20", "0", t0, "r:first")
    bet(player, "30", "100", t0 + 10 * SEC, "r:second")  # won 100 Kč: every window holding it is in profit
    assert hourly_loss(player, "technical", NOW).used == 0
    void(player, "r:second", NOW)
    bucket = MinuteBucket.objects.get(player=player, minute=t0)
    assert (bucket.stakes, bucket.wins, bucket.peak) == (2_000, 0, 2_000)
    assert hourly_loss(player, "technical", NOW).used == 2_000
    assert reconcile(player_ids=[player.pk], now=NOW) == []


def test_the_hourly_cap_it_used_up_allows_exactly_the_cap_again(player, settings):
    """GP §8(5), ZHH §53 at its boundary: a cap of 10 Kč used up by the void bet allows 10 Kč, not 10.10 Kč."""
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": 1_000}
    t0 = NOW - timedelta(minutes=10)
    bet(player, "10", "0", t0, "r:1")
    err = refusal_of(stake, player, "0.10", NOW)
    assert err.code == errors.HOURLY_LOSS_EXCEEDED.code and err.details["used"] == czk(10)
    void(player, "r:1", NOW)
    err = refusal_of(stake, player, "10.10", NOW)
    assert err.code == errors.HOURLY_LOSS_EXCEEDED.code and err.details["used"] == Money(0)
    stake(player, "10", NOW)
    assert reconcile(player_ids=[player.pk], now=NOW) == []


def test_a_bucket_already_pruned_stays_gone(player):
    from limits.services import minute_buckets_prune

    t0 = prague(2025, 5, 5, 8)
    bet(player, "10", "4", t0, "r:old")
    later = t0 + timedelta(hours=3)
    with time_machine.travel(later, tick=False):
        minute_buckets_prune()
    assert not MinuteBucket.objects.filter(player=player).exists()
    void(player, "r:old", later)
    assert not MinuteBucket.objects.filter(player=player).exists()  # none created with negative figures
    assert totals(player, "day", DAY) == (0, 0, 0, 0, 0)
    assert reconcile(player_ids=[player.pk], now=later) == []


def test_counters_equal_the_ledger_after_a_mixed_history_with_voids_across_the_dst_night(player, other_player):
    """Random bets (some won, some spanning two minutes), returned stakes and settled bets declared void in any
    order, across the autumn DST night and a month end: limits_reconcile finds no difference, buckets included."""
    import random

    from limits.services import stake_voided

    start = prague(2025, 10, 25, 22, 30)
    for who, seed in ((player, 3), (other_player, 5)):
        rng = random.Random(seed)
        at, settled = start, []
        for i in range(90):
            at += timedelta(minutes=rng.choice([1, 1, 2, 3, 16, 90, 1440]))
            ref = f"r:{i}"
            amount = czk(f"{rng.randint(1, 40)}.{rng.choice([0, 5])}0")
            try:
                stake(who, amount, at, round_ref=ref)
            except Exception:  # noqa: BLE001 - a break or the hourly cap: a refusal counts nothing
                continue
            if i % 13 == 0:
                with caller_lock(who):
                    stake_voided(player=who, kind="technical", at=at + 5 * SEC, round_ref=ref)
                continue
            settle(
                who,
                amount,
                czk(rng.choice(["0", "0", "2.50", "30"])),
                at,
                at + timedelta(seconds=rng.choice([2, 3, 70])),
                round_ref=ref,
            )
            settled.append(ref)
            if rng.random() < 0.3:  # declare a random earlier bet void, now
                victim = settled.pop(rng.randrange(len(settled)))
                assert void(who, victim, at + timedelta(seconds=75)) is not None
        end = at + timedelta(minutes=2)
        assert reconcile(player_ids=[who.pk], now=end) == []
    assert SettledBet.objects.filter(voided=True, voided_at__isnull=False).count() > 10
    assert reconcile(now=end) == []
