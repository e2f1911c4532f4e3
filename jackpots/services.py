"""Jackpot writes (docs/jackpots.md): contributions on the round path, folds, awards, settlement within the
per-round cap, voids, and the staff's level lifecycle.

The round calls, inside its own transaction and under the player's wallet lock (games.services):

* :func:`round_start` after the engine's start: the round's contributions (ONE statement, which also reads the
  live value of every must-hit and draw level it feeds), the draw after every stake, the must-hit crossings;
  the levels won are decided at once (:class:`Award` rows; the pool is reset in the same transaction);
* :func:`round_events` after each player action: the game's own jackpot events (Kobushi's pick bonus);
* :func:`round_settle` when the round finishes: net-revenue contributions of an interactive round, then the
  decided awards paid in ``pay_order`` (Kobushi, then BRONZE -> SILVER -> GOLD) within what the per-round cap
  leaves after the game's win; the excess goes back to its pool;
* :func:`round_void` when the round is voided: its contributions reversed, decided awards back to their pools;
  for a settled round declared void (GP §3(6), ``settled=True``) the awards it paid too (:func:`award_paid_return`:
  the player's win was taken back to the house, the house returns the jackpot part to its pool).

Lock order: the player's wallet (held by the round) -> jackpot rows in ``pay_order, id`` order. The fold job
locks one jackpot row and no wallet. A spin that wins nothing takes no jackpot lock.
"""

from __future__ import annotations

import secrets
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from django.db import transaction

from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.rng import get_rng
from jackpots import errors, sql
from jackpots.levels import Level, commitment, contribution, levels_for, salt, seal, snapshot_clear, unseal
from jackpots.models import MICRO, PPB, Award, Contribution, Fold, Jackpot, Pending
from jackpots.selectors import award_paid_reference
from jackpots.validation import validate_config, validate_group
from wallet.services import LockedWallet, operator_transfer, round_win_credit, win_credit

if TYPE_CHECKING:
    from accounts.models import Player

AWARDS_ACCOUNT = "jackpot:awards"
SYSTEM = Actor.system("jackpots")


@dataclass
class RoundJackpots:
    """What :func:`round_start` did for one round: the awards it decided and what the round should show."""

    awards: list[Award] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)


# --- contributions on the round path ------------------------------------------------------------------------------
def _contribute(
    levels: list[Level], *, player_id: int, round_id: int, stake: int, win: int
) -> dict[int, tuple[int, int]]:
    """Write the round's contribution to each level (ONE statement) and return {level id: (generation, live active
    value in micro-haléře)} for the levels whose trigger needs it. No lock: the rows are appended."""
    rows = [(lv.id, *contribution(lv, stake=stake, win=win)) for lv in levels]
    rows = [r for r in rows if r[2] or r[3]]
    check = [lv.id for lv in levels if lv.needs_value]
    if not rows and not check:
        return {}
    return {
        i: (gen, value)
        for i, gen, status, value in sql.contribute(
            round_id=round_id, player_id=player_id, now=clock.now(), rows=rows, check=check
        )
        if status == Jackpot.Status.RUNNING
    }


def _live(level_id: int) -> tuple[str, int, int]:
    """(status, run, live active value in micro-haléře) of one level, without a lock."""
    return sql.live(level_id)


def _triggered(
    levels: list[Level], values: dict[int, tuple[int, int]], events: list[dict[str, Any]]
) -> list[tuple[Level, str, dict[str, Any], int]]:
    """Which levels this stake wins: one draw per stake for the draw levels (equal chance whatever the stake; the
    level the draw names is won if its value is within its range), and must-hit crossings. Returns (level, event
    key, draw details, the run the spin saw)."""
    won: list[tuple[Level, str, dict[str, Any], int]] = []
    draw_levels = [lv for lv in levels if lv.trigger == Jackpot.Trigger.DRAW]
    if draw_levels:
        drawn = get_rng().randbelow(PPB)
        events.append({"type": "jackpot_draw", "value": drawn, "of": PPB})
        low = 0
        for lv in draw_levels:
            if low <= drawn < low + lv.draw_ppb:  # the ranges are disjoint: at most one level is named
                status, generation, value = _live(lv.id)
                if status == Jackpot.Status.RUNNING and value >= lv.win_from * MICRO:
                    won.append((lv, "draw", {"drawn": drawn, "range": [low, low + lv.draw_ppb], "of": PPB}, generation))
                break
            low += lv.draw_ppb
    for lv in levels:
        if lv.trigger != Jackpot.Trigger.MUST_HIT or lv.id not in values:
            continue
        generation, value = values[lv.id]
        if generation != lv.generation:  # someone won it since this process loaded it: reload next time
            snapshot_clear()
            continue
        if lv.win_at is not None and value >= lv.win_at * MICRO:
            won.append((lv, "must_hit", {}, generation))
    return sorted(won, key=lambda w: (w[0].pay_order, w[0].id))  # the pool locks in the house order


