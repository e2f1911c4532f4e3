"""Games platform services (writes): rounds, their settlement and voiding, catalogue sync.

The flow of one round (design.md "Flow of one spin"), in ONE database transaction:

    wallet_lock_live (the lock and the balance) -> the round context (a replayed key, a round in progress
    GP §7(6), the previous start GP §7(9), the game's switch) -> engine.validate_bet -> limits.stake_gate (which
    also asks accounts.betting_refusal) -> wallet.round_stake_debit -> engine.start with the platform RNG wrapped
    in RecordingRNG -> jackpots.round_start (contributions, draws, must-hit) -> if finished: the GP §8(3) cap,
    wallet.round_win_credit, jackpots.round_settle (its awards within what the cap leaves), limits.stake_decided_now; else limits.stake_placed and the round waits for the player (round_act, which
    settles with wallet.win_credit and limits.stake_settled). A voided round (deadline, malfunction, staff) gets
    wallet.stake_refund and limits.stake_voided (not a decided bet). A settled bet placed on order or by proxy is
    declared void by staff (round_void_settled, GP §3(6)): the stake back, the win deducted, from its hold first
    (GP §10(3)), then from the balance (a debt if spent).
    A round starts only on an enabled version approved in the game plan (game_approve, GP §13(6)).

Other apps are called through their contract functions (docs/contracts.md), imported at the top of this module.
A malfunction (the engine raising or returning a broken state) voids the round and returns the stake inside the
same transaction (the engine is pure Python and touched nothing else), so the voided round, the debit and the
refund commit together and the record shows what happened.
"""
from __future__ import annotations

import copy
import json
import logging
import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from core import clock
from core.audit import Actor, audit_record
from core.fsm import status_transition
from core.money import Money
from core.rng import get_rng
from games import carry, errors
from games.engine import (
    RNG,
    STATUS_AWAITING_ACTION,
    STATUS_FINISHED,
    ActionError,
    Bet,
    BetError,
    Declared,
    JsonDict,
    RecordingRNG,
    ReplayRNG,
    registry,
)
from games.engine import Game as EngineGame
from games.models import Game, Round, RoundAction
from games.validation import check_idempotency_key, check_request_json, valid_game_code, valid_round_id
from jackpots import services as jackpots
from jackpots.levels import enabled as jackpots_enabled
from jackpots.levels import progressive_offered
from jackpots.models import Award
from jackpots.selectors import round_award_win_references
from limits.services import (
    StakeGate,
    max_win_per_round,
    settled_bet_voided,
    stake_decided_now,
    stake_gate,
    stake_placed,
    stake_settled,
    stake_voided,
)
from wallet.selectors import balance, win_held_amount
from wallet.services import (
    LockedWallet,
    round_stake_debit,
    round_win_credit,
    stake_refund,
    wallet_lock,
    wallet_lock_live,
    win_credit,
    win_deduct,
)

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("games")

LIMITS_KIND = "technical"  # the kind of gambling (GP §6(1)): internet technical games
MAX_FORCED_DRAWS = 10_000


# --- helpers ---------------------------------------------------------------------------------------------------------
def _currency() -> str:
    return str(settings.PLATFORM_CURRENCY)


def min_round_seconds() -> float:
    """GP §7(9): a round never lasts less than this; the next start of a player waits at least this long."""
    return float(settings.GP["MIN_ROUND_SECONDS"])


def qa_forced_outcomes_enabled() -> bool:
    """settings.GAMES_QA_FORCED_OUTCOMES (default False). Even when True, only play-money rounds may use it."""
    return bool(settings.GAMES_QA_FORCED_OUTCOMES)


def _ref(rnd: Round, what: str) -> str:
    """Wallet references, unique per round and movement (the wallet is idempotent on them)."""
    return f"games:round:{rnd.pk}:{what}"


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, allow_nan=False))


def _balance(player: Player) -> int:
    return balance(player).amount


def _engine_game(code: str, version: int | None = None) -> EngineGame:
    if not valid_game_code(code):
        raise errors.GAME_NOT_FOUND(game=str(code)[:60].replace("\x00", ""))
    try:
        return registry.get_game(code, version)
    except KeyError:
        if version is None:
            raise errors.GAME_NOT_FOUND(game=code)
        raise errors.GAME_UNAVAILABLE(game=code, version=version)


class _BadState(Exception):
    """The engine returned a state that breaks the contract (a malfunction)."""


def _clean_state(state: object) -> JsonDict:
    """The engine state as stored JSON; a state breaking the contract of base.Game.start is a malfunction."""
    if not isinstance(state, dict):
        raise _BadState(f"the state is a {type(state).__name__}, not a dict")
    try:
        clean: JsonDict = _jsonable(state)
    except (TypeError, ValueError) as exc:
        raise _BadState(f"the state is not JSON-serialisable: {exc}") from exc
    status = clean.get("status")
    if status not in (STATUS_FINISHED, STATUS_AWAITING_ACTION):
        raise _BadState(f"unknown state status {status!r}")
    win = clean.get("win")
    if isinstance(win, bool) or not isinstance(win, int) or win < 0:
        raise _BadState(f"invalid win {win!r}")
    if not isinstance(clean.get("steps", []), list):
        raise _BadState("steps must be a list")
    if status == STATUS_AWAITING_ACTION and not clean.get("pending"):
        raise _BadState("an awaiting round must say what it waits for (pending)")
    return clean


