"""Helpers for the limits tests: Prague clock times, the caller's lock, one-call stakes and rounds."""
from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import transaction

from core.money import Money

PRAGUE = ZoneInfo("Europe/Prague")
SLOT = "test_slot"


def prague(y, mo, d, h=0, mi=0, s=0) -> datetime:
    """An instant given in Prague wall-clock time, as aware UTC."""
    return datetime(y, mo, d, h, mi, s, tzinfo=PRAGUE).astimezone(UTC)


def czk(text: str | int | Money) -> Money:
    return text if isinstance(text, Money) else Money.from_major(str(text))


_wallet_ready: list[bool] = []


def _wallet_lock_fn():
    """wallet.services.wallet_lock once the wallet offers it and its table is migrated, else None."""
    try:
        from wallet.services import wallet_lock
    except ImportError:
        return None
    if not _wallet_ready:
        from django.db import connection

        _wallet_ready.append("wallet_wallet" in connection.introspection.table_names())
    return wallet_lock if _wallet_ready[0] else None


@contextlib.contextmanager
def caller_lock(player):
    """What a caller (games) does: one transaction holding the player's wallet lock (the Player row while the
    wallet has no wallet_lock yet)."""
    from accounts.models import Player

    with transaction.atomic():
        wallet_lock = _wallet_lock_fn()
        if wallet_lock is not None:
            wallet_lock(player=player)
        else:
            Player.objects.select_for_update().get(pk=player.pk)
        yield


def stake(player, amount, at, *, kind="technical", game_max="1000", game=SLOT, round_ref=""):
    from limits.services import stake_check

    with caller_lock(player):
        return stake_check(player=player, kind=kind, stake=czk(amount),
                           game_code=game, game_max_bet=czk(game_max) if game_max is not None else None, now=at,
                           round_ref=round_ref)


def settle(player, amount, win, started, settled, *, kind="technical", round_ref=""):
    from limits.services import stake_settled

    with caller_lock(player):
        return stake_settled(player=player, kind=kind, stake=czk(amount), win=czk(win), started_at=started,
                             settled_at=settled, round_ref=round_ref)


def play_round(player, amount, win, at, *, seconds=2, kind="technical"):
    """One instant round: stake at ``at``, settled ``seconds`` later."""
    stake(player, amount, at, kind=kind)
    return settle(player, amount, win, at, at + timedelta(seconds=seconds), kind=kind)


def refused(fn, *args, **kwargs):
    """Call and return the DomainError it raises (fails if it does not)."""
    from core.errors import DomainError

    with pytest.raises(DomainError) as exc:
        fn(*args, **kwargs)
    return exc.value


def set_limits(player, now, kind="technical", **values):
    from core.audit import Actor
    from limits.services import self_limit_set

    for lt, v in values.items():
        self_limit_set(player=player, kind=kind, limit_type=lt, value=v, actor=Actor.player(player), now=now)


@pytest.fixture
def player(db):
    from accounts.testing import make_player

    return make_player(status="active")


@pytest.fixture
def other_player(db):
    from accounts.testing import make_player

    return make_player(status="active")
