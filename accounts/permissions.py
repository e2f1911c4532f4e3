"""The player API's one permission: the caller is an authenticated user with a player account.

Every player endpoint uses ``permission_classes = [IsPlayer]`` and reads the player with
``request_player(request)``; a staff user or any other account gets ``auth.not_a_player`` (403).
"""

from __future__ import annotations

from typing import Any

from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from accounts.models import Player, User
from accounts.selectors import player_for_user
from core.errors import NOT_A_PLAYER, NOT_AUTHENTICATED


class IsPlayer(BasePermission):
    """Authenticated, and the user is a player (``auth.not_authenticated`` 401 / ``auth.not_a_player`` 403)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if user is None or not user.is_authenticated:
            raise NOT_AUTHENTICATED()
        if player_for_user(user) is None:
            raise NOT_A_PLAYER()
        return True


def request_player(request: Request) -> Player:
    """The player behind the request (use on views guarded by :class:`IsPlayer`)."""
    player = player_for_user(request.user)
    if player is None:
        raise NOT_A_PLAYER()
    return player


def request_user(request: Request) -> User:
    """The signed-in user behind the request, player or staff (``auth.not_authenticated`` when anonymous)."""
    user = request.user
    if not isinstance(user, User) or not user.is_authenticated:
        raise NOT_AUTHENTICATED()
    return user
