"""Complaint services (writes): filing, the staff workflow, resolution with a money remedy, the deadline sweeper.

Each service owns its transaction, locks the complaint row it changes, writes an audit event in the same
transaction and leaves e-mails in the outbox to be sent after commit (``complaints.notify``).

Workflow: the moves each step may make are declared in :data:`WORKFLOW` and applied by
``core.fsm.status_transition``; anything else is refused with ``complaints.illegal_transition`` (a resolved
complaint with ``complaints.already_resolved``)::

    new ──assign──> assigned ──investigate──> investigating ──request_info──> waiting_player
                     ^  (reassign in any open status)        |  ^                     |
                                                              |  └──player replies / investigate
                                                              └──resolve──> resolved <──resolve──┘
    new ──(filed late: answered automatically, GP §11(3))──> resolved (not_justified_late)
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import connection, transaction

from accounts.services import message_send
from complaints import attachments as att
from complaints import deadlines, errors, notify, records, texts
from complaints.errors import error
from complaints.models import Complaint, ComplaintAttachment, ComplaintItem, ComplaintMessage, ComplaintNote
from core import clock
from core.audit import Actor, audit_record
from core.fsm import status_transition
from core.jsonable import jsonable
from core.money import Money
from wallet.services import adjustment_credit

if TYPE_CHECKING:
    from accounts.models import Player, User

Status = Complaint.Status
Outcome = Complaint.Outcome
MAX_AMOUNT = 10**13  # minor units: a sanity bound far above any real remedy, below the BIGINT range
STAFF_CHANNELS = (Complaint.Channel.EMAIL, Complaint.Channel.BRANCH, Complaint.Channel.POST)
STAFF_OUTCOMES = (
    Outcome.UPHELD,
    Outcome.PARTLY_UPHELD,
    Outcome.REJECTED,
    Outcome.NOT_JUSTIFIED_RULES,
    Outcome.NOT_JUSTIFIED_LATE,
)
MONEY_OUTCOMES = (Outcome.UPHELD, Outcome.PARTLY_UPHELD)

# The workflow as data: for each step, status -> the statuses the step may move a complaint to.
WORKFLOW: dict[str, dict[str, Collection[str]]] = {
    # new becomes assigned; in any other open status only the assignee changes
    "assign": {
        Status.NEW: {Status.ASSIGNED},
        Status.ASSIGNED: {Status.ASSIGNED},
        Status.INVESTIGATING: {Status.INVESTIGATING},
        Status.WAITING_PLAYER: {Status.WAITING_PLAYER},
    },
    "investigate": {Status.ASSIGNED: {Status.INVESTIGATING}, Status.WAITING_PLAYER: {Status.INVESTIGATING}},
    "request_info": {Status.INVESTIGATING: {Status.WAITING_PLAYER}},
    "player_reply": {Status.WAITING_PLAYER: {Status.INVESTIGATING}},
    "resolve": {Status.INVESTIGATING: {Status.RESOLVED}, Status.WAITING_PLAYER: {Status.RESOLVED}},
    "late_filing": {Status.NEW: {Status.RESOLVED}},  # GP §11(3): answered at once, by the system
}


def _move(
    c: Complaint, *, step: str, to: str, actor: Actor, action: str, fields: Mapping[str, Any] | None = None
) -> str:
    """One declared step on the locked complaint: check it, set ``to`` and ``fields`` and save them with
    ``updated_at``; returns the old status. The caller writes the audit event (its old/new carry more than the
    status: assignee, outcome, remedy)."""
    if c.status == Status.RESOLVED:
        raise error(errors.ALREADY_RESOLVED, reference=c.reference)
    return status_transition(
        c,
        to=to,
        allowed=WORKFLOW[step],
        refused=errors.ILLEGAL_TRANSITION,
        actor=actor,
        action=action,
        extra_fields={**(fields or {}), "updated_at": clock.now()},
        audit=False,
        reference=c.reference,
    )


def _locked(complaint: Complaint) -> Complaint:
    return (
        Complaint.objects.select_for_update(no_key=True, of=("self",))
        .select_related("player__user", "assignee")
        .get(pk=complaint.pk)
    )


def _save(c: Complaint, fields: list[str]) -> None:
    c.updated_at = clock.now()
    c.save(update_fields=[*fields, "updated_at"])


def _player_email(c: Complaint) -> list[str]:
    email = c.player.user.email
    return [email] if email else []


def _notify_player(c: Complaint, kind: str, builder: Callable[..., tuple[str, str]], **kwargs: Any) -> None:
    """An e-mail to the player in their language first (sent after commit)."""
    subject, body, _ = texts.both(builder, c.language, c=c, **kwargs)
    notify.notice_create(complaint=c, kind=kind, recipients=_player_email(c), subject=subject, body=body)


def _next_reference(received_at: datetime) -> str:
    """RK-<Prague year of receipt>-<number>: the number comes from a PostgreSQL sequence, so it is unique and
    never reused; a rolled-back filing leaves a gap (gap-tolerant by design)."""
    with connection.cursor() as cur:
        cur.execute("SELECT nextval('complaints_reference_seq')")
        number = cur.fetchone()[0]
    return f"RK-{clock.local(received_at).year}-{number:06d}"


def _check_amount(amount: Money) -> None:
    """A remedy amount (wanted or granted): positive, in CZK, within :data:`MAX_AMOUNT`."""
    if not isinstance(amount, Money) or not 0 < amount.amount <= MAX_AMOUNT or amount.currency != "CZK":
        raise error(errors.REMEDY_AMOUNT_INVALID, currency="CZK")


# --- filing ------------------------------------------------------------------------------------------------------
def _received_at(*, channel: str, actor: Actor, received_at: datetime | None, now: datetime) -> datetime:
    """The date received: now for the player app; staff entering a complaint received off-line (e-mail, post,
    branch) give it, never in the future. Only staff use the off-line channels."""
    if channel not in Complaint.Channel.values:
        raise error(errors.CHANNEL_INVALID, channel=channel)
    if channel in STAFF_CHANNELS and actor.type != "staff":
        raise error(errors.CHANNEL_INVALID, channel=channel)
    if channel == Complaint.Channel.API:
        return now
    received_at = received_at or now
    if received_at > now:
        raise error(errors.RECEIVED_IN_FUTURE, received_at=received_at)
    return received_at


def _event_time(
    items: list[dict[str, Any]], *, stated_at: datetime | None, received_at: datetime
) -> tuple[datetime, bool]:
    """(the time of the event, whether the platform's records gave it). GP §11(5): the records decide. The latest
    named record opens the widest window: the complaint is in time when at least one named record is; each item
    carries its own ``late`` flag. Without records the player's stated time is required (GP §11(4))."""
    dated = [i["occurred_at"] for i in items if i["occurred_at"] is not None]
    event_at = max(dated) if dated else stated_at
    if event_at is None:
        raise error(errors.EVENT_TIME_REQUIRED)
    if event_at > received_at:
        raise error(errors.EVENT_IN_FUTURE, event_at=event_at, received_at=received_at)
    if stated_at is not None and stated_at > received_at:
        raise error(errors.EVENT_IN_FUTURE, event_at=stated_at, received_at=received_at)
    return event_at, bool(dated)


def _check_files(files: Sequence[Any]) -> list[att.CheckedFile]:
    if len(files) > att.MAX_PER_COMPLAINT:
        raise error(errors.TOO_MANY_ATTACHMENTS, limit=att.MAX_PER_COMPLAINT)
    return [att.check(f) for f in files]


def _uploader(actor: Actor) -> str:
    return "staff" if actor.type == "staff" else "player"


def complaint_file(
    *,
    player: Player,
    reason: str,
    description: str,
    actor: Actor,
    event_at: datetime | None = None,
    remedy_requested: str = "",
    remedy_amount_requested: Money | None = None,
    round_ids: Sequence[int | str] = (),
    transaction_ids: Sequence[int | str] = (),
    files: Sequence[Any] = (),
    channel: str = Complaint.Channel.API,
    received_at: datetime | None = None,
    language: str = "cs",
    entered_by: User | None = None,
) -> Complaint:
    """File a complaint (player through the API) or enter one received off-line (staff: e-mail, post, branch,
    with the date received). GP §11(1)-(4), §10(2).

    Every named round / transaction must be the player's own, else nothing is stored. The window is checked
    against the platform's records when rounds/transactions are named (GP §11(5)), else against the time the
    player states. A late filing is stored and answered at once as not justified (GP §11(3)). The confirmation of
    receipt (GP §11(4)) is e-mailed after commit."""
    now = clock.now()
    received_at = _received_at(channel=channel, actor=actor, received_at=received_at, now=now)
    if reason not in Complaint.Reason.values:
        raise error(errors.REASON_INVALID, reason=reason)
    kind = Complaint.Kind.WIN_CLAIM if reason == Complaint.Reason.WIN_NOT_CREDITED else Complaint.Kind.COMPLAINT
    language = language if language in Complaint.Language.values else "cs"
    if remedy_amount_requested is not None:
        _check_amount(remedy_amount_requested)
    items = records.named_items(player=player, kind=kind, round_ids=round_ids, transaction_ids=transaction_ids)
    stated_at = event_at
    event_at, from_records = _event_time(items, stated_at=stated_at, received_at=received_at)
    checked = _check_files(files)

    terms = deadlines.response_terms(received_at)
    late = deadlines.is_late(event_at, kind, received_at)
    fields = {
        "player": player,
        "kind": kind,
        "channel": channel,
        "reason": reason,
        "language": language,
        "event_at": event_at,
        "event_at_stated": stated_at,
        "event_at_from_records": from_records,
        "description": description.strip(),
        "remedy_requested": (remedy_requested or "").strip(),
        "remedy_amount_requested": remedy_amount_requested.amount if remedy_amount_requested else None,
        "received_at": received_at,
        "filed_at": now,
        "entered_by": entered_by,
        "filing_deadline": deadlines.filing_deadline(event_at, kind),
        "late": late,
        "respond_by_date": terms.respond_by_date,
        "respond_by": terms.respond_by,
        "remind_first_at": terms.remind_first_at,
        "remind_second_at": terms.remind_second_at,
        "updated_at": now,
    }
    stored_files: list[str] = []
    try:
        with transaction.atomic():
            c = Complaint.objects.create(reference=_next_reference(received_at), **fields)
            _items_store(c, items)
            for cf in checked:
                stored_files.append(_store_attachment(c, cf, by=_uploader(actor), at=now).file.name)
            audit_record(
                actor=actor,
                action="complaints.filed",
                obj=c,
                new={
                    "reference": c.reference,
                    "kind": kind,
                    "reason": reason,
                    "channel": channel,
                    "received_at": received_at,
                    "event_at": event_at,
                    "event_at_stated": stated_at,
                    "late": late,
                    "respond_by": c.respond_by,
                    "filing_deadline": c.filing_deadline,
                },
                player_id=player.pk,
                rounds=[i["object_id"] for i in items if i["kind"] == "round"],
                transactions=[i["object_id"] for i in items if i["kind"] == "transaction"],
                attachments=[cf.sha256 for cf in checked],
            )
            c = Complaint.objects.select_related("player__user").get(pk=c.pk)
            _notify_player(c, "confirmation", texts.confirmation)
            if late:
                _resolve_late(c, now=now)
    except BaseException:
        for name in stored_files:  # the row is gone with the rollback; do not keep its file
            ComplaintAttachment._meta.get_field("file").storage.delete(name)
        raise
    return c


def _items_store(c: Complaint, items: list[dict[str, Any]]) -> None:
    for it in items:
        ComplaintItem.objects.create(
            complaint=c,
            kind=it["kind"],
            object_id=it["object_id"],
            occurred_at=it["occurred_at"],
            late=it["occurred_at"] is not None and deadlines.is_late(it["occurred_at"], c.kind, c.received_at),
            summary=jsonable(it["summary"]),
        )


def _store_attachment(c: Complaint, cf: att.CheckedFile, *, by: str, at: datetime) -> ComplaintAttachment:
    return ComplaintAttachment.objects.create(
        complaint=c,
        file=cf.content,
        original_name=cf.name,
        content_type=cf.content_type,
        size=cf.size,
        sha256=cf.sha256,
        uploaded_by_type=by,
        uploaded_at=at,
    )


def _resolve_late(c: Complaint, *, now: datetime) -> None:
    """GP §11(3): a late filing is not justified and the participant is told so, at once and with the reason."""
    actor = Actor.system("complaints.late_filing")
    old = {"status": c.status, "outcome": c.outcome}
    _move(
        c,
        step="late_filing",
        to=Status.RESOLVED,
        actor=actor,
        action="complaints.resolved",
        fields={
            "outcome": Outcome.NOT_JUSTIFIED_LATE,
            "answer_cs": texts.late_answer("cs", c=c),
            "answer_en": texts.late_answer("en", c=c),
            "answered_at": now,
        },
    )
    audit_record(
        actor=actor,
        action="complaints.resolved",
        obj=c,
        old=old,
        new={"status": c.status, "outcome": c.outcome, "answered_at": now},
        automatic=True,
        filing_deadline=c.filing_deadline,
    )
    _notify_player(c, "answer", texts.answer)


def complaint_attachments_add(*, complaint: Complaint, files: Sequence[Any], actor: Actor) -> list[ComplaintAttachment]:
    """Add attachments to an open complaint (player or staff), same checks as at filing."""
    checked = [att.check(f) for f in files]
    stored: list[ComplaintAttachment] = []
    try:
        with transaction.atomic():
            c = _locked(complaint)
            if c.status == Status.RESOLVED:
                raise error(errors.COMPLAINT_CLOSED, reference=c.reference)
            if c.attachments.count() + len(checked) > att.MAX_PER_COMPLAINT:
                raise error(errors.TOO_MANY_ATTACHMENTS, limit=att.MAX_PER_COMPLAINT)
            now = clock.now()
            for cf in checked:
                stored.append(_store_attachment(c, cf, by=_uploader(actor), at=now))
            _save(c, [])
            audit_record(
                actor=actor,
                action="complaints.attachments_added",
                obj=c,
                attachments=[{"id": a.pk, "sha256": a.sha256, "type": a.content_type} for a in stored],
            )
    except BaseException:
        for a in stored:
            a.file.storage.delete(a.file.name)
        raise
    return stored


# --- the staff workflow ------------------------------------------------------------------------------------------
def complaint_assign(*, complaint: Complaint, assignee: User | None, actor: Actor) -> Complaint:
    """Assign (or reassign) an open complaint to an active staff member; ``new`` becomes ``assigned``."""
    if assignee is None or not assignee.is_active or not assignee.is_staff:
        raise error(errors.ASSIGNEE_NOT_STAFF, assignee=getattr(assignee, "pk", None))
    with transaction.atomic():
        c = _locked(complaint)
        old = {"status": c.status, "assignee": c.assignee_id}
        target = Status.ASSIGNED if c.status == Status.NEW else c.status
        _move(
            c,
            step="assign",
            to=target,
            actor=actor,
            action="complaints.assigned",
            fields={"assignee": assignee, "assigned_at": clock.now()},
        )
        audit_record(
            actor=actor,
            action="complaints.assigned",
            obj=c,
            old=old,
            new={"status": c.status, "assignee": assignee.pk},
            assignee_label=assignee.get_username(),
        )
        if assignee.email and (old["assignee"] != assignee.pk):
            subject, body, _ = texts.both(texts.staff_assigned, "cs", c=c)
            notify.notice_create(complaint=c, kind="assigned", recipients=[assignee.email], subject=subject, body=body)
    return c


def complaint_investigate(*, complaint: Complaint, actor: Actor) -> Complaint:
    """Start (or resume after the player's reply) the investigation."""
    with transaction.atomic():
        c = _locked(complaint)
        old = _move(
            c, step="investigate", to=Status.INVESTIGATING, actor=actor, action="complaints.investigation_started"
        )
        audit_record(
            actor=actor, action="complaints.investigation_started", obj=c, old={"status": old}, new={"status": c.status}
        )
    return c


def complaint_request_info(*, complaint: Complaint, text: str, actor: Actor, author: User | None = None) -> Complaint:
    """Ask the player for more information; the complaint waits for the player. The 30-day term keeps running
    (GP §11(1) counts from filing and knows no pause)."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        old = _move(c, step="request_info", to=Status.WAITING_PLAYER, actor=actor, action="complaints.info_requested")
        msg = ComplaintMessage.objects.create(
            complaint=c, author_type="staff", author=author, text=text, created_at=clock.now()
        )
        audit_record(
            actor=actor,
            action="complaints.info_requested",
            obj=c,
            old={"status": old},
            new={"status": c.status},
            message_id=msg.pk,
        )
        _notify_player(c, "info_request", texts.info_request, text=text)
    return c


def complaint_player_message(*, complaint: Complaint, text: str, actor: Actor) -> ComplaintMessage:
    """The player adds information to their open complaint; a complaint waiting for them goes back to the
    investigation."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        if c.status == Status.RESOLVED:
            raise error(errors.COMPLAINT_CLOSED, reference=c.reference)
        msg = ComplaintMessage.objects.create(
            complaint=c, author_type="player", author=c.player.user, text=text, created_at=clock.now()
        )
        old = c.status
        if c.status == Status.WAITING_PLAYER:
            _move(c, step="player_reply", to=Status.INVESTIGATING, actor=actor, action="complaints.player_message")
        else:
            _save(c, [])
        audit_record(
            actor=actor,
            action="complaints.player_message",
            obj=c,
            old={"status": old},
            new={"status": c.status},
            message_id=msg.pk,
        )
    return msg


def complaint_note_add(*, complaint: Complaint, text: str, author: User, actor: Actor) -> ComplaintNote:
    """An internal note (never shown to the player); possible in any status."""
    text = (text or "").strip()
    if not text:
        raise error(errors.NOTE_EMPTY)
    with transaction.atomic():
        c = _locked(complaint)
        note = ComplaintNote.objects.create(complaint=c, author=author, text=text, created_at=clock.now())
        audit_record(actor=actor, action="complaints.note_added", obj=c, note_id=note.pk)
    return note


def _answers(outcome: str, answer_cs: str, answer_en: str) -> tuple[str, str]:
    """The staff's answer in both languages, with the standard reason of the outcome added (GP §11(3))."""
    standard = texts.STANDARD_REASONS.get(outcome)
    if standard:
        answer_cs = f"{answer_cs}\n\n{standard[0]}".strip() if answer_cs else standard[0]
        answer_en = f"{answer_en}\n\n{standard[1]}".strip() if answer_en else standard[1]
    return answer_cs, answer_en


def _remedy_credit(c: Complaint, *, amount: Money, actor: Actor, now: datetime) -> None:
    """Credit the money remedy through the wallet (idempotent on ``complaint:<id>``) in the caller's transaction."""
    reference = f"complaint:{c.pk}"
    txn = adjustment_credit(
        player=c.player, amount=amount, reference=reference, reason=f"complaint {c.reference}", actor=actor
    )
    c.remedy_amount, c.credit_reference = amount.amount, reference
    c.credit_transaction_id, c.credited_at = str(txn.pk), now
    _save(c, ["remedy_amount", "credit_reference", "credit_transaction_id", "credited_at"])


def complaint_resolve(
    *,
    complaint: Complaint,
    outcome: str,
    actor: Actor,
    answer_cs: str = "",
    answer_en: str = "",
    remedy_amount: Money | None = None,
    remedy_text: str = "",
    resolved_by: User | None = None,
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
        _check_amount(remedy_amount)
    answer_cs, answer_en = _answers(outcome, answer_cs, answer_en)
    with transaction.atomic():
        c = _locked(complaint)
        now = clock.now()
        old = {"status": c.status, "outcome": c.outcome}
        _move(
            c,
            step="resolve",
            to=Status.RESOLVED,
            actor=actor,
            action="complaints.resolved",
            fields={
                "outcome": outcome,
                "answered_at": now,
                "answer_cs": answer_cs,
                "answer_en": answer_en,
                "remedy_text": (remedy_text or "").strip(),
                "resolved_by": resolved_by,
            },
        )
        if remedy_amount is not None:
            _remedy_credit(c, amount=remedy_amount, actor=actor, now=now)
        audit_record(
            actor=actor,
            action="complaints.resolved",
            obj=c,
            old=old,
            new={
                "status": c.status,
                "outcome": outcome,
                "answered_at": now,
                "remedy_amount": remedy_amount,
                "remedy_text": c.remedy_text,
            },
            overdue=now >= c.respond_by,
        )
        if remedy_amount is not None:
            audit_record(
                actor=actor,
                action="complaints.remedy_credited",
                obj=c,
                new={"amount": remedy_amount, "reference": c.credit_reference, "transaction": c.credit_transaction_id},
                player_id=c.player_id,
            )
        _notify_player(c, "answer", texts.answer)
        _answer_to_inbox(c)
    return c


def _answer_to_inbox(c: Complaint) -> None:
    """The answer in the player's inbox too (the client's "Messages"), once per complaint; the e-mail goes as
    the complaint's own notice (``_notify_player``), so the inbox message sends none."""
    subject_cs, body_cs = texts.answer("cs", c=c)
    subject_en, body_en = texts.answer("en", c=c)
    message_send(
        player=c.player,
        kind="notice",
        subject_cs=subject_cs,
        subject_en=subject_en,
        body_cs=body_cs,
        body_en=body_en,
        reference=f"complaints.answer:{c.pk}",
        email=False,
    )


# --- the deadline sweeper ----------------------------------------------------------------------------------------
STAGES = (
    # (stage, due field, sent field, notice kind, reminder day or None for overdue)
    ("reminder_first", "remind_first_at", "first_reminder_sent_at", "reminder_first", deadlines.FIRST_REMINDER_DAY),
    (
        "reminder_second",
        "remind_second_at",
        "second_reminder_sent_at",
        "reminder_second",
        deadlines.SECOND_REMINDER_DAY,
    ),
    ("overdue", "respond_by", "overdue_flagged_at", "overdue", None),
)


def _sweep_one(pk: int, *, due_field: str, sent_field: str, kind: str, day: int | None, now: datetime) -> bool:
    with transaction.atomic():
        c = (
            Complaint.objects.select_for_update(no_key=True, skip_locked=True, of=("self",))
            .select_related("player__user", "assignee")
            .filter(
                pk=pk, status__in=Complaint.OPEN_STATUSES, **{f"{due_field}__lte": now, f"{sent_field}__isnull": True}
            )
            .first()
        )
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
        audit_record(
            actor=Actor.system("complaints.deadline_sweep"),
            action=action,
            obj=c,
            new={sent_field: now},
            recipients=recipients,
            respond_by=c.respond_by,
        )
        return True


def complaints_deadline_sweep(*, now: datetime | None = None, batch: int = 500) -> dict[str, int]:
    """Remind the assignee and the supervisors on day 20 and day 27, flag and report overdue complaints after
    day 30 (GP §11(1)), and retry unsent e-mails. Claims rows with ``select_for_update(skip_locked=True)``, one
    transaction each; each step happens once per complaint (row field + unique notice), so it is safe to run
    twice or on two workers."""
    now = now or clock.now()
    done = {}
    for stage, due_field, sent_field, kind, day in STAGES:
        ids = list(
            Complaint.objects.filter(
                status__in=Complaint.OPEN_STATUSES, **{f"{due_field}__lte": now, f"{sent_field}__isnull": True}
            )
            .order_by(due_field, "pk")
            .values_list("pk", flat=True)[:batch]
        )
        done[stage] = sum(
            1 for pk in ids if _sweep_one(pk, due_field=due_field, sent_field=sent_field, kind=kind, day=day, now=now)
        )
    done["notices_retried"] = notify.notices_retry(now=now)
    return done
