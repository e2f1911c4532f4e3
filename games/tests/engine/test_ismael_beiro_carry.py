"""Ismael Beiro version 2 in the pure engine: the machine's counters and bonuses carried from one round to the next
(``carry_in`` / ``carry_out``, replayed from the round's record alone), the sixth upper bet, and the declared RTP
of the long run proven by simulation (version 1's tests: test_ismael_beiro.py)."""

from __future__ import annotations

import math
from decimal import Decimal

import pytest

from core.rng import SeededRNG
from games.engine import RecordingRNG, ReplayMismatch, par
from games.engine.base import ActionError, BetError
from games.engine.games import ismael_beiro as ib
from games.engine.games.ismael_beiro import fast_sim

G = ib.ISMAEL_BEIRO_V2
AUTO = G.validate_bet({"stake": 100, "auto_play": True})


def play(seed: int, carry: dict | None, bet=AUTO) -> dict:
    rng = RecordingRNG(SeededRNG(seed))
    st = G.start_carried(bet, rng, carry)
    return {"bet": bet.params, "actions": [], "draws": rng.draws, "state": st}


def test_version_2_declares_carry_over_and_version_1_does_not():
    assert G.carry_over and G.version == 2 and not ib.ISMAEL_BEIRO_V1.carry_over
    assert G.describe()["carry_over"]["carried"] == ["vertical_lines", "cumulative", "bonuses"]
    assert ib.ISMAEL_BEIRO_V1.describe()["carry_over"] is None


def test_a_round_starts_from_the_carried_counters_and_leaves_its_own_for_the_next():
    rec = play(1, None)
    assert rec["state"]["carry_in"] == G.fresh_carry() and rec["state"]["status"] == "finished"
    out = rec["state"]["carry_out"]
    assert set(out) == {"vertical_lines", "cumulative", "bonuses"} and len(out["cumulative"]) == len(G.bets)
    carry = {"vertical_lines": 9, "cumulative": [7, 0, 0, 0, 0, 0], "bonuses": 3}
    nxt = play(2, carry)
    assert nxt["state"]["carry_in"] == carry
    first_upper = next(s for s in nxt["state"]["steps"] if s["type"] == "spin" and s["game"] == "upper")
    assert first_upper["lines"] == 8  # the carried vertical lines give 8 lines at once
    assert first_upper["level"] == 0 and first_upper["bonus_price"] == 1  # the carried bonuses pay for it


def test_the_round_record_alone_replays_and_another_carried_state_does_not():
    carry = {"vertical_lines": 4, "cumulative": [6, 0, 0, 0, 0, 0], "bonuses": 2}
    rec = play(5, carry)
    assert G.replay(rec) == rec["state"]  # carry_in is part of the record
    forged = {**rec, "state": {**rec["state"], "carry_in": G.fresh_carry()}}
    with pytest.raises(ReplayMismatch):
        G.replay(forged)


