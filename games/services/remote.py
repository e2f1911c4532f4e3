"""The studio's adapter onto the one round path (:mod:`games.services.path`): an outside studio's game played
through the seamless-wallet API (providers).

The studio draws the outcome; the platform keeps the rules. Each call runs under the player's wallet lock (always
first):

* :func:`remote_bet` opens the platform round of the studio's ``round_id`` through
  :func:`~games.services.path.open_round`, the same start as an engine round (every GP check, in the same order),
  then :func:`~games.services.path.start_decided`. A bet with ``closed=True`` is a one-shot losing round: settled
  at once with win 0.
* :func:`remote_win` credits a win at once, within what GP §8(3) (the max win per round, on the round's total win)
  leaves: a win above it is credited up to the cap and the round records ``win_capped``. Several wins add up.
  ``closed=True`` settles the round (:func:`remote_round_end`).
* :func:`remote_play` is a one-shot round in one call (the bet, the studio's outcome and its win), opened and
  decided at once, as an engine round that settles at once.
* :func:`remote_rollback` cancels the bet: the stake comes back and the round is voided
  (:func:`~games.services.path.void`, reason ``provider``: the studio is not told back). Refused after a win or
  once the round is settled.
* :func:`remote_round_end` settles the round (:func:`~games.services.path.settle`: the cap, the jackpots' awards,
  the limits' decided bet) and keeps the studio's record of the round (its outcome, or a reference to the studio's
  history with its hash, GP §11(5)).

A round of a studio's game takes ONE bet: a second bet on the same studio round is refused
(``game.remote_bet_exists``). The round's idempotency key is ``provider:<provider>:<round id>`` (unique per player
through the claim ``games_round_unique_player_key``). What the studio sent is kept on the round's ``state.remote``
(the recall shows it). Exactly-once per studio transaction is the caller's (providers.ProviderTransaction); these
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
from games.engine import JsonDict
from games.models import Game, Round
from games.services import path
from games.services.common import currency, round_ref
from limits.services import max_win_per_round
from wallet.services import LockedWallet, round_win_credit

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
    if not isinstance(amount, Money) or amount.currency != currency():
        raise errors.REMOTE_INVALID_AMOUNT(reason="not an amount in the platform's currency")
    if amount.amount < 0 or (amount.amount == 0 and not allow_zero):
        raise errors.REMOTE_INVALID_AMOUNT(reason="the amount must be positive", amount=amount.amount)
    return amount.amount


def _remote_state(rnd: Round) -> dict[str, Any]:
    return dict((rnd.state or {}).get("remote") or {})


def _win_ref(rnd: Round, seq: int) -> str:
    """The wallet reference of the win the round's call number ``seq`` credited (its index in
    ``state.remote.transactions``): each win of a remote round is its own ``win`` posting."""
    return round_ref(rnd, f"win:{seq}")


def remote_win_references(rnd: Round) -> list[str]:
    """The wallet references of every win the round's calls credited (an empty list for an engine round): what a
    GP §10(3) hold on a win of the round names (``wallet.win_hold_place`` holds one posting), so what a void of the
    round (``round_void_settled``) takes back from a hold first."""
    return [
        round_ref(rnd, t["posting"]) if t.get("posting") else _win_ref(rnd, seq)
        for seq, t in enumerate(_remote_state(rnd).get("transactions", []))
        if t.get("type") == "win" and int(t.get("credited", 0) or 0) > 0
    ]


def _record(rnd: Round, kind: str, transaction_id: str, amount: int, now: datetime, **more: Any) -> None:
    """Append the provider's call to the round's record (shown by the recall)."""
    remote = _remote_state(rnd)
    remote["transactions"] = [
        *remote.get("transactions", []),
        {"type": kind, "transaction_id": transaction_id, "amount": amount, "at": now.isoformat(), **more},
    ]
    rnd.state = {**(rnd.state or {}), "remote": remote}


class _StudioOpener:
    """A studio's bet for the path: its round id, its one bet and the amount it stakes."""

    def __init__(self, player: Player, game: Game, round_id: str, transaction_id: str, stake: Money) -> None:
        self.player, self.game, self.round_id, self.transaction_id, self.stake = (
            player,
            game,
            round_id,
            transaction_id,
            stake,
        )
        self.code, self.version = game.code, game.version

    def replay(self, round_id: int) -> path.RoundResult:
        raise errors.REMOTE_BET_EXISTS(round_id=round_id, provider_round_id=self.round_id)

    def game_row(self, found: Game | None) -> Game:
        return found or self.game

    def new_round(self, row: Game, round_id: int, now: datetime) -> Round:
        game = self.game
        rnd = Round(
            id=round_id,
            player=self.player,
            game=row,
            game_code=game.code,
            game_version=game.version,
            play_money=False,
            idempotency_key=remote_key(game.provider, self.round_id),
            provider_round_id=self.round_id,
            status=Round.Status.IN_PROGRESS,
            bet_request={"transaction_id": self.transaction_id, "amount": self.stake.amount},
            bet_params={},
            stake=self.stake.amount,
            currency=self.stake.currency,
            started_at=now,
            last_activity_at=now,
            deadline=clock.add_days(now, game.unfinished_deadline_days),
            state={
                "status": "in_progress",
                "win": 0,
                "steps": [],
                "remote": {
                    "provider": game.provider,
                    "round_id": self.round_id,
                    "game": game.provider_game_id,
                    "transactions": [],
                },
            },
        )
        _record(rnd, "bet", self.transaction_id, self.stake.amount, now)
        return rnd

    def max_bet(self, row: Game) -> Money:
        return Money(self.game.max_bet, self.stake.currency)


