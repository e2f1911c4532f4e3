"""The catalogue-mechanics games through the HTTP API as a new player tries them: a round that
triggers each feature is found by searching seeds of core.rng.SeededRNG with the pure engine (the platform then
draws the same numbers through core.rng.use_rng), played to the end with the offered actions, recalled and
verified by replay; money moves exactly by stake and win."""

from __future__ import annotations

import math

from core.rng import SeededRNG, use_rng
from games.engine import registry
from games.engine.games.geode_field import GeodeFieldV2
from games.engine.games.prism_respin import LINES as PRISM_LINES
from games.engine.games.sun_terraces import PAYTABLE_V2 as SUN_PAYTABLE
from games.models import PlayerGameState, Round
from tests.kit.clients import client_for
from tests.kit.platform import act, balance, funded_player, start


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
        s["feature"] for s in state["steps"] if isinstance(s.get("feature"), str)
    }


# --- Triple Charm -------------------------------------------------------------------------------------------------
def test_triple_charm_pays_a_wild_multiplied_line_and_the_hats_through_the_api(clock):
    bet = {"lines": 5, "coins": 1, "coin_value": 10}
    seed = find_seed(
        "triple_charm", bet, lambda s: "wild_multiplier" in features(s) and s["steps"][0]["scatter"]["count"] >= 2
    )
    rnd, recall, _ = play_round("triple_charm", bet, seed)
    step = recall["state"]["steps"][0]
    assert any(w[4] in (1, 2) and w[3] == tc_pay(w) for w in step["line_wins"])
    assert step["scatter"]["win"] == {2: 2, 3: 25}[step["scatter"]["count"]] * 50
    assert rnd.win == step["win"] == sum(w[3] for w in step["line_wins"]) + step["scatter"]["win"]


def test_triple_charm_at_one_line_pays_the_hats_one_line_pays_through_the_api(clock):
    """The catalogue's 1-line figure (95.00 %): at one line two HATs pay 0.3 x, three 20 x the total bet."""
    bet = {"lines": 1, "coins": 1, "coin_value": 10}
    seed = find_seed("triple_charm", bet, lambda s: s["steps"][0]["scatter"]["count"] == 2)
    rnd, recall, _ = play_round("triple_charm", bet, seed)
    step = recall["state"]["steps"][0]
    assert rnd.game_version == 2 and step["scatter"] == {"count": 2, "win": 3}  # 0.3 x 0.10 CZK
    assert rnd.win == step["win"] == sum(w[3] for w in step["line_wins"]) + 3


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
    seed = find_seed(
        "seven_lanterns", bet, lambda s: any(x["type"] == "pick" and x["reveal"] == "LANTERN" for x in s["steps"])
    )
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
    seed = find_seed("crystal_grid", bet, lambda s: s["cascades"] >= 2 and not s.get("free_rounds"))
    rnd, recall, _ = play_round("crystal_grid", bet, seed)
    steps = recall["state"]["steps"]
    assert [s["type"] for s in steps][:3] == ["spin", "cascade", "cascade"] and steps[0]["features"] == ["cascade"]
    assert all(s["clusters"] for s in steps[:-1]) and steps[-1]["clusters"] == []
    assert all(size >= 3 for s in steps for _, size, _, _ in s["clusters"])
    assert rnd.win == sum(pay for s in steps for _, _, pay, _ in s["clusters"]) and len(rnd.draws) == 5


def test_crystal_grid_empties_its_bonus_column_and_plays_the_free_rounds_through_the_api(clock):
    """Version 2: the Bonus column (column 1) emptied by the base game's wins starts the free rounds on the bonus
    symbols; a winning cluster of 5+ adds a round; recalled and verified."""
    bet = {"stake": 100}
    seed = find_seed("crystal_grid", bet, lambda s: s.get("free_rounds", 0) > 3)
    rnd, recall, _ = play_round("crystal_grid", bet, seed)
    steps = recall["state"]["steps"]
    assert rnd.game_version == 2 and steps[0]["features"][-1] == "free_rounds"
    assert steps[0]["bonus_column"]["emptied_rows"] == [0, 1, 2, 3, 4]
    free = [s for s in steps if s["mode"] == "free_round"]
    starts = [s for s in free if s["type"] == "spin"]
    assert len(starts) == rnd.state["free_rounds"] > 3 and sum(s["rounds_added"] for s in starts) > 0
    assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in free)
    assert rnd.win == rnd.state["breakdown"]["base"] + rnd.state["breakdown"]["free_spins"]
    assert len(rnd.draws) == 5 * (1 + len(starts))


