"""Notices to the recipients of the data (GP §12(7): "those who received the data are told"; GDPR art. 19).

The recipients are declared in ``settings.PRIVACY_RECIPIENTS`` (``accounts.privacy_contract.recipients``), each with the
records of the privacy contract it receives. A correction of the personal data (``personal_data_update``) and an
erasure at the end of a retention period (``accounts.services.privacy``) each record one :class:`RecipientNotice` per
relevant recipient, in the transaction of the change (outbox). ``recipient_notices_send_due`` (every 10 minutes)
e-mails each to the recipient's declared privacy contact (``contact``) and retries a failure after
``PRIVACY_NOTICE_RETRY_MINUTES``. The notice names the participant only by our reference (the player id) and the
fields or records concerned, never a value. Nothing here calls a provider's API: what a recipient does on receipt is
its duty under its processing agreement. A recipient with no contact is left for staff (admin *Recipient notices*).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

from accounts import privacy_contract
from accounts.models import Player, RecipientNotice
from core import clock
from core.audit import Actor, audit_record

logger = logging.getLogger("accounts")
MAX_ATTEMPTS = 10


def recipient_notices_record(
    *, player: Player, event: str, reference: str, records: Iterable[str], actor: Actor, fields: Iterable[str] = ()
) -> list[RecipientNotice]:
    """Record one notice to each recipient to notify (``notify``) that receives any of ``records``; idempotent on
    (player, recipient, reference). Call inside the transaction of the change."""
    wanted = sorted(set(records))
    now = clock.now()
    out = []
    for rec in privacy_contract.recipients_of(wanted):
        got = sorted(set(wanted) & set(rec.get("records", ())))
        contact = str(rec.get("contact") or "")
        notice, created = RecipientNotice.objects.get_or_create(
            player=player,
            recipient=rec["code"],
            reference=reference,
            defaults={
                "event": event,
                "records": got,
                "fields": sorted(fields),
                "contact": contact,
                "created_at": now,
                "next_attempt_at": now if contact else None,
                "last_error": "" if contact else "no contact declared: staff notify the recipient",
            },
        )
        if created:
            audit_record(
                actor=actor,
                action="accounts.recipient_notice.recorded",
                obj=notice,
                player_id=player.pk,
                recipient=rec["code"],
                event=event,
                records=got,
                fields=sorted(fields),
            )
        out.append(notice)
    return out


def _text(n: RecipientNotice) -> tuple[str, str]:
    day = clock.business_date(n.created_at).isoformat()
    records = ", ".join(n.records)
    if n.event == RecipientNotice.Event.CORRECTION:
        what_cs = f"byly opraveny osobní údaje (pole: {', '.join(n.fields) or '-'})"
        what_en = f"the personal data were corrected (fields: {', '.join(n.fields) or '-'})"
        ask_cs, ask_en = "Opravte prosím své kopie.", "Please correct your copies."
    else:
        what_cs = "byly po uplynutí zákonné lhůty uchování anonymizovány tyto záznamy"
        what_en = "these records were anonymised at the end of their legal retention period"
        ask_cs, ask_en = "Vymažte prosím své kopie.", "Please erase your copies."
    subject = f"Personal data {n.event}: participant {n.player_id} ({n.reference})"
    body = (
        f"Dne {day} {what_cs}: {records}; účastník č. {n.player_id} (naše značka {n.reference}). {ask_cs} "
        f"(HP §12 odst. 7, čl. 19 GDPR)\n\n"
        f"On {day} {what_en}: {records}; participant no. {n.player_id} (our reference {n.reference}). {ask_en} "
        f"(GP §12(7), GDPR art. 19)"
    )
    return subject, body


def recipient_notice_send_one(*, notice_id: int, now: datetime | None = None) -> str:
    """Send one due notice: claimed with a lease (the retry time) in a short transaction, e-mailed outside it."""
    now = now or clock.now()
    retry = timedelta(minutes=settings.PRIVACY_NOTICE_RETRY_MINUTES)
    with transaction.atomic():
        n = (
            RecipientNotice.objects.select_for_update(no_key=True, skip_locked=True)
            .filter(pk=notice_id, sent_at__isnull=True, next_attempt_at__lte=now)
            .first()
        )
        if n is None:
            return "not_due"
        n.attempts += 1
        n.next_attempt_at = now + retry if n.attempts < MAX_ATTEMPTS else None
        n.save(update_fields=["attempts", "next_attempt_at"])
    subject, body = _text(n)
    try:
        send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [n.contact], fail_silently=False)
    except Exception as exc:  # noqa: BLE001 - any failure of the mail backend is recorded and retried
        logger.warning("recipient notice not sent", extra={"notice": n.pk, "error": str(exc)[:200]})
        RecipientNotice.objects.filter(pk=n.pk).update(last_error=str(exc)[:255])
        return "failed"
    RecipientNotice.objects.filter(pk=n.pk).update(sent_at=clock.now(), next_attempt_at=None, last_error="")
    return "sent"


def recipient_notices_send_due(*, now: datetime | None = None, batch: int = 200) -> dict[str, Any]:
    """Sweeper: send every due notice (safe to run twice or on two workers: each is claimed)."""
    now = now or clock.now()
    ids = list(
        RecipientNotice.objects.filter(sent_at__isnull=True, next_attempt_at__lte=now)
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:batch]
    )
    counts: dict[str, Any] = {"sent": 0, "failed": 0, "not_due": 0}
    for pk in ids:
        counts[recipient_notice_send_one(notice_id=pk, now=now)] += 1
    return counts
