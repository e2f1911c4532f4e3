"""The deadline sweeper (GP §7(8)b): rounds left unfinished past their game's deadline."""
from __future__ import annotations

import copy
import logging
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction

from core import clock
from core.audit import Actor, audit_record
from core.rng import get_rng
from games.engine import (
    RecordingRNG,
)
from games.models import Round, RoundAction
from games.services.common import _clean_state, _engine_game, _round_lock
from games.services.settle import _finish, _settle, _tell_provider, _void
from wallet.services import LockedWallet

if TYPE_CHECKING:
    pass

logger = logging.getLogger("games")

COLLECT = {"type": "collect"}


def _end_past_deadline(rnd: Round, *, actor: Actor, now: datetime, detail: str,
                       locked: LockedWallet | None) -> None:
    """GP §7(8)b for one round past its deadline.

    A round waiting only for "gamble or collect" already holds its win, drawn and decided: collecting needs no
    draw and changes no result, so the round is completed by collecting (the player keeps the win instead of
    losing it to a stake refund). Any other unfinished round is ended and its stake returned."""
    if rnd.provider_round_id and rnd.win > 0:
        # a remote game's round whose wins were credited as the provider sent them (games/services/remote.py):
        # returning the stake on top would pay twice, so it is settled with the wins credited so far
        _finish(rnd, actor=actor, now=now, locked=locked, gate=None, awards=None, action=None, credited=rnd.win)
        _tell_provider(rnd, reason=Round.VoidReason.DEADLINE, settled=True)  # GP §7(8): the provider is told too
        return
    pending = (rnd.state or {}).get("pending") or {}
    if rnd.state and rnd.state.get("status") != "finished" and pending.get("type") == "gamble" \
            and COLLECT in (pending.get("options") or []):
        engine_game = _engine_game(rnd.game_code, rnd.game_version)
        rec = RecordingRNG(get_rng())
        state = _clean_state(engine_game.act(copy.deepcopy(rnd.state), dict(COLLECT), rec))
        if state["status"] == "finished" and not rec.draws:
            RoundAction.objects.create(round=rnd, seq=len(rnd.actions), action=dict(COLLECT),
                                       idempotency_key=f"deadline-collect-{rnd.pk}", draws_before=len(rnd.draws),
                                       draws_after=len(rnd.draws), created_at=now)
            rnd.actions = rnd.actions + [dict(COLLECT)]
            rnd.state = state
            rnd.win_engine = state["win"]
            rnd.last_activity_at = now
            audit_record(actor=actor, action="games.round_collected_at_deadline", obj=rnd, win=state["win"])
            _settle(rnd, actor=actor, now=now, locked=locked)
            return
    _void(rnd, reason=Round.VoidReason.DEADLINE, detail=detail, actor=actor, now=now)


def round_expire(*, round_id: int, now: datetime | None = None, actor: Actor | None = None) -> bool:
    """GP §7(8)b: end one round left unfinished past its game's deadline and return the stake (voided).

    Own transaction; locks in the house order (the player's wallet, then the round, skipping a round another
    worker holds). Returns False when there is nothing to do (already ended, not due, or claimed elsewhere)."""
    now = now or clock.now()
    actor = actor or Actor.system("games.sweeper")
    with transaction.atomic():
        held = _round_lock(round_id, skip_locked=True, due_at=now)
        if held is None:
            return False
        _end_past_deadline(held.round, actor=actor, now=now, locked=held.wallet,
                           detail="unfinished past the game's deadline: stake returned, accrued win not paid (GP §7(8)b)")
    return True


def rounds_expire_due(*, now: datetime | None = None, batch: int = 500) -> dict[str, int]:
    """Sweeper: void every round in progress past its deadline (each in its own transaction; safe to run twice
    or on two workers at once). Returns counts."""
    now = now or clock.now()
    ids = list(Round.objects.filter(status=Round.Status.IN_PROGRESS, deadline__lte=now)
               .order_by("deadline", "id").values_list("pk", flat=True)[:batch])
    done = failed = 0
    for pk in ids:
        try:
            if round_expire(round_id=pk, now=now):
                done += 1
        except Exception:  # one bad round must not stop the others (logged)
            failed += 1
            logger.exception("expiring round %s failed", pk)
    return {"due": len(ids), "ended": done, "failed": failed}
