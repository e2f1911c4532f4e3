"""Player API of the accounts app (mounted at /api/v1/accounts/). Thin: parse, call a service, format."""

from __future__ import annotations

from typing import Any, NoReturn

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.signals import user_logged_in
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import errors, rules, selectors, serializers, services
from accounts.models import AuthToken, Consent, CorrectionRequest, LoginSession, Message, Player
from accounts.permissions import IsPlayer, request_player, request_user
from core import clock
from core.audit import Actor, security_event
from core.errors import NOT_FOUND, VALIDATION, error_response
from core.idempotency import idempotent
from core.pagination import DefaultPagination
from core.throttling import ScopedRateThrottle


def _codes(errs: Any) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for field, problems in errs.items():
        if isinstance(problems, dict):
            for sub, items in _codes(problems).items():
                out[f"{field}.{sub}"] = items
        else:
            out[field] = [getattr(p, "code", None) or "invalid" for p in problems]
    return out


def _client_ip(request: Request) -> str | None:
    return request.META.get("REMOTE_ADDR") or None


class AnonThrottled(APIView):
    """A public endpoint, throttled per client address."""

    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "anon"


# Registration ----------------------------------------------------------------------------------
class DocumentsView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(responses=serializers.DocumentsOutSerializer, summary="Current versions of the documents to accept")
    def get(self, request: Request) -> Response:
        current = selectors.terms_in_force()
        return Response({**rules.document_versions(), "plan_version": current.version if current else None})


class RegistrationView(AnonThrottled):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        request=serializers.RegistrationInSerializer,
        responses={201: serializers.RegistrationOutSerializer, 202: serializers.RegistrationOutSerializer},
        summary="Register online (GP §4(3)); the temporary account starts when the checks pass",
    )
    def post(self, request: Request) -> Response:
        ser = serializers.RegistrationInSerializer(data=request.data)
        if not ser.is_valid():
            codes = _codes(ser.errors)
            if any(k == "consents" or k.startswith("consents.") for k in codes):
                raise errors.CONSENT_REQUIRED(fields=codes, versions=rules.document_versions())
            raise errors.INVALID_PERSONAL_DATA(fields=codes)
        data = dict(ser.validated_data)
        username = data.pop("username")
        consents = dict(data.pop("consents"))
        player = services.registration_submit(
            data=data,
            consents=consents,
            username=username,
            channel=Player.Channel.ONLINE,
            source_address=_client_ip(request),
        )
        pending = player.status == Player.Status.APPLICANT
        if pending:
            cs = "Státní registr je nedostupný; ověření zopakujeme a dáme vám vědět e-mailem."
            en = "A state register is unavailable; we will retry the checks and tell you by e-mail."
        else:
            cs = "Potvrďte odkaz, který jsme poslali e-mailem; první heslo pak přijde SMS."
            en = "Confirm the link we sent by e-mail; your first password then comes by SMS."
        body = {
            "username": player.user.username,
            "status": player.status,
            "checks_pending": pending,
            "temporary_expires_at": player.temporary_expires_at,
            "next_step_cs": cs,
            "next_step_en": en,
        }
        return Response(serializers.RegistrationOutSerializer(body).data, status=202 if pending else 201)


class ConfirmEmailView(AnonThrottled):
    """GP §4(7): the link from the e-mail; confirming it sends the first password by SMS."""

    permission_classes = [permissions.AllowAny]
    authentication_classes = []

    @extend_schema(
        parameters=[OpenApiParameter("token", str, required=True)],
        responses=serializers.ConfirmOutSerializer,
        summary="Confirm the e-mail link (link target)",
    )
    def get(self, request: Request) -> Response:
        return Response(services.email_link_confirm(token=request.query_params.get("token", "")))

    @extend_schema(
        request=serializers.TokenInSerializer,
        responses=serializers.ConfirmOutSerializer,
        summary="Confirm the e-mail link",
    )
    def post(self, request: Request) -> Response:
        ser = serializers.TokenInSerializer(data=request.data)
        if not ser.is_valid():
            raise errors.EMAIL_LINK_INVALID()
        return Response(services.email_link_confirm(token=ser.validated_data["token"]))


