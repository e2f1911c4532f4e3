"""Test personas of the limits app built on accounts.testing."""
from __future__ import annotations

import random
from datetime import timedelta

from core.audit import Actor


def closed_with_limits(*, closed_at, **limits):
    """A closed account (closed at ``closed_at``) whose self-limits were ``limits`` (others declined)."""
    from accounts.testing import make_player
    from limits.models import LimitType
    from limits.services import self_limits_decide

    n = random.randint(100_000, 900_000)
    player = make_player(status="closed", personal_data={"n": n}, closed_at=closed_at)
    player._person_n = n
    decisions = {lt: limits.get(lt) for lt in LimitType.values}
    self_limits_decide(player=player, kind="technical", decisions=decisions, actor=Actor.player(player),
                       now=closed_at - timedelta(days=100))
    return player


def same_person_new_account(old, status="temporary"):
    from accounts.testing import make_player

    return make_player(status=status, personal_data={"n": old._person_n})
