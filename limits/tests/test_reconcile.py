"""The running counters equal the sums over the ledger of settled bets (manage.py limits_reconcile)."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command

from limits.models import MinuteBucket, PeriodTotal
from limits.reconcile import reconcile
from tests.kit.limits import caller_lock, settle, stake
from tests.kit.money import czk, prague

T = prague(2025, 10, 25, 22, 30)  # a night across the autumn DST change and a month end a week later


def random_history(player, rounds=120, seed=7):
    from limits.services import stake_voided

    rng = random.Random(seed)
    at = T
    for i in range(rounds):
        at += timedelta(minutes=rng.choice([1, 2, 7, 16, 60, 300, 1440]))
        amount = czk(f"{rng.randint(1, 50)}.{rng.choice([0, 5])}0")
        win = czk(rng.choice(["0", "0", "1.50", "20", "75"]))
        try:
            stake(player, amount, at)
        except Exception:  # noqa: BLE001 - a break or the hourly cap: skip, a refusal counts nothing
            continue
        if i % 17 == 0:
            with caller_lock(player):
                stake_voided(player=player, kind="technical", at=at + timedelta(days=1))
            continue
        settle(player, amount, win, at, at + timedelta(seconds=rng.choice([2, 3, 70])))
    stake(player, "1", at + timedelta(hours=1))  # one bet left open


def test_counters_equal_the_ledger_after_a_long_mixed_history(player, other_player):
    random_history(player)
    random_history(other_player, seed=11)
    end = T + timedelta(days=30)
    assert reconcile(now=end) == []
    assert reconcile(player_ids=[player.pk], now=end) == []
    assert PeriodTotal.objects.filter(player=player, period="month").count() >= 2


def test_a_tampered_counter_is_reported_and_the_command_fails(player):
    random_history(player, rounds=30)
    row = PeriodTotal.objects.filter(player=player, period="day").first()
    assert row is not None
    PeriodTotal.objects.filter(pk=row.pk).update(stakes_placed=row.stakes_placed + 10)
    found = reconcile(player_ids=[player.pk])
    assert len(found) == 1 and found[0].table == "periodtotal.day" and found[0].player_id == player.pk
    with pytest.raises(CommandError):
        call_command("limits_reconcile", "--player", str(player.pk))


def test_recent_minute_buckets_are_proven_against_the_ledger_too(player):
    from core import clock

    now = clock.now()
    stake(player, "3", now - timedelta(minutes=3))
    settle(player, "3", "1", now - timedelta(minutes=3), now - timedelta(minutes=2))
    assert reconcile(player_ids=[player.pk], now=now) == []
    MinuteBucket.objects.filter(player=player).update(wins=0)
    assert [m.table for m in reconcile(player_ids=[player.pk], now=now)] == ["minutebucket"]


def test_the_reconcile_command_succeeds_on_clean_counters(player, capsys):
    stake(player, "3", T)
    settle(player, "3", "1", T, T + timedelta(seconds=2))
    call_command("limits_reconcile", "--player", str(player.pk))
    assert "reconcile" in capsys.readouterr().out
