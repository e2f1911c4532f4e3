"""The complaints app's only contact points with the games and wallet apps (lazy imports, contract names).

Everything the app needs from another app goes through these few functions, so a renamed contract function is
adapted here once. No fallback fakes: when the other app's function is missing, the caller gets
``complaints.dependency_unavailable`` (503) and nothing is stored.

* ``games.selectors.round_recall(player, round_id) -> dict`` (raises ``game.round_not_found`` for a round that is
  not the player's) and ``games.selectors.round_recall_any(round_id) -> dict`` (staff).
* ``wallet.services.adjustment_credit(*, player, amount, reference, reason, actor)`` (idempotent on reference).
* one ledger transaction of the player: see :func:`player_transaction`.
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.dateparse import parse_datetime

from complaints import errors
from complaints.errors import error
from core.errors import DomainError


def _unavailable(service: str, exc: Exception) -> DomainError:
    return error(errors.DEPENDENCY_UNAVAILABLE, service=service, detail=f"{exc.__class__.__name__}: {exc}"[:200])


def _dt(value: Any) -> datetime | None:
    if value is None or isinstance(value, datetime):
        return value
    return parse_datetime(str(value))


def _get(record: Any, key: str, default=None):
    if isinstance(record, dict):
        return record.get(key, default)
    return getattr(record, key, default)


# --- games --------------------------------------------------------------------------------------------------------
def player_round(player, round_id) -> dict | None:
    """The player's own round as a recall dict, or None when it is not theirs (or does not exist)."""
    try:
        from games.selectors import round_recall
    except ImportError as exc:
        raise _unavailable("games", exc)
    try:
        record = round_recall(player, round_id)
    except DomainError as exc:
        if exc.status == 404:
            return None
        raise
    except (LookupError, ValueError, TypeError):
        return None
    return record or None


def any_round(round_id) -> dict | None:
    """Staff recall of any round (rendered in the admin), or None when it does not exist."""
    try:
        from games.selectors import round_recall_any
    except ImportError as exc:
        raise _unavailable("games", exc)
    try:
        return round_recall_any(round_id)
    except DomainError as exc:
        if exc.status == 404:
            return None
        raise
    except (LookupError, ValueError, TypeError):
        return None


def round_replay(player, round_id) -> dict | None:
    """``games.selectors.round_verify(player, round_id)``: the round re-run from its record (GP §11(5)); None
    when the games app cannot tell."""
    try:
        from games.selectors import round_verify
    except ImportError:
        return None
    try:
        return round_verify(player, round_id)
    except DomainError:
        return None


def round_times(record: dict) -> tuple[datetime | None, datetime | None]:
    """(started_at, settled_at) of a recall record."""
    return _dt(_get(record, "started_at")), _dt(_get(record, "settled_at"))


def round_snapshot(record: dict) -> dict:
    """What the complaint keeps of a round at filing (the full recall is read live)."""
    game = _get(record, "game") or {}
    return {
        "game": game.get("code") if isinstance(game, dict) else str(game),
        "version": game.get("version") if isinstance(game, dict) else None,
        "status": _get(record, "status"),
        "play_money": _get(record, "play_money"),
        "stake": _get(record, "stake"),
        "win": _get(record, "win"),
        "started_at": _get(record, "started_at"),
        "settled_at": _get(record, "settled_at"),
    }


# --- wallet -------------------------------------------------------------------------------------------------------
def player_transaction(player, transaction_id) -> dict | None:
    """The player's own ledger transaction as a plain dict, or None when it is not theirs (or does not exist).

    The wallet contract has no selector for one transaction; ``wallet.selectors.transaction_for_player(player,
    transaction_id)`` is used when the wallet offers it, else this reads ``wallet.models.LedgerTransaction``
    (a read only, filtered by the player: another player's transaction is simply not found)."""
    try:
        from wallet import selectors as wallet_selectors
    except ImportError:
        wallet_selectors = None
    fn = getattr(wallet_selectors, "transaction_for_player", None)
    if fn is not None:
        try:
            record = fn(player, transaction_id)
        except DomainError as exc:
            if exc.status == 404:
                return None
            raise
        except (LookupError, ValueError, TypeError):
            return None
        return record or None
    try:
        from wallet.models import LedgerTransaction
    except ImportError as exc:
        raise _unavailable("wallet", exc)
    try:
        pk = int(str(transaction_id).strip())
    except ValueError:
        return None
    if not 0 < pk < 2**63:
        return None
    txn = LedgerTransaction.objects.filter(pk=pk, player=player).first()
    if txn is None:
        return None
    return {"id": txn.pk, "kind": txn.kind, "reference": txn.reference, "amount": txn.amount,
            "currency": txn.currency, "created_at": txn.created_at, "description": txn.memo}


def transaction_time(record) -> datetime | None:
    for key in ("occurred_at", "created_at", "posted_at", "at"):
        value = _dt(_get(record, key))
        if value is not None:
            return value
    return None


def transaction_snapshot(record) -> dict:
    keys = ("id", "kind", "type", "reference", "amount", "currency", "occurred_at", "created_at", "description")
    return {k: _get(record, k) for k in keys if _get(record, k) is not None}


def credit(*, player, amount, reference: str, reason: str, actor):
    """Credit a complaint remedy to the player (idempotent on ``reference``); returns the ledger transaction."""
    try:
        from wallet.services import adjustment_credit
    except ImportError as exc:
        raise _unavailable("wallet", exc)
    return adjustment_credit(player=player, amount=amount, reference=reference, reason=reason, actor=actor)


def transaction_id_of(txn) -> str:
    for key in ("pk", "id", "reference"):
        value = _get(txn, key)
        if value not in (None, ""):
            return str(value)
    return ""
