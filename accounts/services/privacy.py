"""Personal-data requests (GP §12(7)) and the anonymisation at the end of the retention periods (GP §12(5)).

Requests: a player asks for an explanation, a blocking (GDPR art. 18) or a deletion (GDPR art. 17)
(``data_request_create``); staff decide (``data_request_decide``, ``blocking_lift``); the player may withdraw a
request or end their own blocking (``data_request_withdraw``). Each step is audited and reaches the player through
the proven inbox (``message_send``) with the notice of the right to turn to the data-protection authority
(GP §12(7)e). Access (``me/export``) and correction (``CorrectionRequest``) keep their own paths.

* explanation: staff answer in writing how and why the data are processed.
* blocking: in force from its receipt until refused, lifted or withdrawn; meanwhile the data are not used for
  marketing or loyalty (``accounts.selectors.marketing_allowed``). The processing the law requires (ZHH, AML,
  accounting) continues.
* deletion: the optional data (the marketing consent) are erased at once; the data the law requires cannot be
  erased while the account is open nor during the retention periods, so the request is granted in part, with the
  legal basis and the first day they may be erased; an ended account past retention is anonymised at once.

Retention: ``personal_data_anonymise_due`` (daily) runs every app's anonymisation (``accounts.privacy_contract``):
each group of records of an ended account (closed, expired, refused) at the end of the longest of its periods
(``accounts.retention``), the account itself (every period) last. The audit trail and the append-only ledger are not
touched. Each erasure is recorded (``PersonalDataErasure``) and told to the recipients of the records
(``accounts.services.recipients``).
"""

from __future__ import annotations

import functools
import hashlib
from datetime import date, datetime
from typing import Any

from django.contrib.auth.hashers import make_password
from django.db import transaction
from django.db.models import Exists, OuterRef, Q
from django.db.models.functions import Coalesce

from accounts import errors, privacy, privacy_contract, retention
from accounts.models import (
    Consent,
    CorrectionRequest,
    DataRequest,
    Delivery,
    DuplicateCase,
    IdentityVerification,
    LoginSession,
    Message,
    PersonalData,
    PersonalDataErasure,
    Player,
    RecipientNotice,
    RegisterCheck,
    RegisterReview,
    TermsAcceptance,
    User,
)
from accounts.selectors import record_erase_dates
from accounts.services.locks import player_lock
from accounts.services.messages import message_send
from accounts.services.personal import consent_withdraw
from accounts.services.recipients import recipient_notices_record
from core import clock
from core.audit import Actor, audit_record
from core.errors import NOT_FOUND

Kind = DataRequest.Kind
State = DataRequest.State
TEXT_MAX = 2000
ANSWER_MAX = 5000
BASIS_MAX = DataRequest._meta.get_field("legal_basis").max_length or 500

# outcome staff may choose -> kinds it fits
OUTCOMES: dict[str, set[str]] = {
    Kind.EXPLANATION: {State.ANSWERED, State.REFUSED},
    Kind.BLOCKING: {State.GRANTED, State.REFUSED},
    Kind.DELETION: {State.GRANTED, State.REFUSED},
}
KIND_CS: dict[str, str] = {Kind.EXPLANATION: "vysvětlení", Kind.BLOCKING: "blokování", Kind.DELETION: "likvidace údajů"}
KIND_EN: dict[str, str] = {Kind.EXPLANATION: "explanation", Kind.BLOCKING: "blocking", Kind.DELETION: "deletion"}
STATE_CS: dict[str, str] = {
    State.ANSWERED: "zodpovězena",
    State.GRANTED: "vyhověno",
    State.PARTLY_GRANTED: "vyhověno zčásti",
    State.REFUSED: "zamítnuta",
    State.LIFTED: "blokování ukončeno",
    State.WITHDRAWN: "vzata zpět",
}
STATE_EN: dict[str, str] = {
    State.ANSWERED: "answered",
    State.GRANTED: "granted",
    State.PARTLY_GRANTED: "granted in part",
    State.REFUSED: "refused",
    State.LIFTED: "blocking ended",
    State.WITHDRAWN: "withdrawn",
}

