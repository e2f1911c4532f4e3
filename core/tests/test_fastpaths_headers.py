"""``core/fastpaths.py`` 9: a response header set with plain ASCII text is stored as Django's own ``__setitem__``
stores it, and everything else still goes through Django's conversion (compared here on generated names and values,
errors included)."""

from __future__ import annotations

import random
from typing import Any

from django.http import HttpResponse
from django.http.response import BadHeaderError, ResponseHeaders
from django.utils.functional import lazy

from core import fastpaths

PIECES = ["X-Request-ID", "Vary", "Accept, Accept-Language", "0", "nosniff", " ", "é", "ř", "€", "\n", "\r", "a\tb"]


def _set(setitem: Any, headers: ResponseHeaders, key: Any, value: Any) -> tuple[str, Any]:
    try:
        setitem(headers, key, value)
    except (BadHeaderError, UnicodeError) as exc:
        return "refused", type(exc).__name__
    return "stored", dict(headers._store)


def _values(rng: random.Random) -> Any:
    text = "".join(rng.choice(PIECES) for _ in range(rng.randint(0, 3)))
    return rng.choice(
        [text, text.encode("utf-8"), text.encode("latin-1", "replace"), rng.randint(0, 10**6), lazy(str, str)(text)]
    )


def test_the_patch_is_installed():
    assert fastpaths.install_response_headers() is True
    assert ResponseHeaders.__setitem__ is fastpaths.header_setitem
    assert fastpaths.install()["response_headers"] is True


def test_a_header_is_stored_or_refused_as_by_djangos_own_setitem_on_generated_cases():
    rng = random.Random(9)
    for _ in range(3000):
        key, value = _values(rng), _values(rng)
        ours = _set(fastpaths.header_setitem, ResponseHeaders({"Content-Type": "text/plain"}), key, value)
        djangos = _set(fastpaths._django_header_setitem, ResponseHeaders({"Content-Type": "text/plain"}), key, value)
        assert ours == djangos, (key, value)


def test_a_response_s_headers_are_those_of_djangos_own_setitem():
    def answer() -> dict[str, tuple[str, str]]:
        response = HttpResponse(b"{}", content_type="application/json")
        response["X-Request-ID"] = "0123456789abcdef"
        response["Vary"] = "Accept"
        response.headers.setdefault("Content-Language", "cs")
        response["X-Name"] = "Příliš žluťoučký"  # not ASCII: Django's own conversion (MIME-encoded)
        return dict(response.headers._store)

    ours = answer()
    ResponseHeaders.__setitem__ = fastpaths._django_header_setitem  # type: ignore[method-assign]
    try:
        djangos = answer()
    finally:
        ResponseHeaders.__setitem__ = fastpaths.header_setitem  # type: ignore[method-assign]
    assert ours == djangos
    assert ours["x-name"][1].startswith("=?utf-8?")


def test_a_subclass_of_the_headers_keeps_its_own_conversion():
    class Upper(ResponseHeaders):
        def _convert_to_charset(self, value: Any, charset: str, mime_encode: bool = False) -> Any:
            return str(value).upper()

    headers = Upper({})
    headers["vary"] = "accept"
    assert headers._store == {"vary": ("VARY", "ACCEPT")}


def test_djangos_setitem_still_converts_through_convert_to_charset_into_the_store():
    """What the patch answers for (it is left alone otherwise): Django's ``__setitem__`` converts both with
    ``_convert_to_charset`` and stores ``(key, value)`` under ``key.lower()``."""
    names = set(fastpaths._django_header_setitem.__code__.co_names)
    assert {"_convert_to_charset", "_store", "lower"} <= names
    assert fastpaths._django_header_setitem.__qualname__ == "ResponseHeaders.__setitem__"
