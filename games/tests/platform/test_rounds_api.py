"""Rounds through the API: launch, play, interactive rounds, resume, spacing, idempotency, recall, isolation."""

from __future__ import annotations

import pytest

from core.errors import NOT_A_PLAYER
from core.idempotency import KEY_CONFLICT, KEY_REQUIRED
from core.rng import SeededRNG, use_rng
from games.errors import (
    GAME_DISABLED,
    GAME_NOT_FOUND,
    ROUND_IN_PROGRESS,
    ROUND_NOT_FOUND,
    ROUND_NOT_IN_PROGRESS,
    ROUND_TOO_SOON,
)
from games.models import Game, Round, RoundAction
from games.tests.platform.testgames import FixedRNG
from limits.errors import BREAK_REQUIRED, DAILY_STAKE_EXCEEDED
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import RED_100, ROULETTE, act, balance, funded_player, key, rounds_count, start

PICK = "test_pick"


def test_the_catalogue_lists_games_with_declared_rtp_max_bet_max_win_and_hourly_loss(clock):
    c = client_for(funded_player())
    r = c.get("/api/v1/games/catalogue")
    assert r.status_code == 200
    games = {g["code"]: g for g in r.json()["results"]}
    roulette = games[ROULETTE]
    assert roulette["declared"]["rtp"] == "97.29"
    assert roulette["declared"]["max_bet"]["amount"] == 100_000
    assert roulette["declared"]["max_win"]["amount"] == 3_600_000
    assert roulette["declared"]["avg_hourly_loss"]["amount"] == 4_878_000  # 1,000 CZK x 2.71 % x 1,800 rounds
    assert roulette["declared"]["unfinished_deadline_days"] == 180
    assert roulette["rules_cs"] and roulette["rules_en"]
    # hit frequency, volatility and how the RTP is known (games.engine.figures, checked against the PAR sheets)
    assert roulette["declared"]["rtp_basis"] == "exact" and roulette["declared"]["rtp_range"] is None
    assert roulette["declared"]["hit_frequency_percent"] == "51.34" and roulette["declared"]["volatility"] == "1.17"
    beiro = games["ismael_beiro"]["declared"]
    assert beiro["rtp_range"] == {"min": "93.15", "max": "93.35"} and beiro["rtp_basis"] == "simulated"
    assert games["falling_idols"]["declared"]["max_win"]["amount"] == 5_000_000  # at the 20 CZK bet offered


def test_the_catalogue_is_public_but_the_launch_of_a_player_adds_their_last_bet_and_open_round(clock):
    from rest_framework.test import APIClient

    r = APIClient().get(f"/api/v1/games/catalogue/{ROULETTE}")
    assert r.status_code == 200
    body = r.json()
    assert body["game"]["description"]["bet_types"] and body["last_bet"] is None and body["open_round"] is None
    player = funded_player()
    c = client_for(player)
    assert start(c, bet={"bets": [{"type": "black", "amount": 300}]}).status_code == 201
    launch = c.get(f"/api/v1/games/catalogue/{ROULETTE}").json()
    assert launch["last_bet"] == {
        "bets": [{"type": "black", "amount": {"amount": 300, "currency": "CZK", "formatted": "3,00\xa0Kč"}}]
    }
    # the last bet as answered is a valid request body: a client may send it back as it is
    clock.shift(2)
    assert start(c, bet=launch["last_bet"]).status_code == 201
    assert launch["open_round"] is None


def test_an_unknown_game_is_404(clock):
    c = client_for(funded_player())
    assert c.get("/api/v1/games/catalogue/nope").json()["error"]["code"] == GAME_NOT_FOUND.code
    r = start(c, game="nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == GAME_NOT_FOUND.code


def test_a_player_plays_roulette_rounds_and_the_wallet_moves_by_stake_and_win(clock):
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(1)):  # pocket 1: red wins 2x
        r = start(c)
    assert r.status_code == 201, r.json()
    body = r.json()
    assert body["status"] == "finished" and body["game"]["code"] == ROULETTE and body["game"]["version"] == 1
    assert body["stake"]["amount"] == 100 and body["win"]["amount"] == 200
    assert body["balance_before"]["amount"] == 10_000 and body["balance_after"]["amount"] == 10_100
    assert body["draws"] == [[37, 1]] and body["steps"][0]["number"] == 1
    assert balance(player) == 10_100
    clock.shift(2)
    with use_rng(FixedRNG(0)):  # zero: red loses
        r = start(c)
    assert r.json()["win"]["amount"] == 0 and r.json()["balance_after"]["amount"] == 10_000
    assert balance(player) == 10_000
    rnd = Round.objects.get(pk=r.json()["id"])
    assert rnd.settled_at == rnd.started_at and rnd.deadline.date().isoformat() == "2026-08-29"  # +180 days


