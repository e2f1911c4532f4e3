"""PAR sheet, simulation statistics and the management commands (no database)."""

from __future__ import annotations

import io
import json
import struct
from decimal import Decimal
from fractions import Fraction

import pytest

from core.rng import SeededRNG
from games.engine import (
    STATUS_AWAITING_ACTION,
    STATUS_FINISHED,
    ActionError,
    Bet,
    BetError,
    Declared,
    Game,
    par,
)
from games.engine.games.roulette import EUROPEAN_ROULETTE

ROULETTE = EUROPEAN_ROULETTE


class ToyGame(Game):
    """A small game with every feature kind, whose RTP is known: base 1/2, bonus 1/4, free spins 1/8 = 87.5 %.

    randbelow(8): 0-3 lose; 4-5 base win 1x; 6 a bonus pick (awaits an action, then randbelow(2): 0x or 4x);
    7 base win 2x, a bronze jackpot event and free spins paying randbelow(3) x stake."""

    code, version, name, kind = "toy", 1, "Toy", "slot"
    declared = Declared(rtp=Decimal("87.50"), min_bet=10, max_bet=1_000, max_win=4_000, unfinished_deadline_days=90)
    exact_keys = {"base": Fraction(1, 2)}

    def describe(self):
        return {"code": self.code, "default_bet": {"stake": 100}}

    def validate_bet(self, params):
        stake = params.get("stake", 100)
        if not isinstance(stake, int) or not 10 <= stake <= 1000:
            raise BetError("game.toy.stake", "bad stake")
        return Bet(total_stake=stake, params={"stake": stake})

    def _state(self, stake, base=0, bonus=0, fs=0, pending=None, events=(), steps=()):
        return {
            "status": STATUS_AWAITING_ACTION if pending else STATUS_FINISHED,
            "win": base + bonus + fs,
            "stake": stake,
            "steps": list(steps),
            "pending": pending,
            "jackpot_events": list(events),
            "breakdown": {"base": base, "free_spins": fs, "bonus": bonus, "gamble": 0},
        }

    def start(self, bet, rng):
        s = bet.total_stake
        r = rng.randbelow(8)
        if r < 4:
            return self._state(s)
        if r < 6:
            return self._state(s, base=s)
        if r == 6:
            return self._state(s, pending={"type": "pick", "options": [0, 1]}, steps=[{"feature": "bonus"}])
        fs = s * rng.randbelow(3)
        return self._state(s, base=2 * s, fs=fs, events=[{"tier": "bronze"}], steps=[{"feature": "free_spins"}])

    def act(self, state, action, rng):
        if state["status"] != STATUS_AWAITING_ACTION or action.get("pick") not in (0, 1):
            raise ActionError("game.invalid_action", "no")
        return self._state(state["stake"], bonus=4 * state["stake"] * rng.randbelow(2), steps=state["steps"])

    def default_action(self, state):
        return {"pick": 0}

    def exact_rtp(self, bet):
        return dict(self.exact_keys)


class ToyNoExact(ToyGame):
    exact_keys: dict = {}


class ToySplitKeys(ToyGame):
    exact_keys = {"base_lines": Fraction(1, 4), "base_scatter": Fraction(1, 4)}


class ToyBadFast(ToyGame):
    def simulate_fast(self, bet, rounds, seed, progress=None):
        return {"rounds": rounds, "total_win": 0}


TOY = ToyGame()


def test_generic_simulation_returns_the_canonical_statistics_and_is_reproducible():
    bet = TOY.validate_bet({})
    a = par.simulate_generic(TOY, bet, 20_000, seed=5, rng_factory=SeededRNG)
    assert a == par.simulate_generic(TOY, bet, 20_000, seed=5, rng_factory=SeededRNG)
    par.validate_stats(a, rounds=20_000, stake=100)
    assert set(par.STATS_KEYS) <= set(a) and set(par.BREAKDOWN_KEYS) <= set(a["breakdown"])
    assert a["total_win"] == sum(a["breakdown"].values())
    assert a["total_stake"] == 2_000_000 and a["max_win"] == 400
    fc = a["feature_counts"]
    assert fc["actions"] == fc["feature:bonus"] > 0  # every bonus answered with default_action
    assert fc["jackpot_events"] == fc["jackpot:bronze"] == fc["feature:free_spins"] > 0
    assert a["hit_frequency"] == a["hit_count"] / 20_000


