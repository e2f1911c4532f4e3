"""Synthetic people of the demo data, the benches and the tests (importable without pytest): made-up Czech adults
with valid personal data (GP §4(4)a), unique per call, written straight to the tables as demo data.

``make_player(status="active")`` returns a Player with a User and (by default) valid personal data, consents and the
state fields of that status (a temporary player has a 30-day deadline, an active one a completed registration).
``applicant_data()`` is a registration's personal data; ``make_personal_data(player)`` stores it for a player.
"""

from __future__ import annotations

import itertools
from datetime import date, timedelta
from typing import Any

from accounts import rules
from accounts.models import Consent, PersonalData, Player, User
from accounts.validation import derived_keys, validate_personal_data
from core import clock

_seq = itertools.count(1)


DEFAULT_PASSWORD = "Secret-pass-123"


def make_user(
    *, username: str | None = None, password: str = DEFAULT_PASSWORD, is_staff: bool = False, **extra: Any
) -> User:
    n = next(_seq)
    username = username or f"user{n}_{clock.now().timestamp():.0f}"
    user = User.objects.create_user(
        username=username, password=password, email=f"{username}@example.cz", is_staff=is_staff, **extra
    )
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


def make_personal_data(player: Player, **overrides: Any) -> PersonalData:
    clean = validate_personal_data(applicant_data(**overrides), today=clock.business_date())
    return PersonalData.objects.create(player=player, **clean, **derived_keys(clean), updated_at=clock.now())


def make_player(
    *,
    status: str = "active",
    username: str | None = None,
    personal: bool = True,
    personal_data: dict[str, Any] | None = None,
    **extra: Any,
) -> Player:
    """A player in ``status`` with personal data (``personal=False`` for a bare one)."""
    user = make_user(username=username)
    now = clock.now()
    fields: dict[str, Any] = {}
    if status not in (Player.Status.APPLICANT, Player.Status.REJECTED):
        fields.update(
            identity_verified_at=now,
            aml_identified_at=now,
            temporary_activated_at=now,
            temporary_expires_at=now + rules.temporary_lifetime(),
            email_confirmed_at=now,
            first_password_sent_at=now,
        )
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
