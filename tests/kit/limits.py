"""The kit's helpers of the limits tests (moved from ``limits/tests/conftest.py``, which keeps the fixtures)."""

from __future__ import annotations

import contextlib
from datetime import timedelta

import pytest
from django.db import transaction

from tests.kit.money import czk

SLOT = "test_slot"


# Refused stakes are written through the ``refusal_log`` alias, a connection of its own (limits/services/
# refusals.py). In tests it mirrors ``default``; a test that reads the refusal log allows the alias and reads
# through it (``refusal_rows()``): the test case wraps that connection in its own transaction, rolled back at
# the end like the default one, while the caller's transaction on ``default`` rolls back by itself. (Reading
# the rows on ``default`` needs real transactions: ``transaction=True``.) Elsewhere the alias is not allowed:
# writing the row fails, is logged, and the refusal is raised as usual.
REFUSAL_LOG_DATABASES = ["default", "refusal_log"]


refusal_log_db = pytest.mark.django_db(databases=REFUSAL_LOG_DATABASES)


def refusal_rows():
    """The refusal log as the refusal_log connection sees it."""
    from limits.models import StakeRefusal

    return StakeRefusal.objects.using("refusal_log")


@contextlib.contextmanager
def caller_lock(player):
    """What a caller (games) does: one transaction holding the player's wallet lock."""
    from wallet.services import wallet_lock

    with transaction.atomic():
        wallet_lock(player=player)
        yield


def stake(player, amount, at, *, kind="technical", game_max="1000", game=SLOT, round_ref=""):
    from limits.services import stake_gate_and_place

    with caller_lock(player):
        return stake_gate_and_place(
            player=player,
            kind=kind,
            stake=czk(amount),
            game_code=game,
            game_max_bet=czk(game_max) if game_max is not None else None,
            now=at,
            round_ref=round_ref,
        )


def settle(player, amount, win, started, settled, *, kind="technical", round_ref=""):
    from limits.services import stake_settled

    with caller_lock(player):
        return stake_settled(
            player=player,
            kind=kind,
            stake=czk(amount),
            win=czk(win),
            started_at=started,
            settled_at=settled,
            round_ref=round_ref,
        )


def play_round(player, amount, win, at, *, seconds=2, kind="technical"):
    """One instant round: stake at ``at``, settled ``seconds`` later."""
    stake(player, amount, at, kind=kind)
    return settle(player, amount, win, at, at + timedelta(seconds=seconds), kind=kind)


def set_limits(player, now, kind="technical", **values):
    from core.audit import Actor
    from limits.services import self_limit_set

    for lt, v in values.items():
        self_limit_set(player=player, kind=kind, limit_type=lt, value=v, actor=Actor.player(player), now=now)
