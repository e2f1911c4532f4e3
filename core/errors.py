"""One domain error type, one error shape, one DRF exception handler.

Every refusal the platform gives a player is a :class:`DomainError` with a stable
``code`` and messages in Czech and English. Codes are declared once as
:class:`ErrorDef` constants that services raise and tests import::

    NOT_ENOUGH_FUNDS = ErrorDef("wallet.insufficient_funds", 409, "Nedostatek prostředků.", "Insufficient funds.")
    raise NOT_ENOUGH_FUNDS(balance=..., required=...)

The response shape is always::

    {"error": {"code": "...", "message": "<in the request language>", "message_cs": "...",
               "message_en": "...", "details": {...}, "request_id": "..."}}

An unexpected exception becomes a logged 500 with an ``error_id`` and never a stack trace.
"""

from __future__ import annotations

import logging
import math
import uuid
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.db import IntegrityError, InterfaceError, OperationalError
from django.http import Http404, JsonResponse
from django.utils import translation
from rest_framework import exceptions as drf_exc
from rest_framework.response import Response

from core.jsonable import jsonable
from core.logging import get_request_id

logger = logging.getLogger("platform.errors")


class DomainError(Exception):
    """A refusal with a stable code; raising it inside a service rolls the transaction back."""

    def __init__(
        self,
        code: str,
        message_cs: str,
        message_en: str,
        *,
        status: int = 422,
        details: dict[str, Any] | None = None,
        **more_details: Any,
    ):
        super().__init__(f"{code}: {message_en}")
        self.code = code
        self.message_cs = message_cs
        self.message_en = message_en
        self.status = status
        self.details = {**(details or {}), **more_details}

    def message(self, lang: str | None = None) -> str:
        lang = (lang or translation.get_language() or "cs")[:2]
        return self.message_en if lang == "en" else self.message_cs

    def as_dict(self, lang: str | None = None) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message(lang),
            "message_cs": self.message_cs,
            "message_en": self.message_en,
            "details": jsonable(self.details),
            "request_id": get_request_id(),
        }


class _KeepMissing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "{" + key + "}"


@dataclass(frozen=True)
class ErrorDef:
    """A declared error: ``raise SOME_ERROR(**details)`` or ``SOME_ERROR.exc(**details)``.

    Messages may name details in braces (``"Round {round_id} is not yours"``); they are filled in
    from the details, and an unknown name stays as written."""

    code: str
    status: int
    message_cs: str
    message_en: str

    def exc(self, **details: Any) -> DomainError:
        # details go in as a dict, so a detail may be called "status" or "code" without clashing
        values = _KeepMissing(details)
        return DomainError(
            self.code,
            self.message_cs.format_map(values),
            self.message_en.format_map(values),
            status=self.status,
            details=details,
        )

    __call__ = exc


# Generic errors every app may raise --------------------------------------------------
VALIDATION = ErrorDef("request.invalid", 400, "Neplatný požadavek.", "The request is invalid.")
NOT_AUTHENTICATED = ErrorDef("auth.not_authenticated", 401, "Přihlaste se prosím.", "Authentication is required.")
AUTH_FAILED = ErrorDef("auth.failed", 401, "Přihlášení se nezdařilo.", "Authentication failed.")
FORBIDDEN = ErrorDef("auth.forbidden", 403, "K této akci nemáte oprávnění.", "You are not allowed to do this.")
STAFF_2FA_REQUIRED = ErrorDef(
    "auth.staff_2fa_required",
    403,
    "Přihlaste se do administrace i jednorázovým kódem (druhý faktor).",
    "Sign in to the admin with your one-time password (second factor) first.",
)
STAFF_PERMISSION_REQUIRED = ErrorDef(
    "auth.staff_permission_required",
    403,
    "Vaše role k této akci nemá oprávnění.",
    "Your staff role does not allow this.",
)
NOT_A_PLAYER = ErrorDef(
    "auth.not_a_player",
    403,
    "Tato funkce je jen pro registrované účastníky (hráče).",
    "Only registered players can do this.",
)
NOT_FOUND = ErrorDef("not_found", 404, "Záznam nebyl nalezen.", "Not found.")
NOT_CANONICAL_PATH = ErrorDef(
    "request.not_canonical_path",
    404,
    "Adresa {path} neexistuje: adresy API nekončí lomítkem, použijte {canonical}.",
    "There is no {path}: API paths have no trailing slash, use {canonical}.",
)
METHOD_NOT_ALLOWED = ErrorDef("request.method_not_allowed", 405, "Metoda není povolena.", "Method not allowed.")
NOT_ACCEPTABLE = ErrorDef("request.not_acceptable", 406, "Nepodporovaný formát odpovědi.", "Not acceptable.")
UNSUPPORTED_MEDIA = ErrorDef(
    "request.unsupported_media_type", 415, "Nepodporovaný formát dat.", "Unsupported media type."
)
THROTTLED = ErrorDef(
    "request.throttled", 429, "Příliš mnoho požadavků, zkuste to později.", "Too many requests, try again later."
)
TOO_LARGE = ErrorDef("request.too_large", 413, "Požadavek je příliš velký.", "The request is too large.")
UNAVAILABLE = ErrorDef(
    "server.unavailable",
    503,
    "Služba je dočasně nedostupná, zkuste to prosím za chvíli.",
    "The service is temporarily unavailable, please try again shortly.",
)
RETRY_AFTER_SECONDS = 5
SERVER_ERROR = ErrorDef(
    "server.error",
    500,
    "Na naší straně došlo k chybě. Uveďte prosím kód chyby podpoře.",
    "Something went wrong on our side. Please quote the error id to support.",
)


