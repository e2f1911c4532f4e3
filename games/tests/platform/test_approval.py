"""Only the games of the approved game plan (GP §1 and §2: Part two of the plan the Ministry of Finance approved is
the complete list of games; GP §13(6): a change needs its approval), and each game's maximum hourly loss (GP §7(2)).

The conftest approves the current versions (test data); each test here takes a version's approval away or records
it itself."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from games import errors
from games.errors import APPROVAL_INVALID, APPROVAL_TRANSITION, GAME_NOT_APPROVED, GAME_NOT_FOUND
from games.models import Game, Round
from games.services import game_approval_withdraw, game_approve, games_sync
from limits.models import OpenBet, SettledBet
from tests.kit.accounts import make_staff
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, START, act, balance, funded_player, play_money, start

STAFF = Actor.system("test")


def _row(code: str = ROULETTE) -> Game:
    return Game.objects.get(code=code, current=True)


def _unapprove(code: str = ROULETTE) -> Game:
    """The version as the sync leaves a new one: not approved (test set-up, no service)."""
    Game.objects.filter(code=code, current=True).update(
        approval_state=Game.Approval.UNAPPROVED, approval_plan_version="", approval_reference="", approved_at=None
    )
    return _row(code)


# --- real money and play money --------------------------------------------------------------------------------------
@pytest.mark.parametrize("state", ["unapproved", "withdrawn"])
def test_a_real_money_round_on_a_version_not_approved_is_refused_and_nothing_changes(clock, state):
    player = funded_player(10_000)
    c = client_for(player)
    row = _unapprove()
    if state == "withdrawn":
        game_approve(game=row, plan_version="2026-01", reference="MF-1/2026", actor=STAFF)
        game_approval_withdraw(game=row, reason="left the plan", actor=STAFF)
    audit_before = AuditEvent.objects.count()
    r = start(c)
    assert r.status_code == 409
    error = r.json()["error"]
    assert error["code"] == errors.GAME_NOT_APPROVED.code == "game.not_approved"
    assert error["message_cs"] == errors.GAME_NOT_APPROVED.message_cs and "13 odst. 6" in error["message_cs"]
    assert error["message_en"] == errors.GAME_NOT_APPROVED.message_en
    assert error["details"] == {"game": ROULETTE, "version": row.version, "approval_state": state}
    assert balance(player) == 10_000 and Round.objects.filter(player=player).count() == 0
    assert not SettledBet.objects.filter(player=player).exists() and not OpenBet.objects.filter(player=player).exists()
    assert AuditEvent.objects.count() == audit_before
    # the other side: the same request once the version is approved plays
    game_approve(game=_row(), plan_version="2026-02", reference="MF-2/2026", actor=STAFF)
    assert start(c).status_code == 201


def test_the_approval_is_read_with_the_game_row_the_round_reads_anyway(clock):
    """No statement of its own: the round context reads the game row (switch, approval, names) in one statement."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from core.sql import readable

    player = funded_player(10_000)
    c = client_for(player)
    _unapprove()
    with CaptureQueriesContext(connection) as ctx:
        assert start(c).json()["error"]["code"] == GAME_NOT_APPROVED.code
    assert len([q for q in ctx.captured_queries if "games_game" in readable(q["sql"])]) == 1


def test_players_get_no_version_not_approved_in_play_money_either(clock):
    player = funded_player(0)
    c = client_for(player)
    _unapprove()
    r = play_money(c)
    assert r.status_code == 409 and r.json()["error"]["code"] == GAME_NOT_APPROVED.code
    assert Round.objects.filter(player=player).count() == 0
    game_approve(game=_row(), plan_version="2026-01", reference="MF-1/2026", actor=STAFF)
    assert play_money(c).status_code == 201