# --- Falling Idols ------------------------------------------------------------------------------------------------
def test_falling_idols_avalanches_and_free_falls_are_played_through_the_api(clock):
    bet = {"level": 1, "coin_value": 5}
    seed = find_seed(
        "falling_idols",
        bet,
        lambda s: (
            "free_falls" in features(s)
            and any(x.get("type") == "avalanche" for x in s["steps"])
            and any(x.get("type") == "avalanche" and x.get("mode") == "free" for x in s["steps"])
        ),
    )
    rnd, recall, responses = play_round("falling_idols", bet, seed)
    steps = recall["state"]["steps"]
    free_starts = [s for s in steps if s.get("mode") == "free" and s["type"] == "spin"]
    assert len(rnd.actions) == len(free_starts) == rnd.state["free_falls"]["awarded"] >= 10
    assert all(r["pending"] is None or r["pending"]["type"] == "free_spin" for r in responses)
    for s in steps:
        if s.get("mode") in ("base", "free"):
            ladder = [1, 2, 3, 5] if s["mode"] == "base" else [3, 6, 9, 15]
            assert s["multiplier"] == ladder[min(s["avalanche"], 3)]
    assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in steps if s.get("mode") == "free")
    assert rnd.win == sum(s.get("win", 0) for s in steps if s["type"] in ("spin", "avalanche"))


# --- Tome of Sands ------------------------------------------------------------------------------------------------
def test_tome_of_sands_free_spins_expand_the_chosen_symbol_through_the_api(clock):
    bet = {"lines": 10, "coins": 1, "coin_value": 10}
    seed = find_seed(
        "tome_of_sands", bet, lambda s: any("expanding_symbol" in x.get("features", []) for x in s["steps"])
    )
    rnd, recall, responses = play_round("tome_of_sands", bet, seed)
    steps = recall["state"]["steps"]
    trigger = next(s for s in steps if s["type"] == "trigger")
    free = [s for s in steps if s.get("mode") == "free"]
    assert responses[0]["state"]["steps"][-1]["mode"] == "free"
    assert len(free) == len(rnd.actions) == rnd.state["free_spins"]["awarded"]
    assert all(s["expansion"]["symbol"] == trigger["expanding"] for s in free)
    expanded = [s for s in free if s["expansion"]["win"]]
    assert expanded and all(len(s["expansion"]["reels"]) >= 2 for s in expanded)
    assert rnd.state["breakdown"]["free_spins"] == sum(s["win"] for s in free)


# --- Rising Reels -------------------------------------------------------------------------------------------------
def test_rising_reels_grow_with_every_winning_re_spin_and_reach_the_free_spins_through_the_api(clock):
    bet = {"level": 1, "coin_value": 2}
    seed = find_seed("rising_reels", bet, lambda s: "free_spins" in s)
    rnd, recall, responses = play_round("rising_reels", bet, seed)
    steps = recall["state"]["steps"]
    base = [s for s in steps if s.get("mode") == "base"]
    assert [s["ways"] for s in base] == [45, 135, 405, 675, 1125, 1875] and all(s["win"] > 0 for s in base)
    free = [s for s in steps if s.get("mode") == "free"]
    assert len(free) == len(rnd.actions) == 8 and all(s["ways"] == 3125 for s in free)
    assert responses[-1]["status"] == "finished"
    assert rnd.win == sum(s["win"] for s in base + free)


