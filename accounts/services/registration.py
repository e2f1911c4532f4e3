"""Registration (GP §4, §5(1)): personal data, duplicate check, exclusion and population register
checks, the temporary account, and the credentials (e-mail link -> first password by SMS, GP §4(7))."""

from __future__ import annotations

import logging
import re
from datetime import date, datetime, timedelta
from typing import Any, NoReturn

from django.conf import settings
from django.core import signing
from django.db import transaction

from accounts import errors, hooks, rules
from accounts.adapters import (
    Identity,
    PopulationAnswer,
    RegisterUnavailable,
    get_aisg_register,
    get_exclusion_register,
    get_population_register,
    uses_aisg,
)
from accounts.aisg import client as aisg_client
from accounts.aisg import types as aisg_types
from accounts.models import (
    Consent,
    DuplicateCase,
    IdentityVerification,
    PersonalData,
    Player,
    RegisterCheck,
    RegisterReview,
    User,
)
from accounts.selectors import barred_person_matches, email_of, find_duplicates, terms_in_force
from accounts.services import registers
from accounts.services.lifecycle import player_set_barred_insider, registration_reject, temporary_activate
from accounts.services.locks import player_lock
from accounts.services.notify import EMAIL_LINK_SALT, email_link_issue, email_on_commit, sms_on_commit
from accounts.services.terms import terms_accept_at_registration
from accounts.validation import FIELDS, age_on, derived_keys, email_key, require_adult, validate_personal_data
from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError
from core.rng import get_rng
from core.sql import advisory_lock

logger = logging.getLogger("accounts.registration")
Status = Player.Status
USERNAME_RE = re.compile(r"^[A-Za-z0-9._-]{4,30}$")
PASSWORD_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789"


# Helpers ----------------------------------------------------------------------------------------
def validate_username(username: str | None) -> str:
    username = (username or "").strip()
    if not USERNAME_RE.match(username):
        raise errors.USERNAME_INVALID()
    return username


def username_taken(username: str) -> bool:
    return User.objects.filter(username__iexact=username).exists()


def generate_username() -> str:
    """GP §4(7): at a branch the staff generate the username."""
    rng = get_rng()
    while True:
        candidate = "h" + "".join(str(rng.randbelow(10)) for _ in range(8))
        if not username_taken(candidate):
            return candidate


def generate_password(length: int = 12) -> str:
    rng = get_rng()
    while True:
        pw = "".join(PASSWORD_ALPHABET[rng.randbelow(len(PASSWORD_ALPHABET))] for _ in range(length))
        if any(c.isupper() for c in pw) and any(c.islower() for c in pw) and any(c.isdigit() for c in pw):
            return pw


def validate_consents(consents: dict[str, Any] | None) -> dict[str, str]:
    """GP §4(4)d: the game plan acknowledged, the terms accepted and data-processing consent given,
    each in its current version; marketing is optional (GP §12(3))."""
    consents = consents or {}
    versions = rules.document_versions()
    missing = [k for k in Consent.MANDATORY if not consents.get(k)]
    if missing:
        raise errors.CONSENT_REQUIRED(missing=missing, versions=versions)
    out: dict[str, str] = {}
    for kind in Consent.MANDATORY:
        if str(consents[kind]) != versions[kind]:
            raise errors.CONSENT_VERSION_OUTDATED(kind=kind, current=versions[kind], given=str(consents[kind]))
        out[kind] = versions[kind]
    marketing = consents.get("marketing")
    if marketing:
        if isinstance(marketing, str) and marketing != versions["marketing"]:
            raise errors.CONSENT_VERSION_OUTDATED(kind="marketing", current=versions["marketing"], given=marketing)
        out["marketing"] = versions["marketing"]
    plan_version = consents.get("plan_version")
    if plan_version is not None:  # optional: the published version of the plan and terms the applicant read
        current = terms_in_force()
        if current is None or str(plan_version) != str(current.version):
            raise errors.CONSENT_VERSION_OUTDATED(
                kind="plan_version", current=current.version if current else None, given=plan_version
            )
    return out