# What the anonymisation writes instead of the personal data (irreversible: nothing of the old value remains).
PLACEHOLDER = "[anonymised]"
PLACEHOLDER_DATE = date(1900, 1, 1)
RETENTION_BASIS = (
    "GDPR art. 17(3)b: ZHH 186/2016 Sb.; AML 253/2008 Sb. §16(1); "
    "accounting 563/1991 Sb. §31(2)b (the retention periods, GP §12(5))"
)


def _cs_date(d: date) -> str:
    return f"{d.day}. {d.month}. {d.year}"


def _staff_user(actor: Actor) -> User | None:
    return User.objects.filter(pk=int(actor.id)).first() if actor.type == "staff" and actor.id else None


def _notify(req: DataRequest, *, step: str, subject_cs: str, subject_en: str, body_cs: str, body_en: str) -> None:
    """The proven notice of a step (inbox + e-mail), always with the authority notice (GP §12(7)e)."""
    message_send(
        player=req.player,
        kind=Message.Kind.DATA_REQUEST,
        reference=f"accounts.data_request:{req.pk}:{step}",
        subject_cs=subject_cs,
        subject_en=subject_en,
        body_cs=f"{body_cs}\n\n{privacy.AUTHORITY_NOTICE_CS}",
        body_en=f"{body_en}\n\n{privacy.AUTHORITY_NOTICE_EN}",
    )


def _open_of_kind(player: Player, kind: str) -> DataRequest | None:
    return DataRequest.objects.filter(
        Q(state=State.PENDING) | Q(kind=Kind.BLOCKING, state=State.GRANTED), player=player, kind=kind
    ).first()


# Requests (GP §12(7)) ---------------------------------------------------------------------------------------------
def data_request_create(
    *,
    player: Player,
    kind: str,
    text: str,
    actor: Actor,
    channel: str = DataRequest.Channel.API,
    entered_by: User | None = None,
) -> DataRequest:
    """A request received (from the player, or recorded by staff when it came in writing). Due within one month
    (GDPR art. 12(3), ``ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS``); a blocking is in force from now. One open request of
    a kind at a time (``accounts.data_request_already_open``)."""
    text = text if isinstance(text, str) else ""
    problems: dict[str, str] = {}
    if kind not in Kind.values:
        problems["kind"] = "invalid_choice"
    if len(text) > TEXT_MAX:
        problems["text"] = "too_long"
    elif kind == Kind.EXPLANATION and not text.strip():
        problems["text"] = "required"
    if channel not in DataRequest.Channel.values:
        problems["channel"] = "invalid_choice"
    if problems:
        raise errors.DATA_REQUEST_INVALID(fields=problems, kinds=Kind.values)
    with transaction.atomic():
        p = player_lock(player)
        if p.anonymised_at is not None:
            raise errors.DATA_REQUEST_ANONYMISED()
        existing = _open_of_kind(p, kind)
        if existing is not None:
            raise errors.DATA_REQUEST_ALREADY_OPEN(request_id=existing.pk, state=existing.state)
        now = clock.now()
        req = DataRequest.objects.create(
            player=p,
            kind=kind,
            text=text.strip(),
            channel=channel,
            received_at=now,
            due_at=retention.request_due_at(now),
            entered_by=entered_by,
        )
        audit_record(
            actor=actor,
            action="accounts.data_request.received",
            obj=req,
            player_id=p.pk,
            kind=kind,
            channel=channel,
            due_at=req.due_at,
        )
        due = clock.business_date(req.due_at)
        body_cs = (
            f"Přijali jsme vaši žádost č. {req.pk} ({KIND_CS[kind]}) podle HP §12 odst. 7. Odpovíme nejpozději "
            f"{_cs_date(due)}."
        )
        body_en = (
            f"We received your request no. {req.pk} ({KIND_EN[kind]}) under GP §12(7). We will answer by "
            f"{due.isoformat()}."
        )
        if kind == Kind.BLOCKING:
            body_cs += " Blokování platí od přijetí žádosti. " + privacy.BLOCKING_EFFECT_CS
            body_en += " The blocking is in force from the receipt of the request. " + privacy.BLOCKING_EFFECT_EN
        _notify(
            req,
            step="received",
            subject_cs=f"Žádost o osobní údaje č. {req.pk} přijata",
            subject_en=f"Personal-data request no. {req.pk} received",
            body_cs=body_cs,
            body_en=body_en,
        )
    return req


