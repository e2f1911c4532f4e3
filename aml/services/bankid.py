"""Online AML identification with Bank iD (GP §4(4)b; the AML Act): the player's bank identified the person, and
says so over OpenID Connect (``aml.bankid_client``; docs/aml.md "Bank iD").

``bankid_start``: the player names one of the allowed redirect URLs of the player app; a sign-in
(``BankIdAuthorization``: state, nonce, PKCE verifier) is stored and the bank's authorization URL returned.
``bankid_complete``: the player app forwards the ``code`` and ``state`` the bank sent back; the sign-in is claimed
once (a used, unknown, superseded or expired state is refused), the code exchanged and the ID token and the
claims checked (network calls, never inside a transaction), the verified claims compared with the registration by
the same rules as the document provider (``identification.identity_mismatches``) and the identification recorded:
approved -> accounts records the AML identification (method ``bankid``); data that differ -> ``doubtful`` for staff
review (``identification_review``) and the player is told (``aml.bankid_claims_mismatch``). A failure records the
sign-in as failed with its error code and identifies nobody. The bank's PEP flag goes to ``pep_claim_record``.
"""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction

from accounts.models import PersonalData, Player
from accounts.services import player_lock
from aml import bankid_client, errors
from aml.models import BankIdAuthorization, ComplianceCase, IdentificationCheck, PepDeclaration
from aml.services.identification import START_STATUSES, identity_mismatches
from aml.services.lists import pep_claim_record
from aml.services.seams import player_aml_identified_record
from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError

Status = BankIdAuthorization.Status
CheckStatus = IdentificationCheck.Status
PROVIDER_ACTOR = Actor.system("aml-provider:bankid")


def state_hash(state: str) -> str:
    return hashlib.sha256(state.encode()).hexdigest()


@dataclass(frozen=True)
class BankIdStart:
    authorization: BankIdAuthorization
    authorization_url: str


def _refuse_start(player: Player) -> None:
    if player.status not in START_STATUSES:
        raise errors.IDENTIFICATION_NOT_ALLOWED(account_status=player.status)
    if player.aml_identified_at is not None:
        raise errors.ALREADY_IDENTIFIED()
    if IdentificationCheck.objects.filter(player=player, status__in=IdentificationCheck.OPEN).exists():
        raise errors.IDENTIFICATION_IN_PROGRESS()


def bankid_start(*, player: Player, redirect_url: str, actor: Actor) -> BankIdStart:
    """Start a Bank iD sign-in: ``redirect_url`` must be one of ``AML_BANKID_REDIRECT_URLS`` exactly (it is the
    OpenID ``redirect_uri``). Refuses what ``identification_start`` refuses (account state, already identified, a
    check open) and ``aml.bankid_disabled`` / ``aml.bankid_redirect_not_allowed``. An earlier sign-in still at the
    bank is superseded (its state no longer works). The discovery document is read before any lock."""
    if not settings.AML_BANKID_ENABLED:
        raise errors.BANKID_DISABLED()
    if redirect_url not in list(settings.AML_BANKID_REDIRECT_URLS):
        raise errors.BANKID_REDIRECT_NOT_ALLOWED(redirect_url=redirect_url[:200])
    if not PersonalData.objects.filter(player=player).exists():
        raise errors.NO_PERSONAL_DATA()
    _refuse_start(player)
    request = bankid_client.BankIdProvider().authorization_request(redirect_uri=redirect_url)  # network: no transaction
    with transaction.atomic():
        p = player_lock(player)
        _refuse_start(p)
        now = clock.now()
        superseded = BankIdAuthorization.objects.filter(player=p, status=Status.STARTED).update(
            status=Status.SUPERSEDED, finished_at=now, nonce="", code_verifier=""
        )
        auth = BankIdAuthorization.objects.create(
            player=p,
            state_hash=state_hash(request.state),
            nonce=request.nonce,
            code_verifier=request.code_verifier,
            redirect_url=redirect_url,
            issuer=request.issuer,
            created_at=now,
            expires_at=now + timedelta(minutes=settings.AML_BANKID_SESSION_MINUTES),
        )
        audit_record(
            actor=actor,
            action="aml.bankid_started",
            obj=auth,
            player_id=p.pk,
            redirect_url=redirect_url,
            issuer=request.issuer,
            superseded=superseded,
        )
    return BankIdStart(authorization=auth, authorization_url=request.url)


