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
from typing import Any

import phonenumbers
from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_email
from stdnum.cz import rc
from stdnum.exceptions import InvalidChecksum, InvalidComponent, InvalidLength, ValidationError

from accounts.errors import INVALID_PERSONAL_DATA, UNDERAGE

ADULT_AGE = 18  # GP §3(1)
COUNTRIES = frozenset(phonenumbers.SUPPORTED_REGIONS) - {"001"}
DOCUMENT_TYPES = ("id_card", "passport", "driving_licence", "residence_permit")
REQUIRED = (
    "given_names",
    "surname",
    "date_of_birth",
    "place_of_birth",
    "sex",
    "citizenship",
    "residence_street",
    "residence_city",
    "residence_postal_code",
    "phone",
    "email",
    "document_type",
    "document_number",
    "document_issuing_state",
    "document_issuing_authority",
    "document_valid_until",
)
PERMANENT_RESIDENCE = (
    "permanent_residence_street",
    "permanent_residence_city",
    "permanent_residence_postal_code",
    "permanent_residence_country",
)
OPTIONAL = (
    "birth_surname",
    "birth_number",
    "residence_country",
    "correspondence_address",
    "data_box_id",
    *PERMANENT_RESIDENCE,
    "id_card_unavailable",
)
FIELDS = REQUIRED + OPTIONAL
_NAME = re.compile(r"^[^\W\d_]+(?:[ '\-.][^\W\d_]+)*\.?$")
_POSTAL = re.compile(r"^([1-7]\d{2}) ?(\d{2})$")
_DATA_BOX = re.compile(r"^[a-z0-9]{7}$")
_DOC_NUMBER = re.compile(r"^[A-Z0-9]{5,20}$")
_FOREIGN_POSTAL = re.compile(r"^[A-Z0-9][A-Z0-9 -]{1,10}[A-Z0-9]$")
_TRUE, _FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off", "")


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


Problems = dict[str, list[str]]


def _problem(problems: Problems, field: str, code: str) -> None:
    problems.setdefault(field, []).append(code)


def _date(value: Any, problems: list[str]) -> date | None:
    if isinstance(value, date):
        return value
    try:
        return date.fromisoformat(str(value))
    except (TypeError, ValueError):
        problems.append("invalid_date")
        return None


def validate_personal_data(data: dict[str, Any], *, today: date) -> dict[str, Any]:
    """Return the cleaned personal data or raise INVALID_PERSONAL_DATA with every problem found."""
    problems: Problems = {}
    out = _present_fields(data, problems)
    _check_texts(out, problems)
    _clean_countries(out, problems)
    if out["sex"] and out["sex"] not in ("M", "F"):
        _problem(problems, "sex", "invalid_choice")
    out["date_of_birth"] = _clean_date_of_birth(out["date_of_birth"], problems, today)
    _clean_birth_number(out, problems)
    _clean_address(out, problems)
    _clean_permanent_residence(out, problems)
    _clean_contacts(out, problems)
    _clean_document_fields(out, problems, today)
    _check_document_for_citizenship(out, problems)
    if problems:
        raise INVALID_PERSONAL_DATA(fields=problems)
    return out


def _present_fields(data: dict[str, Any], problems: Problems) -> dict[str, Any]:
    """Every known field, stripped ("" when absent); unknown fields and missing required ones are problems."""
    out: dict[str, Any] = {}
    for f in FIELDS:
        v = data.get(f, "")
        if isinstance(v, str):
            v = v.strip()
        out[f] = "" if v is None else v
    for f in sorted(set(data) - set(FIELDS)):
        _problem(problems, f, "unknown_field")
    for f in REQUIRED:
        if out[f] in ("", None):
            _problem(problems, f, "required")
    return out


def _check_texts(out: dict[str, Any], problems: Problems) -> None:
    """Names: letters with spaces, apostrophes, dashes and dots, at most 100 characters; places too."""
    for f in ("given_names", "surname", "birth_surname"):
        if out[f] and (len(out[f]) > 100 or not _NAME.match(out[f])):
            _problem(problems, f, "invalid_name")
    for f in ("place_of_birth", "residence_city", "document_issuing_authority"):
        if out[f] and len(out[f]) > 100:
            _problem(problems, f, "too_long")


def _clean_countries(out: dict[str, Any], problems: Problems) -> None:
    """Citizenship as an ISO country code; the residence must be in the Czech Republic (GP §3(1), §4(4)f)."""
    if out["citizenship"]:
        out["citizenship"] = str(out["citizenship"]).upper()
        if out["citizenship"] not in COUNTRIES:
            _problem(problems, "citizenship", "invalid_country")
    out["residence_country"] = (str(out["residence_country"]) or "CZ").upper()
    if out["residence_country"] != "CZ":
        _problem(problems, "residence_country", "residence_not_cz")  # GP §3(1), §4(4)f


