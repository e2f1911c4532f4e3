"""How an identifier (a birth number, a document number, an account number) is shown where the full value is not
needed or the viewer may not see it (``accounts.view_unmasked_identifiers``): the last three characters only."""
from __future__ import annotations

from typing import Any


def mask(value: Any) -> str:
    text = "" if value is None else str(value)
    if not text:
        return ""
    keep = 3 if len(text) > 6 else 1
    return "•" * (len(text) - keep) + text[-keep:]
