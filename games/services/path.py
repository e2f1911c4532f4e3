"""The one round path: every round, the platform's engine games and an outside studio's games alike, is locked,
opened, settled, voided and ended at its deadline here, and nowhere else.

The two entry points are thin adapters onto it:

* :mod:`games.services.rounds`: the engine (a player's start button and actions, play money);
* :mod:`games.services.remote`: a studio's seamless-wallet calls (bet, win, rollback, round end).

What the path does, in order, for a real-money start (:func:`open_round`): the player's wallet lock (every money
and limit decision of the player runs under it), the round context (games/sql.py START_CONTEXT: the game's row, the
round with this key, the round in progress, the last start and the new round's id in one statement), the key's
replay, GP §7(6) one open round per player (an overdue one is ended by :func:`end_at_deadline`, the same way the
sweeper ends it), GP §7(9) the spacing of starts, GP §13(6) an enabled and approved game, the adapter's round (its
stake), the limits' stake gate (account state, exclusion register, panic, AML, the 120/15 break, the stake range
and grid and the game's offered maximum, self-limits, the hourly loss) and the stake debit before any result exists
(GP §7(3)). Then the adapter plays (the engine draws; a studio has drawn) and :func:`start_decided` writes the
jackpots' contribution and either settles the round at once or records the open bet.

A rule of a round's start is added in :func:`open_round` and applies to every game; the boundary tests of
GP §6-§8 run through both adapters (``games/tests/platform/test_one_path.py``).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Protocol

from django.db import transaction

from core import clock
from core.audit import Actor, audit_event, audit_record
from core.models import AuditEvent
from core.money import Money
from core.rng import get_rng
from games import carry, errors, hooks
from games import sql as games_sql
from games.engine import STATUS_AWAITING_ACTION, STATUS_FINISHED, JsonDict, RecordingRNG
from games.models import Game, Round, RoundAction
from games.services.common import (
    LIMITS_KIND,
    clean_state,
    engine_game_of,
    min_round_seconds,
    round_ref,
)
from jackpots import services as jackpots
from jackpots.models import Award
from limits.services import (
    BetCounters,
    StakeGate,
    max_win_per_round,
    stake_decided_now,
    stake_gate,
    stake_placed_counted,
    stake_settled,
    stake_voided,
)
from wallet.selectors import balance
from wallet.services import (
    DeferredPosting,
    LockedWallet,
    round_stake_debit,
    round_win_credit,
    round_win_deferred,
    stake_refund,
    wallet_lock_live,
)

if TYPE_CHECKING:
    from accounts.models import Player

JACKPOT_PLATFORM_EVENTS = ("jackpot_draw", "jackpot_award")
DEADLINE_ACTIONS_MAX = 50  # no-draw actions applied to finish a round at its deadline (a ladder collects in one)
AUTO_FINISH_ACTIONS_MAX = 100_000  # automatic actions of a carry-over game's round at its deadline


# --- results and locks ---------------------------------------------------------------------------------------------
@dataclass
class RoundResult:
    """What a call of the path did to a round: ``replayed`` when an idempotent repeat returned the stored round and
    moved nothing."""

    round: Round
    replayed: bool = False

    def returned(self) -> Round:
        """The round as the public services return it, with ``Round.replayed`` set (the one place it is set)."""
        self.round.replayed = self.replayed
        return self.round


@dataclass
class LockedRound:
    """A round locked in the house order: the round, the player's wallet (None for play money) and the action
    already applied under the Idempotency-Key asked for (a replay), if any."""

    round: Round
    wallet: LockedWallet | None
    keyed: RoundAction | None


def lock_round(
    round_id: int,
    *,
    player: Player | None = None,
    key: str = "",
    skip_locked: bool = False,
    due_at: datetime | None = None,
) -> LockedRound | None:
    """The round locked in the house lock order (docs/contracts.md): the player's wallet first, then the round
    (``FOR NO KEY UPDATE``). The one prelude of an action, a studio's call on its round, a staff remedy and the
    deadline sweeper.

    A real-money round takes ONE statement (``games/sql.py`` ROUND_LOCK); a play-money round has no wallet and
    locks only its row. ``player`` scopes the round to its owner; ``due_at``: only a round still in progress whose
    deadline is at or before it (the sweeper); ``skip_locked`` passes over a round another transaction holds."""
    got = games_sql.round_lock(
        round_id, player_id=player.pk if player is not None else None, key=key, skip_locked=skip_locked
    )
    if got is not None:
        rnd = got.round
        if player is not None:
            rnd._state.fields_cache["player"] = player
        locked = LockedRound(round=rnd, wallet=LockedWallet.of(got.wallet, got.account), keyed=got.keyed)
    else:
        scope = Round.objects.filter(pk=round_id, play_money=True)
        if player is not None:
            scope = scope.filter(player=player)
        if not scope.exists():
            return None
        row = (
            Round.objects.select_for_update(no_key=True, skip_locked=skip_locked)
            .select_related("player")
            .filter(pk=round_id)
            .first()
        )
        if row is None:
            return None
        keyed = RoundAction.objects.filter(round=row, idempotency_key=key).first() if key else None
        locked = LockedRound(round=row, wallet=None, keyed=keyed)
    if due_at is not None and (locked.round.status != Round.Status.IN_PROGRESS or locked.round.deadline > due_at):
        return None
    return locked


# --- opening a round -----------------------------------------------------------------------------------------------
class Opener(Protocol):
    """What an adapter tells the path about the round it opens (the engine's bet, a studio's call)."""

    code: str
    version: int

    def replay(self, round_id: int) -> RoundResult:
        """The key was used before: the stored round (a replay) or a refusal."""

    def game_row(self, found: Game | None) -> Game:
        """The game's catalogue row (``found`` is what the round context read; None when it has none yet)."""

    def new_round(self, row: Game, round_id: int, now: datetime) -> Round:
        """The new round, not saved, under the id the context took, with its stake (refuses a bad bet)."""

    def max_bet(self, row: Game) -> Money:
        """The game's offered maximum stake (GP §8(2))."""


