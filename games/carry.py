"""The state a carry-over game keeps for a player between rounds (``games.models.PlayerGameState``).

A game whose engine declares ``carry_over`` (Ismael Beiro version 2: the vertical-line counter, the cumulative of
each upper bet and the bonuses stay on the machine, seed 001 §1-§3, §5) gets, at the start of a round, the state
the player's previous round of the same game version left, and gives back the state it leaves as part of its
outcome (``state["carry_in"]`` / ``state["carry_out"]``, so the round's record alone replays). The engine stays
pure; this module reads and writes the row inside the round's own transaction, under the player's wallet lock:

* :func:`carry_start`: one read at the round's start (no statement at all for the other games). The row of another
  version ends there: a new version starts fresh, and the money the old state held is paid to the player's
  balance first (from the ledger's ``games_carried`` account, where it was held);
* :func:`carry_settle`: one upsert when the round settles, and, when the money the state holds changed (carried
  bonuses, ``Game.carry_value``), one ledger transfer between ``house`` and ``games_carried``: money carried
  between rounds is the player's and is in the ledger, not only in the JSON;
* :func:`carry_restore`: a settled round declared void (GP §3(6)) gives the state back as the round found it,
  ledger included, when no later round has built on it. A round refunded or voided while in progress never wrote
  the row, so the next round starts from the state that round started from.

Play money keeps its own rows (``play_money``) and never touches the ledger.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Sum

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from games import errors
from games.engine import Game as EngineGame
from games.engine import get_game
from games.models import PlayerGameState, Round
from wallet.services import LockedWallet, operator_transfer, round_win_credit, wallet_lock_live

CARRIED_ACCOUNT = "games_carried"
JsonDict = dict[str, Any]


def carry_start(
    *, player: Any, engine_game: EngineGame, play_money: bool, locked: LockedWallet | None, actor: Actor, now: datetime
) -> JsonDict | None:
    """The state the player's previous round of this game and version left (None: start fresh). For a game
    without ``carry_over``: None and no statement. A row of another version ends here: its money is paid out
    (real money, to the live balance under ``locked``) and the row starts over for this version."""
    if not engine_game.carry_over:
        return None
    row = (
        PlayerGameState.objects.filter(player=player, game_code=engine_game.code, play_money=play_money)
        .only("id", "game_version", "state", "carried_value")
        .first()
    )
    if row is None:
        return None
    if row.game_version == engine_game.version:
        return dict(row.state) if row.state else None
    _version_change(row, player=player, engine_game=engine_game, locked=locked, actor=actor, now=now)
    return None


def _version_change(
    row: PlayerGameState,
    *,
    player: Any,
    engine_game: EngineGame,
    locked: LockedWallet | None,
    actor: Actor,
    now: datetime,
) -> None:
    """A new version of the game: the old version's state ends. Its counters lapse (they are no money); the
    money it held (carried bonuses) is the player's and is paid to the balance now."""
    old_version, value = row.game_version, row.carried_value
    if value > 0 and not row.play_money:
        assert locked is not None, "a real-money round holds the wallet lock"
        round_win_credit(
            locked=locked,
            player=player,
            amount=Money(value),
            reference=f"carry:{row.pk}:v{old_version}:payout",
            actor=actor,
            source=CARRIED_ACCOUNT,
        )
    old_state = row.state
    PlayerGameState.objects.filter(pk=row.pk).update(
        game_version=engine_game.version, state={}, carried_value=0, round=None, updated_at=now
    )
    audit_record(
        actor=actor,
        action="games.carry_version_change",
        obj=row,
        old={"game_version": old_version, "state": old_state, "carried_value": value},
        new={"game_version": engine_game.version, "state": {}},
        paid_out=value if not row.play_money else 0,
        play_money=row.play_money,
    )


def carry_settle(*, rnd: Round, actor: Actor, now: datetime) -> None:
    """A settled round of a carry-over game leaves its state for the player's next round: one upsert of the row,
    and the change of the money the state holds moved in the ledger (house <-> ``games_carried``). A round of a
    remote game has no engine here and carries nothing."""
    if rnd.provider_round_id:
        return
    engine_game = get_game(rnd.game_code, rnd.game_version)
    if not engine_game.carry_over:
        return
    out = (rnd.state or {}).get("carry_out")
    if out is None:  # pragma: no cover - a finished carry-over round always leaves its state
        raise RuntimeError(f"round {rnd.pk}: a finished carry-over round without carry_out")
    value_in = engine_game.carry_value((rnd.state or {}).get("carry_in") or {})
    value_out = engine_game.carry_value(out)
    PlayerGameState.objects.bulk_create(
        [
            PlayerGameState(
                player_id=rnd.player_id,
                game_code=rnd.game_code,
                game_version=rnd.game_version,
                play_money=rnd.play_money,
                state=out,
                carried_value=value_out,
                round_id=rnd.pk,
                updated_at=now,
            )
        ],
        update_conflicts=True,
        unique_fields=["player", "game_code", "play_money"],
        update_fields=["game_version", "state", "carried_value", "round", "updated_at"],
    )
    if not rnd.play_money and value_out != value_in:
        _move(value_out - value_in, reference=f"round:{rnd.pk}:carry", rnd=rnd, actor=actor)