class ResendLinkView(AnonThrottled):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []

    @extend_schema(
        request=serializers.ResendInSerializer,
        responses={202: serializers.AcceptedSerializer},
        summary="Send a new e-mail link (until the first password is changed)",
    )
    def post(self, request: Request) -> Response:
        ser = serializers.ResendInSerializer(data=request.data)
        if not ser.is_valid():
            raise VALIDATION(fields=_codes(ser.errors))
        services.email_link_resend(**ser.validated_data)
        return Response({"status": "accepted"}, status=202)


class StepsView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        responses=serializers.StepsOutSerializer,
        summary="Registration steps done/missing and the temporary account deadline",
    )
    def get(self, request: Request) -> Response:
        return Response(serializers.StepsOutSerializer(selectors.registration_steps(request_player(request))).data)


class CompleteView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=None,
        responses=serializers.StatusOutSerializer,
        summary="Complete the registration: temporary -> player account (GP §4(8), §5(2)d)",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        player = request_player(request)
        services.registration_complete(player=player, actor=Actor.player(player))
        return Response({"status": player.status})


# Credentials and sessions ---------------------------------------------------------------------------
class LoginView(APIView):
    permission_classes = [permissions.AllowAny]
    authentication_classes = []
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "login"

    def throttled(self, request: Request, wait: float) -> NoReturn:
        """A throttled login is a security event (one per address and window, the rest counted),
        then the usual 429."""
        security_event(
            action="security.login_throttled",
            source=request.META.get("REMOTE_ADDR", ""),
            tried="login over the per-address rate",
            wait_seconds=wait,
            summarise=True,
        )
        super().throttled(request, wait)

    @extend_schema(
        request=serializers.LoginInSerializer,
        responses=serializers.LoginOutSerializer,
        summary="Log in: username + password -> token of a new login session",
    )
    def post(self, request: Request) -> Response:
        ser = serializers.LoginInSerializer(data=request.data)
        if not ser.is_valid():
            raise VALIDATION(fields=_codes(ser.errors))
        username, password = ser.validated_data["username"], ser.validated_data["password"]
        user = authenticate(request=request, username=username, password=password)
        if _locked_out(request):
            security_event(
                action="security.login_locked_out",
                source=request.META.get("REMOTE_ADDR", ""),
                tried=f"login as {username[:150]!r}",
                summarise=True,
            )
            hours = settings.AXES_COOLOFF_TIME
            seconds = int(hours * 3600)
            resp = error_response(errors.LOCKED_OUT(retry_after_seconds=seconds))
            resp["Retry-After"] = str(seconds)
            return resp
        if user is None:
            raise errors.INVALID_CREDENTIALS()
        player = selectors.player_for_user(user)
        if player is None:
            # the password was right: say why instead of "wrong password"; an account that is neither
            # staff nor a player stays a plain refusal
            raise errors.STAFF_NOT_A_PLAYER() if user.is_staff else errors.INVALID_CREDENTIALS()
        session, key = services.session_start(
            player=player, ip_address=_client_ip(request), user_agent=request.META.get("HTTP_USER_AGENT", "")
        )
        user_logged_in.send(sender=user.__class__, request=request, user=user)  # axes resets the failures
        return Response(
            {
                "token": key,
                "session_id": session.pk,
                "must_change_password": user.must_change_password,
                "status": player.status,
                "idle_timeout_minutes": settings.ACCOUNTS_SESSION_IDLE_MINUTES,
            }
        )


def _locked_out(request: Request) -> bool:
    """django-axes marks the request when the username is locked out; we answer with our own error
    shape, so the flag is cleared before AxesMiddleware would replace the response."""
    raw: Any = getattr(request, "_request", request)
    locked = bool(getattr(request, "axes_locked_out", False) or getattr(raw, "axes_locked_out", False))
    if locked:
        both: tuple[Any, ...] = (request, raw)
        for r in both:
            try:
                r.axes_locked_out = False
            except AttributeError:  # pragma: no cover - safe: only clears a flag; the lockout is already in `locked`
                pass
    return locked


class LogoutView(APIView):
    allow_password_change_pending = True

    @extend_schema(request=None, responses={204: OpenApiResponse(description="logged out")}, summary="Log out")
    def post(self, request: Request) -> Response:
        token = request.auth
        if isinstance(token, AuthToken) and token.session is not None:
            services.session_end(
                session=token.session,
                reason=LoginSession.EndReason.LOGOUT,
                actor=Actor.from_user(request_user(request)),
            )
        elif isinstance(token, AuthToken):
            AuthToken.objects.filter(pk=token.pk).update(revoked_at=clock.now(), revoked_reason="logout")
        return Response(status=204)