def _check_answer(*, outcome: str, answer_cs: str, answer_en: str, legal_basis: str) -> None:
    texts = {"answer_cs": answer_cs, "answer_en": answer_en, "legal_basis": legal_basis}
    if (
        any(not isinstance(v, str) for v in texts.values())
        or max(len(answer_cs), len(answer_en)) > ANSWER_MAX
        or len(legal_basis) > BASIS_MAX
    ):
        raise errors.DATA_REQUEST_ANSWER_REQUIRED(max_length=ANSWER_MAX, legal_basis_max_length=BASIS_MAX)
    needed = []
    if outcome in (State.ANSWERED, State.REFUSED):
        needed += [k for k in ("answer_cs", "answer_en") if not texts[k].strip()]
    if outcome == State.REFUSED and not legal_basis.strip():
        needed.append("legal_basis")
    if needed:
        raise errors.DATA_REQUEST_ANSWER_REQUIRED(fields=needed)


def data_request_decide(
    *, request: DataRequest, outcome: str, actor: Actor, answer_cs: str = "", answer_en: str = "", legal_basis: str = ""
) -> DataRequest:
    """Staff decide a pending request; the answer reaches the player (inbox + e-mail) with the authority notice.

    ``outcome``: explanation -> ``answered`` (the answer is required) | ``refused``; blocking -> ``granted`` (it stays
    in force until lifted) | ``refused`` (it ends); deletion -> ``granted`` | ``refused``. A refusal needs its legal
    basis. A granted deletion erases the optional data now (the marketing consent is withdrawn) and, for an ended
    account, anonymises right after the answer is sent every group of records (in every app, ``privacy_contract``)
    whose retention has passed. The answer lists, record by record, what is anonymised now, what was before, and the
    day each of the rest goes (or its years after the closure while the account is open) with its law. When records
    remain it is ``partly_granted`` with the legal basis and ``erase_on``, the day of the last of them (None while the
    account is open: retention starts when the relationship ends)."""
    _check_answer(outcome=outcome, answer_cs=answer_cs, answer_en=answer_en, legal_basis=legal_basis)
    anonymise_now = False
    with transaction.atomic():
        p = player_lock(request.player)
        req = DataRequest.objects.select_for_update(no_key=True).get(pk=request.pk)
        if req.state != State.PENDING:
            raise errors.DATA_REQUEST_NOT_PENDING(state=req.state)
        if outcome not in OUTCOMES[req.kind]:
            raise errors.DATA_REQUEST_OUTCOME_INVALID(
                kind=req.kind, outcome=outcome, allowed=sorted(OUTCOMES[req.kind])
            )
        now = clock.now()
        state = outcome
        extra_cs: list[str] = []
        extra_en: list[str] = []
        if req.kind == Kind.DELETION and outcome == State.GRANTED:
            if Consent.objects.filter(player=p, kind=Consent.Kind.MARKETING, withdrawn_at__isnull=True).exists():
                consent_withdraw(player=p, kind=Consent.Kind.MARKETING, actor=actor)
            extra_cs.append("Nepovinné údaje (souhlas s marketingem) jsme vymazali.")
            extra_en.append("The optional data (the marketing consent) are erased.")
            plan = record_erase_dates(p)
            due = [r for r in plan if r["erased_at"] is None and r["erase_from"] is not None and r["erase_from"] <= now]
            later = [r for r in plan if r["erased_at"] is None and r not in due]
            anonymise_now = bool(due)
            lines_cs, lines_en = _deletion_lines(plan, due=due, later=later)
            extra_cs += lines_cs
            extra_en += lines_en
            if not later:
                req.erase_on = clock.business_date(now)
            else:
                state = State.PARTLY_GRANTED
                legal_basis = legal_basis.strip() or RETENTION_BASIS
                if all(r["erase_from"] is not None for r in later):
                    req.erase_on = clock.business_date(max(r["erase_from"] for r in later))
        elif req.kind == Kind.BLOCKING and outcome == State.GRANTED:
            extra_cs.append(privacy.BLOCKING_EFFECT_CS)
            extra_en.append(privacy.BLOCKING_EFFECT_EN)
        elif req.kind == Kind.BLOCKING and outcome == State.REFUSED:
            req.ended_at = now
        old_state = req.state
        req.state, req.decided_at, req.decided_by = state, now, _staff_user(actor)
        req.answer_cs, req.answer_en, req.legal_basis = answer_cs.strip(), answer_en.strip(), legal_basis.strip()
        req.save(
            update_fields=[
                "state",
                "decided_at",
                "decided_by",
                "answer_cs",
                "answer_en",
                "legal_basis",
                "erase_on",
                "ended_at",
            ]
        )
        audit_record(
            actor=actor,
            action="accounts.data_request.decided",
            obj=req,
            old={"state": old_state},
            new={"state": state},
            player_id=p.pk,
            kind=req.kind,
            legal_basis=req.legal_basis,
            erase_on=req.erase_on,
            anonymise_now=anonymise_now,
        )
        body_cs = "\n\n".join(
            x
            for x in [
                f"Vaše žádost č. {req.pk} ({KIND_CS[req.kind]}) je vyřízena: {STATE_CS[state]}.",
                req.answer_cs,
                *extra_cs,
                f"Právní důvod: {req.legal_basis}" if req.legal_basis else "",
            ]
            if x
        )
        body_en = "\n\n".join(
            x
            for x in [
                f"Your request no. {req.pk} ({KIND_EN[req.kind]}) is decided: {STATE_EN[state]}.",
                req.answer_en,
                *extra_en,
                f"Legal basis: {req.legal_basis}" if req.legal_basis else "",
            ]
            if x
        )
        _notify(
            req,
            step="decided",
            subject_cs=f"Odpověď na žádost o osobní údaje č. {req.pk}",
            subject_en=f"Answer to personal-data request no. {req.pk}",
            body_cs=body_cs,
            body_en=body_en,
        )
        if anonymise_now:
            # after the answer's e-mail (registered first, so it runs first) has gone to the address still known;
            # the daily job is the backstop should this not run
            transaction.on_commit(functools.partial(_anonymise_after_answer, player_id=p.pk, actor=actor))
    request.refresh_from_db()
    return request