class _ForcedRNG:
    """QA forced outcome: the given draws first (through the engine's ReplayRNG), then the platform RNG.

    Play money only (see :func:`_check_forced`). A draw that does not fit (another range) is a refusal."""

    def __init__(self, forced: list[list[int]], fallback: RNG) -> None:
        self._forced = [list(d) for d in forced]
        self._replay = ReplayRNG(self._forced)
        self._used = 0
        self._fallback = fallback
        self.mismatch: str | None = None

    def randbelow(self, n: int) -> int:
        if self._used < len(self._forced):
            try:
                value = self._replay.randbelow(n)
            except Exception as exc:
                self.mismatch = str(exc)
                raise
            self._used += 1
            return value
        return self._fallback.randbelow(n)

    def left(self) -> list[list[int]]:
        return self._forced[self._used:]


def _check_forced(forced_draws: object, play_money: bool) -> list[list[int]] | None:
    """QA forced outcomes: never with real money, and only when settings.GAMES_QA_FORCED_OUTCOMES is True."""
    if forced_draws is None:
        return None
    if not play_money:
        raise errors.QA_FORCED_REAL_MONEY()
    if not qa_forced_outcomes_enabled():
        raise errors.QA_FORCED_DISABLED()
    ok = isinstance(forced_draws, list) and len(forced_draws) <= MAX_FORCED_DRAWS
    if ok and isinstance(forced_draws, list):
        for d in forced_draws:
            if not (isinstance(d, (list, tuple)) and len(d) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in d) and 0 <= d[1] < d[0]):
                ok = False
                break
    if not ok or not isinstance(forced_draws, list):
        raise errors.QA_FORCED_INVALID(reason="forced_draws must be a list of [n, value] with 0 <= value < n")
    return [list(d) for d in forced_draws]


def _rng_for(forced: list[list[int]] | None) -> tuple[_ForcedRNG | None, RecordingRNG]:
    """(the QA forced source or None, the recording RNG the engine draws from)."""
    if forced is None:
        return None, RecordingRNG(get_rng())
    source = _ForcedRNG(forced, get_rng())
    return source, RecordingRNG(source)


def _describe_exc(exc: BaseException) -> str:
    return f"{exc.__class__.__name__}: {exc}"[:2000]


# --- catalogue ---------------------------------------------------------------------------------------------------------
def offered_figures(declared: Declared) -> JsonDict:
    """The figures a game is offered with on this platform (GP §7(2), §8(2)-(3)).

    A slot's largest win grows with the stake. When the engine's declared max win is above the platform's
    max win per round (settings.GP["MAX_WIN_PER_ROUND"]), capping wins would cut the RTP below the declared
    figure (and below GP §8(4)'s 84.24 % for some games). Instead the game is offered with a lower max bet
    (GP §8(2): "some games lower it further to respect the max win"): the largest stake, on the stake grid,
    whose max win stays within the cap. So no win is ever capped and the declared RTP holds at every stake
    offered. The cap in round settlement stays as a safety net and records any capping on the round.
    """
    cap = settings.GP["MAX_WIN_PER_ROUND"]
    step = settings.GP["STAKE_STEP"]
    max_bet = min(declared.max_bet, settings.GP["MAX_STAKE"])
    lowered = False
    if declared.max_win * max_bet > cap * declared.max_bet:  # max win at this stake (linear in the stake) > cap
        max_bet = cap * declared.max_bet // declared.max_win
        max_bet -= max_bet % step
        lowered = True
    max_bet = max(max_bet, declared.min_bet)
    max_win = declared.max_win * max_bet // declared.max_bet
    offered = Declared(rtp=declared.rtp, min_bet=declared.min_bet, max_bet=max_bet, max_win=max_win,
                       unfinished_deadline_days=declared.unfinished_deadline_days,
                       rtp_with_jackpots=declared.rtp_with_jackpots)
    return {"max_bet": max_bet, "max_win": max_win, "avg_hourly_loss": offered.avg_hourly_loss,
            "max_hourly_loss": offered.max_hourly_loss, "max_bet_lowered_for_max_win": lowered}


def _row_data(g: EngineGame) -> JsonDict:
    d = g.declared
    offered = offered_figures(d)
    description = _jsonable(g.describe())
    description["platform_limits"] = {
        "engine_max_bet": d.max_bet, "engine_max_win": d.max_win,
        "max_bet_lowered_for_max_win": offered["max_bet_lowered_for_max_win"],
        "platform_max_win_per_round": settings.GP["MAX_WIN_PER_ROUND"],
    }
    return {
        "name": g.name,
        "name_cs": getattr(g, "name_cs", "") or description.get("name_cs", "") or "",
        "kind": g.kind,
        "rtp": d.rtp,
        "rtp_with_jackpots": d.rtp_with_jackpots,
        "min_bet": d.min_bet,
        "max_bet": offered["max_bet"],
        "max_win": offered["max_win"],
        "avg_hourly_loss": offered["avg_hourly_loss"],
        "unfinished_deadline_days": d.unfinished_deadline_days,
        "description": description,
    }


def _upsert_current(g: EngineGame, now: datetime) -> tuple[Game, bool]:
    data = _row_data(g)
    Game.objects.filter(code=g.code, current=True).exclude(version=g.version).update(current=False)
    row, created = Game.objects.update_or_create(
        code=g.code, version=g.version, defaults={**data, "current": True, "registered": True, "synced_at": now}
    )
    return row, created


