"""The engine's adapter onto the one round path (:mod:`games.services.path`): a player's start button
(:func:`round_play`, real and play money) and actions (:func:`round_act`)."""

from __future__ import annotations

import logging
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import IntegrityError, transaction

from core import clock
from core.audit import Actor
from core.jsonable import deep_copy
from core.money import Money
from core.sql import new_instance
from games import carry, errors
from games import sql as games_sql
from games.engine import STATUS_AWAITING_ACTION, STATUS_FINISHED, ActionError, Bet, BetError, JsonDict
from games.engine import Game as EngineGame
from games.models import Game, Round, RoundAction
from games.services import path
from games.services.catalogue import game_row_of, offered_figures
from games.services.common import clean_state, currency, describe_exc, engine_game_of, jsonable
from games.services.qa import check_forced, rng_for
from games.validation import check_idempotency_key, check_request_json, valid_round_id
from jackpots import services as jackpots
from jackpots.levels import progressive_offered
from wallet.services import wallet_lock_live

if TYPE_CHECKING:
    from accounts.models import Player

logger = logging.getLogger("games")


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
        bet_obj = engine_game.validate_bet(deep_copy(bet))
    except BetError as exc:
        raise errors.from_engine(exc)
    except Exception:  # the engine could not read this bet: refuse (nothing taken), logged for ops
        logger.exception("validate_bet of %s v%s raised on a bet", engine_game.code, engine_game.version)
        raise errors.INVALID_BET(reason="the game could not read this bet")
    offered = own_jackpots_offered(engine_game)
    return bet_obj if offered is None else engine_game.with_jackpots_offered(bet_obj, offered)


def _replay_or_conflict(existing: Round, *, game_code: str, bet: object, play_money: bool) -> path.RoundResult:
    try:
        same_bet = existing.bet_request == jsonable(bet)
    except (TypeError, ValueError):
        same_bet = False
    if existing.game_code != game_code or existing.play_money != play_money or not same_bet:
        raise errors.IDEMPOTENCY_CONFLICT(round_id=existing.pk)
    return path.RoundResult(existing, replayed=True)


def _round_fields(
    player: Player,
    engine_game: EngineGame,
    game: Game,
    bet: JsonDict,
    bet_obj: Bet,
    idempotency_key: str,
    now: datetime,
    *,
    play_money: bool,
    forced: bool,
) -> dict[str, Any]:
    return dict(
        player=player,
        game=game,
        game_code=engine_game.code,
        game_version=engine_game.version,
        play_money=play_money,
        forced_outcome=forced,
        idempotency_key=idempotency_key,
        status=Round.Status.IN_PROGRESS,
        bet_request=jsonable(bet),
        bet_params=jsonable(bet_obj.params),
        stake=bet_obj.total_stake,
        currency=currency(),
        started_at=now,
        last_activity_at=now,
        deadline=clock.add_days(now, engine_game.declared.unfinished_deadline_days),
    )


class _EngineOpener:
    """The engine's round for the path: the player's bet on an engine game version."""

    def __init__(self, player: Player, engine_game: EngineGame, bet: JsonDict, key: str) -> None:
        self.player, self.engine_game, self.bet, self.key = player, engine_game, bet, key
        self.code, self.version = engine_game.code, engine_game.version
        self.bet_obj: Bet | None = None

    def replay(self, round_id: int) -> path.RoundResult:
        return _replay_or_conflict(Round.objects.get(pk=round_id), game_code=self.code, bet=self.bet, play_money=False)

    def game_row(self, found: Game | None) -> Game:
        return found if found is not None else game_row_of(self.engine_game)

    def new_round(self, row: Game, round_id: int, now: datetime) -> Round:
        self.bet_obj = _validate_bet(self.engine_game, self.bet)
        return new_instance(  # Round(...) without Model.__init__'s generic work (core.sql.new_instance)
            Round,
            id=round_id,
            **_round_fields(
                self.player,
                self.engine_game,
                row,
                self.bet,
                self.bet_obj,
                self.key,
                now,
                play_money=False,
                forced=False,
            ),
        )

    def max_bet(self, row: Game) -> Money:
        return Money(offered_figures(self.engine_game.declared)["max_bet"], currency())


