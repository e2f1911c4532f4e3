"""GP §3(6): staff declare a settled bet placed on order or by proxy void: the stake goes back, the win is deducted
with a notice (a balance that goes negative is a debt due in 10 days, GP §7(7)), the jackpot contributions are
reversed and a paid jackpot award goes back to its pool, the bet is taken out of the limits counters; the books
(ledger_check, limits_reconcile, jackpot_check) stay clean; a second void and a void of a round not settled are
refused and change nothing."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from core.rng import use_rng
from games import errors
from games.errors import ROUND_ALREADY_VOIDED, ROUND_NOT_FOUND, ROUND_NOT_SETTLED, VOID_REASON_REQUIRED
from games.models import Round
from games.services import round_refund, round_void_settled
from games.tests.platform.testgames import FixedRNG
from limits.errors import DAILY_STAKE_EXCEEDED
from tests.kit.accounts import make_staff
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, START, balance, funded_player, play_money, start
from wallet.errors import DEBT_OUTSTANDING
from wallet.models import Debt, Entry, WinDeduction

STAFF = Actor.system("test")
RED = {"bets": [{"type": "red", "amount": 100}]}
LOSS, WIN = FixedRNG(0), FixedRNG(1)  # roulette pocket 0 (red loses), pocket 1 (red wins 2x)


def _spin(c: Any, clock: Any, rng: Any, bet: dict[str, Any] = RED, game: str = ROULETTE) -> dict[str, Any]:
    clock.shift(3)  # GP §7(9)
    with use_rng(rng):
        r = start(c, game=game, bet=bet)
    assert r.status_code == 201, r.content
    return r.json()


def _books_clean() -> None:
    """The books as operations prove them: each command raises CommandError on any difference."""
    call_command("ledger_check", verbosity=0)
    call_command("limits_reconcile", stdout=io.StringIO())
    call_command("jackpot_check", stdout=io.StringIO())


def test_a_won_bet_declared_void_gives_the_stake_back_and_takes_the_win_with_a_notice(clock):
    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    assert body["win"]["amount"] == 200 and balance(player) == 1_100
    settled_at = Round.objects.get(pk=body["id"]).settled_at
    clock.shift(3600)
    staff = make_staff()
    rnd = round_void_settled(round_id=body["id"], reason="placed for a betting agent", actor=Actor.staff(staff))
    assert balance(player) == 1_000  # as if the bet had never been placed
    rnd.refresh_from_db()
    assert (rnd.status, rnd.void_reason, rnd.void_detail) == ("voided", "proxy", "placed for a betting agent")
    assert rnd.voided_at == START + timedelta(seconds=3603) and rnd.settled_at == settled_at
    assert (rnd.stake, rnd.win) == (100, 200)  # the record of what was played stays
    deduction = WinDeduction.objects.get(player=player)
    assert deduction.amount == 200 and "HP §3 odst. 6" in deduction.notice_text and "GP §3(6)" in deduction.notice_text
    assert not Debt.objects.filter(player=player).exists()
    event = AuditEvent.objects.get(action="games.round_voided_settled", object_id=str(rnd.pk))
    assert event.actor_type == "staff" and event.actor_label == staff.username
    assert event.details["reason"] == "placed for a betting agent"
    assert (event.details["stake_returned"], event.details["win_reclaimed"], event.details["debt"]) == (100, 200, 0)
    assert event.old_values == {"status": "finished"} and event.new_values == {
        "status": "voided",
        "void_reason": "proxy",
    }
    recall = c.get(f"/api/v1/games/rounds/{rnd.pk}").json()
    assert recall["status"] == "voided" and recall["void_reason"] == "proxy"
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"  # the record still replays
    _books_clean()


def test_a_lost_bet_declared_void_gives_the_stake_back_and_deducts_nothing(clock):
    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, LOSS)
    assert balance(player) == 900
    round_void_settled(round_id=body["id"], reason="proxy", actor=STAFF)
    assert balance(player) == 1_000 and not WinDeduction.objects.filter(player=player).exists()
    _books_clean()


def test_a_win_already_spent_becomes_a_debt_due_in_10_days_and_stakes_are_refused_until_paid(clock):
    """GP §7(7): the balance goes below zero only as a recorded debt."""
    player = funded_player(100)
    c = client_for(player)
    won = _spin(c, clock, WIN)  # 1.00 -> 2.00
    _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 200}]})  # the 2.00 spent: 0.00
    assert balance(player) == 0
    round_void_settled(round_id=won["id"], reason="placed by proxy", actor=STAFF)
    assert balance(player) == 100 - 200  # the stake back (+1.00), the win taken (-2.00)
    debt = Debt.objects.get(player=player)
    assert (debt.amount, debt.outstanding, debt.status) == (100, 100, "open")
    assert debt.due_at == debt.created_at + timedelta(days=10)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["balance_after"], event.details["debt"]) == (-100, 100)
    clock.shift(3)
    r = start(c, bet=RED)
    assert r.status_code >= 400 and r.json()["error"]["code"] == DEBT_OUTSTANDING.code
    _books_clean()


def test_a_second_void_is_refused_and_changes_nothing(clock):
    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    round_void_settled(round_id=body["id"], reason="proxy", actor=STAFF)
    entries, events = Entry.objects.count(), AuditEvent.objects.count()
    with pytest.raises(DomainError) as exc:
        round_void_settled(round_id=body["id"], reason="proxy again", actor=STAFF)
    assert exc.value.code == errors.ROUND_ALREADY_VOIDED.code == "game.round_already_voided"
    assert exc.value.details == {"round_id": body["id"], "round_status": "voided", "void_reason": "proxy"}
    assert Entry.objects.count() == entries and AuditEvent.objects.count() == events and balance(player) == 1_000
    assert Round.objects.get(pk=body["id"]).void_detail == "proxy"


def test_a_round_not_settled_is_refused_and_changes_nothing(clock):
    player = funded_player(1_000)
    c = client_for(player)
    waiting = _spin(c, clock, FixedRNG(1, 1), {"stake": 100}, game="test_pick")
    assert waiting["status"] == "in_progress"
    before = balance(player)
    with pytest.raises(DomainError) as exc:
        round_void_settled(round_id=waiting["id"], reason="proxy", actor=STAFF)
    assert exc.value.code == ROUND_NOT_SETTLED.code and exc.value.details["round_status"] == "in_progress"
    assert balance(player) == before and Round.objects.get(pk=waiting["id"]).status == "in_progress"
    # a round already ended by staff (refunded) is not a settled bet either
    round_refund(round_id=waiting["id"], reason="stuck", actor=STAFF)
    with pytest.raises(DomainError) as exc:
        round_void_settled(round_id=waiting["id"], reason="proxy", actor=STAFF)
    assert exc.value.code == ROUND_ALREADY_VOIDED.code


def test_a_play_money_round_an_unknown_round_and_a_void_without_reason_are_refused(clock):
    player = funded_player(1_000)
    c = client_for(player)
    with use_rng(WIN):
        pm = play_money(c).json()
    assert pm["status"] == "finished"
    with pytest.raises(DomainError) as exc:
        round_void_settled(round_id=pm["id"], reason="proxy", actor=STAFF)
    assert exc.value.code == ROUND_NOT_SETTLED.code and exc.value.details["play_money"] is True
    with pytest.raises(DomainError) as exc:
        round_void_settled(round_id=10**12, reason="proxy", actor=STAFF)
    assert exc.value.code == ROUND_NOT_FOUND.code
    body = _spin(c, clock, WIN)
    for reason in ("", "   "):
        with pytest.raises(DomainError) as exc:
            round_void_settled(round_id=body["id"], reason=reason, actor=STAFF)
        assert exc.value.code == VOID_REASON_REQUIRED.code
    assert Round.objects.get(pk=body["id"]).status == "finished" and balance(player) == 1_100


def _pool_value(code: str) -> int:
    """The pool's value in micro-haléře once every pending contribution is folded."""
    from jackpots.services import jackpots_fold_all
    from jackpots.tests.helpers import pool

    jackpots_fold_all()
    jp = pool(code)
    return jp.amount_micro + jp.future_micro


