"""Test personas shared by every app's tests (importable without pytest).

``make_player(status="active")``, ``applicant_data()``, ``birth_number_for()`` come from ``accounts.demo_people``
(the demo's synthetic people). ``make_staff()`` a staff user (optionally in a role), ``token_for(user)`` an API token.

For registration tests: ``registration_payload()`` (the API body), ``make_register_record(data)`` (the sandbox
population register knows the person), ``make_excluded(data_or_player)`` (listed in the sandbox exclusion register),
``login_session_for(player)`` (a tracked login session and its token).
"""

from __future__ import annotations

import secrets
from datetime import date, datetime
from typing import Any

from accounts import rules
from accounts.demo_people import (  # noqa: F401  (the kit's personas)
    DEFAULT_PASSWORD,
    _seq,
    applicant_data,
    birth_number_for,
    make_personal_data,
    make_player,
    make_user,
)
from accounts.models import AuthToken, LoginSession, Player, SandboxExclusionEntry, SandboxPopulationRecord, User
from core import clock


def registration_payload(*, username: str | None = None, marketing: bool = False, **overrides: Any) -> dict[str, Any]:
    v = rules.document_versions()
    data = applicant_data(**overrides)
    return {
        **data,
        "username": username or f"player{next(_seq)}",
        "consents": {
            "terms": v["terms"],
            "data_processing": v["data_processing"],
            "game_plan": v["game_plan"],
            "marketing": marketing,
        },
    }


def make_register_record(data: dict[str, Any], **overrides: Any) -> SandboxPopulationRecord:
    """The sandbox population register knows this person (overrides simulate a mismatch etc.)."""
    fields = {
        "birth_number": (data.get("birth_number") or "").replace("/", ""),
        "given_names": data["given_names"],
        "surname": data["surname"],
        "date_of_birth": date.fromisoformat(str(data["date_of_birth"])),
        "sex": data.get("sex", ""),
        "citizenship": data.get("citizenship", "CZ"),
    }
    fields.update(overrides)
    return SandboxPopulationRecord.objects.create(**fields)


def make_excluded(
    subject: dict[str, Any] | Player, *, outcome: str = "listed", until: datetime | None = None
) -> SandboxExclusionEntry:
    """List a person (registration data dict or a Player) in the sandbox exclusion register."""
    if isinstance(subject, dict):
        bn, gn, sn = (subject.get("birth_number") or "").replace("/", ""), subject["given_names"], subject["surname"]
        dob = date.fromisoformat(str(subject["date_of_birth"]))
    else:
        pd = subject.personal
        bn, gn, sn, dob = pd.birth_number, pd.given_names, pd.surname, pd.date_of_birth
    return SandboxExclusionEntry.objects.create(
        birth_number=bn,
        given_names=gn,
        surname=sn,
        date_of_birth=dob,
        outcome=outcome,
        listed_until=until,
        created_at=clock.now(),
    )


def make_staff(*, username: str | None = None, superuser: bool = False, role: str | None = None) -> User:
    """A staff user: with no role (no permission at all), a superuser, or in one of the roles of ``core.roles``
    (support, compliance, finance, game_manager, auditor)."""
    from django.contrib.auth.models import Group

    from core.roles import ROLES, roles_sync

    user = make_user(username=username, is_staff=True)
    if superuser:
        user.is_superuser = True
        user.save(update_fields=["is_superuser"])
    if role is not None:
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        if not Group.objects.filter(name=role).exists():  # a test database flushed without post_migrate
            roles_sync()
        user.groups.add(Group.objects.get(name=role))
    return user


def token_for(user: User) -> str:
    """Issue an API token for ``user`` (tests): returns the raw key for ``Authorization: Token <key>``.
    The token belongs to no login session (never times out); see ``login_session_for``."""
    key = secrets.token_urlsafe(32)
    AuthToken.objects.create(user=user, key_hash=AuthToken.hash_key(key), created_at=clock.now())
    return key


def login_session_for(player: Player, *, at: datetime | None = None) -> tuple[LoginSession, str]:
    """A tracked LoginSession started ``at`` (default now) with its token, without the login checks.
    Returns (session, raw key)."""
    at = at or clock.now()
    session = LoginSession.objects.create(player=player, started_at=at, last_seen_at=at)
    key = secrets.token_urlsafe(32)
    AuthToken.objects.create(user=player.user, key_hash=AuthToken.hash_key(key), created_at=at, session=session)
    return session, key
