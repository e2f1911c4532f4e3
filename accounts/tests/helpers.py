"""Small helpers of the accounts tests."""

from __future__ import annotations

import re


def found(pattern: str, text: str) -> str:
    """The first group of ``pattern`` in ``text`` (fails the test when it is not there)."""
    match = re.search(pattern, text)
    assert match is not None, (pattern, text[:500])
    return match.group(1)