def test_the_generic_simulation_draws_only_from_the_injected_rng_factory_seeded_with_the_seed():
    """The engine has no RNG of its own (it imports no platform module): the caller passes the factory."""
    seeds = []

    def factory(seed):
        seeds.append(seed)
        return SeededRNG(seed)

    bet = TOY.validate_bet({})
    stats = par.simulate_generic(TOY, bet, 2_000, seed=11, rng_factory=factory)
    assert seeds == [11]
    assert stats == par.simulate_generic(TOY, bet, 2_000, seed=11, rng_factory=SeededRNG)


def test_a_simulation_without_an_rng_factory_is_refused():
    bet = TOY.validate_bet({})
    with pytest.raises(TypeError, match="rng_factory"):
        par.simulate_generic(TOY, bet, 100, seed=1)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="rng_factory"):
        par.par_sheet(TOY, rounds=100, seed=1)  # type: ignore[call-arg]


def test_batches_merge_into_the_same_totals():
    bet = TOY.validate_bet({})
    a = par.simulate_generic(TOY, bet, 3_000, seed=1, rng_factory=SeededRNG)
    b = par.simulate_generic(TOY, bet, 2_000, seed=2, rng_factory=SeededRNG)
    m = par.merge_stats(a, b)
    assert m["rounds"] == 5_000 and m["total_win"] == a["total_win"] + b["total_win"]
    assert m["sum_sq"] == a["sum_sq"] + b["sum_sq"] and m["max_win"] == max(a["max_win"], b["max_win"])
    assert m["rtp"] == m["total_win"] / m["total_stake"]


def test_summary_statistics_follow_the_textbook_formulas():
    stats = {"rounds": 4, "total_stake": 400, "total_win": 400, "sum_sq": 2 * 200**2, "hit_count": 2, "max_win": 200}
    s = par.summarise(stats, 100)
    assert s["rtp"] == 1.0 and s["volatility"] == pytest.approx(1.0) and s["standard_error"] == pytest.approx(0.5)
    assert s["ci95"] == pytest.approx([100 - 100 * 1.959964 * 0.5, 100 + 100 * 1.959964 * 0.5])
    assert s["ci99"][1] - 100 == pytest.approx(100 * 2.575829 * 0.5, rel=1e-6)


def test_the_par_sheet_adds_exact_parts_to_the_simulated_remainder():
    sheet = par.par_sheet(TOY, rounds=40_000, seed=3, rng_factory=SeededRNG)
    json.dumps(sheet)
    assert sheet["exact"]["covers"] == ["base"] and sheet["exact"]["total_fraction"] == "1/2"
    r = sheet["rtp"]
    assert r["remainder_sd_method"] == "remainder" and r["fraction"] is None
    assert r["ci99"][0] <= 87.5 <= r["ci99"][1] and r["declared_inside_ci99"]
    assert sheet["simulation"]["ci99"][0] <= 87.5 <= sheet["simulation"]["ci99"][1]
    # replacing the base game by its exact value removes its variance from the estimate
    assert r["standard_error_percent"] < sheet["simulation"]["standard_error_percent"]
    assert sheet["breakdown"]["base"]["exact"] and sheet["breakdown"]["base"]["exact_vs_simulated_consistent"]
    assert not sheet["breakdown"]["bonus"]["exact"]
    assert sheet["rtp"]["at_least_min_rtp"] and sheet["max_win"]["within_declared"]
    assert sheet["declared"]["avg_hourly_loss"] == 1_000 * 125 * 1800 // 1000
    assert sheet == par.par_sheet(TOY, rounds=40_000, seed=3, rng_factory=SeededRNG)


