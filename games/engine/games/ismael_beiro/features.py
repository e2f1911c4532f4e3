"""The features' draws and rules: conversion of prizes into bonuses, the lower game's ladders (Bonus-Raise with the
seesaw above the 3-lemons prize, Raise-Nothing), the Confessional, the minigame selector's pre-drawn block (one
prize for whichever of the five minigames the player chooses), the Mixed prize and Double-or-Bonuses.

Every function that draws says exactly which draws it makes; none of them depends on a choice the player has not
made yet, and a choice never changes a value already drawn (the selector's prize and every minigame's picture are
drawn when the selector opens, before the player chooses).
"""

from __future__ import annotations

from typing import Any

from ... import slots
from ...base import RNG, JsonDict


def to_bonuses(rng: RNG, amount: int, bonus_value: int) -> int:
    """A prize of ``amount`` haléř converted into bonuses: one per ``bonus_value`` haléř, and the remainder r
    gives one more bonus with probability r / bonus_value (seed 2.8: "the remaining amount is rounded randomly";
    the expected number of bonuses is exactly amount / bonus_value). One draw ``randbelow(bonus_value)`` when
    there is a remainder, none otherwise."""
    n, rem = divmod(amount, bonus_value)
    if rem and rng.randbelow(bonus_value) < rem:
        n += 1
    return n


# --- the lower game's ladders (seed 2.8) ---------------------------------------------------------------------------
def rung_of(scale: list[int], prize: int) -> int:
    return scale.index(prize)


def ladder_entry(cfg: JsonDict, prize: int, symbol: str | None, fair: bool = False) -> str | None:
    """Which ladder a lower-game cash prize may be risked in: a blue symbol's prize and every Confessional cash
    prize the Bonus-Raise (the seesaw when above the 3-lemons prize), the yellow symbol's prize the Raise-Nothing;
    any other direct prize is above the 3-lemons prize and is collected at once (seed: "automatically capped"),
    and so is the maximum prize."""
    if prize >= cfg["scale"][-1]:
        return None
    if symbol is None or symbol in cfg["blue"]:
        if fair:  # version 3: the seesaw on every rung (a fair bet in cash; see ladder_step_fair)
            return "seesaw"
        return "seesaw" if prize > cfg["three_lemons"] else "bonus_raise"
    if symbol in cfg["yellow"]:
        return "raise_nothing"
    return None


def ladder_step(rng: RNG, cfg: JsonDict, ladder: JsonDict) -> JsonDict:
    """One PLAY/ACCUMULATE of a ladder (one draw ``randbelow(1000)``); returns the step record and updates
    ``ladder`` (rung, mode, ``ended`` and its reason: "bonuses", "nothing" or "max_prize")."""
    scale = cfg["scale"]
    mode, r = ladder["mode"], ladder["rung"]
    u = rng.randbelow(1000)
    step: JsonDict = {"type": "risk", "game": "lower", "ladder": mode, "from": scale[r]}
    if mode == "bonus_raise":
        up = u < cfg["up_per_mille"][r]
        outcome = "up" if up else "bonuses"
    elif mode == "seesaw":
        up = u < cfg["up_per_mille"][r]
        outcome = "up" if up else "down"
    else:
        up = u < cfg["raise_nothing_up_per_mille"][r]
        outcome = "up" if up else "nothing"
    step["outcome"] = outcome
    if outcome == "up":
        r += 1
    elif outcome == "down":
        r -= 1
    ladder["rung"] = r
    if outcome in ("bonuses", "nothing"):
        ladder["ended"] = outcome
    elif r == len(scale) - 1:
        ladder["ended"] = "max_prize"
    elif mode != "raise_nothing":
        ladder["mode"] = "seesaw" if scale[r] > cfg["three_lemons"] else "bonus_raise"
    step["to"] = scale[r] if outcome in ("up", "down") else 0
    return step


def fair_odds(scale: list[int], rung: int, mode: str) -> tuple[int, int]:
    """Version 3's exact odds of going up from ``rung``: (numerator, denominator) with the expected value of one
    step equal to the prize on the rung. The seesaw goes one rung down otherwise (to nothing below the lowest):
    p x next + (1 - p) x below = here, p = (here - below) / (next - below). The Raise-Nothing loses everything
    otherwise: p = here / next."""
    here, nxt = scale[rung], scale[rung + 1]
    below = 0 if mode == "raise_nothing" or rung == 0 else scale[rung - 1]
    return here - below, nxt - below


