"""The staff API's one permission (issue 13): every staff endpoint uses ``permission_classes = [IsStaff]``."""
from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from core.errors import FORBIDDEN, NOT_AUTHENTICATED, STAFF_2FA_REQUIRED


class IsStaff(BasePermission):
    """An authenticated staff user; where staff sign in with a second factor (``ADMIN_REQUIRE_2FA``, on in
    production), a session verified with a one-time password, as the admin requires. A token cannot prove a
    second factor, so a staff call with a token is refused then (``auth.staff_2fa_required``)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if user is None or not user.is_authenticated:
            raise NOT_AUTHENTICATED()
        if not user.is_staff:
            raise FORBIDDEN()
        if settings.ADMIN_REQUIRE_2FA:
            verified = getattr(user, "is_verified", None)  # set by django_otp's middleware on a session
            if not (callable(verified) and verified()):
                raise STAFF_2FA_REQUIRED()
        return True
