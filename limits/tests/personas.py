"""Test personas of the limits app built on tests.kit.accounts."""

from __future__ import annotations

import itertools
from datetime import timedelta

from core.audit import Actor

# A distinct person number per call (deterministic): tests.kit.accounts builds the person's identity from it.
_person_numbers = itertools.count(500_000)  # far above the numbers tests.kit.accounts hands out
_person_of: dict[int, int] = {}  # player id -> person number


def closed_with_limits(*, closed_at, **limits):
    """A closed account (closed at ``closed_at``) whose self-limits were ``limits`` (others declined)."""
    from limits.models import LimitType
    from limits.services import self_limits_decide
    from tests.kit.accounts import make_player

    n = next(_person_numbers)
    player = make_player(status="closed", personal_data={"n": n}, closed_at=closed_at)
    _person_of[player.pk] = n
    decisions = {lt: limits.get(lt) for lt in LimitType.values}
    self_limits_decide(
        player=player,
        kind="technical",
        decisions=decisions,
        actor=Actor.player(player),
        now=closed_at - timedelta(days=100),
    )
    return player


def same_person_new_account(old, status="temporary"):
    from tests.kit.accounts import make_player

    return make_player(status=status, personal_data={"n": _person_of[old.pk]})