def test_a_round_in_progress_is_finished_after_its_version_loses_the_approval(clock):
    """GP §7(6): the bet was placed; withdrawing the approval stops new rounds only."""
    player = funded_player(1_000)
    c = client_for(player)
    rid = start(c, game="test_pick", bet={"stake": 100}).json()["id"]
    game_approval_withdraw(game=_row("test_pick"), reason="left the plan", actor=STAFF)
    act(c, rid, {"pick": 0})
    assert act(c, rid, {"pick": 0}).json()["status"] == "finished"
    clock.shift(2)
    assert start(c, game="test_pick", bet={"stake": 100}).json()["error"]["code"] == GAME_NOT_APPROVED.code


# --- the catalogue ----------------------------------------------------------------------------------------------------
def _codes(response: Any) -> set[str]:
    assert response.status_code == 200, response.content
    return {g["code"] for g in response.json()["results"]}


def test_the_catalogue_offers_players_only_approved_versions_and_shows_staff_the_others(client):
    _unapprove()
    player_client = client_for(funded_player(0))
    for c in (client, player_client):  # anonymous and a player
        assert ROULETTE not in _codes(c.get("/api/v1/games/catalogue?page_size=200"))
        assert "kobushi" in _codes(c.get("/api/v1/games/catalogue?page_size=200"))
        r = c.get(f"/api/v1/games/catalogue/{ROULETTE}")
        assert r.status_code == 404 and r.json()["error"]["code"] == GAME_NOT_FOUND.code
    approved = client.get("/api/v1/games/catalogue/kobushi").json()["game"]["approval"]
    assert approved == {
        "state": "approved",
        "plan_version": "tests",
        "reference": "test data - not a decision of the Ministry of Finance",
    }
    from rest_framework.test import APIClient

    staff_client = APIClient()
    staff_client.force_login(make_staff(role="game_manager"))  # a staff session (no second factor required here)
    rows = {g["code"]: g for g in staff_client.get("/api/v1/games/catalogue?page_size=200").json()["results"]}
    assert rows[ROULETTE]["approval"] == {"state": "unapproved", "plan_version": "", "reference": ""}
    assert staff_client.get(f"/api/v1/games/catalogue/{ROULETTE}").json()["game"]["approval"]["state"] == "unapproved"


def test_staff_without_the_second_factor_see_what_players_see(client, settings):
    settings.ADMIN_REQUIRE_2FA = True
    _unapprove()
    client.force_login(make_staff())  # a session not verified with a one-time password
    assert ROULETTE not in _codes(client.get("/api/v1/games/catalogue?page_size=200"))
    assert client.get(f"/api/v1/games/catalogue/{ROULETTE}").status_code == 404


# --- the staff services --------------------------------------------------------------------------------------------
def test_staff_record_an_approval_with_plan_version_and_reference_audited_with_their_name(clock):
    staff = make_staff()
    row = _unapprove()
    game_approve(game=row, plan_version=" 2026-01 ", reference="MF-37814/2016/1", actor=Actor.staff(staff))
    row.refresh_from_db()
    assert (row.approval_state, row.approval_plan_version, row.approval_reference) == (
        "approved",
        "2026-01",
        "MF-37814/2016/1",
    )
    assert row.approved_by_id == staff.pk and row.approved_at == START
    event = AuditEvent.objects.get(action="games.game_approved", object_id=str(row.pk))
    assert event.actor_type == "staff" and event.actor_label == staff.username
    old, new = event.old_values or {}, event.new_values or {}
    assert old["approval_state"] == "unapproved" and new["approval_state"] == "approved"
    assert new["approval_reference"] == "MF-37814/2016/1" and new["approved_by_id"] == staff.pk
    # the same approval again records nothing; a new plan version is an update, audited with both
    game_approve(game=row, plan_version="2026-01", reference="MF-37814/2016/1", actor=Actor.staff(staff))
    assert AuditEvent.objects.filter(action="games.game_approved", object_id=str(row.pk)).count() == 1
    game_approve(game=row, plan_version="2026-07", reference="MF-2/2026", actor=Actor.staff(staff))
    latest = AuditEvent.objects.filter(action="games.game_approved", object_id=str(row.pk)).order_by("-id").first()
    assert latest is not None and (latest.old_values or {})["approval_plan_version"] == "2026-01"
    assert (latest.new_values or {})["approval_plan_version"] == "2026-07"


