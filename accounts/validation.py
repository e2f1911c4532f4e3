"""Validation and normalisation of the GP §4(4)a personal data.

``validate_personal_data(data, today=...)`` checks every field and returns a cleaned dict
or raises ``INVALID_PERSONAL_DATA(fields={field: [problem codes]})`` listing all problems at
once. Problem codes are stable strings (``required``, ``checksum``, ``dob_mismatch`` ...).
Age (GP §3(1)) is a separate check, ``require_adult``, because it is its own refusal.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date

import phonenumbers
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from stdnum.cz import rc
from stdnum.exceptions import InvalidChecksum, InvalidComponent, InvalidLength, ValidationError

from accounts.errors import INVALID_PERSONAL_DATA, UNDERAGE

ADULT_AGE = 18  # GP §3(1)
COUNTRIES = frozenset(phonenumbers.SUPPORTED_REGIONS) - {"001"}
DOCUMENT_TYPES = ("id_card", "passport", "residence_permit")
REQUIRED = (
    "given_names", "surname", "date_of_birth", "place_of_birth", "sex", "citizenship", "residence_street",
    "residence_city", "residence_postal_code", "phone", "email", "document_type", "document_number",
    "document_issuing_state", "document_issuing_authority", "document_valid_until",
)
OPTIONAL = ("birth_surname", "birth_number", "residence_country", "correspondence_address", "data_box_id")
FIELDS = REQUIRED + OPTIONAL
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*\.?$")
_POSTAL = re.compile(r"^([1-7]\d{2}) ?(\d{2})$")
_DATA_BOX = re.compile(r"^[a-z0-9]{7}$")
_DOC_NUMBER = re.compile(r"^[A-Z0-9]{5,20}$")


def fold(text: str) -> str:
    """Case-, accent- and whitespace-insensitive form of a name (for matching)."""
    decomposed = unicodedata.normalize("NFKD", text or "")
    plain = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def name_dob_key(given_names: str, surname: str, dob: date) -> str:
    return f"{fold(given_names)}|{fold(surname)}|{dob.isoformat()}"


def email_key(email: str) -> str:
    return (email or "").strip().lower()


def document_key(issuing_state: str, number: str) -> str:
    return f"{(issuing_state or '').upper()}:{re.sub(r'[^A-Z0-9]', '', (number or '').upper())}"


def person_key_for(*, birth_number: str, given_names: str, surname: str, dob: date, citizenship: str) -> str:
    """A stable, non-reversible key of a person: the birth number, else name + birth date + citizenship."""
    basis = f"rc:{birth_number}" if birth_number else f"nd:{name_dob_key(given_names, surname, dob)}|{citizenship}"
    return hashlib.sha256(f"accounts.person.v1|{basis}".encode()).hexdigest()


def normalize_phone(value: str) -> str:
    """E.164 (``+420731000001``); raises ValueError when not a valid number."""
    try:
        parsed = phonenumbers.parse(str(value), "CZ")
    except phonenumbers.NumberParseException as exc:
        raise ValueError("invalid") from exc
    if not phonenumbers.is_valid_number(parsed):
        raise ValueError("invalid")
    return phonenumbers.format_number(parsed, phonenumbers.PhoneNumberFormat.E164)


def birth_number_sex(number: str) -> str:
    """'F' when the month part carries +50 (women), else 'M' (+20 is the post-2004 overflow)."""
    return "F" if int(number[2:4]) > 50 else "M"


def age_on(dob: date, today: date) -> int:
    """Full years on ``today`` (someone born on 29 February comes of age on 1 March)."""
    return today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))


def require_adult(dob: date, today: date) -> None:
    if age_on(dob, today) < ADULT_AGE:
        raise UNDERAGE(date_of_birth=dob, checked_on=today)


def _date(value, problems: list) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except (TypeError, ValueError):
        problems.append("invalid_date")
        return None


def validate_personal_data(data: dict, *, today: date) -> dict:
    """Return the cleaned personal data or raise INVALID_PERSONAL_DATA with every problem found."""
    errors: dict[str, list[str]] = {}
    out: dict = {}

    def err(field: str, code: str) -> None:
        errors.setdefault(field, []).append(code)

    for f in FIELDS:
        v = data.get(f, "")
        if isinstance(v, str):
            v = v.strip()
        out[f] = "" if v is None else v
    unknown = sorted(set(data) - set(FIELDS))
    for f in unknown:
        err(f, "unknown_field")
    for f in REQUIRED:
        if out[f] in ("", None):
            err(f, "required")

    for f in ("given_names", "surname", "birth_surname"):
        if out[f] and (len(out[f]) > 100 or not _NAME.match(out[f])):
            err(f, "invalid_name")
    for f in ("place_of_birth", "residence_city", "document_issuing_authority"):
        if out[f] and len(out[f]) > 100:
            err(f, "too_long")

    for f in ("citizenship", "document_issuing_state"):
        if out[f]:
            out[f] = str(out[f]).upper()
            if out[f] not in COUNTRIES:
                err(f, "invalid_country")
    out["residence_country"] = (str(out["residence_country"]) or "CZ").upper()
    if out["residence_country"] != "CZ":
        err("residence_country", "residence_not_cz")  # GP §3(1), §4(4)f

    if out["sex"] and out["sex"] not in ("M", "F"):
        err("sex", "invalid_choice")

    dob = None
    if out["date_of_birth"]:
        problems: list[str] = []
        dob = _date(out["date_of_birth"], problems)
        for p in problems:
            err("date_of_birth", p)
        if dob and dob > today:
            err("date_of_birth", "in_future")
            dob = None
        out["date_of_birth"] = dob

    # Birth number (rodné číslo): checksum, embedded date of birth and sex (GP §4(4)a).
    bn = re.sub(r"[\s/]", "", str(out["birth_number"] or ""))
    out["birth_number"] = bn
    if bn:
        try:
            rc.validate(bn)
            if dob and rc.get_birth_date(bn) != dob:
                err("birth_number", "dob_mismatch")
            if out["sex"] in ("M", "F") and birth_number_sex(bn) != out["sex"]:
                err("birth_number", "sex_mismatch")
        except InvalidChecksum:
            err("birth_number", "checksum")
        except (InvalidComponent, InvalidLength):
            err("birth_number", "invalid_date_or_length")
        except ValidationError:
            err("birth_number", "invalid")
    elif out["citizenship"] == "CZ":
        err("birth_number", "required_for_czech_citizens")  # foreigners only "if assigned" (GP §4(6))

    if out["residence_street"] and not re.search(r"\d", str(out["residence_street"])):
        err("residence_street", "house_number_missing")
    if out["residence_postal_code"]:
        m = _POSTAL.match(str(out["residence_postal_code"]))
        if m:
            out["residence_postal_code"] = f"{m.group(1)} {m.group(2)}"
        else:
            err("residence_postal_code", "invalid_postal_code")

    if out["phone"]:
        try:
            out["phone"] = normalize_phone(out["phone"])
        except ValueError:
            err("phone", "invalid_phone")
    if out["email"]:
        try:
            validate_email(out["email"])
            out["email"] = str(out["email"]).strip()
        except DjangoValidationError:
            err("email", "invalid_email")
    if out["data_box_id"]:
        out["data_box_id"] = str(out["data_box_id"]).lower()
        if not _DATA_BOX.match(out["data_box_id"]):
            err("data_box_id", "invalid_data_box_id")

    if out["document_type"] and out["document_type"] not in DOCUMENT_TYPES:
        err("document_type", "invalid_choice")
    if out["document_number"]:
        out["document_number"] = re.sub(r"[\s-]", "", str(out["document_number"]).upper())
        if not _DOC_NUMBER.match(out["document_number"]):
            err("document_number", "invalid_document_number")
    if out["document_valid_until"]:
        problems = []
        valid_until = _date(out["document_valid_until"], problems)
        for p in problems:
            err("document_valid_until", p)
        if valid_until and valid_until < today:
            err("document_valid_until", "document_expired")
        out["document_valid_until"] = valid_until

    if errors:
        raise INVALID_PERSONAL_DATA(fields=errors)
    return out


def derived_keys(clean: dict) -> dict:
    """The normalised matching keys stored next to the personal data."""
    return {
        "email_key": email_key(clean["email"]),
        "document_key": document_key(clean["document_issuing_state"], clean["document_number"]),
        "name_dob_key": name_dob_key(clean["given_names"], clean["surname"], clean["date_of_birth"]),
        "person_key": person_key_for(birth_number=clean["birth_number"], given_names=clean["given_names"],
                                     surname=clean["surname"], dob=clean["date_of_birth"],
                                     citizenship=clean["citizenship"]),
    }


DOCUMENT_FIELDS = ("document_type", "document_number", "document_issuing_state", "document_issuing_authority",
                   "document_valid_until")


def validate_document(doc: dict, *, today: date) -> dict:
    """The identity-document part of the personal data (GP §4(4)a-b), e.g. recorded by branch staff."""
    errors: dict[str, list[str]] = {}
    out = {}
    for f in DOCUMENT_FIELDS:
        v = doc.get(f, "")
        out[f] = v.strip() if isinstance(v, str) else v
        if out[f] in ("", None):
            errors.setdefault(f, []).append("required")
    if out["document_type"] and out["document_type"] not in DOCUMENT_TYPES:
        errors.setdefault("document_type", []).append("invalid_choice")
    if out["document_number"]:
        out["document_number"] = re.sub(r"[\s-]", "", str(out["document_number"]).upper())
        if not _DOC_NUMBER.match(out["document_number"]):
            errors.setdefault("document_number", []).append("invalid_document_number")
    if out["document_issuing_state"]:
        out["document_issuing_state"] = str(out["document_issuing_state"]).upper()
        if out["document_issuing_state"] not in COUNTRIES:
            errors.setdefault("document_issuing_state", []).append("invalid_country")
    if out["document_valid_until"]:
        problems: list[str] = []
        valid_until = _date(out["document_valid_until"], problems)
        if problems:
            errors.setdefault("document_valid_until", []).extend(problems)
        elif valid_until < today:
            errors.setdefault("document_valid_until", []).append("document_expired")
        out["document_valid_until"] = valid_until
    if errors:
        raise INVALID_PERSONAL_DATA(fields=errors)
    return out
