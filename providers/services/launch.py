"""The player's launch of a provider's game: a one-time launch token and the provider's launch URL; the provider
then opens the game session with the token (``providers.services.calls``).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import urlencode

from django.conf import settings
from django.db import transaction

from accounts.models import LoginSession, Player
from accounts.selectors import betting_refusal
from core import clock
from core.audit import Actor, audit_record
from games import errors as games_errors
from games.models import Game
from providers import errors
from providers.models import LaunchToken, Provider
from providers.services.calls import _hash
from providers.services.staff import PROVIDER_CODE_RE


# --- the player's launch -----------------------------------------------------------------------------------------
@dataclass
class Launch:
    launch_url: str
    launch_token: str
    expires_at: datetime
    game: Game


def launch_start(
    *, player: Player, provider_code: str, game_code: str, lang: str, actor: Actor, login_session: LoginSession | None
) -> Launch:
    """A single-use launch token for the player in one of the provider's games (the full stake gate runs on each
    bet; here: the provider, the game (its provider, switch and approval, GP §13(6)) and the account state).

    The game session it opens belongs to ``login_session``, the player's login that launched it (a launch without
    one is refused): the studio's calls are activity on that login and end with it (GP §6(6)e-g)."""
    if login_session is None or login_session.player_id != player.pk or login_session.ended_at is not None:
        raise errors.LOGIN_REQUIRED()

    provider = Provider.objects.filter(code=provider_code).first() if PROVIDER_CODE_RE.match(provider_code) else None
    if provider is None:
        raise errors.PROVIDER_UNKNOWN()
    if not provider.enabled:
        raise errors.PROVIDER_DISABLED(provider=provider.code)
    game = (
        Game.objects.filter(code=game_code, provider=provider.code, current=True).first()
        if isinstance(game_code, str) and len(game_code) <= 60
        else None
    )
    if game is None:
        raise errors.GAME_INVALID(game=str(game_code)[:60])
    if not game.enabled:
        raise games_errors.GAME_DISABLED(game=game.code)
    if not game.approved:
        raise games_errors.GAME_NOT_APPROVED(game=game.code, version=game.version, approval_state=game.approval_state)
    refusal = betting_refusal(player)
    if refusal is not None:
        raise refusal
    token = secrets.token_urlsafe(32)
    now = clock.now()
    expires = now + timedelta(seconds=settings.PROVIDERS_LAUNCH_TOKEN_SECONDS)
    with transaction.atomic():
        row = LaunchToken.objects.create(
            token_hash=_hash(token),
            player=player,
            game=game,
            provider=provider,
            login_session=login_session,
            created_at=now,
            expires_at=expires,
        )
        audit_record(actor=actor, action="providers.game_launched", obj=row, provider=provider.code, game=game.code)
    query = urlencode({"token": token, "game": game.provider_game_id, "lang": lang})
    sep = "&" if "?" in provider.launch_url else "?"
    return Launch(launch_url=f"{provider.launch_url}{sep}{query}", launch_token=token, expires_at=expires, game=game)