def _deletion_lines(
    plan: list[dict[str, Any]], *, due: list[dict[str, Any]], later: list[dict[str, Any]]
) -> tuple[list[str], list[str]]:
    """What a granted deletion does, record by record, in both languages (the answer states exactly this)."""
    cs: list[str] = []
    en: list[str] = []
    if due:
        cs.append(
            "Nyní anonymizujeme (lhůty uchování uplynuly):\n"
            + "\n".join(f"- {r['what_cs']}: {r['erased_cs']}" for r in due)
        )
        en.append(
            "Anonymised now (their retention periods have passed):\n"
            + "\n".join(f"- {r['what_en']}: {r['erased_en']}" for r in due)
        )
    done = [r for r in plan if r["erased_at"] is not None]
    if done:
        cs.append(
            "Již anonymizováno dříve:\n"
            + "\n".join(f"- {r['what_cs']} ({_cs_date(clock.business_date(r['erased_at']))})" for r in done)
        )
        en.append(
            "Anonymised before:\n"
            + "\n".join(f"- {r['what_en']} ({clock.business_date(r['erased_at']).isoformat()})" for r in done)
        )
    if later:
        open_account = any(r["erase_from"] is None for r in later)
        if open_account:
            cs.append(
                "Údaje, které ukládá zákon, nelze vymazat, dokud je konto otevřené, ani po dobu zákonných lhůt od "
                "ukončení vztahu (zrušení konta); po uplynutí své lhůty bude každý záznam anonymizován:"
            )
            en.append(
                "The data the law requires cannot be erased while the account is open, nor during the legal "
                "periods after the relationship ends (the account is closed); each record is anonymised when "
                "its period has passed:"
            )
        else:
            cs.append("Údaje, které ukládá zákon, uchováváme po zákonné lhůty; anonymizovány budou:")
            en.append("The data the law requires are kept for the legal periods; they will be anonymised:")
        for r in later:
            sources_cs, sources_en = "; ".join(r["sources_cs"]), "; ".join(r["sources_en"])
            if r["erase_from"] is None:
                cs.append(f"- {r['what_cs']}: {r['years']} let od zrušení konta ({sources_cs})")
                en.append(f"- {r['what_en']}: {r['years']} years after the account is closed ({sources_en})")
            else:
                day = clock.business_date(r["erase_from"])
                cs.append(f"- {r['what_cs']}: dne {_cs_date(day)} ({sources_cs})")
                en.append(f"- {r['what_en']}: on {day.isoformat()} ({sources_en})")
    kept = [r for r in plan if r["kept_cs"]]
    if kept:
        cs.append(
            "Po anonymizaci zůstává (bez osobních hodnot):\n"
            + "\n".join(f"- {r['what_cs']}: {r['kept_cs']}" for r in kept)
        )
        en.append(
            "What stays after the anonymisation (no personal value):\n"
            + "\n".join(f"- {r['what_en']}: {r['kept_en']}" for r in kept)
        )
    return cs, en


