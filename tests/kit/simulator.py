"""The kit's helpers of the provider_simulator tests (moved from ``provider_simulator/tests/conftest.py``, which keeps
the fixtures)."""

from __future__ import annotations

SECRET = "simulator-test-secret"
