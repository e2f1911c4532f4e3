"""The catalogue-mechanics games (issue 25, part 2) through the HTTP API as a new player tries them: a round that
triggers each feature is found by searching seeds of core.rng.SeededRNG with the pure engine (the platform then
draws the same numbers through core.rng.use_rng), played to the end with the offered actions, recalled and
verified by replay; money moves exactly by stake and win."""
from __future__ import annotations

from core.rng import SeededRNG, use_rng
from games.engine import registry
from games.models import Round
from games.tests.platform.helpers import act, balance, client_for, funded_player, start


def find_seed(code: str, bet: dict, predicate, limit: int = 200_000, actions=None) -> int:
    """The first seed whose round (pure engine, played to the end with ``actions`` or the default action)
    satisfies ``predicate(final state)``."""
    g = registry.get_game(code)
    b = g.validate_bet(bet)
    for seed in range(limit):
        rng = SeededRNG(seed)
        state = g.start(b, rng)
        while state["status"] == "awaiting_action":
            state = g.act(state, (actions or g.default_action)(state), rng)
        if predicate(state):
            return seed
    raise AssertionError(f"no seed below {limit} gives the wanted {code} round")


def play_round(code: str, bet: dict, seed: int, choose=None, funds: int = 1_000_000) -> tuple[Round, dict, list]:
    """Start a round through the API with the seed's draws, answer every pending action (``choose(pending)`` or
    the first option), then recall and verify it. Returns (round, recall, the responses to each action)."""
    player = funded_player(funds)
    c = client_for(player)
    responses = []
    with use_rng(SeededRNG(seed)):
        r = start(c, game=code, bet=bet)
        assert r.status_code == 201, r.json()
        body = r.json()
        rid = body["id"]
        for _ in range(1000):
            if body["status"] != "in_progress":
                break
            assert body["draws"] is None  # hidden while the round is open
            pending = body["pending"]
            option = choose(pending) if choose else pending["options"][0]
            r = act(c, rid, option)
            assert r.status_code == 200, r.json()
            body = r.json()
            responses.append(body)
    rnd = Round.objects.get(pk=rid)
    assert rnd.status == "finished" and body["status"] == "finished"
    assert balance(player) == funds - rnd.stake + rnd.win and rnd.win == rnd.win_engine
    recall = c.get(f"/api/v1/games/rounds/{rid}").json()
    assert recall["id"] == rid and recall["draws"] == rnd.draws and recall["state"]["steps"] == rnd.state["steps"]
    v = c.get(f"/api/v1/games/rounds/{rid}/verify").json()
    assert v["verified"] is True and v["outcome"] == "match", v
    return rnd, recall, responses


def features(state) -> set:
    return {f for s in state["steps"] for f in s.get("features", [])} | {
        s["feature"] for s in state["steps"] if isinstance(s.get("feature"), str)}


# --- Triple Charm -------------------------------------------------------------------------------------------------
def test_triple_charm_pays_a_wild_multiplied_line_and_the_hats_through_the_api(clock):
    bet = {"lines": 5, "coins": 1, "coin_value": 10}
    seed = find_seed("triple_charm", bet, lambda s: "wild_multiplier" in features(s)
                     and s["steps"][0]["scatter"]["count"] >= 2)
    rnd, recall, _ = play_round("triple_charm", bet, seed)
    step = recall["state"]["steps"][0]
    assert any(w[4] in (1, 2) and w[3] == tc_pay(w) for w in step["line_wins"])
    assert step["scatter"]["win"] == {2: 2, 3: 25}[step["scatter"]["count"]] * 50
    assert rnd.win == step["win"] == sum(w[3] for w in step["line_wins"]) + step["scatter"]["win"]


def tc_pay(w) -> int:
    from games.engine.games.triple_charm import PAYTABLE, WILD_FACTORS

    return PAYTABLE[w[1]][3] * WILD_FACTORS.get(w[4], 1) * 10  # line bet 0.10 CZK


# --- Prism Respin -------------------------------------------------------------------------------------------------
def test_prism_respin_expands_and_holds_wilds_and_re_spins_through_the_api(clock):
    bet = {"level": 1, "coin_value": 10}
    seed = find_seed("prism_respin", bet, lambda s: len(s["steps"]) >= 3)
    rnd, recall, _ = play_round("prism_respin", bet, seed)
    steps = recall["state"]["steps"]
    assert [s["mode"] for s in steps][:3] == ["base", "respin", "respin"]
    for prev, nxt in zip(steps, steps[1:]):
        assert nxt["sticky_reels"] == sorted(prev["sticky_reels"] + prev["new_wild_reels"])
        assert all(nxt["window"][j] == ["WILD"] * 3 and nxt["stops"][j] is None for j in nxt["sticky_reels"])
    assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in steps[1:])
    assert rnd.win == sum(s["win"] for s in steps)


# --- Seven Lanterns -----------------------------------------------------------------------------------------------
def test_seven_lanterns_second_chance_reveals_a_lantern_and_the_free_spins_play_whatever_the_player_picks(clock):
    bet = {"stake": 100}
    seed = find_seed("seven_lanterns", bet, lambda s: any(x["type"] == "pick" and x["reveal"] == "LANTERN"
                                                         for x in s["steps"]))
    results = []
    for index in (0, 6):  # two players, the same draws, different lanterns opened (GP §7(3))
        def choose(pending, index=index):
            return {"type": "pick", "index": index} if pending["type"] == "pick" else pending["options"][0]

        rnd, recall, responses = play_round("seven_lanterns", bet, seed, choose)
        assert responses[0]["pending"]["type"] == "free_spin" and "pick" not in responses[0]["state"]
        steps = recall["state"]["steps"]
        p = next(s for s in steps if s["type"] == "pick")
        assert p["index"] == index and p["board"][index] == "LANTERN" and p["board"].count("LANTERN") == 2
        free = [s for s in steps if s.get("mode") == "free"]
        assert len(free) == 7 and all(s["multiplier"] == 2 for s in free)
        assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in free)
        results.append((rnd.win, [s["window"] for s in free], sorted(map(str, p["board"]))))
    assert results[0] == results[1]


# --- Crystal Grid -------------------------------------------------------------------------------------------------
def test_crystal_grid_clusters_cascade_through_the_api_and_the_round_replays(clock):
    bet = {"stake": 100}
    seed = find_seed("crystal_grid", bet, lambda s: s["cascades"] >= 2)
    rnd, recall, _ = play_round("crystal_grid", bet, seed)
    steps = recall["state"]["steps"]
    assert [s["type"] for s in steps][:3] == ["spin", "cascade", "cascade"] and steps[0]["features"] == ["cascade"]
    assert all(s["clusters"] for s in steps[:-1]) and steps[-1]["clusters"] == []
    assert all(size >= 3 for s in steps for _, size, _, _ in s["clusters"])
    assert rnd.win == sum(pay for s in steps for _, _, pay, _ in s["clusters"]) and len(rnd.draws) == 5
