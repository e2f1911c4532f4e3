"""The kit's clients: a player's or a user's API client, a staff member's API client and a staff member's admin
session. Every client answers a failed request with its response (``raise_request_exception=False``): a test asserts
the status, and a 500 is a failed assertion, never an exception that hides the response."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.core import signals
from django.db import close_old_connections
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import User
from tests.kit.accounts import make_staff, token_for


def client_for(who: Any = None, key: str | None = None) -> APIClient:
    """The API client of a Player or a User (its token, or ``key``); anonymous when ``who`` is None."""
    c = APIClient(raise_request_exception=False)
    if who is not None or key is not None:
        c.credentials(HTTP_AUTHORIZATION=f"Token {key or token_for(getattr(who, 'user', who))}")
    return c


def _staff(perms: tuple[str, ...], role: str | None, superuser: bool) -> User:
    from django.contrib.auth.models import Permission

    user = make_staff(superuser=superuser, role=role)
    for perm in perms:  # "app_label.codename"
        app_label, codename = perm.split(".", 1)
        user.user_permissions.add(Permission.objects.get(content_type__app_label=app_label, codename=codename))
    return user


def staff_api_client(*perms: str, role: str | None = None, superuser: bool = False) -> APIClient:
    """The API client (a token) of a new staff member with ``perms`` ("app_label.codename"), a ``role`` of
    ``core.roles`` or all rights (``superuser``); with none of them, a staff member without any permission."""
    staff = _staff(perms, role, superuser)
    c = client_for(staff)
    c.staff = staff  # type: ignore[attr-defined]
    return c


def admin_session(staff: User | None = None, *, role: str | None = None, superuser: bool = True) -> Client:
    """A browser session of the admin signed in as ``staff`` (default: a new superuser, or one in ``role``);
    the staff member is ``client.staff``."""
    staff = staff or _staff((), role, superuser and role is None)
    c = Client(raise_request_exception=False)
    c.force_login(staff)
    c.staff = staff  # type: ignore[attr-defined]
    return c


@contextmanager
def one_connection_across_requests() -> Iterator[None]:
    """Requests made in-process to a WSGI handler (``config.wsgi.application``, as gunicorn calls it) keep the test's
    database connection: the handler closes it after each request, which inside the test's transaction would break
    it (Django's test client does the same)."""
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)
