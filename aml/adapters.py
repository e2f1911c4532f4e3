"""The outside world of the AML duties: identification providers and PEP / sanctions lists.

Identification provider (GP §4(4)b): the applicant's document particulars, the images of the document (front,
back) and a selfie (or a liveness reference) are submitted under our reference; the provider checks the document
and the likeness and answers later by a signed callback (HMAC-SHA256 over the raw body with a shared secret,
header ``X-Signature: sha256=<hex>``, as the payment providers of ``wallet/adapters.py``): outcome ``approved``,
``doubtful`` or ``rejected``, a likeness score 0-100, what it read off the document, and reasons. Callbacks may
come twice, late or forged: the services handle each event id once and refuse a bad signature. A submission the
provider cannot take (:class:`ProviderUnavailable`) is retried with back-off.

The sandbox provider behaves like that. Its outcome is chosen by a marker at the end of the document number
(``...DBT`` doubtful, ``...REJ`` rejected, ``...MIS`` approved but with a different name read off the document,
``...ERR`` submission refused as if the provider were down) unless ``AML_SANDBOX_IDENT_OUTCOME`` forces one;
``AML_SANDBOX_UNAVAILABLE`` makes it refuse every submission. Its callbacks leave through an *outbox* the caller
passes in (the services send them by a Celery task after commit), so this module imports no service and no task.

Screening list: ``search(subject)`` returns the entries matching a person by name and birth date; ``version()``
changes when the list does (everyone is screened again). Two lists are registered in ``_LISTS``:

* ``imported`` (:class:`ImportedScreeningList`, production's): the newest imported version of each source (EU,
  UN, Czech national sanctions lists and the operator's PEP list, ``aml.services.lists``), searched by the fuzzy
  matching of ``aml.matching`` (transliteration, word order, aliases, a score against
  ``AML_SCREENING_MATCH_THRESHOLD``, birth date as a discriminator); unavailable until every source of
  ``AML_SCREENING_REQUIRED_SOURCES`` has been imported.
* ``sandbox`` (development): the JSON file ``AML_SCREENING_SANDBOX_FILE`` (``aml/data/sandbox_screening_list.json``),
  exact normalised names (case, accents, word order ignored) and birth date.

A real provider or list implements the Protocol and is registered in ``_PROVIDERS`` / ``_LISTS``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from django.conf import settings

from accounts.validation import fold
from aml import errors
from aml.matching import IndexedEntry, NameIndex
from aml.matching import birth_date_matches as birth_date_matches
from aml.models import ScreeningListEntry, ScreeningListVersion
from core import clock
from core.parsers import contains_nul, loads_bounded

SIGNATURE_HEADER = "X-Signature"
OUTCOMES = ("approved", "doubtful", "rejected")
EVENT_TYPES = ("identification.completed",)
SIDES = ("front", "back", "selfie")

# Where a provider's own callbacks go: ``outbox(raw_body, signature)``.
Outbox = Callable[[bytes, str], None]


class ProviderUnavailable(Exception):
    """The provider did not take the submission (network, 5xx, maintenance): retry later."""


class ListUnavailable(Exception):
    """The screening list could not be searched: the screening is recorded as unavailable and retried."""


@dataclass(frozen=True)
class Submission:
    reference: str
    document: dict[str, Any]  # document_type, document_number, document_issuing_state, _authority, _valid_until
    subject: dict[str, Any]  # given_names, surname, date_of_birth (the applicant's own data, for comparison)
    images: dict[str, bytes]  # side -> bytes (back may be missing for a passport)


@dataclass(frozen=True)
class SubmitResult:
    provider_check_id: str


@dataclass(frozen=True)
class IdentificationResult:
    event_id: str
    type: str
    reference: str
    provider_check_id: str
    outcome: str
    score: int
    extracted: dict[str, Any] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    occurred_at: str = ""

    def material(self) -> tuple[Any, ...]:
        """What a callback says (a retry may carry another delivery time, never another content)."""
        return (
            self.type,
            self.reference,
            self.provider_check_id,
            self.outcome,
            self.score,
            json.dumps(self.extracted, sort_keys=True),
            self.reasons,
        )


def hmac_signature(secret: str, raw_body: bytes) -> str:
    return "sha256=" + hmac.new(secret.encode(), raw_body, hashlib.sha256).hexdigest()


class IdentificationProvider(Protocol):
    code: str

    def secret(self) -> str: ...

    def submit(self, submission: Submission) -> SubmitResult:
        """Hand the check to the provider (raises :class:`ProviderUnavailable`); the answer comes by callback."""
        ...

    def verify_signature(self, raw_body: bytes, signature: str) -> bool: ...

    def parse_callback(self, raw_body: bytes) -> IdentificationResult: ...


class SignedJsonCallbacks:
    """Signature check and parsing of the callback format every provider adapter here speaks."""

    def secret(self) -> str:
        raise NotImplementedError

    def verify_signature(self, raw_body: bytes, signature: str) -> bool:
        expected = hmac_signature(self.secret(), raw_body)
        return bool(signature) and hmac.compare_digest(expected, signature.strip())

    def parse_callback(self, raw_body: bytes) -> IdentificationResult:
        try:
            data = loads_bounded(raw_body.decode("utf-8"))  # too deep: JsonTooDeep, a ValueError (N-6)
            if not isinstance(data, dict):
                raise TypeError("not an object")
            if contains_nul(data):  # nothing with a NUL can be stored (PostgreSQL): malformed, never a 500
                raise ValueError("NUL character")
            reasons = data.get("reasons") or []
            extracted = data.get("extracted") or {}
            if not isinstance(reasons, list) or not isinstance(extracted, dict):
                raise TypeError("reasons must be a list, extracted an object")
            event = IdentificationResult(
                event_id=str(data["event_id"]),
                type=str(data["type"]),
                reference=str(data["reference"]),
                provider_check_id=str(data.get("check_id", "")),
                outcome=str(data["outcome"]),
                score=int(data["score"]),
                extracted={str(k): str(v) for k, v in extracted.items()},
                reasons=tuple(str(r)[:100] for r in reasons[:20]),
                occurred_at=str(data.get("occurred_at", "")),
            )
        except (ValueError, KeyError, TypeError, UnicodeDecodeError):
            raise errors.BAD_CALLBACK(reason="malformed body")
        if (
            event.type not in EVENT_TYPES
            or event.outcome not in OUTCOMES
            or not event.event_id
            or len(event.event_id) > 120
            or not 0 <= event.score <= 100
            or len(event.reference) > 64
        ):
            raise errors.BAD_CALLBACK(reason="unknown type or outcome, or bad fields")
        return event


class SandboxIdentificationProvider(SignedJsonCallbacks):
    """An identification provider for development and tests: signs like a real one, answers by marker."""

    code = "sandbox"

    def __init__(self, *, outbox: Outbox | None = None) -> None:
        self.outbox = outbox

    def secret(self) -> str:
        secret: str = settings.AML_SANDBOX_SECRET
        return secret

    def submit(self, submission: Submission) -> SubmitResult:
        number = str(submission.document.get("document_number", ""))
        if settings.AML_SANDBOX_UNAVAILABLE or number.endswith("ERR"):
            raise ProviderUnavailable("sandbox identification provider unavailable")
        check_id = "sbxid_" + hashlib.sha256(submission.reference.encode()).hexdigest()[:20]  # same ref, same check
        if self.outbox is None:  # the answer could not be sent: refuse to pretend it will come
            raise RuntimeError("the sandbox identification provider needs an outbox to send its answer")
        outcome, score, reasons = self._decide(number, submission)
        extracted = {
            "given_names": str(submission.subject.get("given_names", "")),
            "surname": str(submission.subject.get("surname", "")),
            "date_of_birth": str(submission.subject.get("date_of_birth", "")),
            "document_type": str(submission.document.get("document_type", "")),
            "document_number": number,
        }
        if number.endswith("MIS"):
            extracted["surname"] = extracted["surname"] + "ová" if extracted["surname"] else "Jiná"
        self.outbox(*self.event(submission.reference, check_id, outcome, score, extracted, reasons))
        return SubmitResult(check_id)

    @staticmethod
    def _decide(number: str, submission: Submission) -> tuple[str, int, list[str]]:
        forced: str = settings.AML_SANDBOX_IDENT_OUTCOME
        outcome = (
            forced
            if forced in OUTCOMES
            else ("doubtful" if number.endswith("DBT") else "rejected" if number.endswith("REJ") else "approved")
        )
        if outcome == "approved" and "selfie" not in submission.images:
            outcome = "rejected"
        score = {"approved": 93, "doubtful": 61, "rejected": 12}[outcome]
        reasons = {"approved": [], "doubtful": ["likeness_uncertain"], "rejected": ["document_not_authentic"]}[outcome]
        return outcome, score, reasons

    def event(
        self,
        reference: str,
        check_id: str,
        outcome: str,
        score: int,
        extracted: dict[str, Any],
        reasons: list[str],
        event_id: str | None = None,
    ) -> tuple[bytes, str]:
        """The sandbox's "server side": a correctly signed callback (body, signature)."""
        body = json.dumps(
            {
                "event_id": event_id or f"idevt_{uuid.uuid4().hex}",
                "type": "identification.completed",
                "reference": reference,
                "check_id": check_id,
                "outcome": outcome,
                "score": score,
                "extracted": extracted,
                "reasons": reasons,
                "occurred_at": clock.now().isoformat(),
            },
            sort_keys=True,
        ).encode()
        return body, hmac_signature(self.secret(), body)