def test_two_starts_1_99_s_apart_are_refused_and_2_00_s_apart_allowed(clock):
    """GP §7(9): a round never lasts less than 2 seconds."""
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        assert start(c).status_code == 201
        clock.shift(1.99)
        before = balance(player)
        r = start(c)
        assert r.status_code == 429 and r.json()["error"]["code"] == ROUND_TOO_SOON.code
        assert r.json()["error"]["details"]["retry_after_ms"] == 10
        assert balance(player) == before and rounds_count(player) == 1
        clock.shift(0.01)
        assert start(c).status_code == 201
    assert rounds_count(player) == 2


def test_the_two_second_rule_refusal_carries_retry_after(clock):
    """GP §7(9): the 429 of a start less than 2 s after the last one says when to retry (``Retry-After``, whole
    seconds rounded up, RFC 9110), as every 429 of the API does."""
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        assert start(c).status_code == 201
        clock.shift(0.5)
        r = start(c)
    assert r.status_code == 429 and r.json()["error"]["details"]["retry_after_ms"] == 1500
    assert r["Retry-After"] == "2"


def test_an_interactive_round_completes_through_actions_and_is_settled_once(clock):
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(2, 3)):  # prizes x2 then x5
        r = start(c, game=PICK, bet={"stake": 100})
        assert r.status_code == 201
        rnd = r.json()
        assert rnd["status"] == "in_progress" and rnd["pending"]["type"] == "pick"
        assert rnd["balance_after"] is None and balance(player) == 9_900
        clock.shift(5)
        r = act(c, rnd["id"], {"pick": 2})
        assert r.status_code == 200 and r.json()["status"] == "in_progress"
        assert r.json()["win_engine"]["amount"] == 200 and r.json()["win"]["amount"] == 0
        r = act(c, rnd["id"], {"pick": 0})
    body = r.json()
    assert body["status"] == "finished" and body["win"]["amount"] == 700 and body["pending"] is None
    assert [s["type"] for s in body["steps"]] == ["spin", "pick", "pick"]
    assert [a["action"] for a in body["actions"]] == [{"pick": 2}, {"pick": 0}]
    assert body["balance_after"]["amount"] == 10_600 and balance(player) == 10_600
    r = act(c, rnd["id"], {"pick": 1})
    assert r.status_code == 409 and r.json()["error"]["code"] == ROUND_NOT_IN_PROGRESS.code
    assert balance(player) == 10_600


def test_a_player_who_disconnects_mid_round_resumes_it_where_it_stopped(clock):
    """GP §7(8)b: a round that needs the player resumes at the next login."""
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(1, 2)):
        rid = start(c, game=PICK, bet={"stake": 50}).json()["id"]
        act(c, rid, {"pick": 1})
    # The player goes away (just stops calling); later a new session (new token) comes back.
    clock.shift(3 * 24 * 3600)
    c2 = client_for(player)
    opened = c2.get("/api/v1/games/rounds/open").json()["round"]
    assert opened["id"] == rid and opened["pending"]["stage"] == 2 and opened["win_engine"]["amount"] == 50
    launch = c2.get(f"/api/v1/games/catalogue/{ROULETTE}").json()
    assert launch["open_round"]["id"] == rid
    refused = start(c2)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == ROUND_IN_PROGRESS.code
    assert refused.json()["error"]["details"]["round_id"] == rid
    r = act(c2, rid, {"pick": 0})
    assert r.json()["status"] == "finished" and r.json()["win"]["amount"] == 150
    assert c2.get("/api/v1/games/rounds/open").json()["round"] is None
    assert balance(player) == 10_000 - 50 + 150


