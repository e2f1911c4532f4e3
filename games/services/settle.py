"""Settlement and voiding of a round: the GP §8(3) cap, the win, the jackpots' awards, the limits' decided bet."""
from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from core.audit import Actor, audit_record
from core.money import Money
from games.engine import (
    JsonDict,
)
from games.models import Round
from games.services.common import LIMITS_KIND, _balance, _ref
from jackpots import services as jackpots
from jackpots.models import Award
from limits.services import (
    StakeGate,
    max_win_per_round,
    stake_decided_now,
    stake_settled,
    stake_voided,
)
from wallet.services import (
    LockedWallet,
    round_win_credit,
    stake_refund,
    win_credit,
)

if TYPE_CHECKING:
    pass

logger = logging.getLogger("games")

# --- settlement and voiding --------------------------------------------------------------------------------------------
def _capped(win_engine: int) -> tuple[int, int, bool]:
    """GP §8(3): (the game's win to credit, what the per-round cap leaves for jackpot wins, whether it cut)."""
    cap = max_win_per_round().amount
    paid = min(win_engine, cap)
    return paid, cap - paid, paid < win_engine


def _settle(rnd: Round, *, actor: Actor, now: datetime) -> None:
    """A finished round: cap the game's win (GP §8(3)), credit it, pay its jackpot wins within what the cap
    leaves, tell limits the decided bet with the whole win (GP §6(7), §8(5))."""
    currency = rnd.currency
    paid, capped = rnd.win_engine, False
    jackpot_paid = 0
    if not rnd.play_money:
        paid, cap_left, capped = _capped(rnd.win_engine)
        if paid > 0:
            win_credit(player=rnd.player, amount=Money(paid, currency), reference=_ref(rnd, "win"), actor=actor)
        jackpot_paid, awards = jackpots.round_settle(
            player=rnd.player, round_id=rnd.pk, game_code=rnd.game_code, stake=rnd.stake, engine_win=rnd.win_engine,
            cap_left=cap_left, awards=None, locked=None, interactive=True, actor=actor)
        capped = capped or any(a.returned for a in awards)
        _record_awards(rnd, awards)
        stake_settled(player=rnd.player, kind=LIMITS_KIND, stake=Money(rnd.stake, currency),
                      win=Money(paid + jackpot_paid, currency), started_at=rnd.started_at, settled_at=now,
                      round_ref=_ref(rnd, "bet"), game_code=rnd.game_code)
        rnd.balance_after = _balance(rnd.player)
    rnd.win = paid + jackpot_paid
    rnd.jackpot_win = jackpot_paid
    rnd.win_capped = bool(capped)
    rnd.status = Round.Status.FINISHED
    rnd.settled_at = now
    rnd.last_activity_at = now
    rnd.save()
    audit_record(actor=actor, action="games.round_settled", obj=rnd,
                 new={"status": rnd.status, "stake": rnd.stake, "win": rnd.win, "win_engine": rnd.win_engine,
                      "jackpot_win": rnd.jackpot_win, "win_capped": rnd.win_capped}, play_money=rnd.play_money)


JACKPOT_PLATFORM_EVENTS = ("jackpot_draw", "jackpot_award")


def _record_awards(rnd: Round, awards: list[Award]) -> None:
    """Show on the round what each jackpot award paid (and what went back to the pool)."""
    paid = {a.pk: a for a in awards}
    for ev in rnd.jackpot_events:
        a = paid.get(ev.get("award_id")) if ev.get("type") == "jackpot_award" else None
        if a is not None:
            ev.update(paid=a.paid, returned_to_pool=a.returned)


def _jackpot_events(engine_events: list[JsonDict], old: list[JsonDict], decided: list[Award]) -> list[JsonDict]:
    """The round's jackpot record: the engine's events (the whole list, every time) and the platform's draws
    and awards, kept across actions."""
    platform = [e for e in old if e.get("type") in JACKPOT_PLATFORM_EVENTS]
    return list(engine_events) + platform + [jackpots.award_event(a) for a in decided]


def _void(rnd: Round, *, reason: str, detail: str, actor: Actor, now: datetime,
          status: str = Round.Status.VOIDED) -> None:
    """End a round without paying its win and return the stake (real money): deadline, malfunction, staff."""
    if not rnd.play_money:
        if rnd.stake > 0:
            stake_refund(player=rnd.player, amount=Money(rnd.stake, rnd.currency), reference=_ref(rnd, "refund"),
                         actor=actor)
        # Not a decided bet (GP §6(7)): limits takes the stake back out of its counters and clears the open bet.
        stake_voided(player=rnd.player, kind=LIMITS_KIND, at=now, round_ref=_ref(rnd, "bet"), reason=reason)
        # Seed 000: "in case of malfunction all pays and play are voided": contributions and awards go back.
        jackpots.round_void(round_id=rnd.pk, actor=actor)
    old_status = rnd.status
    rnd.status = status
    rnd.void_reason = reason
    rnd.void_detail = detail[:2000]
    rnd.win = 0
    rnd.jackpot_win = 0
    rnd.win_capped = False
    rnd.settled_at = now
    rnd.last_activity_at = now
    if not rnd.play_money:
        rnd.balance_after = _balance(rnd.player)
    rnd.save()
    audit_record(actor=actor, action="games.round_voided" if status == Round.Status.VOIDED else "games.round_refunded",
                 obj=rnd, old={"status": old_status}, new={"status": status, "void_reason": reason},
                 stake_returned=rnd.stake if not rnd.play_money else 0, accrued_win_not_paid=rnd.win_engine,
                 detail=rnd.void_detail, play_money=rnd.play_money)


def _settle_at_once(rnd: Round, *, gate: StakeGate, locked: LockedWallet, awards: list[Award], actor: Actor,
                    now: datetime) -> None:
    """A real-money round that finished without the player: cap the game's win (GP §8(3)), credit it (GP §10(1)),
    pay the jackpots it won within what the cap leaves, count the bet as placed and decided with the whole win
    (GP §6(7)) and record the round with ONE audit event (started and settled)."""
    currency = rnd.currency
    paid, cap_left, capped = _capped(rnd.win_engine)
    round_win_credit(locked=locked, player=rnd.player, amount=Money(paid, currency), reference=_ref(rnd, "win"),
                     actor=actor)
    jackpot_paid = 0
    if awards:
        jackpot_paid, awards = jackpots.round_settle(
            player=rnd.player, round_id=rnd.pk, game_code=rnd.game_code, stake=rnd.stake, engine_win=rnd.win_engine,
            cap_left=cap_left, awards=awards, locked=locked, interactive=False, actor=actor)
        capped = capped or any(a.returned for a in awards)
        _record_awards(rnd, awards)
    stake_decided_now(gate=gate, win=Money(paid + jackpot_paid, currency), settled_at=now,
                      round_ref=_ref(rnd, "bet"), game_code=rnd.game_code)
    rnd.balance_after = locked.balance
    rnd.win = paid + jackpot_paid
    rnd.jackpot_win = jackpot_paid
    rnd.win_capped = bool(capped)
    rnd.status = Round.Status.FINISHED
    rnd.settled_at = now
    rnd.last_activity_at = now
    rnd.save(force_insert=True)  # the round's one write (its id was taken by _start_context)
    audit_record(actor=actor, action="games.round_played", obj=rnd,
                 new={"game": f"{rnd.game_code}@{rnd.game_version}", "status": rnd.status, "stake": rnd.stake,
                      "win": rnd.win, "win_engine": rnd.win_engine, "jackpot_win": rnd.jackpot_win,
                      "win_capped": rnd.win_capped},
                 play_money=False, forced_outcome=False)
