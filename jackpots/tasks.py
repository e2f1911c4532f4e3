"""Jackpot jobs: fold the pending contributions into the pools (the value shown refreshes with it)."""

from __future__ import annotations

from typing import Any

from core.tasks import platform_task
from jackpots.services import jackpots_fold_all


@platform_task(name="jackpots.fold")
def fold() -> dict[str, Any]:
    return jackpots_fold_all()
