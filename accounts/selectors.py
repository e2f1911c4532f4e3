"""Reads of the accounts app (other apps use these, never the models directly)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import CharField, F, Func, Q, QuerySet, Value
from django.db.models.functions import Lower
from django.forms.models import model_to_dict

from accounts import errors, hooks, privacy_contract, retention, rules, terms
from accounts.adapters import Identity
from accounts.models import (
    BarredPerson,
    Consent,
    DataRequest,
    DuplicateCase,
    IdentityVerification,
    LoginSession,
    Message,
    PersonalData,
    PersonalDataErasure,
    Player,
    RegisterCheck,
    RegisterReview,
    TermsVersion,
)
from core import clock
from core.errors import DomainError
from core.home import QueueState, queue_of
from core.models import AuditEvent


def player_for_user(user: Any) -> Player | None:
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    try:
        return user.player
    except Player.DoesNotExist:
        return None


def aml_refusal(restriction: str) -> DomainError | None:
    """What the player's ``aml_restriction`` refuses (every stake, deposit and withdrawal): ``aml.compliance_review``
    while a blocking compliance case is open, ``aml.compliance_refused`` once one is confirmed (docs/aml.md)."""
    if restriction == Player.AmlRestriction.REFUSED:
        return errors.AML_COMPLIANCE_REFUSED()
    if restriction == Player.AmlRestriction.REVIEW:
        return errors.AML_COMPLIANCE_REVIEW()
    return None


def exclusion_check_stale(player: Player) -> bool:
    """The register's last answer about the player is older than ``ACCOUNTS_EXCLUSION_MAX_AGE_HOURS`` (0: never)."""
    hours = settings.ACCOUNTS_EXCLUSION_MAX_AGE_HOURS
    if hours <= 0:
        return False
    checked = player.exclusion_checked_at
    return checked is None or checked < clock.now() - timedelta(hours=hours)


def betting_refusal(player: Player) -> DomainError | None:
    """Why this player may not stake now by account state, or None (GP §3, §4(1), §5(2)a, exclusion register).

    Also the AML duties (``aml_restriction``: a blocking compliance case open or confirmed, :func:`aml_refusal`), and
    GP §3(5): a version of the game plan and terms in force that is newer than the one the player accepted
    refuses (``accounts.terms_not_accepted`` naming the version), and so does no version in force at all where
    ``ACCOUNTS_TERMS_REQUIRED`` (production: ``accounts.terms_not_published``). On the stake path this costs no
    statement: the
    player row is loaded with the token, and the version in force comes from the per-process snapshot
    (``accounts.terms``)."""
    s = player.status
    Status = Player.Status
    if s in (Status.CLOSED, Status.REJECTED):
        return errors.CLOSED(account_status=s)
    if s == Status.EXPIRED or (
        s == Status.TEMPORARY and player.temporary_expires_at and player.temporary_expires_at <= clock.now()
    ):
        return errors.TEMPORARY_EXPIRED(expired_at=player.temporary_expires_at)
    if s == Status.APPLICANT:
        return errors.NOT_REGISTERED(account_status=s)
    if player.exclusion_listed:
        return errors.EXCLUDED_PERSON()
    if exclusion_check_stale(player):
        return errors.EXCLUSION_CHECK_STALE(checked_at=player.exclusion_checked_at)
    if player.barred_insider:
        return errors.BARRED_INSIDER()
    if s == Status.SUSPENDED:
        return errors.SUSPENDED(reason=player.status_reason)
    if s == Status.CLOSING:
        return errors.CLOSING()
    if s not in (Status.TEMPORARY, Status.ACTIVE):  # pragma: no cover - every status is handled above
        return errors.NOT_REGISTERED(account_status=s)
    aml = aml_refusal(player.aml_restriction)  # the stake gate reads it again under its lock (limits)
    if aml is not None:
        return aml
    if player.user.must_change_password:
        return errors.PASSWORD_CHANGE_REQUIRED()
    required = terms.in_force(clock.now())
    if required is None and rules.terms_required():
        return errors.TERMS_NOT_PUBLISHED()
    if required is not None and (player.terms_version_accepted or 0) < required.version:
        return errors.TERMS_NOT_ACCEPTED(
            version=required.version, effective_at=required.effective_at, accepted=player.terms_version_accepted
        )
    return None


