"""gunicorn's entry point (``config.wsgi.application``): a cookieless request to the API is served by a Django handler
with the API's subset of the same middleware (``config.wsgi.NOT_FOR_THE_API`` names what it leaves out and why), any
other by the whole stack. The same boundary requests through both handlers get the same answers; a staff member's
admin session still reaches the staff API through the entry point."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from typing import Any, cast

import pytest
from django.conf import settings
from django.test import Client, RequestFactory
from django.utils.module_loading import import_string

from accounts.auth import TOKEN_INVALID
from config import wsgi
from core.errors import NOT_AUTHENTICATED, NOT_CANONICAL_PATH, NOT_FOUND, VALIDATION
from tests.kit.accounts import make_staff, token_for
from tests.kit.clients import one_connection_across_requests
from tests.kit.games import api_bet
from tests.kit.platform import (
    RED_100,
    ROULETTE,
    funded_player,
    key,
    test_games,  # noqa: F401  (autouse: the shipped games synced and approved)
)

#: the API handler's middleware, in order: a middleware added to settings.MIDDLEWARE lands here only deliberately
API_MIDDLEWARE = [
    "core.middleware.ClientAddressMiddleware",
    "core.middleware.RequestIdMiddleware",
    "core.middleware.RejectNulMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.middleware.CookielessLocaleMiddleware",  # django.middleware.locale.LocaleMiddleware's cookieless form
    "django.middleware.common.CommonMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.middleware.SyncAxesMiddleware",  # axes.middleware.AxesMiddleware, asked once whether it is a coroutine
    "core.middleware.CatchAllMiddleware",
]


@pytest.fixture(autouse=True)
def _one_connection_across_requests() -> Iterator[None]:
    with one_connection_across_requests():
        yield


def _environ(method: str, path: str, body: Any = None, **headers: Any) -> dict[str, Any]:
    data = body if isinstance(body, bytes) else json.dumps(body).encode() if body is not None else b""
    request = RequestFactory().generic(method, path, data, content_type="application/json", **headers)
    return request.environ


def _serve(handler: Any, environ: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
    started: list[Any] = []
    chunks = handler(environ, lambda status, headers, exc_info=None: started.append((status, headers)))
    try:
        body = b"".join(chunks)
    finally:
        chunks.close()
    status, headers = started[0]
    return int(status.split()[0]), dict(headers), body


def test_the_api_handler_runs_the_declared_subset_of_the_same_middleware() -> None:
    assert wsgi.api_middleware(settings.MIDDLEWARE) == API_MIDDLEWARE
    # every middleware is either in the API's list or left out with a reason
    replaced = {api: whole for whole, api in wsgi.REPLACED_FOR_THE_API.items()}
    assert set(settings.MIDDLEWARE) == {replaced.get(m, m) for m in API_MIDDLEWARE} | set(wsgi.NOT_FOR_THE_API)
    # a replacement is a subclass of what it replaces (the same rule, less work)
    for whole, api in wsgi.REPLACED_FOR_THE_API.items():
        assert issubclass(import_string(api), import_string(whole)), api
    assert all(len(reason) > 20 for reason in wsgi.NOT_FOR_THE_API.values())
    # the handler loaded that list (the site's the whole one), and settings.MIDDLEWARE is left as it was
    loaded_api = [type(m).__name__ for m in _chain(wsgi.application.api)]
    loaded_site = [type(m).__name__ for m in _chain(wsgi.application.site)]
    assert loaded_api == [m.rsplit(".", 1)[1] for m in API_MIDDLEWARE]
    assert loaded_site == [m.rsplit(".", 1)[1] for m in settings.MIDDLEWARE]
    assert "LocaleMiddleware" in loaded_site and "CookielessLocaleMiddleware" not in loaded_site
    # no static file is served from under the API's prefix (WhiteNoise is left out there)
    assert not ("/" + settings.STATIC_URL.lstrip("/")).startswith(wsgi.API_PREFIX)


def _chain(handler: Any) -> list[Any]:
    """The middleware instances of a loaded handler, outermost first."""
    out = []
    link = handler._middleware_chain
    while hasattr(link, "get_response") or hasattr(link, "__wrapped__"):
        link = getattr(link, "__wrapped__", link)  # convert_exception_to_response's wrapper
        if not hasattr(link, "get_response"):
            break
        out.append(link)
        link = link.get_response
    return out


@pytest.mark.parametrize(
    ("path", "headers", "handler"),
    [
        ("/api/v1/games/rounds", {}, "api"),
        ("/api/v1/accounts/auth/login", {}, "api"),
        ("/api/v1/games/rounds", {"HTTP_COOKIE": "sessionid=x"}, "site"),  # a session: the whole stack
        ("/api/v1/games/rounds", {"HTTP_COOKIE": "anything=1"}, "site"),
        ("/api/schema", {}, "site"),
        ("/api/docs", {}, "site"),
        ("/admin/", {}, "site"),
        ("/health", {}, "site"),
        ("/api/v1", {}, "site"),
        ("/api\x00/v1/games/rounds", {}, "site"),
    ],
)
def test_a_cookieless_request_under_the_api_prefix_goes_to_the_api_handler(path, headers, handler) -> None:
    environ = _environ("GET", "/", **headers)
    environ["PATH_INFO"] = path
    assert wsgi.application.handler_for(environ) is getattr(wsgi.application, handler)


def _comparable(status: int, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, str], Any]:
    """An answer without what differs from one request to the next (the request id, which an error repeats, unless
    the client chose it; a new round's identifiers and times)."""
    request_id = headers.pop("X-Request-ID")
    parsed = json.loads(body) if body else None
    if isinstance(parsed, dict) and "error" in parsed:
        assert parsed["error"].pop("request_id") == request_id, parsed
    if isinstance(parsed, dict) and status == 201:
        parsed = sorted(parsed)  # a new round: its fields (the values are another round's)
        assert int(headers.pop("Content-Length")) == len(body)
    return status, headers, parsed


BOUNDARIES: list[tuple[str, str, str, Any, dict[str, str], int, str | None]] = [
    # (what, method, path, body, headers, status, error code)
    ("a round", "POST", "/api/v1/games/rounds", "round", {}, 201, None),
    ("a round in English", "POST", "/api/v1/games/rounds", "round", {"HTTP_ACCEPT_LANGUAGE": "en"}, 201, None),
    ("a bet missing", "POST", "/api/v1/games/rounds", {"game": ROULETTE}, {}, 400, VALIDATION.code),
    (
        "a bet missing, English",
        "POST",
        "/api/v1/games/rounds",
        {"game": ROULETTE},
        {"HTTP_ACCEPT_LANGUAGE": "en"},
        400,
        VALIDATION.code,
    ),
    ("JSON nested too deep", "POST", "/api/v1/games/rounds", b"[" * 40 + b"]" * 40, {}, 400, None),
    ("not JSON", "POST", "/api/v1/games/rounds", b"{nope", {}, 400, None),
    ("no token", "POST", "/api/v1/games/rounds", "round", {"no_token": "1"}, 401, NOT_AUTHENTICATED.code),
    (
        "a wrong token",
        "GET",
        "/api/v1/games/rounds",
        None,
        {"HTTP_AUTHORIZATION": "Token nope"},
        401,
        TOKEN_INVALID.code,
    ),
    ("a list", "GET", "/api/v1/games/rounds", None, {}, 200, None),
    ("an unknown path", "GET", "/api/v1/games/nothing-here", None, {}, 404, NOT_FOUND.code),
    ("an identifier of the wrong form", "GET", "/api/v1/games/rounds/abc", None, {}, 404, NOT_FOUND.code),
    ("a trailing slash", "GET", "/api/v1/games/rounds/", None, {}, 404, NOT_CANONICAL_PATH.code),
    ("a NUL in the query", "GET", "/api/v1/games/rounds?status=%00", None, {}, 400, VALIDATION.code),
    ("a NUL in a header", "GET", "/api/v1/games/rounds", None, {"HTTP_X_THING": "a\x00b"}, 400, VALIDATION.code),
    (
        "the client's request id",
        "GET",
        "/api/v1/games/rounds",
        None,
        {"HTTP_X_REQUEST_ID": "client-chosen-id-1"},
        200,
        None,
    ),
    (
        "a forwarded address from an untrusted peer",
        "GET",
        "/api/v1/games/rounds",
        None,
        {"HTTP_X_FORWARDED_FOR": "198.51.100.9"},
        200,
        None,
    ),
    ("a method not allowed", "DELETE", "/api/v1/games/rounds", None, {}, 405, None),
]


@pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])
@pytest.mark.parametrize(
    ("what", "method", "path", "body", "headers", "status", "code"), BOUNDARIES, ids=[b[0] for b in BOUNDARIES]
)
def test_the_api_handler_and_the_whole_stack_give_the_same_answers(
    what, method, path, body, headers, status, code
) -> None:
    answers = []
    for name in ("api", "site"):
        handler = getattr(wsgi.application, name)
        player = funded_player(100_000_00)  # one per handler: no 2-second rule between their rounds (GP §7(9))
        extra = {k: v for k, v in headers.items() if k != "no_token"}
        if "no_token" not in headers:
            extra.setdefault("HTTP_AUTHORIZATION", f"Token {token_for(player.user)}")
        payload = {"game": ROULETTE, "bet": api_bet(RED_100, ROULETTE)} if body == "round" else body
        environ = _environ(method, path, payload, HTTP_IDEMPOTENCY_KEY=key(), **extra)
        if name == "api" and "\x00" not in path:  # the dispatcher would send it to this handler
            assert wsgi.application.handler_for(dict(environ)) is handler
        got, got_headers, got_body = _serve(handler, environ)
        assert got == status, (name, got, got_body)
        if code is not None:
            error = json.loads(got_body)["error"]
            assert error["code"] == code and error["message_cs"] and error["message_en"], (name, error)
        if "HTTP_X_REQUEST_ID" in extra:
            assert got_headers["X-Request-ID"] == extra["HTTP_X_REQUEST_ID"], name
        answers.append(_comparable(got, got_headers, got_body))
    api, site = answers
    assert api[0] == site[0] and api[2] == site[2], (api, site)
    # the same headers: the security headers, the language, the content type and length, and "Vary" (with "Cookie"
    # where DRF's session authentication read the absent session: a call without a token)
    assert api[1] == site[1], (api[1], site[1])
    if "no_token" in headers:
        assert "Cookie" in api[1]["Vary"], api[1]
    if "NUL" not in what:  # refused by core.middleware.RejectNulMiddleware, before the later middleware (both stacks)
        assert {"X-Content-Type-Options", "Referrer-Policy", "X-Frame-Options", "Content-Language"} <= set(api[1])


@pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])
def test_a_staff_session_verified_with_a_second_factor_reaches_the_staff_api_through_the_entry_point(
    settings: Any,
) -> None:
    """The admin's session cookie sends the request to the whole stack, where django_otp's middleware reads the
    session's second factor; the API handler alone (no OTP middleware) would refuse the same session
    (``auth.staff_2fa_required``): the reason a request with a cookie never goes there."""
    from django.core.management import call_command
    from django_otp import DEVICE_ID_SESSION_KEY
    from django_otp.plugins.otp_totp.models import TOTPDevice

    from core.errors import STAFF_2FA_REQUIRED

    settings.ADMIN_REQUIRE_2FA = True
    player = funded_player(0)
    staff = make_staff(superuser=True)
    call_command("staff_totp_enrol", staff.username, stdout=open(os.devnull, "w"))
    browser = Client()
    browser.force_login(staff)
    session = browser.session
    session[DEVICE_ID_SESSION_KEY] = TOTPDevice.objects.get(user=staff).persistent_id  # as django_otp.login() does
    session.save()
    cookie = f"{settings.SESSION_COOKIE_NAME}={browser.cookies[settings.SESSION_COOKIE_NAME].value}"
    path = f"/api/v1/wallet/staff/players/{player.pk}/statement"
    status, headers, body = _serve(wsgi.application, _environ("GET", path, HTTP_COOKIE=cookie))
    assert status == 200, body
    assert "Cookie" in headers["Vary"]
    status, _, body = _serve(wsgi.application.api, _environ("GET", path, HTTP_COOKIE=cookie))
    assert status == 403 and json.loads(body)["error"]["code"] == STAFF_2FA_REQUIRED.code, body


@pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])
@pytest.mark.parametrize("name", ["api", "site"])
def test_a_login_and_the_login_lock_out_answer_the_same_through_both_handlers(name: str, settings: Any) -> None:
    """The login authenticates through Axes' backend and answers a locked-out username in the error shape (the view
    clears Axes' flag, so AxesMiddleware, in both lists, keeps the answer): the same through either handler."""
    from django.core.cache import cache

    from accounts import errors as account_errors
    from tests.kit.accounts import DEFAULT_PASSWORD

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # not about hashing
    cache.clear()
    handler = getattr(wsgi.application, name)
    player = funded_player(0)
    username = player.user.username
    login = "/api/v1/accounts/auth/login"
    statuses = []
    for _ in range(settings.AXES_FAILURE_LIMIT - 1):
        status, _, body = _serve(handler, _environ("POST", login, {"username": username, "password": "wrong-1234"}))
        statuses.append(status)
        assert json.loads(body)["error"]["code"] == account_errors.INVALID_CREDENTIALS.code, body
    assert statuses == [401] * (settings.AXES_FAILURE_LIMIT - 1)
    status, headers, body = _serve(handler, _environ("POST", login, {"username": username, "password": "wrong-1234"}))
    assert status == 429 and json.loads(body)["error"]["code"] == account_errors.LOCKED_OUT.code, body
    assert int(headers["Retry-After"]) > 0
    status, _, body = _serve(handler, _environ("POST", login, {"username": username, "password": DEFAULT_PASSWORD}))
    assert status == 429 and json.loads(body)["error"]["code"] == account_errors.LOCKED_OUT.code, body
    other = funded_player(0)  # per username: another signs in
    status, _, body = _serve(
        handler, _environ("POST", login, {"username": other.user.username, "password": DEFAULT_PASSWORD})
    )
    assert status == 200 and json.loads(body)["token"], body
    cache.clear()