_PROVIDERS: dict[str, type[SandboxIdentificationProvider]] = {"sandbox": SandboxIdentificationProvider}


def get_identification_provider(code: str | None = None, *, outbox: Outbox | None = None) -> IdentificationProvider:
    """The provider ``code`` (default ``AML_IDENTIFICATION_PROVIDER``); ``aml.unknown_provider`` /
    ``aml.sandbox_disabled`` when it may not be used."""
    code = code or settings.AML_IDENTIFICATION_PROVIDER
    cls = _PROVIDERS.get(code)
    if cls is None:
        raise errors.UNKNOWN_PROVIDER(provider=code)
    if code == "sandbox" and not settings.AML_SANDBOX_ENABLED:
        raise errors.SANDBOX_DISABLED()
    return cls(outbox=outbox)


def sandbox_identification_event(
    reference: str,
    outcome: str,
    *,
    score: int = 90,
    check_id: str = "",
    extracted: dict[str, Any] | None = None,
    reasons: list[str] | None = None,
    event_id: str | None = None,
) -> tuple[bytes, str]:
    """A correctly signed sandbox callback (body, signature), e.g. for tests and the admin."""
    return SandboxIdentificationProvider().event(
        reference, check_id, outcome, score, extracted or {}, reasons or [], event_id=event_id
    )