def _anonymise_after_answer(*, player_id: int, actor: Actor) -> None:
    player = Player.objects.get(pk=player_id)
    player_anonymise(player=player, actor=actor)


def blocking_lift(*, request: DataRequest, actor: Actor, answer_cs: str, answer_en: str) -> DataRequest:
    """Staff end a granted blocking (GDPR art. 18(3): the player is told, with the reason, as it ends)."""
    _check_answer(outcome=State.ANSWERED, answer_cs=answer_cs, answer_en=answer_en, legal_basis="")
    with transaction.atomic():
        p = player_lock(request.player)
        req = DataRequest.objects.select_for_update(no_key=True).get(pk=request.pk)
        if req.kind != Kind.BLOCKING or req.state != State.GRANTED:
            raise errors.DATA_REQUEST_NOT_PENDING(state=req.state, kind=req.kind)
        now = clock.now()
        req.state, req.ended_at = State.LIFTED, now
        req.answer_cs = f"{req.answer_cs}\n\n{answer_cs.strip()}".strip()
        req.answer_en = f"{req.answer_en}\n\n{answer_en.strip()}".strip()
        req.save(update_fields=["state", "ended_at", "answer_cs", "answer_en"])
        audit_record(
            actor=actor,
            action="accounts.data_request.blocking_lifted",
            obj=req,
            old={"state": State.GRANTED},
            new={"state": State.LIFTED},
            player_id=p.pk,
            reason=answer_en.strip(),
        )
        _notify(
            req,
            step="lifted",
            subject_cs=f"Blokování údajů (žádost č. {req.pk}) končí",
            subject_en=f"The blocking of your data (request no. {req.pk}) ends",
            body_cs=f"Blokování vašich údajů podle žádosti č. {req.pk} končí.\n\n{answer_cs.strip()}",
            body_en=f"The blocking of your data under request no. {req.pk} ends.\n\n{answer_en.strip()}",
        )
    request.refresh_from_db()
    return request


