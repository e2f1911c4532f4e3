"""Calls from ``wallet`` up into the apps above it (``games``), declared and checked (``core.hooks``).

``wallet`` sits below ``games`` in the layering, so it may not import it. Where the wallet shows the player money
that a game holds for them (carried bonuses, GP §10(1)-(2)), it calls a hook declared here and ``games`` registers
the implementation in its ``AppConfig.ready()``; the system check ``wallet.E002`` stops the platform from starting
while one is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.hooks import HookMissing, Hooks

if TYPE_CHECKING:
    from accounts.models import Player
    from core.money import Money

__all__ = ["HOOKS", "HookMissing"]

HOOKS = Hooks("wallet", check_id="wallet.E002")


@HOOKS.declare
def held_in_games(player: Player) -> Money:
    """games: the money the player's carried game states hold (carried bonuses): the player's, held by the games"""
    raise NotImplementedError