def ladder_step_fair(rng: RNG, cfg: JsonDict, ladder: JsonDict) -> JsonDict:
    """Version 3's PLAY/ACCUMULATE: one draw ``randbelow(denominator)`` of :func:`fair_odds`; up when it is below
    the numerator, else one rung down (the seesaw; below the lowest rung nothing) or nothing (the Raise-Nothing).
    Updates ``ladder`` like :func:`ladder_step` (``ended``: "nothing" or "max_prize")."""
    scale = cfg["scale"]
    mode, r = ladder["mode"], ladder["rung"]
    num, den = fair_odds(scale, r, mode)
    up = rng.randbelow(den) < num
    step: JsonDict = {"type": "risk", "game": "lower", "ladder": mode, "from": scale[r], "odds": [num, den]}
    if up:
        r += 1
        outcome = "up"
    elif mode == "seesaw" and r > 0:
        r -= 1
        outcome = "down"
    else:
        outcome = "nothing"
    step["outcome"] = outcome
    ladder["rung"] = r
    if outcome == "nothing":
        ladder["ended"] = "nothing"
    elif r == len(scale) - 1:
        ladder["ended"] = "max_prize"
    step["to"] = scale[r] if outcome in ("up", "down") else 0
    return step


def ladder_value(cfg: JsonDict, bonus_worth: float) -> dict[str, list[float]]:
    """What a prize on each rung is worth (x stake) when it is risked to the end (AUTO-RISK), with one stake of
    bonuses worth ``bonus_worth`` stakes of cash: {"bonus_raise": [...], "raise_nothing": [...]} per rung (the
    seesaw rungs are in "bonus_raise"). Solved exactly (floats) as a linear system over the rungs."""
    import numpy as np

    scale = cfg["scale"]
    n = len(scale)
    top = n - 1
    a = np.zeros((n, n))
    b = np.zeros(n)
    for r in range(n):
        a[r, r] = 1.0
        if r == top:
            b[r] = scale[r]
        elif scale[r] <= cfg["three_lemons"]:
            p = cfg["up_per_mille"][r] / 1000
            a[r, r + 1] -= p
            b[r] = (1 - p) * bonus_worth * scale[r]
        else:
            p = cfg["up_per_mille"][r] / 1000
            a[r, r + 1] -= p
            a[r, r - 1] -= 1 - p
    br = list(np.linalg.solve(a, b))
    rn = [0.0] * n
    rn[top] = float(scale[top])
    for r in range(top - 1, -1, -1):
        rn[r] = cfg["raise_nothing_up_per_mille"][r] / 1000 * rn[r + 1]
    return {"bonus_raise": [float(x) for x in br], "raise_nothing": rn}


# --- the lower game's Confessional (seed 2.7) ----------------------------------------------------------------------
def draw_confessional(rng: RNG, cfg: JsonDict) -> JsonDict:
    """The six options and the one that is lit when the player stops: the prize (one weighted draw), its
    position (``randbelow(6)``) and the five other options (five weighted draws). The stop only reveals it."""
    prize = slots.draw_weighted(rng, cfg["prizes"])
    lit = rng.randbelow(cfg["options"])
    others = [slots.draw_weighted(rng, cfg["prizes"]) for _ in range(cfg["options"] - 1)]
    options = others[:lit] + [prize] + others[lit:]
    return {"options": [list(o) for o in options], "lit": lit, "prize": list(prize)}