def data_request_withdraw(*, player: Player, request_id: int, actor: Actor) -> DataRequest:
    """The player withdraws a pending request, or ends their own blocking (granted). Another player's request, or
    none, is ``not_found``; a decided one ``accounts.data_request_not_pending``."""
    with transaction.atomic():
        p = player_lock(player)
        req = DataRequest.objects.select_for_update(no_key=True).filter(pk=request_id, player=p).first()
        if req is None:
            raise NOT_FOUND()
        now = clock.now()
        old = req.state
        if req.state == State.PENDING:
            req.state = State.WITHDRAWN
        elif req.kind == Kind.BLOCKING and req.state == State.GRANTED:
            req.state = State.LIFTED
        else:
            raise errors.DATA_REQUEST_NOT_PENDING(state=req.state)
        if req.kind == Kind.BLOCKING:
            req.ended_at = now
        req.save(update_fields=["state", "ended_at"])
        audit_record(
            actor=actor,
            action="accounts.data_request.withdrawn",
            obj=req,
            old={"state": old},
            new={"state": req.state},
            player_id=p.pk,
            kind=req.kind,
        )
        _notify(
            req,
            step="withdrawn",
            subject_cs=f"Žádost o osobní údaje č. {req.pk} vzata zpět",
            subject_en=f"Personal-data request no. {req.pk} withdrawn",
            body_cs=f"Na vaši žádost jsme ukončili žádost č. {req.pk} ({KIND_CS[req.kind]}).",
            body_en=f"At your request we ended request no. {req.pk} ({KIND_EN[req.kind]}).",
        )
    return req


# Anonymisation at the end of retention (GP §12(5)) ----------------------------------------------------------------
def _anonymous_person_key(player_id: int) -> str:
    """A key no other account shares and that says nothing of the person (ZHH §14a no longer applies, see below)."""
    return hashlib.sha256(f"accounts.person.anonymised|player:{player_id}".encode()).hexdigest()


PERSONAL_PLACEHOLDERS: dict[str, Any] = {
    "given_names": PLACEHOLDER,
    "surname": PLACEHOLDER,
    "birth_surname": "",
    "birth_number": "",
    "date_of_birth": PLACEHOLDER_DATE,
    "place_of_birth": "",
    "sex": "",
    "citizenship": "",
    "residence_street": "",
    "residence_city": "",
    "residence_postal_code": "",
    "residence_country": "",
    "permanent_residence_street": "",
    "permanent_residence_city": "",
    "permanent_residence_postal_code": "",
    "permanent_residence_country": "",
    "correspondence_address": "",
    "phone": "",
    "email": "",
    "data_box_id": "",
    "document_type": "",
    "document_number": "",
    "document_issuing_state": "",
    "document_issuing_authority": "",
    "document_valid_until": PLACEHOLDER_DATE,
    "id_card_unavailable": False,
    "email_key": "",
    "document_key": "",
    "name_dob_key": "",
}


