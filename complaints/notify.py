"""E-mails of the complaints app through an outbox (:class:`ComplaintNotice`).

A service writes the notice row in its own transaction and asks for it to be sent after commit; a rolled-back
action therefore never mails anybody, and a notice the mail server refused stays unsent and is retried by the
sweeper (``complaints_deadline_sweep``). Sending locks the notice row, so two workers never send one notice twice.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.mail import EmailMessage
from django.db import IntegrityError, transaction
from django.db.models import Q

from complaints.models import ComplaintNotice
from core import clock

logger = logging.getLogger("complaints.notify")
MAX_ATTEMPTS = 10
RETRY_AFTER = timedelta(minutes=5)


def supervisor_emails() -> list[str]:
    """Who receives reminders and overdue alerts besides the assignee: active staff holding the
    ``complaints.supervise_complaint`` permission (directly or through a group), plus the addresses in the
    optional setting ``COMPLAINTS_SUPERVISOR_EMAILS``; when there is nobody, the superusers, so that no
    deadline passes silently."""
    User = get_user_model()
    emails: list[str] = []
    perm = Permission.objects.filter(codename="supervise_complaint", content_type__app_label="complaints").first()
    if perm is not None:
        users = (
            User.objects.filter(is_active=True, is_staff=True)
            .filter(Q(user_permissions=perm) | Q(groups__permissions=perm))
            .distinct()
            .order_by("pk")
        )
        emails += [u.email for u in users if u.email]
    emails += list(settings.COMPLAINTS_SUPERVISOR_EMAILS)
    if not emails:
        emails = [u.email for u in User.objects.filter(is_active=True, is_superuser=True).order_by("pk") if u.email]
    return list(dict.fromkeys(emails))


def notice_create(*, complaint, kind: str, recipients: list[str], subject: str, body: str):
    """Write a notice in the caller's transaction and send it after commit. A notice that may exist only once
    per complaint (confirmation, answer, reminders, overdue) is not written twice: returns None then."""
    recipients = [r for r in dict.fromkeys(recipients) if r]
    try:
        with transaction.atomic():
            notice = ComplaintNotice.objects.create(
                complaint=complaint,
                kind=kind,
                recipients=recipients,
                subject=subject[:255],
                body=body,
                created_at=clock.now(),
            )
    except IntegrityError:
        if kind in ComplaintNotice.ONCE:
            return None
        raise
    transaction.on_commit(lambda: notice_send(notice_id=notice.pk))
    return notice


def notice_send(*, notice_id: int) -> bool:
    """Send one notice now if it is still unsent; True when it went out (now or before)."""
    with transaction.atomic():
        # the notice's row only: its model's ordering (by the complaint) would join the complaint and lock its row
        # too, so a sweeper or a staff action holding the complaint made this send skip the notice until the retry
        notice = (
            ComplaintNotice.objects.select_for_update(no_key=True, skip_locked=True, of=("self",))
            .filter(pk=notice_id)
            .order_by()
            .first()
        )
        if notice is None:
            return False  # another worker is sending it
        if notice.sent_at is not None:
            return True
        notice.attempts += 1
        if not notice.recipients:
            notice.last_error = "no recipients"
            notice.save(update_fields=["attempts", "last_error"])
            logger.error("complaint notice without recipients", extra={"notice_id": notice.pk, "kind": notice.kind})
            return False
        try:
            EmailMessage(
                subject=notice.subject, body=notice.body, from_email=settings.DEFAULT_FROM_EMAIL, to=notice.recipients
            ).send(fail_silently=False)
        except Exception as exc:  # noqa: BLE001 - recorded and retried by the sweeper
            notice.last_error = f"{exc.__class__.__name__}: {exc}"[:255]
            notice.save(update_fields=["attempts", "last_error"])
            logger.warning("complaint notice not sent", extra={"notice_id": notice.pk, "error": notice.last_error})
            return False
        notice.sent_at = clock.now()
        notice.last_error = ""
        notice.save(update_fields=["attempts", "sent_at", "last_error"])
        return True


def notices_retry(*, now=None) -> int:
    """Send the notices still unsent a while after they were written (mail server was down); returns how many
    went out."""
    now = now or clock.now()
    ids = list(
        ComplaintNotice.objects.filter(
            sent_at__isnull=True, attempts__lt=MAX_ATTEMPTS, created_at__lte=now - RETRY_AFTER
        )
        .order_by("created_at")
        .values_list("pk", flat=True)[:500]
    )
    return sum(1 for pk in ids if notice_send(notice_id=pk))
