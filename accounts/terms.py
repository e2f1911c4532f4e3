"""Which version of the game plan and terms is in force, known per process without a statement on the stake path.

GP §3(5): before every stake the player must know the plan and terms in force; ``accounts.selectors.betting_refusal``
refuses a player who has not accepted the version in force. The round path is counted in SQL statements
(games/tests/platform/test_round_cost.py), so the published versions (version number and the instant each takes
effect, a handful of rows) are kept per process for ``ACCOUNTS_TERMS_SNAPSHOT_SECONDS`` (the pattern of
``jackpots.levels``). The snapshot holds the effective instants, so the version in force is decided against the
clock on every call: a version applies at its ``effective_at`` to the second in every process. Only the publication
of a new version is seen late, at most the snapshot time, and a version never takes effect sooner than that after its
publication (``accounts.rules.terms_min_notice``), so every process knows it before it applies. Publishing clears
this process's snapshot; tests clear it around each test (``snapshot_clear``).

GP §8(1): each version carries the minimum stake and its step; :func:`stake_grid` gives the figures in force, which
the stake gate applies (``limits.rules``), so the grid changes only when an announced version takes effect.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings

from accounts import rules
from accounts.models import TermsVersion


@dataclass(frozen=True)
class PublishedTerms:
    """A published version as the stake path sees it."""

    version: int
    effective_at: datetime
    min_stake: int = 0  # GP §8(1), haléře
    stake_step: int = 0


@dataclass(frozen=True)
class StakeGrid:
    """GP §8(1): the minimum stake and its step in force, and the version that published them (None: no version in
    force yet, the settings' figures ``GP_MIN_STAKE`` / ``GP_STAKE_STEP``)."""

    min_stake: int
    step: int
    version: int | None


_lock = threading.Lock()
_snapshot: tuple[float, tuple[PublishedTerms, ...]] | None = None


def _load() -> tuple[PublishedTerms, ...]:
    rows = TermsVersion.objects.order_by("effective_at", "version").values_list(
        "version", "effective_at", "min_stake", "stake_step"
    )
    return tuple(PublishedTerms(version=v, effective_at=at, min_stake=lo, stake_step=step) for v, at, lo, step in rows)


def published() -> tuple[PublishedTerms, ...]:
    """Every published version, oldest first (from this process's snapshot)."""
    global _snapshot
    now = time.monotonic()
    snap = _snapshot
    if snap is None or snap[0] <= now:
        versions = _load()
        with _lock:
            _snapshot = (now + rules.terms_snapshot_seconds(), versions)
        return versions
    return snap[1]


def in_force(at: datetime) -> PublishedTerms | None:
    """The version in force at ``at`` (the latest that took effect by then), or None before the first one."""
    current = None
    for terms in published():
        if terms.effective_at > at:
            break
        if current is None or terms.version > current.version:
            current = terms
    return current


def settings_stake_grid() -> StakeGrid:
    """The settings' figures (``GP_MIN_STAKE``, ``GP_STAKE_STEP``): the grid before any version is in force, and what
    the first version publishes unless staff say otherwise."""
    return StakeGrid(min_stake=settings.GP["MIN_STAKE"], step=settings.GP["STAKE_STEP"], version=None)


def stake_grid(at: datetime) -> StakeGrid:
    """GP §8(1): the minimum stake and step in force at ``at``: those of the version in force (so a change applies
    only from the instant a version announced ahead takes effect, never by a settings change alone), else the
    settings' figures. From this process's snapshot: no statement on the stake path."""
    current = in_force(at)
    if current is None:
        return settings_stake_grid()
    return StakeGrid(min_stake=current.min_stake, step=current.stake_step, version=current.version)


def snapshot_clear() -> None:
    """Forget this process's snapshot (after a publication, and in tests)."""
    global _snapshot
    with _lock:
        _snapshot = None