def round_start(
    *, player: Player, round_id: int, game_code: str, stake: int, finished: bool, engine_win: int, actor: Actor
) -> RoundJackpots:
    """After the engine's start of a real-money round: contribute and decide the levels this stake wins.

    Stake-basis levels contribute now; net-revenue levels contribute now when the round finished at once, else at
    :func:`round_settle` (their basis needs the win). Returns the decided awards (paid by :func:`round_settle`)."""
    result = RoundJackpots()
    levels = levels_for(game_code)
    if not levels:
        return result
    now_levels = [lv for lv in levels if finished or lv.basis == Jackpot.Basis.STAKE]
    values = _contribute(
        now_levels, player_id=player.pk, round_id=round_id, stake=stake, win=engine_win if finished else 0
    )
    for lv, key, draw, generation in _triggered(levels, values, result.events):
        award = _decide(
            lv.id,
            player_id=player.pk,
            round_id=round_id,
            game_code=game_code,
            event_key=key,
            expect_generation=generation,
            coin_value=None,
            draw=draw,
            actor=actor,
        )
        if award is not None:
            result.awards.append(award)
    result.events.extend(award_event(a) for a in result.awards)
    return result


def round_events(
    *,
    player: Player,
    round_id: int,
    game_code: str,
    bet_params: dict[str, Any],
    engine_events: list[dict[str, Any]],
    actor: Actor,
    known: Collection[str] = (),
) -> list[Award]:
    """After a player action: decide the game's own jackpot events (Kobushi's pick bonus). The engine returns the
    whole list every time; event n of a round wins at most once (``event:n``), however often this runs.
    ``known``: the event keys whose award the round's record already shows; when every event is known, nothing
    is read (an action of a long round costs the same as the first)."""
    levels = [lv for lv in levels_for(game_code) if lv.trigger == Jackpot.Trigger.GAME_EVENT]
    if not levels or not engine_events or all(f"event:{n}" in known for n in range(len(engine_events))):
        return []
    done = set(Award.objects.filter(round_id=round_id).values_list("jackpot_id", "event_key"))
    decided = []
    for n, ev in enumerate(engine_events):
        lv = next(
            (x for x in levels if x.family == ev.get("type", "").split("_")[0] and x.level == ev.get("level")), None
        )
        key = f"event:{n}"
        if lv is None or (lv.id, key) in done or not _eligible(lv, bet_params):
            continue
        award = _decide(
            lv.id,
            player_id=player.pk,
            round_id=round_id,
            game_code=game_code,
            event_key=key,
            expect_generation=None,
            coin_value=int(bet_params["coin_value"]),
            draw={},
            actor=actor,
        )
        if award is not None:
            decided.append(award)
    return decided


def _eligible(level: Level, bet_params: dict[str, Any]) -> bool:
    """Kobushi rules §9: only at the maximum coins and lines (any coin value)."""
    return all(bet_params.get(k) == v for k, v in level.eligible.items())


