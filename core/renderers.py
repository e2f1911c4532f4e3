"""The JSON renderer of the hot endpoints (a round, a round action, the studios' signed calls): what DRF's
``JSONRenderer`` writes, encoded by orjson where it is installed.

DRF's renderer (``UNICODE_JSON`` and ``STRICT_JSON`` on, compact) writes UTF-8 without ``\\u`` escapes and refuses
NaN and infinities; orjson does the same for the types it knows (dict, list, str, int, float, bool, None) in a
fraction of the time. Anything else (a ``Decimal``, a lazy translation, an integer beyond 64 bits, a non-string key,
a NaN, which orjson would write as ``null``), an indented answer (``Accept: application/json; indent=2``) or a
process without orjson goes to DRF's own renderer, so the answer is always the one DRF would give."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer, BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson
except ImportError:  # pragma: no cover - safe: without orjson every answer goes through DRF's own renderer (same bytes)
    orjson = None  # type: ignore[assignment]  # optional: None when not installed

_PLAIN_LEAVES = (str, int, bool, type(None))


_STRICT = json.JSONEncoder(allow_nan=False, check_circular=False)


def _floats_finite(value: Any) -> bool | None:
    """Whether every float in ``value`` is finite, by a walk over the exact types a hot answer is made of (``dict``,
    ``list``, ``tuple``, ``str`` and its subclasses such as a ``TextChoices`` member, ``int``, ``bool``, ``None``,
    ``float``): about half the cost of :func:`_finite`'s encoding, which builds the whole text again. None for
    anything else (a dict or list subclass, a dataclass, an ``Enum`` with a float value: orjson may write floats
    from inside them), so :func:`_finite` decides those."""
    stack = [value]
    pop, push = stack.pop, stack.extend
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            push(item.values())  # a key is text: orjson refuses any other (TypeError, DRF's renderer then)
        elif kind is str or kind is int or kind is bool or item is None:
            continue
        elif kind is list or kind is tuple:
            push(item)
        elif kind is float:
            if item - item != 0.0:  # NaN and the infinities give NaN here
                return False
        elif not isinstance(item, str):
            return None
    return True


def _no_nan(value: Any) -> bool:
    """No NaN or infinity in ``value``: :func:`_floats_finite`'s answer where it has one, else :func:`_finite`'s."""
    finite = _floats_finite(value)
    return _finite(value) if finite is None else finite


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere (DRF's strict JSON refuses them; orjson would write null): the standard library's
    C encoder with ``allow_nan=False`` walks the data in C and refuses them (a type it does not know, which orjson
    took, also answers False: such data goes to DRF's renderer, which gives the same bytes or the same refusal)."""
    try:
        _STRICT.encode(value)
    except (ValueError, TypeError, RecursionError):
        return False
    return True


class FastJSONRenderer(JSONRenderer):
    """``JSONRenderer`` with orjson for plain data (the module docstring)."""

    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Mapping[str, Any] | None = None
    ) -> bytes:
        if (
            orjson is not None
            and data is not None
            and not self.get_indent(accepted_media_type or "", renderer_context or {})
        ):
            try:
                encoded = orjson.dumps(data)
            except TypeError:  # safe: DRF's renderer below writes or refuses it (unknown type, key, huge int)
                pass
            else:
                if b"null" not in encoded or _no_nan(data):  # orjson writes NaN/inf as null: DRF refuses them
                    # as DRF: U+2028/U+2029 escaped, so the answer is valid JavaScript too
                    return encoded.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        rendered: bytes = super().render(data, accepted_media_type, renderer_context)
        return rendered


#: the hot views' ``renderer_classes``: JSON first (as DRF's defaults), the browsable API kept for people
HOT_RENDERERS = [FastJSONRenderer, BrowsableAPIRenderer]

#: the ``Accept`` headers every API client sends (or none, which DRF reads as ``*/*``): each picks the first renderer
_FIRST_RENDERER_ACCEPTS = frozenset(("*/*", "application/json"))


class HotContentNegotiation(DefaultContentNegotiation):
    """DRF's negotiation with its common answer decided without parsing: no format suffix, no query string (so no
    ``?format=``), ``Accept`` absent, ``*/*`` or ``application/json`` and the first renderer JSON: that renderer
    with ``application/json``, which is what DRF's parsing of those headers returns (``*/*`` takes the renderer's
    own media type; ``application/json`` is taken as sent). Anything else (``application/json; indent=2``, the
    browsable API's ``text/html``, a 406) goes through DRF's negotiation. ``core/tests/test_hot_negotiation.py``
    checks both give the same for those headers."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderers = list(renderers)
        meta = request.META
        if (
            not format_suffix
            and not meta.get("QUERY_STRING")
            and meta.get("HTTP_ACCEPT", "*/*") in _FIRST_RENDERER_ACCEPTS
            and renderers
            and renderers[0].media_type == "application/json"
        ):
            return renderers[0], "application/json"
        chosen: tuple[BaseRenderer, str] = super().select_renderer(request, renderers, format_suffix)
        return chosen
