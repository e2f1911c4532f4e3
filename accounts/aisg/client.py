"""The platform's side of the AISG data interface: the configuration from the settings, the version module, the
person's data in the Ministry's shape, and the decision table (docs/aml.md "AISG decision table").

``ACCOUNTS_POPULATION_REGISTER`` = ``ACCOUNTS_EXCLUSION_REGISTER`` = ``aisg`` make :class:`AisgRegister` both the
population register and the register of excluded persons of ``accounts.adapters``: one ``OveritOsobu`` answers
identity, age and exclusion at once."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

from django.conf import settings

from accounts.aisg import sandbox, sandbox_keys, v1
from accounts.aisg import types as t

if TYPE_CHECKING:
    from accounts.adapters import Identity

VERSIONS: dict[str, ModuleType] = {"1.0": v1}


def interface() -> ModuleType:
    """The module of the configured interface version (``ACCOUNTS_AISG_VERSION``)."""
    try:
        return VERSIONS[settings.ACCOUNTS_AISG_VERSION]
    except KeyError:
        raise t.AisgError(
            f"ACCOUNTS_AISG_VERSION {settings.ACCOUNTS_AISG_VERSION!r} is not implemented "
            f"(known: {', '.join(VERSIONS)})"
        ) from None


def _read(setting: str) -> bytes:
    path = getattr(settings, setting)
    if not path or not Path(path).is_file():
        raise t.AisgError(f"{setting} is not set or not a file")
    return Path(path).read_bytes()


def config() -> v1.Config:
    """The interface's configuration from the settings (files read at each call: a certificate can be renewed).
    ``ACCOUNTS_AISG_URL=sandbox:<folder>`` (development: ``accounts.aisg.sandbox``) sends the signed requests to the
    sandbox Ministry in this process instead of the network; production refuses any URL but ``https://``."""
    keys = sandbox_keys.keys_of_url(settings.ACCOUNTS_AISG_URL)
    if keys is None and settings.ACCOUNTS_AISG_URL.startswith(sandbox_keys.URL_PREFIX):
        raise t.AisgError(f"ACCOUNTS_AISG_URL {settings.ACCOUNTS_AISG_URL!r} names no AISG sandbox folder")
    return v1.Config(
        url=settings.ACCOUNTS_AISG_URL,
        key_pem=_read("ACCOUNTS_AISG_KEY_FILE"),
        cert_pem=_read("ACCOUNTS_AISG_CERT_FILE"),
        ministry_cert_pem=_read("ACCOUNTS_AISG_MINISTRY_CERT_FILE"),
        ico_vcp=settings.ACCOUNTS_AISG_ICO_VCP,
        timeout=settings.ACCOUNTS_AISG_TIMEOUT_SECONDS,
        ca_file=settings.ACCOUNTS_AISG_CA_FILE,
        require_echo=settings.ACCOUNTS_AISG_REQUIRE_ECHO,
        transport=sandbox.transport(keys) if keys is not None else None,
    )


# The person's data --------------------------------------------------------------------------------------------
_STREET = re.compile(
    r"^(?P<street>.*?)[\s,]*(?:č\.\s*p\.\s*|č\.\s*ev\.\s*)?(?P<cp>\d+)(?:\s*/\s*(?P<co>\d+)(?P<suffix>[A-Za-z])?)?$"
)
_PRAGUE = re.compile(r"^Praha\s+(?P<district>\d{1,2})$")


def address_of(street: str, city: str, postal_code: str, country: str) -> t.Address | None:
    """The permanent residence as AISG wants it: the street without its numbers, the descriptive (číslo popisné)
    and orientation numbers apart ("Karlovo náměstí 285/19"), "Praha 2" as Praha with the district's number."""
    if not city.strip():
        return None
    m = _STREET.match(street.strip())
    street_name, cp, co, suffix = (
        (m.group("street"), m.group("cp"), m.group("co"), m.group("suffix") or "")
        if m
        else (street.strip(), None, None, "")
    )
    prague = _PRAGUE.match(city.strip()) if country.upper() == "CZ" else None
    return t.Address(
        municipality=("Praha" if prague else city.strip()),
        country=(country or "CZ").upper(),
        street=street_name.strip(" ,"),
        house_number=int(cp) if cp else None,
        orientation_number=int(co) if co else None,
        orientation_suffix=suffix,
        prague_district=int(prague.group("district")) if prague else None,
        postal_code=postal_code,
    )


