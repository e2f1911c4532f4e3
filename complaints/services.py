"""Complaint services (writes): filing, the staff workflow, resolution with a money remedy, the deadline sweeper.

Each service owns its transaction, locks the complaint row it changes, writes an audit event in the same
transaction and leaves e-mails in the outbox to be sent after commit (``complaints.notify``).

Workflow (anything else is refused with ``complaints.illegal_transition``)::

    new ──assign──> assigned ──investigate──> investigating ──request_info──> waiting_player
                     ^  (reassign in any open status)        |  ^                     |
                                                              |  └──player replies / investigate
                                                              └──resolve──> resolved <──resolve──┘
    new ──(filed late: answered automatically, GP §11(3))──> resolved (not_justified_late)
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from django.db import connection, transaction

from complaints import attachments as att
from complaints import deadlines, errors, notify, ports, texts
from complaints.errors import error
from complaints.models import Complaint, ComplaintAttachment, ComplaintItem, ComplaintMessage, ComplaintNote
from core import clock
from core.audit import Actor, audit_record
from core.money import Money

S = Complaint.Status
O = Complaint.Outcome  # noqa: E741
MAX_ITEMS = 50
MAX_AMOUNT = 10**13  # minor units: a sanity bound far above any real remedy, below the BIGINT range
STAFF_CHANNELS = (Complaint.Channel.EMAIL, Complaint.Channel.BRANCH, Complaint.Channel.POST)
STAFF_OUTCOMES = (O.UPHELD, O.PARTLY_UPHELD, O.REJECTED, O.NOT_JUSTIFIED_RULES, O.NOT_JUSTIFIED_LATE)
MONEY_OUTCOMES = (O.UPHELD, O.PARTLY_UPHELD)

# status -> statuses reachable by the staff workflow
TRANSITIONS: dict[str, tuple[str, ...]] = {
    S.NEW: (S.ASSIGNED,),
    S.ASSIGNED: (S.ASSIGNED, S.INVESTIGATING),
    S.INVESTIGATING: (S.INVESTIGATING, S.WAITING_PLAYER, S.RESOLVED),
    S.WAITING_PLAYER: (S.WAITING_PLAYER, S.INVESTIGATING, S.RESOLVED),
    S.RESOLVED: (),
}


def _check_transition(c: Complaint, target: str) -> None:
    if c.status == S.RESOLVED:
        raise error(errors.ALREADY_RESOLVED, reference=c.reference)
    if target not in TRANSITIONS[c.status]:
        raise error(errors.ILLEGAL_TRANSITION, current=c.status, target=target, reference=c.reference)


def _locked(complaint: Complaint) -> Complaint:
    return Complaint.objects.select_for_update(of=("self",)).select_related("player__user", "assignee").get(pk=complaint.pk)


def _save(c: Complaint, fields: list[str]) -> None:
    c.updated_at = clock.now()
    c.save(update_fields=[*fields, "updated_at"])


def _player_email(c: Complaint) -> list[str]:
    email = c.player.user.email
    return [email] if email else []


def _next_reference(received_at: datetime) -> str:
    """RK-<Prague year of receipt>-<number>: the number comes from a PostgreSQL sequence, so it is unique and
    never reused; a rolled-back filing leaves a gap (gap-tolerant by design)."""
    with connection.cursor() as cur:
        cur.execute("SELECT nextval('complaints_reference_seq')")
        number = cur.fetchone()[0]
    return f"RK-{clock.local(received_at).year}-{number:06d}"


# --- filing ------------------------------------------------------------------------------------------------------
def _collect_items(*, player, kind: str, round_ids: Iterable, transaction_ids: Iterable) -> list[dict]:
    """Check that every named round and transaction is the player's own (GP §11(4)); nothing is stored yet."""
    items: list[dict] = []
    for rid in dict.fromkeys(str(r).strip() for r in round_ids):
        record = ports.player_round(player, rid)
        if record is None:
            raise error(errors.ROUND_NOT_YOURS, round_id=rid)
        started, settled = ports.round_times(record)
        if kind == Complaint.Kind.WIN_CLAIM and settled is None:
            raise error(errors.WIN_CLAIM_NEEDS_SETTLED_ROUND, round_id=rid)
        items.append({"kind": ComplaintItem.Kind.ROUND, "object_id": rid, "occurred_at": settled or started,
                      "summary": ports.round_snapshot(record)})
    for tid in dict.fromkeys(str(t).strip() for t in transaction_ids):
        record = ports.player_transaction(player, tid)
        if record is None:
            raise error(errors.TRANSACTION_NOT_YOURS, transaction_id=tid)
        items.append({"kind": ComplaintItem.Kind.TRANSACTION, "object_id": tid,
                      "occurred_at": ports.transaction_time(record), "summary": ports.transaction_snapshot(record)})
    if len(items) > MAX_ITEMS:
        raise error(errors.TOO_MANY_ITEMS, limit=MAX_ITEMS)
    return items