class PasswordChangeView(APIView):
    allow_password_change_pending = True

    @extend_schema(
        request=serializers.PasswordChangeInSerializer,
        responses=serializers.StatusOutSerializer,
        summary="Change the password (the first one must be changed at first login, GP §4(7))",
    )
    def post(self, request: Request) -> Response:
        ser = serializers.PasswordChangeInSerializer(data=request.data)
        if not ser.is_valid():
            raise VALIDATION(fields=_codes(ser.errors))
        token = request.auth if isinstance(request.auth, AuthToken) else None
        services.password_change(user=request_user(request), keep_token=token, **ser.validated_data)
        return Response({"status": "changed"})


class SessionsView(generics.ListAPIView):
    permission_classes = [IsPlayer]
    serializer_class = serializers.LoginSessionSerializer

    def get_queryset(self) -> QuerySet[LoginSession]:
        return LoginSession.objects.filter(player=request_player(self.request)).order_by("-started_at", "-id")


# Personal data (GP §12) ------------------------------------------------------------------------------
class MeView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=serializers.MeSerializer, summary="My account")
    def get(self, request: Request) -> Response:
        player = request_player(request)
        user = player.user
        pd = getattr(player, "personal", None) if hasattr(player, "personal") else None
        refusal = selectors.betting_refusal(player)
        return Response(
            serializers.MeSerializer(
                {
                    "username": user.username,
                    "status": player.status,
                    "status_reason": player.status_reason,
                    "given_names": pd.given_names if pd else None,
                    "surname": pd.surname if pd else None,
                    "email": pd.email if pd else user.email,
                    "phone": pd.phone if pd else None,
                    "temporary_expires_at": player.temporary_expires_at,
                    "completed_at": player.completed_at,
                    "must_change_password": user.must_change_password,
                    "marketing_consent": "marketing" in selectors.live_consents(player),
                    "betting_refusal": refusal.code if refusal else None,
                    "terms_version_accepted": player.terms_version_accepted,
                }
            ).data
        )


class ExportView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        responses={200: OpenApiResponse(description="all my data as JSON (GP §12(7))")},
        summary="Export all my personal data",
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.personal_data_export(request_player(request)))


class ConsentsView(generics.ListAPIView):
    permission_classes = [IsPlayer]
    serializer_class = serializers.ConsentSerializer

    def get_queryset(self) -> QuerySet[Consent]:
        return Consent.objects.filter(player=request_player(self.request)).order_by("-given_at", "-id")

    @extend_schema(
        request=serializers.ConsentInSerializer,
        responses={201: serializers.ConsentSerializer},
        summary="Give a consent (current version)",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        ser = serializers.ConsentInSerializer(data=request.data)
        if not ser.is_valid():
            raise VALIDATION(fields=_codes(ser.errors))
        player = request_player(request)
        consent = services.consent_give(player=player, actor=Actor.player(player), **ser.validated_data)
        return Response(serializers.ConsentSerializer(consent).data, status=201)


class ConsentWithdrawView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=serializers.ConsentWithdrawInSerializer,
        responses=serializers.ConsentSerializer,
        summary="Withdraw a consent (mandatory ones cancel the registration, GP §12(6))",
    )
    @idempotent(required=False)
    def post(self, request: Request, kind: str) -> Response:
        ser = serializers.ConsentWithdrawInSerializer(data=request.data)
        if not ser.is_valid():
            raise errors.CLOSURE_METHOD_INVALID(allowed=Player.ClosureMethod.values)
        player = request_player(request)
        consent = services.consent_withdraw(
            player=player, kind=kind, actor=Actor.player(player), settlement=ser.validated_data.get("settlement")
        )
        return Response(serializers.ConsentSerializer(consent).data)