def round_settle(
    *,
    player: Player,
    round_id: int,
    game_code: str,
    stake: int,
    engine_win: int,
    cap_left: int,
    awards: list[Award] | None,
    locked: LockedWallet | None,
    interactive: bool,
    actor: Actor,
) -> tuple[int, list[Award]]:
    """Pay the round's decided awards within ``cap_left`` (GP §8(3): what the per-round cap leaves after the game's
    win), in ``pay_order``; an award's excess goes back to its pool ("stays in the jackpot for the next one").
    An interactive round first writes its net-revenue contributions (and may win a must-hit level with them).
    ``awards`` None: read them; the lean path passes what :func:`round_start` decided, an interactive round whose
    record shows no award passes none (no read); the awards a net-revenue must-hit decides here are added.
    Returns (haléře paid, the awards)."""
    decided_now: list[Award] = []
    if interactive:
        levels = [lv for lv in levels_for(game_code) if lv.basis == Jackpot.Basis.NET_REVENUE]
        if levels:
            values = _contribute(levels, player_id=player.pk, round_id=round_id, stake=stake, win=engine_win)
            for lv, key, draw, generation in _triggered(
                [lv for lv in levels if lv.trigger == Jackpot.Trigger.MUST_HIT], values, []
            ):
                award = _decide(
                    lv.id,
                    player_id=player.pk,
                    round_id=round_id,
                    game_code=game_code,
                    event_key=key,
                    expect_generation=generation,
                    coin_value=None,
                    draw=draw,
                    actor=actor,
                )
                if award is not None:
                    decided_now.append(award)
    if awards is not None:
        awards = [*awards, *decided_now]
    else:
        awards = list(Award.objects.filter(round_id=round_id, status=Award.Status.DECIDED).select_related("jackpot"))
    if not awards:
        return 0, []
    awards = sorted(awards, key=lambda a: (a.jackpot.pay_order, a.jackpot_id))
    total = 0
    now = clock.now()
    for award in awards:
        paid = min(award.amount, max(cap_left - total, 0))
        excess = award.amount - paid
        if paid:
            reference = award_paid_reference(award.pk)
            if locked is not None:
                round_win_credit(
                    locked=locked,
                    player=player,
                    amount=Money(paid),
                    reference=reference,
                    actor=actor,
                    source=AWARDS_ACCOUNT,
                )
            else:
                win_credit(player=player, amount=Money(paid), reference=reference, actor=actor, source=AWARDS_ACCOUNT)
        if excess:
            _return_to_pool(award, excess, reason="cap", actor=actor)
        award.paid, award.returned, award.status, award.settled_at = paid, excess, Award.Status.PAID, now
        award.save(update_fields=["paid", "returned", "status", "settled_at"])
        total += paid
    audit_record(
        actor=actor,
        action="jackpots.awards_paid",
        object_type="games.Round",
        object_id=str(round_id),
        new={
            "paid": total,
            "awards": [
                {"jackpot": a.jackpot.code, "amount": a.amount, "paid": a.paid, "returned": a.returned} for a in awards
            ],
        },
    )
    return total, awards


def round_void(*, round_id: int, actor: Actor, settled: bool = False) -> dict[str, int]:
    """A voided round (malfunction GP §7(8), deadline, staff): reverse its contributions (negative rows, folded
    like any other) and send its decided awards back to their pools. Idempotent.

    ``settled=True``: a settled round declared void (GP §3(6), games' ``round_void_settled``), whose win, jackpot
    part included, the caller has already taken back from the player to the house: every award it paid goes back
    to its pool too (:func:`award_paid_return`). Without the flag a paid award is left as it is (a round voided
    before it settled never paid one)."""
    done = (
        Pending.objects.filter(round_id=round_id, reversal=True).exists()
        or Contribution.objects.filter(round_id=round_id, reversal=True).exists()
    )
    # one per level: a fold running meanwhile may move a pending row into the log between the two reads
    rows: list[Pending | Contribution] = [
        *Pending.objects.filter(round_id=round_id, reversal=False),
        *Contribution.objects.filter(round_id=round_id, reversal=False),
    ]
    originals = {c.jackpot_id: c for c in rows}
    reversed_rows = 0
    if not done and originals:
        player_id = next(iter(originals.values())).player_id  # a round has one player
        sql.contribute(
            round_id=round_id,
            player_id=player_id,
            now=clock.now(),
            check=[],
            reversal=True,
            rows=[(c.jackpot_id, -c.basis_amount, -c.active_micro, -c.future_micro) for c in originals.values()],
        )
        reversed_rows = len(originals)
    awards = 0
    for award in (
        Award.objects.filter(round_id=round_id, status=Award.Status.DECIDED)
        .select_related("jackpot")
        .order_by("jackpot__pay_order", "jackpot_id")
    ):
        _return_to_pool(award, award.amount, reason="void", actor=actor)
        award.returned, award.status, award.settled_at = award.amount, Award.Status.REVERSED, clock.now()
        award.save(update_fields=["returned", "status", "settled_at"])
        awards += 1
    reclaimed = reclaimed_awards = 0
    if settled:
        for award in (
            Award.objects.filter(round_id=round_id, status=Award.Status.PAID)
            .select_related("jackpot")
            .order_by("jackpot__pay_order", "jackpot_id")
        ):
            reclaimed += award_paid_return(award=award, actor=actor)
            reclaimed_awards += 1
    result = {"contributions_reversed": reversed_rows, "awards_reversed": awards}
    if settled:
        result.update(paid_awards_returned=reclaimed_awards, paid_returned_to_pools=reclaimed)
    if reversed_rows or awards or reclaimed_awards:
        audit_record(
            actor=actor, action="jackpots.round_voided", object_type="games.Round", object_id=str(round_id), new=result
        )
    return result