def _static_api_paths() -> list[str]:
    """Every route of the URLconf under ``API_PREFIX`` without a parameter (its whole path), found by walking it."""
    from django.urls import URLPattern, URLResolver, get_resolver
    from django.urls.resolvers import RoutePattern

    found: list[str] = []

    def walk(patterns: Any, prefix: str) -> None:
        for p in patterns:
            if not isinstance(p.pattern, RoutePattern) or p.pattern.converters:
                continue
            route = prefix + str(p.pattern)
            if isinstance(p, URLResolver):
                walk(p.url_patterns, route)
            elif isinstance(p, URLPattern) and ("/" + route).startswith(wsgi.API_PREFIX):
                found.append("/" + route)

    walk(get_resolver().url_patterns, "")
    return found


def test_the_api_handler_resolves_a_route_without_parameters_once_and_answers_as_django_does() -> None:
    """``ApiHandler.resolve_request`` keeps the match of a route without parameters (Django's resolution walks the
    URLconf's patterns on every request): each request gets a match equal to Django's own, with kwargs of its own,
    the first and every later time; a path with parameters, and a path no route matches, are resolved by Django
    each time (kept nowhere)."""
    from django.urls import Resolver404, get_resolver

    from config.wsgi import ApiHandler

    handler = ApiHandler()
    paths = _static_api_paths()
    assert "/api/v1/games/rounds" in paths and "/api/v1/wallet/overview" in paths and len(paths) > 40

    def fields(m: Any) -> tuple[Any, ...]:
        return (m.func, m.args, m.kwargs, m.url_name, m.route, m.app_names, m.namespaces, m.view_name, m.tried)

    for path in paths:
        django_s = get_resolver().resolve(path)
        seen = []
        for _ in range(2):
            request = RequestFactory().get(path)
            match = handler.resolve_request(request)
            assert request.resolver_match is match and fields(match) == fields(django_s), path
            seen.append(match)
        assert seen[0] is not seen[1] and seen[0].kwargs is not seen[1].kwargs, path
        assert (get_resolver(), path) in handler._resolved, path  # kept: the second came from the process's copy
    round_path = "/api/v1/games/rounds/12/actions"
    request = RequestFactory().post(round_path)
    assert handler.resolve_request(request).kwargs == {"round_id": 12}
    assert handler.resolve_request(RequestFactory().post("/api/v1/games/rounds/13/actions")).kwargs == {"round_id": 13}
    for path in ("/api/v1/games/nothing-here", "/api/v1/games/rounds/"):
        for _ in range(2):
            with pytest.raises(Resolver404):
                handler.resolve_request(RequestFactory().get(path))
    assert not [key for key in handler._resolved if key[1] not in paths]


ACCEPT_LANGUAGES = [
    None,
    "",
    "cs",
    "en",
    "en-US,en;q=0.9",
    "de",
    "de;q=1, en;q=0.5",
    "*",
    "sk,cs;q=0.1",
    "x" * 300,
    "e\x01n",
]


