"""Online AML identification (GP §4(4)b): the applicant shows the identity document and the identifier checks
the likeness.

``identification_start`` stores the document's particulars and images (JPEG/PNG by content, at most
``AML_IDENTIFICATION_IMAGE_MAX_BYTES``); a task submits them to the identification provider after commit
(``identification_submit_one``: claimed with a lease, the provider called outside any transaction, failures
retried with back-off and given up after ``AML_IDENTIFICATION_SUBMIT_MAX_ATTEMPTS``). The provider answers by a
signed callback
(``identification_callback_handle``: each event once, a bad signature refused): approved -> the player is
AML-identified; doubtful (or approved with a score below ``AML_IDENTIFICATION_MIN_SCORE``, or with data read off the
document that differ from the player's) -> staff review (``identification_review``); rejected -> the player may
try again. A population-register match alone does not identify (it leaves the account temporary).
"""

from __future__ import annotations

import hashlib
import logging
import urllib.request
import uuid
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import IntegrityError, transaction

from accounts.models import PersonalData, Player
from accounts.selectors import identity_for
from accounts.services import player_lock
from accounts.validation import fold, validate_document
from aml import adapters, errors, jobs
from aml.models import AmlProfile, IdentificationCheck, IdentificationEvent, IdentificationImage
from aml.selectors import IdentificationAttempts, identification_attempts
from aml.services.seams import player_aml_identified_record
from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError
from core.parsers import loads_bounded

logger = logging.getLogger("aml.identification")

Status = IdentificationCheck.Status
START_STATUSES = (Player.Status.TEMPORARY, Player.Status.ACTIVE)
STORED_BODY_CHARS = 20000
_MAGIC = ((b"\xff\xd8\xff", "image/jpeg", ".jpg"), (b"\x89PNG\r\n\x1a\n", "image/png", ".png"))


def sniff_image(head: bytes) -> tuple[str, str] | None:
    """JPEG or PNG by content (magic bytes, not the declared type), as wallet documents are checked."""
    for magic, ctype, ext in _MAGIC:
        if head.startswith(magic):
            return ctype, ext
    return None


def image_check(side: str, content: bytes) -> tuple[str, str]:
    max_bytes = settings.AML_IDENTIFICATION_IMAGE_MAX_BYTES
    if len(content) > max_bytes:
        raise errors.IMAGE_TOO_LARGE(side=side, max_bytes=max_bytes, size=len(content))
    if not content:
        raise errors.IMAGE_MISSING(side=side)
    sniffed = sniff_image(content[:16])
    if sniffed is None:
        raise errors.IMAGE_TYPE(side=side, allowed=["image/jpeg", "image/png"])
    return sniffed


DOCUMENT_FIELDS = (
    "document_type",
    "document_number",
    "document_issuing_state",
    "document_issuing_authority",
    "document_valid_until",
    "id_card_unavailable",
)


def _document(document: dict[str, Any], citizenship: str) -> dict[str, Any]:
    """The document's particulars, validated as accounts validates them (valid today, the document a person of
    this citizenship may show, GP §2 point 9)."""
    try:
        clean = validate_document(document, today=clock.business_date(), citizenship=citizenship)
    except DomainError as exc:  # accounts' validator names the fields; the refusal is ours
        raise errors.INVALID_DOCUMENT(fields=exc.details.get("fields", {}))
    return {f: clean[f] for f in DOCUMENT_FIELDS if f in clean}