def complaint_file(
    *,
    player,
    reason: str,
    description: str,
    actor: Actor,
    event_at: datetime | None = None,
    remedy_requested: str = "",
    remedy_amount_requested: Money | None = None,
    round_ids: Sequence = (),
    transaction_ids: Sequence = (),
    files: Sequence = (),
    channel: str = Complaint.Channel.API,
    received_at: datetime | None = None,
    language: str = "cs",
    entered_by=None,
) -> Complaint:
    """File a complaint (player through the API) or enter one received off-line (staff: e-mail, post, branch,
    with the date received). GP §11(1)-(4), §10(2).

    Every named round / transaction must be the player's own, else nothing is stored. The window is checked
    against the platform's records when rounds/transactions are named (GP §11(5)), else against the time the
    player states. A late filing is stored and answered at once as not justified (GP §11(3)). The confirmation of
    receipt (GP §11(4)) is e-mailed after commit."""
    now = clock.now()
    if channel not in Complaint.Channel.values:
        raise error(errors.CHANNEL_INVALID, channel=channel)
    if channel in STAFF_CHANNELS and actor.type != "staff":
        raise error(errors.CHANNEL_INVALID, channel=channel)
    if channel == Complaint.Channel.API:
        received_at = now
    received_at = received_at or now
    if received_at > now:
        raise error(errors.RECEIVED_IN_FUTURE, received_at=received_at)
    if reason not in Complaint.Reason.values:
        raise error(errors.REASON_INVALID, reason=reason)
    kind = Complaint.Kind.WIN_CLAIM if reason == Complaint.Reason.WIN_NOT_CREDITED else Complaint.Kind.COMPLAINT
    language = language if language in Complaint.Language.values else "cs"
    if remedy_amount_requested is not None and (not 0 < remedy_amount_requested.amount <= MAX_AMOUNT
                                                or remedy_amount_requested.currency != "CZK"):
        raise error(errors.REMEDY_AMOUNT_INVALID, currency="CZK")

    items = _collect_items(player=player, kind=kind, round_ids=round_ids, transaction_ids=transaction_ids)
    dated = [i["occurred_at"] for i in items if i["occurred_at"] is not None]
    stated_at = event_at
    if dated:
        # GP §11(5): the platform's records decide. The latest named record opens the widest window: the
        # complaint is in time when at least one named record is; each item carries its own ``late`` flag.
        event_at = max(dated)
    if event_at is None:
        raise error(errors.EVENT_TIME_REQUIRED)
    if event_at > received_at:
        raise error(errors.EVENT_IN_FUTURE, event_at=event_at, received_at=received_at)
    if stated_at is not None and stated_at > received_at:
        raise error(errors.EVENT_IN_FUTURE, event_at=stated_at, received_at=received_at)
    if len(files) > att.MAX_PER_COMPLAINT:
        raise error(errors.TOO_MANY_ATTACHMENTS, limit=att.MAX_PER_COMPLAINT)
    checked = [att.check(f) for f in files]

    terms = deadlines.response_terms(received_at)
    late = deadlines.is_late(event_at, kind, received_at)
    stored_files: list = []
    try:
        with transaction.atomic():
            c = Complaint.objects.create(
                reference=_next_reference(received_at), player=player, kind=kind, channel=channel, reason=reason,
                language=language, event_at=event_at, event_at_stated=stated_at, event_at_from_records=bool(dated),
                description=description.strip(), remedy_requested=(remedy_requested or "").strip(),
                remedy_amount_requested=remedy_amount_requested.amount if remedy_amount_requested else None,
                received_at=received_at, filed_at=now,
                entered_by=entered_by,
                filing_deadline=deadlines.filing_deadline(event_at, kind), late=late,
                respond_by_date=terms.respond_by_date, respond_by=terms.respond_by,
                remind_first_at=terms.remind_first_at, remind_second_at=terms.remind_second_at,
                updated_at=now,
            )
            for it in items:
                ComplaintItem.objects.create(
                    complaint=c, kind=it["kind"], object_id=it["object_id"], occurred_at=it["occurred_at"],
                    late=it["occurred_at"] is not None and deadlines.is_late(it["occurred_at"], kind, received_at),
                    summary=_jsonable(it["summary"]),
                )
            for cf in checked:
                a = _store_attachment(c, cf, by="staff" if actor.type == "staff" else "player", at=now)
                stored_files.append(a.file.name)
            audit_record(
                actor=actor, action="complaints.filed", obj=c,
                new={"reference": c.reference, "kind": kind, "reason": reason, "channel": channel,
                     "received_at": received_at, "event_at": event_at, "event_at_stated": stated_at,
                     "late": late, "respond_by": c.respond_by, "filing_deadline": c.filing_deadline},
                player_id=player.pk, rounds=[i["object_id"] for i in items if i["kind"] == "round"],
                transactions=[i["object_id"] for i in items if i["kind"] == "transaction"],
                attachments=[cf.sha256 for cf in checked],
            )
            c = Complaint.objects.select_related("player__user").get(pk=c.pk)
            subject, body, _ = texts.both(texts.confirmation, language, c=c)
            notify.notice_create(complaint=c, kind="confirmation", recipients=_player_email(c), subject=subject,
                                 body=body)
            if late:
                _resolve_late(c, now=now)
    except BaseException:
        for name in stored_files:  # the row is gone with the rollback; do not keep its file
            ComplaintAttachment._meta.get_field("file").storage.delete(name)
        raise
    return c