def games_sync(*, actor: Actor | None = None) -> JsonDict:
    """Sync the catalogue from the engine registry: a row per (code, version), the newest version current.

    New games start enabled (registered in the engine = shipped); the operator disables one in the admin.
    A game whose description cannot be built is reported and skipped, the others are synced."""
    actor = actor or Actor.system("games.sync")
    now = clock.now()
    report: JsonDict = {"created": [], "updated": [], "unregistered": [], "errors": {}}
    with transaction.atomic():
        for g in registry.list_games():
            try:
                with transaction.atomic():
                    row, created = _upsert_current(g, now)
            except Exception as exc:  # one broken game must not block the catalogue (logged, reported)
                logger.exception("games_sync: %s v%s failed", g.code, g.version)
                report["errors"][f"{g.code}@{g.version}"] = _describe_exc(exc)
                continue
            report["created" if created else "updated"].append(f"{g.code}@{g.version}")
            _progressive_sync(g, actor)
        for row in Game.objects.filter(registered=True):
            try:
                registry.get_game(row.code, row.version)
            except KeyError:
                Game.objects.filter(pk=row.pk).update(registered=False, current=False)
                report["unregistered"].append(f"{row.code}@{row.version}")
        if report["created"] or report["unregistered"]:
            audit_record(actor=actor, action="games.catalogue_synced", object_type="games.game",
                         created=report["created"], unregistered=report["unregistered"])
    return report


def _progressive_sync(g: EngineGame, actor: Actor) -> None:
    """A game with its own progressive jackpots (Kobushi, seed 000 §9) gets its pools as drafts configured from its
    rules, when jackpots are offered (settings.JACKPOTS_ENABLED); staff start them (the seed is funded then)."""
    spec = g.progressive()
    if spec is not None and jackpots_enabled():
        jackpots.progressive_ensure(game_code=g.code, spec=spec, actor=actor)


def _game_row(g: EngineGame) -> Game:
    """The catalogue row of an engine game version; created on first use when the sync has not run yet."""
    row = Game.objects.filter(code=g.code, version=g.version).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            row, _ = _upsert_current(g, clock.now())
    except IntegrityError:
        row = Game.objects.get(code=g.code, version=g.version)
    return row


def game_set_enabled(*, game: Game, enabled: bool, actor: Actor) -> Game:
    """Operator switch: a disabled game starts no new round; rounds in progress can still be finished."""
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        if row.enabled != enabled:
            old = row.enabled
            row.enabled = enabled
            row.save(update_fields=["enabled"])
            audit_record(actor=actor, action="games.game_enabled" if enabled else "games.game_disabled", obj=row,
                         old={"enabled": old}, new={"enabled": enabled})
    return row


# GP §13(6): the moves of a version's approval. Approved again while approved = the plan was changed and approved
# anew (a new plan version or decision); a withdrawn approval can be given again.
APPROVAL_MOVES: dict[str, set[str]] = {
    Game.Approval.UNAPPROVED: {Game.Approval.APPROVED},
    Game.Approval.APPROVED: {Game.Approval.APPROVED, Game.Approval.WITHDRAWN},
    Game.Approval.WITHDRAWN: {Game.Approval.APPROVED},
}
APPROVAL_FIELDS = ("approval_state", "approval_plan_version", "approval_reference", "approved_at", "approved_by_id")
PLAN_VERSION_MAX, REFERENCE_MAX = 40, 120


def _approval(row: Game) -> JsonDict:
    return {name: getattr(row, name) for name in APPROVAL_FIELDS}


def game_approve(*, game: Game, plan_version: str, reference: str, actor: Actor) -> Game:
    """Staff record that the Ministry of Finance approved this game version as part of the game plan (GP §1 and
    §2: Part two of the approved plan is the complete list of games; GP §13(6): a change needs the Ministry's
    approval). From then on the version is offered for real money. ``plan_version`` names the plan (e.g.
    "2026-01"), ``reference`` the Ministry's decision (číslo jednací). The same approval again changes nothing;
    an approved version approved under another plan version or decision is updated (audited with both)."""
    plan_version, reference = str(plan_version or "").strip(), str(reference or "").strip()
    if not plan_version or len(plan_version) > PLAN_VERSION_MAX:
        raise errors.APPROVAL_INVALID(field="plan_version", max_length=PLAN_VERSION_MAX)
    if not reference or len(reference) > REFERENCE_MAX:
        raise errors.APPROVAL_INVALID(field="reference", max_length=REFERENCE_MAX)
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        if row.approved and (row.approval_plan_version, row.approval_reference) == (plan_version, reference):
            return row
        old = _approval(row)
        status_transition(
            row, to=Game.Approval.APPROVED, allowed=APPROVAL_MOVES, refused=errors.APPROVAL_TRANSITION, actor=actor,
            action="games.game_approved", field="approval_state", audit=False,
            extra_fields={"approval_plan_version": plan_version, "approval_reference": reference,
                          "approved_at": clock.now(),
                          "approved_by_id": int(actor.id) if actor.type == "staff" and actor.id else None})
        audit_record(actor=actor, action="games.game_approved", obj=row, old=old, new=_approval(row),
                     game=f"{row.code}@{row.version}")
    return row


def game_approval_withdraw(*, game: Game, reason: str, actor: Actor) -> Game:
    """Staff: the version is no longer in the approved plan (GP §13(6)); it is not offered for real money any more.
    Rounds already in progress can still be finished (GP §7(6), §7(8)). The last approval's plan version and
    reference stay on the row for the record."""
    reason = str(reason or "").strip()
    if not reason:
        raise errors.APPROVAL_INVALID(field="reason")
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        status_transition(row, to=Game.Approval.WITHDRAWN, allowed=APPROVAL_MOVES, refused=errors.APPROVAL_TRANSITION,
                          actor=actor, action="games.game_approval_withdrawn", field="approval_state",
                          reason=reason[:500], game=f"{row.code}@{row.version}")
    return row