def test_a_paid_jackpot_award_of_a_void_bet_goes_back_to_its_pool_not_to_the_house(clock):
    """GP §3(6): the award was paid out of the players' pool and the bet that won it is void, so the house, which
    took the win back from the player, returns the jackpot part to the pool (a return, proven by jackpot_check)."""
    from jackpots.models import MICRO, Award
    from jackpots.tests.helpers import central_level, contributions, pool
    from wallet.ledger import operator_balance

    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(10_000)
    c = client_for(player)
    body = _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 1_000}]})  # crosses WIN_AT at once
    rnd = Round.objects.get(pk=body["id"])
    assert (rnd.win_engine, rnd.jackpot_win, rnd.win) == (0, 1_000, 1_000) and balance(player) == 10_000
    award = Award.objects.get(round_id=rnd.pk)
    assert (award.status, award.amount, award.paid, award.returned) == ("paid", 1_000, 1_000, 0)
    before = _pool_value("central-bronze")
    assert before == 1_000 * MICRO  # the new run's seed
    house = operator_balance("house").amount
    round_void_settled(round_id=rnd.pk, reason="proxy", actor=STAFF)
    assert balance(player) == 10_000  # the stake back, the jackpot win taken
    rows = contributions(round_id=rnd.pk)
    assert sorted(r.active_micro for r in rows) == [-50 * MICRO, 50 * MICRO]  # 5 % of the stake reversed
    # the pool grows by the award, less the void bet's own contribution; the house keeps nothing of it
    assert _pool_value("central-bronze") == before + (1_000 - 50) * MICRO
    jp = pool("central-bronze")
    assert jp.returned == 1_000 and operator_balance(jp.ledger_code).amount == 1_950
    # the house: the stake out to the player, the win in from the player, the award out to the pool, the
    # reversed contribution back from the pool
    assert operator_balance("house").amount == house - 1_000 + 1_000 - 1_000 + 50
    award.refresh_from_db()
    assert (award.status, award.amount, award.paid, award.returned) == ("reversed", 1_000, 1_000, 1_000)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert event.details["jackpot_win_returned_to_pools"] == 1_000
    assert event.details["jackpots"] == {
        "contributions_reversed": 1,
        "awards_reversed": 0,
        "paid_awards_returned": 1,
        "paid_returned_to_pools": 1_000,
    }
    returned = AuditEvent.objects.get(action="jackpots.award_paid_returned")
    assert returned.object_id == str(award.pk) and returned.details["amount"] == 1_000
    _books_clean()
    # repeated, the jackpot step changes nothing (and the void itself is refused)
    from jackpots.services import round_void

    entries, events = Entry.objects.count(), AuditEvent.objects.count()
    assert round_void(round_id=rnd.pk, actor=STAFF, settled=True) == {
        "contributions_reversed": 0,
        "awards_reversed": 0,
        "paid_awards_returned": 0,
        "paid_returned_to_pools": 0,
    }
    with pytest.raises(DomainError):
        round_void_settled(round_id=rnd.pk, reason="proxy", actor=STAFF)
    assert (Entry.objects.count(), AuditEvent.objects.count()) == (entries, events)
    assert _pool_value("central-bronze") == before + 950 * MICRO
    _books_clean()


