"""Rounds of remote games (issue 23): an outside studio's game played through the seamless-wallet API (providers).

The provider draws the outcome; the platform keeps the rules. Each call runs the ONE round path of
:mod:`games.services.rounds` and :mod:`games.services.settle` under the player's wallet lock (always first):

* :func:`remote_bet` opens the platform round of the provider's ``round_id``: the round context (games/sql.py
  START_CONTEXT: the round with this key, the open round, the last start, the new id, in one statement), GP §7(6)
  one open round per player across every game and provider (``_refuse_open_round`` and the partial unique claim
  ``games_round_one_open_per_player``), GP §7(9) the 2-second spacing (``_refuse_too_soon``), GP §13(6) an enabled,
  approved game (``_refuse_unoffered``), the limits' stake gate (account state, exclusion, panic, AML, the 120/15
  break, the stake range and grid and the game's offered max bet, self-limits, hourly loss), the stake debit
  (GP §7(3)), the central jackpots' contribution (``jackpots.round_start``) and the limits' open bet. A bet with
  ``closed=True`` is a one-shot losing round: settled at once with win 0.
* :func:`remote_win` credits a win at once, within what GP §8(3) (the max win per round, on the round's total win)
  leaves: a win above it is credited up to the cap and the round records ``win_capped``. Several wins add up.
  ``closed=True`` settles the round (:func:`remote_round_end`).
* :func:`remote_rollback` cancels the bet: the stake comes back and the round is voided (``_void``, reason
  ``provider``: the provider is not told back). Refused after a win or once the round is settled.
* :func:`remote_round_end` settles the round (``_finish``: the cap, the jackpots' awards, the limits' decided bet).

A round of a remote game takes ONE bet: a second bet on the same provider round is refused
(``game.remote_bet_exists``). The round's idempotency key is ``provider:<provider>:<round id>`` (unique per player
through the claim ``games_round_unique_player_key``). What the provider sent is kept on the round's ``state.remote``
(the recall shows it). Exactly-once per provider transaction is the caller's (providers.ProviderTransaction); these
services run inside the caller's transaction when there is one (``savepoint=False``), so the caller's record of the
call commits with the movement or not at all. No network call here.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from django.db import transaction

from core import clock
from core.audit import Actor
from core.money import Money
from games import errors
from games import sql as games_sql
from games.models import Game, Round
from games.services.common import LIMITS_KIND, _currency, _ref, _round_lock
from games.services.rounds import _audit_started, _refuse_open_round, _refuse_too_soon, _refuse_unoffered
from games.services.settle import _finish, _jackpot_events, _settle_at_once, _void
from jackpots import services as jackpots
from limits.services import max_win_per_round, stake_gate, stake_placed
from wallet.services import LockedWallet, round_stake_debit, round_win_credit, wallet_lock_live

if TYPE_CHECKING:
    from accounts.models import Player

MAX_ROUND_ID = 100  # the provider's round id (Round.provider_round_id)


@dataclass
class RemoteResult:
    """What a remote call did: the round, the player's balance after (haléře) and the amount this call moved (the
    win credited, within the cap; the stake returned by a rollback; 0 otherwise)."""

    round: Round
    balance: int
    moved: int = 0
    capped: bool = False


def remote_key(provider: str, round_id: str) -> str:
    """The round's idempotency key: a provider's round id is unique per player (games_round_unique_player_key)."""
    return f"provider:{provider}:{round_id}"


def _amount(amount: Money, *, allow_zero: bool) -> int:
    if not isinstance(amount, Money) or amount.currency != _currency():
        raise errors.REMOTE_INVALID_AMOUNT(reason="not an amount in the platform's currency")
    if amount.amount < 0 or (amount.amount == 0 and not allow_zero):
        raise errors.REMOTE_INVALID_AMOUNT(reason="the amount must be positive", amount=amount.amount)
    return amount.amount


def _remote_state(rnd: Round) -> dict[str, Any]:
    return dict((rnd.state or {}).get("remote") or {})


def _win_ref(rnd: Round, seq: int) -> str:
    """The wallet reference of the win the round's call number ``seq`` credited (its index in
    ``state.remote.transactions``): each win of a remote round is its own ``win`` posting."""
    return _ref(rnd, f"win:{seq}")


def remote_win_references(rnd: Round) -> list[str]:
    """The wallet references of every win the round's calls credited (an empty list for an engine round): what a
    GP §10(3) hold on a win of the round names (``wallet.win_hold_place`` holds one posting), so what a void of the
    round (``round_void_settled``) takes back from a hold first."""
    return [_win_ref(rnd, seq) for seq, t in enumerate(_remote_state(rnd).get("transactions", []))
            if t.get("type") == "win" and int(t.get("credited", 0) or 0) > 0]


def _record(rnd: Round, kind: str, transaction_id: str, amount: int, now: datetime, **more: Any) -> None:
    """Append the provider's call to the round's record (shown by the recall)."""
    remote = _remote_state(rnd)
    remote["transactions"] = [*remote.get("transactions", []),
                              {"type": kind, "transaction_id": transaction_id, "amount": amount,
                               "at": now.isoformat(), **more}]
    rnd.state = {**(rnd.state or {}), "remote": remote}


def remote_bet(*, player: Player, game: Game, round_id: str, transaction_id: str, amount: Money, closed: bool,
               actor: Actor) -> RemoteResult:
    """Open the platform round of the provider's ``round_id`` with its one bet (module docstring). Raises the
    refusal of the first rule that refuses; nothing is moved then."""
    if not game.remote:
        raise errors.REMOTE_GAME_INVALID(game=game.code)
    if not isinstance(round_id, str) or not 0 < len(round_id) <= MAX_ROUND_ID:
        raise errors.REMOTE_INVALID_AMOUNT(reason="round_id must be 1-100 characters")
    stake = Money(_amount(amount, allow_zero=False), _currency())
    key = remote_key(game.provider, round_id)
    with transaction.atomic(savepoint=False):
        locked = wallet_lock_live(player=player)  # every money and limit decision of this player runs under it
        game_row, keyed_id, open_id, last_started, new_id = games_sql.start_context(
            code=game.code, version=game.version, player_id=player.pk, key=key, play_money=False)
        if keyed_id is not None:
            raise errors.REMOTE_BET_EXISTS(round_id=keyed_id, provider_round_id=round_id)
        now = clock.now()
        if open_id is not None:
            _refuse_open_round(player, False, now)  # GP §7(6), across every game and provider
            locked = wallet_lock_live(player=player)  # an ended round's stake came back: read the balance again
        _refuse_too_soon(last_started, now)  # GP §7(9)
        row = game_row or game
        _refuse_unoffered(row)  # GP §13(6)
        rnd = Round(id=new_id, player=player, game=row, game_code=game.code, game_version=game.version,
                    play_money=False, idempotency_key=key, provider_round_id=round_id,
                    status=Round.Status.IN_PROGRESS, bet_request={"transaction_id": transaction_id,
                                                                  "amount": stake.amount},
                    bet_params={}, stake=stake.amount, currency=stake.currency, started_at=now, last_activity_at=now,
                    deadline=clock.add_days(now, game.unfinished_deadline_days),
                    state={"status": "in_progress", "win": 0, "steps": [],
                           "remote": {"provider": game.provider, "round_id": round_id,
                                      "game": game.provider_game_id, "transactions": []}})
        _record(rnd, "bet", transaction_id, stake.amount, now)
        gate = stake_gate(player=player, kind=LIMITS_KIND, stake=stake, game_code=game.code,
                          game_max_bet=Money(game.max_bet, stake.currency), now=now, round_ref=_ref(rnd, "bet"))
        rnd.balance_before = locked.balance
        round_stake_debit(locked=locked, amount=stake, reference=_ref(rnd, "stake"), actor=actor)  # GP §7(3)
        jp = jackpots.round_start(player=player, round_id=rnd.pk, game_code=game.code, stake=stake.amount,
                                  finished=closed, engine_win=0, actor=actor)
        rnd.jackpot_events = _jackpot_events([], jp.events, [])
        if closed:  # a losing one-shot round: settled at once with win 0
            rnd.state = {**rnd.state, "status": "finished"}
            _settle_at_once(rnd, gate=gate, locked=locked, awards=jp.awards, actor=actor, now=now)
        else:
            stake_placed(gate=gate, round_ref=_ref(rnd, "bet"))
            rnd.save(force_insert=True)
            _audit_started(rnd, actor=actor, status=Round.Status.IN_PROGRESS)
    rnd.replayed = False
    return RemoteResult(round=rnd, balance=locked.balance)


def _held(player: Player, round_pk: int) -> tuple[Round, LockedWallet]:
    """The player's wallet, then the round (the house lock order), in ONE statement (games/sql.py ROUND_LOCK)."""
    held = _round_lock(round_pk, player=player)
    if held is None or held.wallet is None or not held.round.provider_round_id:
        raise errors.ROUND_NOT_FOUND()
    return held.round, held.wallet


