"""E-mails (Django mail backend) and SMS (adapter), always sent after the transaction commits."""
from __future__ import annotations

import logging

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction

logger = logging.getLogger("accounts.notify")

SIGNATURE = "\n\n-- \nProvozovatel / The operator"


def email_on_commit(*, to: str, subject_cs: str, subject_en: str, body_cs: str, body_en: str) -> None:
    """A bilingual (Czech first, then English) e-mail, sent once the current transaction commits."""
    subject = f"{subject_cs} / {subject_en}"
    body = f"{body_cs}\n\n---- English ----\n\n{body_en}{SIGNATURE}"

    def _send():
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to], fail_silently=False)
        except Exception:  # noqa: BLE001 - the e-mail is logged; the committed action stands
            logger.exception("e-mail to %s failed", to)

    transaction.on_commit(_send)


def sms_on_commit(*, to: str, text: str, purpose: str) -> None:
    from accounts.adapters import get_sms_gateway

    def _send():
        try:
            get_sms_gateway().send(to=to, text=text, purpose=purpose)
        except Exception:  # noqa: BLE001 - logged; the applicant can ask for a new link
            logger.exception("sms (%s) failed", purpose)

    transaction.on_commit(_send)