@dataclass
class Opening:
    """A real-money round opened and its stake taken, not yet decided: what :func:`start_decided` needs."""

    round: Round
    locked: LockedWallet
    gate: StakeGate
    now: datetime
    actor: Actor


def refuse_unoffered(row: Game) -> None:
    """A new round only on an enabled version approved in the game plan (GP §1, §2, §13(6)). Play money too."""
    if not row.enabled:
        raise errors.GAME_DISABLED(game=row.code)
    if not row.approved:
        raise errors.GAME_NOT_APPROVED(game=row.code, version=row.version, approval_state=row.approval_state)


def refuse_too_soon(last: datetime | None, now: datetime) -> None:
    """GP §7(9): the next round starts at least MIN_ROUND_SECONDS after the start ``last`` of the player's previous
    real-money round."""
    if last is None:
        return
    wait = timedelta(seconds=min_round_seconds()) - (now - last)
    if wait > timedelta(0):
        raise errors.ROUND_TOO_SOON(
            retry_after_ms=math.ceil(wait / timedelta(milliseconds=1)), min_round_seconds=min_round_seconds()
        )


def _end_overdue_or_refuse(player: Player, open_id: int, locked: LockedWallet, now: datetime) -> bool:
    """GP §7(6): no other bet while a round is open. An open round past its deadline is ended here exactly as the
    sweeper ends it (:func:`end_at_deadline`, GP §7(8)b). True when a round was ended (the balance may have moved)."""
    rnd = (
        Round.objects.select_for_update(no_key=True, of=("self",))
        .select_related("game")
        .filter(pk=open_id, status=Round.Status.IN_PROGRESS)
        .first()
    )
    if rnd is None:
        return False
    if rnd.deadline > now:
        raise errors.ROUND_IN_PROGRESS(round_id=rnd.pk, game=rnd.game_code)
    rnd._state.fields_cache["player"] = player
    end_at_deadline(
        rnd,
        locked=locked,
        actor=Actor.system("games.deadline"),
        now=now,
        detail="ended at the next start after the deadline",
    )
    return True


