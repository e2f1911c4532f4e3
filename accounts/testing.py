"""Test personas shared by every app's tests (importable without pytest).

``make_player(status="active")`` returns a Player with a User. The accounts issue
extends this module (personal data, verified identity ...) but keeps these
signatures so other apps' tests keep working.
"""
from __future__ import annotations

import itertools

from core import clock

_seq = itertools.count(1)


def make_user(*, username: str | None = None, password: str = "Secret-pass-123", is_staff: bool = False, **extra):
    from accounts.models import User

    n = next(_seq)
    username = username or f"user{n}_{clock.now().timestamp():.0f}"
    user = User.objects.create_user(username=username, password=password, email=f"{username}@example.cz",
                                    is_staff=is_staff, **extra)
    return user


def make_player(*, status: str = "active", username: str | None = None, **extra):
    from accounts.models import Player

    user = make_user(username=username)
    return Player.objects.create(user=user, status=status, created_at=clock.now(), **extra)


def make_staff(*, username: str | None = None, superuser: bool = False):
    user = make_user(username=username, is_staff=True)
    if superuser:
        user.is_superuser = True
        user.save(update_fields=["is_superuser"])
    return user


def token_for(user) -> str:
    """Issue an API token for ``user`` (tests): returns the raw key for ``Authorization: Token <key>``."""
    import secrets

    from accounts.models import AuthToken

    key = secrets.token_urlsafe(32)
    AuthToken.objects.create(user=user, key_hash=AuthToken.hash_key(key), created_at=clock.now())
    return key