def money_movement_refusal(player: Player, direction: str | None = None) -> DomainError | None:
    """Why deposits/withdrawals of this player are frozen now, or None.

    ``direction`` ("deposit" | "withdrawal") is optional: without it the answer covers both.
    Duplicate accounts of one person freeze both on all of them until staff resolve the case
    (GP §5(3)); a temporary account allows no withdrawal (GP §5(2)c); an excluded person, or one in the panic
    button's 48 hours, may not deposit (withdrawals are allowed when the direction is given).
    """
    s = player.status
    Status = Player.Status
    if s in (Status.CLOSED, Status.REJECTED, Status.EXPIRED):
        return errors.CLOSED(account_status=s)
    if s == Status.APPLICANT:
        return errors.NOT_REGISTERED(account_status=s)
    if DuplicateCase.objects.filter(players=player, state=DuplicateCase.State.OPEN).exists():
        return errors.DUPLICATE_ACCOUNTS_FROZEN()
    if s == Status.SUSPENDED:
        return errors.SUSPENDED(reason=player.status_reason)
    if s == Status.CLOSING:
        return errors.CLOSING()
    if player.exclusion_listed and direction != "withdrawal":
        return errors.EXCLUDED_PERSON()
    if direction != "withdrawal":  # the panic button stops deposits, not withdrawals
        panic: DomainError | None = hooks.deposit_refusal(player)
        if panic is not None:
            return panic
    if s == Status.TEMPORARY and direction == "withdrawal":
        return errors.TEMPORARY_NO_WITHDRAWAL()
    # the AML duties (aml.selectors.compliance_refusal: an open PEP / sanctions case, a source-of-funds declaration
    # owed, GP §12(1), §2); a missing hook raises, it never reads as "allowed"
    refusal: DomainError | None = hooks.aml_compliance_refusal(player, direction)
    return refusal


def login_sessions(player: Player, since: datetime, until: datetime) -> QuerySet[LoginSession]:
    """Sessions overlapping [since, until): started before ``until`` and not ended by ``since``.

    Open sessions have ``ended_at`` None; the limits app clips each to the window itself.
    """
    return (
        LoginSession.objects.filter(player=player, started_at__lt=until)
        .filter(Q(ended_at__isnull=True) | Q(ended_at__gt=since))
        .order_by("started_at", "id")
    )


def person_key(player: Player) -> str:
    """A stable key of the person behind the account (hash of the birth number, else of name + birth
    date + citizenship): the same for every account the person ever opens (ZHH §14a)."""
    personal = getattr(player, "personal", None) if _has_personal(player) else None
    if personal is not None:
        return personal.person_key
    return hashlib.sha256(f"accounts.person.v1|player:{player.pk}".encode()).hexdigest()


def _has_personal(player: Player) -> bool:
    try:
        player.personal  # noqa: B018
        return True
    except Player.personal.RelatedObjectDoesNotExist:
        return False


def identity_for(player: Player) -> Identity:
    """The adapters' Identity of this player (for the registers)."""
    return Identity.from_personal(player.personal)


def live_consents(player: Player) -> dict[str, Consent]:
    return {c.kind: c for c in Consent.objects.filter(player=player, withdrawn_at__isnull=True)}


def mandatory_consents_current(player: Player) -> bool:
    versions = rules.document_versions()
    live = live_consents(player)
    return all(k in live and live[k].version == versions[k] for k in Consent.MANDATORY)


STEP_TITLES = {
    "personal_data": ("Osobní údaje", "Personal data"),
    "identity_verified": ("Ověření totožnosti a věku v registru obyvatel", "Identity and age verified"),
    "aml_identification": ("Identifikace podle AML zákona", "AML identification"),
    "email_confirmed": ("Potvrzení odkazu v e-mailu (heslo přijde SMS)", "E-mail link confirmed (password by SMS)"),
    "password_changed": ("Změna prvního hesla", "First password changed"),
    "consents": (
        "Herní plán, obchodní podmínky, souhlas se zpracováním údajů",
        "Game plan, terms, data-processing consent",
    ),
    "self_limits": ("Sebeomezující opatření nastavena nebo odmítnuta", "Self-limits set or declined"),
    "payment_method": ("Ověřený platební prostředek", "Verified payment method"),
    "aml_compliance": (
        "Prohlášení o politicky exponované osobě a prověrka sankčních seznamů",
        "Politically-exposed-person declaration and sanctions screening",
    ),
}