def identification_start(
    *, player: Player, document: dict[str, Any], images: dict[str, bytes], actor: Actor
) -> IdentificationCheck:
    """The applicant presents the identity document (front, back unless a passport) and a selfie (GP §4(4)b).

    Refuses an account that is not temporary/active (``aml.identification_not_allowed``), an identified player
    (``aml.already_identified``), a check still open (``aml.identification_in_progress``), a player who used up the
    attempts (``AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY`` within 24 hours: ``aml.identification_attempts_exhausted``
    until staff allow new ones, :func:`identification_attempts_allow`), an invalid or expired document
    (``aml.invalid_document``) and missing / non-image / too large images."""
    citizenship = PersonalData.objects.filter(player=player).values_list("citizenship", flat=True).first()
    if citizenship is None:
        raise errors.NO_PERSONAL_DATA()
    doc = _document(document, citizenship)
    needed = ["front", "selfie"] + ([] if doc["document_type"] == "passport" else ["back"])
    for side in needed:
        if not images.get(side):
            raise errors.IMAGE_MISSING(side=side)
    checked = {
        side: image_check(side, content) for side, content in images.items() if side in adapters.SIDES and content
    }
    provider = settings.AML_IDENTIFICATION_PROVIDER
    adapters.get_identification_provider(provider)  # refuses an unknown or disabled provider before storing
    with transaction.atomic():
        p = player_lock(player)
        if p.status not in START_STATUSES:
            raise errors.IDENTIFICATION_NOT_ALLOWED(account_status=p.status)
        if p.aml_identified_at is not None:
            raise errors.ALREADY_IDENTIFIED()
        if IdentificationCheck.objects.filter(player=p, status__in=IdentificationCheck.OPEN).exists():
            raise errors.IDENTIFICATION_IN_PROGRESS()
        now = clock.now()
        attempts = identification_attempts(p, now)
        if attempts.blocked:
            raise errors.IDENTIFICATION_ATTEMPTS_EXHAUSTED(
                max_attempts=attempts.max_per_day, used_last_24h=attempts.used_last_24h
            )
        check = IdentificationCheck.objects.create(
            player=p, provider=provider, reference=f"idc_{uuid.uuid4().hex}", created_at=now, next_attempt_at=now, **doc
        )
        for side, (ctype, ext) in checked.items():
            content = images[side]
            digest = hashlib.sha256(content).hexdigest()
            img = IdentificationImage(
                identification=check, side=side, content_type=ctype, size=len(content), sha256=digest
            )
            img.file.save(f"{check.reference}-{side}{ext}", ContentFile(content), save=False)
            img.save()
        audit_record(
            actor=actor,
            action="aml.identification_started",
            obj=check,
            player_id=p.pk,
            provider=provider,
            document_type=doc["document_type"],
            sides=sorted(checked),
        )
        _submit_on_commit(check.pk)
    return check


def identification_attempts_allow(*, player: Player, note: str, actor: Actor) -> IdentificationAttempts:
    """Staff allow a player who used up the identification attempts to try again: attempts count
    afresh from now. A note is required (what staff reviewed); audited. Returns the attempts as they count now."""
    if not (note or "").strip():
        raise errors.NOTE_REQUIRED()
    with transaction.atomic():
        p = player_lock(player)
        now = clock.now()
        before = identification_attempts(p, now)
        profile = AmlProfile.objects.select_for_update(no_key=True).filter(player=p).first()
        if profile is None:  # no screening yet: the profile is made due for one, as profile_ensure makes it
            try:
                with transaction.atomic():
                    profile = AmlProfile.objects.create(player=p, created_at=now, next_screening_at=now)
            except IntegrityError:  # made meanwhile by the screening (profile_ensure takes no player lock)
                profile = AmlProfile.objects.select_for_update(no_key=True).get(player=p)
        old_from = profile.identification_attempts_from
        profile.identification_attempts_from = now
        profile.save(update_fields=["identification_attempts_from"])
        audit_record(
            actor=actor,
            action="aml.identification_attempts_allowed",
            obj=profile,
            player_id=p.pk,
            old={"identification_attempts_from": old_from},
            new={"identification_attempts_from": now},
            was_blocked=before.blocked,
            used_last_24h=before.used_last_24h,
            note=note.strip()[:300],
        )
    return identification_attempts(player, now)


def _submit_on_commit(check_id: int) -> None:
    jobs.identification_submit(check_id)