def _registration_lock() -> None:
    advisory_lock("accounts.registration")


def _application_json(
    *, clean: dict[str, Any], username: str, consents: dict[str, str], channel: str
) -> dict[str, Any]:
    data = {f: (v.isoformat() if hasattr(v, "isoformat") else v) for f, v in clean.items() if f in FIELDS}
    return {"personal_data": data, "username": username, "consents": consents, "channel": channel}


def _refuse_duplicate(
    *,
    clean: dict[str, Any],
    matches: dict[str, list[int]],
    username: str,
    consents: dict[str, str],
    channel: str,
    actor: Actor,
) -> NoReturn:
    """Keep the refused application for customer support (staff resolve it in the admin) and refuse."""
    with transaction.atomic():
        case = DuplicateCase.objects.create(
            kind=DuplicateCase.Kind.REGISTRATION,
            matched_fields=sorted(matches),
            application=_application_json(clean=clean, username=username, consents=consents, channel=channel),
            created_at=clock.now(),
        )
        case.players.set(sorted({pk for ids in matches.values() for pk in ids}))
        audit_record(
            actor=actor, action="accounts.duplicate.registration_refused", obj=case, matched_fields=sorted(matches)
        )
    raise errors.DUPLICATE_PERSONAL_DATA(case_id=case.pk, support=settings.ACCOUNTS_SUPPORT_CONTACT)


POPULATION_RESULTS = {
    errors.REGISTER_NOT_FOUND.code: RegisterCheck.Result.NOT_FOUND,
    errors.REGISTER_MISMATCH.code: RegisterCheck.Result.MISMATCH,
    errors.UNDERAGE.code: RegisterCheck.Result.UNDER_18,
}


def _population_verdict(answer: PopulationAnswer, today: date) -> None:
    """Raise the refusal for a population-register answer (GP §4(4)c, f; §3(1) age at the check)."""
    if not answer.found:
        raise errors.REGISTER_NOT_FOUND()
    if answer.mismatches:
        raise errors.REGISTER_MISMATCH(fields=list(answer.mismatches))
    if not answer.resident_in_cz:
        raise errors.REGISTER_MISMATCH(fields=["residence"])
    if answer.date_of_birth and age_on(answer.date_of_birth, today) < 18:
        raise errors.UNDERAGE(checked_on=today)


def _aisg_register_checks(
    identity: Identity, *, context: str, player: Player | None
) -> tuple[str, DomainError | None, list[dict[str, Any]]]:
    """One ``OveritOsobu`` with reason ``Registrace`` answers both registers; its decision table
    (``accounts.aisg.client.decide``): excluded or not adult -> refused; not identified in the population register
    -> refused, staff review the person; no usable answer -> "unavailable" (the application waits, retried on the
    schedule of ``registration_checks_retry_due``, staff alerted)."""
    try:
        answer = get_aisg_register().check(identity, reason=aisg_types.REGISTRATION)
    except RegisterUnavailable as exc:
        registers.review_open(kind=RegisterReview.Kind.OUTAGE, player=player, context=context, reason=str(exc))
        return "unavailable", None, registers.failure_records(str(exc))
    records = registers.records_of(answer)
    decision = aisg_client.decide(answer)
    if decision.outcome == aisg_client.OK:
        return "ok", None, records
    application = {
        "given_names": identity.given_names,
        "surname": identity.surname,
        "date_of_birth": identity.date_of_birth.isoformat(),
        "citizenship": identity.citizenship,
    }
    registers.outcome_review(
        decision,
        player=player,
        context=context,
        details={**registers.answer_details(answer), "application": application},
    )
    if decision.outcome == aisg_client.UNAVAILABLE:
        return "unavailable", None, records
    if decision.outcome == aisg_client.EXCLUDED:
        return "refused", errors.EXCLUDED_PERSON(), records
    if decision.outcome == aisg_client.UNDERAGE:
        return "refused", errors.UNDERAGE(checked_on=clock.business_date()), records
    return "refused", errors.REGISTER_NOT_FOUND(population_register=answer.rob, manual_review=True), records