def registration_steps(player: Player, now: datetime | None = None) -> dict[str, Any]:
    """Which completion steps (GP §4(2), §4(4), §4(8), §5(9)) are done or missing, and by when.

    The self-limits step asks ``limits`` and the payment-method step asks ``wallet`` through their hooks
    (``accounts.hooks``; a missing hook raises, it never reads as "not done")."""
    now = now or clock.now()
    deadline = player.temporary_expires_at
    done = {
        "personal_data": _has_personal(player),
        "identity_verified": player.identity_verified_at is not None,
        "aml_identification": player.aml_identified_at is not None,
        "email_confirmed": player.email_confirmed_at is not None,
        "password_changed": player.first_password_sent_at is not None and not player.user.must_change_password,
        "consents": mandatory_consents_current(player),
        "self_limits": bool(hooks.self_limits_decided(player, kind="technical")),
        "payment_method": bool(hooks.has_verified_payment_method(player)),
        # GP §2, §12(1): declared, screened, no compliance case blocking (aml, through its hook)
        "aml_compliance": hooks.aml_compliance_refusal(player, "completion") is None,
    }
    steps = []
    for code, ok in done.items():
        step_deadline = deadline
        if code == "payment_method" and not ok:
            step_deadline = hooks.payment_method_deadline(player) or deadline
        title_cs, title_en = STEP_TITLES[code]
        steps.append(
            {
                "code": code,
                "done": ok,
                "title_cs": title_cs,
                "title_en": title_en,
                "deadline": None if ok else step_deadline,
            }
        )
    missing = [s["code"] for s in steps if not s["done"]]
    return {
        "status": player.status,
        "temporary_activated_at": player.temporary_activated_at,
        "deadline": deadline,
        "seconds_left": max(0, int((deadline - now).total_seconds())) if deadline else None,
        "steps": steps,
        "missing": missing,
        "complete": player.status == Player.Status.ACTIVE,
        "can_complete": player.status == Player.Status.TEMPORARY and not missing,
        "checks_pending": player.status == Player.Status.APPLICANT and player.checks_retry_at is not None,
    }


def record_erase_dates(player: Player) -> list[dict[str, Any]]:
    """For each declared record: its periods, the years, and for this player when it is (or was) anonymised:
    ``erased_at`` (done), ``erase_from`` (the first instant it may go; None while the account is open)."""
    ended = retention.relationship_ended_at(player)
    done = dict(PersonalDataErasure.objects.filter(player=player).values_list("retention", "erased_at"))
    out = []
    for row, rec in zip(privacy_contract.retention_table(), privacy_contract.records(), strict=True):
        row = dict(row)
        row["erased_at"] = done.get(rec.retention_key)
        row["erase_from"] = retention.retention_ends_at(ended, rec.periods) if ended is not None else None
        out.append(row)
    return out


def personal_data_export(player: Player) -> dict[str, Any]:
    """Everything the platform keeps about the player (GP §12(7)a, GDPR art. 15), as JSON-ready data: the accounts
    app's part at the top level, each other app's part under its label (``aml``, ``wallet``, ``complaints`` ...; each
    app's registered privacy contract, ``accounts.privacy_contract``), then ``retention`` (every declared record, its
    periods and sources and when this player's is anonymised), ``withheld`` (what is left out, and why) and
    ``recipients`` (to whom the data go). Raises ``HookMissing`` when an app holding personal data registered no
    contract: never a partial export."""
    data: dict[str, Any] = {}
    withheld: list[dict[str, str]] = []
    for contract in privacy_contract.contracts():
        part = contract.export(player)
        if contract.app == "accounts":
            data.update(part)
        else:
            data[contract.app] = part
        withheld += [{"app": contract.app, **w} for w in contract.withheld]
    data["retention"] = record_erase_dates(player)
    data["withheld"] = withheld
    data["recipients"] = privacy_contract.recipients()
    return data