def award_paid_return(*, award: Award, actor: Actor) -> int:
    """GP §3(6): the bet that won a PAID award was declared void after it settled, and the caller has taken the
    player's win, this award's paid part included, back to the ``house`` account (``wallet.win_deduct``). The award
    was paid out of the players' pool and the bet that won it never counted, so the money belongs back in the pool
    for the other players: the paid part moves ``house`` -> ``jackpot:<code>`` (an operator transfer, reference
    ``jackpot:<award>:reclaimed``), the pool's active pot grows by it and it is recorded as a return (``returned``,
    so ``jackpot_check`` still proves value = folded contributions + seeds - awards + returns). A draw level's pot
    stays within its range: what the return lifts above WINRANGE_TO waits in the background pot, as at a fold.

    The pool gets the whole paid part at once even when the player could not repay it: the house carries the
    player's debt (``wallet.Debt``, GP §7(7)), not the pool. The award is marked ``reversed`` with ``returned`` =
    its whole amount (a capped excess went back at settlement, the paid part now); ``paid`` stays the record of
    what was credited. Locks the pool row, then the award (the order of ``round_settle``), after the caller's
    wallet lock; audited. Idempotent: an award not (or no longer) ``paid`` changes nothing (a decided award goes
    back through :func:`round_void`). Returns the haléře returned to the pool."""
    with transaction.atomic():
        jp = _locked(award.jackpot_id)
        current = Award.objects.select_for_update(no_key=True).get(pk=award.pk)
        if current.status != Award.Status.PAID:
            return 0
        amount = current.paid
        if amount:
            operator_transfer(
                from_code="house",
                to_code=jp.ledger_code,
                amount=Money(amount),
                reference=f"jackpot:{current.pk}:reclaimed",
                memo=f"{jp.code} run {current.generation}: paid award of round {current.round_id} "
                f"declared void (GP §3(6))",
                actor=actor,
            )
            jp.amount_micro += amount * MICRO
            if jp.trigger == Jackpot.Trigger.DRAW and jp.win_to and jp.amount_micro > jp.win_to * MICRO:
                jp.future_micro += jp.amount_micro - jp.win_to * MICRO
                jp.amount_micro = jp.win_to * MICRO
            jp.returned += amount
            jp.ledger_balance += amount
            jp.save(update_fields=["amount_micro", "future_micro", "returned", "ledger_balance"])
        old = {"status": current.status, "returned": current.returned}
        current.returned += amount
        current.status = Award.Status.REVERSED
        current.save(update_fields=["returned", "status"])
        audit_record(
            actor=actor,
            action="jackpots.award_paid_returned",
            obj=current,
            old=old,
            new={"status": current.status, "returned": current.returned},
            amount=amount,
            jackpot=jp.code,
            round_id=current.round_id,
            player_id=current.player_id,
            reason="bet declared void after settlement (GP §3(6)); the house carries any debt of the player",
        )
    award.status, award.returned = current.status, current.returned
    snapshot_clear()
    return amount


