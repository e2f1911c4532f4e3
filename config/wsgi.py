"""The WSGI entry point gunicorn serves (``config.wsgi:application``).

Two Django handlers over the same URLconf, views and middleware classes:

* the site's, with every middleware of ``settings.MIDDLEWARE`` (the admin, the pages, and any request with a cookie);
* the API's, with ``api_middleware()``: the same list, in the same order, less the entries of ``NOT_FOR_THE_API``
  (and Django's locale middleware in its cookieless form, ``REPLACED_FOR_THE_API``),
  each of which can have nothing to do with a request to the player API that carries no cookie (no session, so no
  second factor, CSRF token or messages; no static file or back-office page under ``/api/v1/``). A request goes to
  the API's handler when its path is under ``API_PREFIX`` and it sends no ``Cookie`` header (or an empty one); a
  staff member calling the API with the admin's session, or any client that sends a cookie, is served by the site's
  handler with the whole stack (``core.permissions.IsStaff`` reads the session's second factor there).

The client address, request id and log line, the NUL refusal, the security headers, the language, the
catch-all error shape and the login lock-out stay one rule each: both handlers run the same middleware classes for
them. ``core/tests/test_wsgi_entry.py`` runs the same boundary requests through both handlers and compares the
answers, and fixes the API's list, so that a middleware added to ``settings.MIDDLEWARE`` is placed deliberately.
The Django test client uses its own handler with ``settings.MIDDLEWARE``; the hostile-input suite
(``tests/test_hostile_input.py``) calls this module's ``application`` as gunicorn does.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from typing import Any

import django
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
from django.http import HttpRequest
from django.urls import ResolverMatch, URLResolver, get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

#: the paths the API's handler may serve (the player and staff API; ``/api/schema`` and ``/api/docs`` are pages)
API_PREFIX = "/api/v1/"

#: the ``settings.MIDDLEWARE`` entries a cookieless request under ``API_PREFIX`` does without, and why. The session and
#: its user stay: without a cookie they are empty, but DRF's SessionAuthentication reads them on a call without a
#: token, which marks the answer ``Vary: Cookie`` (it would differ with the admin's session), as the whole stack does.
NOT_FOR_THE_API: dict[str, str] = {
    "whitenoise.middleware.WhiteNoiseMiddleware": "serves the files under STATIC_URL only, never under /api/v1/",
    "core.middleware.BackOfficeTimeZoneMiddleware": "acts on /admin paths only",
    "django.middleware.csrf.CsrfViewMiddleware": "DRF's views are csrf_exempt (SessionAuthentication enforces CSRF "
    "itself, and a cookieless request has no session to authenticate with); no API view issues a CSRF token",
    "django_otp.middleware.OTPMiddleware": "the second factor of the session's user: none without a session (a staff "
    "call with a token is refused the second factor by core.permissions.IsStaff either way)",
    "django.contrib.messages.middleware.MessageMiddleware": "the admin's flash messages, kept in a cookie or the "
    "session; no API view adds one",
}


#: the ``settings.MIDDLEWARE`` entries the API's handler runs in a form for its requests (no cookie, under
#: ``API_PREFIX``), a subclass giving the same answers with less work (``core/tests/test_wsgi_entry.py`` compares them)
REPLACED_FOR_THE_API: dict[str, str] = {
    "django.middleware.locale.LocaleMiddleware": "core.middleware.CookielessLocaleMiddleware",
    "axes.middleware.AxesMiddleware": "core.middleware.SyncAxesMiddleware",
}


def api_middleware(middleware: Iterable[str]) -> list[str]:
    """The API handler's middleware: ``middleware`` in its order, less ``NOT_FOR_THE_API``, with the entries of
    ``REPLACED_FOR_THE_API`` in their API form."""
    return [REPLACED_FOR_THE_API.get(m, m) for m in middleware if m not in NOT_FOR_THE_API]


#: how many paths ``ApiHandler`` keeps resolved (the API's routes without parameters number ~80; a bound all the same,
#: since the path is the client's text)
RESOLVED_PATHS_MAX = 1024


class ApiHandler(WSGIHandler):
    """Django's WSGI handler with the API's middleware list (``api_middleware``) instead of the whole one, and the
    resolution of a route without parameters kept per process (``resolve_request``)."""

    def __init__(self) -> None:
        #: (resolver, path) -> the match of a route without parameters (a round's start, the balance, the wallet)
        self._resolved: dict[tuple[URLResolver, str], ResolverMatch] = {}
        super().__init__()

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        """Django's resolution (``BaseHandler.resolve_request``: ~25 µs a request, a walk over the URLconf's patterns
        with a regular expression each), kept for a path whose route has no parameters: the URLconf does not change
        in a process (a new one, ``clear_url_caches``, is another resolver and another key), and such a match depends
        on the path alone. Each request gets its own copy (its own ``kwargs``), as from Django. A path with parameters
        (a round's id), a path no route matches (Django raises ``Resolver404`` every time) and a request that chose
        its own URLconf go through Django's resolution each time."""
        if hasattr(request, "urlconf"):
            return super().resolve_request(request)
        resolver = get_resolver()
        key = (resolver, request.path_info)
        match = self._resolved.get(key)
        if match is None:
            match = resolver.resolve(request.path_info)
            if match.args or match.kwargs or len(self._resolved) >= RESOLVED_PATHS_MAX:
                request.resolver_match = match
                return match
            self._resolved[key] = match
        own = ResolverMatch.__new__(ResolverMatch)  # (a ResolverMatch refuses copy.copy: it refuses pickling)
        own.__dict__.update(match.__dict__, kwargs={}, captured_kwargs={}, extra_kwargs={})
        request.resolver_match = own
        return own

    def load_middleware(self, is_async: bool = False) -> None:
        # Django's own loader reads settings.MIDDLEWARE; it is given the API's list for the duration of the call,
        # which runs once, when this module is imported (before the worker serves any request)
        whole = settings.MIDDLEWARE
        settings.MIDDLEWARE = api_middleware(whole)
        try:
            super().load_middleware(is_async)
        finally:
            settings.MIDDLEWARE = whole


StartResponse = Callable[..., Any]


class Dispatcher:
    """Sends a cookieless request under ``API_PREFIX`` to the API's handler, every other to the site's."""

    def __init__(self, site: WSGIHandler, api: WSGIHandler) -> None:
        self.site = site
        self.api = api

    def handler_for(self, environ: dict[str, Any]) -> WSGIHandler:
        if not environ.get("HTTP_COOKIE") and environ.get("PATH_INFO", "").startswith(API_PREFIX):
            return self.api
        return self.site

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Any:
        return self.handler_for(environ)(environ, start_response)


django.setup(set_prefix=False)  # as django.core.wsgi.get_wsgi_application does
application = Dispatcher(site=WSGIHandler(), api=ApiHandler())

# Every shipped game imported now, in the worker before its threads take requests (not by the first round's
# request, which made the first rounds of a fresh or recycled worker 0.5 s slower). The registry's lock keeps a
# lazy load correct too (games/engine/registry.py).
from games.engine.registry import load_catalogue  # noqa: E402  (needs the app registry set up above)

load_catalogue()