def round_play(
    *,
    player: Player,
    game_code: str,
    bet: JsonDict,
    idempotency_key: str,
    actor: Actor,
    play_money: bool = False,
    forced_draws: list[list[int]] | None = None,
) -> Round:
    """Start a round (the start button, GP §7(6)) and run it as far as it goes without the player.

    Idempotent on (player, idempotency_key): a replay returns the same round (``round.replayed = True``) and moves
    nothing; the same key with another game or bet is refused. ``play_money=True`` plays without the wallet,
    limits or jackpots (for trying games); ``forced_draws`` (QA) feeds the given draws through the engine's
    ReplayRNG and is refused unless play money and settings.GAMES_QA_FORCED_OUTCOMES.

    Returns the round: ``finished`` (settled), ``in_progress`` (waits for round_act) or ``voided`` (malfunction:
    the stake was returned). A real-money round runs the one round path (:func:`games.services.path.open_round`,
    then the engine, then :func:`~games.services.path.start_decided`); its statement count is fixed
    (docs/games-platform.md "Cost of a round").
    """
    check_idempotency_key(idempotency_key)
    forced = check_forced(forced_draws, play_money)
    if not isinstance(bet, dict):
        raise errors.INVALID_BET(reason="the bet must be a JSON object")
    check_request_json(bet, errors.INVALID_BET)
    engine_game = engine_game_of(game_code)
    if play_money:
        return _round_play_money(
            player=player, engine_game=engine_game, bet=bet, idempotency_key=idempotency_key, actor=actor, forced=forced
        ).returned()
    opener = _EngineOpener(player, engine_game, bet, idempotency_key)
    with transaction.atomic():
        opened = path.open_round(opener, player=player, key=idempotency_key, actor=actor)
        if isinstance(opened, path.RoundResult):
            return opened.returned()
        rnd = opened.round
        assert opener.bet_obj is not None
        carry_in = carry.carry_start(
            player=player, engine_game=engine_game, play_money=False, locked=opened.locked, actor=actor, now=opened.now
        )  # a carry-over game's state (no statement else)
        state = _engine_start(rnd, engine_game, opener.bet_obj, None, actor=actor, now=opened.now, carry_in=carry_in)
        if state is not None:
            path.start_decided(
                opened, finished=state["status"] == STATUS_FINISHED, engine_events=state.get("jackpot_events") or []
            )
    return path.RoundResult(rnd).returned()


def _engine_start(
    rnd: Round,
    engine_game: EngineGame,
    bet_obj: Bet,
    forced: list[list[int]] | None,
    *,
    actor: Actor,
    now: datetime,
    carry_in: JsonDict | None = None,
) -> JsonDict | None:
    """Run the engine's start with the platform RNG (or QA's forced draws) and record the draws, state and win on
    the round. An engine failure is a malfunction of this round: it is voided with the stake returned and None is
    returned. Forced draws that do not fit the game are refused instead."""
    source, rec = rng_for(forced)
    try:
        state = clean_state(engine_game.start_carried(bet_obj, rec, carry_in))
    except Exception as exc:  # an engine failure is a malfunction of this round
        if source is not None and source.mismatch:
            raise errors.QA_FORCED_INVALID(reason=source.mismatch)
        logger.exception("round %s: engine start of %s v%s failed", rnd.pk, engine_game.code, engine_game.version)
        rnd.draws = rec.draws
        path.void(rnd, reason=Round.VoidReason.MALFUNCTION, detail=f"start: {describe_exc(exc)}", actor=actor, now=now)
        return None
    rnd.draws = rec.draws
    rnd.state = state
    rnd.win_engine = state["win"]
    if source is not None:
        rnd.forced_draws_left = source.left()
    return state


def _round_play_money(
    *,
    player: Player,
    engine_game: EngineGame,
    bet: JsonDict,
    idempotency_key: str,
    actor: Actor,
    forced: list[list[int]] | None,
) -> path.RoundResult:
    """A play-money round: no money, limits or jackpots; QA forced draws where enabled. It takes the player's
    wallet lock all the same, so that a play-money and a real-money start under one Idempotency-Key are serialised
    and the second is a clean ``idempotency.conflict`` (never a unique-claim failure)."""
    with transaction.atomic():
        wallet_lock_live(player=player)
        existing = Round.objects.filter(player=player, idempotency_key=idempotency_key).first()
        if existing is not None:
            return _replay_or_conflict(existing, game_code=engine_game.code, bet=bet, play_money=True)
        now = clock.now()
        open_round = (
            Round.objects.select_for_update(no_key=True)
            .filter(player=player, play_money=True, status=Round.Status.IN_PROGRESS)
            .first()
        )
        if open_round is not None:
            if open_round.deadline > now:
                raise errors.ROUND_IN_PROGRESS(round_id=open_round.pk, game=open_round.game_code)
            path.end_at_deadline(
                open_round,
                locked=None,
                actor=Actor.system("games.deadline"),
                now=now,
                detail="ended at the next start after the deadline",
            )
        row = game_row_of(engine_game)
        path.refuse_unoffered(row)
        bet_obj = _validate_bet(engine_game, bet)
        fields = _round_fields(
            player, engine_game, row, bet, bet_obj, idempotency_key, now, play_money=True, forced=forced is not None
        )
        try:
            with transaction.atomic():
                rnd = Round.objects.create(**fields)
        except IntegrityError:
            # A concurrent twin (play money runs without the wallet lock) won the unique index.
            existing = Round.objects.filter(player=player, idempotency_key=idempotency_key).first()
            if existing is not None:
                return _replay_or_conflict(existing, game_code=engine_game.code, bet=bet, play_money=True)
            raise errors.ROUND_IN_PROGRESS()
        carry_in = carry.carry_start(
            player=player, engine_game=engine_game, play_money=True, locked=None, actor=actor, now=now
        )
        state = _engine_start(rnd, engine_game, bet_obj, forced, actor=actor, now=now, carry_in=carry_in)
        if state is None:
            return path.RoundResult(rnd)
        rnd.jackpot_events = list(state.get("jackpot_events") or [])
        path.audit_started(rnd, actor=actor, status=state["status"])
        if state["status"] == STATUS_FINISHED:
            path.settle(rnd, locked=None, actor=actor, now=now)
        else:
            rnd.save()
    return path.RoundResult(rnd)


