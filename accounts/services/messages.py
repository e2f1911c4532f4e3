"""Notices the operator can prove (GP §7(7), §10(4)): a win deducted, a debt, a hold, a refused payment method, an
account cancellation ... reach the player through the in-app inbox and by e-mail, and each delivery is recorded.

``message_send`` writes the message and its inbox delivery in the caller's transaction (a rolled-back action
notifies nobody) and sends the e-mail after the commit (``message_email_send``), recording its outcome; a failed
e-mail is retried by the sweeper ``message_emails_retry_due``. The player reads the inbox at
``/api/v1/accounts/me/messages`` and a read receipt (``message_read``) records when the message was first opened.
"""

from __future__ import annotations

import functools
import logging
from datetime import datetime

from django.conf import settings
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q

from accounts import errors, rules
from accounts.models import Delivery, Message, Player
from accounts.selectors import email_of
from accounts.services.notify import compose
from core import clock
from core.audit import Actor, audit_record
from core.errors import NOT_FOUND

logger = logging.getLogger("accounts.messages")
SENDER = Actor.system("accounts.messages")
SUBJECT_MAX = Message._meta.get_field("subject_cs").max_length or 200
REFERENCE_MAX = Message._meta.get_field("reference").max_length or 100
INBOX_FOOTER_CS = "\n\nTuto zprávu najdete také ve schránce zpráv v aplikaci."
INBOX_FOOTER_EN = "\n\nThis message is also in the message inbox of the application."


def _check(*, kind: str, subject_cs: str, subject_en: str, body_cs: str, body_en: str, reference: str) -> None:
    problems: dict[str, str] = {}
    if kind not in Message.Kind.values:
        problems["kind"] = "invalid_choice"
    for name, subject in (("subject_cs", subject_cs), ("subject_en", subject_en)):
        if not subject.strip() or len(subject) > SUBJECT_MAX or "\n" in subject or "\r" in subject:
            problems[name] = "invalid"
    for name, body in (("body_cs", body_cs), ("body_en", body_en)):
        if not body.strip():
            problems[name] = "required"
    if len(reference) > REFERENCE_MAX:
        problems["reference"] = "too_long"
    if problems:
        raise errors.MESSAGE_INVALID(fields=problems, kinds=Message.Kind.values)


def _existing(player: Player, reference: str, kind: str) -> Message | None:
    found = Message.objects.filter(player=player, reference=reference).first()
    if found is not None and found.kind != kind:
        raise errors.MESSAGE_REFERENCE_CONFLICT(reference=reference, kind=found.kind, given=kind)
    return found


def message_send(
    *,
    player: Player,
    kind: str,
    subject_cs: str,
    subject_en: str,
    body_cs: str,
    body_en: str,
    reference: str = "",
    email: bool = True,
) -> Message:
    """Notify ``player`` provably (GP §7(7), §10(4)): the message is in the inbox at once (a ``delivered`` inbox
    delivery) and, with ``email``, e-mailed after the caller's transaction commits (an ``email`` delivery: sent, or
    failed with the error and retried).

    Idempotent on (player, ``reference``) when ``reference`` is given (e.g. ``"wallet.deduction:17"``): a retried
    caller gets the first message back and nothing is sent twice; the same reference with another ``kind`` is
    ``accounts.message_reference_conflict``. ``kind`` is one of ``Message.Kind`` (``win_deduction``, ``debt``,
    ``hold``, ``payment_method_refused``, ``account_cancellation``, ``terms_version``, ``notice``)."""
    _check(
        kind=kind, subject_cs=subject_cs, subject_en=subject_en, body_cs=body_cs, body_en=body_en, reference=reference
    )
    with transaction.atomic():
        if reference:
            found = _existing(player, reference, kind)
            if found is not None:
                return found
        now = clock.now()
        try:
            with transaction.atomic():  # a concurrent twin with the same reference waits on the unique index
                message = Message.objects.create(
                    player=player,
                    kind=kind,
                    subject_cs=subject_cs,
                    subject_en=subject_en,
                    body_cs=body_cs,
                    body_en=body_en,
                    reference=reference,
                    created_at=now,
                )
        except IntegrityError:
            found = _existing(player, reference, kind) if reference else None
            if found is None:
                raise
            return found
        Delivery.objects.create(
            message=message,
            channel=Delivery.Channel.INBOX,
            status=Delivery.Status.DELIVERED,
            attempts=1,
            attempted_at=now,
            delivered_at=now,
        )
        if email:
            delivery = Delivery.objects.create(
                message=message,
                channel=Delivery.Channel.EMAIL,
                recipient=email_of(player)[:254],
                status=Delivery.Status.PENDING,
            )
            transaction.on_commit(functools.partial(message_email_send, delivery_id=delivery.pk))
        audit_record(
            actor=SENDER,
            action="accounts.message.sent",
            obj=message,
            player_id=player.pk,
            kind=kind,
            reference=reference,
            email=email,
        )
    return message


