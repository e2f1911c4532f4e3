"""JSON-ready values: what the audit trail, the error shape and the services store or answer.

Money as its JSON object (``Money.to_json``), dict keys as text, tuples as lists, datetimes and dates in ISO 8601
(UTC written as "Z", the way DRF writes it), anything else as its text.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

from core.money import Money

_PLAIN = frozenset((str, int, float, bool, type(None)))


def jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data (the module docstring says how each kind is written)."""
    kind = type(value)
    if kind in _PLAIN:  # the common case first (a round's state is mostly these): one lookup
        return value
    if kind is dict:
        return _dict(value)
    if kind is list or kind is tuple:
        return _list(value)
    if isinstance(value, Money):
        return value.to_json()
    if isinstance(value, dict):
        return _dict(value)
    if isinstance(value, (list, tuple)):
        return _list(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        # UTC written as "Z", the way the API's serializers write it (DRF), so one format reaches clients
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return str(value)


# A plain leaf, a text key, and a nested exact dict or list are taken in the comprehensions themselves, without going
# through jsonable()'s checks (~100 values and ~30 containers a round: the round's answer, its audit event); what
# each gives is what jsonable() gives for it (core/tests/test_json_copy.py compares with the former single function).
def _dict(value: dict[Any, Any]) -> dict[str, Any]:
    return {
        (k if type(k) is str else str(k)): (
            v if (t := type(v)) in _PLAIN else _dict(v) if t is dict else _list(v) if t is list else jsonable(v)
        )
        for k, v in value.items()
    }


def _list(value: list[Any] | tuple[Any, ...]) -> list[Any]:
    return [
        v if (t := type(v)) in _PLAIN else _dict(v) if t is dict else _list(v) if t is list else jsonable(v)
        for v in value
    ]


# --- what a JSON round trip gives, without the round trip -------------------------------------------------------------
#: a UTF-16 surrogate: ``json.dumps`` writes each as ``\\udxxx`` and ``json.loads`` joins a high one followed by a
#: low one into one character, so a text holding them may not come back equal (the round trip decides)
_SURROGATE = re.compile("[\ud800-\udfff]")
#: integers below this in magnitude have fewer than 640 digits, the least ``sys.set_int_max_str_digits`` accepts, so
#: ``json.dumps`` writes every one of them whatever the process's limit (a longer one: the round trip decides)
_INT_BOUND = 1 << 2000


class _NotPlain(Exception):
    """Raised inside :func:`_copy` for anything but the plain JSON types: :func:`json_copy` takes the round trip."""


def json_copy(value: Any) -> Any:
    """``json.loads(json.dumps(value, allow_nan=False))``: the same value and the same errors, at a fraction of the
    cost for data made of the plain JSON types (the exact types ``dict`` with ``str`` keys, ``list``, ``tuple``,
    ``str``, ``int``, ``float``, ``bool``, ``None``), which is what the games' states, bets and actions are.

    That data is copied directly: a new dict or list per container (a tuple becomes a list), the leaves kept (a
    ``str``, ``int``, ``float``, ``bool`` or ``None`` of the exact type is immutable, and the round trip gives an
    equal one: ``repr`` of a float reads back as the same float, ``-0.0`` included). Anything else takes the round
    trip itself, so what it gives or raises is by construction the standard library's: a key that is not an ASCII
    ``str`` (an int, float, bool or None key written as text, a key of any other type a TypeError, keys that become
    equal as text), a text with a surrogate, an integer of 640 digits or more (the process's digit limit), a NaN or
    an infinity (ValueError), a subclass of any type (``bool`` aside, an ``IntEnum``, a ``TextChoices`` member, an
    ``OrderedDict``: given back as the plain type), any other type (TypeError), and a circular structure (the copy
    recurses until Python's recursion limit, then the round trip raises its ValueError; data nested too deep for
    either raises RecursionError, as the round trip does). ``core/tests/test_json_fast.py`` compares the two."""
    try:
        return _copy(value)
    except (_NotPlain, RecursionError):
        return json.loads(json.dumps(value, allow_nan=False))


def _copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return _copy_dict(value)
    if kind is list or kind is tuple:
        return [_copy(item) for item in value]
    if _plain_leaf(value, kind):
        return value
    raise _NotPlain


def _plain_leaf(value: Any, kind: type) -> bool:
    """Whether ``value`` (of type ``kind``) is a leaf the round trip gives back equal and of the same type."""
    return (
        (kind is str and (value.isascii() or not _SURROGATE.search(value)))
        or (kind is int and -_INT_BOUND < value < _INT_BOUND)
        or value is None
        or kind is bool
        or (kind is float and value - value == 0.0)  # NaN and the infinities give NaN here
    )


def _copy_dict(value: dict[Any, Any]) -> dict[str, Any]:
    """:func:`_copy` of an exact dict, the common leaves checked in the loop (a call per value saved)."""
    out = {}
    for key, item in value.items():
        if type(key) is not str or not key.isascii():
            raise _NotPlain
        kind = type(item)
        if kind is str:
            if not item.isascii() and _SURROGATE.search(item):
                raise _NotPlain
        elif kind is int:
            if not -_INT_BOUND < item < _INT_BOUND:
                raise _NotPlain
        elif kind is dict:
            item = _copy_dict(item)
        elif kind is list or kind is tuple:
            item = [_copy(sub) for sub in item]
        elif not _plain_leaf(item, kind):
            raise _NotPlain
        out[key] = item
    return out


# --- copy.deepcopy of parsed JSON, without deepcopy's per-object machinery -------------------------------------------
#: the leaves ``copy.deepcopy`` gives back as they are (its atomic types)
_ATOMS = frozenset((str, int, float, bool, type(None)))


class _NotTree(Exception):
    """Raised inside :func:`_tree_copy` for anything but a tree of exact dicts, lists and atoms."""


def deep_copy(value: Any) -> Any:
    """``copy.deepcopy(value)``: the same copy, at a fraction of the cost for a tree of the exact types ``dict`` and
    ``list`` with keys and leaves of the exact types ``str``, ``int``, ``float``, ``bool`` and ``None`` (what a bet or
    a game's state parsed from JSON is): a new dict or list per container, in the same order, the atoms themselves
    (deepcopy gives every atom back as it is). A container met twice (a shared part, whose sharing deepcopy keeps, or
    a cycle), any other type (a tuple, a subclass, a ``Money``), or nesting too deep for the copy's recursion: the
    whole value goes to ``copy.deepcopy`` itself. ``core/tests/test_json_copy.py`` compares the two."""
    try:
        return _tree_copy(value, set())
    except (_NotTree, RecursionError):
        return copy.deepcopy(value)


def _tree_copy(value: Any, seen: set[int]) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is not dict and kind is not list:
        raise _NotTree
    if id(value) in seen:
        raise _NotTree
    seen.add(id(value))
    if kind is list:
        return [item if type(item) in _ATOMS else _tree_copy(item, seen) for item in value]
    out = {}
    for key, item in value.items():
        if type(key) not in _ATOMS:
            raise _NotTree
        out[key] = item if type(item) in _ATOMS else _tree_copy(item, seen)
    return out