def _keep_detail(rnd: Round, detail: JsonDict | None, now: datetime) -> None:
    """Keep the studio's record of the round on it (GP §11(5)): its outcome and/or the reference to its history
    with the hash of that record (``providers`` checked the shape), with the instant it came."""
    if detail is None:
        return
    remote = _remote_state(rnd)
    remote["detail"] = {**detail, "received_at": now.isoformat()}
    rnd.state = {**(rnd.state or {}), "remote": remote}


def remote_bet(
    *,
    player: Player,
    game: Game,
    round_id: str,
    transaction_id: str,
    amount: Money,
    closed: bool,
    actor: Actor,
    detail: JsonDict | None = None,
) -> RemoteResult:
    """Open the platform round of the studio's ``round_id`` with its one bet, through the one round path
    (:func:`games.services.path.open_round`: every rule of a round's start, in the same order as an engine round).
    Raises the refusal of the first rule that refuses; nothing is moved then."""
    if not game.remote:
        raise errors.REMOTE_GAME_INVALID(game=game.code)
    if not isinstance(round_id, str) or not 0 < len(round_id) <= MAX_ROUND_ID:
        raise errors.REMOTE_INVALID_ROUND_ID(max_length=MAX_ROUND_ID)
    stake = Money(_amount(amount, allow_zero=False), currency())
    opener = _StudioOpener(player, game, round_id, transaction_id, stake)
    with transaction.atomic(savepoint=False):
        opened = path.open_round(opener, player=player, key=remote_key(game.provider, round_id), actor=actor)
        assert isinstance(opened, path.Opening)  # a used key is refused by the opener
        if closed:  # a losing one-shot round: settled at once with win 0
            opened.round.state = {**opened.round.state, "status": "finished"}
            _keep_detail(opened.round, detail, opened.now)
        path.start_decided(opened, finished=closed, engine_events=[])
    return RemoteResult(round=opened.round, balance=opened.locked.balance)


def remote_play(
    *,
    player: Player,
    game: Game,
    round_id: str,
    transaction_id: str,
    amount: Money,
    win_transaction_id: str,
    win: Money,
    actor: Actor,
    detail: JsonDict,
) -> RemoteResult:
    """A studio's whole one-shot round in one call: the bet, the studio's outcome and its win (0 for a loss), opened
    through :func:`~games.services.path.open_round` and decided at once (:func:`~games.services.path.start_decided`,
    the GP §8(3) cap on the win), with the studio's record of the round. The same rules, in the same order, as
    :func:`remote_bet`; one transaction, as an engine round that settles at once."""
    if not game.remote:
        raise errors.REMOTE_GAME_INVALID(game=game.code)
    if not isinstance(round_id, str) or not 0 < len(round_id) <= MAX_ROUND_ID:
        raise errors.REMOTE_INVALID_ROUND_ID(max_length=MAX_ROUND_ID)
    stake = Money(_amount(amount, allow_zero=False), currency())
    won = _amount(win, allow_zero=True)
    opener = _StudioOpener(player, game, round_id, transaction_id, stake)
    with transaction.atomic(savepoint=False):
        opened = path.open_round(opener, player=player, key=remote_key(game.provider, round_id), actor=actor)
        assert isinstance(opened, path.Opening)  # a used key is refused by the opener
        rnd = opened.round
        credit, _, capped = path.capped(won)
        rnd.win_engine = won
        if win_transaction_id:
            # the win is the round's one win posting (``games:round:<id>:win``), as an engine round's
            _record(rnd, "win", win_transaction_id, won, opened.now, credited=credit, posting="win")
        rnd.state = {**rnd.state, "status": "finished", "win": won}
        _keep_detail(rnd, detail, opened.now)
        path.start_decided(opened, finished=True, engine_events=[])
    return RemoteResult(round=rnd, balance=opened.locked.balance, moved=credit, capped=capped)