def test_an_open_round_hides_its_draws_and_hidden_state_until_it_ends(clock):
    c = client_for(funded_player())
    with use_rng(FixedRNG(3, 3)):
        body = start(c, game=PICK, bet={"stake": 100}).json()
        assert body["draws"] is None and "hidden" not in body["state"]
        opened = c.get("/api/v1/games/rounds/open").json()["round"]
        assert opened["draws"] is None and "hidden" not in opened["state"]
        act(c, body["id"], {"pick": 0})
        done = act(c, body["id"], {"pick": 0}).json()
    assert done["draws"] == [[4, 3], [4, 3]]


def test_a_second_stake_while_a_round_is_open_is_refused_and_nothing_changes(clock):
    """GP §7(6): from placing a bet until it is settled no other bet."""
    player = funded_player(10_000)
    c = client_for(player)
    rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
    clock.shift(60)
    before = balance(player)
    for game, bet in ((ROULETTE, RED_100), (PICK, {"stake": 100})):
        r = start(c, game=game, bet=bet)
        assert r.status_code == 409 and r.json()["error"]["code"] == ROUND_IN_PROGRESS.code
    assert balance(player) == before and rounds_count(player) == 1
    assert Round.objects.get(pk=rid).status == "in_progress"


def test_a_replayed_idempotency_key_returns_the_same_round_and_moves_nothing(clock):
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(1)):
        r1 = start(c, idem="spin-1")
    clock.shift(0.5)  # a retry within the 2 s is still a replay, not a new round
    with use_rng(FixedRNG(0)):
        r2 = start(c, idem="spin-1")
    assert r1.status_code == 201 and r2.status_code == 201 and r2["Idempotent-Replayed"] == "true"
    assert r1.json() == r2.json()
    assert rounds_count(player) == 1 and balance(player) == 10_100


def test_the_service_itself_is_idempotent_on_the_player_and_key(clock):
    from core.audit import Actor
    from games.services import round_play

    player = funded_player(10_000)
    with use_rng(FixedRNG(1)):
        a = round_play(
            player=player, game_code=ROULETTE, bet=RED_100, idempotency_key="svc", actor=Actor.player(player)
        )
        b = round_play(
            player=player, game_code=ROULETTE, bet=RED_100, idempotency_key="svc", actor=Actor.player(player)
        )
    assert a.pk == b.pk and b.replayed and balance(player) == 10_100
    from core.errors import DomainError

    with pytest.raises(DomainError) as exc:
        round_play(
            player=player,
            game_code=ROULETTE,
            bet={"bets": [{"type": "black", "amount": 100}]},
            idempotency_key="svc",
            actor=Actor.player(player),
        )
    assert exc.value.code == KEY_CONFLICT.code and balance(player) == 10_100


def test_an_action_replayed_with_its_key_moves_nothing(clock):
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(1, 1)):
        rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
        first = act(c, rid, {"pick": 1}, idem="a1")
        again = act(c, rid, {"pick": 1}, idem="a1")
    assert first.json() == again.json()
    assert RoundAction.objects.filter(round_id=rid).count() == 1
    assert Round.objects.get(pk=rid).actions == [{"pick": 1}]