def _move(delta: int, *, reference: str, rnd: Round, actor: Actor) -> None:
    """Money into (``delta`` > 0) or out of what the operator holds for players' carried states."""
    src, dst = ("house", CARRIED_ACCOUNT) if delta > 0 else (CARRIED_ACCOUNT, "house")
    operator_transfer(
        from_code=src,
        to_code=dst,
        amount=Money(abs(delta), rnd.currency),
        reference=reference,
        memo=f"round {rnd.pk} ({rnd.game_code}): carried to the player's next round",
        actor=actor,
    )


def carry_restore(*, rnd: Round, actor: Actor, now: datetime) -> str:
    """A settled round declared void: the player's state goes back to the one the round started from
    (``carry_in``), ledger included, if this round was the last to write it ("restored"). When a later round has
    built on it, the state stays as that round left it ("kept": the later round used what this one carried, and
    its own record holds it). "none" for a game without carry-over."""
    if rnd.provider_round_id:  # a remote game's round carries nothing
        return "none"
    engine_game = get_game(rnd.game_code, rnd.game_version)
    if not engine_game.carry_over:
        return "none"
    row = (
        PlayerGameState.objects.select_for_update(no_key=True)
        .filter(player_id=rnd.player_id, game_code=rnd.game_code, play_money=rnd.play_money)
        .first()
    )
    if row is None or row.round_id != rnd.pk:
        return "kept"
    carry_in = (rnd.state or {}).get("carry_in") or {}
    value_in = engine_game.carry_value(carry_in)
    old = {"state": row.state, "carried_value": row.carried_value}
    if not rnd.play_money and value_in != row.carried_value:
        _move(value_in - row.carried_value, reference=f"round:{rnd.pk}:carry:void", rnd=rnd, actor=actor)
    row.state, row.carried_value, row.round, row.updated_at = carry_in, value_in, None, now
    row.save(update_fields=["state", "carried_value", "round", "updated_at"])
    audit_record(
        actor=actor,
        action="games.carry_restored",
        obj=row,
        old=old,
        new={"state": carry_in, "carried_value": value_in},
        round_id=rnd.pk,
    )
    return "restored"


def carried_release(*, player: Any, actor: Actor) -> Money:
    """GP §10(1)-(2): the money a player's carried states hold (carried bonuses) is the player's. When the account's
    balance is handed to the wallet to be paid out (``accounts.hooks.carried_money_release``: a closure, a temporary
    account's cancellation or refund, an account closed for misuse), that money is credited to the live balance from
    ``games_carried`` first, in the same transaction, so the payout includes it; each state ends (its counters lapse,
    they are no money; audit ``games.carry_released``). Returns the amount credited (0: nothing carried; a second
    call credits nothing).

    A round of a carry-over game still in progress holds the state it started from: releasing it now would pay the
    same bonuses twice (once here, once through the round). Refused ``game.carried_round_open`` then; the hand-off
    is retried by its sweeper after the round ends (finished by the player or at its deadline)."""
    locked = wallet_lock_live(player=player)  # the lock order of a round: the wallet first, then the state rows
    rows = list(
        PlayerGameState.objects.select_for_update(no_key=True)
        .filter(player=player, play_money=False, carried_value__gt=0)
        .order_by("pk")
    )
    if not rows:
        return Money(0)
    open_round = (
        Round.objects.filter(
            player=player, play_money=False, status=Round.Status.IN_PROGRESS, game_code__in=[r.game_code for r in rows]
        )
        .values_list("pk", flat=True)
        .first()
    )
    if open_round is not None:
        raise errors.CARRIED_ROUND_OPEN(round_id=open_round)
    total = 0
    for row in rows:
        value = row.carried_value
        round_win_credit(
            locked=locked,
            player=player,
            amount=Money(value),
            reference=f"carry:{row.pk}:v{row.game_version}:release",
            actor=actor,
            source=CARRIED_ACCOUNT,
        )
        old = {"game_version": row.game_version, "state": row.state, "carried_value": value}
        row.state, row.carried_value, row.round, row.updated_at = {}, 0, None, clock.now()
        row.save(update_fields=["state", "carried_value", "round", "updated_at"])
        audit_record(
            actor=actor,
            action="games.carry_released",
            obj=row,
            old=old,
            new={"state": {}, "carried_value": 0},
            paid_out=value,
            player_id=row.player_id,
        )
        total += value
    return Money(total)


def carried_money(player: Any) -> Money:
    """The money the player's real-money carried states hold (carried bonuses): held for the player by the games,
    shown beside the balance (``wallet.hooks.held_in_games``)."""
    total = PlayerGameState.objects.filter(player=player, play_money=False).aggregate(total=Sum("carried_value"))[
        "total"
    ]
    return Money(total or 0)


def carried_state(*, player: Any, game_code: str, play_money: bool = False) -> PlayerGameState | None:
    """The player's carried state of a game (a read for the launch and the tests)."""
    return PlayerGameState.objects.filter(player=player, game_code=game_code, play_money=play_money).first()