def round_act(*, player: Player, round_id: Any, action: JsonDict, idempotency_key: str, actor: Actor) -> Round:
    """Continue an interactive round (pick bonus, free spins, gamble) with one player action, or with
    ``{"type": "play_through"}`` (:data:`PLAY_THROUGH`): every consecutive step that offers exactly one option
    (a free spin) played in this one request.

    The player's choice never changes the result (GP §7(3); the engine drew it before offering the choice).
    When the round finishes it is settled as in round_play. Idempotent on (round, idempotency_key). Past the
    game's deadline the round is ended by the one deadline path (GP §7(8)b). An engine failure voids the round and
    returns the stake (malfunction).
    """
    check_idempotency_key(idempotency_key)
    if not isinstance(action, dict):
        raise errors.INVALID_ACTION(reason="the action must be a JSON object")
    check_request_json(action, errors.INVALID_ACTION)
    round_id = valid_round_id(round_id)
    with transaction.atomic():
        result = _act(player=player, round_id=round_id, action=action, idempotency_key=idempotency_key, actor=actor)
    return result.returned()


# The platform's own action: play every consecutive single-option step of the round (a free spin decides nothing
# the player chooses) under ONE round lock, ONE round write and, when the round ends, the one settlement. Each step
# is applied exactly as its own request would apply it (the same engine call, the same draws in the same order, the
# same jackpot decisions), so how the player plays never changes the result or the game's return. The action log
# keeps one row per step, marked ``"play_through": true``; the request's Idempotency-Key is on the first, the others
# carry it with a tab and their sequence number (a tab is never in a client's key: keys are printable).
PLAY_THROUGH: JsonDict = {"type": "play_through"}
PLAY_THROUGH_STEPS_MAX = 1_000  # steps one request plays; a longer run waits at the next step for the next request
_STEP_KEY_SEP = "\t"


def _single_option(state: JsonDict | None) -> JsonDict | None:
    """The one option of a step that offers exactly one (no choice), else None."""
    pending = (state or {}).get("pending") if (state or {}).get("status") == STATUS_AWAITING_ACTION else None
    options = pending.get("options") if isinstance(pending, dict) else None
    return (
        dict(options[0]) if isinstance(options, list) and len(options) == 1 and isinstance(options[0], dict) else None
    )


def _replayed_or_refused(held: path.LockedRound, action: JsonDict, *, through: bool) -> bool:
    """True when the Idempotency-Key's action was applied already (the same request again: a replay); refuses
    another action under that key, a round that has ended and a studio's round."""
    rnd, done = held.round, held.keyed
    if done is not None:
        if through:
            same = isinstance(done.action, dict) and bool(done.action.get("play_through"))
        else:
            same = done.action == jsonable(action)
        if not same:
            raise errors.IDEMPOTENCY_CONFLICT(round_id=rnd.pk)
        return True
    if rnd.status != Round.Status.IN_PROGRESS:
        raise errors.ROUND_NOT_IN_PROGRESS(round_id=rnd.pk, round_status=rnd.status)
    if rnd.provider_round_id:  # a studio's round is played at its studio, not by actions here
        raise errors.REMOTE_ROUND_NO_ENGINE(round_id=rnd.pk, provider_round_id=rnd.provider_round_id)
    return False