def test_a_jackpot_win_already_spent_is_a_debt_of_the_player_and_the_pool_still_gets_it_whole(clock):
    """GP §3(6), §7(7): the house carries the player's debt; the other players' pool does not wait for it."""
    from jackpots.models import MICRO, Jackpot
    from jackpots.services import jackpot_set_status
    from jackpots.tests.helpers import central_level

    jp = central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(100)
    c = client_for(player)
    won = _spin(c, clock, LOSS)  # 1.00 staked, lost in the game; the 10.00 jackpot won
    assert balance(player) == 1_000
    # the level is suspended (no more wins or contributions) while the player spends the win
    jackpot_set_status(jackpot=jp, status=Jackpot.Status.SUSPENDED, actor=STAFF)
    _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 1_000}]})
    assert balance(player) == 0
    before = _pool_value("central-bronze")
    round_void_settled(round_id=won["id"], reason="placed by proxy", actor=STAFF)
    assert balance(player) == 100 - 1_000
    assert Debt.objects.get(player=player).outstanding == 900
    assert _pool_value("central-bronze") == before + (1_000 - 5) * MICRO  # whole, less its own 5 % contribution
    _books_clean()


def test_a_void_bet_is_taken_out_of_the_limits_and_a_limit_it_had_used_up_allows_again(clock):
    """GP §3(6) with GP §6(6)a: the void bet no longer counts in the day's stakes or net loss; the daily stake
    limit it used up allows exactly its value again (0.10 more is refused)."""
    from core.money import Money
    from limits.models import PeriodTotal, SettledBet
    from limits.selectors import period_totals
    from limits.services import self_limit_set

    player = funded_player(10_000)
    self_limit_set(
        player=player, kind="technical", limit_type="daily_stake", value=1_000, actor=Actor.player(player), now=START
    )
    c = client_for(player)
    body = _spin(c, clock, WIN, {"bets": [{"type": "red", "amount": 1_000}]})  # 10.00 staked, 20.00 won
    day = period_totals(player, "technical", START).day
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.wins_decided) == (1_000, 1, 1_000, 2_000)
    clock.shift(3)
    refused = start(c, bet={"bets": [{"type": "red", "amount": 10}]})
    assert refused.status_code == 403 and refused.json()["error"]["code"] == DAILY_STAKE_EXCEEDED.code
    round_void_settled(round_id=body["id"], reason="placed for someone else", actor=STAFF)
    day = PeriodTotal.objects.get(player=player, kind="technical", period="day")
    assert (day.stakes_placed, day.bets_placed, day.stakes_decided, day.wins_decided, day.bets_decided) == (
        0,
        0,
        0,
        0,
        0,
    )
    bet = SettledBet.objects.get(round_ref=f"games:round:{body['id']}:bet")
    assert bet.voided and bet.voided_at == START + timedelta(seconds=6) and (bet.stake, bet.win) == (1_000, 2_000)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert event.details["limits_counters"] == "reversed"
    _books_clean()
    clock.shift(3)
    over = start(c, bet={"bets": [{"type": "red", "amount": 1_010}]})
    assert over.status_code == 403 and over.json()["error"]["code"] == DAILY_STAKE_EXCEEDED.code
    assert over.json()["error"]["details"]["used"] == Money(0).to_json()
    with use_rng(LOSS):
        again = start(c, bet={"bets": [{"type": "red", "amount": 1_000}]})
    assert again.status_code == 201, again.content
    _books_clean()


