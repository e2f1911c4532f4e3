"""JSON-ready values: what the audit trail, the error shape and the services store or answer.

Money as its JSON object (``Money.to_json``), dict keys as text, tuples as lists, datetimes and dates in ISO 8601
(UTC written as "Z", the way DRF writes it), anything else as its text.
"""

from __future__ import annotations

from typing import Any

from core.money import Money

_PLAIN = frozenset((str, int, float, bool, type(None)))


def jsonable(value: Any) -> Any:
    """``value`` as JSON-ready data (the module docstring says how each kind is written)."""
    if type(value) in _PLAIN:  # the common case first (a round's state is mostly these): one lookup
        return value
    if isinstance(value, Money):
        return value.to_json()
    # a plain leaf or a text key is taken in the comprehension itself, without a call (~100 values a round)
    if isinstance(value, dict):
        return {(k if type(k) is str else str(k)): (v if type(v) in _PLAIN else jsonable(v)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else jsonable(v) for v in value]
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        # UTC written as "Z", the way the API's serializers write it (DRF), so one format reaches clients
        return text[:-6] + "Z" if text.endswith("+00:00") else text
    return str(value)
