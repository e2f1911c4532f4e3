"""Adapters to the outside world: the population register, the register of excluded
persons and the SMS gateway.

Each has a sandbox implementation backed by a table (staff fill it in the admin, tests fill
it directly) and an HTTP implementation speaking JSON to the operator's integration gateway;
``ACCOUNTS_POPULATION_REGISTER`` / ``ACCOUNTS_EXCLUSION_REGISTER`` / ``ACCOUNTS_SMS_GATEWAY``
= ``sandbox`` | ``http`` choose. Registers raise :class:`RegisterUnavailable` when they cannot
answer; the caller decides (registration retries later, login refuses).
"""

from __future__ import annotations

import json
import logging
import urllib.error
import urllib.request
from dataclasses import asdict, dataclass, field
from datetime import date, datetime
from typing import Any, Protocol

from django.conf import settings

from accounts.aisg import client as aisg_client
from accounts.aisg import types as aisg_types
from accounts.aisg.types import AisgError, Verification
from accounts.models import PersonalData, Player, SandboxExclusionEntry, SandboxPopulationRecord, SandboxSms
from accounts.validation import fold
from core import clock
from core.parsers import loads_bounded

logger = logging.getLogger("accounts.adapters")


class RegisterUnavailable(Exception):
    """The register did not answer (down, timeout, malformed answer): try again later."""


class GatewayError(Exception):
    """The SMS gateway refused or did not answer."""


@dataclass(frozen=True)
class Identity:
    """What the registers are asked about."""

    given_names: str
    surname: str
    date_of_birth: date
    birth_number: str = ""
    sex: str = ""
    citizenship: str = ""
    document_number: str = ""
    # the AISG interface asks by these too (its OsobaType): birth surname and permanent residence (trvalý pobyt)
    birth_surname: str = ""
    residence_street: str = ""
    residence_city: str = ""
    residence_postal_code: str = ""
    residence_country: str = ""

    @classmethod
    def from_personal(cls, pd: PersonalData) -> Identity:
        return cls.from_clean(
            {
                f: getattr(pd, f, "")
                for f in (
                    "given_names",
                    "surname",
                    "date_of_birth",
                    "birth_number",
                    "sex",
                    "citizenship",
                    "document_number",
                    "birth_surname",
                    "permanent_residence_street",
                    "permanent_residence_city",
                    "permanent_residence_postal_code",
                    "permanent_residence_country",
                    "residence_street",
                    "residence_city",
                    "residence_postal_code",
                    "residence_country",
                )
            }
        )

    @classmethod
    def from_clean(cls, d: dict[str, Any]) -> Identity:
        """From validated personal data; the permanent residence (else the residence) is the one AISG knows."""
        permanent = bool(d.get("permanent_residence_city"))
        prefix = "permanent_residence_" if permanent else "residence_"
        return cls(
            given_names=d["given_names"],
            surname=d["surname"],
            date_of_birth=d["date_of_birth"],
            birth_number=d.get("birth_number", ""),
            sex=d.get("sex", ""),
            citizenship=d.get("citizenship", ""),
            document_number=d.get("document_number", ""),
            birth_surname=d.get("birth_surname", "") or "",
            residence_street=d.get(prefix + "street", "") or "",
            residence_city=d.get(prefix + "city", "") or "",
            residence_postal_code=d.get(prefix + "postal_code", "") or "",
            residence_country=d.get(prefix + "country", "") or "",
        )

    def to_json(self) -> dict[str, Any]:
        """The HTTP gateway's identity (its contract predates the AISG fields, which it does not get)."""
        data = asdict(self)
        for name in (
            "birth_surname",
            "residence_street",
            "residence_city",
            "residence_postal_code",
            "residence_country",
        ):
            data.pop(name)
        data["date_of_birth"] = self.date_of_birth.isoformat()
        return data


@dataclass(frozen=True)
class PopulationAnswer:
    """found: the register knows the person; mismatches: fields that differ; date_of_birth: per the register."""

    found: bool
    mismatches: list[str] = field(default_factory=list)
    date_of_birth: date | None = None
    resident_in_cz: bool = True


IdentitySubject = Identity | Player | PersonalData


def as_identity(subject: IdentitySubject) -> Identity:
    """An Identity from an Identity, a Player (its personal data) or a PersonalData row."""
    if isinstance(subject, Identity):
        return subject
    if isinstance(subject, Player):
        return Identity.from_personal(subject.personal)
    return Identity.from_personal(subject)