def run_register_checks(
    identity: Identity, *, today: date, context: str = "registration", player: Player | None = None
) -> tuple[str, DomainError | None, list[dict[str, Any]]]:
    """Exclusion register, then population register (with AISG: one answer for both, its decision table). Returns
    ("ok" | "refused" | "unavailable", the refusal (only with "refused"), the check records to store). Network
    calls: never inside a transaction."""
    if uses_aisg():
        return _aisg_register_checks(identity, context=context, player=player)
    records: list[dict[str, Any]] = []
    Result = RegisterCheck.Result
    try:
        listed = get_exclusion_register().is_listed(identity)
    except RegisterUnavailable as exc:
        records.append({"register": "exclusion", "result": Result.UNAVAILABLE, "details": {"error": str(exc)[:200]}})
        return "unavailable", None, records
    records.append({"register": "exclusion", "result": Result.LISTED if listed else Result.NOT_LISTED, "details": {}})
    if listed:
        return "refused", errors.EXCLUDED_PERSON(), records
    try:
        answer = get_population_register().verify(identity)
    except RegisterUnavailable as exc:
        records.append({"register": "population", "result": Result.UNAVAILABLE, "details": {"error": str(exc)[:200]}})
        return "unavailable", None, records
    try:
        _population_verdict(answer, today)
    except DomainError as err:
        records.append(
            {
                "register": "population",
                "result": POPULATION_RESULTS[err.code],
                "details": {"mismatches": list(answer.mismatches)},
            }
        )
        return "refused", err, records
    records.append({"register": "population", "result": Result.FOUND, "details": {}})
    return "ok", None, records


def _store_checks(player: Player, records: list[dict[str, Any]], context: str) -> None:
    now = clock.now()
    for r in records:
        registers.hid_store(player.pk, ((r.get("details") or {}).get("aisg") or {}).get("HID"))
        RegisterCheck.objects.create(player=player, context=context, checked_at=now, **r)
        if r["register"] == "exclusion" and r["result"] in (
            RegisterCheck.Result.LISTED,
            RegisterCheck.Result.NOT_LISTED,
        ):
            player.exclusion_listed = r["result"] == RegisterCheck.Result.LISTED
            player.exclusion_checked_at = now
    player.save(update_fields=["exclusion_listed", "exclusion_checked_at"])


def _identity_verified(player: Player, *, actor: Actor) -> None:
    """The population register matched: identity and age verified, and the temporary account starts. That match is
    NOT the AML identification (GP §4(4)b asks for the identity document and a likeness check): online it comes
    from the identification provider (aml, ``/api/v1/aml/identifications``), at a branch from staff. The person is
    screened against the PEP / sanctions list once this commits (the ``aml_screening_request`` hook)."""
    now = clock.now()
    player.identity_verified_at = now
    player.save(update_fields=["identity_verified_at"])
    temporary_activate(player=player, actor=actor)
    hooks.aml_screening_request(player=player, actor=actor)


# Registration -----------------------------------------------------------------------------------
def _applicant_username(
    *, channel: str, username: str | None, staff_user: User | None, branch_identification: dict[str, Any] | None
) -> str:
    """Online the applicant chooses the username; at a branch (GP §4(3)) staff confirm the likeness and the
    username is generated unless given (GP §4(7))."""
    if channel == Player.Channel.BRANCH:
        if staff_user is None or not staff_user.is_staff:
            raise errors.INVALID_TRANSITION(reason="branch registration needs a staff user")
        if not (branch_identification or {}).get("likeness_confirmed"):
            raise errors.BRANCH_LIKENESS_REQUIRED()
        return validate_username(username) if username else generate_username()
    if channel == Player.Channel.ONLINE:
        return validate_username(username)
    raise ValueError(f"unknown channel {channel!r}")