def _refuse_ended(rnd: Round) -> None:
    if rnd.status in (Round.Status.VOIDED, Round.Status.REFUNDED):
        raise errors.REMOTE_ROUND_VOIDED(round_id=rnd.pk, round_status=rnd.status, void_reason=rnd.void_reason)
    if rnd.status != Round.Status.IN_PROGRESS:
        raise errors.REMOTE_ROUND_CLOSED(round_id=rnd.pk, round_status=rnd.status)


def _settle_remote(rnd: Round, *, locked: LockedWallet, actor: Actor, now: datetime) -> None:
    """Settle with the wins credited so far (``_finish``: the GP §8(3) cap on the total, the jackpots' awards decided
    at the bet, the limits' decided bet, the round and its audit event in one statement)."""
    rnd.state = {**(rnd.state or {}), "status": "finished", "win": rnd.win_engine}
    _finish(rnd, actor=actor, now=now, locked=locked, gate=None, awards=None, action=None, credited=rnd.win)


def remote_win(*, player: Player, round_pk: int, transaction_id: str, amount: Money, closed: bool,
               actor: Actor) -> RemoteResult:
    """Credit a win of the provider to its round, at once, within what the GP §8(3) cap on the round's total win
    leaves (``RemoteResult.moved`` is what was credited, ``capped`` whether the cap cut it); ``closed`` settles the
    round. A win of 0 is valid (it may close the round)."""
    won = _amount(amount, allow_zero=True)
    with transaction.atomic(savepoint=False):
        rnd, locked = _held(player, round_pk)
        _refuse_ended(rnd)
        now = clock.now()
        credit = min(won, max(max_win_per_round().amount - rnd.win, 0))  # GP §8(3) on the round's total
        seq = len(_remote_state(rnd).get("transactions", []))
        round_win_credit(locked=locked, player=player, amount=Money(credit, rnd.currency),
                         reference=_win_ref(rnd, seq), actor=actor)
        rnd.win_engine += won
        rnd.win += credit
        rnd.win_capped = rnd.win_capped or credit < won
        rnd.last_activity_at = now
        _record(rnd, "win", transaction_id, won, now, credited=credit)
        rnd.state = {**rnd.state, "win": rnd.win_engine}
        if closed:
            _settle_remote(rnd, locked=locked, actor=actor, now=now)
        else:
            games_sql.round_write(rnd)
    return RemoteResult(round=rnd, balance=locked.balance, moved=credit, capped=credit < won)