def accounts_export(player: Player) -> dict[str, Any]:
    """The accounts app's part of the export (its privacy contract): everything it keeps about the player."""
    user = player.user
    data: dict[str, Any] = {
        "account": {
            "username": user.username,
            "status": player.status,
            "status_reason": player.status_reason,
            "channel": player.channel,
            "created_at": player.created_at,
            "temporary_activated_at": player.temporary_activated_at,
            "temporary_expires_at": player.temporary_expires_at,
            "completed_at": player.completed_at,
            "identity_verified_at": player.identity_verified_at,
            "aml_identified_at": player.aml_identified_at,
            "email_confirmed_at": player.email_confirmed_at,
            "closure_requested_at": player.closure_requested_at,
            "closure_method": player.closure_method,
            "closed_at": player.closed_at,
            "last_login": user.last_login,
        },
        "personal_data": None,
        "consents": [
            {"kind": c.kind, "version": c.version, "given_at": c.given_at, "withdrawn_at": c.withdrawn_at}
            for c in player.consents.order_by("given_at", "id")
        ],
        "identity_verifications": [
            {
                "method": v.method,
                "document_type": v.document_type,
                "document_number": v.document_number,
                "document_issuing_state": v.document_issuing_state,
                "document_issuing_authority": v.document_issuing_authority,
                "document_valid_until": v.document_valid_until,
                "likeness_confirmed": v.likeness_confirmed,
                "verified_at": v.verified_at,
            }
            for v in player.identity_verifications.order_by("verified_at", "id")
        ],
        "register_checks": [
            {"register": c.register, "context": c.context, "result": c.result, "checked_at": c.checked_at}
            for c in player.register_checks.order_by("checked_at", "id")
        ],
        "login_sessions": [
            {
                "started_at": s.started_at,
                "ended_at": s.ended_at,
                "end_reason": s.end_reason,
                "ip_address": s.ip_address,
                "user_agent": s.user_agent,
            }
            for s in player.login_sessions.order_by("started_at", "id")
        ],
        "correction_requests": [
            {
                "id": r.pk,
                "changes": r.changes,
                "note": r.note,
                "state": r.state,
                "created_at": r.created_at,
                "decided_at": r.decided_at,
                "decision_note": r.decision_note,
            }
            for r in player.correction_requests.order_by("created_at", "id")
        ],
        "terms_acceptances": [
            {
                "version": a.version.version,
                "accepted_at": a.accepted_at,
                "source": a.source,
                "source_address": a.source_address,
            }
            for a in player.terms_acceptances.select_related("version").order_by("accepted_at", "id")
        ],
        "messages": [
            {
                "id": m.pk,
                "kind": m.kind,
                "subject_cs": m.subject_cs,
                "subject_en": m.subject_en,
                "body_cs": m.body_cs,
                "body_en": m.body_en,
                "created_at": m.created_at,
                "read_at": m.read_at,
                "deliveries": [
                    {
                        "channel": d.channel,
                        "recipient": d.recipient,
                        "status": d.status,
                        "attempted_at": d.attempted_at,
                        "delivered_at": d.delivered_at,
                    }
                    for d in m.deliveries.all()
                ],
            }
            for m in player.messages.prefetch_related("deliveries").order_by("created_at", "id")
        ],
        "data_requests": [
            {
                "id": r.pk,
                "kind": r.kind,
                "state": r.state,
                "text": r.text,
                "received_at": r.received_at,
                "due_at": r.due_at,
                "decided_at": r.decided_at,
                "answer_cs": r.answer_cs,
                "answer_en": r.answer_en,
                "legal_basis": r.legal_basis,
                "erase_on": r.erase_on,
                "ended_at": r.ended_at,
            }
            for r in player.data_requests.order_by("received_at", "id")
        ],
        "history": [
            {
                "at": e.occurred_at,
                "action": e.action,
                "actor_type": e.actor_type,
                "old": e.old_values,
                "new": e.new_values,
            }
            for e in player_history(player).order_by("occurred_at", "id")
        ],
    }
    if _has_personal(player):
        pd = model_to_dict(
            player.personal, exclude=["id", "player", "email_key", "document_key", "name_dob_key", "person_key"]
        )
        data["personal_data"] = pd
    return data


def player_history(player: Player) -> QuerySet[AuditEvent]:
    """Audit events about this player and their personal data (who changed what)."""
    return AuditEvent.objects.filter(
        Q(object_type="accounts.player", object_id=str(player.pk)) | Q(details__player_id=player.pk)
    ).order_by("-occurred_at", "-id")


def email_of(player: Player) -> str:
    """Where the player's e-mails go: the personal data's address, else the user's."""
    try:
        return player.personal.email
    except Player.personal.RelatedObjectDoesNotExist:
        return player.user.email


