"""The providers' API under /api/v1/providers/<provider>/ (the wire contract, docs/providers.md).

POST launch        the player (token auth): a single-use launch token and the provider's launch URL
POST session       signed: the launch token exchanged for a game session
POST balance       signed: the player's balance
POST bet           signed: the stake of a round (opens the platform round)
POST play          signed: a one-shot round in one call (the stake, the studio's win and its record of the round)
POST win           signed: a win of a round
POST rollback      signed: a bet cancelled
POST round-end     signed: the round settled

The signed calls carry no user authentication: the HMAC-SHA256 signature over ``timestamp.`` + the raw body is the
proof, checked with the source address and the timestamp window (providers.services.provider_call). Refused calls
of an unauthenticated caller (signature, time window, source, unknown studio) are throttled per source address like
the wallet's provider callbacks (``callback_refused``); an authenticated studio's duplicate-id retries with another
body are counted per studio and outcome and only those are throttled. Accepted calls are not counted: a studio's calls
come from its few listed addresses and carry all its players' rounds (2,000 players at one
round each 2 s are 120,000 calls a minute), and a call from any other address is refused, so counted.
"""

from __future__ import annotations

from typing import Any, NoReturn

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import IsPlayer, request_player
from core.audit import Actor, security_event
from core.idempotency import idempotent
from core.renderers import HOT_RENDERERS, HotContentNegotiation
from core.throttling import CallbackRefusalThrottle
from providers import errors, services
from providers.serializers import (
    BetRequestSerializer,
    PlayRequestSerializer,
    ProviderBalanceRequestSerializer,
    ProviderBalanceSerializer,
    ProviderLaunchRequestSerializer,
    ProviderLaunchSerializer,
    ProviderMovementSerializer,
    ProviderSessionRequestSerializer,
    ProviderSessionSerializer,
    RollbackRequestSerializer,
    RoundEndRequestSerializer,
    WinRequestSerializer,
)
from providers.signing import SIGNATURE_HEADER, TIMESTAMP_HEADER

SIGNED_PARAMETERS = [
    OpenApiParameter(
        TIMESTAMP_HEADER,
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        required=True,
        description="unix seconds (integer); within PROVIDERS_SIGNATURE_WINDOW_SECONDS of the platform",
    ),
    OpenApiParameter(
        SIGNATURE_HEADER,
        OpenApiTypes.STR,
        OpenApiParameter.HEADER,
        required=True,
        description='sha256=<hex HMAC-SHA256(secret, f"{timestamp}.".encode() + raw body)>',
    ),
]
#: refusals of an unauthenticated caller: they count towards the per-source refusal throttle, which then answers 429
#: to every call of that source (nobody who holds the studio's secret is refused so)
REFUSED = {
    errors.INVALID_SIGNATURE.code,
    errors.TIMESTAMP_OUTSIDE_WINDOW.code,
    errors.SOURCE_NOT_ALLOWED.code,
    errors.PROVIDER_UNKNOWN.code,
}
#: refusals of an authenticated studio counted per studio and outcome: over the rate, further calls with the same
#: outcome are answered 429, while the studio's other calls (its players' bets and wins) go on
BY_STUDIO_AND_OUTCOME = {errors.DUPLICATE_TRANSACTION.code}


class StudioOutcomeThrottle(CallbackRefusalThrottle):
    """Refusals of one authenticated studio with one outcome (rate ``callback_refused``), counted after the call."""

    @classmethod
    def over(cls, provider: str, outcome: str) -> bool:
        """Count one refusal of ``provider`` with ``outcome``; True when it is beyond the rate."""
        throttle = cls()
        if throttle.rate is None:
            return False
        key = throttle.cache_format % {"scope": "provider_outcome", "ident": f"{provider}:{outcome}"}
        now = throttle.timer()
        history = [t for t in throttle.cache.get(key, []) if t > now - throttle.duration]
        history.insert(0, now)
        throttle.cache.set(key, history[: throttle.num_requests + 1], throttle.duration)
        return len(history) > throttle.num_requests


class LaunchView(APIView):
    """The player opens one of a provider's games: a single-use launch token (valid PROVIDERS_LAUNCH_TOKEN_SECONDS)
    in the provider's launch URL. Refused when the game is not the provider's, disabled or not approved in the game
    plan (GP §13(6)), the provider is disabled, or the account may not stake now."""

    permission_classes = [IsPlayer]

    @extend_schema(
        request=ProviderLaunchRequestSerializer,
        responses={201: ProviderLaunchSerializer},
        operation_id="providers_launch",
    )
    @idempotent(required=False)
    def post(self, request: Request, provider: str) -> Response:
        player = request_player(request)
        body = ProviderLaunchRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        token = request.auth
        launch = services.launch_start(
            player=player,
            provider_code=provider,
            game_code=body.validated_data["game"],
            lang=body.validated_data["lang"],
            actor=Actor.player(player),
            login_session=getattr(token, "session", None),
        )
        return Response(
            ProviderLaunchSerializer(
                {
                    "launch_url": launch.launch_url,
                    "launch_token": launch.launch_token,
                    "expires_at": launch.expires_at,
                    "game": {"code": launch.game.code, "name": launch.game.name},
                }
            ).data,
            status=201,
        )