def test_staff_declare_a_bet_void_in_the_admin_with_a_reason(clock, client):
    player = funded_player(1_000)
    body = _spin(client_for(player), clock, WIN)
    staff = make_staff(superuser=True)
    client.force_login(staff)
    form = client.post("/admin/games/round/", {"action": "void_settled", "_selected_action": [body["id"]]})
    assert form.status_code == 200 and "GP §3(6)" in form.content.decode()
    assert Round.objects.get(pk=body["id"]).status == "finished"
    done = client.post(
        "/admin/games/round/",
        {"action": "void_settled", "_selected_action": [body["id"]], "apply": "1", "reason": "an agent placed it"},
    )
    assert done.status_code == 302
    assert Round.objects.get(pk=body["id"]).status == "voided" and balance(player) == 1_000
    assert AuditEvent.objects.filter(action="games.round_voided_settled", actor_type="staff").exists()
    # the second time the refusal is shown to staff with its code; nothing changes
    again = client.post(
        "/admin/games/round/",
        {"action": "void_settled", "_selected_action": [body["id"]], "apply": "1", "reason": "again"},
        follow=True,
    )
    assert ROUND_ALREADY_VOIDED.code in again.content.decode() and balance(player) == 1_000


# A win on hold (GP §10(3)) ------------------------------------------------------------------------------------------


