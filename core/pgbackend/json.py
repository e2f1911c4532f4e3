"""JSON between psycopg2 and the platform, at a fraction of the standard library's cost, with its results.

**Rows.** psycopg2 parses a column of type ``json`` with ``json.loads`` (its ``typecast_json``); the hot statements
return their aggregates as ``json`` (the limits gate's state row: five ``json_build_object``/``json_agg`` columns,
~3,400 characters a round; a ``jsonb`` column is left as text by Django and parsed by the ``JSONField``).
:func:`loads` parses with orjson (a third of the cost) where orjson's result is ``json.loads``'s and with
``json.loads`` itself everywhere else:

- orjson reads an integer beyond 64 bits as a float (``json.loads``: the exact ``int``), so a text holding a run of
  19 or more digits anywhere (the shortest such integer has 20; a long fraction or a long digit string inside a text
  value also counts, and merely takes ``json.loads``) goes to ``json.loads``; the check translates the text's bytes
  (every digit one byte, everything else another) and looks for the run, a few instructions a byte;
- a text orjson refuses (``NaN``/``Infinity``, which ``json.loads`` reads; a lone surrogate escape; a number beyond
  a double; nesting past 1,024 levels; a malformed text) goes to ``json.loads``, which gives its value or its error;
- floats: both give the double nearest to the decimal (correctly rounded); duplicate keys: both keep the last value
  in the first key's place. ``core/tests/test_pgbackend_json.py`` compares the two over generated texts.

It is registered for ``json`` and ``json[]`` on each new connection (``register_json_typecaster``, called by
``DatabaseWrapper.get_new_connection``), replacing psycopg2's global one for the platform's connections only.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg2.extras  # type: ignore[import-untyped]  # no stubs installed

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson
except ImportError:  # pragma: no cover - safe: without orjson every text goes to json.loads
    orjson = None  # type: ignore[assignment]  # optional: None when not installed

#: a byte per byte value: ``0`` for an ASCII digit, a space for anything else
_DIGIT_BYTES = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
#: 19 digits in a row: the shortest run that may be an integer beyond 64 bits is 20 (``-`` aside), one less for margin
_LONG_RUN = b"0" * 19


def loads(text: str) -> Any:
    """``json.loads(text)``: the same value or the same error (the module docstring says when orjson parses it)."""
    if orjson is not None and _LONG_RUN not in text.encode("utf-8", "surrogatepass").translate(_DIGIT_BYTES):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # json.loads decides: its value (NaN, a lone surrogate...) or its own error
    return json.loads(text)


def register_json_typecaster(connection: Any) -> None:
    """Parse ``json`` and ``json[]`` columns of ``connection`` with :func:`loads` (psycopg2's wrapper keeps NULL as
    None)."""
    psycopg2.extras.register_default_json(conn_or_curs=connection, loads=loads)