def open_round(opener: Opener, *, player: Player, key: str, actor: Actor) -> Opening | RoundResult:
    """Open a real-money round and take its stake, every rule of a round's start in one order (module docstring).
    Runs inside the caller's transaction. Returns the stored round when ``key`` was used before (``opener.replay``).
    Raises the refusal of the first rule that refuses; nothing is moved then."""
    locked = wallet_lock_live(player=player)
    row, keyed_id, open_id, last_started, new_id = games_sql.start_context(
        code=opener.code, version=opener.version, player_id=player.pk, key=key, play_money=False
    )
    if keyed_id is not None:
        return opener.replay(keyed_id)
    now = clock.now()
    if open_id is not None and _end_overdue_or_refuse(player, open_id, locked, now):
        locked = wallet_lock_live(player=player)  # the ended round paid or returned money: read the balance again
    refuse_too_soon(last_started, now)
    game = opener.game_row(row)
    refuse_unoffered(game)
    rnd = opener.new_round(game, new_id, now)
    stake = Money(rnd.stake, rnd.currency)
    gate = stake_gate(
        player=player,
        kind=LIMITS_KIND,
        stake=stake,
        game_code=rnd.game_code,
        game_max_bet=opener.max_bet(game),
        now=now,
        round_ref=round_ref(rnd, "bet"),
    )
    rnd.balance_before = locked.balance
    round_stake_debit(locked=locked, amount=stake, reference=round_ref(rnd, "stake"), actor=actor)  # GP §7(3)
    return Opening(round=rnd, locked=locked, gate=gate, now=now, actor=actor)


def start_decided(op: Opening, *, finished: bool, engine_events: list[JsonDict]) -> None:
    """The opened round after its adapter played it: the jackpots' contributions, draws and must-hit crossings of
    this stake (docs/jackpots.md), then the round settled at once (:func:`settle`) or its open bet recorded and the
    round written."""
    rnd = op.round
    jp = jackpots.round_start(
        player=rnd.player,
        round_id=rnd.pk,
        game_code=rnd.game_code,
        stake=rnd.stake,
        finished=finished,
        engine_win=rnd.win_engine,
        actor=op.actor,
    )
    rnd.jackpot_events = jackpot_events(engine_events, jp.events, [])
    if finished:
        settle(rnd, locked=op.locked, actor=op.actor, now=op.now, opening=op, awards=jp.awards)
    else:  # the open bet, the round and its audit event in ONE statement (games/sql.py ROUND_INSERT_PLACED)
        games_sql.round_insert(
            rnd,
            audit=started_event(rnd, actor=op.actor, status=Round.Status.IN_PROGRESS),
            counters=stake_placed_counted(gate=op.gate, round_ref=round_ref(rnd, "bet")),
        )


def started_event(rnd: Round, *, actor: Actor, status: str) -> AuditEvent:
    """The audit event of a round that started and waits (not saved)."""
    return audit_event(
        actor=actor,
        action="games.round_started",
        obj=rnd,
        new={"game": f"{rnd.game_code}@{rnd.game_version}", "stake": rnd.stake, "status": status},
        play_money=rnd.play_money,
        forced_outcome=rnd.forced_outcome,
    )


def audit_started(rnd: Round, *, actor: Actor, status: str) -> None:
    audit_record(
        actor=actor,
        action="games.round_started",
        obj=rnd,
        new={"game": f"{rnd.game_code}@{rnd.game_version}", "stake": rnd.stake, "status": status},
        play_money=rnd.play_money,
        forced_outcome=rnd.forced_outcome,
    )


# --- settling ------------------------------------------------------------------------------------------------------
def capped(win_engine: int) -> tuple[int, int, bool]:
    """GP §8(3): (the game's win to credit, what the per-round cap leaves for jackpot wins, whether it cut)."""
    cap = max_win_per_round().amount
    paid = min(win_engine, cap)
    return paid, cap - paid, paid < win_engine