def _jsonable(value):
    from core.errors import _jsonable as j

    return j(value)


def _store_attachment(c: Complaint, cf: att.CheckedFile, *, by: str, at: datetime) -> ComplaintAttachment:
    return ComplaintAttachment.objects.create(
        complaint=c, file=cf.content, original_name=cf.name, content_type=cf.content_type, size=cf.size,
        sha256=cf.sha256, uploaded_by_type=by, uploaded_at=at,
    )


def _resolve_late(c: Complaint, *, now: datetime) -> None:
    """GP §11(3): a late filing is not justified and the participant is told so, at once and with the reason."""
    old = {"status": c.status, "outcome": c.outcome}
    c.status, c.outcome = S.RESOLVED, O.NOT_JUSTIFIED_LATE
    c.answer_cs = texts.late_answer("cs", c=c)
    c.answer_en = texts.late_answer("en", c=c)
    c.answered_at = now
    _save(c, ["status", "outcome", "answer_cs", "answer_en", "answered_at"])
    audit_record(actor=Actor.system("complaints.late_filing"), action="complaints.resolved", obj=c, old=old,
                 new={"status": c.status, "outcome": c.outcome, "answered_at": now}, automatic=True,
                 filing_deadline=c.filing_deadline)
    subject, body, _ = texts.both(texts.answer, c.language, c=c)
    notify.notice_create(complaint=c, kind="answer", recipients=_player_email(c), subject=subject, body=body)


