"""Settlement and voiding of a round: the GP §8(3) cap, the win, the jackpots' awards, the limits' decided bet."""
from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING

from django.db import transaction

from core.audit import Actor, audit_event, audit_record
from core.money import Money
from games import carry, hooks
from games import sql as games_sql
from games.engine import (
    JsonDict,
)
from games.models import Round, RoundAction
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


def _settle(rnd: Round, *, actor: Actor, now: datetime, locked: LockedWallet | None,
            action: RoundAction | None = None) -> None:
    """A round finished after the player's actions (or a play-money round): :func:`_finish`, the round written
    with the ``action`` that finished it and its audit event in ONE statement."""
    _finish(rnd, actor=actor, now=now, locked=locked, gate=None, awards=None, action=action)


def _settle_at_once(rnd: Round, *, gate: StakeGate, locked: LockedWallet, awards: list[Award], actor: Actor,
                    now: datetime) -> None:
    """A real-money round that finished without the player: :func:`_finish` with the stake gate's decision and the
    awards :func:`jackpots.round_start` decided; the round is inserted (its id was taken by the round context)
    with ONE audit event (started and settled)."""
    _finish(rnd, actor=actor, now=now, locked=locked, gate=gate, awards=awards, action=None)


def _award_recorded(rnd: Round) -> bool:
    return any(ev.get("type") == "jackpot_award" for ev in rnd.jackpot_events or [])


def _finish(rnd: Round, *, actor: Actor, now: datetime, locked: LockedWallet | None, gate: StakeGate | None,
            awards: list[Award] | None, action: RoundAction | None, credited: int = 0) -> None:
    """Settle a finished round, the one way: cap the game's win (GP §8(3)), credit it (GP §10(1)), pay its jackpot
    wins within what the cap leaves, count the decided bet with the whole win (GP §6(7), §8(5)) and record it.

    ``gate`` (a round settled at once): the bet is counted as placed and decided in one statement
    (``limits.stake_decided_now``) and the round inserted; otherwise the open bet is settled
    (``limits.stake_settled``) and the round updated. Real money runs under ``locked`` (the player's wallet lock,
    taken by round_play or the round-lock prelude): every posting is one statement and the balance after is known.

    ``credited``: the part of the capped win already credited before settlement (a remote game's wins, each credited
    when the provider sent it, within the cap: games/services/remote.py); only the rest is credited here."""
    currency = rnd.currency
    paid, capped, jackpot_paid = rnd.win_engine, False, 0
    if not rnd.play_money:
        if locked is None:
            raise RuntimeError(f"round {rnd.pk}: a real-money settlement runs under the wallet lock")
        paid, cap_left, capped = _capped(rnd.win_engine)
        round_win_credit(locked=locked, player=rnd.player, amount=Money(paid - credited, currency),
                         reference=_ref(rnd, "win"), actor=actor)
        if gate is None or awards:
            # an interactive round: the awards it decided are on its record (none: no read); its net-revenue
            # contributions are written now
            known = awards if gate is not None else (None if _award_recorded(rnd) else [])
            jackpot_paid, settled = jackpots.round_settle(
                player=rnd.player, round_id=rnd.pk, game_code=rnd.game_code, stake=rnd.stake,
                engine_win=rnd.win_engine, cap_left=cap_left, awards=known, locked=locked,
                interactive=gate is None, actor=actor)
            capped = capped or any(a.returned for a in settled)
            _record_awards(rnd, settled)
        win = Money(paid + jackpot_paid, currency)
        if gate is not None:
            stake_decided_now(gate=gate, win=win, settled_at=now, round_ref=_ref(rnd, "bet"), game_code=rnd.game_code)
        else:
            stake_settled(player=rnd.player, kind=LIMITS_KIND, stake=Money(rnd.stake, currency), win=win,
                          started_at=rnd.started_at, settled_at=now, round_ref=_ref(rnd, "bet"),
                          game_code=rnd.game_code)
        rnd.balance_after = locked.balance
    rnd.win = paid + jackpot_paid
    rnd.jackpot_win = jackpot_paid
    rnd.win_capped = bool(capped)
    rnd.status = Round.Status.FINISHED
    rnd.settled_at = now
    rnd.last_activity_at = now
    figures = {"status": rnd.status, "stake": rnd.stake, "win": rnd.win, "win_engine": rnd.win_engine,
               "jackpot_win": rnd.jackpot_win, "win_capped": rnd.win_capped}
    if gate is not None:
        # the round's one write (its id was taken by the round context), with its audit event
        games_sql.round_insert(rnd, audit=audit_event(
            actor=actor, action="games.round_played", obj=rnd,
            new={"game": f"{rnd.game_code}@{rnd.game_version}", **figures}, play_money=False, forced_outcome=False))
        carry.carry_settle(rnd=rnd, actor=actor, now=now)  # a carry-over game's state for the next round
        return
    event = audit_event(actor=actor, action="games.round_settled", obj=rnd, new=figures, play_money=rnd.play_money)
    games_sql.round_write(rnd, action=action, audit=event)
    if action is not None:
        games_sql.action_log_append(rnd, action)
    carry.carry_settle(rnd=rnd, actor=actor, now=now)  # a carry-over game's state for the next round


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
    if rnd.provider_round_id and reason != Round.VoidReason.PROVIDER:
        _tell_provider(rnd, reason=reason)


def _tell_provider(rnd: Round, *, reason: str, settled: bool = False) -> None:
    """A round of a remote game ended here (deadline GP §7(8)b, staff): its provider is told after commit, through
    the declared hook ``remote_round_cancelled`` (providers; a missing registration stops the platform at start).
    ``settled``: the round was settled with the wins its provider had sent (a round past its deadline with a credited
    win: games/services/deadlines.py), not refunded; the notice says so and names the win credited."""
    call = hooks.hook("remote_round_cancelled")  # raises HookMissing now, inside the transaction, if unregistered
    remote = (rnd.state or {}).get("remote") or {}
    info = {"provider": str(remote.get("provider") or rnd.game.provider), "provider_round_id": rnd.provider_round_id,
            "round_id": rnd.pk, "reason": "deadline" if reason == Round.VoidReason.DEADLINE else "staff",
            "refunded": Money(0 if settled else rnd.stake, rnd.currency),
            "credited": Money(rnd.win if settled else 0, rnd.currency)}
    transaction.on_commit(lambda: call(**info))
