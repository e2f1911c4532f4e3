"""Celery tasks of the games platform (thin: each calls one service)."""

from __future__ import annotations

from celery import shared_task

from games.services import rounds_expire_due


@shared_task(name="games.expire_unfinished_rounds", time_limit=600, soft_time_limit=540)
def expire_unfinished_rounds() -> dict[str, int]:
    """GP §7(8)b: end rounds left unfinished past their game's deadline and return their stakes."""
    return rounds_expire_due()
