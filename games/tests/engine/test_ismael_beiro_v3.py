"""Ismael Beiro version 3: no choice of the player decides what a round returns (GP §7(3)).

The machine holds, nudges and chooses the upper bet; the player's other choices either reveal an outcome drawn
before the choice (the same round whatever is chosen) or risk a prize in a gamble whose every step is exactly fair.
Proven here at three levels: the odds themselves (exact fractions), the engine's own step (every possible draw of
one risk, against collecting, on the same round) and the long run of every way of playing (the fast simulator,
paired: the same lower and upper games, only the gambles differ)."""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pytest

from core.rng import SeededRNG
from games.engine import RecordingRNG, ReplayRNG, par
from games.engine.games import ismael_beiro as ib
from games.engine.games.ismael_beiro import fast_sim, features

G = ib.ISMAEL_BEIRO_V3
GP_MINIMUM = Decimal("84.24")  # GP §8(4)
SPREAD_BOUND = Decimal(G.d["rtp_spread_bound"])  # percentage points


class FirstDrawIs:
    """An RNG whose first draw is ``value`` (must be below the range asked) and the rest from a seeded stream."""

    def __init__(self, value: int, seed: int) -> None:
        self.value, self.inner, self.first = value, SeededRNG(seed), True

    def randbelow(self, n: int) -> int:
        if self.first:
            self.first = False
            assert 0 <= self.value < n
            return self.value
        return self.inner.randbelow(n)


def _step(st: dict) -> dict:
    """The automatic choice, the upper game launched one game at a time (so that its offers are the player's)."""
    return {"type": "upper_spin"} if st["stage"] == "upper_game" else G.default_action(st)


def _drive(seed: int, stake: int, stop_at: tuple[str, ...], carry: dict | None = None) -> tuple[dict, SeededRNG]:
    """A round at ``stake`` played with the automatic choices until it offers one of ``stop_at`` (or ends)."""
    rng = SeededRNG(seed)
    st = G.start_carried(G.validate_bet({"stake": stake}), rng, carry)
    while st["status"] == "awaiting_action" and st["stage"] not in stop_at:
        st = G.act(st, _step(st), rng)
    return st, rng


def _offer_value(st: dict) -> int:
    """What the round holds at a gamble offer (or after it ended): its win with the prize at risk counted as it
    stands (the ladder's rung, Double-or-Bonuses' banked and remaining)."""
    if st["status"] == "awaiting_action" and st["stage"] == "ladder":
        lad = st["ladder"]
        return int(st["win"] + (G.d["ladder"]["scale"][lad["rung"]] - lad["entry"]) * st["stake"])
    if st["status"] == "awaiting_action" and st["stage"] == "dob":
        dob = st["upper"]["dob"]
        return int(st["win"] - dob["entry"] + dob["banked"] + dob["remaining"])
    return int(st["win"])


def test_version_3_is_the_current_version_and_the_older_ones_stay_registered_for_replay():
    from games.engine import get_game

    assert get_game("ismael_beiro") is G and G.version == 3
    assert get_game("ismael_beiro", 2) is ib.ISMAEL_BEIRO_V2 and get_game("ismael_beiro", 1) is ib.ISMAEL_BEIRO_V1
    assert G.machine_choices and G.fair_gambles and not ib.ISMAEL_BEIRO_V2.machine_choices


def test_the_machine_holds_nudges_and_chooses_the_upper_bet():
    """In 3,000 rounds played step by step no hold, nudge or upper-bet choice is ever offered, while the machine's
    holds and nudges happen (recorded as steps)."""
    seen: dict[str, int] = {"hold": 0, "auto_nudge": 0, "upper": 0}
    for seed in range(3_000):
        rng = SeededRNG(seed)
        st = G.start_carried(
            G.validate_bet({"stake": 5000}), rng, {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 150}
        )
        while st["status"] == "awaiting_action":
            assert st["pending"]["type"] not in ("hold", "nudge")
            if st["pending"]["type"] == "upper_game":
                assert st["pending"]["options"] == [{"type": "upper_spin"}, {"type": "auto_play"}]
                seen["upper"] += 1
            st = G.act(st, _step(st), rng)
        seen["hold"] += sum(1 for s in st["steps"] if s["type"] == "hold")
        seen["auto_nudge"] += sum(1 for s in st["steps"] if s["type"] == "auto_nudge")
    assert min(seen.values()) > 20, seen


@pytest.mark.parametrize("mode", ["seesaw", "raise_nothing"])
def test_every_ladder_step_is_exactly_fair(mode):
    scale = G.d["ladder"]["scale"]
    for r in range(len(scale) - 1):
        num, den = features.fair_odds(scale, r, mode)
        below = 0 if mode == "raise_nothing" or r == 0 else scale[r - 1]
        assert Fraction(num, den) * scale[r + 1] + (1 - Fraction(num, den)) * below == scale[r]