@pytest.mark.parametrize(
    ("plan_version", "reference", "field"),
    [
        ("", "MF-1/2026", "plan_version"),
        ("   ", "MF-1/2026", "plan_version"),
        ("x" * 41, "MF-1/2026", "plan_version"),
        ("2026-01", "", "reference"),
        ("2026-01", "r" * 121, "reference"),
    ],
)
def test_an_approval_without_plan_version_or_reference_is_refused(plan_version, reference, field):
    row = _unapprove()
    with pytest.raises(DomainError) as exc:
        game_approve(game=row, plan_version=plan_version, reference=reference, actor=STAFF)
    assert exc.value.code == APPROVAL_INVALID.code and exc.value.details["field"] == field
    assert _row().approval_state == "unapproved"


def test_the_longest_plan_version_and_reference_are_accepted():
    row = _unapprove()
    game_approve(game=row, plan_version="x" * 40, reference="r" * 120, actor=STAFF)
    assert _row().approved


def test_withdrawing_needs_a_reason_and_an_approval_and_a_withdrawn_version_can_be_approved_again():
    row = _unapprove()
    with pytest.raises(DomainError) as exc:
        game_approval_withdraw(game=row, reason="left the plan", actor=STAFF)
    assert exc.value.code == APPROVAL_TRANSITION.code
    assert exc.value.details == {
        "current": "unapproved",
        "target": "withdrawn",
        "reason": "left the plan",
        "game": f"{ROULETTE}@{row.version}",
    }
    game_approve(game=row, plan_version="2026-01", reference="MF-1/2026", actor=STAFF)
    with pytest.raises(DomainError) as exc:
        game_approval_withdraw(game=row, reason="  ", actor=STAFF)
    assert exc.value.code == APPROVAL_INVALID.code and _row().approved
    game_approval_withdraw(game=row, reason="left the plan", actor=STAFF)
    withdrawn = _row()
    assert withdrawn.approval_state == "withdrawn" and withdrawn.approval_reference == "MF-1/2026"  # kept
    event = AuditEvent.objects.get(action="games.game_approval_withdrawn", object_id=str(row.pk))
    assert event.details["reason"] == "left the plan"
    game_approve(game=row, plan_version="2026-02", reference="MF-2/2026", actor=STAFF)
    assert _row().approved


def test_the_database_refuses_an_approval_without_plan_version_or_reference():
    with pytest.raises(IntegrityError), transaction.atomic():
        Game.objects.filter(code=ROULETTE, current=True).update(approval_state="approved", approval_reference="")


def test_a_sync_keeps_every_approval_and_never_approves():
    approved = _row()
    unapproved = _unapprove("kobushi")
    games_sync()
    assert _row().approved and _row().approval_reference == approved.approval_reference
    assert _row("kobushi").approval_state == "unapproved" == unapproved.approval_state


def test_the_demo_approves_its_games_as_the_demo_operator_once(django_user_model):
    import io

    from core.management.commands.seed_demo import DEMO_ADMIN
    from games.demo import DEMO_REFERENCE, seed

    operator = django_user_model.objects.create(username=DEMO_ADMIN[0], is_staff=True, is_superuser=True)
    _unapprove()
    _unapprove("kobushi")
    out = io.StringIO()
    seed(out)
    for code in (ROULETTE, "kobushi"):
        row = _row(code)
        assert row.approved and row.approval_reference == DEMO_REFERENCE and row.approved_by_id == operator.pk
    assert "approved (DEMO - not a decision of the Ministry of Finance)" in out.getvalue()
    events = AuditEvent.objects.filter(action="games.game_approved").count()
    assert events == 2
    seed(io.StringIO())
    assert AuditEvent.objects.filter(action="games.game_approved").count() == events


