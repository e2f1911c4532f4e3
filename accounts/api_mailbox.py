"""The development mailbox: the e-mails and SMS the sandbox gateways would have sent, for a developer of
a player app who has no admin access (the e-mail confirmation link, the first password).

``GET /api/v1/accounts/dev/mailbox`` (JSON) and ``GET /dev/mailbox`` (a page), newest first, ``?to=`` filters by
an e-mail address or a phone number. Both exist only while ``DEV_MAILBOX_ENABLED`` (the default outside
production); otherwise they are ``not_found`` (404), and production refuses to start with it on
(``config.settings.production_refusals``). The e-mails are those :class:`core.mail.SandboxEmailBackend` kept; the
SMS those :class:`accounts.adapters.SandboxSmsGateway` stored.
"""

from __future__ import annotations

import re
from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import SandboxSms
from core.errors import NOT_FOUND
from core.models import SandboxEmail

LIMIT = 50
LINK = re.compile(r"https?://\S+")
MAILBOX_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'"


class MailboxEmailSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    to = serializers.ListField(child=serializers.CharField())
    subject = serializers.CharField()
    body = serializers.CharField()
    links = serializers.ListField(child=serializers.CharField(), help_text="the links in the body (a confirmation)")
    sent_at = serializers.DateTimeField()


class MailboxSmsSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    to = serializers.CharField()
    text = serializers.CharField(help_text="the first password is in here")
    purpose = serializers.CharField(allow_blank=True)
    sent_at = serializers.DateTimeField()


class MailboxSerializer(serializers.Serializer[Any]):
    emails = MailboxEmailSerializer(many=True)
    sms = MailboxSmsSerializer(many=True)


def mailbox(to: str = "") -> dict[str, Any]:
    """The newest :data:`LIMIT` e-mails and SMS (to ``to`` when given); refused (404) unless enabled."""
    if not settings.DEV_MAILBOX_ENABLED:
        raise NOT_FOUND()
    emails = SandboxEmail.objects.all()
    sms = SandboxSms.objects.all()
    if to:
        emails = emails.filter(to__contains=[to])
        sms = sms.filter(to=to)
    return {
        "emails": [
            {
                "id": e.pk,
                "to": e.to,
                "subject": e.subject,
                "body": e.body,
                "links": LINK.findall(e.body),
                "sent_at": e.sent_at,
            }
            for e in emails[:LIMIT]
        ],
        "sms": [
            {"id": s.pk, "to": s.to, "text": s.text, "purpose": s.purpose, "sent_at": s.sent_at} for s in sms[:LIMIT]
        ],
    }


class MailboxView(APIView):
    """Development only: the e-mails and SMS the sandbox gateways would have sent (newest first)."""

    permission_classes = [permissions.AllowAny]
    authentication_classes: list[Any] = []

    @extend_schema(
        responses=MailboxSerializer,
        operation_id="accounts_dev_mailbox",
        parameters=[
            OpenApiParameter("to", str, required=False, description="only those to this e-mail address or phone number")
        ],
        description="Development only (DEV_MAILBOX_ENABLED; 404 in production): the e-mails and SMS the "
        "sandbox gateways would have sent, newest first, at most 50 of each. The e-mail "
        "confirmation link is in `emails[].links`, the first password in `sms[].text`.",
    )
    def get(self, request: Request) -> Response:
        return Response(MailboxSerializer(mailbox(str(request.query_params.get("to", ""))[:254])).data)


def mailbox_page(request: HttpRequest) -> HttpResponse:
    """``/dev/mailbox``: the same as a page (no script; links open the confirmation)."""
    if not settings.DEV_MAILBOX_ENABLED:
        raise Http404
    response = render(request, "accounts/dev_mailbox.html", mailbox(str(request.GET.get("to", ""))[:254]))
    response["Content-Security-Policy"] = MAILBOX_CSP
    return response