def find_duplicates(
    clean: dict[str, Any], keys: dict[str, str], *, exclude_player_ids: Iterable[int] = ()
) -> dict[str, list[int]]:
    """GP §4(4)c: which identifying data match another applicant or participant (not closed,
    expired or rejected): birth number, identity document, e-mail, phone, name + date of birth."""
    base = PersonalData.objects.exclude(player__status__in=Player.TERMINAL).exclude(
        player_id__in=list(exclude_player_ids)
    )
    lookups: dict[str, dict[str, Any] | None] = {
        "birth_number": {"birth_number": clean["birth_number"]} if clean.get("birth_number") else None,
        "document_number": {"document_key": keys["document_key"]},
        "email": {"email_key": keys["email_key"]},
        "phone": {"phone": clean["phone"]},
        "name_and_date_of_birth": {"name_dob_key": keys["name_dob_key"]},
    }
    found = {}
    for name, lookup in lookups.items():
        if lookup is None:
            continue
        ids = sorted(base.filter(**lookup).values_list("player_id", flat=True))
        if ids:
            found[name] = ids
    return found


def barred_person_matches(*, birth_number: str, name_dob_key: str) -> BarredPerson | None:
    """GP §3(3): the active insider entry (shareholder, employee, officer) matching this person, if any."""
    q = Q(name_dob_key=name_dob_key)
    if birth_number:
        q |= Q(birth_number=birth_number)
    return BarredPerson.objects.filter(q, active=True).first()


# Notices (GP §7(7), §10(4)) --------------------------------------------------------------------------------------
def messages_of(player: Player) -> QuerySet[Message]:
    """The player's inbox, newest first."""
    return Message.objects.filter(player=player).order_by("-created_at", "-id")


def message_of(player: Player, message_id: int) -> Message | None:
    """One message of this player (None when it is not theirs or does not exist)."""
    return Message.objects.filter(player=player, pk=message_id).first()


def messages_unread(player: Player) -> int:
    return Message.objects.filter(player=player, read_at__isnull=True).count()


# The game plan and terms (GP §3(5), §8(1)) ------------------------------------------------------------------------
def terms_in_force(at: datetime | None = None) -> TermsVersion | None:
    """The version in force at ``at`` (now), read from the database (the stake path uses ``accounts.terms``)."""
    at = at or clock.now()
    return TermsVersion.objects.filter(effective_at__lte=at).order_by("-effective_at", "-version").first()


def terms_upcoming(at: datetime | None = None) -> list[TermsVersion]:
    """Published versions not in force yet (announced to the players, GP §8(1)), soonest first."""
    at = at or clock.now()
    return list(TermsVersion.objects.filter(effective_at__gt=at).order_by("effective_at", "version"))


# Personal-data requests (GP §12(7)) ------------------------------------------------------------------------------
def data_requests_of(player: Player) -> QuerySet[DataRequest]:
    """The player's personal-data requests, newest first."""
    return DataRequest.objects.filter(player=player).order_by("-received_at", "-id")


def data_request_of(player: Player, request_id: int) -> DataRequest | None:
    """One request of this player (None when it is not theirs or does not exist)."""
    return DataRequest.objects.filter(player=player, pk=request_id).first()


def processing_restricted(player: Player) -> bool:
    """GP §12(7)b, GDPR art. 18: a blocking is in force (from its receipt until refused, lifted or withdrawn)."""
    return DataRequest.objects.filter(
        player=player, kind=DataRequest.Kind.BLOCKING, state__in=[DataRequest.State.PENDING, DataRequest.State.GRANTED]
    ).exists()


def marketing_allowed(player: Player) -> bool:
    """May the data be used for marketing or the loyalty programme (GP §12(3), §12(6))? Only with a live marketing
    consent, on an account not ended nor anonymised, and while no blocking is in force (GP §12(7)b). Whatever offers
    marketing or loyalty asks this, never the consent alone."""
    if player.status in Player.TERMINAL or player.anonymised_at is not None:
        return False
    return "marketing" in live_consents(player) and not processing_restricted(player)


# The back office: a player's whole picture, the search, the data-request queue -----------------------

#: the fields staff search a player by (the birth number only by exact match, in ``players_by_birth_number``)
SEARCH_FIELDS = ("user__username", "personal__surname", "personal__given_names", "personal__email", "personal__phone")


def staff_player(player_id: int) -> Player:
    """The player with their user and personal data, in one statement (raises Player.DoesNotExist)."""
    return Player.objects.select_related("user", "personal").get(pk=player_id)


#: the accented letters of Czech, Slovak, German, Polish and Hungarian names and their base letters: search folds
#: both sides with this one table (SQL ``translate`` over ``lower``, Python ``str.translate``), so "novakova" finds
#: "Nováková" without a database extension (the embedded PostgreSQL has no ``unaccent``)
ACCENTED = "áäąčćďéěëęíĺľłňńóôöőŕřšśťúůüűýžźż"
UNACCENTED = "aaaccdeeeeilllnnoooorrsstuuuuyzzz"
_FOLD = str.maketrans(ACCENTED, UNACCENTED)
assert len(ACCENTED) == len(UNACCENTED)


