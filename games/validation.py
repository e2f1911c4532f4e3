"""Input validators of the games platform, shared by services (writes) and selectors (reads).

Pure checks of request values: they read no table and call no service, so both layers can use them.
"""

from __future__ import annotations

import json
import re
from typing import Any

from core.errors import ErrorDef
from games import errors

GAME_CODE_RE = re.compile(r"^[a-z0-9_]{1,60}$")


def valid_game_code(code: object) -> bool:
    """Whether ``code`` can be a game code (lower-case letters, digits and underscores, 1-60 characters)."""
    return isinstance(code, str) and bool(GAME_CODE_RE.match(code))


def valid_round_id(round_id: Any) -> int:
    """A round id (any request value) as an int within the database's range; anything else is simply not found."""
    try:
        value = int(round_id)
    except (TypeError, ValueError):
        raise errors.ROUND_NOT_FOUND()
    if not 0 < value < 2**63:
        raise errors.ROUND_NOT_FOUND()
    return value


def check_idempotency_key(key: object) -> None:
    """An Idempotency-Key is 1-128 printable characters (``game.idempotency_key_invalid`` otherwise)."""
    if not isinstance(key, str) or not (1 <= len(key) <= 128) or not key.isprintable():
        raise errors.IDEMPOTENCY_KEY_INVALID()


#: ``json.dumps(value, allow_nan=False)`` builds this encoder on every call; one for the process gives the same text
#: (an encoder keeps no state between calls: ``iterencode`` makes its own per call)
_STRICT = json.JSONEncoder(allow_nan=False)


def check_request_json(value: object, error: ErrorDef) -> None:
    """A bet/action from a request must be storable as jsonb (no NaN, no NUL characters), else ``error``."""
    try:
        text = _STRICT.encode(value)
    except (TypeError, ValueError):
        raise error(reason="not plain JSON")
    if "\\u0000" in text:
        raise error(reason="NUL characters are not allowed")