def _hold_through_compliance(player: Any, round_id: int, win_reference: str | None = None) -> int:
    """Compliance staff hold the round's win from a case, through the staff API (as they do); returns the hold id."""
    from rest_framework.test import APIClient

    from aml.services import case_open
    from tests.kit.accounts import token_for

    case, _ = case_open(
        player_id=player.pk,
        kind="suspicious",
        key=f"test:hold:{round_id}",
        summary="doubt",
        blocking=False,
        actor=STAFF,
    )
    api = APIClient(raise_request_exception=False)
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff(role='compliance'))}")
    r = api.post(
        f"/api/v1/aml/staff/cases/{case.pk}/holds",
        {
            "win_reference": win_reference or f"games:round:{round_id}:win",
            "reason": "regularity",
            "note": "doubt about the bet",
        },
        format="json",
    )
    assert r.status_code == 201, r.content
    return int(r.json()["hold_id"])


def _void_in_admin(client: Any, round_id: int, reason: str = "an agent placed it") -> None:
    client.force_login(make_staff(superuser=True))
    done = client.post(
        "/admin/games/round/",
        {"action": "void_settled", "_selected_action": [round_id], "apply": "1", "reason": reason},
    )
    assert done.status_code == 302 and Round.objects.get(pk=round_id).status == "voided"


def test_a_void_bet_whose_win_is_held_takes_the_win_from_the_hold_and_leaves_the_balance_whole(clock, client):
    """The review's probe 1: 10.00 CZK, a 1.00 bet wins 2.00, the 2.00 are held, the bet is declared void. The win
    comes back from the hold (which ends), the balance is 10.00 as if the bet had never been placed."""
    from wallet.models import WinHold
    from wallet.selectors import held_balance

    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    hold_id = _hold_through_compliance(player, body["id"])
    assert (balance(player), held_balance(player).amount) == (900, 200)
    _void_in_admin(client, body["id"])
    assert (balance(player), held_balance(player).amount) == (1_000, 0)
    hold = WinHold.objects.get(pk=hold_id)
    assert hold.status == "forfeited" and hold.note == f"taken back by the deduction games:round:{body['id']}:void:win"
    assert not Debt.objects.filter(player=player).exists()
    deduction = WinDeduction.objects.get(player=player)
    assert deduction.amount == 200 and "pozdrženo" in deduction.notice_text and "was held" in deduction.notice_text
    legs = {(e.account.kind, e.amount) for e in Entry.objects.filter(transaction=deduction.transaction)}
    assert legs == {("player_held", -200), ("house", 200)}  # the live account gave nothing
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_reclaimed"], event.details["win_from_hold"], event.details["debt"]) == (200, 200, 0)
    assert AuditEvent.objects.filter(action="wallet.win_hold_deducted", object_id=str(hold_id)).count() == 1
    overview = c.get("/api/v1/wallet/overview").json()  # what the player sees: nothing held, nothing owed
    assert (overview["balance"]["amount"], overview["held"]["amount"], overview["debt"]["amount"]) == (1_000, 0, 0)
    _books_clean()


def test_a_held_win_of_a_player_with_little_left_is_no_debt_and_play_goes_on(clock, client):
    """The review's probe 2: 1.00 CZK, the 1.00 bet wins 2.00, all 2.00 held (the balance is 0). Before the fix the
    void left -1.00 and an open 10-day debt while the operator held the 2.00: now there is no debt at all."""
    player = funded_player(100)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    _hold_through_compliance(player, body["id"])
    assert balance(player) == 0
    _void_in_admin(client, body["id"])
    assert balance(player) == 100 and not Debt.objects.filter(player=player).exists()
    clock.shift(3)
    with use_rng(LOSS):
        assert start(c, bet=RED).status_code == 201  # no debt blocks the next stake
    _books_clean()