def message_email_send(*, delivery_id: int) -> bool:
    """Send one message's e-mail now unless it went already; records the attempt (sent, or failed with the error).
    Locks the delivery row, so two workers never send one e-mail twice. True when it is sent (now or before)."""
    with transaction.atomic():
        delivery = (
            Delivery.objects.select_for_update(no_key=True, skip_locked=True, of=("self",))
            .select_related("message__player__user")
            .filter(pk=delivery_id, channel=Delivery.Channel.EMAIL)
            .first()
        )
        if delivery is None:
            return False  # another worker holds it
        if delivery.status == Delivery.Status.SENT:
            return True
        message = delivery.message
        now = clock.now()
        to = email_of(message.player)  # the address in force now (a correction since the message counts)
        delivery.attempts += 1
        delivery.attempted_at = now
        delivery.recipient = to[:254]
        subject, body = compose(
            subject_cs=message.subject_cs,
            subject_en=message.subject_en,
            body_cs=message.body_cs + INBOX_FOOTER_CS,
            body_en=message.body_en + INBOX_FOOTER_EN,
        )
        try:
            if not to:
                raise ValueError("the player has no e-mail address")
            EmailMessage(subject=subject, body=body, from_email=settings.DEFAULT_FROM_EMAIL, to=[to]).send(
                fail_silently=False
            )
        except Exception as exc:  # noqa: BLE001 - any failure of the mail backend is recorded and retried
            delivery.status = Delivery.Status.FAILED
            delivery.error = f"{exc.__class__.__name__}: {exc}"[:255]
            delivery.save(update_fields=["attempts", "attempted_at", "recipient", "status", "error"])
            logger.warning("message e-mail not sent", extra={"delivery_id": delivery.pk, "error": delivery.error})
            return False
        delivery.status = Delivery.Status.SENT
        delivery.delivered_at = now
        delivery.error = ""
        delivery.save(update_fields=["attempts", "attempted_at", "recipient", "status", "delivered_at", "error"])
    return True


def message_emails_retry_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Sweeper: send again the e-mails that failed (``ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES`` after the attempt, at
    most ``MESSAGE_EMAIL_MAX_ATTEMPTS`` attempts) and those whose after-commit send never ran. Returns how many
    went out; safe on two workers."""
    now = now or clock.now()
    cutoff = now - rules.message_email_retry_after()
    due = Q(status=Delivery.Status.FAILED, attempted_at__lte=cutoff) | Q(
        status=Delivery.Status.PENDING, message__created_at__lte=cutoff
    )
    ids = list(
        Delivery.objects.filter(due, channel=Delivery.Channel.EMAIL, attempts__lt=rules.MESSAGE_EMAIL_MAX_ATTEMPTS)
        .order_by("id")
        .values_list("pk", flat=True)[:limit]
    )
    return sum(1 for pk in ids if message_email_send(delivery_id=pk))


def message_read(*, player: Player, message_id: int, actor: Actor) -> Message:
    """The read receipt: the first opening of a message is recorded once (its time and an audit event); opening it
    again changes nothing. Another player's message, or none, is ``not_found``."""
    with transaction.atomic():
        message = Message.objects.select_for_update(no_key=True).filter(pk=message_id, player=player).first()
        if message is None:
            raise NOT_FOUND()
        if message.read_at is None:
            message.read_at = clock.now()
            message.save(update_fields=["read_at"])
            audit_record(
                actor=actor,
                action="accounts.message.read",
                obj=message,
                player_id=player.pk,
                kind=message.kind,
                reference=message.reference,
            )
    return message
