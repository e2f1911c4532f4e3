"""The one lock every accounts service takes on a player (the row the account's state lives on).

Lock order: the Player row first, then whatever the wallet and limits lock (they never lock Player rows).
"""

from __future__ import annotations

from accounts.models import Player


def player_lock(player: Player) -> Player:
    """Lock the player's row for the caller's transaction and return it fresh (with its user).

    ``FOR NO KEY UPDATE``: the services never change a Player's primary key nor delete the row, so the lock
    still serialises every writer of the account while inserts of rows pointing at the player (login
    sessions, tokens, consents, audit) do not wait behind it."""
    return Player.objects.select_related("user").select_for_update(no_key=True, of=("self",)).get(pk=player.pk)