# --- the admin --------------------------------------------------------------------------------------------------------
def test_staff_record_and_withdraw_an_approval_in_the_admin(client):
    staff = make_staff(superuser=True)
    client.force_login(staff)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"  # the English labels
    row = _unapprove()
    form = client.post("/admin/games/game/", {"action": "approve_games", "_selected_action": [row.pk]})
    assert form.status_code == 200 and "Game plan version" in form.content.decode()
    assert _row().approval_state == "unapproved"
    empty = client.post(
        "/admin/games/game/",
        {"action": "approve_games", "_selected_action": [row.pk], "apply": "1", "plan_version": "", "reference": ""},
    )
    assert empty.status_code == 200 and _row().approval_state == "unapproved"  # the form again, with its errors
    done = client.post(
        "/admin/games/game/",
        {
            "action": "approve_games",
            "_selected_action": [row.pk],
            "apply": "1",
            "plan_version": "2026-01",
            "reference": "MF-37814/2016/1",
        },
    )
    assert done.status_code == 302
    approved = _row()
    assert approved.approved and approved.approved_by_id == staff.pk and approved.approval_plan_version == "2026-01"
    assert AuditEvent.objects.filter(action="games.game_approved", actor_type="staff", object_id=str(row.pk)).exists()
    assert client.get("/admin/games/game/").status_code == 200
    client.post(
        "/admin/games/game/",
        {"action": "withdraw_approval", "_selected_action": [row.pk], "apply": "1", "reason": "removed from the plan"},
    )
    assert _row().approval_state == "withdrawn"


def test_staff_without_the_change_permission_get_no_approval_action(client):
    client.force_login(make_staff())
    row = _unapprove()
    client.post(
        "/admin/games/game/",
        {
            "action": "approve_games",
            "_selected_action": [row.pk],
            "apply": "1",
            "plan_version": "2026-01",
            "reference": "MF-1/2026",
        },
    )
    assert _row().approval_state == "unapproved"


# --- GP §7(2): the maximum hourly loss --------------------------------------------------------------------------------
def _declared(client: Any, code: str) -> dict[str, Any]:
    return client.get(f"/api/v1/games/catalogue/{code}").json()["game"]["declared"]


@pytest.mark.parametrize("code", [ROULETTE, "kobushi"])
def test_each_game_states_its_maximum_hourly_loss_every_round_lost_at_max_bet_one_start_every_2_seconds(
    client, settings, code
):
    max_bet = _row(code).max_bet
    rounds_an_hour = 3600 // 2  # GP §7(9): a round never lasts less than 2 seconds
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": max_bet * rounds_an_hour * 10}  # a cap far above
    declared = _declared(client, code)
    assert declared["max_hourly_loss_at_max_pace"]["amount"] == max_bet * rounds_an_hour
    assert declared["max_hourly_loss"]["amount"] == max_bet * rounds_an_hour
    listed = {g["code"]: g for g in client.get("/api/v1/games/catalogue?page_size=200").json()["results"]}
    assert listed[code]["declared"]["max_hourly_loss"] == declared["max_hourly_loss"]
    assert declared["max_hourly_loss"]["amount"] > declared["avg_hourly_loss"]["amount"]


def test_the_platforms_hourly_loss_cap_bounds_the_maximum_on_both_sides_of_it(client, settings):
    """GP §8(5): the platform refuses a stake that would pass its hourly-loss cap, so a player can lose at most the
    lower of the two figures."""
    at_pace = _row().max_bet * 1800
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": at_pace}  # the cap exactly at the game's figure
    assert _declared(client, ROULETTE)["max_hourly_loss"]["amount"] == at_pace
    settings.GP = {**settings.GP, "MAX_HOURLY_LOSS": at_pace - 1}  # one haléř below
    declared = _declared(client, ROULETTE)
    assert declared["max_hourly_loss"]["amount"] == at_pace - 1
    assert declared["max_hourly_loss_at_max_pace"]["amount"] == at_pace