# Screening lists ----------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScreeningSubject:
    given_names: str
    surname: str
    date_of_birth: date
    citizenship: str = ""


@dataclass(frozen=True)
class ScreeningMatch:
    """A list entry the person matched: which entry (``entry_id`` is stable across versions of a list), how well
    (``score`` 0-100) and by which of its names (``matched_name``)."""

    entry_id: str
    list_name: str  # "sanctions" | "pep"
    name: str
    date_of_birth: str
    note: str = ""
    score: float = 100.0
    matched_name: str = ""
    source: str = ""
    reference: str = ""
    programme: str = ""
    list_version_id: int | None = None
    list_entry_id: int | None = None
    fingerprint: str = ""  # of the entry's names and birth dates: a changed entry is a new match

    def to_json(self) -> dict[str, Any]:
        return {
            "entry_id": self.entry_id,
            "list": self.list_name,
            "name": self.name,
            "date_of_birth": self.date_of_birth,
            "note": self.note,
            "score": self.score,
            "matched_name": self.matched_name or self.name,
            "source": self.source,
            "reference": self.reference,
            "programme": self.programme,
            "list_version_id": self.list_version_id,
            "list_entry_id": self.list_entry_id,
            "fingerprint": self.fingerprint,
        }


class ScreeningList(Protocol):
    code: str

    def version(self) -> str:
        """Changes whenever the list changes (raises :class:`ListUnavailable`)."""
        ...

    def search(self, subject: ScreeningSubject) -> list[ScreeningMatch]:
        """Entries matching the person (raises :class:`ListUnavailable`)."""
        ...


def name_key(text: str) -> tuple[str, ...]:
    """A name for matching: case, accents, punctuation and word order ignored ("Nováková Jana" = "jana novakova")."""
    cleaned = "".join(c if c.isalnum() else " " for c in fold(text))
    return tuple(sorted(cleaned.split()))


