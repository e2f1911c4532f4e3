"""Imported screening lists and PEP claims (docs/aml.md, "Lists").

* :func:`screening_list_import`: one list file (EU, UN, Czech national sanctions list, the operator's PEP list)
  becomes a new :class:`ScreeningListVersion` with its entries, once per file (source + SHA-256: the same file
  again changes nothing); a new version re-screens every live player in the background
  (:func:`screening_rescreen`, the task ``aml.screening_rescreen``).
* :func:`pep_claim_record`: another identification source (Bank iD's verified claims) says whether the player is
  a politically exposed person; a "yes" opens a blocking case.
"""

from __future__ import annotations

import hashlib
import time
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from accounts.models import Player
from aml import errors, jobs
from aml.list_parsers import LIST_KIND, PARSERS, PERSON, ListFormatError
from aml.models import ComplianceCase, PepClaim, PepDeclaration, ScreeningListEntry, ScreeningListVersion
from aml.services.cases import case_open
from aml.services.screening import screening_due
from core import clock
from core.audit import Actor, audit_record

_IMPORT_LOCK = 0x616D6C6C  # pg_advisory_xact_lock key space of list imports ("amll"), plus the source's position
SOURCES = tuple(PARSERS)


def screening_list_import(
    *, source: str, data: bytes, actor: Actor, file_name: str = "", published_at: datetime | None = None
) -> tuple[ScreeningListVersion, bool]:
    """Import one list file as a new version of ``source`` (``eu``, ``un``, ``cz``, ``pep``); returns the version
    and whether it is new. The same file again (same source and SHA-256) returns the version it became, and
    nothing changes. The publication time is the file's own (``published_at`` is used only for a file that
    states none: the PEP CSV; default now). Refused: an unknown source (``aml.list_source_unknown``), a file over
    ``AML_SCREENING_LIST_MAX_BYTES`` (``aml.list_too_large``), a file not of the source's format
    (``aml.list_invalid``), one without entries (``aml.list_empty``), one published before the newest version
    of the source (``aml.list_outdated``). A new version is audited and re-screens every live player after
    commit."""
    if source not in PARSERS:
        raise errors.LIST_SOURCE_UNKNOWN(source=str(source)[:20], allowed=list(SOURCES))
    max_bytes = settings.AML_SCREENING_LIST_MAX_BYTES
    if len(data) > max_bytes:
        raise errors.LIST_TOO_LARGE(max_bytes=max_bytes, size=len(data))
    digest = hashlib.sha256(data).hexdigest()
    existing = ScreeningListVersion.objects.filter(source=source, sha256=digest).first()
    if existing is not None:
        if existing.withdrawn_at is not None:
            raise errors.LIST_WITHDRAWN(reason=existing.withdrawn_reason, version=existing.pk)
        return existing, False
    try:
        parsed = PARSERS[source](data)
    except ListFormatError as exc:
        raise errors.LIST_INVALID(reason=str(exc)[:300], source=source) from None
    if not parsed.entries:
        raise errors.LIST_EMPTY(source=source)
    published = parsed.published_at or published_at or clock.now()
    latest = clock.now() + timedelta(minutes=settings.AML_LIST_CLOCK_SKEW_MINUTES)
    if published > latest:  # a future date would make every genuine list of the source "outdated"
        raise errors.LIST_INVALID(
            reason=f"the publication time {published.isoformat()} lies in the future", source=source
        )
    rows: list[dict[str, Any]] = []
    names_total = persons = 0
    for e in parsed.entries:
        names, normalised = e.matching_names()
        if not names:
            continue
        if e.subject_type == PERSON:
            persons += 1
            names_total += len(names)
        rows.append(
            {
                "source": source,
                "list_kind": LIST_KIND[source],
                "reference": e.reference,
                "subject_type": e.subject_type,
                "programme": e.programme,
                "name": names[0],
                "names": names,
                "match_names": normalised,
                "birth_dates": e.birth_dates,
                "citizenships": e.citizenships,
                "details": e.details,
                "fingerprint": e.fingerprint(),
            }
        )
    if not rows:
        raise errors.LIST_EMPTY(source=source)
    with transaction.atomic():
        with connection.cursor() as cursor:  # one import of a source at a time (the version order is the import order)
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_IMPORT_LOCK, SOURCES.index(source)])
        existing = ScreeningListVersion.objects.filter(source=source, sha256=digest).first()
        if existing is not None:  # imported by a concurrent call meanwhile
            return existing, False
        current = ScreeningListVersion.objects.filter(source=source, withdrawn_at__isnull=True).order_by("-id").first()
        if current is not None and current.published_at is not None and published < current.published_at:
            raise errors.LIST_OUTDATED(
                published_at=published.isoformat(),
                current_published_at=current.published_at.isoformat(),
                current_version=current.pk,
            )
        version = ScreeningListVersion.objects.create(
            source=source,
            published_at=published,
            sha256=digest,
            file_name=(file_name or "")[:200],
            size=len(data),
            entry_count=len(rows),
            person_count=persons,
            name_count=names_total,
            imported_at=clock.now(),
            imported_by=actor.label[:150],
        )
        ScreeningListEntry.objects.bulk_create(
            [ScreeningListEntry(version=version, **r) for r in rows], batch_size=1000
        )
        audit_record(
            actor=actor,
            action="aml.screening_list_imported",
            obj=version,
            source=source,
            sha256=digest,
            published_at=published,
            entries=len(rows),
            persons=persons,
            names=names_total,
            file_name=version.file_name,
            replaces=None if current is None else current.pk,
        )
        jobs.screening_rescreen()
    return version, True