def _held(player: Player, round_pk: int) -> tuple[Round, LockedWallet]:
    """The player's wallet, then the round (the house lock order), in ONE statement (games/sql.py ROUND_LOCK)."""
    held = path.lock_round(round_pk, player=player)
    if held is None or held.wallet is None or not held.round.provider_round_id:
        raise errors.ROUND_NOT_FOUND()
    return held.round, held.wallet


def _refuse_ended(rnd: Round) -> None:
    if rnd.status in (Round.Status.VOIDED, Round.Status.REFUNDED):
        raise errors.REMOTE_ROUND_VOIDED(round_id=rnd.pk, round_status=rnd.status, void_reason=rnd.void_reason)
    if rnd.status != Round.Status.IN_PROGRESS:
        raise errors.REMOTE_ROUND_CLOSED(round_id=rnd.pk, round_status=rnd.status)


def _settle_remote(rnd: Round, *, locked: LockedWallet, actor: Actor, now: datetime) -> None:
    """Settle with the wins credited so far (the path's settlement: the GP §8(3) cap on the total, the jackpots' awards
    decided
    at the bet, the limits' decided bet, the round and its audit event in one statement)."""
    rnd.state = {**(rnd.state or {}), "status": "finished", "win": rnd.win_engine}
    path.settle(rnd, locked=locked, actor=actor, now=now, credited=rnd.win)


def remote_win(
    *,
    player: Player,
    round_pk: int,
    transaction_id: str,
    amount: Money,
    closed: bool,
    actor: Actor,
    detail: JsonDict | None = None,
) -> RemoteResult:
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
        round_win_credit(
            locked=locked, player=player, amount=Money(credit, rnd.currency), reference=_win_ref(rnd, seq), actor=actor
        )
        rnd.win_engine += won
        rnd.win += credit
        rnd.win_capped = rnd.win_capped or credit < won
        rnd.last_activity_at = now
        _record(rnd, "win", transaction_id, won, now, credited=credit)
        rnd.state = {**rnd.state, "win": rnd.win_engine}
        if closed:
            _keep_detail(rnd, detail, now)
            _settle_remote(rnd, locked=locked, actor=actor, now=now)
        else:
            games_sql.round_write(rnd)
    return RemoteResult(round=rnd, balance=locked.balance, moved=credit, capped=credit < won)


def remote_round_end(
    *, player: Player, round_pk: int, transaction_id: str, actor: Actor, detail: JsonDict | None = None
) -> RemoteResult:
    """Settle the round with the wins credited so far. A round already settled is left as it is (the provider's
    round-end after a closing win); a voided one is refused."""
    with transaction.atomic(savepoint=False):
        rnd, locked = _held(player, round_pk)
        if rnd.status == Round.Status.FINISHED:
            return RemoteResult(round=rnd, balance=locked.balance)
        _refuse_ended(rnd)
        now = clock.now()
        _record(rnd, "round_end", transaction_id, 0, now)
        _keep_detail(rnd, detail, now)
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
        path.void(
            rnd,
            reason=Round.VoidReason.PROVIDER,
            detail=f"rollback {transaction_id} from the provider"[:2000],
            actor=actor,
            now=now,
        )
    return RemoteResult(
        round=rnd, balance=rnd.balance_after if rnd.balance_after is not None else locked.balance, moved=rnd.stake
    )
