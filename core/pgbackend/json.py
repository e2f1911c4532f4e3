"""JSON between psycopg2 and the platform, at a fraction of the standard library's cost, with its results.

**Rows.** psycopg2 parses a column of type ``json`` with ``json.loads`` (its ``typecast_json``); the hot statements
return their aggregates as ``json`` (the limits gate's state row: five ``json_build_object``/``json_agg`` columns,
~3,400 characters a round; a ``jsonb`` column is left as text by Django and parsed by the ``JSONField``).
:func:`loads` parses with orjson (a third of the cost) where orjson's result is ``json.loads``'s and with
``json.loads`` itself everywhere else:

- orjson reads an integer beyond 64 bits as a float (``json.loads``: the exact ``int``), so a text holding a run of
  19 or more digits anywhere (the shortest such integers: ``-9223372036854775809``, 19 digits, and
  ``18446744073709551616``, 20; a long fraction or a long digit string inside a text value also counts, and merely
  takes ``json.loads``) goes to ``json.loads``; the check translates the text's bytes
  (every digit one byte, everything else another) and looks for the run, a few instructions a byte;
- a text orjson refuses (``NaN``/``Infinity``, which ``json.loads`` reads; a lone surrogate escape; a number beyond
  a double; nesting past 1,024 levels; a malformed text) goes to ``json.loads``, which gives its value or its error;
- floats: both give the double nearest to the decimal (correctly rounded); duplicate keys: both keep the last value
  in the first key's place. ``core/tests/test_pgbackend_json.py`` compares the two over generated texts.

It is registered for ``json`` and ``json[]`` on each new connection (``register_json_typecaster``, called by
``DatabaseWrapper.get_new_connection``), replacing psycopg2's global one for the platform's connections only.

**Parameters.** A ``JSONField``'s value is sent as Django's ``Jsonb`` adapter: ``json.dumps`` through psycopg2's
``Json`` (~10 Python calls and the C encoder's small strings, ~2.5 µs a value; a round sends 9: the round's state,
bet, draws, actions, jackpot events, the audit event's values). :class:`FastJsonb` is that adapter (a subclass: the
same ``adapted``, the same quoting by psycopg2's ``QuotedString``, the same ``::jsonb`` cast) whose text comes from
orjson when the value is made only of the exact types ``dict`` with ``str`` keys, ``list``, ``tuple``, ``str``,
``int``, ``bool`` and ``None``, or a ``str`` subclass as a value (:func:`_plain`), and the connection speaks UTF-8
(Django sets it). For such a value both texts are the same JSON value, which is what a ``jsonb`` column keeps (it
stores the parsed value, not the text): orjson writes non-ASCII characters as themselves where ``json.dumps`` writes
``\\u`` escapes, no spaces, and a ``str`` subclass's text as ``json.dumps`` does (an enumeration member's text, not
its value). Everything else is ``json.dumps``'s text, so its result or its error stays: a float (orjson writes NaN
and the infinities as ``null`` where ``json.dumps`` writes ``NaN``, which PostgreSQL refuses; and a float's text
decides the numeric's scale), an integer beyond 64 bits (orjson refuses it), a lone surrogate (refused), a subclass
of another type (an ``IntEnum``, whose value orjson may write instead of its number), a non-text key, any other type
(orjson would write a UUID, a dataclass, a datetime, an ``Enum``; ``json.dumps`` raises TypeError), a circular
structure (ValueError). Only a ``JSONField`` without its own encoder gets it (:class:`JsonOperations`);
``core/tests/test_pgbackend_json.py`` stores values both ways and compares what PostgreSQL kept.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg2.extras  # type: ignore[import-untyped]  # no stubs installed
from django.db.backends.postgresql.operations import DatabaseOperations
from django.db.backends.postgresql.psycopg_any import Jsonb  # type: ignore[import-untyped]  # not in the stubs

try:  # pragma: no cover - which branch runs depends on the environment
    import orjson
except ImportError:  # pragma: no cover - safe: without orjson every text goes to json.loads
    orjson = None  # type: ignore[assignment]  # optional: None when not installed

#: a byte per byte value: ``0`` for an ASCII digit, a space for anything else
_DIGIT_BYTES = bytes(48 if 48 <= b <= 57 else 32 for b in range(256))
#: 19 digits in a row: the shortest run that may be an integer orjson cannot hold (below -2**63: 19 digits)
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


def _plain(value: Any) -> bool:
    """Whether ``value`` is made only of the exact types orjson writes as ``json.dumps`` does (the module docstring);
    a circular structure raises RecursionError."""
    kind = type(value)
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                return False
            kind = type(item)
            if kind is str or kind is int or kind is bool or item is None:
                continue
            if (kind is dict or kind is list or kind is tuple) and _plain(item):
                continue
            if isinstance(item, str):  # a str subclass (a TextChoices member): both write its text, not its value
                continue
            return False
        return True
    if kind is list or kind is tuple:
        return all(_plain(item) for item in value)
    return kind is str or kind is int or kind is bool or value is None or isinstance(value, str)


class FastJsonb(Jsonb):  # type: ignore[misc]  # Jsonb is untyped (Any)
    """Django's ``Jsonb`` adapter of a ``JSONField`` value without an encoder, its text by orjson where that is the
    same JSON value (the module docstring)."""

    def __init__(self, adapted: Any) -> None:
        self.adapted = adapted
        self._conn = None
        self._dumps = json.dumps

    def getquoted(self) -> bytes:
        conn = self._conn
        text = None
        if orjson is not None and conn is not None and conn.encoding == "UTF8":
            try:
                if _plain(self.adapted):
                    text = orjson.dumps(self.adapted).decode()
            except (TypeError, RecursionError):  # an integer beyond 64 bits, a lone surrogate; a circular value
                pass
        if text is None:
            text = json.dumps(self.adapted)
        quoted = psycopg2.extensions.QuotedString(text)
        if conn is not None:
            quoted.prepare(conn)
        return bytes(quoted.getquoted()) + b"::jsonb"


def _itself(value: FastJsonb) -> FastJsonb:
    return value


#: psycopg2 finds a parameter's adapter by its exact type in ``adapters``; for a ``Json`` subclass the lookup misses,
#: and before asking the value's ``__conform__`` (which answers itself) it looks up ``ISQLQuote.__adapt__``, an
#: AttributeError formatted and dropped, ~9 times a round. Registered, the value is its own adapter at once (what
#: ``__conform__`` gives), so what is sent does not change (``core/tests/test_pgbackend_json.py``).
psycopg2.extensions.register_adapter(FastJsonb, _itself)


class JsonOperations(DatabaseOperations):
    """Django's PostgreSQL operations with :class:`FastJsonb` for a ``JSONField`` without its own encoder."""

    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        if encoder is None:
            return FastJsonb(value)
        return super().adapt_json_value(value, encoder)
