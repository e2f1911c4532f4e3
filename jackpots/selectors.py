"""Jackpot reads: the values shown to players, the wins (public and the player's own), the books of a pool."""

from __future__ import annotations

from typing import Any

from django.db.models import Sum

from jackpots import sql
from jackpots.archived_totals import carried_by_pool
from jackpots.levels import enabled
from jackpots.models import MICRO, Award, Contribution, Fold, Jackpot, Pending


def _pending(ids: list[int]) -> dict[int, tuple[int, int]]:
    """{jackpot id: (pending active, pending future)} in micro-haléře: the sums of the pending rows (contributions
    not yet folded), the books' independent figure beside the running counter's."""
    rows = (
        Pending.objects.filter(jackpot_id__in=ids)
        .values("jackpot_id")
        .annotate(a=Sum("active_micro"), f=Sum("future_micro"))
    )
    return {r["jackpot_id"]: (r["a"] or 0, r["f"] or 0) for r in rows}


def live_values(jackpots: list[Jackpot]) -> dict[int, tuple[int, int]]:
    """{jackpot id: (active pot, future pot)} in whole haléře, folded value plus the pending contributions (by the
    pools' running counters)."""
    pending = sql.pending_by_counter([j.pk for j in jackpots]) if jackpots else {}
    out = {}
    for j in jackpots:
        a, f = pending.get(j.pk, (0, 0))
        out[j.pk] = (max(j.amount_micro + a, 0) // MICRO, max(j.future_micro + f, 0) // MICRO)
    return out


def kobushi_value(value: int, jp: Jackpot, coin_value: int) -> int:
    """Seed 000 §9: the value shown and paid is proportional to the selected coin value."""
    return value * coin_value // jp.reference_coin if jp.reference_coin else 0


def jackpots_display(*, game_code: str | None = None, coin_value: int | None = None) -> dict[str, Any]:
    """The running levels with their current values (for display; refreshed by the client every few seconds).

    A must-hit level shows its range and the commitment to its hidden WIN_AT (sha256), never WIN_AT itself. A
    Kobushi level shows its value at the reference coin and, with ``coin_value``, at that coin value."""
    if not enabled():
        return {"enabled": False, "jackpots": []}
    levels = [
        j
        for j in Jackpot.objects.filter(status=Jackpot.Status.RUNNING).order_by("family", "pay_order", "id")
        if game_code is None or not j.games or game_code in j.games
    ]
    values = live_values(levels)
    out = []
    for j in levels:
        active, _future = values[j.pk]
        item: dict[str, Any] = {
            "code": j.code,
            "name": j.name,
            "name_cs": j.name_cs,
            "family": j.family,
            "level": j.level,
            "games": j.games or "all",
            "trigger": j.trigger,
            "value": active,
            "run": j.generation,
            "pay_order": j.pay_order,
        }
        if j.trigger == Jackpot.Trigger.MUST_HIT:
            item["must_hit"] = {"range": [j.win_from, j.win_to], "commitment": j.win_at_commitment}
        elif j.trigger == Jackpot.Trigger.DRAW:
            item["draw"] = {"range": [j.win_from, j.win_to], "chance_per_stake_ppb": j.draw_ppb}
        else:
            item["eligible"] = j.eligible
            item["reference_coin"] = j.reference_coin
            item["seed_per_coin"] = j.seed_per_coin
            if coin_value:
                item["value_at_coin"] = kobushi_value(active, j, coin_value)
        out.append(item)
    return {"enabled": True, "jackpots": out}


def award_row(a: Award, *, public: bool) -> dict[str, Any]:
    row: dict[str, Any] = {
        "id": a.pk,
        "jackpot": a.jackpot.code,
        "name": a.jackpot.name,
        "name_cs": a.jackpot.name_cs,
        "level": a.jackpot.level,
        "run": a.generation,
        "game": a.game_code,
        "round_id": a.round_id,
        "status": a.status,
        "amount": a.amount,
        "paid": a.paid,
        "returned_to_pool": a.returned,
        "decided_at": a.decided_at.isoformat(),
        "settled_at": a.settled_at.isoformat() if a.settled_at else None,
    }
    if a.win_at is not None:  # revealed once won: anyone can check the commitment published at the start
        row["must_hit"] = {
            "win_at": a.win_at,
            "salt": a.win_at_nonce,
            "commitment": a.win_at_commitment,
            "check": "sha256(code|run|win_at in haléře|salt) == commitment",
        }
    if a.coin_value:
        row["coin_value"] = a.coin_value
    if public:
        row.pop("returned_to_pool")
    return row


def wins_public(*, limit: int = 50) -> list[dict[str, Any]]:
    """The latest paid jackpot wins, without anything that names the player."""
    qs = Award.objects.filter(status=Award.Status.PAID).select_related("jackpot").order_by("-decided_at", "-id")
    return [award_row(a, public=True) for a in qs[:limit]]


def wins_of_player(*, player_id: int, limit: int = 100) -> list[dict[str, Any]]:
    """One player's jackpot wins (decided, paid or reversed), with the round each came from."""
    qs = Award.objects.filter(player_id=player_id).select_related("jackpot").order_by("-decided_at", "-id")
    return [award_row(a, public=False) for a in qs[:limit]]


def pool_books(jp: Jackpot) -> dict[str, Any]:
    """The pool's own account of itself (admin, jackpot_check): value, ledger, contributions (the folded log: the
    archived months' carried totals plus the live rows), seeds, awards."""
    folded = Contribution.objects.filter(jackpot=jp).aggregate(a=Sum("active_micro"), f=Sum("future_micro"))
    clamped = Fold.objects.filter(jackpot=jp).aggregate(c=Sum("clamped_micro"))["c"] or 0
    pending = _pending([jp.pk]).get(jp.pk, (0, 0))
    return {
        "value_micro": jp.amount_micro + jp.future_micro,
        "pending_micro": sum(pending),
        "pending_rows_micro": pending,
        "pending_counter_micro": sql.pending_by_counter([jp.pk]).get(jp.pk, (0, 0)),
        "contributed_micro": jp.contributed_micro,
        "log_folded_micro": carried_by_pool(jp.pk) + (folded["a"] or 0) + (folded["f"] or 0),
        "clamped_micro": clamped,
        "seeded": jp.seeded,
        "awarded": jp.awarded,
        "returned": jp.returned,
        "expected_value_micro": jp.contributed_micro + clamped + (jp.seeded - jp.awarded + jp.returned) * MICRO,
        "ledger_balance": jp.ledger_balance,
    }


def award_paid_reference(award_id: int) -> str:
    """The wallet reference of an award's payment to the player (its ``win`` posting)."""
    return f"jackpot:{award_id}:paid"


def round_award_win_references(round_id: int) -> list[str]:
    """The wallet references of the jackpot wins a round paid to its player (``win`` postings), oldest first."""
    ids = Award.objects.filter(round_id=round_id, paid__gt=0).order_by("pk").values_list("pk", flat=True)
    return [award_paid_reference(pk) for pk in ids]