@pytest.mark.parametrize("accept", ACCEPT_LANGUAGES)
@pytest.mark.parametrize("status", [200, 404])
def test_the_cookieless_locale_middleware_chooses_the_language_and_headers_django_s_does(accept, status) -> None:
    """``core.middleware.CookielessLocaleMiddleware`` (the API's) against Django's ``LocaleMiddleware`` (the site's)
    on the same request: the same active language and ``request.LANGUAGE_CODE`` in the view, the same ``Vary`` and
    ``Content-Language``; the second request with the same header takes the kept language (and still agrees). A
    request with a cookie goes through Django's own code (the kept languages are not consulted)."""
    from django.http import HttpResponse
    from django.middleware.locale import LocaleMiddleware
    from django.utils import translation

    from core.middleware import CookielessLocaleMiddleware

    def view(request: Any) -> HttpResponse:
        response = HttpResponse(status=status)
        response["Vary"] = "Accept-Encoding"
        response["X-Seen"] = f"{translation.get_language()} {request.LANGUAGE_CODE}"
        return response

    headers = {} if accept is None else {"HTTP_ACCEPT_LANGUAGE": accept}
    ours = CookielessLocaleMiddleware(view)
    answers: list[tuple[str, str, str]] = []
    for middleware in (LocaleMiddleware(view), ours, ours):
        with translation.override("cs" if len(answers) % 2 else "en"):  # whatever was active before
            response: Any = middleware(RequestFactory().get("/api/v1/games/rounds", **headers))
        answers.append((response["X-Seen"], response["Vary"], response["Content-Language"]))
    assert answers[0] == answers[1] == answers[2], answers
    assert ours._language_of.get(accept or "") == (answers[0][2], answers[0][0].split()[1])
    with_cookie = CookielessLocaleMiddleware(view)
    response = with_cookie(RequestFactory().get("/api/v1/games/rounds", HTTP_COOKIE="django_language=en", **headers))
    assert response["Content-Language"] == "en" and with_cookie._language_of == {}


def _code_lines(func: Any) -> list[str]:
    """The statements of a function's source, without its signature, comments and blank lines."""
    import inspect
    import textwrap

    lines = textwrap.dedent(inspect.getsource(func)).splitlines()[1:]
    return [line.split("  #")[0].rstrip() for line in lines if line.strip() and not line.strip().startswith("#")]


def test_the_sync_axes_middleware_runs_axes_synchronous_branch() -> None:
    """``SyncAxesMiddleware.__call__`` is Axes' own with the coroutine question asked once: Axes' ``__call__`` is still
    that question followed by the branch copied here (this fails when Axes changes it)."""
    from axes.middleware import AxesMiddleware

    from core.middleware import SyncAxesMiddleware

    axes = _code_lines(AxesMiddleware.__call__)
    assert axes[:2] == ["    if iscoroutinefunction(self):", "        return self.__acall__(request)"], axes
    ours = _code_lines(SyncAxesMiddleware.__call__)
    assert ours[ours.index("    response = self.get_response(request)") :] == axes[2:], (ours, axes)


def test_the_sync_axes_middleware_answers_a_locked_out_request_as_axes_does(monkeypatch: Any) -> None:
    import asyncio

    from axes import middleware as axes_middleware

    from core import middleware

    calls: list[tuple[Any, ...]] = []

    def lockout(request: Any, response: Any, credentials: Any) -> str:
        calls.append((request, response, credentials))
        return "lockout answer"

    monkeypatch.setattr(middleware, "get_lockout_response", lockout)
    monkeypatch.setattr(axes_middleware, "get_lockout_response", lockout)
    request = RequestFactory().post("/api/v1/accounts/auth/login")
    view: Any = lambda r: "view answer"  # noqa: E731  (a stand-in for the handler's next step)
    for cls in (axes_middleware.AxesMiddleware, middleware.SyncAxesMiddleware):
        assert cls(view)(request) == "view answer"
    request.axes_locked_out, request.axes_credentials = True, {"username": "x"}  # type: ignore[attr-defined]
    for cls in (axes_middleware.AxesMiddleware, middleware.SyncAxesMiddleware):
        assert cls(view)(request) == "lockout answer"
    assert calls == [(request, "view answer", {"username": "x"})] * 2

    async def async_view(r: Any) -> str:
        return "async answer"

    wrapped: Any = middleware.SyncAxesMiddleware(
        cast(Any, async_view)
    )  # around a coroutine function: Axes' own __call__ (its __acall__)
    request.axes_locked_out = False  # type: ignore[attr-defined]
    assert asyncio.run(wrapped(request)) == "async answer"