def _award_recorded(rnd: Round) -> bool:
    return any(ev.get("type") == "jackpot_award" for ev in rnd.jackpot_events or [])


def settle(
    rnd: Round,
    *,
    locked: LockedWallet | None,
    actor: Actor,
    now: datetime,
    opening: Opening | None = None,
    awards: list[Award] | None = None,
    action: RoundAction | None = None,
    credited: int = 0,
    played_until: datetime | None = None,
) -> None:
    """Settle a finished round, the one way: cap the game's win (GP §8(3)), credit it (GP §10(1)), pay its jackpot
    wins within what the cap leaves, count the decided bet with the whole win (GP §6(7), §8(5)) and record it.

    ``opening``: a round decided at its start (the stake gate's decision counts it placed and decided in one
    statement, and the round is inserted); otherwise the open bet is settled and the round updated (with the
    ``action`` that finished it). ``credited``: the part of the win already credited (a studio credits each win as
    it comes). ``played_until``: the round was ended at its deadline; for the play-time limits it was played until
    then (GP §7(4)), not until the sweeper came. Play money moves nothing (``locked`` None)."""
    paid, cap_hit, jackpot_paid = rnd.win_engine, False, 0
    decided: BetCounters | None = None
    win_posting: DeferredPosting | None = None
    if not rnd.play_money:
        if locked is None:
            raise RuntimeError(f"round {rnd.pk}: a real-money settlement runs under the wallet lock")
        paid, cap_left, cap_hit = capped(rnd.win_engine)
        if opening is not None and not awards:  # the win posted by the round's insert, when a plain posting
            win_posting = round_win_deferred(
                locked=locked,
                amount=Money(paid - credited, rnd.currency),
                reference=round_ref(rnd, "win"),
                actor=actor,
            )
        else:  # jackpot awards are posted after the win (their entries' balances follow it): the win first
            round_win_credit(
                locked=locked,
                player=rnd.player,
                amount=Money(paid - credited, rnd.currency),
                reference=round_ref(rnd, "win"),
                actor=actor,
            )
        if opening is None or awards:
            known = awards if opening is not None else (None if _award_recorded(rnd) else [])
            jackpot_paid, settled = jackpots.round_settle(
                player=rnd.player,
                round_id=rnd.pk,
                game_code=rnd.game_code,
                stake=rnd.stake,
                engine_win=rnd.win_engine,
                cap_left=cap_left,
                awards=known,
                locked=locked,
                interactive=opening is None,
                actor=actor,
            )
            cap_hit = cap_hit or any(a.returned for a in settled)
            _record_awards(rnd, settled)
        win = Money(paid + jackpot_paid, rnd.currency)
        if opening is not None:  # counted with the round's insert below, in its statement
            decided = stake_decided_now(
                gate=opening.gate, win=win, settled_at=now, round_ref=round_ref(rnd, "bet"), game_code=rnd.game_code
            )
        else:
            stake_settled(
                player=rnd.player,
                kind=LIMITS_KIND,
                stake=Money(rnd.stake, rnd.currency),
                win=win,
                started_at=rnd.started_at,
                settled_at=now,
                round_ref=round_ref(rnd, "bet"),
                game_code=rnd.game_code,
                played_until=played_until,
            )
        rnd.balance_after = locked.balance
    rnd.win = paid + jackpot_paid
    rnd.jackpot_win = jackpot_paid
    rnd.win_capped = bool(cap_hit)
    rnd.status = Round.Status.FINISHED
    rnd.settled_at = now
    if played_until is None:
        rnd.last_activity_at = now
    figures = {
        "status": rnd.status,
        "stake": rnd.stake,
        "win": rnd.win,
        "win_engine": rnd.win_engine,
        "jackpot_win": rnd.jackpot_win,
        "win_capped": rnd.win_capped,
    }
    if opening is not None:  # the round's one write (its id was taken by the round context), with its audit event
        games_sql.round_insert(  # the limits' counters of its bet (``decided``) and its win posting, in ONE statement
            rnd,
            counters=decided,
            win=win_posting,
            audit=audit_event(
                actor=actor,
                action="games.round_played",
                obj=rnd,
                new={"game": f"{rnd.game_code}@{rnd.game_version}", **figures},
                play_money=False,
                forced_outcome=False,
            ),
        )
    else:
        event = audit_event(actor=actor, action="games.round_settled", obj=rnd, new=figures, play_money=rnd.play_money)
        games_sql.round_write(rnd, action=action, audit=event)
        if action is not None:
            games_sql.action_log_append(rnd, action)
    carry.carry_settle(rnd=rnd, actor=actor, now=now)  # a carry-over game's state for the next round