# --- Starfall Grid ------------------------------------------------------------------------------------------------
def test_starfall_grid_diagonal_clusters_cascade_through_the_api(clock):
    bet = {"stake": 100}

    def diagonal_cascade(s):
        if s["cascades"] < 2 or "power_stone" in s["steps"][0]:  # no Power Stone (version 2): the base game alone
            return False
        for step in s["steps"]:
            for _, _, _, cells in step["clusters"]:
                cs = {tuple(c) for c in cells}
                # some cell of the cluster touches the others only diagonally
                if any(not ({(j + 1, r), (j - 1, r), (j, r + 1), (j, r - 1)} & cs) for j, r in cs):
                    return True
        return False

    seed = find_seed("starfall_grid", bet, diagonal_cascade)
    rnd, recall, _ = play_round("starfall_grid", bet, seed)
    steps = recall["state"]["steps"]
    assert steps[0]["features"] == ["cascade"] and len(steps) >= 3 and steps[-1]["clusters"] == []
    assert rnd.win == sum(pay for s in steps for _, _, pay, _ in s["clusters"])


def test_starfall_grid_plays_a_middle_wild_and_a_power_stone_re_spin_through_the_api(clock):
    bet = {"stake": 100}

    def respin_after_middle_wild(s):
        first = s["steps"][0]
        return (
            first.get("power_stone", {}).get("respin")
            and first["turned_wild"]
            and s["cascades"] >= 1
            and s["breakdown"]["free_spins"] > 0
        )

    seed = find_seed("starfall_grid", bet, respin_after_middle_wild)
    rnd, recall, _ = play_round("starfall_grid", bet, seed)
    state = recall["state"]
    steps = state["steps"]
    stone = steps[0]["power_stone"]
    assert steps[0]["features"] == ["cascade", "respin"] and stone["arrow"] < stone["lit"] and stone["respin"]
    j, r = steps[0]["turned_wild"][0]
    assert steps[0]["window"][j][r] != "SHIELD" and any(c[1] == 3 and c[3][1] == [j, r] for c in steps[0]["clusters"])
    respin = [s for s in steps if s["mode"] == "respin"]
    assert respin[0]["type"] == "spin" and respin[0]["power"] == stone["power"]
    assert rnd.win == state["win"] == sum(s["win"] for s in steps)
    assert state["breakdown"]["free_spins"] == sum(s["win"] for s in respin) > 0


# --- the audit's gaps: Triple Charm x25, Seven Lanterns' multiplier, Prism Respin right to left ------------------
def test_triple_charm_pays_a_line_completed_by_two_wilds_twenty_five_times_through_the_api(clock):
    bet = {"lines": 5, "coins": 1, "coin_value": 10}
    seed = find_seed("triple_charm", bet, lambda s: any(w[4] == 2 for w in s["steps"][0]["line_wins"]))
    rnd, recall, _ = play_round("triple_charm", bet, seed)
    step = recall["state"]["steps"][0]
    two = [w for w in step["line_wins"] if w[4] == 2]
    assert two and all(w[3] == tc_pay(w) == 25 * tc_pay([*w[:4], 0]) for w in two)  # x25 of the plain pay
    assert rnd.win == step["win"] == sum(w[3] for w in step["line_wins"]) + step["scatter"]["win"]


def test_seven_lanterns_second_chance_reveals_a_multiplier_that_pays_the_bet_times_it_through_the_api(clock):
    bet = {"stake": 100}
    seed = find_seed(
        "seven_lanterns",
        bet,
        lambda s: any(x["type"] == "pick" and isinstance(x["reveal"], int) and x["reveal"] > 1 for x in s["steps"]),
    )
    rnd, recall, responses = play_round(
        "seven_lanterns", bet, seed, lambda p: {"type": "pick", "index": 4} if p["type"] == "pick" else p["options"][0]
    )
    steps = recall["state"]["steps"]
    p = next(s for s in steps if s["type"] == "pick")
    assert p["index"] == 4 and p["board"][4] == p["reveal"] == p["multiplier"] and p["reveal"] > 1
    assert p["win"] == p["multiplier"] * 100 == rnd.state["breakdown"]["bonus"]
    assert responses[0]["status"] == "finished" and "free_spins" not in rnd.state and len(rnd.actions) == 1
    assert rnd.win == rnd.state["breakdown"]["base"] + p["win"]