def _applicant_create(
    *,
    clean: dict[str, Any],
    keys: dict[str, str],
    username: str,
    channel: str,
    consents: dict[str, str],
    actor: Actor | None,
    checks: str,
    records: list[dict[str, Any]],
    now: datetime,
    source_address: str | None = None,
) -> tuple[Player, Actor]:
    """Insert the user, the applicant, the personal data, the consents, the acceptance of the game plan and terms in
    force (GP §3(5), §4(4)d) and the register checks (under the registration lock); flag a barred insider
    (GP §3(3)). Returns the player and the actor of the registration."""
    if username_taken(username):
        raise errors.USERNAME_TAKEN()
    user = User(
        username=username, email=clean["email"], first_name=clean["given_names"][:150], last_name=clean["surname"][:150]
    )
    user.set_unusable_password()
    user.save()
    player = Player.objects.create(
        user=user,
        status=Status.APPLICANT,
        created_at=now,
        channel=channel,
        status_changed_at=now,
        status_reason="registration_submitted",
    )
    PersonalData.objects.create(player=player, **{f: clean[f] for f in FIELDS}, **keys, updated_at=now)
    for kind, version in consents.items():
        Consent.objects.create(player=player, kind=kind, version=version, given_at=now)
    actor = actor or Actor.player(player)
    audit_record(
        actor=actor,
        action="accounts.registration.submitted",
        obj=player,
        player_id=player.pk,
        channel=channel,
        checks=checks,
        consents=consents,
    )
    terms_accept_at_registration(player=player, actor=actor, source_address=source_address)
    _store_checks(player, records, "registration")
    barred = barred_person_matches(birth_number=clean["birth_number"], name_dob_key=keys["name_dob_key"])
    if barred is not None:
        player_set_barred_insider(
            player=player,
            barred=True,
            note=f"{barred.role} #{barred.pk}",
            actor=Actor.system("accounts.barred_persons"),
        )
    return player, actor


def registration_submit(
    *,
    data: dict[str, Any],
    consents: dict[str, Any],
    username: str | None = None,
    channel: str = "online",
    actor: Actor | None = None,
    staff_user: User | None = None,
    branch_identification: dict[str, Any] | None = None,
    duplicate_case: DuplicateCase | None = None,
    source_address: str | None = None,
) -> Player:
    """Register an applicant online (chosen username) or at a branch (staff, generated username).

    Validates the GP §4(4)a data, refuses duplicates (GP §4(4)c, kept as a case for support),
    persons in the exclusion register, persons not found / not matching / under 18 in the
    population register; when a register is unavailable the applicant is stored with the checks
    pending (retried by a sweeper, the applicant is told). On success the temporary account is
    active and the e-mail link that releases the first password is sent.
    """
    now = clock.now()
    today = clock.business_date(now)
    clean = validate_personal_data(data or {}, today=today)
    require_adult(clean["date_of_birth"], today)
    accepted = validate_consents(consents)
    username = _applicant_username(
        channel=channel, username=username, staff_user=staff_user, branch_identification=branch_identification
    )
    if channel == Player.Channel.BRANCH and staff_user is not None:
        actor = actor or Actor.staff(staff_user)
    if username_taken(username):
        raise errors.USERNAME_TAKEN()
    keys = derived_keys(clean)
    allowed = set(duplicate_case.players.values_list("pk", flat=True)) if duplicate_case else set()
    anonymous = actor or Actor("player", "", username)
    matches = find_duplicates(clean, keys, exclude_player_ids=allowed)
    if matches:
        _refuse_duplicate(
            clean=clean, matches=matches, username=username, consents=accepted, channel=channel, actor=anonymous
        )
    outcome, refusal, records = run_register_checks(Identity.from_clean(clean), today=today)
    if refusal is not None:
        raise refusal

    with transaction.atomic():
        _registration_lock()
        matches = find_duplicates(clean, keys, exclude_player_ids=allowed)
        if not matches:
            player, actor = _applicant_create(
                clean=clean,
                keys=keys,
                username=username,
                channel=channel,
                consents=accepted,
                actor=actor,
                checks=outcome,
                records=records,
                now=now,
                source_address=source_address,
            )
            if channel == Player.Channel.BRANCH and staff_user is not None:
                _branch_identification(player, clean, (branch_identification or {}).get("note") or "", staff_user)
            if duplicate_case is not None:
                duplicate_case.registered_player = player
                duplicate_case.save(update_fields=["registered_player"])
                duplicate_case.players.add(player)
            if outcome == "unavailable":
                _checks_pending(player, attempts=1)
            else:
                _identity_verified(player, actor=actor)
    if matches:
        _refuse_duplicate(
            clean=clean, matches=matches, username=username, consents=accepted, channel=channel, actor=anonymous
        )
    player.refresh_from_db()
    return player