def test_exact_keys_map_to_breakdown_parts_by_prefix():
    assert par.exact_part_of("base") == "base" and par.exact_part_of("base_lines") == "base"
    assert par.exact_part_of("free_spins_lines") == "free_spins" and par.exact_part_of("scatter") == "base"
    sheet = par.par_sheet(ToySplitKeys(), rounds=20_000, seed=3, rng_factory=SeededRNG)
    assert sheet["exact"]["covers"] == ["base"] and sheet["breakdown"]["base"]["exact_fraction"] == "1/2"
    whole = par.par_sheet(TOY, rounds=20_000, seed=3, rng_factory=SeededRNG)
    assert sheet["rtp"]["percent"] == whole["rtp"]["percent"]


def test_without_exact_parts_the_sheet_is_the_simulation():
    sheet = par.par_sheet(ToyNoExact(), rounds=20_000, seed=4, rng_factory=SeededRNG)
    assert sheet["exact"]["parts"] == {} and sheet["rtp"]["remainder_sd_method"] == "total"
    assert sheet["rtp"]["percent"] == pytest.approx(sheet["simulation"]["rtp_percent"])
    assert sheet["rtp"]["ci99"] == pytest.approx(sheet["simulation"]["ci99"])


def test_a_fully_exact_game_has_a_zero_width_interval_and_the_declared_rounding_tolerance():
    sheet = par.par_sheet(ROULETTE, rounds=50_000, seed=1, rng_factory=SeededRNG)
    r = sheet["rtp"]
    assert r["fraction"] == "36/37" and r["ci99"][0] == r["ci99"][1] == pytest.approx(100 * 36 / 37)
    assert r["declared_tolerance_pp"] == 0.01 and r["declared_inside_ci99"]  # 97.29 <= 97.2973 < 97.29 + 0.01
    assert par.declared_tolerance(Decimal("96.1")) == pytest.approx(0.1)
    assert par.declared_tolerance(Decimal("84.24")) == pytest.approx(0.01)
    generic = par.par_sheet(ROULETTE, rounds=20_000, seed=1, fast=False, rng_factory=SeededRNG)
    assert generic["simulation"]["engine"] == "generic" and sheet["simulation"]["engine"] == "simulate_fast"
    assert generic["rtp"]["fraction"] == "36/37"


def test_a_wrongly_shaped_fast_simulation_is_refused():
    with pytest.raises(ValueError):
        par.par_sheet(ToyBadFast(), rounds=100, seed=1, rng_factory=SeededRNG)


def test_the_formatted_sheet_names_every_section():
    text = par.format_par_sheet(par.par_sheet(TOY, rounds=5_000, seed=1, rng_factory=SeededRNG))
    for needle in (
        "PAR sheet: Toy",
        "Declared figures",
        "Exact RTP parts",
        "Simulation (generic): 5,000 rounds",
        "95 % CI",
        "99 % CI",
        "hit frequency",
        "volatility",
        "Breakdown",
        "free_spins",
        "jackpot",
        "avg hourly loss",
        "GP §8(4)",
        "max win reached",
    ):
        assert needle in text, needle


def test_simulate_measures_rounds_per_second_and_reports_progress():
    seen = []
    res = par.simulate(TOY, {"stake": 50}, 25_000, 7, progress=lambda d, t: seen.append((d, t)), rng_factory=SeededRNG)
    assert res["engine"] == "generic" and res["rounds"] == 25_000 and res["stake"] == 50
    assert res["rounds_per_second"] > 0 and res["elapsed_seconds"] > 0
    assert seen[-1] == (25_000, 25_000) and len(seen) == 3
    assert res["summary"]["ci95"][0] < res["summary"]["rtp_percent"] < res["summary"]["ci95"][1]
    fast = par.simulate(ROULETTE, None, 100_000, 7, rng_factory=SeededRNG)
    assert (
        fast["engine"] == "simulate_fast" and fast["bet"] == ROULETTE.validate_bet(ROULETTE.default_bet_params).params
    )


