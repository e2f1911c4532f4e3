"""Small helpers of the accounts tests."""
from __future__ import annotations

import re

from core.errors import DomainError


def refusal_code(refusal: DomainError | None) -> str | None:
    """The code of a refusal (``betting_refusal``, ``money_movement_refusal``), None when there is none."""
    return refusal.code if refusal is not None else None


def found(pattern: str, text: str) -> str:
    """The first group of ``pattern`` in ``text`` (fails the test when it is not there)."""
    match = re.search(pattern, text)
    assert match is not None, (pattern, text[:500])
    return match.group(1)