# HTTP helper -------------------------------------------------------------------------------
def _post_json(url: str, payload: dict[str, Any]) -> dict[str, Any]:
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    token = settings.ACCOUNTS_GATEWAY_TOKEN
    if token:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=settings.ACCOUNTS_GATEWAY_TIMEOUT_SECONDS) as resp:
            return loads_bounded(resp.read().decode() or "{}")  # too deep: a ValueError (N-6)
    except urllib.error.HTTPError as exc:
        raise RegisterUnavailable(f"HTTP {exc.code} from {url}") from exc
    except (urllib.error.URLError, TimeoutError, OSError, ValueError) as exc:
        raise RegisterUnavailable(f"{exc.__class__.__name__} calling {url}") from exc


def _url(setting: str, path: str) -> str:
    base = getattr(settings, setting)
    if not base:
        raise RegisterUnavailable(f"{setting} is not configured")
    return base.rstrip("/") + path


# Population register (GP §4(4)c, §4(6)) ---------------------------------------------------------
class SandboxPopulationRegister:
    """Answers from ``SandboxPopulationRecord``: matched by birth number, else name + birth date."""

    name = "sandbox"

    def verify(self, identity: IdentitySubject) -> PopulationAnswer:
        identity = as_identity(identity)
        qs = SandboxPopulationRecord.objects.all()
        if identity.birth_number:
            rec = qs.filter(birth_number=identity.birth_number).first()
        else:
            rec = next(
                (
                    r
                    for r in qs.filter(date_of_birth=identity.date_of_birth, birth_number="")
                    if fold(r.surname) == fold(identity.surname)
                ),
                None,
            )
        if rec is None:
            return PopulationAnswer(found=False)
        if rec.simulate_unavailable:
            raise RegisterUnavailable("sandbox: register unavailable for this person")
        mismatches = []
        if fold(rec.given_names) != fold(identity.given_names):
            mismatches.append("given_names")
        if fold(rec.surname) != fold(identity.surname):
            mismatches.append("surname")
        if rec.date_of_birth != identity.date_of_birth:
            mismatches.append("date_of_birth")
        if rec.sex and identity.sex and rec.sex != identity.sex:
            mismatches.append("sex")
        if rec.citizenship and identity.citizenship and rec.citizenship != identity.citizenship:
            mismatches.append("citizenship")
        return PopulationAnswer(
            found=True, mismatches=mismatches, date_of_birth=rec.date_of_birth, resident_in_cz=rec.resident_in_cz
        )


