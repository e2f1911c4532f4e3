"""Staff remedies: a round in progress refunded, a settled bet declared void (GP §3(6))."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from django.db import transaction

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from games import carry, errors
from games.models import Round
from games.services import path
from games.services.common import LIMITS_KIND, player_balance, round_ref
from games.services.remote import remote_win_references
from games.validation import valid_round_id
from jackpots import services as jackpots
from jackpots.selectors import round_award_win_references
from limits.selectors import settled_bet_archived
from limits.services import (
    settled_bet_voided,
)
from wallet.selectors import win_held_amount
from wallet.services import (
    stake_refund,
    win_deduct,
)

if TYPE_CHECKING:
    pass

logger = logging.getLogger("games")


def round_refund(*, round_id: Any, reason: str, actor: Actor) -> Round:
    """Staff: end a round in progress and return its stake (status refunded), e.g. a stuck round after a
    complaint or a withdrawn game version. A settled bet placed on order or by proxy is voided by
    :func:`round_void_settled` (GP §3(6)); other finished rounds are remedied by complaints."""
    round_id = valid_round_id(round_id)
    with transaction.atomic():
        held = path.lock_round(round_id)
        if held is None:
            raise errors.ROUND_NOT_FOUND()
        rnd = held.round
        if rnd.status != Round.Status.IN_PROGRESS:
            raise errors.ROUND_NOT_REFUNDABLE(round_id=rnd.pk, round_status=rnd.status)
        if rnd.provider_round_id and rnd.win > 0:  # a remote round's wins were credited: refunding would pay twice
            raise errors.ROUND_NOT_REFUNDABLE(round_id=rnd.pk, round_status=rnd.status, win_credited=rnd.win)
        path.void(
            rnd,
            reason=Round.VoidReason.STAFF,
            detail=reason or "staff refund",
            actor=actor,
            now=clock.now(),
            status=Round.Status.REFUNDED,
        )
    return rnd


def round_void_settled(*, round_id: Any, reason: str, actor: Actor) -> Round:
    """Staff: declare a settled bet void because it was placed on order or by proxy (GP §3(6)), and reverse it.

    In one transaction, under the player's wallet lock and the round's row lock:

    * the ledger: the stake goes back to the player (``wallet.stake_refund``) and then the win the round credited,
      jackpot part included, is taken back with a recorded notice (``wallet.win_deduct``) to the ``house`` account.
      A part of it the operator still holds (GP §10(3), a ``wallet.WinHold`` on the round's win, on any of a remote
      round's wins (each call's own posting, ``games.services.remote.remote_win_references``) or on a jackpot win) is
      taken from the hold first, and the hold ends (``forfeited``); only the rest comes from the live balance. When
      the player has spent or withdrawn that rest, the balance goes negative only as a debt due in 10 days (GP
      §7(7), §10(4)); until it is paid, stakes and withdrawals are refused. No debt is recorded for held money;
    * limits: the decided bet is taken out of the counters (``limits.settled_bet_voided``, GP §3(6)): stakes per
      day/month, net loss, the hourly-loss buckets and the player's statistics no longer count it;
    * jackpots: the round's contributions are reversed, and every award it paid goes back to its pool from the
      house, whole, even when the player owes it as a debt: the house carries the debt, not the other players
      (``jackpots.round_void(settled=True)``, GP §3(6));
    * the round: status ``voided``, ``void_reason`` ``proxy``, the reason, ``voided_at``; its stake, win and
      ``settled_at`` stay as they were settled (the record of what was played); one audit event;
    * a remote game's provider is not told: its round ended as it played it (bet, wins, round end, each answered
      RS_OK), its daily round report still matches the platform's transactions, and the contract's
      ``round-cancelled`` is for a round the platform ended unfinished (the deadline, a staff refund), never sent
      here, so the provider hears of its round once.

    Refused: a round in progress or of play money (``game.round_not_settled``), a round already voided or
    refunded (``game.round_already_voided``, so a second void changes nothing), no reason."""
    round_id = valid_round_id(round_id)
    reason = str(reason or "").strip()
    if not reason:
        raise errors.VOID_REASON_REQUIRED()
    with transaction.atomic():
        held = path.lock_round(round_id)
        if held is None:
            raise errors.ROUND_NOT_FOUND()
        rnd = held.round
        if rnd.status in (Round.Status.VOIDED, Round.Status.REFUNDED):
            raise errors.ROUND_ALREADY_VOIDED(round_id=rnd.pk, round_status=rnd.status, void_reason=rnd.void_reason)
        if rnd.status != Round.Status.FINISHED or rnd.play_money:
            raise errors.ROUND_NOT_SETTLED(round_id=rnd.pk, round_status=rnd.status, play_money=rnd.play_money)
        if rnd.settled_at is not None and settled_bet_archived(rnd.settled_at):
            # a round lives 120 months, its decided bet 36: the counters could no longer be corrected
            raise errors.VOID_BET_ARCHIVED(round_id=rnd.pk, settled_at=rnd.settled_at)
        now = clock.now()
        player, currency = rnd.player, rnd.currency
        balance_before = player_balance(player)
        if rnd.stake > 0:
            stake_refund(
                player=player, amount=Money(rnd.stake, currency), reference=round_ref(rnd, "void:stake"), actor=actor
            )
        from_hold, wins = 0, list[str]()
        if rnd.win > 0:
            # GP §10(3): what the operator still holds of this round's wins comes back from the hold first; only
            # the rest is taken from the live balance (a debt only for money the player really has spent). The
            # round's wins: the engine's one win posting, each win a remote game's provider sent (its own posting,
            # ``win:<seq>``), each jackpot award paid.
            wins = [round_ref(rnd, "win"), *remote_win_references(rnd), *round_award_win_references(rnd.pk)]
            from_hold = win_held_amount(player, wins).amount
            win_deduct(
                player=player,
                amount=Money(rnd.win, currency),
                reference=round_ref(rnd, "void:win"),
                reason=f"round {rnd.pk} declared void (GP §3(6)): {reason}"[:255],
                notice_text=_void_notice(rnd, reason, from_hold=from_hold),
                actor=actor,
                win_references=wins,
            )
        # GP §3(6): a void bet is no bet for the limits either (the limits state row locks before the pools)
        limits_bet = settled_bet_voided(player=player, kind=LIMITS_KIND, round_ref=round_ref(rnd, "bet"), at=now)
        reversed_jp = jackpots.round_void(round_id=rnd.pk, actor=actor, settled=True)
        carried = carry.carry_restore(rnd=rnd, actor=actor, now=now)  # the state the round started from
        old_status = rnd.status
        rnd.status = Round.Status.VOIDED
        rnd.void_reason = Round.VoidReason.PROXY
        rnd.void_detail = reason[:2000]
        rnd.voided_at = now
        rnd.save(update_fields=["status", "void_reason", "void_detail", "voided_at"])
        balance_after = player_balance(player)
        audit_record(
            actor=actor,
            action="games.round_voided_settled",
            obj=rnd,
            old={"status": old_status},
            new={"status": rnd.status, "void_reason": rnd.void_reason},
            reason=reason[:2000],
            stake_returned=rnd.stake,
            win_reclaimed=rnd.win,
            win_from_hold=from_hold,
            win_references=wins,
            jackpot_win_returned_to_pools=reversed_jp["paid_returned_to_pools"],
            balance_before=balance_before,
            balance_after=balance_after,
            debt=max(0, -balance_after),
            jackpots=reversed_jp,
            limits_counters="reversed" if limits_bet is not None else "no bet to reverse",
            carried_state=carried,
        )
    return rnd


def _void_notice(rnd: Round, reason: str, *, from_hold: int = 0) -> str:
    """The notice of the deduction the player is sent (GP §7(7)), in Czech and English; it names the part of the
    win taken back from a hold (GP §10(3)), which never touched the player's balance."""
    stake, win = Money(rnd.stake, rnd.currency), Money(rnd.win, rnd.currency)
    held = Money(from_hold, rnd.currency)
    held_cs = (
        f" Z výhry bylo {held.format('cs')} pozdrženo (HP §10 odst. 3); tato částka se vrací z pozdržených "
        "prostředků a váš zůstatek nesnižuje."
        if from_hold
        else ""
    )
    held_en = (
        f" {held.format('en')} of the win was held (GP §10(3)); that part comes back from the held funds and "
        "does not reduce your balance."
        if from_hold
        else ""
    )
    return (
        f"Sázka v herním kole č. {rnd.pk} ({rnd.game_code}) byla prohlášena za neplatnou, protože byla uzavřena "
        f"na objednávku nebo v zastoupení (HP §3 odst. 6). Vklad {stake.format('cs')} vám byl vrácen a výhra "
        f"{win.format('cs')} odečtena.{held_cs} Důvod: {reason}\n"
        f"The bet of game round {rnd.pk} ({rnd.game_code}) was declared void because it was placed on order or "
        f"by proxy (GP §3(6)). The stake {stake.format('en')} was returned to you and the win "
        f"{win.format('en')} deducted.{held_en} Reason: {reason}"
    )[:4000]