# --- the upper game's minigames (seed 3, "Minigames") --------------------------------------------------------------
def draw_minigame_block(
    rng: RNG, mg: JsonDict, stake: int, max_prize: int, bonus_value: int, island_columns: int, within_max: bool = False
) -> JsonDict:
    """Everything every minigame needs, drawn when the selector opens (``max_prize`` x the stake is the bet's
    maximum prize), in this order:

    1. the prize x stake (weighted table), the same whichever minigame is chosen;
    2. the supplement (``randbelow(1000)`` < supplement per mille): the prize becomes the bet's maximum, the drawn
       prize in cash plus bonuses for the rest (``to_bonuses``: one more draw when there is a remainder);
    3. five other prizes (weighted draws): the Desert Expedition's other two characters, the Confessional's
       other five options;
    4. the Dinner: how many dishes hide a prize (``1 + randbelow(5)``) and the prize split over them
       (``slots.split_prize``: one draw per cut);
    5. The Island: the prize split into 9 parts (8 cuts), shown in 1-3 columns of 3 (the bet's columns; the last
       amount shown holds the parts of the columns not shown);
    6. the Monologue: which wheel segment showing the prize stops (``randbelow`` of how many show it);
    7. the Confessional's lit position (``randbelow(6)``).

    ``within_max`` (version 3): a prize of the table above the bet's maximum prize is the maximum (the minigame
    shows what it pays), and so is every other amount it shows."""
    prize: int = slots.draw_weighted(rng, mg["prizes"])
    if within_max:
        prize = min(prize, max_prize)
    supplement = rng.randbelow(1000) < mg["supplement_per_mille"]
    bonuses = to_bonuses(rng, (max_prize - prize) * stake, bonus_value) if supplement and prize < max_prize else 0
    others = [slots.draw_weighted(rng, mg["prizes"]) for _ in range(5)]
    if within_max:
        others = [min(x, max_prize) for x in others]
    dishes = mg["dinner_dishes"]
    k = 1 + rng.randbelow(dishes)
    dinner = [x * stake for x in slots.split_prize(rng, prize, k)] + (["exit"] if k < dishes else [])
    parts = slots.split_prize(rng, prize, mg["island_parts"])
    shown = 3 * island_columns
    island = [x * stake for x in parts[: shown - 1]] + [sum(parts[shown - 1 :]) * stake]
    wheel = mg["monologue_wheel"]
    segments = [i for i, (_, v) in enumerate(wheel) if v == prize]
    segment = segments[rng.randbelow(len(segments))]
    lit = rng.randbelow(mg["confessional_options"])
    conf = [x * stake for x in others[:lit]] + [prize * stake] + [x * stake for x in others[lit:]]
    return {
        "prize": prize * stake,
        "prize_x": prize,
        "supplement": supplement,
        "bonuses": bonuses,
        "desert": [prize * stake] + [x * stake for x in others[:2]],
        "dinner": dinner,
        "island": island,
        "island_columns": island_columns,
        "monologue": {"segment": segment, "element": wheel[segment][0]},
        "confessional": {"options": conf, "lit": lit},
    }


# --- Double-or-Bonuses (seed 3.10) ---------------------------------------------------------------------------------
def dob_open(cfg: JsonDict, prize: int, stake: int, max_prize: int, bonuses: int) -> bool:
    """Whether a prize of the upper game may be risked: at least one fraction, below the bet's maximum prize and
    at most 3,000 bonuses accumulated."""
    return bool(prize >= cfg["fraction"] * stake and prize < max_prize and bonuses <= cfg["max_bonuses_for_double"])


def dob_step(rng: RNG, cfg: JsonDict, dob: JsonDict, bonus_value: int) -> JsonDict:
    """Risk one fraction (``randbelow(1000)`` < double per mille: twice the fraction in cash, else the fraction
    converted into bonuses, ``to_bonuses``). Updates ``dob`` (remaining, banked, bonuses)."""
    f = dob["fraction"]
    dob["remaining"] -= f
    doubled = rng.randbelow(1000) < cfg["double_per_mille"]
    step: JsonDict = {"type": "double_or_bonuses", "fraction": f, "outcome": "double" if doubled else "bonuses"}
    if doubled:
        dob["banked"] += 2 * f
        step["cash"] = 2 * f
    else:
        n = to_bonuses(rng, f, bonus_value)
        dob["bonuses"] += n
        step["bonuses"] = n
    step["remaining"], step["banked"] = dob["remaining"], dob["banked"]
    return step


def dob_step_fair(rng: RNG, dob: JsonDict) -> JsonDict:
    """Version 3: risk one fraction, doubled or lost with even odds (one draw ``randbelow(2)``, 0 doubles): its
    expected value is the fraction. Updates ``dob`` (remaining, banked)."""
    f = dob["fraction"]
    dob["remaining"] -= f
    doubled = rng.randbelow(2) == 0
    step: JsonDict = {"type": "double_or_bonuses", "fraction": f, "outcome": "double" if doubled else "lost"}
    if doubled:
        dob["banked"] += 2 * f
        step["cash"] = 2 * f
    step["remaining"], step["banked"] = dob["remaining"], dob["banked"]
    return step


def weighted_mean(table: list[list[Any]]) -> float:
    total: float = sum(float(v) * w for v, w in table) / sum(w for _, w in table)
    return total
