"""Request id + structured request log; catch-all turning unexpected errors into JSON 500s."""
from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from core.errors import server_error_json
from core.logging import reset_request_id, set_request_id

logger = logging.getLogger("platform.request")
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


class RequestIdMiddleware:
    """Takes X-Request-ID from the client when well-formed, else makes one; logs one line per request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.headers.get("X-Request-ID", "")
        request_id = incoming if _VALID_ID.match(incoming) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]  # read by views and the error handler
        token = set_request_id(request_id)
        started = time.monotonic()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            user = getattr(request, "user", None)
            logger.info(
                "request",
                extra={
                    "method": request.method,
                    "path": request.path,
                    "status": response.status_code,
                    "duration_ms": round((time.monotonic() - started) * 1000, 1),
                    "user_id": getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None,
                },
            )
            return response
        finally:
            reset_request_id(token)


class CatchAllMiddleware:
    """Last line: an exception no view handled becomes a logged JSON 500 with an error id."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        from django.core.exceptions import PermissionDenied, SuspiciousOperation
        from django.http import Http404

        if isinstance(exception, (Http404, PermissionDenied, SuspiciousOperation)):
            return None  # Django's own handling gives 404/403/400
        return server_error_json(exception)