class SandboxScreeningList:
    """The development list: a JSON file ``{"version": ..., "entries": [{"id", "list", "names": [...],
    "date_of_birth", "note"}]}``; a person matches an entry when one of its names equals the person's given
    names + surname (normalised, :func:`name_key`) and the birth date matches (:func:`birth_date_matches`)."""

    code = "sandbox"

    def _load(self) -> dict[str, Any]:
        if not settings.AML_SANDBOX_ENABLED:
            raise ListUnavailable("the sandbox screening list is not enabled (AML_SANDBOX_ENABLED)")
        try:
            data = json.loads(settings.AML_SCREENING_SANDBOX_FILE.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ListUnavailable(f"sandbox list unreadable: {exc}") from None
        if not isinstance(data, dict) or not isinstance(data.get("entries"), list):
            raise ListUnavailable("sandbox list malformed")
        return data

    def version(self) -> str:
        return str(self._load().get("version", ""))

    def search(self, subject: ScreeningSubject) -> list[ScreeningMatch]:
        wanted = name_key(f"{subject.given_names} {subject.surname}")
        out = []
        for entry in self._load()["entries"]:
            names = entry.get("names") or []
            matched = next((str(n) for n in names if name_key(str(n)) == wanted), None)
            if matched is not None and birth_date_matches(str(entry.get("date_of_birth", "")), subject.date_of_birth):
                out.append(
                    ScreeningMatch(
                        entry_id=str(entry.get("id", "")),
                        list_name=str(entry.get("list", "")),
                        name=str(names[0]),
                        date_of_birth=str(entry.get("date_of_birth", "")),
                        note=str(entry.get("note", ""))[:200],
                        matched_name=matched,
                        source="sandbox",
                        reference=str(entry.get("id", "")),
                    )
                )
        return out


class ImportedScreeningList:
    """The imported lists (production's list): the newest version of each source, all searched at once.

    ``version()`` names those versions (``eu12.pep3.un7``...): a new import changes it, so everyone is screened
    again. The persons of those versions are held in memory as a :class:`aml.matching.NameIndex`, built once per
    process and version. One instance answers for one set of versions (the first ``version()`` or ``search()``
    fixes them), so a screening records the version it was searched against."""

    code = "imported"

    def __init__(self) -> None:
        self._current: tuple[str, tuple[int, ...]] | None = None

    def _versions(self) -> tuple[str, tuple[int, ...]]:
        if self._current is None:
            rows = dict(
                ScreeningListVersion.objects.filter(withdrawn_at__isnull=True)
                .order_by("source", "-id")
                .distinct("source")
                .values_list("source", "id")
            )
            missing = [s for s in settings.AML_SCREENING_REQUIRED_SOURCES if s not in rows]
            if missing:
                raise ListUnavailable(
                    f"no imported version of the list(s) {', '.join(missing)} (AML_SCREENING_REQUIRED_SOURCES)"
                )
            if not rows:
                raise ListUnavailable("no screening list has been imported")
            key = ".".join(f"{s}{rows[s]}" for s in sorted(rows))
            self._current = (key, tuple(sorted(rows.values())))
        return self._current

    def version(self) -> str:
        return self._versions()[0]

    def search(self, subject: ScreeningSubject) -> list[ScreeningMatch]:
        key, version_ids = self._versions()
        index = imported_index(key, version_ids)
        threshold = float(settings.AML_SCREENING_MATCH_THRESHOLD)
        out = []
        for hit in index.search(f"{subject.given_names} {subject.surname}", subject.date_of_birth, threshold):
            e = hit.entry
            out.append(
                ScreeningMatch(
                    entry_id=f"{e.source}:{e.reference}",
                    list_name=e.list_kind,
                    name=e.name,
                    date_of_birth=", ".join(e.birth_dates),
                    note=str(e.details.get("position") or e.programme)[:200],
                    score=hit.score,
                    matched_name=hit.matched_name,
                    source=e.source,
                    reference=e.reference,
                    programme=e.programme,
                    list_version_id=e.version_id,
                    list_entry_id=e.pk,
                    fingerprint=e.fingerprint,
                )
            )
        return out


_INDEX: dict[str, NameIndex] = {}
_INDEX_LOCK = threading.Lock()


def imported_index(key: str, version_ids: tuple[int, ...]) -> NameIndex:
    """The in-memory index of the persons of these list versions (built on first use; the newest kept)."""
    index = _INDEX.get(key)
    if index is not None:
        return index
    with _INDEX_LOCK:
        index = _INDEX.get(key)
        if index is None:
            rows = ScreeningListEntry.objects.filter(
                version_id__in=version_ids, subject_type=ScreeningListEntry.SubjectType.PERSON
            ).values_list(
                "pk",
                "source",
                "reference",
                "list_kind",
                "programme",
                "name",
                "names",
                "match_names",
                "birth_dates",
                "fingerprint",
                "version_id",
                "details",
            )
            index = NameIndex(
                IndexedEntry(
                    pk=r[0],
                    source=r[1],
                    reference=r[2],
                    list_kind=r[3],
                    programme=r[4],
                    name=r[5],
                    names=tuple(r[6]),
                    match_names=tuple(r[7]),
                    birth_dates=tuple(r[8]),
                    fingerprint=r[9],
                    version_id=r[10],
                    details={"position": (r[11] or {}).get("position", "")},
                )
                for r in rows.iterator(chunk_size=2000)
            )
            _INDEX.clear()
            _INDEX[key] = index
    return index


_LISTS: dict[str, type[SandboxScreeningList] | type[ImportedScreeningList]] = {
    "sandbox": SandboxScreeningList,
    "imported": ImportedScreeningList,
}


def get_screening_list() -> ScreeningList:
    """The list ``AML_SCREENING_LIST``: ``imported`` (production) or ``sandbox`` (development);
    ``aml.unknown_provider`` when no adapter has that name."""
    code = settings.AML_SCREENING_LIST
    cls = _LISTS.get(code)
    if cls is None:
        raise errors.UNKNOWN_PROVIDER(provider=code)
    return cls()