def retry_after(err: DomainError) -> int:
    """Whole seconds (at least 1) a client should wait after a 429: from the error's ``retry_after_seconds``,
    ``wait_seconds`` or ``retry_after_ms`` detail (rounded up), else ``RETRY_AFTER_SECONDS``."""
    for key, per_second in (("retry_after_seconds", 1), ("wait_seconds", 1), ("retry_after_ms", 1000)):
        value = err.details.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value < 10**9:
            return max(1, math.ceil(value / per_second))
    return RETRY_AFTER_SECONDS


def error_response(err: DomainError, status: int | None = None) -> Response:
    """The one error shape; a 429 always carries ``Retry-After`` (RFC 9110 §10.2.3)."""
    resp = Response({"error": err.as_dict()}, status=status or err.status)
    if resp.status_code == 429:
        resp["Retry-After"] = str(retry_after(err))
    return resp


# DRF and Django exceptions that map to one declared error each (no details).
_PLAIN_ERRORS: tuple[tuple[type[Exception], ErrorDef], ...] = (
    (Http404, NOT_FOUND),
    (DjangoPermissionDenied, FORBIDDEN),
    (drf_exc.NotAuthenticated, NOT_AUTHENTICATED),
    (drf_exc.NotFound, NOT_FOUND),
    (drf_exc.MethodNotAllowed, METHOD_NOT_ALLOWED),
    (drf_exc.NotAcceptable, NOT_ACCEPTABLE),
    (drf_exc.UnsupportedMediaType, UNSUPPORTED_MEDIA),
)


def _too_large(exc: BaseException) -> bool:
    return isinstance(exc, (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent))


def _database_down(exc: BaseException) -> bool:
    return isinstance(exc, (OperationalError, InterfaceError))


def unavailable_response(exc: BaseException) -> Response:
    """The database cannot be reached: 503 with Retry-After, one warning line (no traceback per request)."""
    logger.warning("database unavailable: %s", exc.__class__.__name__)
    resp = error_response(UNAVAILABLE(retry_after_seconds=RETRY_AFTER_SECONDS))
    resp["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return resp


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF exception handler: every error leaves in the one shape."""
    if isinstance(exc, DomainError):
        return error_response(exc)
    if _too_large(exc):  # over DATA_UPLOAD_MAX_MEMORY_SIZE / the field or file count limits
        return error_response(TOO_LARGE())
    if _database_down(exc):
        return unavailable_response(exc)
    for exc_class, error in _PLAIN_ERRORS:
        if isinstance(exc, exc_class):
            return error_response(error())
    if isinstance(exc, drf_exc.ValidationError):
        return error_response(VALIDATION(fields=exc.detail))
    if isinstance(exc, drf_exc.ParseError):
        return error_response(VALIDATION(reason=str(exc.detail)))
    if isinstance(exc, drf_exc.AuthenticationFailed):
        code = getattr(exc, "domain_error", None)
        return error_response(code or AUTH_FAILED())
    if isinstance(exc, drf_exc.PermissionDenied):
        return error_response(getattr(exc, "domain_error", None) or FORBIDDEN())
    if isinstance(exc, drf_exc.Throttled):
        wait = getattr(exc, "wait", None)  # set by DRF's throttling; not in the stubs
        return error_response(THROTTLED(wait_seconds=wait))  # Retry-After: the wait rounded up
    if isinstance(exc, drf_exc.APIException):
        return error_response(
            DomainError(f"request.{exc.default_code}", str(exc.detail), str(exc.detail), status=exc.status_code)
        )
    return server_error_response(exc)


def server_error_response(exc: BaseException) -> Response:
    error_id = uuid.uuid4().hex[:16]
    logger.exception("unhandled exception error_id=%s", error_id, exc_info=exc, extra={"error_id": error_id})

    if isinstance(exc, IntegrityError):  # a check the code believed met (e.g. a deferred ledger trigger at commit)
        from core.audit import integrity_alarm  # here: core.audit imports the models, which load after the apps

        integrity_alarm(exc, source="request", error_id=error_id)
    body = SERVER_ERROR(error_id=error_id).as_dict()
    return Response({"error": body}, status=500)


def server_error_json(exc: BaseException) -> JsonResponse:
    """Same as :func:`server_error_response` for plain Django views (middleware catch-all); a database that
    cannot be reached is a 503 with Retry-After, a request over the size limits a 413."""
    if _database_down(exc):
        resp = unavailable_response(exc)
        out = JsonResponse(resp.data, status=503)
        out["Retry-After"] = resp["Retry-After"]
        return out
    if _too_large(exc):
        return JsonResponse({"error": TOO_LARGE().as_dict()}, status=413)
    resp = server_error_response(exc)
    return JsonResponse(resp.data, status=500)
