"""Test personas shared by every app's tests (importable without pytest).

``make_player(status="active")`` returns a Player with a User and (by default) valid personal
data, consents and the state fields of that status (a temporary player has a 30-day deadline,
an active one a completed registration). ``make_staff()``, ``token_for(user)`` as before.

For registration tests: ``applicant_data()`` (valid GP §4(4)a data, unique per call),
``registration_payload()`` (the API body), ``make_register_record(data)`` (the sandbox population
register knows the person), ``make_excluded(data_or_player)`` (listed in the sandbox exclusion
register), ``login_session_for(player)`` (a tracked login session and its token).
"""
from __future__ import annotations

import itertools
import secrets
from datetime import date, datetime, timedelta
from typing import Any

from accounts import rules
from accounts.models import (
    AuthToken,
    Consent,
    LoginSession,
    PersonalData,
    Player,
    SandboxExclusionEntry,
    SandboxPopulationRecord,
    User,
)
from accounts.validation import derived_keys, validate_personal_data
from core import clock

_seq = itertools.count(1)
DEFAULT_PASSWORD = "Secret-pass-123"


def make_user(*, username: str | None = None, password: str = DEFAULT_PASSWORD, is_staff: bool = False,
              **extra: Any) -> User:
    n = next(_seq)
    username = username or f"user{n}_{clock.now().timestamp():.0f}"
    user = User.objects.create_user(username=username, password=password, email=f"{username}@example.cz",
                                    is_staff=is_staff, **extra)
    return user


def birth_number_for(dob: date, *, sex: str = "M", serial: int = 1) -> str:
    """A valid 10-digit Czech birth number for ``dob`` (women: month + 50)."""
    month = dob.month + (50 if sex == "F" else 0)
    first9 = f"{dob.year % 100:02d}{month:02d}{dob.day:02d}{serial % 1000:03d}"
    return first9 + str(int(first9) % 11 % 10)


def applicant_data(*, n: int | None = None, foreigner: bool = False, **overrides: Any) -> dict[str, Any]:
    """Valid personal data (GP §4(4)a) of an adult Czech resident; unique identifiers per call."""
    n = next(_seq) if n is None else n
    dob = date(1970, 1, 1) + timedelta(days=(n * 37) % 12000)
    sex = "F" if n % 2 else "M"
    today = clock.business_date()
    data = {
        "given_names": "Jana" if sex == "F" else "Jan",
        "surname": f"Nováková{_letters(n)}" if sex == "F" else f"Novák{_letters(n)}",
        "birth_surname": "",
        "birth_number": "" if foreigner else birth_number_for(dob, sex=sex, serial=n),
        "date_of_birth": dob.isoformat(),
        "place_of_birth": "Praha",
        "sex": sex,
        "citizenship": "SK" if foreigner else "CZ",
        "residence_street": f"Vodičkova {n % 900 + 1}",
        "residence_city": "Praha",
        "residence_postal_code": "110 00",
        "residence_country": "CZ",
        "correspondence_address": "",
        "phone": f"+420731{n % 1_000_000:06d}",
        "email": f"applicant{n}@example.cz",
        "data_box_id": "",
        "document_type": "residence_permit" if foreigner else "id_card",
        "document_number": f"{100000000 + n}",
        "document_issuing_state": "CZ",
        "document_issuing_authority": "MěÚ Praha 1",
        "document_valid_until": (today + timedelta(days=3650)).isoformat(),
    }
    data.update(overrides)
    return data


def _letters(n: int) -> str:
    """A name suffix from a number (names may not contain digits): 1 -> 'b', 27 -> 'bb'."""
    out = ""
    n += 1
    while n:
        n, r = divmod(n, 26)
        out += "abcdefghijklmnopqrstuvwxyz"[r]
    return out


def registration_payload(*, username: str | None = None, marketing: bool = False,
                         **overrides: Any) -> dict[str, Any]:
    v = rules.document_versions()
    data = applicant_data(**overrides)
    return {**data, "username": username or f"player{next(_seq)}",
            "consents": {"terms": v["terms"], "data_processing": v["data_processing"], "game_plan": v["game_plan"],
                         "marketing": marketing}}


def make_register_record(data: dict[str, Any], **overrides: Any) -> SandboxPopulationRecord:
    """The sandbox population register knows this person (overrides simulate a mismatch etc.)."""
    fields = {
        "birth_number": (data.get("birth_number") or "").replace("/", ""),
        "given_names": data["given_names"], "surname": data["surname"],
        "date_of_birth": date.fromisoformat(str(data["date_of_birth"])), "sex": data.get("sex", ""),
        "citizenship": data.get("citizenship", "CZ"),
    }
    fields.update(overrides)
    return SandboxPopulationRecord.objects.create(**fields)


def make_excluded(subject: dict[str, Any] | Player, *, outcome: str = "listed",
                  until: datetime | None = None) -> SandboxExclusionEntry:
    """List a person (registration data dict or a Player) in the sandbox exclusion register."""
    if isinstance(subject, dict):
        bn, gn, sn = (subject.get("birth_number") or "").replace("/", ""), subject["given_names"], subject["surname"]
        dob = date.fromisoformat(str(subject["date_of_birth"]))
    else:
        pd = subject.personal
        bn, gn, sn, dob = pd.birth_number, pd.given_names, pd.surname, pd.date_of_birth
    return SandboxExclusionEntry.objects.create(birth_number=bn, given_names=gn, surname=sn, date_of_birth=dob,
                                                outcome=outcome, listed_until=until, created_at=clock.now())


def make_personal_data(player: Player, **overrides: Any) -> PersonalData:
    clean = validate_personal_data(applicant_data(**overrides), today=clock.business_date())
    return PersonalData.objects.create(player=player, **clean, **derived_keys(clean), updated_at=clock.now())


def make_player(*, status: str = "active", username: str | None = None, personal: bool = True,
                personal_data: dict[str, Any] | None = None, **extra: Any) -> Player:
    """A player in ``status`` with personal data (``personal=False`` for a bare one)."""
    user = make_user(username=username)
    now = clock.now()
    fields: dict[str, Any] = {}
    if status not in (Player.Status.APPLICANT, Player.Status.REJECTED):
        fields.update(identity_verified_at=now, aml_identified_at=now, temporary_activated_at=now,
                      temporary_expires_at=now + rules.temporary_lifetime(), email_confirmed_at=now,
                      first_password_sent_at=now)
    if status in (Player.Status.ACTIVE, Player.Status.SUSPENDED, Player.Status.CLOSING, Player.Status.CLOSED):
        fields.update(completed_at=now)
    if status == Player.Status.SUSPENDED:
        fields.update(suspended_from=Player.Status.ACTIVE)
    fields.update(extra)
    player = Player.objects.create(user=user, status=status, created_at=fields.pop("created_at", now), **fields)
    if personal:
        make_personal_data(player, **(personal_data or {}))
        if status not in (Player.Status.APPLICANT, Player.Status.REJECTED):
            for kind, version in rules.document_versions().items():
                if kind != "marketing":
                    Consent.objects.create(player=player, kind=kind, version=version, given_at=now)
    return player


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