def _exact_one_step(seed: int, stake: int, stage: str, carry: dict | None = None) -> tuple[Fraction, int] | None:
    """At the first ``stage`` offer of a seeded round: the exact mean over every value of the risk's draw of what
    the round then holds, and what collecting holds (the engine's own ``act`` on copies of the same state)."""
    st, _ = _drive(seed, stake, (stage,), carry)
    if st["status"] != "awaiting_action" or st["stage"] != stage:
        return None
    collected = _offer_value(G.act(st, {"type": "collect"}, SeededRNG(seed + 1)))
    probe = RecordingRNG(SeededRNG(seed + 2))
    G.act(st, {"type": "risk"}, probe)
    n = probe.draws[0][0]
    total = sum(_offer_value(G.act(st, {"type": "risk"}, FirstDrawIs(v, seed + 2))) for v in range(n))
    return Fraction(total, n), collected


def test_risking_or_collecting_on_the_same_round_has_the_same_expected_value_exactly():
    """Opposite choices on the same draws: at every ladder and Double-or-Bonuses offer reached (seeded rounds),
    risking (averaged exactly over every value of its draw, through the engine's ``act``) holds what collecting
    holds. By induction every way of risking (AUTO-RISK, once, to the end) has the expected value of collecting."""
    checked = {"ladder": 0, "dob": 0}
    carry = {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 300}
    for seed in range(4_000):
        for stage, stake, c in (("ladder", 100, None), ("dob", 5000, carry)):
            if checked[stage] >= 40:
                continue
            res = _exact_one_step(seed, stake, stage, c)
            if res is not None:
                assert res[0] == res[1], (seed, stage, res)
                checked[stage] += 1
    assert checked == {"ladder": 40, "dob": 40}


def test_a_gamble_is_offered_only_while_all_it_can_win_fits_under_the_maximum_prizes():
    carry = {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 300}
    offers = 0
    for seed in range(600):
        rng = SeededRNG(seed)
        st = G.start_carried(G.validate_bet({"stake": 5000, "auto_play": True, "auto_risk": True}), rng, carry)
        for s in st["steps"]:
            if s["type"] == "double_or_bonuses":
                offers += 1
                assert s["outcome"] in ("double", "lost")
        assert st["win"] <= st["cap"]
    assert offers > 20


def test_the_minigame_chosen_and_the_items_picked_do_not_change_the_round():
    """The same draws, every minigame and opposite picks: the same win and the same carried state."""
    carry = {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 400}
    compared = 0
    for seed in range(3_000):
        st, rng = _drive(seed, 5000, ("minigame_select",), carry)
        if st["status"] != "awaiting_action":
            continue
        rec = RecordingRNG(SeededRNG(seed + 7))
        outcomes = set()
        for name in G.d["minigames"]["names"]:
            for last in (False, True):
                r2 = ReplayRNG(rec.draws) if rec.draws else rec
                s = G.act(st, {"type": "select", "minigame": name}, r2)
                while s["status"] == "awaiting_action":
                    opts = s["pending"]["options"]
                    act = opts[-1] if (last and s["stage"] == "minigame") else _step(s)
                    s = G.act(s, act, r2)
                outcomes.add((s["win"], str(s.get("carry_out"))))
        assert len(outcomes) == 1, (seed, outcomes)
        compared += 1
        if compared >= 10:
            break
    assert compared >= 10


def test_a_minigame_never_shows_more_than_the_bet_pays():
    mg = G.d["minigames"]
    clamped = 0
    for seed in range(3_000):
        block = features.draw_minigame_block(SeededRNG(seed), mg, 10_000, 500, G.bonus_value, 3, within_max=True)
        shown = [
            block["prize"],
            *block["desert"],
            *block["confessional"]["options"],
            *[x for x in block["dinner"] if x != "exit"],
            sum(block["island"]),
        ]
        assert max(shown) <= 500 * 10_000
        clamped += block["prize_x"] == 500
    assert clamped > 0
    assert G.bet_max_x(5) == 500 and 500 in {v for _, v in mg["monologue_wheel"]}


def test_bonuses_that_would_take_a_round_over_its_maximum_prize_lapse():
    state: dict[str, Any] = {"cap": 100_000, "win": 99_500, "bonuses": 20, "carry_in": {"bonuses": 10}}
    step: dict[str, Any] = {}
    G._bonuses_within_cap(state, step)
    assert state["bonuses"] == 11 and step == {"bonuses_beyond_max_prize": 9}  # 10 carried in + 500 haléř = 1 bonus
    state = {"cap": 100_000, "win": 1_000, "bonuses": 20, "carry_in": {"bonuses": 10}}
    step = {}
    G._bonuses_within_cap(state, step)
    assert state["bonuses"] == 20 and step == {}


STRATEGY_ROUNDS = 1_000_000