def complaint_attachments_add(*, complaint: Complaint, files: Sequence, actor: Actor) -> list[ComplaintAttachment]:
    """Add attachments to an open complaint (player or staff), same checks as at filing."""
    checked = [att.check(f) for f in files]
    stored: list[ComplaintAttachment] = []
    try:
        with transaction.atomic():
            c = _locked(complaint)
            if c.status == S.RESOLVED:
                raise error(errors.COMPLAINT_CLOSED, reference=c.reference)
            if c.attachments.count() + len(checked) > att.MAX_PER_COMPLAINT:
                raise error(errors.TOO_MANY_ATTACHMENTS, limit=att.MAX_PER_COMPLAINT)
            now = clock.now()
            for cf in checked:
                stored.append(_store_attachment(c, cf, by="staff" if actor.type == "staff" else "player", at=now))
            _save(c, [])
            audit_record(actor=actor, action="complaints.attachments_added", obj=c,
                         attachments=[{"id": a.pk, "sha256": a.sha256, "type": a.content_type} for a in stored])
    except BaseException:
        for a in stored:
            a.file.storage.delete(a.file.name)
        raise
    return stored


# --- the staff workflow ------------------------------------------------------------------------------------------
def complaint_assign(*, complaint: Complaint, assignee, actor: Actor) -> Complaint:
    """Assign (or reassign) an open complaint to an active staff member; ``new`` becomes ``assigned``."""
    if assignee is None or not assignee.is_active or not assignee.is_staff:
        raise error(errors.ASSIGNEE_NOT_STAFF, assignee=getattr(assignee, "pk", None))
    with transaction.atomic():
        c = _locked(complaint)
        target = S.ASSIGNED if c.status == S.NEW else c.status
        _check_transition(c, target)
        old = {"status": c.status, "assignee": c.assignee_id}
        c.status, c.assignee, c.assigned_at = target, assignee, clock.now()
        _save(c, ["status", "assignee", "assigned_at"])
        audit_record(actor=actor, action="complaints.assigned", obj=c, old=old,
                     new={"status": c.status, "assignee": assignee.pk}, assignee_label=assignee.get_username())
        if assignee.email and (old["assignee"] != assignee.pk):
            subject, body, _ = texts.both(texts.staff_assigned, "cs", c=c)
            notify.notice_create(complaint=c, kind="assigned", recipients=[assignee.email], subject=subject,
                                 body=body)
    return c


def complaint_investigate(*, complaint: Complaint, actor: Actor) -> Complaint:
    """Start (or resume after the player's reply) the investigation."""
    with transaction.atomic():
        c = _locked(complaint)
        _check_transition(c, S.INVESTIGATING)
        if c.status == S.INVESTIGATING:
            raise error(errors.ILLEGAL_TRANSITION, current=c.status, target=S.INVESTIGATING, reference=c.reference)
        old = {"status": c.status}
        c.status = S.INVESTIGATING
        _save(c, ["status"])
        audit_record(actor=actor, action="complaints.investigation_started", obj=c, old=old,
                     new={"status": c.status})
    return c


