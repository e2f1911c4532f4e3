"""The kit's helpers of the jackpots tests (moved from ``jackpots/tests/conftest.py``, which keeps the fixtures)."""

from __future__ import annotations

from datetime import UTC, datetime

START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)
