"""Calls from ``games`` up into the apps above it (``providers``), declared and checked (``core.hooks``).

``games`` sits below ``providers`` in the layering, so it may not import it. Where a round of a remote game (an
outside studio's) needs the provider told something, ``games`` calls a hook declared here and ``providers``
registers the implementation in its ``AppConfig.ready()``; the system check ``games.E001`` stops the platform from
starting while one is missing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core.hooks import HookMissing, Hooks

if TYPE_CHECKING:
    from core.money import Money

__all__ = ["HOOKS", "HookMissing"]

HOOKS = Hooks("games", check_id="games.E001")


@HOOKS.declare
def remote_round_cancelled(
    *, provider: str, provider_round_id: str, round_id: int, reason: str, refunded: Money, credited: Money
) -> None:
    """providers: tell the remote game's provider that the platform ended its round (GP §7(8)b deadline, or staff):
    the stake returned, or the round settled with the wins the provider had sent; called after commit"""