def _clean_date_of_birth(value: Any, problems: Problems, today: date) -> date | str | None:
    """The date of birth as a date (None when invalid or in the future; "" when not given)."""
    if not value:
        return value
    found: list[str] = []
    dob = _date(value, found)
    for code in found:
        _problem(problems, "date_of_birth", code)
    if dob and dob > today:
        _problem(problems, "date_of_birth", "in_future")
        return None
    return dob


def _clean_birth_number(out: dict[str, Any], problems: Problems) -> None:
    """Birth number (rodné číslo): checksum, embedded date of birth and sex (GP §4(4)a); required of Czech
    citizens, of foreigners only "if assigned" (GP §4(6))."""
    bn = re.sub(r"[\s/]", "", str(out["birth_number"] or ""))
    out["birth_number"] = bn
    if not bn:
        if out["citizenship"] == "CZ":
            _problem(problems, "birth_number", "required_for_czech_citizens")
        return
    dob = out["date_of_birth"] if isinstance(out["date_of_birth"], date) else None
    try:
        rc.validate(bn)
        if dob and rc.get_birth_date(bn) != dob:
            _problem(problems, "birth_number", "dob_mismatch")
        if out["sex"] in ("M", "F") and birth_number_sex(bn) != out["sex"]:
            _problem(problems, "birth_number", "sex_mismatch")
    except InvalidChecksum:
        _problem(problems, "birth_number", "checksum")
    except (InvalidComponent, InvalidLength):
        _problem(problems, "birth_number", "invalid_date_or_length")
    except ValidationError:
        _problem(problems, "birth_number", "invalid")


def _clean_address(out: dict[str, Any], problems: Problems) -> None:
    """The street with a house number; the Czech postal code written "110 00"."""
    if out["residence_street"] and not re.search(r"\d", str(out["residence_street"])):
        _problem(problems, "residence_street", "house_number_missing")
    if out["residence_postal_code"]:
        m = _POSTAL.match(str(out["residence_postal_code"]))
        if m:
            out["residence_postal_code"] = f"{m.group(1)} {m.group(2)}"
        else:
            _problem(problems, "residence_postal_code", "invalid_postal_code")


def _clean_permanent_residence(out: dict[str, Any], problems: Problems) -> None:
    """GP §4(4)a: the permanent residence (trvalý pobyt, AML law) is kept apart from the residence (bydliště, ZHH).
    Not given at all: it is the residence. Given: street, city and country are required; in the Czech Republic with a
    house number and a PSČ ("110 00"), abroad (a foreigner's) with the postal code of that country, if any."""
    for f in PERMANENT_RESIDENCE:
        out[f] = str(out[f] or "").strip()
    if not any(out[f] for f in PERMANENT_RESIDENCE):
        out["permanent_residence_street"] = out["residence_street"]
        out["permanent_residence_city"] = out["residence_city"]
        out["permanent_residence_postal_code"] = out["residence_postal_code"]
        out["permanent_residence_country"] = out["residence_country"]
        return
    for f in ("permanent_residence_street", "permanent_residence_city", "permanent_residence_country"):
        if not out[f]:
            _problem(problems, f, "required")
    if len(out["permanent_residence_street"]) > 200:
        _problem(problems, "permanent_residence_street", "too_long")
    if len(out["permanent_residence_city"]) > 100:
        _problem(problems, "permanent_residence_city", "too_long")
    country = out["permanent_residence_country"] = out["permanent_residence_country"].upper()
    if country and country not in COUNTRIES:
        _problem(problems, "permanent_residence_country", "invalid_country")
    street, postal = out["permanent_residence_street"], out["permanent_residence_postal_code"].upper()
    if country == "CZ":
        if street and not re.search(r"\d", street):
            _problem(problems, "permanent_residence_street", "house_number_missing")
        m = _POSTAL.match(postal)
        if m:
            out["permanent_residence_postal_code"] = f"{m.group(1)} {m.group(2)}"
        else:
            _problem(problems, "permanent_residence_postal_code", "invalid_postal_code")
    elif postal:
        out["permanent_residence_postal_code"] = postal
        if not _FOREIGN_POSTAL.match(postal):
            _problem(problems, "permanent_residence_postal_code", "invalid_postal_code")


def _clean_contacts(out: dict[str, Any], problems: Problems) -> None:
    """The phone in E.164, a valid e-mail address, the data box ID in lower case."""
    if out["phone"]:
        try:
            out["phone"] = normalize_phone(out["phone"])
        except ValueError:
            _problem(problems, "phone", "invalid_phone")
    if out["email"]:
        try:
            validate_email(out["email"])
            out["email"] = str(out["email"]).strip()
        except DjangoValidationError:
            _problem(problems, "email", "invalid_email")
    if out["data_box_id"]:
        out["data_box_id"] = str(out["data_box_id"]).lower()
        if not _DATA_BOX.match(out["data_box_id"]):
            _problem(problems, "data_box_id", "invalid_data_box_id")


def _boolean(value: Any) -> bool | None:
    """A yes/no answer from JSON (a boolean) or a form or correction (a string); None when it is neither."""
    if isinstance(value, bool):
        return value
    text = str(value if value is not None else "").strip().lower()
    return True if text in _TRUE else False if text in _FALSE else None