def award_event(award: Award) -> dict[str, Any]:
    """How an award shows on the round (``round.jackpot_events``)."""
    return {
        "type": "jackpot_award",
        "jackpot": award.jackpot.code,
        "level": award.jackpot.level,
        "award_id": award.pk,
        "amount": award.amount,
        "event": award.event_key,
    }


# --- the pool: fold, decide, reseed, return -----------------------------------------------------------------------
def _locked(jackpot_id: int) -> Jackpot:
    return Jackpot.objects.select_for_update(no_key=True).get(pk=jackpot_id)


def _fold(jp: Jackpot) -> Fold | None:
    """Fold the pending contributions into the locked pool and post the whole haléře to its ledger account."""
    now = clock.now()
    fold = Fold.objects.create(jackpot=jp, rows=0, active_micro=0, future_micro=0, posted=0, created_at=now)
    # the pending rows committed now move into the permanent log, each exactly once (jackpots/sql.py FOLD)
    rows, active, future = sql.fold(jackpot_id=jp.pk, fold_id=fold.pk)
    if rows == 0:
        fold.delete()
        return None
    jp.amount_micro += active
    jp.future_micro += future
    jp.contributed_micro += active + future
    jp.counted_active_micro += active  # what the running counter held of these rows (jackpots/sql.py)
    jp.counted_future_micro += future
    clamped = 0
    if jp.future_micro < 0:  # a decrease beyond the future pot comes out of the active pot
        jp.amount_micro += jp.future_micro
        jp.future_micro = 0
    if jp.amount_micro < 0:  # a pot never goes below zero: the house absorbs the rest (recorded)
        clamped = -jp.amount_micro
        jp.amount_micro = 0
    if jp.trigger == Jackpot.Trigger.DRAW and jp.win_to and jp.amount_micro > jp.win_to * MICRO:
        # a draw level's pot stays within its range (page 1): what grows beyond it waits in the background pot
        jp.future_micro += jp.amount_micro - jp.win_to * MICRO
        jp.amount_micro = jp.win_to * MICRO
    posted = _sync_ledger(jp, reference=f"jackpot:fold:{fold.pk}", memo=f"{rows} contributions")
    fold.rows, fold.active_micro, fold.future_micro, fold.clamped_micro, fold.posted = (
        rows,
        active,
        future,
        clamped,
        posted,
    )
    fold.save(update_fields=["rows", "active_micro", "future_micro", "clamped_micro", "posted"])
    jp.folded_at = now
    return fold


def _sync_ledger(jp: Jackpot, *, reference: str, memo: str) -> int:
    """Post house <-> pool so that the pool's ledger account holds the whole haléře of its value."""
    target = (jp.amount_micro + jp.future_micro) // MICRO
    delta = target - jp.ledger_balance
    if delta > 0:
        operator_transfer(
            from_code="house", to_code=jp.ledger_code, amount=Money(delta), reference=reference, memo=memo, actor=SYSTEM
        )
    elif delta < 0:
        operator_transfer(
            from_code=jp.ledger_code,
            to_code="house",
            amount=Money(-delta),
            reference=reference,
            memo=memo,
            actor=SYSTEM,
        )
    jp.ledger_balance = target
    return delta


def jackpot_fold(*, jackpot_id: int) -> int:
    """The fold job's unit: fold one pool (own transaction). Returns the rows folded."""
    with transaction.atomic():
        jp = _locked(jackpot_id)
        fold = _fold(jp)
        if fold is None:
            return 0
        jp.save()
    snapshot_clear()  # this process's spins split by the folded future pot from now on (others within the TTL)
    return fold.rows


def jackpots_fold_all() -> dict[str, int]:
    """Fold every pool with pending contributions (each in its own transaction; safe on two workers)."""
    ids = list(Pending.objects.values_list("jackpot_id", flat=True).distinct())
    rows = sum(jackpot_fold(jackpot_id=i) for i in sorted(ids))
    return {"pools": len(ids), "rows": rows}