def _branch_identification(player: Player, clean: dict[str, Any], note: str, staff_user: User) -> None:
    now = clock.now()
    IdentityVerification.objects.create(
        player=player,
        method=IdentityVerification.Method.BRANCH,
        document_type=clean["document_type"],
        document_number=clean["document_number"],
        document_issuing_state=clean["document_issuing_state"],
        document_issuing_authority=clean["document_issuing_authority"],
        document_valid_until=clean["document_valid_until"],
        likeness_confirmed=True,
        verified_by=staff_user,
        verified_at=now,
        note=note[:300],
    )
    player.aml_identified_at = now
    player.save(update_fields=["aml_identified_at"])
    audit_record(
        actor=Actor.staff(staff_user),
        action="accounts.identity.verified_at_branch",
        obj=player,
        player_id=player.pk,
        document_type=clean["document_type"],
    )


def _retry_delay(attempts: int) -> timedelta:
    first = settings.ACCOUNTS_CHECK_RETRY_FIRST_MINUTES
    cap = settings.ACCOUNTS_CHECK_RETRY_MAX_MINUTES
    return timedelta(minutes=min(cap, first * 2 ** max(0, attempts - 1)))


def _checks_pending(player: Player, *, attempts: int) -> None:
    """A register was unavailable: keep the applicant, retry later, tell them (first time only)."""
    player.checks_attempts = attempts
    give_up_at = player.created_at + timedelta(days=settings.ACCOUNTS_REGISTRATION_MAX_DAYS)
    player.checks_retry_at = min(clock.now() + _retry_delay(attempts), give_up_at)
    player.save(update_fields=["checks_attempts", "checks_retry_at"])
    if attempts == 1:
        email_on_commit(
            to=email_of(player),
            subject_cs="Registrace čeká na ověření",
            subject_en="Registration waiting for verification",
            body_cs=(
                "Státní registr je nyní nedostupný, ověření vaší totožnosti proto zopakujeme později. "
                "Jakmile bude hotovo, pošleme vám e-mail s odkazem."
            ),
            body_en=(
                "A state register is unavailable now, so we will retry verifying your identity later. "
                "We will e-mail you a link once it is done."
            ),
        )


def registration_checks_retry_due(*, now: datetime | None = None, limit: int = 200) -> int:
    """Sweeper: re-run the register checks of applicants whose checks could not run.

    Claims a row with a lease (short transaction), calls the registers outside any transaction,
    then records the result; safe on two workers. Gives up (rejects) 30 days after the start of
    registration (GP §5(9))."""
    now = now or clock.now()
    max_age = timedelta(days=settings.ACCOUNTS_REGISTRATION_MAX_DAYS)
    lease = timedelta(minutes=settings.ACCOUNTS_CHECK_LEASE_MINUTES)
    ids = list(
        Player.objects.filter(status=Status.APPLICANT, checks_retry_at__lte=now)
        .order_by("checks_retry_at")
        .values_list("pk", flat=True)[:limit]
    )
    handled = 0
    system = Actor.system("accounts.checks_retry")
    for pk in ids:
        with transaction.atomic():
            p = (
                Player.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(pk=pk, status=Status.APPLICANT, checks_retry_at__lte=now)
                .first()
            )
            if p is None:
                continue
            if now >= p.created_at + max_age:
                registration_reject(player=p, reason="checks_not_completed_in_30_days", actor=system)
                handled += 1
                continue
            p.checks_retry_at = now + lease
            p.save(update_fields=["checks_retry_at"])
        p = Player.objects.select_related("personal").get(pk=pk)
        outcome, refusal, records = run_register_checks(
            Identity.from_personal(p.personal), today=clock.business_date(now), context="retry", player=p
        )
        with transaction.atomic():
            p = player_lock(p)
            if p.status != Status.APPLICANT:
                continue
            _store_checks(p, records, "retry")
            if outcome == "unavailable":
                _checks_pending(p, attempts=p.checks_attempts + 1)
            elif refusal is not None:
                registration_reject(player=p, reason=refusal.code, actor=system)
            else:
                _identity_verified(p, actor=system)
            handled += 1
    return handled


