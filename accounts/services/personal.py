"""Personal data (GP §12): consents, corrections, the identity document recorded at a branch (GP §4(4)b),
duplicates found later (GP §5(3)), barred persons (GP §3(3))."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Count, Q

from accounts import errors, rules
from accounts.adapters import uses_aisg
from accounts.models import (
    BarredPerson,
    Consent,
    CorrectionRequest,
    DuplicateCase,
    IdentityVerification,
    PersonalData,
    Player,
    User,
)
from accounts.selectors import barred_person_matches, find_duplicates
from accounts.services.lifecycle import closure_request, player_set_barred_insider
from accounts.services.locks import player_lock
from accounts.services.recipients import recipient_notices_record
from accounts.services.registration import registration_submit
from accounts.validation import FIELDS, derived_keys, name_dob_key, validate_document, validate_personal_data
from core import clock
from core.audit import Actor, audit_record

Status = Player.Status


# Consents ---------------------------------------------------------------------------------------
def consent_give(*, player: Player, kind: str, version: str, actor: Actor) -> Consent:
    """Give (or renew to the current version) a consent; the previous live one is superseded."""
    versions = rules.document_versions()
    if kind not in Consent.Kind.values:
        raise errors.CONSENT_KIND_INVALID(kind=kind, allowed=Consent.Kind.values)
    if version != versions[kind]:
        raise errors.CONSENT_VERSION_OUTDATED(kind=kind, current=versions[kind], given=version)
    with transaction.atomic():
        p = player_lock(player)
        if p.status in Player.TERMINAL or p.status == Status.CLOSING:
            raise errors.INVALID_TRANSITION(account_status=p.status, to="consent")
        live = Consent.objects.filter(player=p, kind=kind, withdrawn_at__isnull=True).first()
        if live is not None and live.version == version:
            return live
        now = clock.now()
        if live is not None:
            live.withdrawn_at = now
            live.save(update_fields=["withdrawn_at"])
        consent = Consent.objects.create(player=p, kind=kind, version=version, given_at=now)
        audit_record(
            actor=actor,
            action="accounts.consent.given",
            obj=consent,
            player_id=p.pk,
            kind=kind,
            version=version,
            superseded=live.version if live else None,
        )
    return consent


def consent_withdraw(*, player: Player, kind: str, actor: Actor, settlement: str | None = None) -> Consent:
    """GP §12(6): withdrawing marketing consent leaves the account open; withdrawing a mandatory
    consent has the effect of cancelling the registration (the settlement method is required)."""
    if kind not in Consent.Kind.values:
        raise errors.CONSENT_KIND_INVALID(kind=kind, allowed=Consent.Kind.values)
    mandatory = kind in Consent.MANDATORY
    if mandatory and (settlement is None or settlement not in Player.ClosureMethod.values):
        raise errors.CLOSURE_METHOD_INVALID(allowed=Player.ClosureMethod.values)
    with transaction.atomic():
        p = player_lock(player)
        live = (
            Consent.objects.select_for_update(no_key=True)
            .filter(player=p, kind=kind, withdrawn_at__isnull=True)
            .first()
        )
        if live is None:
            raise errors.CONSENT_NOT_GIVEN(kind=kind)
        live.withdrawn_at = clock.now()
        live.save(update_fields=["withdrawn_at"])
        audit_record(actor=actor, action="accounts.consent.withdrawn", obj=live, player_id=p.pk, kind=kind)
        if mandatory and settlement is not None:
            closure_request(player=p, method=settlement, actor=actor, reason=f"consent_withdrawn:{kind}")
    player.refresh_from_db()
    return live


# Personal data and corrections (GP §12(7)) ---------------------------------------------------------------
# What the AISG interface knows of a person (OsobaType): a change of one is reported to it.
AISG_FIELDS = {
    "given_names",
    "surname",
    "birth_surname",
    "date_of_birth",
    "citizenship",
    "permanent_residence_street",
    "permanent_residence_city",
    "permanent_residence_postal_code",
    "permanent_residence_country",
}


def personal_data_update(*, player: Player, changes: dict[str, Any], actor: Actor, reason: str) -> PersonalData:
    """Apply changes to the personal data (re-validated as a whole), audited field by field.

    If the corrected data now match another participant, a duplicate case freezes deposits and
    withdrawals of all of them until staff resolve it (GP §5(3))."""
    with transaction.atomic():
        p = player_lock(player)
        pd = PersonalData.objects.select_for_update(no_key=True).get(player=p)
        current = {f: getattr(pd, f) for f in FIELDS}
        unknown = sorted(set(changes) - set(FIELDS))
        if unknown:
            raise errors.CORRECTION_FIELD_INVALID(fields=unknown)
        clean = validate_personal_data({**current, **changes}, today=clock.business_date())
        keys = derived_keys(clean)
        old: dict[str, Any] = {}
        new: dict[str, Any] = {}
        for f in FIELDS:
            if getattr(pd, f) != clean[f]:
                old[f], new[f] = getattr(pd, f), clean[f]
                setattr(pd, f, clean[f])
        if not new:
            return pd
        for k, v in keys.items():
            setattr(pd, k, v)
        pd.updated_at = clock.now()
        if pd.aisg_hid and set(new) & AISG_FIELDS and uses_aisg():
            pd.aisg_change_due_at = pd.updated_at  # reported with ZmenitUdajeOsoby (accounts.aisg_changes_send)
        pd.save()
        user_fields = {
            "email": clean["email"],
            "first_name": clean["given_names"][:150],
            "last_name": clean["surname"][:150],
        }
        User.objects.filter(pk=p.user_id).update(**user_fields)
        # the fields only: the append-only trail outlives the anonymisation of the personal data, so it never holds
        # their values (the correction request, anonymised with the data, holds what was asked)
        audit_record(
            actor=actor,
            action="accounts.personal_data.changed",
            obj=pd,
            fields=sorted(new),
            player_id=p.pk,
            reason=reason,
        )
        # GP §12(7), GDPR art. 19: the recipients of the personal data are told of the correction (fields, no values)
        recipient_notices_record(
            player=p,
            event="correction",
            reference=f"correction:{pd.updated_at.isoformat()}",
            records=["accounts.personal_data"],
            fields=sorted(new),
            actor=actor,
        )
        if p.status not in Player.TERMINAL:
            matches = find_duplicates(clean, keys, exclude_player_ids=[p.pk])
            if matches:
                duplicate_case_open(
                    players=[p.pk, *{i for ids in matches.values() for i in ids}],
                    matched_fields=sorted(matches),
                    actor=actor,
                )
    return pd


CORRECTABLE = tuple(FIELDS)


def correction_request_create(*, player: Player, changes: dict[str, Any], note: str, actor: Actor) -> CorrectionRequest:
    if not isinstance(changes, dict) or not changes:
        raise errors.CORRECTION_FIELD_INVALID(fields=[])
    bad = sorted(f for f in changes if f not in CORRECTABLE or not isinstance(changes[f], (str, int)))
    if bad:
        raise errors.CORRECTION_FIELD_INVALID(fields=bad, allowed=list(CORRECTABLE))
    with transaction.atomic():
        p = player_lock(player)
        req = CorrectionRequest.objects.create(
            player=p, changes={k: str(v) for k, v in changes.items()}, note=(note or "")[:500], created_at=clock.now()
        )
        audit_record(
            actor=actor, action="accounts.correction.requested", obj=req, player_id=p.pk, fields=sorted(changes)
        )
    return req


def correction_approve(*, request: CorrectionRequest, actor: Actor, note: str = "") -> CorrectionRequest:
    with transaction.atomic():
        req = CorrectionRequest.objects.select_for_update(no_key=True).get(pk=request.pk)
        if req.state != CorrectionRequest.State.PENDING:
            raise errors.CORRECTION_NOT_PENDING()
        personal_data_update(player=req.player, changes=req.changes, actor=actor, reason=f"correction #{req.pk}")
        req.state, req.decided_at, req.decision_note = CorrectionRequest.State.APPROVED, clock.now(), note[:500]
        req.decided_by_id = int(actor.id) if actor.type == "staff" and actor.id else None
        req.save(update_fields=["state", "decided_at", "decision_note", "decided_by"])
        audit_record(actor=actor, action="accounts.correction.approved", obj=req, player_id=req.player_id)
    return req


def correction_reject(*, request: CorrectionRequest, actor: Actor, note: str) -> CorrectionRequest:
    with transaction.atomic():
        req = CorrectionRequest.objects.select_for_update(no_key=True).get(pk=request.pk)
        if req.state != CorrectionRequest.State.PENDING:
            raise errors.CORRECTION_NOT_PENDING()
        req.state, req.decided_at, req.decision_note = CorrectionRequest.State.REJECTED, clock.now(), note[:500]
        req.decided_by_id = int(actor.id) if actor.type == "staff" and actor.id else None
        req.save(update_fields=["state", "decided_at", "decision_note", "decided_by"])
        audit_record(actor=actor, action="accounts.correction.rejected", obj=req, player_id=req.player_id, note=note)
    return req


# AML identification at a branch (GP §4(4)b) ---------------------------------------------------------------
def identity_verify_at_branch(
    *, player: Player, document: dict[str, Any], likeness_confirmed: bool, staff_user: User, note: str = ""
) -> IdentityVerification:
    """Staff record the document (type, number, issuing state and authority, validity) and confirm
    the likeness; the AML identification step is done. A differing document updates the personal data."""
    if not likeness_confirmed:
        raise errors.BRANCH_LIKENESS_REQUIRED()
    now = clock.now()
    doc = validate_document(document, today=clock.business_date(now), citizenship=player.personal.citizenship)
    actor = Actor.staff(staff_user)
    with transaction.atomic():
        p = player_lock(player)
        if p.status in Player.TERMINAL:
            raise errors.INVALID_TRANSITION(account_status=p.status, to="identified")
        iv = IdentityVerification.objects.create(
            player=p,
            method=IdentityVerification.Method.BRANCH,
            likeness_confirmed=True,
            verified_by=staff_user,
            verified_at=now,
            note=(note or "")[:300],
            **doc,
        )
        p.aml_identified_at = now
        p.save(update_fields=["aml_identified_at"])
        audit_record(
            actor=actor,
            action="accounts.identity.verified_at_branch",
            obj=p,
            player_id=p.pk,
            document_type=doc["document_type"],
            verification_id=iv.pk,
        )
        pd = p.personal
        changes = {f: v for f, v in doc.items() if getattr(pd, f) != v}
        if changes:
            personal_data_update(player=p, changes=changes, actor=actor, reason="branch identification")
    player.aml_identified_at = now
    return iv


def aml_identification_record(
    *,
    player: Player,
    reference: str,
    document: dict[str, Any],
    actor: Actor,
    note: str = "",
    method: str = IdentityVerification.Method.ONLINE_PROVIDER,
) -> bool:
    """The online AML identification (GP §4(4)b) passed: the identification provider checked the identity document
    and the likeness of the applicant to its photo (``aml`` runs the check and calls this in its transaction, after
    an approval by the provider or by staff reviewing a doubtful result). Records an ``IdentityVerification``
    (with ``method``, ``reference`` = the aml check) and sets ``aml_identified_at``; True if the player
    was not identified before (an identified player keeps the first instant; the verification is still recorded).
    ``document``: type, number, issuing_state, issuing_authority, valid_until (already validated by aml).
    ``method``: ``online_provider`` (document and likeness) or ``bankid`` (the player's bank identified the person;
    the document is the one the bank holds)."""
    if method not in (IdentityVerification.Method.ONLINE_PROVIDER, IdentityVerification.Method.BANKID):
        raise ValueError(f"not an online AML identification method: {method!r}")
    now = clock.now()
    with transaction.atomic():
        p = player_lock(player)
        IdentityVerification.objects.create(
            player=p,
            method=method,
            document_type=document["type"],
            document_number=document["number"],
            document_issuing_state=document["issuing_state"],
            document_issuing_authority=document["issuing_authority"],
            document_valid_until=document["valid_until"],
            likeness_confirmed=True,
            verified_at=now,
            note=(note or f"identification provider, check {reference}")[:300],
        )
        first = p.aml_identified_at is None
        if first:
            p.aml_identified_at = now
            p.save(update_fields=["aml_identified_at"])
        audit_record(
            actor=actor,
            action="accounts.identity.verified_online",
            obj=p,
            player_id=p.pk,
            reference=reference,
            method=method,
            document_type=document["type"],
            first=first,
            new={"aml_identified_at": p.aml_identified_at},
        )
    player.aml_identified_at = p.aml_identified_at
    return first


# Duplicates (GP §4(4)c, §5(3)) ------------------------------------------------------------------------------------
def _covered(player_ids: set[int]) -> bool:
    """Is there already a case (any state, any kind) about at least these players?"""
    cases = DuplicateCase.objects.filter(players__in=player_ids).distinct().prefetch_related("players")
    return any(player_ids <= {p.pk for p in c.players.all()} for c in cases)


def duplicate_case_open(*, players: list[int], matched_fields: list[str], actor: Actor) -> DuplicateCase | None:
    """Open a case about existing accounts of one person: their deposits and withdrawals are frozen
    (``money_movement_refusal``) until staff resolve it. None when such a case exists already."""
    ids = set(players)
    if len(ids) < 2 or _covered(ids):
        return None
    with transaction.atomic():
        case = DuplicateCase.objects.create(
            kind=DuplicateCase.Kind.ACCOUNTS, matched_fields=matched_fields, created_at=clock.now()
        )
        case.players.set(sorted(ids))
        audit_record(
            actor=actor,
            action="accounts.duplicate.accounts_frozen",
            obj=case,
            players=sorted(ids),
            matched_fields=matched_fields,
        )
    return case


def duplicates_scan(*, actor: Actor | None = None) -> int:
    """Sweeper: find accounts of one person among non-terminal players (by each identifying key)."""
    actor = actor or Actor.system("accounts.duplicates_scan")
    live = PersonalData.objects.exclude(player__status__in=Player.TERMINAL)
    opened = 0
    for field in ("birth_number", "document_key", "email_key", "phone", "name_dob_key"):
        groups = (
            live.exclude(**{field: ""})
            .values(field)
            .annotate(n=Count("id"))
            .filter(n__gt=1)
            .values_list(field, flat=True)
        )
        for value in groups:
            ids = list(live.filter(**{field: value}).values_list("player_id", flat=True))
            if duplicate_case_open(players=ids, matched_fields=[field], actor=actor):
                opened += 1
    return opened


def duplicate_case_resolve(
    *,
    case: DuplicateCase,
    same_person: bool,
    actor: Actor,
    note: str,
    keep_player: Player | None = None,
    closure_method: str = Player.ClosureMethod.TRANSFER,
) -> DuplicateCase:
    """Staff decide a duplicate case.

    Refused registration: different persons -> the application is registered now (the matched
    accounts no longer count as duplicates of it); the same person -> the refusal stands and the
    applicant is told to use the existing account.
    Existing accounts: different persons -> the freeze is lifted; the same person -> the account
    ``keep_player`` stays and every other one is cancelled with settlement to its registered
    payment method (balance paid out after the investigation, GP §5(3))."""
    staff_user = User.objects.filter(pk=int(actor.id)).first() if actor.type == "staff" and actor.id else None
    with transaction.atomic():
        c = DuplicateCase.objects.select_for_update(no_key=True).get(pk=case.pk)
        if c.state != DuplicateCase.State.OPEN:
            raise errors.DUPLICATE_CASE_NOT_OPEN()
        members = list(c.players.all())
        if (
            c.kind == DuplicateCase.Kind.ACCOUNTS
            and same_person
            and (keep_player is None or keep_player.pk not in {m.pk for m in members})
        ):
            raise errors.INVALID_TRANSITION(reason="choose the account to keep")
        c.state = DuplicateCase.State.CONFIRMED if same_person else DuplicateCase.State.DISTINCT
        c.resolved_at, c.resolved_by, c.resolution_note = clock.now(), staff_user, (note or "")[:500]
        c.save(update_fields=["state", "resolved_at", "resolved_by", "resolution_note"])
        audit_record(
            actor=actor,
            action="accounts.duplicate.resolved",
            obj=c,
            same_person=same_person,
            keep_player=keep_player.pk if keep_player else None,
            note=note,
        )
        if c.kind == DuplicateCase.Kind.REGISTRATION and not same_person:
            app = c.application or {}
            registration_submit(
                data=app.get("personal_data", {}),
                consents=app.get("consents", {}),
                username=app.get("username"),
                channel=app.get("channel", "online"),
                actor=actor,
                staff_user=staff_user,
                branch_identification={"likeness_confirmed": True}
                if app.get("channel") == Player.Channel.BRANCH
                else None,
                duplicate_case=c,
            )
        elif c.kind == DuplicateCase.Kind.ACCOUNTS and same_person and keep_player is not None:
            for m in members:
                if m.pk != keep_player.pk and m.status not in Player.TERMINAL and m.status != Status.CLOSING:
                    closure_request(player=m, method=closure_method, actor=actor, reason="duplicate_account")
    case.refresh_from_db()
    return case


# Barred persons (GP §3(3)) ---------------------------------------------------------------------------------------
def barred_person_save(*, person: BarredPerson, actor: Actor) -> BarredPerson:
    """Add or change an insider; every matching player is flagged (or unflagged when no active entry
    matches any more)."""
    with transaction.atomic():
        is_new = person.pk is None
        person.name_dob_key = name_dob_key(person.given_names, person.surname, person.date_of_birth)
        person.birth_number = (person.birth_number or "").replace("/", "").strip()
        if is_new:
            person.created_at = clock.now()
        person.save()
        audit_record(
            actor=actor,
            action="accounts.barred_person.saved",
            obj=person,
            created=is_new,
            active=person.active,
            role=person.role,
        )
        q = Q(personal__name_dob_key=person.name_dob_key)
        if person.birth_number:
            q |= Q(personal__birth_number=person.birth_number)
        for p in Player.objects.filter(q).exclude(status__in=Player.TERMINAL).select_related("personal"):
            match = barred_person_matches(birth_number=p.personal.birth_number, name_dob_key=p.personal.name_dob_key)
            player_set_barred_insider(
                player=p, barred=match is not None, note=f"{match.role} #{match.pk}" if match else "", actor=actor
            )
    return person