class SignedCallView(APIView):
    """A signed call of a provider (the module docstring); one subclass per operation."""

    operation = ""
    authentication_classes: list[type[Any]] = []
    permission_classes = [permissions.AllowAny]
    renderer_classes = HOT_RENDERERS
    content_negotiation_class = HotContentNegotiation
    # refused calls per source address (the module docstring: accepted calls are the studio's players' traffic)
    throttle_classes = [CallbackRefusalThrottle]

    def throttled(self, request: Request, wait: float) -> NoReturn:
        security_event(
            action="security.provider_call_throttled",
            source=request.META.get("REMOTE_ADDR", ""),
            tried="POST providers/... over the per-source refusal rate",
            wait_seconds=wait,
            summarise=True,
        )
        super().throttled(request, wait)

    def handle_call(self, request: Request, provider: str) -> Response:
        answer = services.provider_call(
            services.Call(
                provider_code=provider,
                operation=self.operation,
                raw_body=request.body,
                timestamp=request.headers.get(TIMESTAMP_HEADER, ""),
                signature=request.headers.get(SIGNATURE_HEADER, ""),
                source=request.META.get("REMOTE_ADDR", ""),
            )
        )
        error = answer.body.get("error") if isinstance(answer.body.get("error"), dict) else None
        code = error.get("code") if error is not None else None
        if code in REFUSED:
            CallbackRefusalThrottle.refused(request, self)
        elif code in BY_STUDIO_AND_OUTCOME and StudioOutcomeThrottle.over(provider, str(code)):
            security_event(
                action="security.provider_call_throttled",
                source=request.META.get("REMOTE_ADDR", ""),
                tried=f"POST providers/{provider[:30]}/{self.operation}: {code} over the studio's rate",
                provider=provider[:30],
                summarise=True,
            )
            throttled = errors.STUDIO_OUTCOME_THROTTLED(outcome=code)
            return Response(
                {"error": throttled.as_dict(), "status": errors.rs_status(throttled.code, 429)},
                status=429,
                headers={"Retry-After": "60"},
            )
        response = Response(answer.body, status=answer.status)
        if answer.replayed:
            response["Idempotent-Replayed"] = "true"
        if answer.status == 503:
            response["Retry-After"] = "5"
        return response


class SessionView(SignedCallView):
    """Exchange the single-use launch token for a game session (a second use: RS_ERROR_INVALID_TOKEN)."""

    operation = "session"

    @extend_schema(
        request=ProviderSessionRequestSerializer,
        responses={200: ProviderSessionSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_session",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class BalanceView(SignedCallView):
    """The player's balance."""

    operation = "balance"

    @extend_schema(
        request=ProviderBalanceRequestSerializer,
        responses={200: ProviderBalanceSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_balance",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class BetView(SignedCallView):
    """Debit the stake and open the platform round of (provider, round_id) under all the platform's rules;
    round_closed=true settles a losing one-shot round at once. One bet per round. Exactly once per
    transaction_id."""

    operation = "bet"

    @extend_schema(
        request=BetRequestSerializer,
        responses={200: ProviderMovementSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_bet",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class PlayView(SignedCallView):
    """A one-shot round in one call: debit the stake, credit the studio's win (``win``, absent for a loss) within the
    GP §8(3) max win per round, and settle the round with the studio's record of it (``round_detail``), under all the
    platform's rules, as an engine round that settles at once. Exactly once per transaction_id (the bet's); the
    win's transaction_id is recorded too."""

    operation = "play"

    @extend_schema(
        request=PlayRequestSerializer,
        responses={200: ProviderMovementSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_play",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class WinView(SignedCallView):
    """Credit a win to the round of that bet, within the GP §8(3) max win per round (credited and win_capped say
    what was credited); round_closed=true settles the round. Exactly once per transaction_id."""

    operation = "win"

    @extend_schema(
        request=WinRequestSerializer,
        responses={200: ProviderMovementSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_win",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class RollbackView(SignedCallView):
    """Cancel a bet: the stake comes back and the round is voided. A bet never seen is answered RS_OK and
    recorded as a tombstone (the late bet is refused). Refused after a win or once the round is settled."""

    operation = "rollback"

    @extend_schema(
        request=RollbackRequestSerializer,
        responses={200: ProviderMovementSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_rollback",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)


class RoundEndView(SignedCallView):
    """Settle the round with the wins credited so far (a round already settled: RS_OK, nothing moves)."""

    operation = "round-end"

    @extend_schema(
        request=RoundEndRequestSerializer,
        responses={200: ProviderMovementSerializer},
        parameters=SIGNED_PARAMETERS,
        operation_id="providers_round_end",
        auth=[],
    )
    def post(self, request: Request, provider: str) -> Response:
        return self.handle_call(request, provider)
