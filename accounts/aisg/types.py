"""What the platform asks the Ministry of Finance's AISG data interface and what it answers, independent of the
interface version (the version modules, ``accounts.aisg.v1``, turn these into their messages and back)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

# Reasons of a check (DuvodZadostiType)
REGISTRATION = "Registrace"
ENTRY = "Vstup"
LOGIN = "Prihlaseni"
REASONS = (REGISTRATION, ENTRY, LOGIN)

# Answers (VysledkyOvereniGroup)
ADULT_YES, ADULT_NO = "ANO", "NE"
ROB_FOUND, ROB_DEAD, ROB_NOT_FOUND, ROB_DUPLICATE, ROB_NO_ANSWER, ROB_NOT_DONE = (
    "NALEZENA",
    "MRTVA",
    "NENALEZENA",
    "DUPLICITA",
    "NEODPOVEZENO",
    "NEPROVEDENA",
)
ROB_VALUES = (ROB_FOUND, ROB_DEAD, ROB_NOT_FOUND, ROB_DUPLICATE, ROB_NO_ANSWER, ROB_NOT_DONE)
RVO_LISTED, RVO_NOT_LISTED, RVO_UNVERIFIED = "ANO", "NE", "NEOVERENO"
RVO_VALUES = (RVO_LISTED, RVO_NOT_LISTED, RVO_UNVERIFIED)

# Batch states (StavZpracovaniDavkyType)
BATCH_ACCEPTED, BATCH_DONE, BATCH_EXPIRED = "Prijata", "Zpracovana", "Ukoncena"


@dataclass(frozen=True)
class PlaceCode:
    """A RÚIAN code: a municipality (place of birth, 0-999999) or an address point (residence, 1-999999999)."""

    code: int


@dataclass(frozen=True)
class BirthPlaceCZ:
    municipality: str  # Obec
    district: str  # Okres


@dataclass(frozen=True)
class BirthPlaceAbroad:
    place: str  # Misto
    country: str  # Stat, alpha-2


@dataclass(frozen=True)
class Address:
    """A permanent residence in the Czech Republic (``country == "CZ"``, PSČ a number) or abroad."""

    municipality: str  # Obec
    country: str = "CZ"
    street: str = ""
    house_number: int | None = None  # číslo popisné / evidenční
    orientation_number: int | None = None  # číslo orientační
    orientation_suffix: str = ""
    prague_district: int | None = None
    municipality_part: str = ""
    postal_code: str = ""


@dataclass(frozen=True)
class Person:
    """OsobaType: name, surname, birth surname, date of birth, citizenship, place of birth, permanent residence."""

    given_names: str
    surname: str
    date_of_birth: date
    citizenship: str
    birth_surname: str = ""
    birth_place: PlaceCode | BirthPlaceCZ | BirthPlaceAbroad | None = None
    residence: PlaceCode | Address | None = None


@dataclass(frozen=True)
class Verification:
    """One person's answer: the person id (HID), adult, population register (ROB), excluded-persons register (RVO)."""

    hid: str | None
    adult: str
    rob: str
    rvo: str
    request_id: str = ""  # CisloPozadavku of the answer
    identification: str = ""  # IdentifikacePozadavku (the Ministry's id of the request, kept for the audit)


@dataclass(frozen=True)
class BatchResult:
    state: str
    results: dict[str, Verification] = field(default_factory=dict)  # by IdentifikaceZaznamu


class AisgError(Exception):
    """The interface did not give a usable answer (transport, timeout, a fault, a bad signature, a malformed
    answer). Always a reason to fail closed."""

    kind = "unavailable"

    def __init__(self, message: str, *, code: int | None = None, description: str = ""):
        super().__init__(message)
        self.code = code
        self.description = description


class AisgFault(AisgError):
    """A SOAP fault with the Ministry's ErrorMessage (Kod 2-9999, Popis)."""

    kind = "fault"


class AisgTimeout(AisgError):
    kind = "timeout"


class AisgBadSignature(AisgError):
    """The answer was not signed by the Ministry's certificate, or was altered."""

    kind = "signature"


class AisgMalformed(AisgError):
    kind = "malformed"
