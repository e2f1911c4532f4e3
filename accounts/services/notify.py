"""E-mails (Django mail backend) and SMS (adapter), always sent after the transaction commits, and the
e-mail link of GP §4(7) that releases the first password."""

from __future__ import annotations

import logging

from django.conf import settings
from django.core import signing
from django.core.mail import send_mail
from django.db import transaction

from accounts.adapters import get_sms_gateway
from accounts.models import Player
from accounts.selectors import email_of
from core.audit import Actor, audit_record

logger = logging.getLogger("accounts.notify")

SIGNATURE = "\n\n-- \nProvozovatel / The operator"
EMAIL_LINK_SALT = "accounts.email-confirm.v1"


def compose(*, subject_cs: str, subject_en: str, body_cs: str, body_en: str) -> tuple[str, str]:
    """The subject and body of a bilingual e-mail (Czech first, then English)."""
    return f"{subject_cs} / {subject_en}", f"{body_cs}\n\n---- English ----\n\n{body_en}{SIGNATURE}"


def email_on_commit(*, to: str, subject_cs: str, subject_en: str, body_cs: str, body_en: str) -> None:
    """A bilingual (Czech first, then English) e-mail, sent once the current transaction commits."""
    subject, body = compose(subject_cs=subject_cs, subject_en=subject_en, body_cs=body_cs, body_en=body_en)

    def _send() -> None:
        try:
            send_mail(subject, body, settings.DEFAULT_FROM_EMAIL, [to], fail_silently=False)
        except Exception:  # the e-mail is logged; the committed action stands
            logger.exception("e-mail to %s failed", to)

    transaction.on_commit(_send)


def sms_on_commit(*, to: str, text: str, purpose: str) -> None:
    """An SMS through the gateway adapter, sent once the current transaction commits."""

    def _send() -> None:
        try:
            get_sms_gateway().send(to=to, text=text, purpose=purpose)
        except Exception:  # logged; the applicant can ask for a new link
            logger.exception("sms (%s) failed", purpose)

    transaction.on_commit(_send)


def _link_for(player: Player) -> str:
    token = signing.dumps({"p": player.pk, "s": player.email_link_seq}, salt=EMAIL_LINK_SALT)
    base = settings.PUBLIC_BASE_URL.rstrip("/")
    return base + settings.ACCOUNTS_EMAIL_CONFIRM_URL.format(token=token)


def email_link_issue(*, player: Player) -> None:
    """Send (after commit) the signed, expiring link; confirming it sends the first password by SMS (GP §4(7)).
    Each new link supersedes the previous ones. Call with the player locked."""
    player.email_link_seq += 1
    player.save(update_fields=["email_link_seq"])
    url = _link_for(player)
    hours = settings.ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS
    email_on_commit(
        to=email_of(player),
        subject_cs="Potvrďte prosím e-mail",
        subject_en="Please confirm your e-mail",
        body_cs=(
            f"Vaše uživatelské jméno: {player.user.username}\nPotvrďte e-mail kliknutím na odkaz (platí {hours} h); "
            f"první heslo vám pak pošleme SMS:\n{url}"
        ),
        body_en=(
            f"Your username: {player.user.username}\nConfirm your e-mail with this link (valid {hours} h); "
            f"we then send your first password by SMS:\n{url}"
        ),
    )
    audit_record(
        actor=Actor.system("accounts.credentials"),
        action="accounts.credentials.email_link_sent",
        obj=player,
        player_id=player.pk,
        seq=player.email_link_seq,
    )