def _decide(
    jackpot_id: int,
    *,
    player_id: int,
    round_id: int,
    game_code: str,
    event_key: str,
    expect_generation: int | None,
    coin_value: int | None,
    draw: dict[str, Any],
    actor: Actor,
) -> Award | None:
    """Decide a win under the pool's lock: fold, re-check, take the amount, reseed, start the next run.

    ``expect_generation`` (must-hit and draw): the run the spin saw; if another round won it meanwhile nothing is
    won (a run is won exactly once; the database enforces it too). Kobushi (``coin_value``): the pool's value at
    the reference coin scaled to the winner's coin value; a later winner gets the reset pool (seed + what came
    in since), as the rules say."""
    jp = _locked(jackpot_id)
    if jp.status != Jackpot.Status.RUNNING:
        return None
    if expect_generation is not None and jp.generation != expect_generation:
        return None
    _fold(jp)
    value = jp.amount_micro // MICRO
    win_at = None
    if jp.trigger == Jackpot.Trigger.MUST_HIT:
        win_at = unseal(jp.win_at_sealed, code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce)
        if value < win_at:  # a reversal took it back below WIN_AT: not yet
            jp.save()
            return None
    if jp.trigger == Jackpot.Trigger.DRAW and value < jp.win_from:  # not within its range (a reversal): no win
        jp.save()
        return None
    if jp.family == Jackpot.Family.KOBUSHI:
        if not coin_value or not jp.reference_coin:
            raise errors.NOT_ELIGIBLE(jackpot=jp.code)
        amount = jp.amount_micro * coin_value // (jp.reference_coin * MICRO)
    else:
        amount = min(value, jp.win_to) if jp.win_to else value
    now = clock.now()
    award = Award.objects.create(
        jackpot=jp,
        generation=jp.generation,
        round_id=round_id,
        player_id=player_id,
        game_code=game_code,
        event_key=event_key,
        amount=amount,
        coin_value=coin_value,
        pool_value=value,
        win_at=win_at,
        win_at_nonce=salt(code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce) if win_at is not None else "",
        win_at_commitment=jp.win_at_commitment if win_at is not None else "",
        draw=draw,
        decided_at=now,
    )
    jp.amount_micro -= amount * MICRO
    jp.awarded += amount
    jp.ledger_balance -= amount
    if amount:
        operator_transfer(
            from_code=jp.ledger_code,
            to_code=AWARDS_ACCOUNT,
            amount=Money(amount),
            reference=f"jackpot:{award.pk}:decided",
            memo=f"{jp.code} run {jp.generation}",
            actor=actor,
        )
    _reseed(jp, coin_value=coin_value, reference=f"jackpot:{award.pk}:reseed")
    _next_run(jp)
    jp.save()
    snapshot_clear()
    audit_record(
        actor=actor,
        action="jackpots.award_decided",
        obj=award,
        new={
            "jackpot": jp.code,
            "generation": award.generation,
            "amount": amount,
            "round_id": round_id,
            "player_id": player_id,
            "event": event_key,
            "win_at": win_at,
            "commitment": award.win_at_commitment,
        },
    )
    return award