def accounts_anonymise(
    *, player: Player, records: frozenset[str], actor: Actor, now: datetime
) -> dict[str, dict[str, int]]:
    """The accounts app's part of the anonymisation (its privacy contract, ``accounts.privacy_records``): replace
    the personal data of a locked, ended account whose retention has passed. Called by :func:`_erase_due` only.

    The person key (ZHH §14a) is replaced too: the carry-over it serves (the self-limits in force at closing, for a
    re-registration within 7 days; a panic exclusion, 48 h) ends long before the shortest retention period (at
    least a year), so nothing can still need it; keeping the hash of the birth number would keep the person."""
    p = player
    ended = retention.relationship_ended_at(p)
    out: dict[str, dict[str, int]] = {}
    if p.anonymised_at is not None:
        return out  # anonymised before the privacy contract (this same code): nothing of it is left
    if "accounts.messages" in records:
        out["accounts.messages"] = {
            "messages": Message.objects.filter(player=p).update(body_cs=PLACEHOLDER, body_en=PLACEHOLDER),
            "deliveries": Delivery.objects.filter(message__player=p).update(recipient="", error=""),
        }
    if "accounts.personal_data" not in records:
        return out
    rows = {
        "personal_data": PersonalData.objects.filter(player=p).update(
            **PERSONAL_PLACEHOLDERS, person_key=_anonymous_person_key(p.pk), updated_at=now
        ),
        "user": User.objects.filter(pk=p.user_id).update(
            username=f"anonymised:{p.pk}",
            first_name="",
            last_name="",
            email="",
            password=make_password(None),
            is_active=False,
            last_login=None,
        ),
        "identity_verifications": IdentityVerification.objects.filter(player=p).update(
            document_number="",
            document_issuing_state="",
            document_issuing_authority="",
            document_valid_until=PLACEHOLDER_DATE,
            note="",
        ),
        "register_checks": RegisterCheck.objects.filter(player=p).update(details={}),
        "register_reviews": RegisterReview.objects.filter(player=p).update(details={}, note=""),
        "login_sessions": LoginSession.objects.filter(player=p).update(ip_address=None, user_agent=""),
        "terms_acceptances": TermsAcceptance.objects.filter(player=p).update(source_address=None),
        "data_requests": DataRequest.objects.filter(player=p).update(
            text="", answer_cs=PLACEHOLDER, answer_en=PLACEHOLDER
        ),
        "duplicate_applications": DuplicateCase.objects.filter(registered_player=p).update(application=None),
    }
    rows.update(out.get("accounts.messages") or {})
    corrections = list(CorrectionRequest.objects.filter(player=p))
    for c in corrections:
        c.changes = {field: PLACEHOLDER for field in c.changes}
        c.note = c.decision_note = ""
        c.save(update_fields=["changes", "note", "decision_note"])
    rows["correction_requests"] = len(corrections)
    p.anonymised_at = now
    p.barred_insider_note = ""
    p.save(update_fields=["anonymised_at", "barred_insider_note"])
    # the event names no personal value (it would defeat the anonymisation): what ended, when, and how many rows
    audit_record(
        actor=actor,
        action="accounts.personal_data.anonymised",
        obj=p,
        player_id=p.pk,
        relationship_ended_at=ended,
        retention_ended_at=retention.retention_ends_at(ended) if ended else None,
        periods={x.code: x.years for x in retention.periods()},
        rows=rows,
    )
    out["accounts.personal_data"] = rows
    return out


def _erase_group(p: Player, *, key: str, ended: datetime, actor: Actor, now: datetime) -> PersonalDataErasure:
    """Anonymise, in every app, the player's records whose retention group is ``key``; record it once, audit it and
    queue the notices to the recipients of the records that had data (GDPR art. 19)."""
    changed: dict[str, dict[str, int]] = {}
    codes: list[str] = []
    for contract in privacy_contract.contracts():
        wanted = frozenset(r.code for r in contract.records if r.retention_key == key)
        if not wanted:
            continue
        codes += sorted(wanted)
        changed.update(contract.anonymise(player=p, records=wanted, actor=actor, now=now))
    erasure = PersonalDataErasure.objects.create(player=p, retention=key, records=codes, erased_at=now, rows=changed)
    audit_record(
        actor=actor,
        action="accounts.personal_data.erased",
        obj=erasure,
        player_id=p.pk,
        retention=key,
        records=codes,
        relationship_ended_at=ended,
        rows=changed,
    )
    with_data = [code for code, kinds in changed.items() if any(kinds.values())]
    recipient_notices_record(
        player=p, event=RecipientNotice.Event.ERASURE, reference=f"erasure:{key}", records=with_data, actor=actor
    )
    return erasure