@pytest.mark.parametrize(
    "bad",
    [
        {"vertical_lines": 10, "cumulative": [0] * 6, "bonuses": 0},
        {"vertical_lines": 0, "cumulative": [8, 0, 0, 0, 0, 0], "bonuses": 0},
        {"vertical_lines": 0, "cumulative": [0] * 5, "bonuses": 0},
        {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": -1},
        {"vertical_lines": 0, "cumulative": [0] * 6},
    ],
)
def test_a_malformed_carried_state_is_refused_not_guessed(bad):
    with pytest.raises(ActionError) as exc:
        G.start_carried(AUTO, SeededRNG(1), bad)
    assert exc.value.code == "game.ismael_beiro.bad_carry"


def test_the_carried_bonuses_are_the_money_of_the_state_and_the_counters_are_not():
    assert G.carry_value({"vertical_lines": 9, "cumulative": [7] * 6, "bonuses": 0}) == 0
    assert G.carry_value({"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 3}) == 3 * 400


def test_the_sixth_upper_bet_is_an_upper_bet_of_the_top_lower_bet_only():
    assert G.upper_levels(4) == [0, 1, 2, 3, 4, 5] and G.upper_levels(3) == [0, 1, 2, 3]
    assert ib.ISMAEL_BEIRO_V1.upper_levels(4) == [0, 1, 2, 3, 4]
    sixth = G.bets[5]
    assert sixth["stake"] == 10_000 and sixth["bonus_price"] == 100 and sixth["upper_only"]
    assert G.bet_max_x(5) * sixth["stake"] == 1000 * 5000  # its maximum prize: the round's, 50,000 CZK
    with pytest.raises(BetError):
        G.validate_bet({"stake": 10_000})
    assert G.declared.max_bet == 5000 and G.declared.max_win == 5_000_000
    st = G.start_carried(
        G.validate_bet({"stake": 5000}), SeededRNG(3), {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 100}
    )
    assert st["pending"]["type"] == "upper_game"
    assert {"type": "upper_spin", "level": 5} in st["pending"]["options"]
    st = G.act(st, {"type": "upper_spin", "level": 5}, SeededRNG(4))
    spin = next(s for s in st["steps"] if s["type"] == "spin" and s["game"] == "upper")
    assert spin["stake"] == 10_000 and spin["bonus_price"] == 100 and st["win"] <= 5_000_000


def test_the_long_run_returns_the_declared_rtp_within_the_99_percent_ci():
    stats = G.simulate_fast(G.validate_bet({"stake": 100}), 2_000_000, 31)
    s = par.summarise(stats, 100)
    assert s["ci99"][0] <= float(G.declared.rtp) <= s["ci99"][1], s
    assert stats["breakdown"]["base"] / stats["total_stake"] == pytest.approx(
        float(sum(G.exact_rtp(G.validate_bet({"stake": 100})).values())), abs=0.01
    )


def test_the_fast_simulator_carries_the_machine_like_the_engine_does():
    """The vectorised simulator's players against one player of the reference engine (rounds chained through
    ``carry_out``): the same return within their errors."""
    bet = G.validate_bet({"stake": 100})
    fast = par.summarise(G.simulate_fast(bet, 1_000_000, 8), 100)
    ref = par.summarise(par.simulate_generic(G, bet, 30_000, 8, rng_factory=SeededRNG), 100)
    assert abs(fast["rtp"] - ref["rtp"]) < 4 * math.hypot(fast["standard_error"], ref["standard_error"])
    assert fast_sim.PLAYERS == 2_000


@pytest.mark.slow
@pytest.mark.parametrize("stake", [100, 500, 1000, 2500, 5000])
def test_every_bet_of_version_2_returns_the_declared_rtp_within_the_99_percent_ci(stake):
    sheet = par.par_sheet(G, {"stake": stake}, rounds=4_000_000, seed=stake, rng_factory=SeededRNG)
    assert sheet["rtp"]["declared_inside_ci99"], par.format_par_sheet(sheet)


def test_version_2_declares_its_rtp_with_auto_risk_too_and_the_lowest_is_at_least_the_legal_minimum():
    """The game plan requires the declared RTP to be what the player gets: version 2 states both figures, the
    automatic choices' 93.25 % and AUTO-RISK's, the lowest over the player's options, in its catalogue entry and
    its rules, and the PAR sheet of an AUTO-RISK bet is checked against the AUTO-RISK figure."""
    g = ib.ISMAEL_BEIRO_V2
    declared = g.describe()["declared"]
    by_option = {o["option"]: Decimal(o["rtp"]) for o in declared["rtp_by_option"]}
    assert by_option == {"automatic_choices": Decimal("93.25"), "auto_risk": Decimal("85.50")}
    assert Decimal(declared["rtp"]) == g.declared.rtp == Decimal("93.25")
    assert Decimal(declared["rtp_lowest"]) == min(by_option.values()) == g.lowest_declared_rtp() >= Decimal("84.24")
    for lang, text in (("en", "85.50 % with AUTO-RISK"), ("cs", "85,50 % s AUTO-RISKEM")):
        rules = g.describe()[f"rules_{lang}"]
        assert text in rules and ("93.25 %" if lang == "en" else "93,25 %") in rules
    assert g.declared_rtp_for({"stake": 5000, "auto_risk": True}) == Decimal("85.50")
    assert g.declared_rtp_for({"stake": 100}) == Decimal("93.25")
    assert "rtp_by_option" not in ib.ISMAEL_BEIRO_V1.describe()["declared"]  # version 1 declares one figure