def _record_awards(rnd: Round, awards: list[Award]) -> None:
    """Show on the round what each jackpot award paid (and what went back to the pool)."""
    paid = {a.pk: a for a in awards}
    for ev in rnd.jackpot_events:
        a = paid.get(ev.get("award_id")) if ev.get("type") == "jackpot_award" else None
        if a is not None:
            ev.update(paid=a.paid, returned_to_pool=a.returned)


def jackpot_events(engine_events: list[JsonDict], old: list[JsonDict], decided: list[Award]) -> list[JsonDict]:
    """The round's jackpot record: the engine's events (the whole list, every time) and the platform's draws
    and awards, kept across actions."""
    platform = [e for e in old if e.get("type") in JACKPOT_PLATFORM_EVENTS]
    return list(engine_events) + platform + [jackpots.award_event(a) for a in decided]


# --- voiding -------------------------------------------------------------------------------------------------------
def void(
    rnd: Round, *, reason: str, detail: str, actor: Actor, now: datetime, status: str = Round.Status.VOIDED
) -> None:
    """End a round without paying its win and return the stake (real money): a malfunction, a staff refund, a
    studio's rollback, or a round past its deadline that holds nothing won (:func:`end_at_deadline`)."""
    if not rnd.play_money:
        if rnd.stake > 0:
            stake_refund(
                player=rnd.player,
                amount=Money(rnd.stake, rnd.currency),
                reference=round_ref(rnd, "refund"),
                actor=actor,
            )
        # Not a decided bet (GP §6(7)): limits takes the stake back out of its counters and clears the open bet.
        stake_voided(player=rnd.player, kind=LIMITS_KIND, at=now, round_ref=round_ref(rnd, "bet"), reason=reason)
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
        rnd.balance_after = balance(rnd.player).amount
    rnd.save()
    audit_record(
        actor=actor,
        action="games.round_voided" if status == Round.Status.VOIDED else "games.round_refunded",
        obj=rnd,
        old={"status": old_status},
        new={"status": status, "void_reason": reason},
        stake_returned=rnd.stake if not rnd.play_money else 0,
        accrued_win_not_paid=rnd.win_engine,
        detail=rnd.void_detail,
        play_money=rnd.play_money,
    )
    if rnd.provider_round_id and reason != Round.VoidReason.PROVIDER:
        tell_studio(rnd, reason=reason)


def tell_studio(rnd: Round, *, reason: str, settled: bool = False) -> None:
    """A studio's round ended here (deadline GP §7(8)b, staff): its studio is told after commit, through the
    declared hook ``remote_round_cancelled`` (providers). ``settled``: the round was settled with the wins its
    studio had sent, not refunded; the notice says so and names the win credited."""
    call = hooks.remote_round_cancelled.implementation  # raises HookMissing now, inside the transaction
    remote = (rnd.state or {}).get("remote") or {}
    provider = str(remote.get("provider") or rnd.game.provider)
    provider_round_id, round_id = rnd.provider_round_id, rnd.pk
    why = "deadline" if reason == Round.VoidReason.DEADLINE else "staff"
    refunded = Money(0 if settled else rnd.stake, rnd.currency)
    credited = Money(rnd.win if settled else 0, rnd.currency)
    transaction.on_commit(
        lambda: call(
            provider=provider,
            provider_round_id=provider_round_id,
            round_id=round_id,
            reason=why,
            refunded=refunded,
            credited=credited,
        )
    )