def complaint_request_info(*, complaint: Complaint, text: str, actor: Actor, author=None) -> Complaint:
    """Ask the player for more information; the complaint waits for the player. The 30-day term keeps running
    (GP §11(1) counts from filing and knows no pause)."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        _check_transition(c, S.WAITING_PLAYER)
        if c.status != S.INVESTIGATING:
            raise error(errors.ILLEGAL_TRANSITION, current=c.status, target=S.WAITING_PLAYER, reference=c.reference)
        now = clock.now()
        msg = ComplaintMessage.objects.create(complaint=c, author_type="staff", author=author, text=text,
                                              created_at=now)
        old = {"status": c.status}
        c.status = S.WAITING_PLAYER
        _save(c, ["status"])
        audit_record(actor=actor, action="complaints.info_requested", obj=c, old=old, new={"status": c.status},
                     message_id=msg.pk)
        subject, body, _ = texts.both(texts.info_request, c.language, c=c, text=text)
        notify.notice_create(complaint=c, kind="info_request", recipients=_player_email(c), subject=subject,
                             body=body)
    return c


def complaint_player_message(*, complaint: Complaint, text: str, actor: Actor) -> ComplaintMessage:
    """The player adds information to their open complaint; a complaint waiting for them goes back to the
    investigation."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        if c.status == S.RESOLVED:
            raise error(errors.COMPLAINT_CLOSED, reference=c.reference)
        msg = ComplaintMessage.objects.create(complaint=c, author_type="player", author=c.player.user, text=text,
                                              created_at=clock.now())
        old = {"status": c.status}
        if c.status == S.WAITING_PLAYER:
            c.status = S.INVESTIGATING
        _save(c, ["status"])
        audit_record(actor=actor, action="complaints.player_message", obj=c, old=old, new={"status": c.status},
                     message_id=msg.pk)
    return msg