def _claim(player: Player, state: str) -> BankIdAuthorization:
    """Take the player's sign-in with this state for its one exchange (started -> exchanging), or refuse."""
    with transaction.atomic():
        auth = (
            BankIdAuthorization.objects.select_for_update(no_key=True)
            .filter(player=player, state_hash=state_hash(state))
            .first()
        )
        if auth is None or auth.status != Status.STARTED:
            raise errors.BANKID_STATE_INVALID(status=None if auth is None else auth.status)
        now = clock.now()
        if now >= auth.expires_at:
            auth.status, auth.finished_at, auth.error_code = Status.EXPIRED, now, errors.BANKID_SESSION_EXPIRED.code
            auth.nonce = auth.code_verifier = ""
            auth.save(update_fields=["status", "finished_at", "error_code", "nonce", "code_verifier"])
            expired = True
        else:
            auth.status = Status.EXCHANGING
            auth.save(update_fields=["status"])
            expired = False
    if expired:
        raise errors.BANKID_SESSION_EXPIRED(expired_at=auth.expires_at)
    return auth


def _fail(auth: BankIdAuthorization, exc: DomainError, actor: Actor) -> None:
    with transaction.atomic():
        detail = ", ".join(f"{k}={v}" for k, v in exc.details.items() if v not in (None, "", []))[:255]
        changed = BankIdAuthorization.objects.filter(pk=auth.pk, status=Status.EXCHANGING).update(
            status=Status.FAILED,
            finished_at=clock.now(),
            error_code=exc.code[:60],
            error_detail=detail,
            nonce="",
            code_verifier="",
        )
        if changed:
            audit_record(
                actor=actor,
                action="aml.bankid_failed",
                obj=auth,
                player_id=auth.player_id,
                error=exc.code,
                details=exc.details,
            )


def bankid_complete(
    *, player: Player, state: str, code: str = "", error: str = "", error_description: str = "", actor: Actor
) -> IdentificationCheck:
    """Finish the player's sign-in from what the bank sent back to the player app (``code`` + ``state``, or
    ``error``). Returns the approved identification; raises ``aml.bankid_claims_mismatch`` (after recording the
    check as ``doubtful`` for staff) when the verified data differ from the registration, and the ``aml.bankid_*``
    refusals otherwise (the sign-in is then ``failed`` and nobody is identified)."""
    if not settings.AML_BANKID_ENABLED:
        raise errors.BANKID_DISABLED()
    if not state:
        raise errors.BANKID_CALLBACK_INVALID(reason="state")
    auth = _claim(player, state)
    try:
        if error:
            raise errors.BANKID_DENIED(error=error[:60], description=error_description[:200])
        if not code:
            raise errors.BANKID_CALLBACK_INVALID(reason="code")
        config = bankid_client.BankIdConfig.from_settings()
        answer = bankid_client.BankIdProvider(config).exchange(
            code=code, code_verifier=auth.code_verifier, redirect_uri=auth.redirect_url, nonce=auth.nonce
        )
        identity = bankid_client.identity_from_claims(answer.claims, trust_framework=config.trust_framework)
        check = _record(auth, answer, identity, actor)
    except DomainError as exc:
        _fail(auth, exc, actor)
        raise
    if check.status != CheckStatus.APPROVED:
        raise errors.BANKID_CLAIMS_MISMATCH(
            mismatches=", ".join(check.reasons), identification_id=check.pk, reasons=check.reasons, status=check.status
        )
    return check


def _choose_document(
    documents: tuple[bankid_client.BankIdDocument, ...], personal: PersonalData
) -> bankid_client.BankIdDocument:
    """The bank's record of the document of the registration when it has it (by number), else one of its type,
    else the identity card, else the first."""
    number = personal.document_number.replace(" ", "").upper()
    return (
        next((d for d in documents if d.number == number), None)
        or next((d for d in documents if d.type == personal.document_type), None)
        or next((d for d in documents if d.type == "id_card"), None)
        or documents[0]
    )


def _reasons(
    player: Player,
    personal: PersonalData,
    identity: bankid_client.BankIdIdentity,
    document: bankid_client.BankIdDocument,
    extracted: dict[str, Any],
) -> list[str]:
    reasons = identity_mismatches(player, extracted, personal.document_number)
    if identity.nationalities and personal.citizenship not in identity.nationalities:
        reasons.append("citizenship_mismatch")
    if document.valid_until < clock.business_date():
        reasons.append("document_expired")
    if not document.issuing_authority:
        reasons.append("document_issuer_missing")
    if identity.limited_legal_capacity:
        reasons.append("limited_legal_capacity")
    return reasons