def test_calls_without_an_idempotency_key_are_refused_and_change_nothing(clock):
    player = funded_player(10_000)
    c = client_for(player)
    r = c.post("/api/v1/games/rounds", {"game": ROULETTE, "bet": api_bet(RED_100)}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == KEY_REQUIRED.code
    assert rounds_count(player) == 0 and balance(player) == 10_000


def test_an_invalid_bet_is_refused_with_the_engine_code_and_nothing_changes(clock):
    player = funded_player(10_000)
    c = client_for(player)
    cases = [
        ({"bets": [{"type": "straight", "numbers": [1, 2], "amount": 100}]}, "game.roulette.invalid_numbers"),
        ({"bets": [{"type": "red", "amount": 105}]}, "game.stake_step"),
        ({"bets": [{"type": "red", "amount": 100_010}]}, "game.roulette.bet_above_max"),
        ({"bets": []}, "game.roulette.no_bets"),
        ({"nonsense": 1}, "game.invalid_bet"),
    ]
    for bet, code in cases:
        r = start(c, bet=bet)
        assert r.status_code == 422 and r.json()["error"]["code"] == code, (bet, r.json())
        assert r.json()["error"]["message_cs"] and r.json()["error"]["message_en"]
    assert rounds_count(player) == 0 and balance(player) == 10_000


def test_an_invalid_action_is_refused_with_the_engine_code_and_nothing_changes(clock):
    player = funded_player(10_000)
    c = client_for(player)
    rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
    r = act(c, rid, {"pick": 7})
    assert r.status_code == 422 and r.json()["error"]["code"] == "game.test_pick.invalid_pick"
    assert r.json()["error"]["details"]["pick"] == 7
    rnd = Round.objects.get(pk=rid)
    assert rnd.actions == [] and len(rnd.draws) == 1 and balance(player) == 9_900


def test_a_stake_above_the_balance_is_refused_by_the_wallet_and_nothing_changes(clock):
    player = funded_player(50)
    c = client_for(player)
    r = start(c)
    assert r.status_code in (402, 409, 422) and r.json()["error"]["code"].startswith("wallet.")
    assert rounds_count(player) == 0 and balance(player) == 50


def test_an_engine_malfunction_at_start_voids_the_round_and_returns_the_stake(clock):
    player = funded_player(10_000)
    c = client_for(player)
    r = start(c, game=PICK, bet={"stake": 100, "boom": "start"})
    assert r.status_code == 201
    body = r.json()
    assert body["status"] == "voided" and body["void_reason"] == "malfunction" and body["win"]["amount"] == 0
    assert balance(player) == 10_000 and body["balance_after"]["amount"] == 10_000
    rnd = Round.objects.get(pk=body["id"])
    assert "reel motor on fire" in rnd.void_detail
    verify = c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()
    assert verify["outcome"] == "malfunction_reproduced" and verify["verified"] is True
    clock.shift(2)
    assert start(c).status_code == 201  # nothing is left open


def test_a_malfunction_during_an_action_voids_the_round_and_returns_the_stake(clock):
    player = funded_player(10_000)
    c = client_for(player)
    rid = start(c, game=PICK, bet={"stake": 100, "boom": "act"}).json()["id"]
    assert balance(player) == 9_900
    r = act(c, rid, {"pick": 1})
    assert r.status_code == 200 and r.json()["status"] == "voided" and r.json()["void_reason"] == "malfunction"
    assert balance(player) == 10_000
    assert "divided by zero" in Round.objects.get(pk=rid).void_detail


def test_another_players_round_is_404_everywhere(clock):
    owner, other = funded_player(), funded_player()
    rid = start(client_for(owner), game=PICK, bet={"stake": 100}).json()["id"]
    c = client_for(other)
    for r in (
        c.get(f"/api/v1/games/rounds/{rid}"),
        c.get(f"/api/v1/games/rounds/{rid}/verify"),
        act(c, rid, {"pick": 0}),
    ):
        assert r.status_code == 404 and r.json()["error"]["code"] == ROUND_NOT_FOUND.code
    assert c.get("/api/v1/games/rounds/open").json()["round"] is None
    assert c.get("/api/v1/games/rounds").json()["count"] == 0
    assert Round.objects.get(pk=rid).actions == []


def test_recall_shows_the_last_10_rounds_and_a_replay_of_each_matches(clock):
    player = funded_player(100_000)
    c = client_for(player)
    ids = []
    with use_rng(SeededRNG(7)):
        for i in range(12):
            if i % 3 == 0:
                rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
                act(c, rid, {"pick": i % 3})
                act(c, rid, {"pick": 2})
            else:
                rid = start(
                    c,
                    bet={"bets": [{"type": "straight", "numbers": [i], "amount": 100}, {"type": "odd", "amount": 200}]},
                ).json()["id"]
            ids.append(rid)
            clock.shift(2)
    page = c.get("/api/v1/games/rounds").json()
    assert page["count"] == 12 and [r["id"] for r in page["results"]] == ids[::-1][:10]
    for r in page["results"]:
        assert r["status"] == "finished" and r["steps"] and r["bet"]
        assert r["balance_before"] is not None and r["balance_after"] is not None
        assert r["balance_after"]["amount"] == r["balance_before"]["amount"] - r["stake"]["amount"] + r["win"]["amount"]
        v = c.get(f"/api/v1/games/rounds/{r['id']}/verify").json()
        assert v["verified"] is True and v["outcome"] == "match", v
        one = c.get(f"/api/v1/games/rounds/{r['id']}").json()
        assert one == r
    assert [r["id"] for r in c.get("/api/v1/games/rounds?page=2").json()["results"]] == ids[:2][::-1]
    from django.core.management import call_command

    call_command("ledger_check")


def test_a_tampered_round_fails_the_replay_check(clock):
    player = funded_player()
    c = client_for(player)
    with use_rng(FixedRNG(1)):
        rid = start(c).json()["id"]
    Round.objects.filter(pk=rid).update(draws=[[37, 2]])
    v = c.get(f"/api/v1/games/rounds/{rid}/verify").json()
    assert v["verified"] is False and v["outcome"] == "mismatch"


def test_a_disabled_game_starts_no_round_but_an_open_round_can_still_be_finished(clock):
    from core.audit import Actor
    from games.services import game_set_enabled

    player = funded_player(10_000)
    c = client_for(player)
    rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
    game = Game.objects.get(code=PICK, current=True)
    game_set_enabled(game=game, enabled=False, actor=Actor.system("test"))
    assert PICK not in [g["code"] for g in c.get("/api/v1/games/catalogue").json()["results"]]
    act(c, rid, {"pick": 0})
    assert act(c, rid, {"pick": 0}).json()["status"] == "finished"
    clock.shift(2)
    r = start(c, game=PICK, bet={"stake": 100})
    assert r.status_code == 409 and r.json()["error"]["code"] == GAME_DISABLED.code
    assert rounds_count(player) == 1


def test_a_win_above_the_max_win_per_round_is_capped_and_the_capping_recorded(clock, settings, monkeypatch):
    """GP §8(3): the win credited is capped at limits.services.max_win_per_round(); the round records the capping.
    (The catalogue normally lowers a game's max bet so that the cap never bites; this is the safety net behind it, so
    the test keeps the declared max bet.)"""
    import games.services.rounds

    monkeypatch.setattr(games.services.rounds, "offered_figures", lambda d: {"max_bet": d.max_bet})
    settings.GP = {**settings.GP, "MAX_WIN_PER_ROUND": 1_000}
    player = funded_player(10_000)
    c = client_for(player)
    with use_rng(FixedRNG(17)):
        r = start(c, bet={"bets": [{"type": "straight", "numbers": [17], "amount": 100}]})
    body = r.json()
    assert body["win_engine"]["amount"] == 3_600 and body["win"]["amount"] == 1_000 and body["win_capped"] is True
    assert balance(player) == 10_000 - 100 + 1_000


def test_no_request_produces_a_500(clock):
    player = funded_player()
    c = client_for(player)
    rid = start(c, game=PICK, bet={"stake": 100}).json()["id"]
    junk = [
        c.post("/api/v1/games/rounds", {"game": ROULETTE, "bet": [1, 2]}, format="json", HTTP_IDEMPOTENCY_KEY=key()),
        c.post("/api/v1/games/rounds", {"bet": api_bet(RED_100)}, format="json", HTTP_IDEMPOTENCY_KEY=key()),
        c.post(
            "/api/v1/games/rounds",
            {"game": ROULETTE, "bet": api_bet(RED_100), "forced_draws": "x"},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post("/api/v1/games/rounds", "not json", content_type="application/json", HTTP_IDEMPOTENCY_KEY=key()),
        c.post(
            "/api/v1/games/rounds",
            {"game": {"a": 1}, "bet": api_bet(RED_100)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(
            "/api/v1/games/rounds",
            {"game": ROULETTE, "bet": {"bets": [{"type": "red", "amount": 1e9}]}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(
            "/api/v1/games/rounds",
            {"game": ROULETTE, "bet": {"bets": [None, "x", 3]}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(
            "/api/v1/games/rounds",
            {"game": ROULETTE, "bet": {"bets": [{"type": ["red"], "amount": 100}]}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(f"/api/v1/games/rounds/{rid}/actions", {"action": "pick"}, format="json", HTTP_IDEMPOTENCY_KEY=key()),
        c.post(
            f"/api/v1/games/rounds/{rid}/actions", {"action": {"pick": "0"}}, format="json", HTTP_IDEMPOTENCY_KEY=key()
        ),
        c.post(f"/api/v1/games/rounds/{rid}/actions", {}, format="json", HTTP_IDEMPOTENCY_KEY=key()),
        c.post(
            "/api/v1/games/rounds/99999999999999999999999/actions",
            {"action": {"pick": 0}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.get("/api/v1/games/rounds/99999999999999999999999"),
        c.get("/api/v1/games/rounds/99999999999999999999999/verify"),
        c.get("/api/v1/games/rounds?page=999"),
        c.get("/api/v1/games/catalogue/%00"),
        c.post(
            "/api/v1/games/play-money/rounds",
            {"game": PICK, "bet": {"stake": "1"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(
            "/api/v1/games/rounds",
            {"game": ROULETTE, "bet": api_bet(RED_100)},
            format="json",
            HTTP_IDEMPOTENCY_KEY="x" * 300,
        ),
        c.delete(f"/api/v1/games/rounds/{rid}"),
        c.post(
            "/api/v1/games/play-money/rounds",
            {"game": PICK, "bet": {"stake": 100, "boom": "\u0000"}},
            HTTP_IDEMPOTENCY_KEY=key(),
            format="json",
        ),
        c.post(
            f"/api/v1/games/rounds/{rid}/actions",
            {"action": {"pick\u0000": 0}},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
        c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette\u0000", "bet": api_bet(RED_100)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        ),
    ]
    for r in junk:
        assert r.status_code < 500, (r.status_code, r.content[:300])
        assert r.status_code >= 400 and "error" in r.json()
    assert c.get("/api/v1/games/rounds?page_size=abc").status_code == 200  # ignored, default page size
    assert rounds_count(player) == 1


def test_a_staff_user_without_a_player_cannot_play(clock):
    from rest_framework.test import APIClient

    from tests.kit.accounts import make_staff, token_for

    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff())}")
    r = start(c)
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code
    assert c.get("/api/v1/games/rounds").status_code == 403


def test_an_anonymous_caller_cannot_play_or_read_rounds(clock):
    from rest_framework.test import APIClient

    c = APIClient()
    assert start(c).status_code == 401
    assert c.get("/api/v1/games/rounds").status_code == 401
    assert c.get("/api/v1/games/rounds/open").status_code == 401


def test_a_stake_over_a_self_limit_is_refused_by_limits_and_nothing_changes(clock):
    """GP §6(1),(3): while a self-limit is set no participation may break it (limits.stake_gate_and_place decides)."""
    from core.audit import Actor
    from limits.services import self_limit_set

    player = funded_player(10_000)
    self_limit_set(player=player, kind="technical", limit_type="daily_stake", value=150, actor=Actor.player(player))
    c = client_for(player)
    with use_rng(FixedRNG(0)):
        assert start(c).status_code == 201
        clock.shift(2)
        r = start(c)
    assert r.status_code == 403 and r.json()["error"]["code"] == DAILY_STAKE_EXCEEDED.code
    assert rounds_count(player) == 1 and balance(player) == 9_900


def test_after_120_minutes_of_play_a_15_minute_break_is_enforced(clock):
    """GP §7(4): the break comes from limits.stake_gate_and_place; the round flow passes its refusal through."""
    player = funded_player(100_000)
    c = client_for(player)
    minutes = 0
    with use_rng(FixedRNG(0)):
        while True:  # a round every 10 minutes (shorter than the 15-minute pause that restarts the count)
            r = start(c)
            if r.status_code != 201:
                break
            clock.shift(10 * 60)
            minutes += 10
            assert minutes <= 130, "no break was enforced"
        assert r.status_code == 403 and r.json()["error"]["code"] == BREAK_REQUIRED.code, r.json()
        assert minutes >= 120
        n, before = rounds_count(player), balance(player)
        clock.shift(60)  # 11 minutes after the last round: still inside the break
        assert start(c).json()["error"]["code"] == BREAK_REQUIRED.code
        assert rounds_count(player) == n and balance(player) == before
        clock.shift(15 * 60)
        assert start(c).status_code == 201