def test_only_the_part_of_a_win_not_held_and_already_spent_becomes_a_debt(clock):
    """The boundary between the two sources: 1.50 of the 2.00 win spent before the hold, so the hold holds only
    the 0.50 left; the void takes those 0.50 from the hold and 1.50 from the balance (1.00 with the stake back):
    the debt is 0.50, the money really spent, never the held part."""
    from wallet.selectors import held_balance

    player = funded_player(100)
    c = client_for(player)
    won = _spin(c, clock, WIN)  # 1.00 -> 2.00
    _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 150}]})  # 0.50 left
    _hold_through_compliance(player, won["id"])
    assert (balance(player), held_balance(player).amount) == (0, 50)
    round_void_settled(round_id=won["id"], reason="placed by proxy", actor=STAFF)
    assert (balance(player), held_balance(player).amount) == (-50, 0)
    debt = Debt.objects.get(player=player)
    assert (debt.amount, debt.outstanding) == (50, 50)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_from_hold"], event.details["debt"]) == (50, 50)
    _books_clean()


def test_a_released_hold_is_not_taken_again(clock):
    """A hold already released put the win back on the balance: the void takes it from there, as for any win."""
    from wallet.models import WinHold
    from wallet.services import win_hold_release

    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    hold = WinHold.objects.get(pk=_hold_through_compliance(player, body["id"]))
    win_hold_release(hold=hold, actor=STAFF, note="doubt cleared")
    round_void_settled(round_id=body["id"], reason="proxy", actor=STAFF)
    assert balance(player) == 1_000 and WinHold.objects.get(pk=hold.pk).status == "released"
    legs = {(e.account.kind, e.amount) for e in Entry.objects.filter(transaction__reference__endswith=":void:win")}
    assert legs == {("player_main", -200), ("house", 200)}
    _books_clean()


def test_a_held_jackpot_win_of_a_void_bet_comes_from_the_hold_and_the_pool_gets_it_whole(clock):
    """The round's jackpot win is a win of its own (``jackpot:<award>:paid``): held, it is taken from the hold too."""
    from jackpots.models import MICRO, Award
    from jackpots.tests.helpers import central_level
    from wallet.selectors import held_balance

    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, LOSS, {"bets": [{"type": "red", "amount": 1_000}]})  # the 10.00 jackpot at once
    award = Award.objects.get(round_id=body["id"])
    _hold_through_compliance(player, body["id"], win_reference=f"jackpot:{award.pk}:paid")
    assert (balance(player), held_balance(player).amount) == (0, 1_000)
    before = _pool_value("central-bronze")
    round_void_settled(round_id=body["id"], reason="proxy", actor=STAFF)
    assert (balance(player), held_balance(player).amount) == (1_000, 0)  # the stake back, the win from the hold
    assert not Debt.objects.filter(player=player).exists()
    assert _pool_value("central-bronze") == before + (1_000 - 50) * MICRO
    _books_clean()


def test_a_bet_whose_decided_bets_month_is_archived_is_refused_clearly_and_nothing_moves(clock):
    """A round lives 120 months, its decided bet 36: once the bet's month is archived (its totals carried forward)
    the counters could not be corrected, so the void is refused with a clear error instead of half-done."""
    from django.db import connection

    player = funded_player(1_000)
    c = client_for(player)
    body = _spin(c, clock, WIN)
    settled = Round.objects.get(pk=body["id"]).settled_at
    with connection.cursor() as cur:
        cur.execute("CREATE SCHEMA IF NOT EXISTS archive")
        cur.execute(f"CREATE TABLE archive.limits_settledbet_p{settled:%Y%m} (id bigint)")
    with pytest.raises(DomainError) as refused:
        round_void_settled(round_id=body["id"], reason="placed for a betting agent", actor=STAFF)
    assert refused.value.code == errors.VOID_BET_ARCHIVED.code and refused.value.status == 409
    assert balance(player) == 1_100 and Round.objects.get(pk=body["id"]).status == "finished"