def _retry_delay(attempts: int) -> timedelta:
    first = settings.AML_IDENTIFICATION_RETRY_FIRST_MINUTES
    cap = settings.AML_IDENTIFICATION_RETRY_MAX_MINUTES
    return timedelta(minutes=min(cap, first * 2 ** max(0, attempts - 1)))


def _claim(check_id: int) -> IdentificationCheck | None:
    """Take a due pending check for one attempt (a lease, so that two workers never submit it at once)."""
    with transaction.atomic():
        now = clock.now()
        check = (
            IdentificationCheck.objects.select_for_update(no_key=True, skip_locked=True)
            .filter(pk=check_id, status=Status.PENDING, next_attempt_at__lte=now)
            .first()
        )
        if check is None:
            return None
        check.attempts += 1
        check.next_attempt_at = now + timedelta(minutes=settings.AML_IDENTIFICATION_LEASE_MINUTES)
        check.save(update_fields=["attempts", "next_attempt_at"])
        return check


def _submission(check: IdentificationCheck) -> adapters.Submission:
    identity = identity_for(check.player)
    images = {}
    for img in check.images.all():
        with img.file.open("rb") as f:
            images[img.side] = f.read()
    return adapters.Submission(
        reference=check.reference,
        document={
            "document_type": check.document_type,
            "document_number": check.document_number,
            "document_issuing_state": check.document_issuing_state,
            "document_issuing_authority": check.document_issuing_authority,
            "document_valid_until": check.document_valid_until.isoformat(),
        },
        subject={
            "given_names": identity.given_names,
            "surname": identity.surname,
            "date_of_birth": identity.date_of_birth.isoformat(),
        },
        images=images,
    )


def identification_submit_one(*, check_id: int, actor: Actor) -> str:
    """Submit one due check to its provider; "submitted", "retry", "failed" or "skipped" (not due / taken)."""
    check = _claim(check_id)
    if check is None:
        return "skipped"
    outbox: list[tuple[bytes, str]] = []
    error = ""
    result: adapters.SubmitResult | None = None
    try:
        provider = adapters.get_identification_provider(
            check.provider, outbox=lambda body, sig: outbox.append((body, sig))
        )
        result = provider.submit(_submission(check))  # no lock and no transaction held across the call
    except adapters.ProviderUnavailable as exc:
        error = str(exc)[:255] or "provider unavailable"
    except DomainError as exc:  # the provider was switched off or removed meanwhile
        error = exc.code
    with transaction.atomic():
        check = IdentificationCheck.objects.select_for_update(no_key=True).get(pk=check.pk)
        now = clock.now()
        if result is not None:
            for body, sig in outbox:
                _deliver_on_commit(body, sig)
            check.provider_check_id = check.provider_check_id or result.provider_check_id
            fields = ["provider_check_id", "next_attempt_at", "last_error"]
            check.next_attempt_at, check.last_error = None, ""
            if check.status == Status.PENDING:
                check.status, check.submitted_at = Status.SUBMITTED, now
                fields += ["status", "submitted_at"]
            check.save(update_fields=fields)
            audit_record(
                actor=actor,
                action="aml.identification_submitted",
                obj=check,
                player_id=check.player_id,
                provider=check.provider,
                provider_check_id=check.provider_check_id,
                attempt=check.attempts,
            )
            return "submitted"
        if check.status != Status.PENDING:
            return "skipped"
        check.last_error = error
        if check.attempts >= settings.AML_IDENTIFICATION_SUBMIT_MAX_ATTEMPTS:
            check.status, check.next_attempt_at = Status.FAILED, None
            check.save(update_fields=["status", "next_attempt_at", "last_error"])
            audit_record(
                actor=actor,
                action="aml.identification_failed",
                obj=check,
                player_id=check.player_id,
                attempts=check.attempts,
                error=error,
            )
            return "failed"
        check.next_attempt_at = now + _retry_delay(check.attempts)
        check.save(update_fields=["next_attempt_at", "last_error"])
        logger.warning(
            "identification provider unavailable; retry later",
            extra={"check": check.reference, "attempts": check.attempts},
        )
        return "retry"