# --- refusals ----------------------------------------------------------------------------------------------------------
def _refuse_open_round(player: Player, play_money: bool, now: datetime) -> None:
    """GP §7(6): no other bet while a round is open. An open round past its deadline is ended here (GP §7(8)b)."""
    open_round = (Round.objects.select_for_update(no_key=True)
                  .filter(player=player, play_money=play_money, status=Round.Status.IN_PROGRESS).first())
    if open_round is None:
        return
    if open_round.deadline <= now:
        _void(open_round, reason=Round.VoidReason.DEADLINE, detail="ended at the next start after the deadline",
              actor=Actor.system("games.deadline"), now=now)
        return
    raise errors.ROUND_IN_PROGRESS(round_id=open_round.pk, game=open_round.game_code)


def _refuse_unoffered(row: Game) -> None:
    """A new round only on an enabled version approved in the game plan (GP §1, §2, §13(6)); the approval comes
    with the game row the round reads anyway (no statement of its own). Play money too: players never get an
    unapproved version."""
    if not row.enabled:
        raise errors.GAME_DISABLED(game=row.code)
    if not row.approved:
        raise errors.GAME_NOT_APPROVED(game=row.code, version=row.version, approval_state=row.approval_state)


def _refuse_too_soon(last: datetime | None, now: datetime) -> None:
    """GP §7(9): a round never lasts less than 2 s: the next round starts at least MIN_ROUND_SECONDS after the
    start ``last`` of the player's previous real-money round."""
    if last is None:
        return
    wait = timedelta(seconds=min_round_seconds()) - (now - last)
    if wait > timedelta(0):
        raise errors.ROUND_TOO_SOON(retry_after_ms=math.ceil(wait / timedelta(milliseconds=1)),
                                    min_round_seconds=min_round_seconds())


def own_jackpots_offered(engine_game: EngineGame) -> bool | None:
    """Whether the game's own progressive jackpots (its rules, ``Game.progressive()``; Kobushi's Sushi and Kobushi)
    are offered now: switched on and every one of its pools running (``jackpots.levels.progressive_offered``, no
    statement). None for a game that has none."""
    spec = engine_game.progressive()
    if spec is None:
        return None
    return progressive_offered(engine_game.code, spec["contribution_ppm"])


def _validate_bet(engine_game: EngineGame, bet: JsonDict) -> Bet:
    """The engine's validated bet, as it runs now: for a game with its own progressive jackpots, with whether they
    are offered (``Game.with_jackpots_offered``: a round never draws a jackpot outcome that would pay nothing; the
    answer is in the round's bet parameters, so it replays the same)."""
    try:
        bet_obj = engine_game.validate_bet(copy.deepcopy(bet))
    except BetError as exc:
        raise errors.from_engine(exc)
    except Exception:  # the engine could not read this bet: refuse (nothing taken), logged for ops
        logger.exception("validate_bet of %s v%s raised on a bet", engine_game.code, engine_game.version)
        raise errors.INVALID_BET(reason="the game could not read this bet")
    offered = own_jackpots_offered(engine_game)
    return bet_obj if offered is None else engine_game.with_jackpots_offered(bet_obj, offered)


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
    carry.carry_settle(rnd=rnd, actor=actor, now=now)  # a carry-over game's state for the next round
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


# --- rounds -------------------------------------------------------------------------------------------------------------
def _replay_or_conflict(existing: Round, *, game_code: str, bet: object, play_money: bool) -> Round:
    try:
        same_bet = existing.bet_request == _jsonable(bet)
    except (TypeError, ValueError):
        same_bet = False
    if existing.game_code != game_code or existing.play_money != play_money or not same_bet:
        raise errors.IDEMPOTENCY_CONFLICT(round_id=existing.pk)
    existing.replayed = True
    return existing


_START_CONTEXT_SQL = """
SELECT
  (SELECT json_build_array(g.id, g.enabled, g.name, g.name_cs, g.kind, g.approval_state) FROM games_game g
    WHERE g.code = %(code)s AND g.version = %(version)s),
  (SELECT r.id FROM games_round r WHERE r.player_id = %(player)s AND r.idempotency_key = %(key)s),
  (SELECT r.id FROM games_round r WHERE r.player_id = %(player)s AND r.play_money = %(play_money)s
      AND r.status = 'in_progress' LIMIT 1),
  (SELECT r.started_at FROM games_round r WHERE r.player_id = %(player)s AND NOT r.play_money
    ORDER BY r.started_at DESC LIMIT 1),
  nextval(pg_get_serial_sequence('games_round', 'id'))
"""


def _start_context(player: Player, engine_game: EngineGame, idempotency_key: str,
                   play_money: bool) -> tuple[Game | None, int | None, int | None, datetime | None, int]:
    """(the game's catalogue row, the round with this key, the round in progress, the last real-money start, the
    id for a new round) in ONE statement, whatever the player's history (each an index lookup). The game row
    carries only what a round needs (its switch, its approval and the names the round shows). Taking the new round's id here
    lets the round be written once, when its outcome is known (an id taken for a refused start is a gap)."""
    with connection.cursor() as cur:
        cur.execute(_START_CONTEXT_SQL, {"code": engine_game.code, "version": engine_game.version,
                                         "player": player.pk, "key": idempotency_key, "play_money": play_money})
        game, keyed_id, open_id, last_started, new_id = cur.fetchone()
    row = None
    if game:
        row = Game(id=game[0], code=engine_game.code, version=engine_game.version, enabled=game[1], name=game[2],
                   name_cs=game[3], kind=game[4], approval_state=game[5])
        row._state.adding = False
    return row, keyed_id, open_id, last_started, new_id