def complaint_note_add(*, complaint: Complaint, text: str, author, actor: Actor) -> ComplaintNote:
    """An internal note (never shown to the player); possible in any status."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        note = ComplaintNote.objects.create(complaint=c, author=author, text=text, created_at=clock.now())
        audit_record(actor=actor, action="complaints.note_added", obj=c, note_id=note.pk)
    return note


def complaint_resolve(
    *,
    complaint: Complaint,
    outcome: str,
    actor: Actor,
    answer_cs: str = "",
    answer_en: str = "",
    remedy_amount: Money | None = None,
    remedy_text: str = "",
    resolved_by=None,
) -> Complaint:
    """Resolve: outcome, the answer the player reads (with the ČOI notice, GP §11(8)) and any remedy.

    A money remedy (upheld / partly upheld only) is credited in the same transaction through
    ``wallet.services.adjustment_credit`` with reference ``complaint:<id>``: a second resolve is refused
    (``complaints.already_resolved``), the reference is unique here and idempotent in the wallet, so nothing
    is ever credited twice."""
    if outcome not in STAFF_OUTCOMES:
        raise error(errors.OUTCOME_INVALID, outcome=outcome)
    answer_cs, answer_en = (answer_cs or "").strip(), (answer_en or "").strip()
    if not (answer_cs or answer_en):
        raise error(errors.ANSWER_REQUIRED)
    if remedy_amount is not None:
        if outcome not in MONEY_OUTCOMES:
            raise error(errors.REMEDY_NOT_ALLOWED, outcome=outcome)
        if (not isinstance(remedy_amount, Money) or not 0 < remedy_amount.amount <= MAX_AMOUNT
                or remedy_amount.currency != "CZK"):
            raise error(errors.REMEDY_AMOUNT_INVALID, currency="CZK")
    standard = texts.STANDARD_REASONS.get(outcome)
    if standard:
        answer_cs = f"{answer_cs}\n\n{standard[0]}".strip() if answer_cs else ""
        answer_en = f"{answer_en}\n\n{standard[1]}".strip() if answer_en else ""
        if not answer_cs:
            answer_cs = standard[0]
        if not answer_en:
            answer_en = standard[1]
    with transaction.atomic():
        c = _locked(complaint)
        _check_transition(c, S.RESOLVED)
        now = clock.now()
        old = {"status": c.status, "outcome": c.outcome}
        c.status, c.outcome, c.answered_at = S.RESOLVED, outcome, now
        c.answer_cs, c.answer_en = answer_cs, answer_en
        c.remedy_text = (remedy_text or "").strip()
        c.resolved_by = resolved_by
        fields = ["status", "outcome", "answered_at", "answer_cs", "answer_en", "remedy_text", "resolved_by"]
        if remedy_amount is not None:
            reference = f"complaint:{c.pk}"
            txn = ports.credit(player=c.player, amount=remedy_amount, reference=reference,
                               reason=f"complaint {c.reference}", actor=actor)
            c.remedy_amount, c.credit_reference = remedy_amount.amount, reference
            c.credit_transaction_id, c.credited_at = ports.transaction_id_of(txn), now
            fields += ["remedy_amount", "credit_reference", "credit_transaction_id", "credited_at"]
        _save(c, fields)
        audit_record(actor=actor, action="complaints.resolved", obj=c, old=old,
                     new={"status": c.status, "outcome": outcome, "answered_at": now,
                          "remedy_amount": remedy_amount, "remedy_text": c.remedy_text},
                     overdue=now >= c.respond_by)
        if remedy_amount is not None:
            audit_record(actor=actor, action="complaints.remedy_credited", obj=c,
                         new={"amount": remedy_amount, "reference": c.credit_reference,
                              "transaction": c.credit_transaction_id}, player_id=c.player_id)
        subject, body, _ = texts.both(texts.answer, c.language, c=c)
        notify.notice_create(complaint=c, kind="answer", recipients=_player_email(c), subject=subject, body=body)
    return c


# --- the deadline sweeper ----------------------------------------------------------------------------------------
STAGES = (
    # (stage, due field, sent field, notice kind, reminder day or None for overdue)
    ("reminder_first", "remind_first_at", "first_reminder_sent_at", "reminder_first", deadlines.FIRST_REMINDER_DAY),
    ("reminder_second", "remind_second_at", "second_reminder_sent_at", "reminder_second",
     deadlines.SECOND_REMINDER_DAY),
    ("overdue", "respond_by", "overdue_flagged_at", "overdue", None),
)


def _sweep_one(pk: int, *, due_field: str, sent_field: str, kind: str, day: int | None, now: datetime) -> bool:
    with transaction.atomic():
        c = (Complaint.objects.select_for_update(skip_locked=True, of=("self",)).select_related("player__user", "assignee")
             .filter(pk=pk, status__in=Complaint.OPEN_STATUSES, **{f"{due_field}__lte": now,
                                                                    f"{sent_field}__isnull": True})
             .first())
        if c is None:
            return False  # resolved meanwhile, done by another worker, or locked by one now
        setattr(c, sent_field, now)
        _save(c, [sent_field])
        recipients = ([c.assignee.email] if c.assignee and c.assignee.email else []) + notify.supervisor_emails()
        if day is None:
            subject, body, _ = texts.both(texts.staff_overdue, "cs", c=c)
            action = "complaints.overdue_flagged"
        else:
            subject, body, _ = texts.both(texts.staff_reminder, "cs", c=c, day=day)
            action = f"complaints.{kind}_sent"
        notify.notice_create(complaint=c, kind=kind, recipients=recipients, subject=subject, body=body)
        audit_record(actor=Actor.system("complaints.deadline_sweep"), action=action, obj=c,
                     new={sent_field: now}, recipients=recipients, respond_by=c.respond_by)
        return True


def complaints_deadline_sweep(*, now: datetime | None = None, batch: int = 500) -> dict:
    """Remind the assignee and the supervisors on day 20 and day 27, flag and report overdue complaints after
    day 30 (GP §11(1)), and retry unsent e-mails. Claims rows with ``select_for_update(skip_locked=True)``, one
    transaction each; each step happens once per complaint (row field + unique notice), so it is safe to run
    twice or on two workers."""
    now = now or clock.now()
    done = {}
    for stage, due_field, sent_field, kind, day in STAGES:
        ids = list(Complaint.objects.filter(status__in=Complaint.OPEN_STATUSES, **{f"{due_field}__lte": now,
                                                                                   f"{sent_field}__isnull": True})
                   .order_by(due_field, "pk").values_list("pk", flat=True)[:batch])
        done[stage] = sum(1 for pk in ids if _sweep_one(pk, due_field=due_field, sent_field=sent_field, kind=kind,
                                                        day=day, now=now))
    done["notices_retried"] = notify.notices_retry(now=now)
    return done
