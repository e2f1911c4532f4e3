"""The log of refused stakes: it must survive the rollback of the caller's transaction.

:func:`stake_gate_and_place` raises its refusal inside the caller's transaction, which then rolls back; a row
written on the caller's connection would vanish with it. So the :class:`~limits.models.StakeRefusal`
row is written through the ``refusal_log`` database alias (``config/settings/``): the same database
on its own connection in autocommit, so the row is committed at once whatever the caller does next.
``StakeRefusal`` has no database foreign key, so the row may name a player the caller has not committed
yet. In tests the alias mirrors ``default``; a test that reads these rows allows it
(``django_db(databases=["default", "refusal_log"])``, see limits/tests/conftest.py).
"""

from __future__ import annotations

import logging
from datetime import datetime

from accounts.models import Player
from core.errors import DomainError
from core.logging import get_request_id
from core.money import Money
from limits.models import StakeRefusal

logger = logging.getLogger("platform.limits")

REFUSAL_LOG_DB = "refusal_log"


def refusal_record(
    *, player: Player, kind: str, stake: Money, game_code: str, error: DomainError, at: datetime
) -> None:
    """Record a refused stake so staff can see why (committed at once on the ``refusal_log`` connection).

    A failure to log never hides the refusal itself: it is logged and the caller raises the refusal."""
    try:
        StakeRefusal.objects.using(REFUSAL_LOG_DB).create(
            player_id=player.pk,
            kind=kind[:32],
            game_code=(game_code or "")[:64],
            stake=stake.amount,
            code=error.code[:64],
            details=error.as_dict()["details"],
            refused_at=at,
            request_id=(get_request_id() or "")[:64],
        )
    except Exception:  # the refusal stands even if its log line cannot be written
        logger.exception("could not record stake refusal %s for player %s", error.code, player.pk)