def test_every_way_of_playing_returns_the_same_within_the_stated_bound():
    """The fast simulator, paired (the gambles draw from a stream of their own): collecting everything, risking
    each prize once, AUTO-RISK (every prize to the end). The lower and upper games are the same rounds; the
    gambles' part is the only difference, and its mean is zero within its 99 % CI; what the round's cap takes
    (the one way a gamble can change the expected value) stays below the stated bound."""
    bet = G.validate_bet({"stake": 5000})
    runs = {p: fast_sim.simulate_fast(G, bet, STRATEGY_ROUNDS, 11, policy=p) for p in (False, "once", True)}
    base = runs[False]
    assert base["breakdown"]["gamble"] == 0
    for p, r in runs.items():
        assert r["breakdown"]["base"] == base["breakdown"]["base"]
        n, stake = r["rounds"], r["total_stake"] / r["rounds"]
        mean = r["breakdown"]["gamble"] / n / stake
        sd = math.sqrt(r["breakdown_sum_sq"]["gamble"] / n / stake**2 - mean**2)
        assert abs(mean) <= 2.576 * sd / math.sqrt(n), (p, mean, sd)
        cap_loss_pp = 100 * r["feature_counts"]["cap_loss"] / r["total_stake"]
        assert cap_loss_pp < float(SPREAD_BOUND), (p, cap_loss_pp)


def test_the_declared_range_has_its_floor_above_the_legal_minimum_and_the_rules_say_so():
    desc = G.describe()
    d = desc["declared"]
    lo, hi = Decimal(d["rtp_range"]["min"]), Decimal(d["rtp_range"]["max"])
    assert lo >= GP_MINIMUM and lo <= Decimal(d["rtp"]) <= hi and hi - lo == 2 * SPREAD_BOUND
    assert "rtp_by_option" not in d  # AUTO-RISK returns the same: no figure of its own
    assert "every way of playing returns between 93.15 % and 93.35 %" in desc["rules_en"]
    assert "každý způsob hry vrací 93,15 % až 93,35 %" in desc["rules_cs"]
    for text in ("the machine holds the pair", "worth exactly the prize risked", "twice the fraction or nothing"):
        assert text in desc["rules_en"]
    assert "Bonus-Raise" not in desc["rules_en"] and "AUTO picks the best" not in desc["rules_en"]
    assert desc["lower_game"]["choices"] == "the machine holds, nudges and chooses the upper bet"
    assert desc["upper_game"]["double_or_bonuses"]["fraction_by_stake"] == {
        "100": 20,
        "500": 10,
        "1000": 10,
        "2500": 6,
        "5000": 5,
        "10000": 5,
    }


@pytest.mark.slow
@pytest.mark.parametrize("stake", [100, 500, 1000, 2500, 5000])
@pytest.mark.parametrize("auto_risk", [False, True])
def test_every_bet_with_and_without_auto_risk_returns_the_declared_rtp_within_the_99_percent_ci(stake, auto_risk):
    stats = G.simulate_fast(G.validate_bet({"stake": stake, "auto_risk": auto_risk}), 4_000_000, stake + auto_risk)
    s = par.summarise(stats, stake)
    rng = G.rtp_range()
    assert rng is not None
    lo, hi = rng
    assert s["ci99"][0] <= float(hi) and float(lo) <= s["ci99"][1], (stake, auto_risk, s)


def test_the_fast_simulator_plays_version_3_like_the_engine():
    bet = G.validate_bet({"stake": 5000, "auto_risk": True})
    fast = par.summarise(G.simulate_fast(bet, 1_000_000, 8), 5000)
    ref = par.summarise(par.simulate_generic(G, bet, 20_000, 8, rng_factory=SeededRNG), 5000)
    assert abs(fast["rtp"] - ref["rtp"]) < 4 * math.hypot(fast["standard_error"], ref["standard_error"])


def test_a_round_left_open_is_finished_by_the_automatic_choices_and_replays():
    """What the platform does at a round's deadline (GP §7(8)b): ``auto_finish`` plays the automatic choices from
    wherever the round waits (a ladder, Double-or-Bonuses, the upper game, a minigame) to its end; the recorded
    actions and draws replay it, and the value the round held is settled, not rewound."""
    from games.engine import auto_finish

    carry = {"vertical_lines": 0, "cumulative": [0] * 6, "bonuses": 300}
    seen: dict[str, int] = {"ladder": 0, "dob": 0, "minigame_select": 0, "upper_game": 0}
    for seed in range(2_000):
        for stage, stake, c in (
            ("ladder", 100, None),
            ("dob", 5000, carry),
            ("minigame_select", 5000, carry),
            ("upper_game", 5000, carry),
        ):
            if seen[stage] >= 5:
                continue
            rec = RecordingRNG(SeededRNG(seed))
            st = G.start_carried(G.validate_bet({"stake": stake}), rec, c)
            taken = []
            while st["status"] == "awaiting_action" and st["stage"] != stage:
                a = _step(st)
                st = G.act(st, a, rec)
                taken.append(a)
            if st["status"] != "awaiting_action":
                continue
            held = _offer_value(st)
            end, more = auto_finish(G, st, rec)
            assert end["status"] == "finished" and end["win"] >= (held if stage in ("ladder", "dob") else 0)
            record = {"bet": end["bet"], "actions": taken + more, "draws": rec.draws, "state": end}
            assert G.replay(record) == end
            seen[stage] += 1
    assert min(seen.values()) == 5, seen
