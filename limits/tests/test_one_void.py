"""``stake_voided`` (an open bet's stake returned: GP §7(8)b deadline, a malfunction, a provider's rollback) takes
the (player, kind) state lock through the gate's one locking read (limits/sql.py GATE_STATE, which brings the open
bets) and writes everything in ONE statement (BET_VOID): the open bet deleted, its stake and count out of
the day and month totals of its ``placed_at``, its stake out of its minute bucket by the rule of a stake taken back
(``counters.bucket_row``: the totals lower, the peak stays), the voided settled bet, the state row's
``last_round_ended_at`` / ``last_bucket_minute``. ``settled_bet_voided`` (a decided bet declared void, GP §3(6))
takes the same lock, reads the bet and writes in ONE statement too (SETTLED_VOID). The counters still equal the
ledger (``limits_reconcile``); the figures of each void are pinned by test_open_round.py and
test_void_settled_bet.py."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sql import readable
from limits.models import MinuteBucket, OpenBet, PeriodTotal, PlayerKindState, SettledBet
from limits.reconcile import reconcile
from limits.rules import minute_of
from limits.services import settled_bet_voided, stake_voided
from limits.sql import GATE_STATE
from limits.sql_voids import BET_VOID, SETTLED_VOID
from tests.kit.limits import caller_lock, settle, stake
from tests.kit.money import prague

T = prague(2026, 5, 14, 15, 0, 10)
SEC, MIN = timedelta(seconds=1), timedelta(minutes=1)
TX = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")


def _voided(player, at, *, kind="technical", round_ref=""):
    with CaptureQueriesContext(connection) as ctx:
        with caller_lock(player):
            bet = stake_voided(player=player, kind=kind, at=at, round_ref=round_ref, reason="deadline")
    return bet, [readable(q["sql"]) for q in ctx.captured_queries if not q["sql"].startswith(TX)]


@pytest.mark.django_db
def test_a_void_is_the_gate_read_and_one_statement(player):
    """Two statements after the caller's wallet lock (it was seven: the ORM lock, the open bets, the totals, the
    bucket, the delete, the state row, the settled bet)."""
    stake(player, "5", T, round_ref="r-1")
    bet, sql = _voided(player, T + 40 * SEC, round_ref="r-1")
    assert len(sql) == 3, "\n".join(sql)  # the wallet lock, GATE_STATE, BET_VOID
    assert sql[1].startswith(GATE_STATE.sql.split("%(")[0]), sql[1]
    assert sql[2].startswith(BET_VOID.sql.split("%(")[0]), sql[2]
    assert bet is not None and bet.pk is not None
    assert not bet.get_deferred_fields()  # every field of the record is known, as after an ORM create
    assert bet == SettledBet.objects.get(player=player)


@pytest.mark.django_db
def test_no_open_bet_is_the_gate_read_alone_and_changes_nothing(player):
    stake(player, "5", T, round_ref="r-1")
    settle(player, "5", "0", T, T + SEC, round_ref="r-1")
    before = list(PeriodTotal.objects.filter(player=player).values()), list(MinuteBucket.objects.values())
    bet, sql = _voided(player, T + 40 * SEC, round_ref="r-1")
    assert bet is None and len(sql) == 2, "\n".join(sql)  # the wallet lock, GATE_STATE
    assert (list(PeriodTotal.objects.filter(player=player).values()), list(MinuteBucket.objects.values())) == before


@pytest.mark.django_db
def test_the_stake_leaves_the_placement_counters_and_the_bucket_keeps_its_peak(player):
    stake(player, "3", T, round_ref="r-0")
    settle(player, "3", "1", T, T + SEC, round_ref="r-0")  # bucket of T: stakes 300, wins 100, peak 200
    stake(player, "5", T + 2 * SEC, round_ref="r-1")  # bucket of T: stakes 800, peak 700
    bet, _ = _voided(player, T + 3 * MIN, round_ref="r-1")
    assert (
        bet.stake,
        bet.win,
        bet.placed_at,
        bet.started_at,
        bet.settled_at,
        bet.voided,
        bet.voided_at,
        bet.round_ref,
        bet.game_code,
    ) == (500, 0, T + 2 * SEC, T + 2 * SEC, T + 3 * MIN, True, T + 3 * MIN, "r-1", "test_slot")
    day = PeriodTotal.objects.get(player=player, kind="technical", period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.bets_decided) == (300, 1, 300, 1)
    b = MinuteBucket.objects.get(player=player, minute=minute_of(T))
    assert (b.stakes, b.wins, b.peak) == (300, 100, 700)  # a stake taken back: the peak is not lowered
    state = PlayerKindState.objects.get(player=player, kind="technical")
    assert state.last_round_ended_at == T + 2 * SEC  # the round ended at its stake at the latest
    assert state.last_bucket_minute == minute_of(T)
    assert not OpenBet.objects.filter(player=player).exists()
    assert reconcile(player_ids=[player.pk], now=T + 4 * MIN) == []


@pytest.mark.django_db
@pytest.mark.parametrize("round_ref", ["", "another"])
def test_the_only_open_bet_of_a_one_round_kind_is_voided_under_any_round_ref(player, round_ref):
    stake(player, "5", T, round_ref="r-1")
    bet, sql = _voided(player, T + 10 * SEC, round_ref=round_ref)
    assert bet is not None and bet.round_ref == "r-1" and len(sql) == 3
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []


@pytest.mark.django_db
def test_a_kind_with_several_open_bets_voids_only_the_one_named(player):
    stake(player, "5", T, kind="odds", game_max=None, round_ref="a")
    stake(player, "3", T + SEC, kind="odds", game_max=None, round_ref="b")
    assert _voided(player, T + 5 * SEC, kind="odds", round_ref="c")[0] is None  # none of that name
    bet, sql = _voided(player, T + 5 * SEC, kind="odds", round_ref="b")
    assert (bet.round_ref, bet.stake) == ("b", 300) and len(sql) == 3
    assert list(OpenBet.objects.filter(player=player).values_list("round_ref", flat=True)) == ["a"]
    assert not MinuteBucket.objects.filter(player=player).exists()  # no hourly-loss rule for the kind
    day = PeriodTotal.objects.get(player=player, kind="odds", period="day")
    assert (day.stakes_placed, day.bets_placed) == (500, 1)
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []


@pytest.mark.django_db
@pytest.mark.parametrize("decided_after", [2 * SEC, 2 * MIN])  # one minute bucket, or two
def test_a_settled_bet_declared_void_is_the_gate_read_the_bet_and_one_statement(player, decided_after):
    """Three statements after the caller's wallet lock, however many buckets (it was 10 for one bucket, 15 for two:
    the ORM lock, the bet, its save, two total upserts, and per bucket its read, three ledger reads, its update)."""
    stake(player, "5", T, round_ref="r-1")
    settle(player, "5", "3", T, T + decided_after, round_ref="r-1")
    with CaptureQueriesContext(connection) as ctx:
        with caller_lock(player):
            bet = settled_bet_voided(player=player, kind="technical", round_ref="r-1", at=T + 5 * MIN)
    sql = [readable(q["sql"]) for q in ctx.captured_queries if not q["sql"].startswith(TX)]
    assert len(sql) == 4, "\n".join(sql)  # the wallet lock, GATE_STATE, the bet, SETTLED_VOID
    assert sql[1].startswith(GATE_STATE.sql.split("%(")[0]) and sql[3].startswith(SETTLED_VOID.sql.split("%(")[0])
    assert bet is not None and (bet.voided, bet.voided_at) == (True, T + 5 * MIN)
    assert SettledBet.objects.get(player=player).voided
    day = PeriodTotal.objects.get(player=player, kind="technical", period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.wins_decided, day.bets_decided) == (0,) * 5
    assert list(MinuteBucket.objects.filter(player=player).values_list("stakes", "wins", "peak")) in (
        [(0, 0, 0)],
        [(0, 0, 0), (0, 0, 0)],
    )
    assert reconcile(player_ids=[player.pk], now=T + 6 * MIN) == []