def round_play(*, player: Player, game_code: str, bet: JsonDict, idempotency_key: str, actor: Actor,
               play_money: bool = False, forced_draws: list[list[int]] | None = None) -> Round:
    """Start a round (the start button, GP §7(6)) and run it as far as it goes without the player.

    Idempotent on (player, idempotency_key): a replay returns the same round (``round.replayed = True``) and moves
    nothing; the same key with another game or bet is refused. ``play_money=True`` plays without the wallet,
    limits or jackpots (for trying games); ``forced_draws`` (QA) feeds the given draws through the engine's
    ReplayRNG and is refused unless play money and settings.GAMES_QA_FORCED_OUTCOMES.

    Returns the round: ``finished`` (settled), ``in_progress`` (waits for round_act) or ``voided`` (malfunction:
    the stake was returned).

    A real-money round that settles at once costs a fixed handful of statements (docs/games-platform.md "Cost
    of a round"): the wallet lock with the balance, the round context, the round row, the limits decision, the
    stake posting, the last-bet upsert, the win posting (if any), the limits counters, the round update and one
    audit event.
    """
    check_idempotency_key(idempotency_key)
    forced = _check_forced(forced_draws, play_money)
    if not isinstance(bet, dict):
        raise errors.INVALID_BET(reason="the bet must be a JSON object")
    check_request_json(bet, errors.INVALID_BET)
    engine_game = _engine_game(game_code)
    if play_money:
        return _round_play_money(player=player, engine_game=engine_game, bet=bet, idempotency_key=idempotency_key,
                                 actor=actor, forced=forced)
    currency = _currency()
    with transaction.atomic():
        # Every money and limit decision of this player runs under this lock; it also reads the balance.
        locked = wallet_lock_live(player=player)
        game_row, keyed_id, open_id, last_started, new_id = _start_context(player, engine_game, idempotency_key,
                                                                           False)
        if keyed_id is not None:
            return _replay_or_conflict(Round.objects.get(pk=keyed_id), game_code=game_code, bet=bet, play_money=False)
        now = clock.now()
        if open_id is not None:
            _refuse_open_round(player, False, now)  # ends it if past its deadline (GP §7(8)b), else refuses
            locked = wallet_lock_live(player=player)  # the ended round's stake came back: read the balance again
        _refuse_too_soon(last_started, now)
        if game_row is None:
            game_row = _game_row(engine_game)
        _refuse_unoffered(game_row)
        bet_obj = _validate_bet(engine_game, bet)
        stake = Money(bet_obj.total_stake, currency)
        # written once at the end (settled, waiting, or voided), under the id taken above
        rnd = Round(id=new_id, **_round_fields(player, engine_game, game_row, bet, bet_obj, idempotency_key,
                                               currency, now, play_money=False, forced=False))
        # Limits (self-limits GP §6, 120/15 break GP §7(4), hourly loss GP §8(5), account state and the
        # exclusion register through accounts.betting_refusal) decide under the wallet lock.
        gate = stake_gate(player=player, kind=LIMITS_KIND, stake=stake, game_code=engine_game.code,
                          game_max_bet=Money(offered_figures(engine_game.declared)["max_bet"], currency), now=now,
                          round_ref=_ref(rnd, "bet"))
        rnd.balance_before = locked.balance
        # GP §7(3): the stake is deducted before the round's result exists.
        round_stake_debit(locked=locked, amount=stake, reference=_ref(rnd, "stake"), actor=actor)
        carry_in = carry.carry_start(player=player, engine_game=engine_game, play_money=False, locked=locked,
                                     actor=actor, now=now)  # a carry-over game's state (no statement for others)
        state = _engine_start(rnd, engine_game, bet_obj, None, actor=actor, now=now, carry_in=carry_in)
        if state is None:
            return rnd
        finished = state["status"] == "finished"
        # Jackpots: this stake's contributions, the draw after every stake, must-hit crossings (docs/jackpots.md)
        jp = jackpots.round_start(player=player, round_id=rnd.pk, game_code=engine_game.code,
                                  stake=bet_obj.total_stake, finished=finished, engine_win=rnd.win_engine, actor=actor)
        rnd.jackpot_events = _jackpot_events(state.get("jackpot_events") or [], jp.events, [])
        if finished:
            _settle_at_once(rnd, gate=gate, locked=locked, awards=jp.awards, actor=actor, now=now)
        else:
            stake_placed(gate=gate, round_ref=_ref(rnd, "bet"))
            rnd.save(force_insert=True)
            _audit_started(rnd, actor=actor, status=state["status"])
    rnd.replayed = False
    return rnd


def _engine_start(rnd: Round, engine_game: EngineGame, bet_obj: Bet, forced: list[list[int]] | None, *,
                  actor: Actor, now: datetime, carry_in: JsonDict | None = None) -> JsonDict | None:
    """Run the engine's start with the platform RNG (or QA's forced draws) and record the draws, state and win on
    the round. An engine failure is a malfunction of this round: it is voided with the stake returned and None is
    returned (``rnd.replayed`` False). Forced draws that do not fit the game are refused instead."""
    source, rec = _rng_for(forced)
    try:
        state = _clean_state(engine_game.start_carried(bet_obj, rec, carry_in))
    except Exception as exc:  # an engine failure is a malfunction of this round
        if source is not None and source.mismatch:
            raise errors.QA_FORCED_INVALID(reason=source.mismatch)
        logger.exception("round %s: engine start of %s v%s failed", rnd.pk, engine_game.code, engine_game.version)
        rnd.draws = rec.draws
        _void(rnd, reason=Round.VoidReason.MALFUNCTION, detail=f"start: {_describe_exc(exc)}", actor=actor, now=now)
        rnd.replayed = False
        return None
    rnd.draws = rec.draws
    rnd.state = state
    rnd.win_engine = state["win"]
    if source is not None:
        rnd.forced_draws_left = source.left()
    return state