# Credentials (GP §4(7)) -------------------------------------------------------------------------------
def _mask_phone(phone: str) -> str:
    return phone[:4] + "*" * max(0, len(phone) - 7) + phone[-3:]


def email_link_confirm(*, token: str) -> dict[str, str]:
    """The applicant confirmed the e-mail link: issue the first password and send it by SMS.

    The password must be changed at first login (User.must_change_password). A link works once;
    a second click answers "already_confirmed" and sends nothing."""
    max_age = settings.ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS * 3600
    try:
        payload = signing.loads(token or "", salt=EMAIL_LINK_SALT, max_age=max_age)
    except signing.SignatureExpired:
        raise errors.EMAIL_LINK_EXPIRED()
    except signing.BadSignature:
        raise errors.EMAIL_LINK_INVALID()
    if not isinstance(payload, dict) or not isinstance(payload.get("p"), int) or not isinstance(payload.get("s"), int):
        raise errors.EMAIL_LINK_INVALID()
    now = clock.now()
    with transaction.atomic():
        p = (
            Player.objects.select_related("user", "personal")
            .select_for_update(no_key=True, of=("self",))
            .filter(pk=payload["p"])
            .first()
        )
        if p is None or payload["s"] != p.email_link_seq:
            raise errors.EMAIL_LINK_INVALID()
        if p.email_link_used_seq == payload["s"]:
            return {"status": "already_confirmed", "phone": _mask_phone(p.personal.phone)}
        if p.status != Status.TEMPORARY:
            raise errors.ACCOUNT_NOT_USABLE(account_status=p.status)
        if p.temporary_expires_at and p.temporary_expires_at <= now:
            raise errors.TEMPORARY_EXPIRED(expired_at=p.temporary_expires_at)
        password = generate_password()
        user = p.user
        user.set_password(password)
        user.must_change_password = True
        user.save(update_fields=["password", "must_change_password"])
        user.auth_tokens.filter(revoked_at__isnull=True).update(revoked_at=now, revoked_reason="new_first_password")
        p.email_link_used_seq = payload["s"]
        p.email_confirmed_at = p.email_confirmed_at or now
        p.first_password_sent_at = now
        p.save(update_fields=["email_link_used_seq", "email_confirmed_at", "first_password_sent_at"])
        audit_record(
            actor=Actor.player(p),
            action="accounts.credentials.first_password_sent",
            obj=p,
            player_id=p.pk,
            seq=payload["s"],
        )
        sms_on_commit(
            to=p.personal.phone,
            purpose="first_password",
            text=(
                f"Uzivatelske jmeno: {user.username}, prvni heslo: {password} - pri prvnim prihlaseni ho zmente. "
                f"/ Username: {user.username}, first password: {password} - change it at first login."
            ),
        )
    return {"status": "password_sent", "phone": _mask_phone(p.personal.phone)}


def email_link_resend(*, username: str, email: str) -> bool:
    """A new link while the first password is not yet changed (link expired, SMS lost).
    Answers nothing about whether the account exists (the API always says "accepted")."""
    p = (
        Player.objects.select_related("user")
        .filter(user__username__iexact=(username or "").strip(), personal__email_key=email_key(email or ""))
        .first()
    )
    if p is None or p.status != Status.TEMPORARY:
        return False
    if p.first_password_sent_at is not None and not p.user.must_change_password:
        return False
    with transaction.atomic():
        p = player_lock(p)
        email_link_issue(player=p)
    return True