def fold(text: str) -> str:
    """``text`` as the search compares it: lower case, without accents."""
    return text.lower().translate(_FOLD)


def _folded(field: str) -> Func:
    return Func(Lower(F(field)), Value(ACCENTED), Value(UNACCENTED), function="TRANSLATE", output_field=CharField())


def players_search(text: str, *, limit: int = 50) -> list[Player]:
    """Players whose username, name, e-mail or phone contains ``text``, ignoring case and accents ("novakova" finds
    "Nováková"); a name of several words matches given names and surname in either order. One statement."""
    words = text.split()
    if not words:
        return []
    qs = Player.objects.annotate(
        _surname=_folded("personal__surname"),
        _given=_folded("personal__given_names"),
        _username=_folded("user__username"),
    )
    q = Q()
    for word in words:
        w = fold(word)
        q &= (
            Q(_username__contains=w)
            | Q(_surname__contains=w)
            | Q(_given__contains=w)
            | Q(personal__email__icontains=word)
            | Q(personal__phone__icontains=word.replace(" ", ""))
        )
    return list(qs.filter(q).select_related("user", "personal").order_by("user__username")[:limit])


def players_by_birth_number(birth_number: str) -> list[Player]:
    """The players with exactly this birth number (with or without the slash): never a part of one."""
    digits = birth_number.replace("/", "").strip()
    if not digits.isdigit():
        return []
    return list(Player.objects.filter(personal__birth_number=digits).select_related("user", "personal"))


def identity_verifications(player: Player, *, limit: int = 10) -> list[IdentityVerification]:
    return list(
        IdentityVerification.objects.filter(player_id=player.pk)
        .select_related("verified_by")
        .order_by("-verified_at", "-pk")[:limit]
    )


def register_checks(player: Player, *, limit: int = 10) -> list[RegisterCheck]:
    return list(RegisterCheck.objects.filter(player_id=player.pk).order_by("-checked_at", "-pk")[:limit])


def messages_recent(player: Player, *, limit: int = 10) -> list[Message]:
    return list(messages_of(player)[:limit])


def data_requests_recent(player: Player, *, limit: int = 10) -> list[DataRequest]:
    return list(data_requests_of(player)[:limit])


def status_timeline(player: Player, *, limit: int = 20) -> list[AuditEvent]:
    """The account's state changes (each audit event of the player that set a new ``status``), newest first."""
    return list(
        AuditEvent.objects.filter(
            object_type="accounts.player", object_id=str(player.pk), new_values__has_key="status"
        ).order_by("-occurred_at", "-id")[:limit]
    )


def history_recent(player: Player, *, limit: int = 50) -> list[AuditEvent]:
    return list(player_history(player)[:limit])


def data_requests_queue() -> QueueState:
    """Personal-data requests waiting for an answer (GP §12(7)): count and the oldest receipt."""
    return queue_of(DataRequest.objects.filter(state=DataRequest.State.PENDING), "received_at")


def player_id_for(text: str) -> int | None:
    """The player a staff filter names: a username (exact) or a player id."""
    text = text.strip()
    if not text:
        return None
    found = Player.objects.filter(user__username=text).values_list("pk", flat=True).first()
    if found is None and text.isdigit() and len(text) < 12:
        found = Player.objects.filter(pk=int(text)).values_list("pk", flat=True).first()
    return int(found) if found is not None else None


def population_check_latest(player: Player) -> RegisterCheck | None:
    """The latest population-register check of the player (GP §4(4)c: the register match of the identity)."""
    return (
        RegisterCheck.objects.filter(player_id=player.pk, register=RegisterCheck.Register.POPULATION)
        .order_by("-checked_at", "-pk")
        .first()
    )


def duplicate_cases_queue() -> QueueState:
    """Open duplicate-account cases (a refused duplicate registration opens one): count and the oldest."""
    return queue_of(DuplicateCase.objects.filter(state=DuplicateCase.State.OPEN), "created_at")


def register_reviews_queue() -> QueueState:
    """The AISG interface's answers staff must act on (a person the population register could not identify, an
    outage the platform failed closed on), still open."""
    return queue_of(RegisterReview.objects.filter(resolved_at__isnull=True), "created_at")
