"""Player token authentication: ``Authorization: Token <key>``; revoked tokens fail at once.

A token issued by login belongs to a LoginSession: an idle session times out here (and in the
sweeper), so does one older than ACCOUNTS_SESSION_MAX_HOURS. One SELECT reads the token with its user, session
and player; ``last_seen_at`` / ``last_used_at`` are written at most once per ``ACTIVITY_RESOLUTION`` (a minute),
so a busy player costs no write per request and the idle timeout is measured to the minute (it may end a
session up to a minute before ACCOUNTS_SESSION_IDLE_MINUTES of real idleness, never later).
A user who must change the first password (GP §4(7)) gets ``auth.password_change_required`` from every
endpoint except the views that set ``allow_password_change_pending = True`` (change password, logout).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework import HTTP_HEADER_ENCODING, authentication, exceptions
from rest_framework.request import Request

from accounts import sql
from accounts.errors import PASSWORD_CHANGE_REQUIRED, SESSION_EXPIRED
from accounts.models import AuthToken, Player, User
from accounts.services.sessions import ACTIVITY_RESOLUTION, session_activity
from core import clock
from core.errors import DomainError, ErrorDef
from core.throttling import FailedTokenThrottle

TOKEN_INVALID = ErrorDef(
    "auth.token_invalid", 401, "Neplatné nebo zneplatněné přihlášení.", "Invalid or revoked token."
)


class _AuthenticationFailed(exceptions.AuthenticationFailed):
    """DRF's 401 carrying the domain error the exception handler answers with."""

    def __init__(self, error: DomainError) -> None:
        super().__init__(error.message_en)
        self.domain_error = error


class _PermissionDenied(exceptions.PermissionDenied):
    """DRF's 403 carrying the domain error the exception handler answers with."""

    def __init__(self, error: DomainError) -> None:
        super().__init__(error.message_en)
        self.domain_error = error


def _fail(err: ErrorDef, **details: Any) -> _AuthenticationFailed:
    return _AuthenticationFailed(err(**details))


def _forbid(err: ErrorDef, **details: Any) -> _PermissionDenied:
    return _PermissionDenied(err(**details))


def token_with_owner(key_hash: str) -> AuthToken | None:
    """The token by its hash with its user, login session and the user's player, in ONE statement
    (``accounts/sql.py``, the hot path of every API call)."""
    got = sql.token_with_owner(key_hash)
    if got is None:
        return None
    token, user, session, player = got
    token._state.fields_cache["user"] = user
    token._state.fields_cache["session"] = session
    user._state.fields_cache["player"] = player  # the reverse one-to-one: None reads as "no player"
    if player is not None:
        player._state.fields_cache["user"] = user
    return token


def _player_of(user: User) -> Player | None:
    """The user's player, already loaded by the token query (no statement)."""
    try:
        return user.player
    except Player.DoesNotExist:
        return None


def authorization_header(request: HttpRequest) -> bytes:
    """DRF's ``get_authorization_header(request)`` (the ``Authorization`` header as bytes, ``b""`` without one) read
    from ``META`` where a WSGI server puts it, ``HTTP_AUTHORIZATION``. DRF reads ``request.headers``, which Django
    builds on first use from every ``META`` key (~20 a request, a Python function per key) for this one header on
    every API call. Without that key DRF's own function answers (the header may still be under a key no WSGI server
    writes, such as ``HTTP_authorization``); ``accounts/tests/test_authorization_header.py`` compares the two."""
    value = request.META.get("HTTP_AUTHORIZATION")
    if value is None:
        return authentication.get_authorization_header(request)  # type: ignore[arg-type]  # DRF reads .headers only
    return value.encode(HTTP_HEADER_ENCODING) if isinstance(value, str) else value


class PlayerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request: Request) -> tuple[User, AuthToken] | None:
        """The token's user; a refused token counts against the client address's anonymous rate
        (authentication comes before DRF's throttles), and over it the answer is 429 instead of 401."""
        try:
            return self._authenticate(request)
        except _AuthenticationFailed:
            throttle = FailedTokenThrottle()
            view: Any = (getattr(request, "parser_context", None) or {}).get("view")
            if not throttle.allow_request(request, view):
                raise exceptions.Throttled(wait=throttle.wait()) from None
            raise

    def _authenticate(self, request: Request) -> tuple[User, AuthToken] | None:
        # DRF's reading of the header, given the Django request it wraps: DRF's Request reaches ``META`` through
        # its ``__getattr__`` after a failed lookup (an AttributeError raised and caught on every API call)
        header = authorization_header(request._request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise _fail(TOKEN_INVALID)
        try:
            key = header[1].decode()
        except UnicodeError:
            raise _fail(TOKEN_INVALID) from None
        token = token_with_owner(AuthToken.hash_key(key))
        if token is None or token.revoked_at is not None or not token.user.is_active:
            raise _fail(TOKEN_INVALID)
        now = clock.now()
        session = token.session
        if session is not None:
            activity = session_activity(session=session, now=now)
            if activity == "ended":
                raise _fail(TOKEN_INVALID)
            if activity == "expired":
                raise _fail(SESSION_EXPIRED)
        player = _player_of(token.user)
        if player is not None and player.status in Player.TERMINAL:
            raise _fail(TOKEN_INVALID)
        if token.last_used_at is None or now - token.last_used_at >= ACTIVITY_RESOLUTION:
            AuthToken.objects.filter(pk=token.pk).update(last_used_at=now)
        if token.user.must_change_password:
            view = (getattr(request, "parser_context", None) or {}).get("view")
            if not getattr(view, "allow_password_change_pending", False):
                raise _forbid(PASSWORD_CHANGE_REQUIRED)
        return token.user, token

    def authenticate_header(self, request: Request) -> str:
        return self.keyword