def remote_round_end(*, player: Player, round_pk: int, transaction_id: str, actor: Actor) -> RemoteResult:
    """Settle the round with the wins credited so far. A round already settled is left as it is (the provider's
    round-end after a closing win); a voided one is refused."""
    with transaction.atomic(savepoint=False):
        rnd, locked = _held(player, round_pk)
        if rnd.status == Round.Status.FINISHED:
            return RemoteResult(round=rnd, balance=locked.balance)
        _refuse_ended(rnd)
        now = clock.now()
        _record(rnd, "round_end", transaction_id, 0, now)
        _settle_remote(rnd, locked=locked, actor=actor, now=now)
    return RemoteResult(round=rnd, balance=locked.balance)


def remote_rollback(*, player: Player, round_pk: int, transaction_id: str, actor: Actor) -> RemoteResult:
    """Cancel the round's bet: the stake comes back, the round is voided (reason ``provider``). Refused after a win
    (even of 0) or once the round is settled (``game.remote_rollback_after_win``); a round already voided is left as
    it is (nothing moves)."""
    with transaction.atomic(savepoint=False):
        rnd, locked = _held(player, round_pk)
        if rnd.status in (Round.Status.VOIDED, Round.Status.REFUNDED):
            return RemoteResult(round=rnd, balance=locked.balance)
        wins = [t for t in _remote_state(rnd).get("transactions", []) if t.get("type") == "win"]
        if rnd.status != Round.Status.IN_PROGRESS or wins:
            raise errors.REMOTE_ROLLBACK_AFTER_WIN(round_id=rnd.pk, round_status=rnd.status, wins=len(wins))
        now = clock.now()
        _record(rnd, "rollback", transaction_id, rnd.stake, now)
        _void(rnd, reason=Round.VoidReason.PROVIDER, detail=f"rollback {transaction_id} from the provider"[:2000],
              actor=actor, now=now)
    return RemoteResult(round=rnd, balance=rnd.balance_after if rnd.balance_after is not None else locked.balance,
                        moved=rnd.stake)