def _reseed(jp: Jackpot, *, coin_value: int | None, reference: str) -> None:
    """Start value of the next run: Kobushi tops up the seed at the winner's coin (seed per coin x coin value);
    FROM_BACKGROUND moves RESET_VALUE from the background pot (the house adds any shortfall; the rest stays);
    WHOLE_FUTURE moves the whole future pot."""
    seed = 0
    if jp.reseed == Jackpot.Reseed.SEED_PER_COIN:
        seed = jp.seed_per_coin * (coin_value or 0)
    elif jp.reseed == Jackpot.Reseed.FROM_BACKGROUND:
        needed = max(jp.reset_value * MICRO - jp.amount_micro, 0)
        take = min(jp.future_micro, needed)
        jp.future_micro -= take
        jp.amount_micro += take
        seed = -(-(needed - take) // MICRO)  # whole haléře, rounded up
    elif jp.reseed == Jackpot.Reseed.WHOLE_FUTURE:
        jp.amount_micro += jp.future_micro
        jp.future_micro = 0
    if seed > 0:
        jp.amount_micro += seed * MICRO
        jp.seeded += seed
        _sync_ledger(jp, reference=reference, memo=f"seed {jp.code}")


def _next_run(jp: Jackpot) -> None:
    """A new run: generation + 1 and, for a must-hit level, a new sealed WIN_AT in [WINRANGE_FROM, WINRANGE_TO]
    with its commitment."""
    jp.generation += 1
    if jp.trigger == Jackpot.Trigger.MUST_HIT:
        win_at = get_rng().randint(jp.win_from, jp.win_to)
        nonce = secrets.token_hex(16)
        jp.win_at_nonce = nonce
        jp.win_at_sealed = seal(win_at, code=jp.code, generation=jp.generation, nonce=nonce)
        jp.win_at_commitment = commitment(
            code=jp.code,
            generation=jp.generation,
            win_at=win_at,
            salt=salt(code=jp.code, generation=jp.generation, nonce=nonce),
        )


def _return_to_pool(award: Award, amount: int, *, reason: str, actor: Actor) -> None:
    """Money of a decided award goes back to its pool's active pot (cap excess, void)."""
    jp = _locked(award.jackpot_id)
    operator_transfer(
        from_code=AWARDS_ACCOUNT,
        to_code=jp.ledger_code,
        amount=Money(amount),
        reference=f"jackpot:{award.pk}:returned",
        memo=reason,
        actor=actor,
    )
    jp.amount_micro += amount * MICRO
    jp.returned += amount
    jp.ledger_balance += amount
    jp.save(update_fields=["amount_micro", "returned", "ledger_balance"])
    audit_record(actor=actor, action="jackpots.award_returned", obj=award, amount=amount, reason=reason)


# --- the level's lifecycle (staff) -----------------------------------------------------------------------------------
def approval_missing(jp: Jackpot) -> list[str]:
    """GP §13(6): the approval fields a central level still lacks before it may start (empty: recorded; Kobushi's
    pools belong to the Kobushi game, approved with its version)."""
    if jp.family != Jackpot.Family.CENTRAL:
        return []
    return [f for f in APPROVAL_FIELDS if not str(getattr(jp, f) or "").strip()]


def jackpot_start(*, jackpot: Jackpot, actor: Actor) -> Jackpot:
    """Freeze a draft level's configuration and start it: validated, seeded, first WIN_AT sealed and committed,
    audited with the whole configuration. A central level (a premium game the plan must describe) starts only with
    its approval in the game plan recorded: the plan version and the Ministry's reference (``jackpot.not_approved``
    naming what is missing, GP §13(6)); the staff permission is ``jackpots.start_level``."""
    with transaction.atomic():
        jp = _locked(jackpot.pk)
        if jp.status != Jackpot.Status.DRAFT:
            raise errors.NOT_DRAFT(jackpot=jp.code, status=jp.status)
        missing = approval_missing(jp)
        if missing:
            raise errors.NOT_APPROVED(jackpot=jp.code, missing=missing)
        validate_config(jp)
        if jp.trigger == Jackpot.Trigger.DRAW:  # the draw levels share one draw per stake
            validate_group([*Jackpot.objects.filter(status=Jackpot.Status.RUNNING, trigger=Jackpot.Trigger.DRAW), jp])
        jp.status = Jackpot.Status.RUNNING
        jp.started_at = clock.now()
        if jp.reseed == Jackpot.Reseed.SEED_PER_COIN:
            seed = jp.seed_per_coin * jp.reference_coin
        elif jp.reseed == Jackpot.Reseed.FROM_BACKGROUND:
            seed = jp.reset_value
        else:
            seed = 0  # APOLLO: AMOUNT = FUTURE_AMOUNT = 0 at the start
        if seed:
            jp.amount_micro += seed * MICRO
            jp.seeded += seed
            _sync_ledger(jp, reference=f"jackpot:{jp.code}:start", memo=f"seed {jp.code}")
        jp.generation -= 1
        _next_run(jp)  # generation 0 -> run 0 with its WIN_AT
        jp.save()
        audit_record(
            actor=actor,
            action="jackpots.started",
            obj=jp,
            new=config_of(jp),
            commitment=jp.win_at_commitment,
            approval={f: getattr(jp, f) for f in APPROVAL_FIELDS},
        )
    snapshot_clear()
    return jp


def jackpot_create(*, jackpot: Jackpot, actor: Actor) -> Jackpot:
    """Save a new level as a draft (it may be half-configured; ``jackpot_start`` validates it). Audited."""
    with transaction.atomic():
        jackpot.status = Jackpot.Status.DRAFT
        jackpot.save(force_insert=True)
        audit_record(
            actor=actor,
            action="jackpots.created",
            obj=jackpot,
            new=config_of(jackpot),
            approval={f: getattr(jackpot, f) for f in APPROVAL_FIELDS},
        )
    return jackpot


def jackpot_configure(*, jackpot_id: int, changes: dict[str, Any], actor: Actor) -> Jackpot:
    """Change a draft's configuration or its recorded approval in the game plan (checked under the row's lock: a level
    started meanwhile is refused with ``jackpot.not_draft`` and nothing changes). Only those fields; audited with old
    and new values."""
    unknown = set(changes) - set(CONFIG_FIELDS) - set(APPROVAL_FIELDS) - {"code", "name", "name_cs"}
    if unknown:
        raise errors.INVALID_CONFIG(reason="not configuration fields", fields=sorted(unknown))
    with transaction.atomic():
        jp = _locked(jackpot_id)
        if jp.status != Jackpot.Status.DRAFT:
            raise errors.NOT_DRAFT(jackpot=jp.code, status=jp.status)
        old = {f: getattr(jp, f) for f in changes}
        for f, value in changes.items():
            setattr(jp, f, value)
        if changes:
            jp.save(update_fields=list(changes))
            audit_record(actor=actor, action="jackpots.configured", obj=jp, old=old, new=dict(changes))
    return jp


def jackpot_set_status(*, jackpot: Jackpot, status: str, actor: Actor) -> Jackpot:
    """Suspend a running level or resume a suspended one (audited). The configuration stays frozen."""
    allowed = {Jackpot.Status.RUNNING: Jackpot.Status.SUSPENDED, Jackpot.Status.SUSPENDED: Jackpot.Status.RUNNING}
    with transaction.atomic():
        jp = _locked(jackpot.pk)
        if allowed.get(Jackpot.Status(jp.status)) != status:
            raise errors.BAD_TRANSITION(jackpot=jp.code, status=jp.status, to=status)
        old = jp.status
        jp.status = status
        jp.save(update_fields=["status"])
        audit_record(actor=actor, action="jackpots.status_changed", obj=jp, old={"status": old}, new={"status": status})
    snapshot_clear()
    return jp


APPROVAL_FIELDS = ("approval_plan_version", "approval_reference")  # GP §13(6), required to start a central level
CONFIG_FIELDS = (
    "family",
    "level",
    "pay_order",
    "games",
    "basis",
    "rate_ppm",
    "split",
    "background_ppm",
    "trigger",
    "draw_ppb",
    "reseed",
    "reset_value",
    "win_from",
    "win_to",
    "seed_per_coin",
    "reference_coin",
    "eligible",
)


def config_of(jp: Jackpot) -> dict[str, Any]:
    return {f: getattr(jp, f) for f in CONFIG_FIELDS}


def progressive_ensure(*, game_code: str, spec: dict[str, Any], actor: Actor) -> list[Jackpot]:
    """Create a game's own progressive levels as drafts, configured from the game's rules (games calls this at
    catalogue sync with ``Game.progressive()``): Kobushi's Sushi and Kobushi pools. No money moves here: staff
    start a level (``jackpot_start``, which funds its seed from the house) when the operator offers it. Existing
    levels are left as they are."""
    made = []
    for level, rate in sorted(spec["contribution_ppm"].items()):
        code = f"{game_code}-{level}"
        jp = Jackpot.objects.filter(code=code).first()
        if jp is None:
            jp = Jackpot.objects.create(
                code=code,
                name=spec["names"][level],
                name_cs=spec["names"][level],
                family=Jackpot.Family.KOBUSHI,
                level=level,
                pay_order=0,
                games=[game_code],
                basis=Jackpot.Basis.STAKE,
                rate_ppm=int(rate),
                trigger=Jackpot.Trigger.GAME_EVENT,
                reseed=Jackpot.Reseed.SEED_PER_COIN,
                seed_per_coin=int(spec["seed_per_coin"][level]),
                reference_coin=int(spec["reference_coin"]),
                eligible=dict(spec["eligible"]),
            )
            audit_record(actor=actor, action="jackpots.created", obj=jp, new=config_of(jp))
        made.append(jp)
    return made
