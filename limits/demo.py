"""Demo data of the limits app: self-limits decided for the demo players that have none yet (idempotent)."""

from __future__ import annotations

from typing import TextIO

from accounts.models import Player
from core.audit import Actor
from limits.kinds import TECHNICAL
from limits.models import LimitType
from limits.selectors import undecided_limits
from limits.services import self_limits_decide

DEMO_DECISIONS = {
    LimitType.DAILY_STAKE: 500_000,  # 5 000 Kč
    LimitType.MONTHLY_STAKE: 5_000_000,  # 50 000 Kč
    LimitType.DAILY_LOSS: 200_000,  # 2 000 Kč
    LimitType.MONTHLY_LOSS: None,  # declined
    LimitType.MONTHLY_LOGINS: None,
    LimitType.DAILY_TIME: 240,  # 4 hours
    LimitType.PAUSE_AFTER_LOGOUT: None,
}


def seed(stdout: TextIO) -> None:
    done = 0
    for player in Player.objects.filter(status__in=("temporary", "active"), user__username__startswith="demo"):
        missing = undecided_limits(player, TECHNICAL)
        if not missing:
            continue
        self_limits_decide(
            player=player,
            kind=TECHNICAL,
            actor=Actor.system("seed_demo"),
            decisions={lt: DEMO_DECISIONS[LimitType(lt)] for lt in missing},
        )
        done += 1
    stdout.write(f"limits: self-limits decided for {done} demo player(s)\n")
