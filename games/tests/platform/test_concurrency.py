"""Parallel starts of one player: never two rounds at once, never an overdraft (real transactions, threads)."""

from __future__ import annotations

import threading

import pytest
from django.core.management import call_command
from django.db import connection

from core.audit import Actor
from core.errors import DomainError
from core.idempotency import KEY_CONFLICT
from core.rng import use_rng
from games.errors import ROUND_IN_PROGRESS, ROUND_TOO_SOON
from games.models import Round
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.platform import RED_100, ROULETTE, balance, funded_player

pytestmark = pytest.mark.django_db(transaction=True)


def _parallel(player, n, game, bet, same_key=False):
    results: list = []
    barrier = threading.Barrier(n)

    def one(i):
        try:
            barrier.wait()
            rnd = round_play(
                player=player,
                game_code=game,
                bet=bet,
                idempotency_key="twin" if same_key else f"par-{i}",
                actor=Actor.player(player),
            )
            results.append(("ok", rnd.pk))
        except DomainError as exc:
            results.append(("refused", exc.code))
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            results.append(("error", repr(exc)))
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not [r for r in results if r[0] == "error"], results
    return results


def test_parallel_starts_of_one_player_never_run_two_rounds_at_once(clock, settings):
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}  # isolate GP §7(6) from the 2-second rule
    player = funded_player(100_000)
    results = _parallel(player, 6, "test_pick", {"stake": 100})
    assert [r for r in results if r[0] == "ok"].__len__() == 1
    assert {r[1] for r in results if r[0] == "refused"} == {ROUND_IN_PROGRESS.code}
    assert Round.objects.filter(player=player, status="in_progress").count() == 1
    assert balance(player) == 100_000 - 100


def test_parallel_starts_never_overdraw_the_account(clock, settings):
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = funded_player(250)
    with use_rng(FixedRNG(0)):  # zero: every red bet loses
        results = _parallel(player, 6, ROULETTE, RED_100)
    ok = [r for r in results if r[0] == "ok"]
    assert len(ok) == 2 and balance(player) == 50
    call_command("ledger_check")  # the ledger still proves itself right
    assert all(code.startswith("wallet.") for kind, code in results if kind == "refused"), results
    assert Round.objects.filter(player=player).count() == 2


def test_parallel_starts_within_two_seconds_give_exactly_one_round(clock):
    player = funded_player(10_000)
    with use_rng(FixedRNG(0)):
        results = _parallel(player, 5, ROULETTE, RED_100)
    assert len([r for r in results if r[0] == "ok"]) == 1
    assert {r[1] for r in results if r[0] == "refused"} == {ROUND_TOO_SOON.code}
    assert balance(player) == 9_900


def test_parallel_twins_with_one_idempotency_key_make_one_round_and_one_debit(clock):
    player = funded_player(10_000)
    with use_rng(FixedRNG(0)):
        results = _parallel(player, 5, ROULETTE, RED_100, same_key=True)
    assert {r[0] for r in results} == {"ok"} and len({r[1] for r in results}) == 1
    assert Round.objects.filter(player=player).count() == 1 and balance(player) == 9_900


def test_a_play_money_and_a_real_round_racing_on_one_key_are_one_round_and_a_clean_conflict(clock, settings):
    """V-8: bursts of play-money and real-money starts under one Idempotency-Key: one round, the others the
    defined 409 ``idempotency.conflict`` or its replay; never a unique-claim failure, never an integrity alarm."""
    from core.models import AuditEvent

    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    player = funded_player(100_000)
    results: list = []
    barrier = threading.Barrier(6)

    def one(i):
        try:
            barrier.wait()
            rnd = round_play(
                player=player,
                game_code=ROULETTE,
                bet=RED_100,
                idempotency_key="twin-kinds",
                actor=Actor.player(player),
                play_money=i % 2 == 0,
            )
            results.append(("ok", rnd.play_money))
        except DomainError as exc:
            results.append(("refused", exc.code))
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            results.append(("error", repr(exc)))
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not [r for r in results if r[0] == "error"], results
    assert {r[1] for r in results if r[0] == "refused"} <= {KEY_CONFLICT.code}
    assert len({r[1] for r in results if r[0] == "ok"}) == 1  # the replays are of the one round's kind
    assert Round.objects.filter(player=player).count() == 1
    assert not AuditEvent.objects.filter(action="core.integrity_failure").exists()
    call_command("ledger_check")
