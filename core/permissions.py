"""The staff API's permissions.

``IsStaff`` proves a staff member (with the second factor where required). A staff endpoint that reads or decides
something also names the one Django permission it needs: ``permission_classes = [staff_permission("aml.decide_case")]``
(which includes ``IsStaff``). The roles that hold these permissions are declared in ``core/roles.py``. A permission
named here that no model declares stops the platform from starting (system check ``core.E010``), so a typo cannot
turn into a check that nobody passes or, for a superuser, into one that everybody passes unnoticed.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from core.audit import mark_permission_in_use
from core.errors import FORBIDDEN, NOT_AUTHENTICATED, STAFF_2FA_REQUIRED, STAFF_PERMISSION_REQUIRED

#: every permission a staff endpoint asks for (``staff_permission``), checked against the models at start
REQUIRED_PERMISSIONS: set[str] = set()


class IsStaff(BasePermission):
    """An authenticated staff user; where staff sign in with a second factor (``ADMIN_REQUIRE_2FA``, on in
    production), a session verified with a one-time password, as the admin requires. A token cannot prove a
    second factor, so a staff call with a token is refused then (``auth.staff_2fa_required``)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        user = request.user
        if user is None or not user.is_authenticated:
            raise NOT_AUTHENTICATED()
        if not user.is_staff or not user.is_active:
            raise FORBIDDEN()
        if settings.ADMIN_REQUIRE_2FA:
            verified = getattr(user, "is_verified", None)  # set by django_otp's middleware on a session
            if not (callable(verified) and verified()):
                raise STAFF_2FA_REQUIRED()
        return True


class _StaffPermission(IsStaff):
    perm = ""
    read_perm = ""  # the permission a GET needs, when reading needs less than the endpoint's decision

    @classmethod
    def needed(cls, method: str) -> str:
        return cls.read_perm if cls.read_perm and method.upper() in ("GET", "HEAD", "OPTIONS") else cls.perm

    def has_permission(self, request: Request, view: Any) -> bool:
        super().has_permission(request, view)
        perm = self.needed(request.method or "GET")
        if not request.user.has_perm(perm):
            raise STAFF_PERMISSION_REQUIRED(permission=perm)
        mark_permission_in_use(request.user, perm)
        return True


def staff_permission(perm: str, *, read: str = "") -> type[BasePermission]:
    """The permission class of a staff endpoint that needs ``perm`` ("app_label.codename") besides ``IsStaff``;
    with ``read``, a GET needs that one instead (a list the auditor reads, an upload or export only its role
    decides)."""
    for p in (perm, read):
        if p and "." not in p:
            raise ValueError(f"a permission is 'app_label.codename', not {p!r}")
    REQUIRED_PERMISSIONS.update(p for p in (perm, read) if p)
    name = f"StaffPermission_{perm.replace('.', '_')}" + (f"_read_{read.replace('.', '_')}" if read else "")
    return type(name, (_StaffPermission,), {"perm": perm, "read_perm": read})