def screening_list_withdraw(*, version: ScreeningListVersion, actor: Actor, reason: str) -> ScreeningListVersion:
    """Compliance withdraws a wrongly imported version (a file of the wrong list, a typo in its date): it is no
    longer screened against nor the newest version of its source (the previous version is again, and a genuine
    file older than the withdrawn one imports). Audited (``aml.screening_list_withdrawn``, with the reason); every
    live player is screened again after commit. A withdrawn file is not imported again (``aml.list_withdrawn``)."""
    reason = " ".join((reason or "").split())[:300]
    if not reason:
        raise errors.LIST_INVALID(reason="a withdrawal needs its reason", source=version.source)
    with transaction.atomic():
        row = ScreeningListVersion.objects.select_for_update(no_key=True).get(pk=version.pk)
        if row.withdrawn_at is not None:
            raise errors.LIST_WITHDRAWN(reason=row.withdrawn_reason, version=row.pk)
        row.withdrawn_at, row.withdrawn_by, row.withdrawn_reason = clock.now(), actor.label[:150], reason
        row.save(update_fields=["withdrawn_at", "withdrawn_by", "withdrawn_reason"])
        now_current = (
            ScreeningListVersion.objects.filter(source=row.source, withdrawn_at__isnull=True)
            .order_by("-id")
            .values_list("pk", flat=True)
            .first()
        )
        audit_record(
            actor=actor,
            action="aml.screening_list_withdrawn",
            obj=row,
            source=row.source,
            sha256=row.sha256,
            published_at=row.published_at,
            reason=reason,
            current=now_current,
        )
        jobs.screening_rescreen()
    return row


def screening_rescreen(*, batch: int | None = None, seconds: float | None = None) -> dict[str, Any]:
    """Screen the players due, batch after batch (``screening_due``: after a new list version every live player
    is due), until none is left or ``seconds`` (``AML_SCREENING_RESCREEN_SECONDS``) have passed; ``more`` says
    whether the time ran out first (the task then enqueues itself again). Each batch is claimed with a lease, so
    two of these running at once screen nobody twice, and a run after the last changes nothing."""
    batch = batch or settings.AML_SCREENING_RESCREEN_BATCH
    budget = float(settings.AML_SCREENING_RESCREEN_SECONDS if seconds is None else seconds)
    started = time.monotonic()
    totals: dict[str, Any] = {"claimed": 0, "batches": 0}
    while True:
        out = screening_due(batch=batch)
        if not out["claimed"]:
            totals["more"] = False
            return totals
        totals["batches"] += 1
        for k, v in out.items():
            totals[k] = totals.get(k, 0) + v
        if time.monotonic() - started >= budget:
            totals["more"] = True
            return totals


def pep_claim_record(*, player: Player, is_pep: bool, source: str, actor: Actor) -> PepClaim:
    """Record what an identification source other than the player (``source``, e.g. ``bankid``) says about the
    player being a politically exposed person (append-only, audited ``aml.pep_claim_recorded``). ``is_pep``
    opens one blocking case (``pep_claimed``) per player and source, whatever the player declared (the case says
    what that was); staff decide it like a declared PEP. A "no" is recorded and changes nothing else (the player's
    own declaration is still required)."""
    source = (source or "").strip()[:40]
    if not source:
        raise errors.PEP_CLAIM_INVALID()
    with transaction.atomic():
        claim = PepClaim.objects.create(
            player=player, source=source, is_pep=bool(is_pep), recorded_at=clock.now(), recorded_by=actor.label[:150]
        )
        audit_record(
            actor=actor,
            action="aml.pep_claim_recorded",
            obj=claim,
            player_id=player.pk,
            source=source,
            is_pep=claim.is_pep,
        )
        if claim.is_pep:
            declared = PepDeclaration.objects.filter(player=player).order_by("-declared_at", "-id").first()
            relation = "no declaration yet" if declared is None else declared.relation
            case_open(
                player_id=player.pk,
                kind=ComplianceCase.Kind.PEP_CLAIMED,
                key=f"pep_claim:{player.pk}:{source}",
                summary=f"{source} says the player is a politically exposed person (declared: {relation})",
                blocking=True,
                actor=actor,
                anchor=f"pep_claim:{claim.pk}",
                details={
                    "claim_id": claim.pk,
                    "source": source,
                    "declared_relation": None if declared is None else declared.relation,
                    "declaration_id": None if declared is None else declared.pk,
                },
            )
        return claim
