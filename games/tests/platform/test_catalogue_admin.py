"""Catalogue sync from the engine registry, the operator's enable/disable, the admin, last bet settings."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from django.core.management import call_command

from core.audit import Actor
from core.models import AuditEvent
from games.engine import list_games, registry
from games.errors import GAME_NOT_APPROVED
from games.models import Game, Round
from games.services import game_approve, game_set_enabled, games_sync
from games.tests.platform.testgames import PickGame
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, start


def test_the_catalogue_has_a_row_per_registered_game_and_the_sync_is_idempotent():
    codes = {g.code for g in list_games()}
    assert codes <= set(Game.objects.filter(current=True).values_list("code", flat=True))
    before = list(Game.objects.order_by("pk").values_list("pk", "code", "version", "enabled"))
    report = games_sync()
    assert report["created"] == [] and report["errors"] == {}
    assert list(Game.objects.order_by("pk").values_list("pk", "code", "version", "enabled")) == before
    row = Game.objects.get(code="european_roulette", current=True)
    g = registry.get_game("european_roulette")
    assert row.rtp == g.declared.rtp and row.max_bet == g.declared.max_bet and row.max_win == g.declared.max_win
    assert row.avg_hourly_loss == g.declared.avg_hourly_loss and row.description["code"] == "european_roulette"


def test_a_new_engine_version_becomes_current_unapproved_and_rounds_stay_pinned_to_theirs(clock):
    """GP §13(6): a new version starts unapproved: no round on it until staff record its approval."""
    player = funded_player()
    c = client_for(player)
    rid = start(c, game="test_pick", bet={"stake": 100}).json()["id"]
    v2 = PickGame()
    v2.version = 2
    v2.declared = replace(PickGame.declared, unfinished_deadline_days=180)
    registry.register(v2)
    try:
        games_sync()
        row = Game.objects.get(code="test_pick", current=True)
        assert row.version == 2 and row.approval_state == "unapproved" and row.approved_at is None
        act(c, rid, {"pick": 0})
        assert act(c, rid, {"pick": 0}).json()["game"]["version"] == 1  # finished on the version it started on
        clock.shift(2)
        before = balance(player)
        refused = start(c, game="test_pick", bet={"stake": 100})
        assert refused.status_code == 409 and refused.json()["error"]["code"] == GAME_NOT_APPROVED.code
        assert balance(player) == before and Round.objects.filter(player=player).count() == 1
        game_approve(game=row, plan_version="2026-02", reference="MF-1/2026", actor=Actor.system("test"))
        r = start(c, game="test_pick", bet={"stake": 100}).json()
        assert r["game"]["version"] == 2
        new = Round.objects.get(pk=r["id"])
        assert new.deadline == new.started_at + timedelta(days=180)
    finally:
        registry._GAMES["test_pick"].pop(2, None)


def test_disabling_and_enabling_a_game_is_audited_and_idempotent():
    row = Game.objects.get(code="european_roulette", current=True)
    game_set_enabled(game=row, enabled=False, actor=Actor.system("test"))
    game_set_enabled(game=row, enabled=False, actor=Actor.system("test"))
    assert AuditEvent.objects.filter(action="games.game_disabled", object_id=str(row.pk)).count() == 1
    games_sync()
    assert Game.objects.get(pk=row.pk).enabled is False  # a sync never re-enables what the operator disabled
    game_set_enabled(game=row, enabled=True, actor=Actor.system("test"))
    assert Game.objects.get(pk=row.pk).enabled is True


def test_the_games_sync_command_prints_its_report(capsys):
    call_command("games_sync")
    assert '"errors": {}' in capsys.readouterr().out


def test_the_players_last_bet_is_remembered_per_game(clock):
    player = funded_player()
    c = client_for(player)
    start(c, bet={"bets": [{"type": "even", "amount": 200}]})
    clock.shift(2)
    rid = start(c, game="test_pick", bet={"stake": 300}).json()["id"]
    # Money objects: sent back as they are
    assert c.get("/api/v1/games/catalogue/european_roulette").json()["last_bet"] == {
        "bets": [{"type": "even", "amount": {"amount": 200, "currency": "CZK", "formatted": "2,00\xa0Kč"}}]
    }
    assert c.get("/api/v1/games/catalogue/test_pick").json()["last_bet"] == {
        "stake": {"amount": 300, "currency": "CZK", "formatted": "3,00\xa0Kč"}
    }
    launch = c.get("/api/v1/games/catalogue/test_pick").json()
    assert launch["open_round"]["id"] == rid


def test_the_admin_shows_games_and_a_read_only_round_recall_and_disables_a_game(clock, client):
    from tests.kit.accounts import make_staff

    player = funded_player()
    rid = start(client_for(player)).json()["id"]
    staff = make_staff(superuser=True)
    client.force_login(staff)
    assert client.get("/admin/games/game/").status_code == 200
    assert client.get("/admin/games/round/").status_code == 200
    page = client.get(f"/admin/games/round/{rid}/change/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Kroky" in html and "&quot;outcome&quot;: &quot;match&quot;" in html
    row = Game.objects.get(code="european_roulette", current=True)
    r = client.post("/admin/games/game/", {"action": "disable_games", "_selected_action": [row.pk]})
    assert r.status_code == 302
    assert Game.objects.get(pk=row.pk).enabled is False
    assert AuditEvent.objects.filter(action="games.game_disabled", actor_type="staff").exists()
    assert client.post(f"/admin/games/round/{rid}/delete/").status_code in (302, 403)
    assert Round.objects.filter(pk=rid).exists()


def test_staff_end_an_open_round_from_the_admin_and_the_stake_is_returned(clock, client):
    from tests.kit.accounts import make_staff

    player = funded_player(1_000)
    rid = start(client_for(player), game="test_pick", bet={"stake": 100}).json()["id"]
    client.force_login(make_staff(superuser=True))
    r = client.post("/admin/games/round/", {"action": "refund_in_progress", "_selected_action": [rid]})
    assert r.status_code == 302
    assert Round.objects.get(pk=rid).status == "refunded" and balance(player) == 1_000