def _round_fields(player: Player, engine_game: EngineGame, game: Game, bet: JsonDict, bet_obj: Bet,
                  idempotency_key: str, currency: str, now: datetime, *, play_money: bool,
                  forced: bool) -> dict[str, Any]:
    return dict(
        player=player, game=game, game_code=engine_game.code, game_version=engine_game.version,
        play_money=play_money, forced_outcome=forced, idempotency_key=idempotency_key,
        status=Round.Status.IN_PROGRESS, bet_request=_jsonable(bet), bet_params=_jsonable(bet_obj.params),
        stake=bet_obj.total_stake, currency=currency, started_at=now, last_activity_at=now,
        deadline=clock.add_days(now, engine_game.declared.unfinished_deadline_days),
    )


def _audit_started(rnd: Round, *, actor: Actor, status: str) -> None:
    audit_record(actor=actor, action="games.round_started", obj=rnd,
                 new={"game": f"{rnd.game_code}@{rnd.game_version}", "stake": rnd.stake, "status": status},
                 play_money=rnd.play_money, forced_outcome=rnd.forced_outcome)


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
    carry.carry_settle(rnd=rnd, actor=actor, now=now)  # a carry-over game's state for the next round
    audit_record(actor=actor, action="games.round_played", obj=rnd,
                 new={"game": f"{rnd.game_code}@{rnd.game_version}", "status": rnd.status, "stake": rnd.stake,
                      "win": rnd.win, "win_engine": rnd.win_engine, "jackpot_win": rnd.jackpot_win,
                      "win_capped": rnd.win_capped},
                 play_money=False, forced_outcome=False)


def _round_play_money(*, player: Player, engine_game: EngineGame, bet: JsonDict, idempotency_key: str, actor: Actor,
                      forced: list[list[int]] | None) -> Round:
    """A play-money round: no wallet, limits or jackpots; QA forced draws where enabled."""
    currency = _currency()
    with transaction.atomic():
        existing = Round.objects.filter(player=player, idempotency_key=idempotency_key).first()
        if existing is not None:
            return _replay_or_conflict(existing, game_code=engine_game.code, bet=bet, play_money=True)
        now = clock.now()
        _refuse_open_round(player, True, now)
        row = _game_row(engine_game)
        _refuse_unoffered(row)
        bet_obj = _validate_bet(engine_game, bet)
        fields = _round_fields(player, engine_game, row, bet, bet_obj, idempotency_key, currency, now,
                               play_money=True, forced=forced is not None)
        try:
            with transaction.atomic():
                rnd = Round.objects.create(**fields)
        except IntegrityError:
            # A concurrent twin (play money runs without the wallet lock) won the unique index.
            existing = Round.objects.filter(player=player, idempotency_key=idempotency_key).first()
            if existing is not None:
                return _replay_or_conflict(existing, game_code=engine_game.code, bet=bet, play_money=True)
            raise errors.ROUND_IN_PROGRESS()
        carry_in = carry.carry_start(player=player, engine_game=engine_game, play_money=True, locked=None,
                                     actor=actor, now=now)
        state = _engine_start(rnd, engine_game, bet_obj, forced, actor=actor, now=now, carry_in=carry_in)
        if state is None:
            return rnd
        rnd.jackpot_events = list(state.get("jackpot_events") or [])
        _audit_started(rnd, actor=actor, status=state["status"])
        if state["status"] == "finished":
            _settle(rnd, actor=actor, now=now)
        else:
            rnd.save()
    rnd.replayed = False
    return rnd


def round_act(*, player: Player, round_id: Any, action: JsonDict, idempotency_key: str, actor: Actor) -> Round:
    """Continue an interactive round (pick bonus, free spins, gamble) with one player action.

    The player's choice never changes the result (GP §7(3); the engine drew it before offering the choice).
    When the round finishes it is settled as in round_play. Idempotent on (round, idempotency_key). Past the
    game's deadline the round is ended and the stake returned instead (GP §7(8)b). An engine failure voids the
    round and returns the stake (malfunction).
    """
    check_idempotency_key(idempotency_key)
    if not isinstance(action, dict):
        raise errors.INVALID_ACTION(reason="the action must be a JSON object")
    check_request_json(action, errors.INVALID_ACTION)
    round_id = valid_round_id(round_id)
    with transaction.atomic():
        head = Round.objects.filter(pk=round_id, player=player).values("play_money").first()
        if head is None:
            raise errors.ROUND_NOT_FOUND()
        if not head["play_money"]:
            wallet_lock(player=player)
        rnd = Round.objects.select_for_update(no_key=True).select_related("player").get(pk=round_id)
        done = RoundAction.objects.filter(round=rnd, idempotency_key=idempotency_key).first()
        if done is not None:
            if done.action != _jsonable(action):
                raise errors.IDEMPOTENCY_CONFLICT(round_id=rnd.pk)
            rnd.replayed = True
            return rnd
        if rnd.status != Round.Status.IN_PROGRESS:
            raise errors.ROUND_NOT_IN_PROGRESS(round_id=rnd.pk, round_status=rnd.status)
        now = clock.now()
        if now >= rnd.deadline:
            _end_past_deadline(rnd, actor=Actor.system("games.deadline"), now=now, detail="action after the deadline")
            rnd.replayed = False
            return rnd
        engine_game = _engine_game(rnd.game_code, rnd.game_version)
        forced = list(rnd.forced_draws_left) if rnd.forced_outcome else None
        source, rec = _rng_for(forced)
        clean_action = _jsonable(action)
        try:
            state = _clean_state(engine_game.act(copy.deepcopy(rnd.state), copy.deepcopy(clean_action), rec))
        except ActionError as exc:
            raise errors.from_engine(exc)
        except Exception as exc:  # an engine failure is a malfunction of this round
            if source is not None and source.mismatch:
                raise errors.QA_FORCED_INVALID(reason=source.mismatch)
            logger.exception("round %s: engine act failed", rnd.pk)
            _log_action(rnd, clean_action, idempotency_key=idempotency_key, draws=rec.draws, now=now)
            _void(rnd, reason=Round.VoidReason.MALFUNCTION, detail=f"act: {_describe_exc(exc)}", actor=actor,
                  now=now)
            rnd.replayed = False
            return rnd
        _log_action(rnd, clean_action, idempotency_key=idempotency_key, draws=rec.draws, now=now)
        rnd.state = state
        rnd.win_engine = state["win"]
        rnd.last_activity_at = now
        if source is not None:
            rnd.forced_draws_left = source.left()
        if rnd.play_money:
            rnd.jackpot_events = list(state.get("jackpot_events") or [])
        else:  # the game's own jackpot events (Kobushi's pick bonus), each decided once per round
            decided = jackpots.round_events(player=player, round_id=rnd.pk, game_code=rnd.game_code,
                                            bet_params=rnd.bet_params, engine_events=state.get("jackpot_events") or [],
                                            actor=actor)
            rnd.jackpot_events = _jackpot_events(state.get("jackpot_events") or [], rnd.jackpot_events, decided)
        if state["status"] == "finished":
            _settle(rnd, actor=actor, now=now)
        else:
            rnd.save()
    rnd.replayed = False
    return rnd


