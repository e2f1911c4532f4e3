"""The client's address (forwarding headers trusted only from configured proxies), request id + structured request
log; catch-all turning unexpected errors into JSON 500s."""

from __future__ import annotations

import ipaddress
import logging
import re
import time
import uuid
from collections.abc import Callable
from zoneinfo import ZoneInfo

from asgiref.sync import iscoroutinefunction
from axes.helpers import get_lockout_response
from axes.middleware import AxesMiddleware
from django.conf import settings
from django.conf.urls.i18n import is_language_prefix_patterns_used
from django.core.exceptions import (
    BadRequest,
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseBadRequest, HttpResponseNotFound, JsonResponse
from django.http.response import HttpResponseBase
from django.middleware.locale import LocaleMiddleware
from django.urls import Resolver404, resolve
from django.utils import timezone, translation
from django.utils.cache import patch_vary_headers

from core.errors import NOT_CANONICAL_PATH, NOT_FOUND, VALIDATION, server_error_json
from core.logging import log_fields, reset_request_id, set_request_id

logger = logging.getLogger("platform.request")
_VALID_ID = re.compile(r"^[A-Za-z0-9._-]{8,64}$")


def _networks(entries: list[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(e.strip(), strict=False) for e in entries if e.strip()]


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text.strip())
    except ValueError:
        return None


def client_address(
    remote_addr: str, forwarded_for: str | None, trusted: list[ipaddress.IPv4Network | ipaddress.IPv6Network]
) -> str:
    """The client's address: ``REMOTE_ADDR`` unless the request came through trusted proxies, in which case the
    right-most address of ``X-Forwarded-For`` that is not a trusted proxy (the one the first trusted proxy saw).
    A forged header from a client is never read: a client that is not a trusted proxy is itself the address."""
    if not forwarded_for or not trusted:  # nothing to read, or no proxy trusted: the peer is the client (no parsing)
        return remote_addr
    peer = _ip(remote_addr)
    if peer is None or not any(peer in net for net in trusted):
        return remote_addr
    hops = [h for h in forwarded_for.split(",")][-20:]  # bounded: a header is client-controlled text
    for hop in reversed(hops):
        addr = _ip(hop)
        if addr is None:  # garbage where an address should be: stop at the last proxy we trust
            break
        if not any(addr in net for net in trusted):
            return str(addr)
        peer = addr
    return str(peer)


class ClientAddressMiddleware:
    """Puts the real client address in ``REMOTE_ADDR`` and removes ``X-Forwarded-For``, so throttles, the login
    lock-out, sessions and the audit trail all see one address, and a client cannot choose it. Proxies are trusted
    only when listed in ``settings.TRUSTED_PROXIES`` (addresses or networks; none by default)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response
        self.trusted = _networks(list(settings.TRUSTED_PROXIES))

    def __call__(self, request: HttpRequest) -> HttpResponse:
        meta = request.META
        meta["REMOTE_ADDR"] = client_address(
            meta.get("REMOTE_ADDR", ""), meta.pop("HTTP_X_FORWARDED_FOR", None), self.trusted
        )
        meta.pop("HTTP_X_REAL_IP", None)
        meta.pop("HTTP_FORWARDED", None)
        return self.get_response(request)


class RequestIdMiddleware:
    """Takes X-Request-ID from the client when well-formed, else makes one; logs one line per request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        incoming = request.META.get("HTTP_X_REQUEST_ID", "")  # X-Request-ID (request.headers is built from META)
        request_id = incoming if _VALID_ID.match(incoming) else uuid.uuid4().hex
        request.request_id = request_id  # type: ignore[attr-defined]  # read by views and the error handler
        token = set_request_id(request_id)
        started = time.monotonic()
        try:
            response = self.get_response(request)
            response["X-Request-ID"] = request_id
            user = getattr(request, "user", None)
            log_fields(
                logger,
                logging.INFO,
                "request",
                {
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


class RejectNulMiddleware:
    """A NUL character names nothing the platform stores (PostgreSQL refuses it in every text), so a request with one
    in its path, query string or a header is refused before any view or admin filter reaches the database with it:
    a path is not found (404), a query parameter or a header is invalid (400). API paths answer in
    the one error shape; others (the admin) with Django's plain 404 / 400."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        api = request.path.startswith("/api")  # "/api\x00/..." too: a client of the API gets the error shape
        if "\x00" in request.path_info or "\x00" in request.path:
            return JsonResponse({"error": NOT_FOUND().as_dict()}, status=404) if api else HttpResponseNotFound()
        query = request.META.get("QUERY_STRING", "")
        where = ""
        if "%00" in query or "\x00" in query:
            names = sorted({k for k, values in request.GET.lists() if "\x00" in k or any("\x00" in v for v in values)})
            if names:  # "%2500" is a "%00" written out, no NUL
                where = "query parameter " + ", ".join(n.replace("\x00", "\\0")[:60] for n in names[:10])
        if not where:
            header = next(
                (k for k, v in request.META.items() if k.startswith("HTTP_") and isinstance(v, str) and "\x00" in v),
                None,
            )
            if header is not None:
                where = "header " + header[5:].replace("_", "-").title()
        if where:
            if api:
                return JsonResponse({"error": VALIDATION(reason=f"NUL character in the {where}").as_dict()}, status=400)
            return HttpResponseBadRequest()
        return self.get_response(request)


def canonical_path(path_info: str) -> str | None:
    """The route ``path_info`` means in the one URL style (no trailing slash, config/urls.py), when it is written
    with a trailing slash and the path without it exists; else None."""
    if not path_info.endswith("/") or path_info == "/":
        return None
    candidate = path_info.rstrip("/")
    try:
        resolve(candidate)
    except Resolver404:
        return None
    return candidate


class BackOfficeTimeZoneMiddleware:
    """The back office (``/admin/``) shows every time in the business time zone (``BUSINESS_TIME_ZONE``, Prague),
    labelled in the site's header: the same complaint reads the same time in a list, on its page and in the
    player's e-mail. Storage and the API stay UTC."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if not request.path_info.startswith("/admin"):
            return self.get_response(request)

        timezone.activate(ZoneInfo(settings.BUSINESS_TIME_ZONE))
        try:
            response = self.get_response(request)
            if hasattr(response, "render") and not getattr(response, "is_rendered", True):
                response.render()  # a TemplateResponse renders here, still in Prague time
            return response
        finally:
            timezone.deactivate()


#: how many ``Accept-Language`` values ``CookielessLocaleMiddleware`` keeps the language of (the header is the
#: client's text: past the bound a value is worked out each time, as Django does)
LANGUAGES_KEPT_MAX = 256


class CookielessLocaleMiddleware(LocaleMiddleware):
    """Django's ``LocaleMiddleware`` for a request without a cookie to a URLconf without ``i18n_patterns`` (the
    API's handler, ``config/wsgi.py``): the same language, ``Vary`` and ``Content-Language``, without the work that
    cannot change them there. Django looks for a language in the path twice a request (a language prefix means
    nothing without ``i18n_patterns``) and works the language out of the language cookie (none) and the
    ``Accept-Language`` header each time; here the language of each header value is kept per process, with the code
    ``get_language()`` gives once it is active (they depend on that value, ``LANGUAGES`` and the translations
    installed, none of which change in a process; ``get_language()`` reads a context-local, ~4 µs). A request with a
    cookie, or its own URLconf, or a URLconf with ``i18n_patterns``, goes through Django's middleware unchanged.
    ``core/tests/test_wsgi_entry.py`` compares both over a set of headers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        super().__init__(get_response)
        #: Accept-Language -> the language Django chooses for it and the code Django's get_language() then gives
        self._language_of: dict[str, tuple[str, str]] = {}

    def _plain(self, request: HttpRequest) -> bool:
        """Whether the shortcut gives Django's answer: no cookie, the site's URLconf, no ``i18n_patterns``."""
        return (
            not request.META.get("HTTP_COOKIE")
            and not hasattr(request, "urlconf")
            and not is_language_prefix_patterns_used(settings.ROOT_URLCONF)[0]
        )

    def process_request(self, request: HttpRequest) -> None:
        if not self._plain(request):
            return super().process_request(request)
        accept = request.META.get("HTTP_ACCEPT_LANGUAGE", "")
        kept = self._language_of.get(accept)
        if kept is None:
            language = translation.get_language_from_request(request, check_path=False)
            translation.activate(language)
            kept = (language, translation.get_language())  # the active translation's code, fixed per language
            if len(self._language_of) < LANGUAGES_KEPT_MAX:
                self._language_of[accept] = kept
        else:
            translation.activate(kept[0])
        request.LANGUAGE_CODE = kept[1]
        return None

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if not self._plain(request):
            return super().process_response(request, response)
        patch_vary_headers(response, ("Accept-Language",))
        response.headers.setdefault("Content-Language", translation.get_language())
        return response


class SyncAxesMiddleware(AxesMiddleware):  # type: ignore[misc]  # axes is untyped
    """django-axes' middleware as a synchronous handler calls it (the API's, ``config/wsgi.py``): the same lock-out
    answer. Axes' ``__call__`` asks ``asgiref``'s ``iscoroutinefunction(self)`` on every request (two Python calls
    through ``inspect``), whose answer is fixed when the middleware is made (from its ``get_response``): asked once
    here; a middleware made around a coroutine function keeps Axes' own ``__call__``. The body below is Axes'
    synchronous branch (``core/tests/test_wsgi_entry.py`` fails when Axes' changes)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        super().__init__(get_response)
        self._coroutine = iscoroutinefunction(self)

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response: HttpResponse
        if self._coroutine:
            response = super().__call__(request)
            return response
        response = self.get_response(request)
        if settings.AXES_ENABLED:
            if getattr(request, "axes_locked_out", None):
                credentials = getattr(request, "axes_credentials", None)
                response = get_lockout_response(request, response, credentials)
        return response


class CatchAllMiddleware:
    """Last line: an exception no view handled becomes a logged JSON 500 with an error id; an API path no route
    matches (an unknown path, or an identifier of the wrong form: ``/api/v1/games/rounds/abc``) is the API's
    JSON 404, not Django's HTML page."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code == 404 and request.resolver_match is None and request.path.startswith("/api"):
            canonical = canonical_path(request.path_info)
            if canonical is not None:  # the other URL style (a trailing slash): not found, naming the right path
                script_name = request.path[: len(request.path) - len(request.path_info)]
                error = NOT_CANONICAL_PATH(path=request.path, canonical=script_name + canonical)
                return JsonResponse({"error": error.as_dict()}, status=404)
            return JsonResponse({"error": NOT_FOUND().as_dict()}, status=404)
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:

        too_large = (RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent)
        if isinstance(exception, (Http404, PermissionDenied, SuspiciousOperation, BadRequest)) and not isinstance(
            exception, too_large
        ):
            return None  # Django's own handling gives 404/403/400 (BadRequest: a value a view cannot take)
        return server_error_json(exception)
