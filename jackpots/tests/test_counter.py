"""The pools' running counter (``jackpots.PendingTotal``): spins add to it, folds count what they took of it, and
in every snapshot a pool's slots sum to what the folds counted plus its pending rows, to the micro-haléř; the live
value a spin reads from it is the folded pot plus the pending rows. Real connections (threads), real transactions."""

from __future__ import annotations

import threading
import time
from datetime import UTC, datetime

import pytest
from django.core.management import call_command
from django.db import connection, transaction

from core.audit import Actor
from core.rng import use_rng
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from jackpots import sql
from jackpots.models import MICRO, SLOTS, Jackpot, Pending, PendingTotal
from jackpots.services import jackpot_fold, jackpots_fold_all
from jackpots.tests.helpers import central_level, pool
from tests.kit.platform import funded_player

NOW = datetime(2026, 12, 6, 18, 0, tzinfo=UTC)
BET = {"bets": [{"type": "red", "amount": 100}]}

#: in ONE statement (one snapshot): per pool, the counter beyond the folds and the pending rows, active and future
IDENTITY = """
SELECT j.id,
       (SELECT COALESCE(sum(s.active_micro), 0) FROM jackpots_pendingtotal s WHERE s.jackpot_id = j.id)
           - j.counted_active_micro,
       (SELECT COALESCE(sum(p.active_micro), 0) FROM jackpots_pending p WHERE p.jackpot_id = j.id),
       (SELECT COALESCE(sum(s.future_micro), 0) FROM jackpots_pendingtotal s WHERE s.jackpot_id = j.id)
           - j.counted_future_micro,
       (SELECT COALESCE(sum(p.future_micro), 0) FROM jackpots_pending p WHERE p.jackpot_id = j.id)
FROM jackpots_jackpot j ORDER BY j.id"""


def _identity() -> list[tuple[int, int, int, int, int]]:
    with connection.cursor() as cur:
        cur.execute(IDENTITY)
        return [tuple(int(x) for x in row) for row in cur.fetchall()]  # type: ignore[misc]


@pytest.mark.django_db(transaction=True)
def test_in_every_snapshot_the_counter_is_the_folds_plus_the_pending_rows_while_spins_and_folds_race(clock, settings):
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    central_level(
        "central-bronze",
        pay_order=1,
        rate_ppm=30_000,
        split=Jackpot.Split.FIXED,
        background_ppm=250_000,
        reset_value=50,
        win_from=10_000,
        win_to=20_000,
    )
    central_level("central-silver", pay_order=2, rate_ppm=7_000, reset_value=100, win_from=10_000, win_to=20_000)
    players, spins = 6, 15
    accounts = [funded_player(100_000) for _ in range(players)]
    errors: list[str] = []
    samples: list[list[tuple[int, int, int, int, int]]] = []
    barrier = threading.Barrier(players + 2)
    done = threading.Event()

    def spin(player, i):
        try:
            barrier.wait()
            for n in range(spins):
                round_play(
                    player=player,
                    game_code="european_roulette",
                    bet=BET,
                    idempotency_key=f"k-{i}-{n}",
                    actor=Actor.player(player),
                )
        except Exception as exc:  # noqa: BLE001 - surfaced by the assertion below
            errors.append(repr(exc))
        finally:
            connection.close()

    def folder():
        try:
            barrier.wait()
            while not done.is_set():
                jackpots_fold_all()
        except Exception as exc:  # noqa: BLE001
            errors.append(f"fold: {exc!r}")
        finally:
            connection.close()

    def sampler():
        try:
            barrier.wait()
            while not done.is_set():
                samples.append(_identity())
        finally:
            connection.close()

    with use_rng(FixedRNG(0)):
        threads = [threading.Thread(target=spin, args=(p, i)) for i, p in enumerate(accounts)]
        side = [threading.Thread(target=folder), threading.Thread(target=sampler)]
        for t in [*threads, *side]:
            t.start()
        for t in threads:
            t.join()
        done.set()
        for t in side:
            t.join()
    assert not errors, errors
    assert len(samples) >= 5
    moving = 0
    for sample in samples:
        for _jackpot, counter_active, rows_active, counter_future, rows_future in sample:
            assert (counter_active, counter_future) == (rows_active, rows_future)
            moving += rows_active != 0
    assert moving, "the sampler saw no pending contribution: it proved nothing"
    jackpots_fold_all()
    assert not Pending.objects.exists()
    for code, rate in (("central-bronze", 30_000), ("central-silver", 7_000)):
        jp = pool(code)
        total = players * spins * 100 * rate
        slots = PendingTotal.objects.filter(jackpot_id=jp.pk)
        assert sum(s.active_micro + s.future_micro for s in slots) == total == jp.contributed_micro
        assert (jp.counted_active_micro, jp.counted_future_micro) == (
            sum(s.active_micro for s in slots),
            sum(s.future_micro for s in slots),
        )
        assert {s.slot for s in slots} <= set(range(SLOTS))
    call_command("jackpot_check")
    call_command("ledger_check")