def _clean_document_fields(out: dict[str, Any], problems: Problems, today: date) -> None:
    """The identity document (GP §4(4)a-b): type, number, issuing state, validity (not expired)."""
    unavailable = _boolean(out.get("id_card_unavailable", False))
    if unavailable is None:
        _problem(problems, "id_card_unavailable", "invalid_boolean")
    out["id_card_unavailable"] = bool(unavailable)
    if out["document_type"] and out["document_type"] not in DOCUMENT_TYPES:
        _problem(problems, "document_type", "invalid_choice")
    if out["document_number"]:
        out["document_number"] = re.sub(r"[\s-]", "", str(out["document_number"]).upper())
        if not _DOC_NUMBER.match(out["document_number"]):
            _problem(problems, "document_number", "invalid_document_number")
    if out["document_issuing_state"]:
        out["document_issuing_state"] = str(out["document_issuing_state"]).upper()
        if out["document_issuing_state"] not in COUNTRIES:
            _problem(problems, "document_issuing_state", "invalid_country")
    if out["document_valid_until"]:
        found: list[str] = []
        valid_until = _date(out["document_valid_until"], found)
        for code in found:
            _problem(problems, "document_valid_until", code)
        if valid_until and valid_until < today:
            _problem(problems, "document_valid_until", "document_expired")
        out["document_valid_until"] = valid_until


def _check_document_for_citizenship(out: dict[str, Any], problems: Problems) -> None:
    """GP §2 point 9 (průkaz totožnosti): a Czech citizen shows the Czech identity card (občanský průkaz), or, where
    it cannot be shown (``id_card_unavailable``), a passport or a driving licence; a foreigner shows an identity card
    of their own state, a passport or a residence permit for the Czech Republic, never a driving licence."""
    kind, citizenship = out["document_type"], out["citizenship"]
    state = out["document_issuing_state"]
    if kind not in DOCUMENT_TYPES or citizenship not in COUNTRIES:
        return
    if citizenship == "CZ":
        if kind == "residence_permit":
            _problem(problems, "document_type", "not_for_czech_citizens")
        elif kind in ("passport", "driving_licence") and not out["id_card_unavailable"]:
            _problem(problems, "document_type", "id_card_required")  # unless declared not possible to show
        elif kind == "id_card" and out["id_card_unavailable"]:
            _problem(problems, "id_card_unavailable", "contradicts_document_type")
        if kind == "id_card" and state and state != "CZ":
            _problem(problems, "document_issuing_state", "issuing_state_mismatch")
        return
    if kind == "driving_licence":
        _problem(problems, "document_type", "not_for_foreigners")
    elif kind == "id_card" and state and state != citizenship:
        _problem(problems, "document_issuing_state", "issuing_state_mismatch")  # the card of their own state
    elif kind == "residence_permit" and state and state != "CZ":
        _problem(problems, "document_issuing_state", "issuing_state_mismatch")  # a permit for the Czech Republic


def derived_keys(clean: dict[str, Any]) -> dict[str, str]:
    """The normalised matching keys stored next to the personal data."""
    return {
        "email_key": email_key(clean["email"]),
        "document_key": document_key(clean["document_issuing_state"], clean["document_number"]),
        "name_dob_key": name_dob_key(clean["given_names"], clean["surname"], clean["date_of_birth"]),
        "person_key": person_key_for(
            birth_number=clean["birth_number"],
            given_names=clean["given_names"],
            surname=clean["surname"],
            dob=clean["date_of_birth"],
            citizenship=clean["citizenship"],
        ),
    }


DOCUMENT_FIELDS = (
    "document_type",
    "document_number",
    "document_issuing_state",
    "document_issuing_authority",
    "document_valid_until",
)


def validate_document(doc: dict[str, Any], *, today: date, citizenship: str) -> dict[str, Any]:
    """The identity-document part of the personal data (GP §4(4)a-b), e.g. recorded by branch staff, checked against
    the holder's ``citizenship`` (GP §2 point 9). Returns the document fields and ``id_card_unavailable``."""
    problems: Problems = {}
    out: dict[str, Any] = {}
    for f in DOCUMENT_FIELDS:
        v = doc.get(f, "")
        out[f] = v.strip() if isinstance(v, str) else v
        if out[f] in ("", None):
            _problem(problems, f, "required")
    out["id_card_unavailable"] = doc.get("id_card_unavailable", False)
    _clean_document_fields(out, problems, today)
    _check_document_for_citizenship({**out, "citizenship": citizenship}, problems)
    if problems:
        raise INVALID_PERSONAL_DATA(fields=problems)
    return out


def is_birth_number(text: str) -> bool:
    """Whether ``text`` is a valid Czech birth number (checksum and embedded date; the slash optional)."""
    bn = re.sub(r"[\s/]", "", text)
    if not bn.isdigit() or len(bn) not in (9, 10):
        return False
    try:
        rc.validate(bn)
    except ValidationError:
        return False
    return True