def test_prism_respin_pays_a_line_read_from_the_right_through_the_api(clock):
    bet = {"level": 1, "coin_value": 10}
    seed = find_seed(
        "prism_respin", bet, lambda s: any(w[4] == "rtl" and w[3] for x in s["steps"] for w in x["line_wins"])
    )
    rnd, recall, _ = play_round("prism_respin", bet, seed)
    steps = recall["state"]["steps"]
    rtl = [w for s in steps for w in s["line_wins"] if w[4] == "rtl"]
    assert rtl and all(w[2] < 5 and w[3] > 0 for w in rtl)  # a full line pays once, left to right
    for s in steps:
        for line, symbol, count, _, direction in s["line_wins"]:
            if direction == "rtl":  # the symbol on the last `count` reels of its line, from the right
                cells = [s["window"][j][PRISM_LINES[line - 1][j]] for j in range(5 - count, 5)]
                assert all(c in (symbol, "WILD") for c in cells)
    assert rnd.win == sum(s["win"] for s in steps)


# --- the two games of the follow-up: 720 ways and 7x7 clusters -----------------------------------------------------
def test_sun_terraces_pays_720_ways_with_a_wild_and_avalanches_through_the_api(clock):
    bet = {"level": 1, "coin_value": 10}
    seed = find_seed(
        "sun_terraces",
        bet,
        lambda s: (
            "wild" in s["steps"][0]["features"]
            and any(w[1] >= 4 for st in s["steps"] for w in st["ways_wins"])
            and len(s["steps"]) >= 3
        ),
    )
    rnd, recall, _ = play_round("sun_terraces", bet, seed)
    steps = recall["state"]["steps"]
    assert rnd.game_version == 2 and steps[0]["ways"] == 720 and rnd.stake == 100 and len(rnd.draws) == 5
    assert [s["type"] for s in steps] == ["spin"] + ["avalanche"] * (len(steps) - 1)
    assert "avalanche" in steps[0]["features"] and steps[-1]["ways_wins"] == []
    for n, step in enumerate(steps):
        assert [len(c) for c in step["window"]] == [3, 4, 5, 4, 3] and step["multiplier"] == 1 + n // 3
        for symbol, reels, ways_, pay, _ in step["ways_wins"]:
            counts = [sum(1 for x in col if x in (symbol, "WILD")) for col in step["window"][:reels]]
            assert ways_ == math.prod(counts)
            assert pay == SUN_PAYTABLE[symbol][reels] * ways_ * 10 * step["multiplier"]
        assert step["win"] == sum(w[3] for w in step["ways_wins"])
    assert rnd.win == sum(s["win"] for s in steps)


def test_geode_field_clusters_of_five_or_more_cascade_on_the_7x7_grid_through_the_api(clock):
    bet = {"stake": 100}
    seed = find_seed("geode_field", bet, lambda s: s["cascades"] >= 2)
    rnd, recall, _ = play_round("geode_field", bet, seed)
    steps = recall["state"]["steps"]
    assert [s["type"] for s in steps][:3] == ["spin", "cascade", "cascade"] and steps[0]["features"] == ["cascade"]
    assert all(len(s["window"]) == 7 and all(len(c) == 7 for c in s["window"]) for s in steps)
    assert all(size >= 5 for s in steps for _, size, _, _ in s["clusters"]) and steps[-1]["clusters"] == []
    assert rnd.win == sum(pay for s in steps for _, _, pay, _ in s["clusters"]) and len(rnd.draws) == 7


def test_geode_field_carries_the_worlds_progress_from_one_round_to_the_next_through_the_api(clock):
    bet = {"stake": 100}
    fresh = GeodeFieldV2.fresh_progress()
    seed = find_seed("geode_field", bet, lambda s: s["carry_out"] != fresh)
    player = funded_player(1_000_000)
    c = client_for(player)
    states = []
    for sd in (seed, seed + 1):
        clock.shift(3)  # a round lasts at least 2 seconds (GP §7(9))
        with use_rng(SeededRNG(sd)):
            r = start(c, game="geode_field", bet=bet)
        assert r.status_code == 201, r.json()
        states.append(Round.objects.get(pk=r.json()["id"]).state)
    assert states[0]["carry_in"] == fresh != states[0]["carry_out"]
    assert states[1]["carry_in"] == states[0]["carry_out"]  # the second round starts from the first one's progress
    row = PlayerGameState.objects.get(player=player, game_code="geode_field", play_money=False)
    assert row.state == states[1]["carry_out"] and row.game_version == 2 and row.carried_value == 0