@pytest.mark.django_db(transaction=True)
def test_two_rounds_on_one_slot_wait_in_level_order_and_both_are_counted(clock):
    """Round ids equal modulo SLOTS share a slot: the second waits for the first's commit (no lost update, no
    deadlock although they name the levels in opposite orders)."""
    a = central_level("central-bronze", pay_order=1, win_from=10_000, win_to=20_000)
    b = central_level("central-silver", pay_order=2, win_from=10_000, win_to=20_000)
    first_in = threading.Event()
    release = threading.Event()
    seen: dict[str, list[tuple[int, int, str, int]]] = {}
    errors: list[str] = []

    def first():
        try:
            with transaction.atomic():
                seen["first"] = sql.contribute(
                    round_id=7,
                    player_id=1,
                    now=NOW,
                    check=[a.pk, b.pk],
                    rows=[(a.pk, 100, 1_000, 0), (b.pk, 100, 2_000, 0)],
                )
                first_in.set()
                release.wait(10)
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))
        finally:
            connection.close()

    def second():
        try:
            first_in.wait(10)
            with transaction.atomic():
                seen["second"] = sql.contribute(
                    round_id=7 + SLOTS,
                    player_id=2,
                    now=NOW,
                    check=[a.pk, b.pk],
                    rows=[(b.pk, 100, 20_000, 0), (a.pk, 100, 10_000, 0)],
                )
        except Exception as exc:  # noqa: BLE001
            errors.append(repr(exc))
        finally:
            connection.close()

    t1, t2 = threading.Thread(target=first), threading.Thread(target=second)
    t1.start()
    t2.start()
    first_in.wait(10)
    time.sleep(0.3)
    assert "second" not in seen  # waiting for the first's slot rows
    release.set()
    t1.join()
    t2.join()
    assert not errors, errors
    sa, sb = pool("central-bronze").amount_micro, pool("central-silver").amount_micro  # the seeds
    assert sorted((i, v) for i, _g, _s, v in seen["first"]) == [(a.pk, sa + 1_000), (b.pk, sb + 2_000)]
    # the second's snapshot was taken before the first committed: its live value is its own rows only; the slot
    # itself has both (the UPDATE re-read the committed row)
    assert sorted((i, v) for i, _g, _s, v in seen["second"]) == [(a.pk, sa + 10_000), (b.pk, sb + 20_000)]
    slots = {(s.jackpot_id, s.slot): s.active_micro for s in PendingTotal.objects.all()}
    assert slots == {(a.pk, 7): 11_000, (b.pk, 7): 22_000}
    assert sql.live(a.pk)[2] == sa + 11_000 and sql.live(b.pk)[2] == sb + 22_000


@pytest.mark.django_db
def test_a_fold_counts_what_it_took_and_the_live_value_stays_the_pot_plus_the_pending_rows(clock):
    jp = central_level("central-bronze", rate_ppm=10_000, win_from=10_000, win_to=20_000)
    seed = pool("central-bronze").amount_micro
    sql.contribute(round_id=3, player_id=1, now=NOW, rows=[(jp.pk, 1_000, 10 * MICRO, 0)], check=[])
    assert sql.live(jp.pk)[2] == seed + 10 * MICRO
    assert jackpot_fold(jackpot_id=jp.pk) == 1
    folded = pool("central-bronze")
    assert (folded.amount_micro, folded.counted_active_micro) == (seed + 10 * MICRO, 10 * MICRO)
    assert sql.live(jp.pk)[2] == seed + 10 * MICRO  # nothing pending: the counter beyond the folds is 0
    sql.contribute(round_id=4, player_id=1, now=NOW, rows=[(jp.pk, 1_000, 5 * MICRO, 0)], check=[])
    sql.contribute(round_id=3, player_id=1, now=NOW, rows=[(jp.pk, -1_000, -10 * MICRO, 0)], check=[], reversal=True)
    assert sql.live(jp.pk)[2] == seed + 5 * MICRO
    assert sql.pending_by_counter([jp.pk]) == {jp.pk: (-5 * MICRO, 0)}
    assert (jp.pk, -5 * MICRO, -5 * MICRO, 0, 0) in _identity()
