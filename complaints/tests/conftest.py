"""Fixtures of the complaints tests: personas and captured e-mails."""

from __future__ import annotations

import pytest

from tests.kit.accounts import make_player, make_staff


@pytest.fixture(autouse=True)
def _media(tmp_path, settings):
    settings.MEDIA_ROOT = str(tmp_path / "media")


@pytest.fixture
def player(db):
    return make_player(status="active")


@pytest.fixture
def other_player(db):
    return make_player(status="active")


@pytest.fixture
def agent(db):
    """A support agent who investigates and resolves complaints."""
    from django.contrib.auth.models import Permission

    user = make_staff()
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="complaints", codename__in=["view_complaint", "resolve_complaint"]
        )
    )
    return user


@pytest.fixture
def supervisor(db):
    """A compliance officer: receives the deadline reminders and overdue alerts."""
    from django.contrib.auth.models import Permission

    user = make_staff()
    user.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="complaints", codename__in=["view_complaint", "supervise_complaint"]
        )
    )
    return user
