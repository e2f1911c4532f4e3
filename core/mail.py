"""The development mail backend: each e-mail is written to the console (as Django's console backend does, so
``.data/web.log`` still shows it) and kept in :class:`core.models.SandboxEmail` for the development mailbox
(``/dev/mailbox``, ``GET /api/v1/accounts/dev/mailbox``). The default outside production; production refuses it
(``config.settings.production_refusals``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.core.mail.backends.console import EmailBackend as ConsoleBackend
from django.core.mail.message import EmailMessage

from core import clock
from core.models import SandboxEmail


class SandboxEmailBackend(ConsoleBackend):
    def send_messages(self, email_messages: Sequence[EmailMessage]) -> int:
        sent = super().send_messages(email_messages)
        SandboxEmail.objects.bulk_create(
            [
                SandboxEmail(
                    to=[str(a) for a in [*message.to, *message.cc, *message.bcc]],
                    subject=str(message.subject)[:998],
                    body=_text(message),
                    sent_at=clock.now(),
                )
                for message in email_messages
            ]
        )
        return sent


def _text(message: EmailMessage) -> str:
    body: Any = message.body
    return body if isinstance(body, str) else str(body)