# --- the deadline --------------------------------------------------------------------------------------------------
def _finish_for_player(rnd: Round, *, now: datetime) -> bool:
    """Complete an engine round waiting for the player, for the player, at its deadline. True when it finished so;
    nothing changes otherwise.

    * a game that carries state between rounds (``carry_over``, Ismael Beiro) is finished by its automatic choices
      (``games.engine.auto_finish``: the round's value, prizes at risk and carried bonuses included, settled exactly
      as AUTO-PLAY would; the draws recorded, so it replays): voiding it would rewind the carried state the round
      consumed (game-integrity review M-4, M-5);
    * any other game only by its no-draw choices (``deadline_action``: collect a gamble's or a ladder's prize): the
      prize the player holds is theirs; a choice that would draw a new result is not made (GP §7(8)b: the stake is
      returned instead)."""
    if rnd.provider_round_id or not rnd.state or rnd.state.get("status") != STATUS_AWAITING_ACTION:
        return False
    engine_game = engine_game_of(rnd.game_code, rnd.game_version)
    automatic = engine_game.carry_over
    rec = RecordingRNG(get_rng())
    state, applied = copy.deepcopy(rnd.state), list[tuple[JsonDict, int, int]]()
    for _ in range(DEADLINE_ACTIONS_MAX if not automatic else AUTO_FINISH_ACTIONS_MAX):
        action = engine_game.default_action(state) if automatic else engine_game.deadline_action(state)
        if action is None:
            return False
        before = len(rec.draws)
        state = clean_state(engine_game.act(copy.deepcopy(state), dict(action), rec))
        if not automatic and len(rec.draws) > before:
            return False  # a choice that draws would decide a new result: not the player's held prize
        applied.append((dict(action), before, len(rec.draws)))
        if state["status"] == STATUS_FINISHED:
            break
    else:
        return False
    base = len(rnd.draws)
    for i, (action, before, after) in enumerate(applied):
        seq = len(rnd.actions) + i
        key = f"deadline-{action.get('type', 'action')}-{rnd.pk}" + (f"-{seq}" if i else "")
        RoundAction.objects.create(
            round=rnd,
            seq=seq,
            action=action,
            idempotency_key=key[:128],
            draws_before=base + before,
            draws_after=base + after,
            created_at=now,
        )
    rnd.draws = rnd.draws + rec.draws
    rnd.actions = rnd.actions + [a for a, _, _ in applied]
    rnd.state = state
    rnd.win_engine = state["win"]
    return True


def end_at_deadline(rnd: Round, *, locked: LockedWallet | None, actor: Actor, now: datetime, detail: str) -> str:
    """GP §7(8)b: the one way a round past its deadline ends, whoever notices first (the sweeper, the player's next
    start, an action after the deadline). Returns what was done (``settled``, ``collected`` or ``voided``).

    * a studio's round whose wins were credited as the studio sent them is settled with those wins (returning the
      stake on top would pay twice), and the studio is told;
    * an engine round waiting on a prize the player holds (gamble or collect, a ladder) is completed by the game's
      no-draw choices and settled: the prize is the player's; a carry-over game's round is finished by its automatic
      choices and settled (never rewound);
    * any other round is voided and its stake returned.

    A round settled here counts as play only up to when it was last played (``played_until``): the 120/15 break
    does not see the days it stood open."""
    played_until = rnd.last_activity_at
    if rnd.provider_round_id and rnd.win > 0:
        rnd.state = {**(rnd.state or {}), "status": STATUS_FINISHED, "win": rnd.win_engine}
        settle(rnd, locked=locked, actor=actor, now=now, credited=rnd.win, played_until=played_until)
        tell_studio(rnd, reason=Round.VoidReason.DEADLINE, settled=True)
        return "settled"
    if _finish_for_player(rnd, now=now):
        audit_record(actor=actor, action="games.round_collected_at_deadline", obj=rnd, win=rnd.win_engine)
        settle(rnd, locked=locked, actor=actor, now=now, played_until=played_until)
        return "collected"
    void(rnd, reason=Round.VoidReason.DEADLINE, detail=detail, actor=actor, now=now)
    return "voided"