def test_the_representative_bet_comes_from_the_game():
    assert par.representative_bet_params(ROULETTE) == ROULETTE.default_bet_params
    assert par.representative_bet_params(TOY) == {"stake": 100}


# --- management commands (called with the command objects: no settings or database needed) -----------------
def _call(module, *args):
    from django.core.management import call_command

    out, err = io.StringIO(), io.StringIO()
    call_command(module.Command(), *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_par_sheet_command_prints_the_sheet_and_json():
    from games.management.commands import par_sheet

    out, _ = _call(par_sheet, "european_roulette", "--rounds", "20000", "--seed", "2")
    assert out.startswith("PAR sheet: European Roulette") and "36/37" in out
    out, _ = _call(
        par_sheet,
        "european_roulette@1",
        "--rounds",
        "5000",
        "--json",
        "--bet",
        '{"bets": [{"type": "corner", "numbers": [0, 1, 2, 3], "amount": 100}]}',
    )
    sheet = json.loads(out)
    assert sheet["bet"]["bets"][0]["type"] == "corner" and sheet["simulation"]["rounds"] == 5000


def test_commands_refuse_unknown_games_bad_json_and_invalid_bets_with_a_message():
    from django.core.management.base import CommandError

    from games.management.commands import par_sheet, simulate

    with pytest.raises(CommandError, match="unknown game 'nope'.*european_roulette@1"):
        _call(par_sheet, "nope")
    with pytest.raises(CommandError):
        _call(simulate, "european_roulette", "--bet", "{not json")
    with pytest.raises(CommandError, match="game.roulette.invalid_numbers"):
        _call(simulate, "european_roulette", "--bet", '{"bets": [{"type": "split", "numbers": [1, 9], "amount": 100}]}')
    with pytest.raises(CommandError, match="rounds"):
        _call(simulate, "european_roulette", "--rounds", "0")


def test_simulate_command_prints_rtp_ci_hit_frequency_max_win_and_speed_with_a_progress_bar():
    from games.management.commands import simulate

    out, err = _call(
        simulate,
        "european_roulette",
        "--rounds",
        "2000000",
        "--seed",
        "3",
        "--bet",
        '{"bets": [{"type": "street", "numbers": [0, 2, 3], "amount": 500}]}',
    )
    for needle in (
        "rounds            2,000,000",
        "RTP",
        "95 % CI",
        "99 % CI",
        "hit frequency",
        "max win",
        "rounds per second",
    ):
        assert needle in out
    assert "[########################################] 100.0 %  2,000,000/2,000,000" in err
    assert err.count("\r") == 2  # one update per batch of 1,000,000
    out, err = _call(simulate, "european_roulette", "--rounds", "3000", "--generic", "--json", "--no-progress")
    assert json.loads(out)["engine"] == "generic" and err == ""


def test_rng_dump_writes_raw_little_endian_words(tmp_path):
    from games.management.commands import rng_dump

    f = tmp_path / "rng.bin"
    _, err = _call(rng_dump, "--bytes", "4K", "--out", str(f), "--seed", "12", "--no-progress")
    data = f.read_bytes()
    ref = SeededRNG(12)
    assert len(data) == 4096 and data == struct.pack("<1024I", *[ref.randbelow(2**32) for _ in range(1024)])
    assert "SeededRNG" in err
    g = tmp_path / "sys.bin"
    _call(rng_dump, "--bytes", "1001", "--out", str(g))
    assert g.stat().st_size == 1001 and g.read_bytes() != data[:1001]
    assert rng_dump.parse_size("2M") == 2 * 1024**2 and rng_dump.parse_size("100") == 100
    with pytest.raises(ValueError):
        rng_dump.parse_size("0")


def test_numpy_integers_from_a_fast_simulator_become_python_ints():
    np = pytest.importorskip("numpy")
    stats = {
        "rounds": np.int64(2),
        "total_stake": np.int64(200),
        "total_win": np.int64(100),
        "rtp": 0.5,
        "breakdown": {"base": np.int64(100)},
        "hit_count": np.int64(1),
        "hit_frequency": 0.5,
        "sum_sq": np.int64(10_000),
        "max_win": np.int64(100),
        "feature_counts": {},
    }
    out = par.validate_stats(stats, rounds=2, stake=100)
    assert type(out["sum_sq"]) is int and type(out["breakdown"]["base"]) is int and out["breakdown"]["free_spins"] == 0


# --- RTP with jackpots (Kobushi's progressive jackpots, docs/games/kobushi.md "Jackpots") -------------------------
def _kobushi():
    from games.engine.games import kobushi

    return kobushi.KOBUSHI_GAME, kobushi.DEFINITION


def _p_bonus_by_hand(definition) -> Fraction:
    """P(3+ KOBUSHI in a base spin), counted from the strips: per reel the share of stops whose 3-row window shows a
    KOBUSHI (never two: they are at least 3 apart), then P(at least 3 of the 5 independent reels)."""
    from itertools import combinations

    p = []
    for strip in definition["base_strips"]:
        n = len(strip)
        shown = [sum(strip[(stop + r) % n] == "KOBUSHI" for r in range(3)) for stop in range(n)]
        assert max(shown) == 1
        p.append(Fraction(sum(shown), n))
    total = Fraction(0)
    for k in range(3, 6):
        for hit in combinations(range(5), k):
            term = Fraction(1)
            for j in range(5):
                term *= p[j] if j in hit else 1 - p[j]
            total += term
    return total


def test_the_default_game_has_no_jackpot_return_and_its_sheet_no_with_jackpots_section():
    assert TOY.jackpot_return(TOY.validate_bet({})) is None
    sheet = par.par_sheet(ROULETTE, rounds=1_000, seed=1, rng_factory=SeededRNG)
    assert sheet["with_jackpots"] is None and "RTP with jackpots" not in par.format_par_sheet(sheet)


def test_kobushi_jackpot_return_is_exact_seeds_from_the_definition_weights_plus_half_a_percent_in_total():
    game, d = _kobushi()
    p_bonus = _p_bonus_by_hand(d)
    assert p_bonus == game.trigger_probabilities()["bonus"] == Fraction(1289547, 269929837)
    weights = dict(d["bonus"]["terminators"])
    assert weights == {"cat": 96910, "jackpot_sushi": 2575, "jackpot_kobushi": 515}
    assert d["progressive"]["seed_per_coin"] == d["bonus"]["jackpot_seed_per_coin"] == {"sushi": 5000, "kobushi": 25000}
    total_w = sum(weights.values())
    for coin in d["bet"]["coin_values"]:
        bet = game.validate_bet({"lines": 30, "coins": 5, "coin_value": coin})
        assert bet.total_stake == 150 * coin
        jr = game.jackpot_return(bet)
        assert jr is not None and all(type(v) is Fraction for v in jr.values())
        assert jr == {
            "sushi_seed": p_bonus * Fraction(2575, total_w) * 5000 * coin / (150 * coin),
            "kobushi_seed": p_bonus * Fraction(515, total_w) * 25000 * coin / (150 * coin),
            "sushi_contribution": Fraction(1, 400),
            "kobushi_contribution": Fraction(1, 400),
        }
    # 0.25 % to each pool, 0.5 % in total; the two seeds return the same (2,575 x 5,000 = 515 x 25,000)
    assert jr["sushi_contribution"] + jr["kobushi_contribution"] == Fraction(5, 1000)
    assert jr["sushi_seed"] == jr["kobushi_seed"] == Fraction(44274447, 10797193480)
    assert sum(jr.values()) == Fraction(712674307, 53985967400)  # 1.320110 pp
    for params in ({"lines": 15, "coins": 5, "coin_value": 10}, {"lines": 30, "coins": 4, "coin_value": 500}):
        assert game.jackpot_return(game.validate_bet(params)) is None  # not eligible (rules §9)


def test_kobushi_declared_rtp_with_jackpots_is_the_game_rtp_plus_the_exact_jackpot_return():
    """Exact parts + the free-spin analysis (exact but for float rounding and the 5,000 x cap) + jackpots = 98.21 %
    to the declared figure's rounding; 0.5 % per pool (1 % in total) would give ~98.71 % and fail."""
    game, _ = _kobushi()
    bet = game.validate_bet({"lines": 30, "coins": 5, "coin_value": 500})
    jackpot = sum(game.jackpot_return(bet).values(), Fraction(0))
    game_rtp = 100 * (float(sum(game.exact_rtp(bet).values())) + game.free_spins_analysis(30)["rtp"])
    assert abs(game_rtp - 96.89) < 0.005
    assert abs(game_rtp + 100 * float(jackpot) - 98.21) < 0.005
    assert abs(game_rtp + 100 * float(jackpot + Fraction(5, 1000)) - 98.21) > 0.4


def test_kobushi_sheet_at_max_coins_and_lines_adds_the_jackpot_return_and_contains_the_declared_98_21():
    game, _ = _kobushi()
    sheet = par.par_sheet(
        game, {"lines": 30, "coins": 5, "coin_value": 10}, rounds=400_000, seed=20240601, rng_factory=SeededRNG
    )
    json.dumps(sheet)
    r, wj = sheet["rtp"], sheet["with_jackpots"]
    jackpot = sum(game.jackpot_return(game.validate_bet(sheet["bet"])).values(), Fraction(0))
    assert wj["eligible"] and wj["jackpot_fraction"] == f"{jackpot.numerator}/{jackpot.denominator}"
    assert set(wj["parts"]) == {"sushi_seed", "kobushi_seed", "sushi_contribution", "kobushi_contribution"}
    assert wj["percent"] == pytest.approx(r["percent"] + 100 * float(jackpot), abs=1e-9)
    assert wj["standard_error_percent"] == r["standard_error_percent"] > 0  # the added parts are exact
    for ci in ("ci95", "ci99"):
        assert [b - a for a, b in zip(r[ci], wj[ci])] == pytest.approx([100 * float(jackpot)] * 2, abs=1e-9)
    assert wj["ci95"][0] <= 98.21 <= wj["ci95"][1]
    assert wj["declared_percent"] == "98.21" and wj["declared_figure"] == "rtp_with_jackpots"
    assert wj["declared_inside_ci95"] and wj["declared_inside_ci99"]
    text = par.format_par_sheet(sheet)
    assert "RTP with jackpots" in text and "declared 98.21 % (with jackpots) inside 95 % CI yes" in text
    assert f"{jackpot.numerator}/{jackpot.denominator} = 1.320110 %" in text


def test_kobushi_sheet_below_max_lines_is_not_eligible_and_its_rtp_with_jackpots_is_the_game_rtp():
    game, _ = _kobushi()
    sheet = par.par_sheet(
        game, {"lines": 15, "coins": 5, "coin_value": 10}, rounds=100_000, seed=3, rng_factory=SeededRNG
    )
    r, wj = sheet["rtp"], sheet["with_jackpots"]
    assert not wj["eligible"] and wj["parts"] == {} and wj["jackpot_fraction"] == "0/1"
    assert wj["percent"] == r["percent"] and wj["ci95"] == r["ci95"] and wj["ci99"] == r["ci99"]
    assert wj["declared_percent"] == "96.89" and wj["declared_figure"] == "rtp"
    assert wj["declared_inside_ci99"] == r["declared_inside_ci99"]
    assert sheet["simulation"]["feature_counts"].get("jackpot_events", 0) == 0
    assert "not eligible" in par.format_par_sheet(sheet)