def person_of(identity: Identity) -> t.Person:
    """The Ministry's OsobaType from the platform's identity. The place of birth is sent only as the Ministry can
    match it (a code, or municipality and district): the platform keeps it as free text, so it is left out, as
    the schema allows (MistoNarozeni is optional)."""
    residence = (
        address_of(
            identity.residence_street,
            identity.residence_city,
            identity.residence_postal_code,
            identity.residence_country or "CZ",
        )
        if identity.residence_city
        else None
    )
    if residence is not None and residence.country == "CZ" and not "".join(residence.postal_code.split()).isdigit():
        residence = None
    return t.Person(
        given_names=identity.given_names,
        surname=identity.surname,
        date_of_birth=identity.date_of_birth,
        citizenship=(identity.citizenship or "CZ").upper(),
        birth_surname=identity.birth_surname,
        residence=residence,
    )


# The decision table ----------------------------------------------------------------------------------------------
OK, UNDERAGE, EXCLUDED, MANUAL_REVIEW, UNAVAILABLE = "ok", "underage", "excluded", "manual_review", "unavailable"


@dataclass(frozen=True)
class Decision:
    outcome: str  # ok | underage | excluded | manual_review | unavailable
    reason: str  # which answer decided it (for the record and the staff)


def decide(v: t.Verification) -> Decision:
    """One answer to one decision, strictest first (docs/aml.md "AISG decision table"):

    1. ``NalezenaRVO=ANO`` - listed in the register of excluded persons: refused, the player excluded;
    2. ``Plnoleta=NE`` - not adult: refused;
    3. ``NalezenaROB`` ``NENALEZENA`` / ``MRTVA`` / ``DUPLICITA`` - the person cannot be identified: no
       registration (no login), manual review by staff;
    4. ``NalezenaROB`` ``NEODPOVEZENO`` / ``NEPROVEDENA`` or ``NalezenaRVO=NEOVERENO`` - no answer: fail closed,
       retried on a schedule, staff alerted (as a timeout, a fault, a bad signature);
    5. ``NALEZENA`` + ``Plnoleta=ANO`` + ``NalezenaRVO=NE``: allowed."""
    if v.rvo == t.RVO_LISTED:
        return Decision(EXCLUDED, "NalezenaRVO=ANO")
    if v.adult == t.ADULT_NO:
        return Decision(UNDERAGE, "Plnoleta=NE")
    if v.rob in (t.ROB_NOT_FOUND, t.ROB_DEAD, t.ROB_DUPLICATE):
        return Decision(MANUAL_REVIEW, f"NalezenaROB={v.rob}")
    if v.rob != t.ROB_FOUND:
        return Decision(UNAVAILABLE, f"NalezenaROB={v.rob}")
    if v.rvo != t.RVO_NOT_LISTED:
        return Decision(UNAVAILABLE, f"NalezenaRVO={v.rvo}")
    if v.adult != t.ADULT_YES:  # pragma: no cover - the parser admits ANO / NE only
        return Decision(UNAVAILABLE, f"Plnoleta={v.adult}")
    return Decision(OK, "NALEZENA, Plnoleta=ANO, NalezenaRVO=NE")


def verify(identity: Identity, *, reason: str, hid: str | None = None) -> t.Verification:
    """``OveritOsobu``: by the stored HID when there is one (login), else by the personal data."""
    api = interface()
    if hid:
        return api.verify_person(config(), reason=reason, hid=hid)
    return api.verify_person(config(), reason=reason, person=person_of(identity))


def change(identity: Identity, *, hid: str) -> str:
    """``ZmenitUdajeOsoby``: the person's changed data under their HID."""
    return interface().change_person(config(), hid=hid, person=person_of(identity))


def submit_batch(persons: list[tuple[str, t.Person]]) -> str:
    return interface().submit_batch(config(), persons)


def batch_results(batch_id: str) -> t.BatchResult:
    return interface().batch_results(config(), batch_id)


def ping() -> str:
    return interface().test(config())


def describe(exc: t.AisgError) -> dict[str, object]:
    """What is recorded of a failed call (kind, fault code, text)."""
    return {"aisg": exc.kind, "code": exc.code, "error": str(exc)[:200]}
