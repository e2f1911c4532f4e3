"""Kinds of gambling (druhy hazardních her) and the rules each one carries.

The player account is shared by all the operator's kinds of gambling (GP §5(3)) and the
self-limits are kept separately for each kind (GP §6(1),(3)). A kind is stored as a short
code in every limits table (no database choices), so adding one (odds betting, live
betting ...) is a new entry here, not a migration.

The rules of GP §7 and §8 (stake grid, 120/15 break, hourly loss, one round at a time)
belong to the game plan for *technical games*; another kind brings its own plan, so each
rule is switched per kind.
"""

from __future__ import annotations

from dataclasses import dataclass

from limits.errors import UNKNOWN_KIND

TECHNICAL = "technical"


@dataclass(frozen=True)
class KindRules:
    code: str
    name_cs: str
    name_en: str
    offered: bool  # the operator offers this kind now (login_check looks at offered kinds)
    stake_grid: bool  # GP §8(1)-(2): min stake, step, max stake per round
    play_break: bool  # GP §7(4)-(5): 120 minutes of play, then a 15-minute break
    hourly_loss: bool  # GP §8(5), ZHH §53: max net loss over any rolling 60 minutes
    one_open_round: bool  # GP §7(6): no other stake until the round is settled


KINDS: dict[str, KindRules] = {
    TECHNICAL: KindRules(
        TECHNICAL,
        "technické hry",
        "technical games",
        offered=True,
        stake_grid=True,
        play_break=True,
        hourly_loss=True,
        one_open_round=True,
    ),
    # Known for the model (self-limits can be kept), not offered yet: its own plan would set its rules.
    "odds": KindRules(
        "odds",
        "kursové sázky",
        "odds betting",
        offered=False,
        stake_grid=False,
        play_break=False,
        hourly_loss=False,
        one_open_round=False,
    ),
}


def kind_rules(kind: str) -> KindRules:
    """The rules of ``kind``; ``limits.unknown_kind`` for a kind the platform does not know."""
    rules = KINDS.get(kind)
    if rules is None:
        raise UNKNOWN_KIND(kind=kind, known=sorted(KINDS))
    return rules


def offered_kinds() -> list[str]:
    """The kinds the operator offers now (a login is refused only when every one of them is blocked)."""
    return [k for k, r in KINDS.items() if r.offered]
