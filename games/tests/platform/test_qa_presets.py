"""QA presets (the newcomer's free-spin round): ``GET /api/v1/games/play-money/presets/{code}`` answers,
for the game's current version, the forced draws that trigger each feature of its round start and the bet they were
found with. Development only (``GAMES_QA_FORCED_OUTCOMES``), play money only, as forced draws themselves."""

from __future__ import annotations

import pytest

from games import errors
from games.errors import QA_FORCED_DISABLED, QA_FORCED_REAL_MONEY
from games.models import Game
from games.services import qa
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, key, rounds_count

URL = "/api/v1/games/play-money/presets/kobushi"


def _preset(body: dict, feature: str) -> dict:
    (preset,) = [p for p in body["presets"] if p["feature"] == feature]
    return preset


def test_presets_are_refused_in_the_house_error_shape_while_forced_outcomes_are_off(db, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = False
    c = client_for(funded_player())
    r = c.get(URL, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 403
    error = r.json()["error"]
    assert error["code"] == QA_FORCED_DISABLED.code
    assert error["message"] == errors.QA_FORCED_DISABLED.message_en
    assert error["message_cs"] == errors.QA_FORCED_DISABLED.message_cs
    assert c.get(URL).json()["error"]["message"] == errors.QA_FORCED_DISABLED.message_cs  # Czech by default


def test_presets_are_for_players_only_and_for_games_the_player_can_see(db, settings):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    from rest_framework.test import APIClient

    assert APIClient().get(URL).status_code == 401
    assert client_for(funded_player()).get("/api/v1/games/play-money/presets/no_such_game").status_code == 404


def test_kobushis_free_spin_preset_played_in_play_money_starts_free_spins_and_is_refused_for_real_money(
    clock, settings
):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    player = funded_player(100_000)
    c = client_for(player)
    r = c.get(URL)
    assert r.status_code == 200, r.json()
    body = r.json()
    row = Game.objects.get(code="kobushi", current=True)
    assert body["game"] == "kobushi" and body["version"] == row.version
    assert {p["feature"] for p in body["presets"]} >= {"big_cat_free_spins", "kobushi_bonus"}
    preset = _preset(body, "big_cat_free_spins")
    assert preset["features"] == ["big_cat_free_spins"]
    assert preset["bet"]["coin_value"] == {"amount": 10, "currency": "CZK"}  # the API's Money convention

    # real money: refused, nothing moves
    refused = c.post(
        "/api/v1/games/rounds",
        {"game": "kobushi", "bet": preset["bet"], "forced_draws": preset["forced_draws"]},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key(),
    )
    assert refused.status_code == 403 and refused.json()["error"]["code"] == QA_FORCED_REAL_MONEY.code
    assert rounds_count(player) == 0 and balance(player) == 100_000

    # play money: the round starts free spins, which are played to the end
    started = c.post(
        "/api/v1/games/play-money/rounds",
        {"game": "kobushi", "bet": preset["bet"], "forced_draws": preset["forced_draws"]},
        format="json",
        HTTP_IDEMPOTENCY_KEY=key(),
    )
    assert started.status_code == 201, started.json()
    rnd = started.json()
    assert rnd["play_money"] and rnd["forced_outcome"] and rnd["steps"][0]["features"] == ["big_cat_free_spins"]
    assert rnd["status"] == "in_progress" and rnd["pending"]["type"] == "free_spin"
    for _ in range(200):
        if rnd["status"] != "in_progress":
            break
        rnd = act(c, rnd["id"], rnd["pending"]["options"][0]).json()
    assert rnd["status"] == "finished" and balance(player) == 100_000
    assert c.get(f"/api/v1/games/rounds/{rnd['id']}/verify").json()["outcome"] == "match"


def test_presets_are_searched_once_per_game_version_in_a_process(db, settings, monkeypatch):
    settings.GAMES_QA_FORCED_OUTCOMES = True
    searches = []

    def search(code: str, version: int) -> dict:
        searches.append((code, version))
        return {"bet": None, "presets": [], "searched_seeds": 0, "complete": True}

    monkeypatch.setattr(qa, "_PRESETS", {})
    monkeypatch.setattr(qa, "search_presets", search)
    assert qa.game_presets("kobushi", 1) == qa.game_presets("kobushi", 1)
    qa.game_presets("kobushi", 2)
    assert searches == [("kobushi", 1), ("kobushi", 2)]


def test_the_search_is_bounded_by_seeds_and_by_time():
    quick = qa.search_presets("kobushi", max_seeds=300)
    assert quick["searched_seeds"] == 300 and quick["complete"]
    assert [p["feature"] for p in quick["presets"]] == ["kobushi_bonus"]  # seed 288; free spins first at 517
    timed = qa.search_presets("kobushi", max_seconds=0)
    assert not timed["complete"] and timed["searched_seeds"] < 300


@pytest.mark.parametrize("feature", ["big_cat_free_spins", "kobushi_bonus"])
def test_a_presets_draws_replay_the_round_start_that_triggers_its_feature(feature):
    from games.engine import ReplayRNG, registry

    found = qa.search_presets("kobushi")
    preset = next(p for p in found["presets"] if p["feature"] == feature)
    g = registry.get_game("kobushi")
    state = g.start(g.validate_bet(found["bet"]), ReplayRNG(preset["forced_draws"]))
    assert qa.start_features(state) == [feature]
