"""Player token authentication: ``Authorization: Token <key>``; revoked tokens fail at once."""
from __future__ import annotations

from rest_framework import authentication, exceptions

from core import clock
from core.errors import ErrorDef

TOKEN_INVALID = ErrorDef("auth.token_invalid", 401, "Neplatné nebo zneplatněné přihlášení.", "Invalid or revoked token.")


def _fail(err):
    exc = exceptions.AuthenticationFailed(err.message_en)
    exc.domain_error = err()
    return exc


class PlayerTokenAuthentication(authentication.BaseAuthentication):
    keyword = "Token"

    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower() != self.keyword.lower().encode():
            return None
        if len(header) != 2:
            raise _fail(TOKEN_INVALID)
        from accounts.models import AuthToken

        try:
            key = header[1].decode()
        except UnicodeError:
            raise _fail(TOKEN_INVALID) from None
        token = AuthToken.objects.select_related("user").filter(key_hash=AuthToken.hash_key(key)).first()
        if token is None or token.revoked_at is not None or not token.user.is_active:
            raise _fail(TOKEN_INVALID)
        AuthToken.objects.filter(pk=token.pk).update(last_used_at=clock.now())
        return token.user, token

    def authenticate_header(self, request):
        return self.keyword