def _act(*, player: Player, round_id: int, action: JsonDict, idempotency_key: str, actor: Actor) -> path.RoundResult:
    held = path.lock_round(round_id, player=player, key=idempotency_key)
    if held is None:
        raise errors.ROUND_NOT_FOUND()
    rnd, locked = held.round, held.wallet
    through = action == PLAY_THROUGH
    if _replayed_or_refused(held, action, through=through):
        return path.RoundResult(rnd, replayed=True)
    now = clock.now()
    if now >= rnd.deadline:
        path.end_at_deadline(
            rnd, locked=locked, actor=Actor.system("games.deadline"), now=now, detail="action after the deadline"
        )
        return path.RoundResult(rnd)
    step = _single_option(rnd.state) if through else jsonable(action)
    if step is None:
        pending = (rnd.state or {}).get("pending") or {}
        raise errors.PLAY_THROUGH_CHOICE(
            round_id=rnd.pk, pending=pending.get("type"), options=len(pending.get("options") or [])
        )
    engine_game = engine_game_of(rnd.game_code, rnd.game_version)
    forced = list(rnd.forced_draws_left) if rnd.forced_outcome else None
    source, rec = rng_for(forced)
    applied: list[RoundAction] = []
    while step is not None:
        drawn = len(rec.draws)
        key = idempotency_key if not applied else f"{idempotency_key[:120]}{_STEP_KEY_SEP}{len(rnd.actions)}"
        logged = {**step, "play_through": True} if through else step
        try:
            state = clean_state(engine_game.act(deep_copy(rnd.state), deep_copy(step), rec))
        except ActionError as exc:
            raise errors.from_engine(exc)
        except Exception as exc:  # an engine failure is a malfunction of this round
            if source is not None and source.mismatch:
                raise errors.QA_FORCED_INVALID(reason=source.mismatch)
            logger.exception("round %s: engine act failed", rnd.pk)
            applied.append(_log_action(rnd, step, logged=logged, idempotency_key=key, draws=rec.draws[drawn:], now=now))
            RoundAction.objects.bulk_create(applied)
            path.void(
                rnd, reason=Round.VoidReason.MALFUNCTION, detail=f"act: {describe_exc(exc)}", actor=actor, now=now
            )
            return path.RoundResult(rnd)
        applied.append(_log_action(rnd, step, logged=logged, idempotency_key=key, draws=rec.draws[drawn:], now=now))
        _applied_state(rnd, state, player=player, actor=actor, now=now)
        step = _single_option(state) if through and len(applied) < PLAY_THROUGH_STEPS_MAX else None
    if source is not None:
        rnd.forced_draws_left = source.left()
    if len(applied) > 1:  # the steps before the last in ONE insert; the last is written with the round
        RoundAction.objects.bulk_create(applied[:-1])
        for row in applied[:-1]:
            games_sql.action_log_append(rnd, row)
    if rnd.state["status"] == STATUS_FINISHED:
        path.settle(rnd, locked=locked, actor=actor, now=now, action=applied[-1])
    else:  # the action and the round in ONE statement (games/sql.py ROUND_WRITE)
        games_sql.round_write(rnd, action=applied[-1])
        games_sql.action_log_append(rnd, applied[-1])
    return path.RoundResult(rnd)


def _applied_state(rnd: Round, state: JsonDict, *, player: Player, actor: Actor, now: datetime) -> None:
    """The round after one applied step: its state and win, and the game's own jackpot events decided."""
    rnd.state = state
    rnd.win_engine = state["win"]
    rnd.last_activity_at = now
    if rnd.play_money:
        rnd.jackpot_events = list(state.get("jackpot_events") or [])
    else:  # the game's own jackpot events (Kobushi's pick bonus), each decided once per round
        decided = jackpots.round_events(
            player=player,
            round_id=rnd.pk,
            game_code=rnd.game_code,
            bet_params=rnd.bet_params,
            engine_events=state.get("jackpot_events") or [],
            actor=actor,
            known=_decided_event_keys(rnd),
        )
        rnd.jackpot_events = path.jackpot_events(state.get("jackpot_events") or [], rnd.jackpot_events, decided)


def _decided_event_keys(rnd: Round) -> set[str]:
    """The game events of this round whose jackpot award is decided already (on the round's record)."""
    return {str(ev.get("event")) for ev in rnd.jackpot_events or [] if ev.get("type") == "jackpot_award"}


def _log_action(
    rnd: Round,
    action: JsonDict,
    *,
    idempotency_key: str,
    draws: list[list[int]],
    now: datetime,
    logged: JsonDict | None = None,
) -> RoundAction:
    """Append an applied action and the draws it made to the round; returns its action-log row (recording
    ``logged``, by default the action), not saved yet (the caller writes it with the round)."""
    draws_before = len(rnd.draws)
    rnd.draws = rnd.draws + draws
    rnd.actions = rnd.actions + [action]
    return RoundAction(
        round=rnd,
        seq=len(rnd.actions) - 1,
        action=action if logged is None else logged,
        idempotency_key=idempotency_key,
        draws_before=draws_before,
        draws_after=len(rnd.draws),
        created_at=now,
    )