def identification_submit_due(*, now: Any = None, batch: int = 100) -> dict[str, int]:
    """The sweeper: every pending check whose attempt is due (first try missed, back-off over, lease expired)."""
    now = now or clock.now()
    actor = Actor.system("aml.identification_submit")
    out: dict[str, int] = {}
    ids = (
        IdentificationCheck.objects.filter(status=Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "pk")
        .values_list("pk", flat=True)[:batch]
    )
    for pk in list(ids):
        r = identification_submit_one(check_id=pk, actor=actor)
        out[r] = out.get(r, 0) + 1
    return out


def _deliver_on_commit(body: bytes, signature: str) -> None:
    jobs.sandbox_callback_send(body.decode(), signature)


def sandbox_callback_deliver(*, body_text: str, signature: str) -> dict[str, Any]:
    """Deliver one sandbox answer: HTTP POST to ``AML_SANDBOX_CALLBACK_URL`` when set, else in-process to the
    same handler the callback endpoint uses."""
    url: str = settings.AML_SANDBOX_CALLBACK_URL
    if not url:
        return identification_callback_handle(provider="sandbox", raw_body=body_text.encode(), signature=signature)
    req = urllib.request.Request(
        url,
        data=body_text.encode(),
        method="POST",
        headers={"Content-Type": "application/json", adapters.SIGNATURE_HEADER: signature},
    )
    with urllib.request.urlopen(req, timeout=10) as resp:  # the configured sandbox URL
        answer: dict[str, Any] = loads_bounded(resp.read().decode() or "{}")
        return answer


# The provider's answer ----------------------------------------------------------------------------------------------


def identification_callback_handle(*, provider: str, raw_body: bytes, signature: str) -> dict[str, Any]:
    """Handle one signed answer of an identification provider exactly once.

    A bad signature or body changes nothing (``aml.callback_bad_signature`` 401 / ``aml.callback_invalid`` 400);
    a repeated event id with the same content returns the first result and changes nothing; the same event id
    with another content is refused (``aml.callback_replay_mismatch``, 409); an answer for an unknown reference
    or for a check already decided is recorded and ignored."""
    prov = adapters.get_identification_provider(provider)
    if not prov.verify_signature(raw_body, signature or ""):
        logger.warning("identification callback with a bad signature", extra={"provider": provider})
        raise errors.BAD_SIGNATURE()
    event = prov.parse_callback(raw_body)
    actor = Actor.system(f"aml-provider:{provider}")
    with transaction.atomic():
        try:
            with transaction.atomic():
                rec = IdentificationEvent.objects.create(
                    provider=provider,
                    event_id=event.event_id,
                    event_type=event.type,
                    raw_body=raw_body.decode()[:STORED_BODY_CHARS],
                    received_at=clock.now(),
                    result="processing",
                )
        except IntegrityError:
            rec = IdentificationEvent.objects.get(provider=provider, event_id=event.event_id)
            if prov.parse_callback(rec.raw_body.encode()).material() != event.material():
                raise errors.REPLAY_MISMATCH(event_id=event.event_id)
            return {"status": "duplicate", "event_id": event.event_id, "result": rec.result}
        result = _apply_result(provider, event, actor)
        rec.result = result
        rec.identification_id = (
            IdentificationCheck.objects.filter(provider=provider, reference=event.reference)
            .values_list("pk", flat=True)
            .first()
        )
        rec.save(update_fields=["result", "identification"])
        return {"status": "processed", "event_id": event.event_id, "result": result}