def _log_action(rnd: Round, action: JsonDict, *, idempotency_key: str, draws: list[list[int]],
                now: datetime) -> None:
    """Append an applied action and the draws it made to the round and keep it in the action log."""
    draws_before = len(rnd.draws)
    rnd.draws = rnd.draws + draws
    rnd.actions = rnd.actions + [action]
    RoundAction.objects.create(round=rnd, seq=len(rnd.actions) - 1, action=action, idempotency_key=idempotency_key,
                               draws_before=draws_before, draws_after=len(rnd.draws), created_at=now)


def round_refund(*, round_id: Any, reason: str, actor: Actor) -> Round:
    """Staff: end a round in progress and return its stake (status refunded), e.g. a stuck round after a
    complaint or a withdrawn game version. A settled bet placed on order or by proxy is voided by
    :func:`round_void_settled` (GP §3(6)); other finished rounds are remedied by complaints."""
    round_id = valid_round_id(round_id)
    with transaction.atomic():
        head = Round.objects.filter(pk=round_id).select_related("player").first()
        if head is None:
            raise errors.ROUND_NOT_FOUND()
        if not head.play_money:
            wallet_lock(player=head.player)
        rnd = Round.objects.select_for_update(no_key=True).select_related("player").get(pk=round_id)
        if rnd.status != Round.Status.IN_PROGRESS:
            raise errors.ROUND_NOT_REFUNDABLE(round_id=rnd.pk, round_status=rnd.status)
        _void(rnd, reason=Round.VoidReason.STAFF, detail=reason or "staff refund", actor=actor, now=clock.now(),
              status=Round.Status.REFUNDED)
    return rnd