class HttpPopulationRegister:
    """POST {URL}/verify {identity} -> {"found": bool, "mismatches": [...], "date_of_birth": "YYYY-MM-DD",
    "resident_in_cz": bool}. Any transport error or 4xx/5xx is RegisterUnavailable."""

    name = "http"

    def verify(self, identity: IdentitySubject) -> PopulationAnswer:
        data = _post_json(_url("ACCOUNTS_POPULATION_REGISTER_URL", "/verify"), as_identity(identity).to_json())
        try:
            dob = data.get("date_of_birth")
            return PopulationAnswer(
                found=bool(data["found"]),
                mismatches=list(data.get("mismatches") or []),
                date_of_birth=date.fromisoformat(dob) if dob else None,
                resident_in_cz=bool(data.get("resident_in_cz", True)),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise RegisterUnavailable("malformed population register answer") from exc


# Register of excluded persons (ZHH since 2024) ----------------------------------------------------
class SandboxExclusionRegister:
    """Answers from ``SandboxExclusionEntry`` (matched by birth number, else name + birth date)."""

    name = "sandbox"
    PANIC_SOURCE = "panic_button"

    def _entries(self, identity: Identity) -> list[SandboxExclusionEntry]:
        if identity.birth_number:
            return list(SandboxExclusionEntry.objects.filter(birth_number=identity.birth_number))
        return [
            e
            for e in SandboxExclusionEntry.objects.filter(date_of_birth=identity.date_of_birth)
            if fold(e.surname) == fold(identity.surname) and fold(e.given_names) == fold(identity.given_names)
        ]

    def is_listed(self, identity: IdentitySubject) -> bool:
        identity = as_identity(identity)
        entries = self._entries(identity)
        if any(e.outcome == "unavailable" for e in entries):
            raise RegisterUnavailable("sandbox: exclusion register unavailable for this person")
        now = clock.now()
        return any(e.outcome == "listed" and (e.listed_until is None or e.listed_until > now) for e in entries)

    def request_self_listing(self, identity: IdentitySubject, until: datetime | None) -> None:
        identity = as_identity(identity)
        if any(e.outcome == "unavailable" for e in self._entries(identity)):
            raise RegisterUnavailable("sandbox: exclusion register unavailable for this person")
        SandboxExclusionEntry.objects.create(
            birth_number=identity.birth_number,
            given_names=identity.given_names,
            surname=identity.surname,
            date_of_birth=identity.date_of_birth,
            outcome="listed",
            listed_until=until,
            source="self_request",
            created_at=clock.now(),
        )

    def report_panic(
        self, identity: IdentitySubject, *, reference: str, started_at: datetime, ends_at: datetime
    ) -> str:
        """The panic button: the person is listed until ``ends_at`` (48 hours). Acknowledged with the entry's
        reference ``SANDBOX-<id>``. Fails like a real register: an ``unavailable`` entry of the person (staff set
        one in the admin, tests with ``tests.kit.accounts.make_excluded(..., outcome="unavailable")``) raises
        RegisterUnavailable. A repeat of a report (the same person and the same end: a retried or twice delivered
        ``reference``) lists nobody again and is acknowledged with the first entry's reference."""
        identity = as_identity(identity)
        entries = self._entries(identity)
        if any(e.outcome == "unavailable" for e in entries):
            raise RegisterUnavailable("sandbox: exclusion register unavailable for this person")
        entry = next((e for e in entries if e.source == self.PANIC_SOURCE and e.listed_until == ends_at), None)
        if entry is None:
            entry = SandboxExclusionEntry.objects.create(
                birth_number=identity.birth_number,
                given_names=identity.given_names,
                surname=identity.surname,
                date_of_birth=identity.date_of_birth,
                outcome="listed",
                listed_until=ends_at,
                source=self.PANIC_SOURCE,
                created_at=clock.now(),
            )
        logger.info("sandbox exclusion register: panic report", extra={"reference": reference, "entry": entry.pk})
        return f"SANDBOX-{entry.pk}"


class HttpExclusionRegister:
    """POST {URL}/check {identity} -> {"listed": bool}; POST {URL}/self-listing {identity, until} -> 2xx;
    POST {URL}/panic {identity, reference, started_at, ends_at} -> {"reference": ...} (see :meth:`report_panic`)."""

    name = "http"

    def is_listed(self, identity: IdentitySubject) -> bool:
        data = _post_json(_url("ACCOUNTS_EXCLUSION_REGISTER_URL", "/check"), as_identity(identity).to_json())
        if not isinstance(data.get("listed"), bool):
            raise RegisterUnavailable("malformed exclusion register answer")
        return data["listed"]

    def request_self_listing(self, identity: IdentitySubject, until: datetime | None) -> None:
        _post_json(
            _url("ACCOUNTS_EXCLUSION_REGISTER_URL", "/self-listing"),
            {**as_identity(identity).to_json(), "until": until.isoformat() if until else None},
        )

    def report_panic(
        self, identity: IdentitySubject, *, reference: str, started_at: datetime, ends_at: datetime
    ) -> str:
        """POST {URL}/panic {identity, reference, started_at, ends_at} -> {"reference": "<acknowledgement>"}.
        ``reference`` is the operator's idempotency key: the register answers a repeat with the same
        acknowledgement and lists nobody twice. No acknowledgement in the answer is RegisterUnavailable."""
        data = _post_json(
            _url("ACCOUNTS_EXCLUSION_REGISTER_URL", "/panic"),
            {
                **as_identity(identity).to_json(),
                "reference": reference,
                "started_at": started_at.isoformat(),
                "ends_at": ends_at.isoformat(),
            },
        )
        ack = data.get("reference")
        if not isinstance(ack, str) or not ack.strip():
            raise RegisterUnavailable("exclusion register answer without an acknowledgement reference")
        return ack[:100]


# The Ministry of Finance's AISG data interface (both registers in one answer) ---------------------------------
class RegisterReviewNeeded(RegisterUnavailable):
    """AISG could not identify the person in the population register (not found, dead, several persons): staff
    review the case; until then nothing proceeds (the caller fails closed as on an outage)."""


class AisgRegister:
    """The population register and the register of excluded persons through the Ministry's AISG interface
    (``accounts.aisg``). ``check`` is the interface's own answer (the callers that know AISG use it and its
    decision table); ``verify`` and ``is_listed`` give the two registers' views of one ``OveritOsobu`` with reason
    ``Registrace`` for the callers that do not. Interface version 1.0 has no operation for a self-listing request
    or a panic-button report: those two raise RegisterUnavailable (the request stays pending and is retried, the
    platform's own exclusion applies meanwhile) until the Ministry's version of the interface offers one."""

    name = "aisg"

    def check(self, identity: IdentitySubject, *, reason: str, hid: str | None = None) -> Verification:
        try:
            return aisg_client.verify(as_identity(identity), reason=reason, hid=hid)
        except AisgError as exc:
            raise RegisterUnavailable(str(exc)) from exc

    def verify(self, identity: IdentitySubject) -> PopulationAnswer:
        decision = aisg_client.decide(self.check(identity, reason=aisg_types.REGISTRATION))
        if decision.outcome == aisg_client.UNAVAILABLE:
            raise RegisterUnavailable(f"AISG: {decision.reason}")
        if decision.outcome == aisg_client.MANUAL_REVIEW:
            return PopulationAnswer(found=False)
        # not adult per the register: a birth date of today makes the caller refuse it as under 18
        dob = (
            as_identity(identity).date_of_birth
            if decision.outcome != aisg_client.UNDERAGE
            else clock.business_date(clock.now())
        )
        return PopulationAnswer(found=True, date_of_birth=dob)

    def is_listed(self, identity: IdentitySubject) -> bool:
        answer = self.check(identity, reason=aisg_types.REGISTRATION)
        if answer.rvo == aisg_types.RVO_LISTED:
            return True
        if answer.rvo != aisg_types.RVO_NOT_LISTED:
            raise RegisterUnavailable(f"AISG: NalezenaRVO={answer.rvo}")
        return False

    def request_self_listing(self, identity: IdentitySubject, until: datetime | None) -> None:
        raise RegisterUnavailable("AISG interface version 1.0 has no operation for a self-listing request")

    def report_panic(
        self, identity: IdentitySubject, *, reference: str, started_at: datetime, ends_at: datetime
    ) -> str:
        raise RegisterUnavailable("AISG interface version 1.0 has no operation for a panic-button report")


# SMS gateway ------------------------------------------------------------------------------------
class SandboxSmsGateway:
    """Stores each message in ``SandboxSms`` (and logs it) instead of sending it."""

    name = "sandbox"

    def send(self, *, to: str, text: str, purpose: str = "") -> None:
        SandboxSms.objects.create(to=to, text=text, purpose=purpose, sent_at=clock.now())
        logger.info("sandbox sms", extra={"to": to, "purpose": purpose})


class HttpSmsGateway:
    """POST {URL}/send {"to", "text"} -> 2xx."""

    name = "http"

    def send(self, *, to: str, text: str, purpose: str = "") -> None:
        try:
            _post_json(_url("ACCOUNTS_SMS_GATEWAY_URL", "/send"), {"to": to, "text": text})
        except RegisterUnavailable as exc:
            raise GatewayError(str(exc)) from exc


class PopulationRegister(Protocol):
    name: str

    def verify(self, identity: IdentitySubject) -> PopulationAnswer: ...


class ExclusionRegister(Protocol):
    name: str

    def is_listed(self, identity: IdentitySubject) -> bool: ...

    def request_self_listing(self, identity: IdentitySubject, until: datetime | None) -> None: ...

    def report_panic(
        self, identity: IdentitySubject, *, reference: str, started_at: datetime, ends_at: datetime
    ) -> str:
        """List the person for the panic button's 48 hours; returns the register's acknowledgement reference.
        Idempotent on ``reference``; raises RegisterUnavailable when the register does not acknowledge."""
        ...


class SmsGateway(Protocol):
    name: str

    def send(self, *, to: str, text: str, purpose: str = "") -> None: ...


def _kind(setting: str, allowed: tuple[str, ...] = ("sandbox", "http")) -> str:
    """Which implementation the setting chooses."""
    kind = str(getattr(settings, setting))
    if kind not in allowed:
        raise ValueError(f"{setting} must be one of {', '.join(allowed)}, not {kind!r}")
    return kind


def _http(setting: str) -> bool:
    return _kind(setting) == "http"


REGISTER_KINDS = ("sandbox", "http", "aisg")


def uses_aisg() -> bool:
    """Both registers are the AISG interface (one answer for both; the callers apply its decision table). One
    without the other is a configuration error: the interface answers both questions at once."""
    population = _kind("ACCOUNTS_POPULATION_REGISTER", REGISTER_KINDS)
    exclusion = _kind("ACCOUNTS_EXCLUSION_REGISTER", REGISTER_KINDS)
    if (population == "aisg") != (exclusion == "aisg"):
        raise ValueError("ACCOUNTS_POPULATION_REGISTER and ACCOUNTS_EXCLUSION_REGISTER: aisg for both or neither")
    return population == "aisg"


def get_aisg_register() -> AisgRegister:
    return AisgRegister()


def get_population_register() -> PopulationRegister:
    kind = _kind("ACCOUNTS_POPULATION_REGISTER", REGISTER_KINDS)
    if kind == "aisg":
        return AisgRegister()
    if kind == "http":
        return HttpPopulationRegister()
    return SandboxPopulationRegister()


def get_exclusion_register() -> ExclusionRegister:
    """``.is_listed(identity) -> bool`` (raises RegisterUnavailable), ``.request_self_listing(identity, until)``."""
    kind = _kind("ACCOUNTS_EXCLUSION_REGISTER", REGISTER_KINDS)
    if kind == "aisg":
        return AisgRegister()
    if kind == "http":
        return HttpExclusionRegister()
    return SandboxExclusionRegister()


def get_sms_gateway() -> SmsGateway:
    if _http("ACCOUNTS_SMS_GATEWAY"):
        return HttpSmsGateway()
    return SandboxSmsGateway()
