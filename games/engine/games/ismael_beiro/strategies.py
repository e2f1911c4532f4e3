"""Ismael Beiro version 3: the return under every way of playing, for the PAR sheet.

The machine holds, nudges and chooses the upper bet, and the minigames' prizes are drawn before the player's
choice, so those choices give the same rounds. The gambles (the ladders and Double-or-Bonuses) are the player's:
each risk's expected value equals the prize risked exactly (``features.fair_odds``, even odds for a fraction), and
a gamble is offered only while all it can win fits under the maximum prizes, so every way of risking has the
expected value of collecting; the one effect a gamble can have is through what the round's cap takes from a later
prize or lapses of bonuses, which the simulator measures (``cap_loss``). The fast simulator plays each gamble
policy on the same lower and upper games (the gambles draw from their own stream): the differences between the
rows are the gambles' alone.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import TYPE_CHECKING

from ...base import Bet, JsonDict
from . import fast_sim

if TYPE_CHECKING:
    from .game import IsmaelBeiro

Z99 = 2.5758293035489
POLICIES: list[tuple[str, bool | str, str]] = [
    ("automatic", False, "automatic play (AUTO-PLAY): the machine's holds and nudges, every prize collected"),
    ("auto_risk", True, "AUTO-RISK = always gamble: every prize risked whenever offered, to the end"),
    ("risk_once", "once", "every prize risked once, then collected"),
]
# choices that are not the player's in version 3, or reveal what was drawn before them: the same rounds as
# automatic play
SAME_ROUNDS: list[tuple[str, str]] = [
    ("decline_every_nudge", "decline every nudge: not offered, the machine nudges"),
    ("never_hold", "never hold: not offered, the machine holds"),
    ("upper_bet", "any upper bet: not offered, the machine plays the highest the bonuses cover"),
    ("minigame_choices", "any minigame and any pick: the prize is drawn before the choice"),
]


def strategy_table(game: IsmaelBeiro, bet: Bet, rounds: int, seed: int) -> JsonDict:
    """Each gamble policy simulated on the same rounds (``rounds``, ``seed``): RTP, 99 % CI, the paired difference
    from automatic play with its 99 % CI, and what the round's cap took (pp); the declared range and bound."""
    rows: list[JsonDict] = []
    stake = bet.total_stake
    base_rtp = None
    for key, policy, label in POLICIES:
        st = fast_sim.simulate_fast(game, bet, rounds, seed, policy=policy)
        n, total = st["rounds"], st["total_stake"]
        rtp = 100 * st["total_win"] / total
        sd = math.sqrt(max(0.0, st["sum_sq"] / n / stake**2 - (st["total_win"] / total) ** 2))
        g_mean = st["breakdown"]["gamble"] / n / stake
        g_sd = math.sqrt(max(0.0, st["breakdown_sum_sq"]["gamble"] / n / stake**2 - g_mean**2))
        if base_rtp is None:
            base_rtp = rtp
        rows.append(
            {
                "strategy": key,
                "label": label,
                "rtp_percent": rtp,
                "ci99": [rtp - 100 * Z99 * sd / math.sqrt(n), rtp + 100 * Z99 * sd / math.sqrt(n)],
                "difference_pp": rtp - base_rtp,
                "gamble_pp": 100 * g_mean,
                "gamble_ci99_pp": [
                    100 * (g_mean - Z99 * g_sd / math.sqrt(n)),
                    100 * (g_mean + Z99 * g_sd / math.sqrt(n)),
                ],
                "cap_loss_pp": 100 * st["feature_counts"]["cap_loss"] / total,
                "capped_rounds": st["feature_counts"]["capped_rounds"],
            }
        )
    bound = Decimal(game.d["rtp_spread_bound"])
    rng = game.rtp_range()
    assert rng is not None, "a version with fair gambles declares its RTP range"
    lo, hi = rng
    table: JsonDict = {
        "bet": bet.params,
        "rounds": rounds,
        "seed": seed,
        "rows": rows,
        "same_rounds": [{"strategy": k, "label": label, "as": "automatic"} for k, label in SAME_ROUNDS],
        "spread_bound_pp": str(bound),
        "cap_loss_max_pp": max(r["cap_loss_pp"] for r in rows),
        "cap_loss_within_bound": all(r["cap_loss_pp"] < float(bound) for r in rows),
        "gambles_zero_within_ci99": all(r["gamble_ci99_pp"][0] <= 0 <= r["gamble_ci99_pp"][1] for r in rows),
        "declared_range": [str(lo), str(hi)],
        "range_floor_at_least_min_rtp": lo >= Decimal("84.24"),
    }
    table["lines"] = format_strategy_table(table)
    return table


def format_strategy_table(t: JsonDict) -> list[str]:
    yes = {True: "yes", False: "NO"}
    lines = [
        "",
        f"RTP by way of playing (GP §7(3)): {t['rounds']:,} rounds each, seed {t['seed']}, the same lower "
        "and upper games (the gambles draw from their own stream)",
        "  strategy            RTP          99 % CI                   gamble part (99 % CI, pp)        cap took",
    ]
    for r in t["rows"]:
        lines.append(
            f"  {r['strategy']:<19} {r['rtp_percent']:8.4f} %  [{r['ci99'][0]:.4f} %, {r['ci99'][1]:.4f} %]"
            f"  {r['gamble_pp']:+.4f} [{r['gamble_ci99_pp'][0]:+.4f}, {r['gamble_ci99_pp'][1]:+.4f}]"
            f"  {r['cap_loss_pp']:.4f} pp"
        )
    for r in t["rows"]:
        lines.append(f"    {r['strategy']}: {r['label']}")
    lines.append("  the same rounds as automatic play (no choice, or the outcome drawn before the choice):")
    for s in t["same_rounds"]:
        lines.append(f"    {s['label']}")
    lines += [
        "  best and worst strategy: every risk's expected value equals the prize risked exactly (ladder odds",
        "    (here - below) / (next - below) and here / next, a fraction at even odds), offered only while all it can",
        "    win fits under the maximum prizes: every stopping rule returns what collecting returns, except what the",
        f"    round's cap takes from a later prize (at most {t['cap_loss_max_pp']:.4f} pp above)",
        f"  stated bound on the spread between strategies  {t['spread_bound_pp']} pp; cap's effect within it: "
        f"{yes[t['cap_loss_within_bound']]}; every gamble part zero within its 99 % CI: "
        f"{yes[t['gambles_zero_within_ci99']]}",
        f"  declared RTP range                          {t['declared_range'][0]} % - {t['declared_range'][1]} %; "
        f"floor >= 84.24 % (GP §8(4)): {yes[t['range_floor_at_least_min_rtp']]}",
    ]
    return lines