def _erase_due(p: Player, *, actor: Actor, now: datetime) -> list[str]:
    """Every retention group of a locked player that is due now and not done yet, shortest first (the account's
    own group, all periods, last). Returns the groups done. An open account (no end of the relationship) is never
    touched. An account anonymised before the privacy contract existed (``anonymised_at`` set, no erasure recorded)
    gets the other apps' groups now; its own records are not touched again."""
    ended = retention.relationship_ended_at(p)
    if ended is None:
        return []
    done = set(PersonalDataErasure.objects.filter(player=p).values_list("retention", flat=True))
    out = []
    for key, codes in privacy_contract.retention_groups():
        if key in done or retention.retention_ends_at(ended, codes) > now:
            continue
        _erase_group(p, key=key, ended=ended, actor=actor, now=now)
        out.append(key)
    return out


def player_anonymise(*, player: Player, actor: Actor, now: datetime | None = None) -> bool:
    """Anonymise, now, every record of one ended account whose retention has passed (waits for its lock), in every
    app (``accounts.privacy_contract``). True if the account itself (the group of all periods) was anonymised now;
    False when it is open, still within its longest retention, or anonymised already (idempotent)."""
    with transaction.atomic():
        p = player_lock(player)
        groups = _erase_due(p, actor=actor, now=now or clock.now())
    player.refresh_from_db()
    return privacy_contract.all_periods_key() in groups


def personal_data_anonymise_due(*, now: datetime | None = None, batch: int = 200, limit: int = 5000) -> int:
    """Sweeper (daily): for each retention group of the declared records (``accounts.privacy_contract``), shortest
    first, the ended accounts (closed, expired, refused) whose records of that group are due and not yet anonymised,
    oldest end first, in batches; each account in its own transaction, claimed with ``FOR NO KEY UPDATE SKIP
    LOCKED`` (two workers share the work), gets every group due for it (:func:`_erase_due`). At most ``limit``
    accounts a run. Then each app's ``sweep`` anonymises its records that belong to no player. Safe to run twice: a
    second run finds nothing. Returns how many accounts were anonymised
    completely (the group of all periods: the account itself)."""
    now = now or clock.now()
    actor = Actor.system("accounts.personal_data_anonymise")
    final = privacy_contract.all_periods_key()
    handled = anonymised = 0
    for key, codes in privacy_contract.retention_groups():
        # the accounts not anonymised yet (a partial index serves them), and those anonymised before the privacy
        # contract existed (no erasure recorded): their other apps' records are still there
        queue = (
            Player.objects.filter(status__in=Player.TERMINAL)
            .filter(Q(anonymised_at__isnull=True) | ~Exists(PersonalDataErasure.objects.filter(player=OuterRef("pk"))))
            .annotate(ended=Coalesce("closed_at", "status_changed_at", "created_at"))
            .filter(ended__lte=retention.prefilter_ended_before(now, codes))
            .exclude(Exists(PersonalDataErasure.objects.filter(player=OuterRef("pk"), retention=key)))
        )
        after: tuple[datetime, int] | None = None
        while handled < limit:
            page = queue if after is None else queue.filter(Q(ended__gt=after[0]) | Q(ended=after[0], pk__gt=after[1]))
            rows = list(page.order_by("ended", "pk").values_list("pk", "ended")[:batch])
            if not rows:
                break
            due_rows = [(pk, ended) for pk, ended in rows if retention.retention_ends_at(ended, codes) <= now]
            for pk, ended in due_rows:
                after = (ended, pk)
                with transaction.atomic():
                    p = (
                        Player.objects.select_for_update(no_key=True, skip_locked=True)
                        .filter(pk=pk, status__in=Player.TERMINAL)
                        .first()
                    )
                    if p is not None:
                        groups = _erase_due(p, actor=actor, now=now)
                        handled += bool(groups)
                        anonymised += final in groups
                if handled >= limit:
                    break
            if len(due_rows) < len(rows):
                break  # the end of retention grows with the end of the relationship: the rest are not due
    # the records that belong to no player (e.g. a bank statement's lines of unknown payers), each by its own date;
    # after the players' records, whose erasure may be what lets a shared file go
    for contract in privacy_contract.contracts():
        if contract.sweep is not None:
            contract.sweep(actor=actor, now=now)
    return anonymised
