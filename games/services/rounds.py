"""The round lifecycle: start (round_play), play money, the player's actions (round_act)."""
from __future__ import annotations

import copy
import logging
import math
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from games import carry, errors
from games import sql as games_sql
from games.engine import (
    ActionError,
    Bet,
    BetError,
    JsonDict,
)
from games.engine import Game as EngineGame
from games.models import Game, Round, RoundAction
from games.services.catalogue import _game_row, offered_figures
from games.services.common import (
    LIMITS_KIND,
    _clean_state,
    _currency,
    _describe_exc,
    _engine_game,
    _jsonable,
    _ref,
    _round_lock,
    min_round_seconds,
)
from games.services.deadlines import _end_past_deadline
from games.services.qa import _check_forced, _rng_for
from games.services.settle import _jackpot_events, _settle, _settle_at_once, _void
from games.validation import check_idempotency_key, check_request_json, valid_round_id
from jackpots import services as jackpots
from jackpots.levels import progressive_offered
from limits.services import (
    stake_gate,
    stake_placed,
)
from wallet.services import (
    round_stake_debit,
    wallet_lock_live,
)

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("games")

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


def _start_context(player: Player, engine_game: EngineGame, idempotency_key: str,
                   play_money: bool) -> tuple[Game | None, int | None, int | None, datetime | None, int]:
    """(the game's catalogue row, the round with this key, the round in progress, the last real-money start, the
    id for a new round) in ONE statement (``games/sql.py`` START_CONTEXT), whatever the player's history. The game
    row carries only what a round needs (its switch, its approval and the names the round shows; the rest is
    deferred). Taking the new round's id here lets the round be written once, when its outcome is known (an id
    taken for a refused start is a gap)."""
    return games_sql.start_context(code=engine_game.code, version=engine_game.version, player_id=player.pk,
                                   key=idempotency_key, play_money=play_money)


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
            _settle(rnd, actor=actor, now=now, locked=None)
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
        held = _round_lock(round_id, player=player, key=idempotency_key)
        if held is None:
            raise errors.ROUND_NOT_FOUND()
        rnd, locked, done = held.round, held.wallet, held.keyed
        if done is not None:
            if done.action != _jsonable(action):
                raise errors.IDEMPOTENCY_CONFLICT(round_id=rnd.pk)
            rnd.replayed = True
            return rnd
        if rnd.status != Round.Status.IN_PROGRESS:
            raise errors.ROUND_NOT_IN_PROGRESS(round_id=rnd.pk, round_status=rnd.status)
        if rnd.provider_round_id:  # a remote game's round is played at its provider (issue 23), not by actions here
            raise errors.REMOTE_ROUND_NO_ENGINE(round_id=rnd.pk, provider_round_id=rnd.provider_round_id)
        now = clock.now()
        if now >= rnd.deadline:
            _end_past_deadline(rnd, actor=Actor.system("games.deadline"), now=now, detail="action after the deadline",
                               locked=locked)
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
            _log_action(rnd, clean_action, idempotency_key=idempotency_key, draws=rec.draws, now=now).save()
            _void(rnd, reason=Round.VoidReason.MALFUNCTION, detail=f"act: {_describe_exc(exc)}", actor=actor,
                  now=now)
            rnd.replayed = False
            return rnd
        applied = _log_action(rnd, clean_action, idempotency_key=idempotency_key, draws=rec.draws, now=now)
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
                                            actor=actor, known=_decided_event_keys(rnd))
            rnd.jackpot_events = _jackpot_events(state.get("jackpot_events") or [], rnd.jackpot_events, decided)
        if state["status"] == "finished":
            _settle(rnd, actor=actor, now=now, locked=locked, action=applied)
        else:  # the action and the round in ONE statement (games/sql.py ROUND_WRITE)
            games_sql.round_write(rnd, action=applied)
            games_sql.action_log_append(rnd, applied)
    rnd.replayed = False
    return rnd


def _decided_event_keys(rnd: Round) -> set[str]:
    """The game events of this round whose jackpot award is decided already (on the round's record)."""
    return {str(ev.get("event")) for ev in rnd.jackpot_events or [] if ev.get("type") == "jackpot_award"}


def _log_action(rnd: Round, action: JsonDict, *, idempotency_key: str, draws: list[list[int]],
                now: datetime) -> RoundAction:
    """Append an applied action and the draws it made to the round; returns its action-log row, not saved yet
    (the caller writes it with the round)."""
    draws_before = len(rnd.draws)
    rnd.draws = rnd.draws + draws
    rnd.actions = rnd.actions + [action]
    return RoundAction(round=rnd, seq=len(rnd.actions) - 1, action=action, idempotency_key=idempotency_key,
                       draws_before=draws_before, draws_after=len(rnd.draws), created_at=now)
