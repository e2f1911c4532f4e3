"""The platform's records a complaint names (GP §11(4)-(5)): the player's own game rounds and ledger transactions.

Plain imports of the games contract (``round_recall``, ``round_recall_any``, ``round_verify``). The only failure
turned into "not found" is the one those functions document, ``game.round_not_found``; anything else propagates.
The wallet offers no selector for one ledger transaction, so :func:`player_transaction` reads the wallet's
``LedgerTransaction`` (a read only, filtered by the player: another player's transaction is simply not found).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from complaints import errors
from complaints.errors import error
from complaints.models import Complaint, ComplaintItem
from core.errors import DomainError
from games.errors import ROUND_NOT_FOUND
from games.selectors import round_recall, round_recall_any, round_verify
from wallet.models import LedgerTransaction

if TYPE_CHECKING:
    from accounts.models import Player

MAX_ITEMS = 50


def _round_not_found(exc: DomainError) -> bool:
    return exc.code == ROUND_NOT_FOUND.code


# --- game rounds --------------------------------------------------------------------------------------------------
def player_round(player: Player, round_id: object) -> dict[str, Any] | None:
    """The player's own round as a recall dict, or None when it is not theirs or does not exist."""
    try:
        return round_recall(player, round_id)
    except DomainError as exc:
        if _round_not_found(exc):
            return None
        raise


def any_round(round_id: object) -> dict[str, Any] | None:
    """Staff recall of any round (rendered in the admin), or None when it does not exist."""
    try:
        return round_recall_any(round_id)
    except DomainError as exc:
        if _round_not_found(exc):
            return None
        raise


def round_replay(player: Player, round_id: object) -> dict[str, Any] | None:
    """The round re-run from its record (GP §11(5)), or None when it is not the player's round."""
    try:
        return round_verify(player, round_id)
    except DomainError as exc:
        if _round_not_found(exc):
            return None
        raise


def round_snapshot(record: dict[str, Any]) -> dict[str, Any]:
    """What the complaint keeps of a round at filing (the full recall is read live)."""
    game = record["game"]
    return {
        "game": game["code"],
        "version": game["version"],
        "status": record["status"],
        "play_money": record["play_money"],
        "stake": record["stake"],
        "win": record["win"],
        "started_at": record["started_at"],
        "settled_at": record["settled_at"],
    }


# --- ledger transactions ------------------------------------------------------------------------------------------
def player_transaction(player: Player, transaction_id: object) -> LedgerTransaction | None:
    """The player's own ledger transaction (the id is its primary key), or None when it is not theirs or does not
    exist; an id that is not a number within the database's range does not exist either."""
    try:
        pk = int(str(transaction_id).strip())
    except ValueError:
        return None
    if not 0 < pk < 2**63:
        return None
    return LedgerTransaction.objects.filter(pk=pk, player=player).first()


def transaction_snapshot(txn: LedgerTransaction) -> dict[str, Any]:
    """What the complaint keeps of a ledger transaction at filing."""
    return {
        "id": txn.pk,
        "kind": txn.kind,
        "reference": txn.reference,
        "amount": txn.amount,
        "currency": txn.currency,
        "created_at": txn.created_at,
        "description": txn.memo,
    }


# --- the items of a filing ----------------------------------------------------------------------------------------
def named_items(
    *, player: Player, kind: str, round_ids: Iterable[object], transaction_ids: Iterable[object]
) -> list[dict[str, Any]]:
    """Check that every named round and transaction is the player's own (GP §11(4)) and return the items to store
    (kind, object id, when it happened by the records, snapshot); nothing is stored yet. A win claim needs a
    settled round (GP §10(2) counts from the settlement)."""
    items: list[dict[str, Any]] = []
    for rid in dict.fromkeys(str(r).strip() for r in round_ids):
        record = player_round(player, rid)
        if record is None:
            raise error(errors.ROUND_NOT_YOURS, round_id=rid)
        started: datetime | None = record["started_at"]
        settled: datetime | None = record["settled_at"]
        if kind == Complaint.Kind.WIN_CLAIM and settled is None:
            raise error(errors.WIN_CLAIM_NEEDS_SETTLED_ROUND, round_id=rid)
        items.append(
            {
                "kind": ComplaintItem.Kind.ROUND,
                "object_id": rid,
                "occurred_at": settled or started,
                "summary": round_snapshot(record),
            }
        )
    for tid in dict.fromkeys(str(t).strip() for t in transaction_ids):
        txn = player_transaction(player, tid)
        if txn is None:
            raise error(errors.TRANSACTION_NOT_YOURS, transaction_id=tid)
        items.append(
            {
                "kind": ComplaintItem.Kind.TRANSACTION,
                "object_id": tid,
                "occurred_at": txn.created_at,
                "summary": transaction_snapshot(txn),
            }
        )
    if len(items) > MAX_ITEMS:
        raise error(errors.TOO_MANY_ITEMS, limit=MAX_ITEMS)
    return items