class CorrectionsView(generics.ListAPIView):
    permission_classes = [IsPlayer]
    serializer_class = serializers.CorrectionSerializer

    def get_queryset(self) -> QuerySet[CorrectionRequest]:
        return CorrectionRequest.objects.filter(player=request_player(self.request)).order_by("-created_at", "-id")

    @extend_schema(
        request=serializers.CorrectionInSerializer,
        responses={201: serializers.CorrectionSerializer},
        summary="Ask for a correction of personal data (staff review it)",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        ser = serializers.CorrectionInSerializer(data=request.data)
        if not ser.is_valid():
            raise errors.CORRECTION_FIELD_INVALID(fields=_codes(ser.errors))
        player = request_player(request)
        req = services.correction_request_create(
            player=player,
            changes=ser.validated_data["changes"],
            note=ser.validated_data.get("note", ""),
            actor=Actor.player(player),
        )
        return Response(serializers.CorrectionSerializer(req).data, status=201)


class ClosureView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=serializers.ClosureInSerializer,
        responses=serializers.ClosureOutSerializer,
        summary="Cancel my registration (GP §4(10), §5(15)) choosing how the balance is settled",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        ser = serializers.ClosureInSerializer(data=request.data)
        if not ser.is_valid():
            raise errors.CLOSURE_METHOD_INVALID(allowed=Player.ClosureMethod.values)
        player = request_player(request)
        services.closure_request(player=player, method=ser.validated_data["settlement"], actor=Actor.player(player))
        return Response(
            {
                "status": player.status,
                "closure_method": player.closure_method,
                "closure_requested_at": player.closure_requested_at,
            }
        )


# Notices (GP §7(7), §10(4)) --------------------------------------------------------------------------------------
class MessagePagination(DefaultPagination):
    """The house list, plus the number of unread messages."""

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        out = super().get_paginated_response_schema(schema)
        out["properties"]["unread"] = {"type": "integer", "example": 1, "description": "messages not read yet"}
        out["required"] = [*out.get("required", []), "unread"]
        return out


def _message_id(value: int) -> int:
    """A path identifier within the database's range; anything else is simply not found."""
    if not 0 < value < 2**63:
        raise NOT_FOUND()
    return value


class MessagesView(generics.ListAPIView):
    """The player's inbox: notices the operator can prove (a win deducted, a debt, a hold, a refused payment method,
    an account cancellation, a new game plan ...), newest first, with the number unread."""

    permission_classes = [IsPlayer]
    serializer_class = serializers.MessageSerializer
    pagination_class = MessagePagination

    def get_queryset(self) -> QuerySet[Message]:
        return selectors.messages_of(request_player(self.request))

    def get_paginated_response(self, data: Any) -> Response:
        response = super().get_paginated_response(data)
        response.data["unread"] = selectors.messages_unread(request_player(self.request))
        return response


class MessageDetailView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(responses=serializers.MessageSerializer, summary="One message of my inbox")
    def get(self, request: Request, message_id: int) -> Response:
        message = selectors.message_of(request_player(request), _message_id(message_id))
        if message is None:
            raise NOT_FOUND()
        return Response(serializers.MessageSerializer(message).data)


class MessageReadView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=None,
        responses=serializers.MessageSerializer,
        summary="Read receipt: mark the message read (the first time is recorded; idempotent)",
    )
    @idempotent(required=False)
    def post(self, request: Request, message_id: int) -> Response:
        player = request_player(request)
        message = services.message_read(player=player, message_id=_message_id(message_id), actor=Actor.player(player))
        return Response(serializers.MessageSerializer(message).data)


# The game plan and terms (GP §3(5), §8(1)) ------------------------------------------------------------------------
class TermsView(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        responses=serializers.TermsOutSerializer,
        summary="The game plan and terms in force, and the versions announced (GP §3(5), §8(1))",
    )
    def get(self, request: Request) -> Response:
        return Response(
            serializers.TermsOutSerializer(
                {"current": selectors.terms_in_force(), "upcoming": selectors.terms_upcoming()}
            ).data
        )


class TermsAcceptView(APIView):
    permission_classes = [IsPlayer]

    @extend_schema(
        request=serializers.TermsAcceptInSerializer,
        responses=serializers.TermsAcceptanceSerializer,
        summary="Accept a version of the game plan and terms (needed before the next stake, GP §3(5))",
    )
    @idempotent(required=False)
    def post(self, request: Request) -> Response:
        ser = serializers.TermsAcceptInSerializer(data=request.data)
        if not ser.is_valid():
            raise VALIDATION(fields=_codes(ser.errors))
        player = request_player(request)
        acceptance = services.terms_accept(
            player=player,
            version=ser.validated_data["version"],
            actor=Actor.player(player),
            source_address=_client_ip(request),
        )
        return Response(serializers.TermsAcceptanceSerializer(acceptance).data)
