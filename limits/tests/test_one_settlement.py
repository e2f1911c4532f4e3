"""``stake_settled`` settles every case through the one settlement statement (limits/sql.py BET_SETTLE):
a bet never placed is first placed by the gate's own placement (BET_PLACE) at ``started_at``, an open bet of another
stake or found under another ``round_ref`` is first corrected (BET_RESTAKE), a replay returns the stored record. The
counters are the ones the ledger proves (``limits_reconcile``), and the hourly-loss buckets follow
``counters.bucket_row``'s ordered / conservative rule for the placement and the decision together."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sql import readable
from limits.models import MinuteBucket, OpenBet, PeriodTotal, PlayerKindState, SettledBet
from limits.reconcile import reconcile
from limits.rules import minute_of
from tests.kit.limits import settle, stake
from tests.kit.money import czk, prague

T = prague(2026, 5, 14, 15, 0, 10)
SEC, MIN = timedelta(seconds=1), timedelta(minutes=1)
SETTLE = "WITH bet AS (\n    DELETE FROM"  # the start of BET_SETTLE


def _settled(player, amount, win, started, settled, *, kind="technical", round_ref=""):
    with CaptureQueriesContext(connection) as ctx:
        bet = settle(player, amount, win, started, settled, kind=kind, round_ref=round_ref)
    sql = [
        readable(q["sql"])
        for q in ctx.captured_queries
        if not q["sql"].startswith(("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT"))
    ]
    return bet, sql


def _only_bet_settle(sql: list[str]) -> None:
    """The settled bet is written, and the open bet deleted, by BET_SETTLE alone (no ORM insert, delete, upsert):
    at most twice (a first try on the open bet of ``round_ref`` that finds none, then the settlement)."""
    writes = [q for q in sql if "limits_settledbet" in q and "INSERT" in q]
    assert 1 <= len(writes) <= 2 and all(q.startswith(SETTLE) for q in writes), "\n".join(sql)
    assert sql[-1].startswith(SETTLE), "\n".join(sql)
    assert not [
        q
        for q in sql
        if q.startswith(
            ('INSERT INTO "limits_settledbet"', 'DELETE FROM "limits_openbet"', 'UPDATE "limits_playerkindstate"')
        )
    ], "\n".join(sql)


def _bucket(player, at):
    b = MinuteBucket.objects.get(player=player, kind="technical", minute=minute_of(at))
    return b.stakes, b.wins, b.peak


@pytest.mark.django_db
def test_the_usual_case_is_one_statement(player):
    stake(player, "5", T, round_ref="r-1")
    bet, sql = _settled(player, "5", "8", T, T + 2 * SEC, round_ref="r-1")
    assert len(sql) == 2 and sql[1].startswith(SETTLE), "\n".join(sql)  # the wallet lock, BET_SETTLE
    assert (bet.stake, bet.win, bet.placed_at, bet.round_ref) == (500, 800, T, "r-1")


@pytest.mark.django_db
def test_a_replay_returns_the_stored_record_and_counts_nothing(player):
    stake(player, "5", T, round_ref="r-1")
    first, _ = _settled(player, "5", "8", T, T + 2 * SEC, round_ref="r-1")
    again, sql = _settled(player, "5", "8", T, T + 2 * SEC, round_ref="r-1")
    assert again.pk == first.pk
    # the wallet lock, BET_SETTLE finding no open bet (it writes nothing), the state lock, the stored record
    assert len(sql) == 4 and sql[1].startswith(SETTLE), "\n".join(sql)
    assert not [q for q in sql if q.startswith(("INSERT", "DELETE", "UPDATE"))], "\n".join(sql)
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []


@pytest.mark.django_db
@pytest.mark.parametrize("round_ref", ["r-1", ""])
def test_a_bet_never_placed_is_placed_at_started_at_then_settled(player, round_ref):
    bet, sql = _settled(player, "5", "2", T, T + 70 * SEC, round_ref=round_ref)
    _only_bet_settle(sql)
    assert len([q for q in sql if q.startswith("WITH periods AS (")]) == 1  # BET_PLACE, the gate's placement
    assert (bet.stake, bet.win, bet.placed_at, bet.started_at, bet.round_ref) == (500, 200, T, T, round_ref)
    assert _bucket(player, T) == (500, 0, 500) and _bucket(player, T + 70 * SEC) == (0, 200, 0)
    state = PlayerKindState.objects.get(player=player, kind="technical")
    assert (state.play_started_at, state.last_round_ended_at) == (T, T + 70 * SEC)  # it opened the play period
    assert state.last_bucket_minute == minute_of(T + 70 * SEC)
    assert not OpenBet.objects.filter(player=player).exists()
    assert reconcile(player_ids=[player.pk], now=T + 2 * MIN) == []


@pytest.mark.django_db
def test_a_bet_never_placed_in_a_minute_older_than_the_newest_bucket_is_counted_conservatively(player):
    stake(player, "1", T + 5 * MIN, round_ref="r-1")
    settle(player, "1", "0", T + 5 * MIN, T + 5 * MIN + SEC, round_ref="r-1")
    assert _bucket(player, T + 5 * MIN) == (100, 0, 100)
    bet, sql = _settled(player, "2", "3", T, T + 5 * MIN + 20 * SEC, round_ref="r-2")
    _only_bet_settle(sql)
    assert bet.placed_at == T
    assert _bucket(player, T) == (200, 0, 200)  # an older minute: the peak grows by the stake
    assert _bucket(player, T + 5 * MIN) == (100, 300, 0)  # the win in order
    assert PlayerKindState.objects.get(player=player, kind="technical").play_started_at == T + 5 * MIN
    assert reconcile(player_ids=[player.pk], now=T + 6 * MIN) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("settled_stake", "win", "bucket"),
    [
        ("7", "3", (700, 300, 400)),  # more: in order, exact
        ("2", "3", (200, 300, 500)),  # a stake taken back in the win's minute: conservative, the peak only grows
        ("2", "0", (200, 0, 500)),
    ],
)
def test_an_open_bet_of_another_stake_is_corrected_by_the_difference(player, settled_stake, win, bucket):
    stake(player, "5", T, round_ref="r-1")
    bet, sql = _settled(player, settled_stake, win, T, T + 2 * SEC, round_ref="r-1")
    _only_bet_settle(sql)
    assert (bet.stake, bet.placed_at) == (czk(settled_stake).amount, T)
    assert _bucket(player, T) == bucket
    day = PeriodTotal.objects.get(player=player, kind="technical", period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.bets_decided) == (bet.stake, 1, bet.stake, 1)
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []


@pytest.mark.django_db
def test_a_stake_taken_back_in_another_minute_than_the_win(player):
    stake(player, "5", T, round_ref="r-1")
    _, sql = _settled(player, "2", "1", T, T + 2 * MIN, round_ref="r-1")
    _only_bet_settle(sql)
    assert _bucket(player, T) == (200, 0, 500) and _bucket(player, T + 2 * MIN) == (0, 100, 0)
    assert reconcile(player_ids=[player.pk], now=T + 3 * MIN) == []


@pytest.mark.django_db
@pytest.mark.parametrize(("placed_ref", "settled_ref"), [("r-1", ""), ("", "r-1"), ("r-1", "r-2")])
def test_the_one_open_bet_is_settled_under_the_round_ref_given(player, placed_ref, settled_ref):
    stake(player, "5", T, round_ref=placed_ref)
    bet, sql = _settled(player, "5", "0", T + SEC, T + 2 * SEC, round_ref=settled_ref)
    _only_bet_settle(sql)
    assert (bet.round_ref, bet.placed_at, bet.started_at, bet.game_code) == (settled_ref, T, T + SEC, "test_slot")
    assert SettledBet.objects.get(player=player).round_ref == settled_ref
    assert not OpenBet.objects.filter(player=player).exists()
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []


@pytest.mark.django_db
def test_a_kind_with_several_open_bets_settles_only_the_one_named(player):
    stake(player, "5", T, kind="odds", game_max=None, round_ref="a")
    stake(player, "3", T + SEC, kind="odds", game_max=None, round_ref="b")
    bet, sql = _settled(player, "4", "0", T + SEC, T + 2 * SEC, kind="odds", round_ref="c")  # never placed
    _only_bet_settle(sql)
    assert bet.placed_at == T + SEC and bet.stake == 400
    assert sorted(OpenBet.objects.filter(player=player).values_list("round_ref", flat=True)) == ["a", "b"]
    assert reconcile(player_ids=[player.pk], now=T + MIN) == []
