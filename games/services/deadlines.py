"""The deadline sweeper (GP §7(8)b): rounds left unfinished past their game's deadline, each ended by the one
deadline path (:func:`games.services.path.end_at_deadline`)."""

from __future__ import annotations

import logging
from datetime import datetime

from django.db import transaction

from core import clock
from core.audit import Actor
from games.models import Round
from games.services import path

logger = logging.getLogger("games")


def round_expire(*, round_id: int, now: datetime | None = None, actor: Actor | None = None) -> bool:
    """GP §7(8)b: end one round left unfinished past its game's deadline (:func:`path.end_at_deadline`: a studio's
    round with credited wins settled, a held prize collected, otherwise voided with the stake returned).

    Own transaction; locks in the house order (the player's wallet, then the round, skipping a round another
    worker holds). Returns False when there is nothing to do (already ended, not due, or claimed elsewhere)."""
    now = now or clock.now()
    actor = actor or Actor.system("games.sweeper")
    with transaction.atomic():
        held = path.lock_round(round_id, skip_locked=True, due_at=now)
        if held is None:
            return False
        path.end_at_deadline(
            held.round,
            locked=held.wallet,
            actor=actor,
            now=now,
            detail="unfinished past the game's deadline: stake returned, accrued win not paid (GP §7(8)b)",
        )
    return True


def rounds_expire_due(*, now: datetime | None = None, batch: int = 500) -> dict[str, int]:
    """Sweeper: end every round in progress past its deadline (each in its own transaction; safe to run twice
    or on two workers at once). Returns counts."""
    now = now or clock.now()
    ids = list(
        Round.objects.filter(status=Round.Status.IN_PROGRESS, deadline__lte=now)
        .order_by("deadline", "id")
        .values_list("pk", flat=True)[:batch]
    )
    done = failed = 0
    for pk in ids:
        try:
            if round_expire(round_id=pk, now=now):
                done += 1
        except Exception:  # one bad round must not stop the others (logged)
            failed += 1
            logger.exception("expiring round %s failed", pk)
    return {"due": len(ids), "ended": done, "failed": failed}