def round_void_settled(*, round_id: Any, reason: str, actor: Actor) -> Round:
    """Staff: declare a settled bet void because it was placed on order or by proxy (GP §3(6)), and reverse it.

    In one transaction, under the player's wallet lock and the round's row lock:

    * the ledger: the stake goes back to the player (``wallet.stake_refund``) and then the win the round credited,
      jackpot part included, is taken back with a recorded notice (``wallet.win_deduct``) to the ``house`` account.
      A part of it the operator still holds (GP §10(3), a ``wallet.WinHold`` on the round's win or jackpot win) is
      taken from the hold first, and the hold ends (``forfeited``); only the rest comes from the live balance. When
      the player has spent or withdrawn that rest, the balance goes negative only as a debt due in 10 days (GP
      §7(7), §10(4)); until it is paid, stakes and withdrawals are refused. No debt is recorded for held money;
    * limits: the decided bet is taken out of the counters (``limits.settled_bet_voided``, GP §3(6)): stakes per
      day/month, net loss, the hourly-loss buckets and the player's statistics no longer count it;
    * jackpots: the round's contributions are reversed, and every award it paid goes back to its pool from the
      house, whole, even when the player owes it as a debt: the house carries the debt, not the other players
      (``jackpots.round_void(settled=True)``, GP §3(6));
    * the round: status ``voided``, ``void_reason`` ``proxy``, the reason, ``voided_at``; its stake, win and
      ``settled_at`` stay as they were settled (the record of what was played); one audit event.

    Refused: a round in progress or of play money (``game.round_not_settled``), a round already voided or
    refunded (``game.round_already_voided``, so a second void changes nothing), no reason."""
    round_id = valid_round_id(round_id)
    reason = str(reason or "").strip()
    if not reason:
        raise errors.VOID_REASON_REQUIRED()
    with transaction.atomic():
        head = Round.objects.filter(pk=round_id).select_related("player").first()
        if head is None:
            raise errors.ROUND_NOT_FOUND()
        if not head.play_money:
            wallet_lock(player=head.player)
        rnd = Round.objects.select_for_update(no_key=True).select_related("player").get(pk=round_id)
        if rnd.status in (Round.Status.VOIDED, Round.Status.REFUNDED):
            raise errors.ROUND_ALREADY_VOIDED(round_id=rnd.pk, round_status=rnd.status, void_reason=rnd.void_reason)
        if rnd.status != Round.Status.FINISHED or rnd.play_money:
            raise errors.ROUND_NOT_SETTLED(round_id=rnd.pk, round_status=rnd.status, play_money=rnd.play_money)
        now = clock.now()
        player, currency = rnd.player, rnd.currency
        balance_before = _balance(player)
        if rnd.stake > 0:
            stake_refund(player=player, amount=Money(rnd.stake, currency), reference=_ref(rnd, "void:stake"),
                         actor=actor)
        from_hold = 0
        if rnd.win > 0:
            # GP §10(3): what the operator still holds of this round's wins comes back from the hold first; only
            # the rest is taken from the live balance (a debt only for money the player really has spent)
            wins = [_ref(rnd, "win"), *round_award_win_references(rnd.pk)]
            from_hold = win_held_amount(player, wins).amount
            win_deduct(player=player, amount=Money(rnd.win, currency), reference=_ref(rnd, "void:win"),
                       reason=f"round {rnd.pk} declared void (GP §3(6)): {reason}"[:255],
                       notice_text=_void_notice(rnd, reason, from_hold=from_hold), actor=actor, win_references=wins)
        # GP §3(6): a void bet is no bet for the limits either (the limits state row locks before the pools)
        limits_bet = settled_bet_voided(player=player, kind=LIMITS_KIND, round_ref=_ref(rnd, "bet"), at=now)
        reversed_jp = jackpots.round_void(round_id=rnd.pk, actor=actor, settled=True)
        carried = carry.carry_restore(rnd=rnd, actor=actor, now=now)  # the state the round started from
        old_status = rnd.status
        rnd.status = Round.Status.VOIDED
        rnd.void_reason = Round.VoidReason.PROXY
        rnd.void_detail = reason[:2000]
        rnd.voided_at = now
        rnd.save(update_fields=["status", "void_reason", "void_detail", "voided_at"])
        balance_after = _balance(player)
        audit_record(actor=actor, action="games.round_voided_settled", obj=rnd,
                     old={"status": old_status}, new={"status": rnd.status, "void_reason": rnd.void_reason},
                     reason=reason[:2000], stake_returned=rnd.stake, win_reclaimed=rnd.win, win_from_hold=from_hold,
                     jackpot_win_returned_to_pools=reversed_jp["paid_returned_to_pools"],
                     balance_before=balance_before, balance_after=balance_after, debt=max(0, -balance_after),
                     jackpots=reversed_jp, limits_counters="reversed" if limits_bet is not None else "no bet to reverse",
                     carried_state=carried)
    return rnd


def _void_notice(rnd: Round, reason: str, *, from_hold: int = 0) -> str:
    """The notice of the deduction the player is sent (GP §7(7)), in Czech and English; it names the part of the
    win taken back from a hold (GP §10(3)), which never touched the player's balance."""
    stake, win = Money(rnd.stake, rnd.currency), Money(rnd.win, rnd.currency)
    held = Money(from_hold, rnd.currency)
    held_cs = (f" Z výhry bylo {held.format('cs')} pozdrženo (HP §10 odst. 3); tato částka se vrací z pozdržených "
               "prostředků a váš zůstatek nesnižuje." if from_hold else "")
    held_en = (f" {held.format('en')} of the win was held (GP §10(3)); that part comes back from the held funds and "
               "does not reduce your balance." if from_hold else "")
    return (f"Sázka v herním kole č. {rnd.pk} ({rnd.game_code}) byla prohlášena za neplatnou, protože byla uzavřena "
            f"na objednávku nebo v zastoupení (HP §3 odst. 6). Vklad {stake.format('cs')} vám byl vrácen a výhra "
            f"{win.format('cs')} odečtena.{held_cs} Důvod: {reason}\n"
            f"The bet of game round {rnd.pk} ({rnd.game_code}) was declared void because it was placed on order or "
            f"by proxy (GP §3(6)). The stake {stake.format('en')} was returned to you and the win "
            f"{win.format('en')} deducted.{held_en} Reason: {reason}")[:4000]


COLLECT = {"type": "collect"}


def _end_past_deadline(rnd: Round, *, actor: Actor, now: datetime, detail: str) -> None:
    """GP §7(8)b for one round past its deadline.

    A round waiting only for "gamble or collect" already holds its win, drawn and decided: collecting needs no
    draw and changes no result, so the round is completed by collecting (the player keeps the win instead of
    losing it to a stake refund). Any other unfinished round is ended and its stake returned."""
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
            _settle(rnd, actor=actor, now=now)
            return
    _void(rnd, reason=Round.VoidReason.DEADLINE, detail=detail, actor=actor, now=now)


def round_expire(*, round_id: int, now: datetime | None = None, actor: Actor | None = None) -> bool:
    """GP §7(8)b: end one round left unfinished past its game's deadline and return the stake (voided).

    Own transaction; locks in the house order (the player's wallet, then the round, skipping a round another
    worker holds). Returns False when there is nothing to do (already ended, not due, or claimed elsewhere)."""
    now = now or clock.now()
    actor = actor or Actor.system("games.sweeper")
    with transaction.atomic():
        head = (Round.objects.filter(pk=round_id, status=Round.Status.IN_PROGRESS, deadline__lte=now)
                .select_related("player").first())
        if head is None:
            return False
        if not head.play_money:
            wallet_lock(player=head.player)
        rnd = (Round.objects.select_for_update(skip_locked=True, no_key=True).select_related("player")
               .filter(pk=round_id, status=Round.Status.IN_PROGRESS, deadline__lte=now).first())
        if rnd is None:
            return False
        _end_past_deadline(rnd, actor=actor, now=now,
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
