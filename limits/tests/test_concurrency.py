"""Parallel stakes at a nearly used daily limit never break it: each decision runs under the player's lock."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.db import connections

from core.errors import DomainError
from limits import errors
from limits.models import PeriodTotal, StakeRefusal
from limits.reconcile import reconcile
from tests.kit.limits import REFUSAL_LOG_DATABASES, caller_lock, set_limits
from tests.kit.money import czk, prague

T = prague(2025, 5, 5, 12)


def _run_parallel(fn, n):
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def worker(i):
        try:
            barrier.wait(timeout=10)
            results[i] = fn(i)
        except Exception as exc:  # noqa: BLE001 - collected and asserted on below
            results[i] = exc
        finally:
            for conn in connections.all(initialized_only=True):
                conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


@pytest.mark.django_db(databases=REFUSAL_LOG_DATABASES, transaction=True)
def test_parallel_stakes_at_a_nearly_used_daily_limit_never_exceed_it():
    from limits.services import stake_gate_and_place, stake_settled
    from tests.kit.accounts import make_player

    player = make_player(status="active")
    set_limits(player, T - timedelta(days=1), daily_stake=10_000)  # 100 Kč
    with caller_lock(player):
        stake_settled(player=player, kind="technical", stake=czk(90), win=czk(0), started_at=T, settled_at=T)

    def one_round(i):
        at = T + timedelta(seconds=10 + i)
        with caller_lock(player):
            stake_gate_and_place(
                player=player, kind="technical", stake=czk(4), game_code="slot", game_max_bet=czk(1000), now=at
            )
            stake_settled(player=player, kind="technical", stake=czk(4), win=czk(0), started_at=at, settled_at=at)
        return "ok"

    results = _run_parallel(one_round, 8)
    ok = [r for r in results if r == "ok"]
    refusals = [r for r in results if isinstance(r, DomainError)]
    assert len(ok) == 2, results  # 90 + 4 + 4 = 98; a third would make 102
    assert len(refusals) == 6 and {r.code for r in refusals} == {errors.DAILY_STAKE_EXCEEDED.code}
    day = PeriodTotal.objects.get(player=player, period="day")
    assert day.stakes_placed == 9_800 <= 10_000
    assert StakeRefusal.objects.filter(player_id=player.pk, code=errors.DAILY_STAKE_EXCEEDED.code).count() == 6
    assert reconcile(player_ids=[player.pk], now=T) == []


@pytest.mark.django_db(transaction=True)
def test_parallel_stakes_of_one_player_never_open_two_rounds():
    from limits.models import OpenBet
    from limits.services import stake_gate_and_place
    from tests.kit.accounts import make_player

    player = make_player(status="active")

    def start(i):
        with caller_lock(player):
            stake_gate_and_place(
                player=player,
                kind="technical",
                stake=czk(1),
                game_code="slot",
                game_max_bet=czk(1000),
                now=T + timedelta(seconds=i),
            )
        return "ok"

    results = _run_parallel(start, 6)
    assert results.count("ok") == 1
    assert {r.code for r in results if isinstance(r, DomainError)} == {errors.ROUND_IN_PROGRESS.code}
    assert OpenBet.objects.filter(player=player).count() == 1