def identity_mismatches(player: Player, extracted: dict[str, Any], document_number: str) -> list[str]:
    """The matching rules of every identification provider: the data the provider read or verified that differ
    from the player's personal data or from ``document_number`` (the document the player presented; Bank iD: the
    one of the registration). Names are folded (case and accents ignored); the birth date and the document number
    must be equal; a birth number is compared when both the provider and the registration have one. A field the
    provider did not send is not compared."""
    identity = identity_for(player)
    out = []
    pairs = [
        ("given_names", fold(identity.given_names)),
        ("surname", fold(identity.surname)),
        ("date_of_birth", identity.date_of_birth.isoformat()),
        ("document_number", document_number),
    ]
    if identity.birth_number:
        pairs.append(("birth_number", identity.birth_number))
    for name, ours in pairs:
        theirs = extracted.get(name)
        if theirs is not None and (fold(theirs) if name in ("given_names", "surname") else str(theirs)) != ours:
            out.append(f"{name}_mismatch")
    return out


def _apply_result(provider: str, event: adapters.IdentificationResult, actor: Actor) -> str:
    found = IdentificationCheck.objects.filter(provider=provider, reference=event.reference).first()
    if found is None:
        return "unknown_reference"
    # Lock order: the Player row first (approval writes it), then the player's own rows.
    player = player_lock(found.player)
    check = IdentificationCheck.objects.select_for_update(no_key=True).get(pk=found.pk)
    if check.status not in (Status.PENDING, Status.SUBMITTED):
        return f"ignored_{check.status}"
    now = clock.now()
    reasons = list(event.reasons)
    outcome = event.outcome
    if outcome == "approved":
        reasons += identity_mismatches(player, event.extracted, check.document_number)
        if event.score < settings.AML_IDENTIFICATION_MIN_SCORE:
            reasons.append("score_below_minimum")
        if len(reasons) > len(event.reasons):
            outcome = "doubtful"
    old = check.status
    check.status = {"approved": Status.APPROVED, "doubtful": Status.DOUBTFUL, "rejected": Status.REJECTED}[outcome]
    check.provider_outcome, check.score, check.extracted, check.reasons = (
        event.outcome,
        event.score,
        event.extracted,
        reasons,
    )
    check.provider_check_id = check.provider_check_id or event.provider_check_id
    check.answered_at, check.next_attempt_at = now, None
    if check.status != Status.DOUBTFUL:
        check.decided_at, check.decided_by = now, actor.label
    check.save()
    audit_record(
        actor=actor,
        action="aml.identification_answered",
        obj=check,
        player_id=player.pk,
        old={"status": old},
        new={"status": check.status},
        provider_outcome=event.outcome,
        score=event.score,
        reasons=reasons,
    )
    if check.status == Status.APPROVED:
        player_aml_identified_record(player=player, check=check, actor=actor)
    return check.status


def identification_review(*, check: IdentificationCheck, approve: bool, note: str, actor: Actor) -> IdentificationCheck:
    """Staff decide a doubtful check (the review queue): approve -> the player is AML-identified; reject -> the
    player may try again. A note is required; audited."""
    if not (note or "").strip():
        raise errors.NOTE_REQUIRED()
    with transaction.atomic():
        player = player_lock(check.player)
        c = IdentificationCheck.objects.select_for_update(no_key=True).get(pk=check.pk)
        if c.status != Status.DOUBTFUL:
            raise errors.IDENTIFICATION_STATE(state=c.status)
        c.status = Status.APPROVED if approve else Status.REJECTED
        c.decided_at, c.decided_by, c.note = clock.now(), actor.label, note.strip()[:300]
        c.save(update_fields=["status", "decided_at", "decided_by", "note"])
        audit_record(
            actor=actor,
            action="aml.identification_reviewed",
            obj=c,
            player_id=player.pk,
            old={"status": Status.DOUBTFUL},
            new={"status": c.status},
            approved=approve,
            note=c.note,
        )
        if approve:
            player_aml_identified_record(player=player, check=c, actor=actor)
    check.refresh_from_db()
    return check