def _record(
    auth: BankIdAuthorization, answer: bankid_client.BankIdAnswer, identity: bankid_client.BankIdIdentity, actor: Actor
) -> IdentificationCheck:
    with transaction.atomic():
        p = player_lock(auth.player)  # lock order: the Player row first, then the player's own rows
        a = BankIdAuthorization.objects.select_for_update(no_key=True).get(pk=auth.pk)
        if a.status != Status.EXCHANGING:
            raise errors.BANKID_STATE_INVALID(status=a.status)
        personal = PersonalData.objects.get(player=p)
        document = _choose_document(identity.documents, personal)
        extracted = identity.extracted(document)
        reasons = _reasons(p, personal, identity, document, extracted)
        status = CheckStatus.DOUBTFUL if reasons else CheckStatus.APPROVED
        if (
            status == CheckStatus.DOUBTFUL
            and IdentificationCheck.objects.filter(player=p, status__in=IdentificationCheck.OPEN).exists()
        ):
            raise errors.IDENTIFICATION_IN_PROGRESS()
        now = clock.now()
        check = IdentificationCheck.objects.create(
            player=p,
            provider=bankid_client.CODE,
            reference=f"idc_{uuid.uuid4().hex}",
            provider_check_id=(identity.transaction or answer.subject)[:80],
            document_type=document.type,
            document_number=document.number,
            document_issuing_state=document.issuing_state,
            document_issuing_authority=document.issuing_authority,
            document_valid_until=document.valid_until,
            status=status,
            created_at=now,
            submitted_at=now,
            answered_at=now,
            provider_outcome="approved",
            reasons=reasons,
            extracted=extracted,
            verified_claims={
                "issuer": a.issuer,
                "subject": answer.subject,
                "transaction": identity.transaction,
                "verification": identity.verification,
                "claims": identity.verified_claims,
                "pep": identity.pep,
                "limited_legal_capacity": identity.limited_legal_capacity,
                "id_token": {
                    k: answer.id_token[k]
                    for k in ("iss", "sub", "aud", "iat", "exp", "auth_time", "acr")
                    if k in answer.id_token
                },
            },
            decided_at=now if status == CheckStatus.APPROVED else None,
            decided_by=PROVIDER_ACTOR.label if status == CheckStatus.APPROVED else "",
        )
        audit_record(
            actor=PROVIDER_ACTOR,
            action="aml.identification_answered",
            obj=check,
            player_id=p.pk,
            old={"status": None},
            new={"status": status},
            provider=bankid_client.CODE,
            reasons=reasons,
            transaction=identity.transaction,
            verification_process=identity.verification_process,
        )
        a.status, a.finished_at, a.identification, a.subject = Status.COMPLETED, now, check, answer.subject[:255]
        a.nonce = a.code_verifier = ""  # used: nothing needs them any more
        a.save(update_fields=["status", "finished_at", "identification", "subject", "nonce", "code_verifier"])
        audit_record(
            actor=actor, action="aml.bankid_completed", obj=a, player_id=p.pk, identification=check.pk, status=status
        )
        if status == CheckStatus.APPROVED:
            player_aml_identified_record(player=p, check=check, actor=PROVIDER_ACTOR)
        bank_pep_claim_record(
            player=p, pep=identity.pep, source=bankid_client.CODE, identification=check, actor=PROVIDER_ACTOR
        )
    return check


def bank_pep_claim_record(
    *, player: Player, pep: bool | None, source: str, identification: IdentificationCheck, actor: Actor
) -> ComplianceCase | None:
    """What the player's bank says about a politically exposed person (Bank iD's ``pep`` claim), for the PEP part
    of the AML duties: received (audited, and kept in the identification's ``verified_claims``); a claim the bank
    gives is recorded as a PEP claim of the source (``aml.services.lists.pep_claim_record``: append-only; ``True``
    opens one blocking case of kind ``pep_claimed`` per player and source, whatever the player declared; a case
    staff cleared is not reopened); no claim records nothing (the player's own declaration still counts)."""
    latest = PepDeclaration.objects.filter(player=player).order_by("-declared_at", "-id").first()
    audit_record(
        actor=actor,
        action="aml.pep_claim_received",
        obj=identification,
        player_id=player.pk,
        pep=pep,
        source=source,
        declared=None if latest is None else latest.relation,
    )
    if pep is None:
        return None
    pep_claim_record(player=player, is_pep=pep, source=source, actor=actor)
    if pep is not True:
        return None
    return ComplianceCase.objects.get(key=f"pep_claim:{player.pk}:{source}")
