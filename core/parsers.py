"""Bounded JSON: every JSON body the platform reads, from a client or from a provider.

Python's ``json`` module parses nesting by recursion: a 2 KB body of 1,000 ``[`` raises ``RecursionError``, which is
neither a ``ValueError`` nor DRF's ``ParseError``, and was a logged 500 on every JSON endpoint (the login too, for
anyone). Here such a body is malformed input: :func:`loads_bounded` raises :class:`JsonTooDeep` (a ``ValueError``)
for a body nested deeper than ``MAX_DEPTH`` levels, whether the parser itself gave up or the parsed value is merely
deeper than the bound (so that no later step, a serializer, ``json.dumps`` for a jsonb column or an idempotency
hash, recurses over client data either). :class:`JSONParser` is the API's parser (``DEFAULT_PARSER_CLASSES``; a
view naming its own parsers uses this one): such a body is DRF's ``ParseError``, i.e. 400 ``request.invalid``.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from rest_framework import parsers
from rest_framework.exceptions import ParseError
from rest_framework.utils.json import strict_constant

#: the deepest nesting of arrays and objects accepted; no body of the API (nor a provider's callback) comes near it
MAX_DEPTH = 32


class JsonTooDeep(ValueError):
    """A JSON text nested deeper than :data:`MAX_DEPTH` (or too deep for the parser)."""


def depth_exceeds(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether ``value`` (parsed JSON) nests arrays/objects deeper than ``limit``; iterative, so it cannot recurse."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth + 1 > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def loads_bounded(text: str | bytes, *, max_depth: int = MAX_DEPTH, strict: bool = True) -> Any:
    """``json.loads`` that refuses nesting deeper than ``max_depth`` with :class:`JsonTooDeep` (a ``ValueError``,
    as every other malformed text); ``strict`` refuses NaN and Infinity (as DRF's strict JSON)."""
    try:
        value = json.loads(text, parse_constant=strict_constant if strict else None)
    except RecursionError:
        raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels") from None
    if depth_exceeds(value, max_depth):
        raise JsonTooDeep(f"JSON nested deeper than {max_depth} levels")
    return value


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser with the nesting bound: a body too deep is a ``ParseError`` (400 ``request.invalid``)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)  # as DRF's get_encoding
        try:
            text = codecs.getreader(encoding)(stream).read()
            return loads_bounded(text, strict=bool(self.strict))
        except ValueError as exc:  # malformed or too deep JSON, or bytes that are not the declared encoding
            raise ParseError(f"JSON parse error - {exc}")


def contains_nul(value: Any) -> bool:
    """Whether a parsed JSON value holds a NUL character in any string or key (PostgreSQL stores none: a text
    column refuses it, jsonb refuses ``\\u0000``); iterative."""
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if "\x00" in item:
                return True
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False
