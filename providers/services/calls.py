"""The signed calls of a provider (session, balance, bet, win, rollback, round-end), exactly once per (provider,
transaction_id): the call authenticated, the player and the round found, the call recorded with its answer
(:class:`~providers.models.ProviderTransaction`) and a refusal translated into the provider's vocabulary
(:func:`providers.errors.rs_status`). The rules of a round live in games (:mod:`games.services.remote`).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
from dataclasses import dataclass, field
from datetime import timedelta
from hashlib import sha256
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from accounts.models import LoginSession, Player
from accounts.services import session_activity
from core import clock
from core import errors as core_errors
from core.audit import Actor, security_event
from core.errors import DomainError
from core.jsonable import jsonable
from core.money import Money
from core.parsers import contains_nul, loads_bounded
from games import services as games
from games.models import Round
from providers import errors
from providers import sql as providers_sql
from providers.models import GameSession, LaunchToken, Provider, ProviderTransaction
from providers.services.staff import PROVIDER_CODE_RE, production_refusal, source_allowed
from providers.signing import body_sha256, signature_valid
from wallet.selectors import balance as wallet_balance

logger = logging.getLogger("providers")

ID_MAX = 100  # transaction and round ids
MAX_AMOUNT = 10**13
OPERATIONS = ("session", "balance", "bet", "play", "win", "rollback", "round-end")
KIND_OF = {
    "bet": ProviderTransaction.Kind.BET,
    "play": ProviderTransaction.Kind.BET,
    "win": ProviderTransaction.Kind.WIN,
    "rollback": ProviderTransaction.Kind.ROLLBACK,
    "round-end": ProviderTransaction.Kind.ROUND_END,
}


@dataclass
class Answer:
    """What a provider call gets: the HTTP status and the JSON body; ``replayed`` for a stored answer."""

    status: int
    body: dict[str, Any]
    replayed: bool = False
    headers: dict[str, str] = field(default_factory=dict)


def money(amount: int, currency: str = "CZK") -> dict[str, Any]:
    """Money in the wire shape ``{"amount": <haléře>, "currency": "CZK"}``."""
    return {"amount": int(amount), "currency": currency}


def _hash(value: str) -> str:
    return sha256(value.encode()).hexdigest()


def player_ref(provider: Provider | str, player_id: int) -> str:
    """The stable opaque player reference a provider sees (never the database id): an HMAC of the id."""
    code = provider.code if isinstance(provider, Provider) else provider
    return hmac.new(settings.SECRET_KEY.encode(), f"providers:{code}:{player_id}".encode(), sha256).hexdigest()[:32]


# --- the signed calls --------------------------------------------------------------------------------------------
@dataclass
class Call:
    """A signed call as it arrived."""

    provider_code: str
    operation: str
    raw_body: bytes
    timestamp: str
    signature: str
    source: str


def _error_answer(err: DomainError, *, balance: int | None = None) -> Answer:
    if balance is not None:
        err.details.setdefault("balance", money(balance))
    body = {"error": err.as_dict(), "status": errors.rs_status(err.code, err.status)}
    return Answer(status=err.status, body=jsonable(body))


def _text(body: dict[str, Any], name: str, *, required: bool = True, limit: int = ID_MAX) -> str:
    value = body.get(name)
    if value is None:
        if required:
            raise errors.WRONG_SYNTAX(reason=f"{name} is required", field=name)
        return ""
    if not isinstance(value, str):
        raise errors.WRONG_TYPES(field=name)
    if not 0 < len(value) <= limit:
        raise errors.WRONG_SYNTAX(reason=f"{name} must be 1-{limit} characters", field=name)
    return value


def _amount(body: dict[str, Any], name: str = "amount") -> Money:
    value = body.get(name)
    if not isinstance(value, dict):
        raise errors.WRONG_TYPES(field=name) if value is not None else errors.WRONG_SYNTAX(reason=f"{name} is required")
    amount, currency = value.get("amount"), value.get("currency")
    if isinstance(amount, bool) or not isinstance(amount, int) or not isinstance(currency, str):
        raise errors.WRONG_TYPES(field=name)
    if currency != settings.PLATFORM_CURRENCY:
        raise errors.WRONG_CURRENCY(currency=currency[:8])
    if not 0 <= amount < MAX_AMOUNT:
        raise errors.WRONG_SYNTAX(reason=f"{name} is out of range", field=name)
    return Money(amount, currency)


DETAIL_MAX_BYTES = 16_384
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")


def _round_detail(body: dict[str, Any], *, closing: bool) -> dict[str, Any] | None:
    """The studio's record of the round (GP §11(5)), required with the call that closes it: ``outcome`` (the
    round's result as the studio's JSON, at most 16 KB) and/or ``history_url`` (https) with ``sha256`` (lower-case
    hex of the record there; with an ``outcome`` alone it states the outcome's canonical JSON hash). None for a call
    that does not close a round (a detail there is not kept)."""
    if not closing:
        return None
    value = body.get("round_detail")
    if value is None:
        raise errors.ROUND_DETAIL_REQUIRED()
    if not isinstance(value, dict):
        raise errors.WRONG_TYPES(field="round_detail")
    unknown = set(value) - {"outcome", "history_url", "sha256"}
    if unknown:
        raise errors.ROUND_DETAIL_INVALID(reason=f"unknown fields {sorted(unknown)[:5]}")
    outcome, url, sha = value.get("outcome"), value.get("history_url"), value.get("sha256")
    if outcome is None and url is None:
        raise errors.ROUND_DETAIL_INVALID(reason="outcome or history_url is required")
    detail: dict[str, Any] = {}
    if outcome is not None:
        if not isinstance(outcome, dict | list):
            raise errors.ROUND_DETAIL_INVALID(reason="outcome must be a JSON object or array")
        if len(json.dumps(outcome, separators=(",", ":")).encode()) > DETAIL_MAX_BYTES:
            raise errors.ROUND_DETAIL_INVALID(reason=f"outcome is larger than {DETAIL_MAX_BYTES} bytes")
        detail["outcome"] = outcome
    if url is not None:
        if not isinstance(url, str) or not url.startswith("https://") or len(url) > 500:
            raise errors.ROUND_DETAIL_INVALID(reason="history_url must be an https URL of at most 500 characters")
        if sha is None:
            raise errors.ROUND_DETAIL_INVALID(reason="history_url comes with the sha256 of the record there")
        detail["history_url"] = url
    if sha is not None:
        if not isinstance(sha, str) or not SHA256_RE.match(sha):
            raise errors.ROUND_DETAIL_INVALID(reason="sha256 must be 64 lower-case hex digits")
        detail["sha256"] = sha
    return detail


def _flag(body: dict[str, Any], name: str) -> bool:
    value = body.get(name, False)
    if not isinstance(value, bool):
        raise errors.WRONG_TYPES(field=name)
    return value


def _parse(call: Call) -> dict[str, Any]:
    try:
        body = loads_bounded(call.raw_body.decode("utf-8") if call.raw_body else "")
    except (ValueError, UnicodeDecodeError):
        raise errors.WRONG_SYNTAX(reason="the body is not JSON")
    if not isinstance(body, dict):
        raise errors.WRONG_SYNTAX(reason="the body must be a JSON object")
    if contains_nul(body):
        raise errors.WRONG_SYNTAX(reason="NUL characters are not allowed")
    return body


def _authenticate(call: Call, ctx: providers_sql.CallContext) -> Provider:
    """The provider, its switch, the source address, the timestamp window and the signature."""
    provider = ctx.provider
    if provider is None:
        raise errors.PROVIDER_UNKNOWN()
    if not source_allowed(provider, call.source):
        raise errors.SOURCE_NOT_ALLOWED(source=call.source[:64])
    if not signature_valid(provider.secret, call.timestamp, call.raw_body, call.signature):
        raise errors.INVALID_SIGNATURE()
    try:
        sent = int(call.timestamp)
    except ValueError:
        raise errors.TIMESTAMP_OUTSIDE_WINDOW(window_seconds=settings.PROVIDERS_SIGNATURE_WINDOW_SECONDS)
    if abs(clock.now().timestamp() - sent) > settings.PROVIDERS_SIGNATURE_WINDOW_SECONDS:
        raise errors.TIMESTAMP_OUTSIDE_WINDOW(window_seconds=settings.PROVIDERS_SIGNATURE_WINDOW_SECONDS)
    if not provider.enabled:
        raise errors.PROVIDER_DISABLED(provider=provider.code)
    if production_refusal(provider):
        raise errors.PROVIDER_NOT_SECURED(provider=provider.code)
    return provider


def _security(call: Call, action: str, tried: str, **details: Any) -> None:
    security_event(
        action=action,
        source=call.source,
        tried=tried[:500],
        body=call.raw_body,
        provider=call.provider_code[:30],
        summarise=True,
        **details,
    )


def provider_call(call: Call) -> Answer:
    """Handle one signed call of a provider (docs/providers.md). Every outcome is an :class:`Answer` in the house
    error shape with the provider's status word; a call carrying a ``transaction_id`` is answered exactly once (the
    stored answer for a repeat with the same body; 409 and a security event for the same id with another body)."""
    if not PROVIDER_CODE_RE.match(call.provider_code) or call.operation not in OPERATIONS:
        return _error_answer(errors.PROVIDER_UNKNOWN())
    body: dict[str, Any] = {}
    try:
        parsed = _parse(call)
    except DomainError as exc:
        parsed_error: DomainError | None = exc
    else:
        parsed_error, body = None, parsed
    session_value = body.get("session") if isinstance(body.get("session"), str) else ""
    txn_id = body.get("transaction_id") if isinstance(body.get("transaction_id"), str) else ""
    bet_txn_id = body.get("bet_transaction_id") if isinstance(body.get("bet_transaction_id"), str) else ""
    if call.operation in ("bet",):
        bet_txn_id = ""
    if call.operation == "play":  # the win's id is looked up as well: a used one is a duplicate
        win = body.get("win")
        win_id = win.get("transaction_id") if isinstance(win, dict) else None
        bet_txn_id = win_id if isinstance(win_id, str) else ""
    ctx = providers_sql.call_context(
        provider=call.provider_code,
        session_hash=_hash(session_value) if session_value else "",
        transaction_id=txn_id[:ID_MAX] if txn_id else "",
        bet_transaction_id=bet_txn_id[:ID_MAX] if bet_txn_id else "",
    )
    try:
        provider = _authenticate(call, ctx)
    except DomainError as exc:
        if exc.code in (
            errors.INVALID_SIGNATURE.code,
            errors.TIMESTAMP_OUTSIDE_WINDOW.code,
            errors.SOURCE_NOT_ALLOWED.code,
            errors.PROVIDER_UNKNOWN.code,
        ):
            _security(
                call,
                "security.provider_call_refused",
                f"POST providers/{call.provider_code}/{call.operation}: {exc.code}",
            )
        return _error_answer(exc)
    if parsed_error is not None:
        return _error_answer(parsed_error)
    if ctx.login is not None:
        # the call is activity on the login its game session belongs to; a login past its idle time or age ends now,
        # in its own transaction (a refusal below rolls back only the call's own work)
        session_activity(session=ctx.login, now=clock.now())
    if call.operation == "session":
        return _guarded(lambda: _session(provider, body))
    if call.operation == "balance":
        return _guarded(lambda: _balance(ctx))
    return _exactly_once(call, provider, body, ctx)


def _guarded(fn: Any) -> Answer:
    try:
        answer: Answer = fn()
        return answer
    except DomainError as exc:
        return _error_answer(exc)


def _session(provider: Provider, body: dict[str, Any]) -> Answer:
    """The single-use launch token exchanged for a game session (a second use: invalid token)."""
    token = _text(body, "launch_token", limit=200)
    now = clock.now()
    with transaction.atomic():
        row = (
            LaunchToken.objects.select_for_update(no_key=True, of=("self",))
            .select_related("game", "player", "login_session")
            .filter(token_hash=_hash(token), provider=provider)
            .first()
        )
        if row is None or row.used_at is not None:
            raise errors.INVALID_TOKEN()
        if row.expires_at <= now:
            raise errors.TOKEN_EXPIRED()
        if row.login_session is None or session_activity(session=row.login_session, now=now) != "live":
            raise errors.LOGIN_ENDED()
        row.used_at = now
        row.save(update_fields=["used_at"])
        session = secrets.token_urlsafe(32)
        GameSession.objects.create(
            session_hash=_hash(session),
            player=row.player,
            game=row.game,
            provider=provider,
            login_session=row.login_session,
            created_at=now,
            expires_at=now + timedelta(seconds=settings.PROVIDERS_SESSION_SECONDS),
        )
    return Answer(
        200,
        {
            "status": errors.RS_OK,
            "session": session,
            "player": player_ref(provider, row.player_id),
            "game": row.game.provider_game_id,
            "currency": provider.currency,
            "balance": money(wallet_balance(row.player).amount),
        },
    )


def _live_session(ctx: providers_sql.CallContext, *, may_be_expired: bool = False) -> tuple[GameSession, Player]:
    """The game session of the call and its player. A game session belongs to one login: the call is activity on
    it (``accounts.session_activity``: the idle timeout runs from the studio's last call too), and once that login
    has ended a call that would start play (a bet, the balance) is refused (``providers.login_ended``).
    ``may_be_expired``: a call that only settles a bet already placed (a win, a rollback, a round end) is taken
    after the game session or the login ended: the player's win is theirs."""
    if ctx.session is None or ctx.player is None or ctx.login is None:
        raise errors.SESSION_INVALID()
    if may_be_expired:
        return ctx.session, ctx.player
    if ctx.login.ended_at is not None:
        raise errors.LOGIN_ENDED(login_ended=ctx.login.end_reason or LoginSession.EndReason.TIMEOUT)
    if ctx.session.expires_at <= clock.now():
        raise errors.SESSION_EXPIRED()
    return ctx.session, ctx.player


def _balance(ctx: providers_sql.CallContext) -> Answer:
    _, player = _live_session(ctx)
    return Answer(200, {"status": errors.RS_OK, "balance": money(wallet_balance(player).amount)})


def _actor(ctx: providers_sql.CallContext, provider: Provider) -> Actor:
    if ctx.player is not None:
        return Actor("player", str(ctx.player.pk), ctx.username or str(ctx.player.pk))
    return Actor.system(f"provider:{provider.code}")


def _replay(call: Call, stored: ProviderTransaction, sha: str) -> Answer:
    if stored.kind == ProviderTransaction.Kind.TOMBSTONE and call.operation == "bet":
        return _error_answer(errors.TRANSACTION_ROLLED_BACK(transaction_id=stored.transaction_id))
    if stored.request_sha256 != sha:
        _security(
            call,
            "security.provider_duplicate_transaction",
            f"POST providers/{call.provider_code}/{call.operation}: transaction {stored.transaction_id} "
            "again with another body",
            transaction_id=stored.transaction_id,
        )
        return _error_answer(errors.DUPLICATE_TRANSACTION(transaction_id=stored.transaction_id))
    return Answer(stored.response_status, dict(stored.response), replayed=True)


def _exactly_once(call: Call, provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext) -> Answer:
    """bet, win, rollback, round-end: the stored answer of this transaction id, or the call run once and its answer
    recorded in the same transaction as what it moved (a refusal in a transaction of its own)."""
    sha = body_sha256(call.raw_body)
    try:
        txn_id = _text(body, "transaction_id")
    except DomainError as exc:
        return _error_answer(exc)
    if ctx.txn is not None:
        return _replay(call, ctx.txn, sha)
    kind = KIND_OF[call.operation]
    try:
        with transaction.atomic():
            answer, rows = _run(call.operation, provider, body, ctx, txn_id)
            row, now = rows[0], clock.now()
            row.transaction_id, row.kind = txn_id, kind
            for r in rows:  # a play's win is a transaction of its own, with the same answer
                r.provider, r.request_sha256, r.created_at = provider, sha, now
                r.response_status, r.response = answer.status, answer.body
            if len(rows) == 1:
                row.save(force_insert=True)
            else:  # every row in one statement
                ProviderTransaction.objects.bulk_create(rows)
            return answer
    except IntegrityError as exc:
        if "providers_txn_unique_per_provider" not in str(exc):
            raise
        stored = ProviderTransaction.objects.filter(provider=provider, transaction_id=txn_id).first()
        if stored is None:  # a rollback's tombstone met its late bet at the same instant: nothing moved, retry
            return _error_answer(core_errors.UNAVAILABLE(retry_after_seconds=core_errors.RETRY_AFTER_SECONDS))
        return _replay(call, stored, sha)
    except DomainError as exc:
        if call.operation != "bet":
            # A refused win, rollback or round-end moved nothing and is not recorded: its repeat under the same id is
            # judged again. A win that came before its bet (out of order) is refused as unknown now and credited when
            # the provider retries it after the bet; every other refusal of these (a voided or settled round, a
            # rollback after a win) only ever stays as it is, since a round's state moves one way.
            player = ctx.player
            return _error_answer(exc, balance=wallet_balance(player).amount if player is not None else None)
        return _record_refusal(call, provider, body, ctx, txn_id, kind, sha, exc)


def _record_refusal(
    call: Call,
    provider: Provider,
    body: dict[str, Any],
    ctx: providers_sql.CallContext,
    txn_id: str,
    kind: str,
    sha: str,
    exc: DomainError,
) -> Answer:
    """A refused bet is recorded too (its repeat gets the same refusal, so a bet the provider retries after a lost
    answer can never debit later than the player was told it was refused), in its own transaction: the refusal
    rolled everything else back."""
    player = ctx.player
    answer = _error_answer(exc, balance=wallet_balance(player).amount if player is not None else None)
    try:
        with transaction.atomic():
            ProviderTransaction.objects.create(
                provider=provider,
                transaction_id=txn_id,
                kind=kind,
                player=player,
                provider_round_id=str(body.get("round_id"))[:ID_MAX] if isinstance(body.get("round_id"), str) else "",
                bet_transaction_id=str(body.get("bet_transaction_id"))[:ID_MAX]
                if isinstance(body.get("bet_transaction_id"), str)
                else "",
                amount=_amount_or_zero(body),
                request_sha256=sha,
                response_status=answer.status,
                response=answer.body,
                created_at=clock.now(),
            )
    except IntegrityError:
        stored = ProviderTransaction.objects.filter(provider=provider, transaction_id=txn_id).first()
        if stored is not None:
            return _replay(call, stored, sha)
    return answer


def _amount_or_zero(body: dict[str, Any]) -> int:
    value = body.get("amount")
    amount = value.get("amount") if isinstance(value, dict) else None
    return amount if isinstance(amount, int) and not isinstance(amount, bool) and 0 <= amount < MAX_AMOUNT else 0


def _run(
    operation: str, provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, list[ProviderTransaction]]:
    """The call's answer and its transactions to record (the call's own first)."""
    if operation == "play":
        return _play(provider, body, ctx, txn_id)
    handler = {"bet": _bet, "win": _win, "rollback": _rollback}.get(operation, _round_end)
    answer, row = handler(provider, body, ctx, txn_id)
    return answer, [row]


def _bet(
    provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, ProviderTransaction]:
    round_id = _text(body, "round_id")
    amount = _amount(body)
    closed = _flag(body, "round_closed")
    detail = _round_detail(body, closing=closed)
    game_id = _text(body, "game", required=False)
    session, player = _live_session(ctx)
    game = ctx.game
    assert game is not None
    if game.provider != provider.code or (game_id and game_id != game.provider_game_id):
        raise errors.GAME_INVALID(game=(game_id or game.code)[:60])
    result = games.remote_bet(
        player=player,
        game=game,
        round_id=round_id,
        transaction_id=txn_id,
        amount=amount,
        closed=closed,
        actor=_actor(ctx, provider),
        detail=detail,
    )
    rnd = result.round
    answer = Answer(
        200,
        {
            "status": errors.RS_OK,
            "balance": money(result.balance),
            "transaction_id": txn_id,
            "platform_transaction_id": f"round:{rnd.pk}:bet",
        },
    )
    return answer, ProviderTransaction(
        player=player, round=rnd, provider_round_id=round_id, amount=amount.amount, credited=amount.amount
    )


def _play(
    provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, list[ProviderTransaction]]:
    """A one-shot round in one call: the bet (``transaction_id``, ``amount``), the studio's win (``win``:
    ``{"transaction_id", "amount"}``, absent for a loss) and the studio's record of the round (``round_detail``)."""
    round_id = _text(body, "round_id")
    amount = _amount(body)
    detail = _round_detail(body, closing=True)
    game_id = _text(body, "game", required=False)
    win_body = body.get("win")
    win_txn, won = "", Money(0, amount.currency)
    if win_body is not None:
        if not isinstance(win_body, dict):
            raise errors.WRONG_TYPES(field="win")
        win_txn = _text(win_body, "transaction_id")
        won = _amount(win_body)
        if win_txn == txn_id:
            raise errors.WRONG_SYNTAX(reason="the win's transaction_id is the bet's", field="win")
        if ctx.bet is not None:  # that id was used before
            raise errors.DUPLICATE_TRANSACTION(transaction_id=win_txn)
    _, player = _live_session(ctx)
    game = ctx.game
    assert game is not None and detail is not None
    if game.provider != provider.code or (game_id and game_id != game.provider_game_id):
        raise errors.GAME_INVALID(game=(game_id or game.code)[:60])
    result = games.remote_play(
        player=player,
        game=game,
        round_id=round_id,
        transaction_id=txn_id,
        amount=amount,
        win_transaction_id=win_txn,
        win=won,
        actor=_actor(ctx, provider),
        detail=detail,
    )
    rnd = result.round
    answer = Answer(
        200,
        {
            "status": errors.RS_OK,
            "balance": money(result.balance),
            "transaction_id": txn_id,
            "platform_transaction_id": f"round:{rnd.pk}:bet",
            "credited": money(result.moved),
            "win_capped": result.capped,
            "round_status": rnd.status,
        },
    )
    rows = [
        ProviderTransaction(
            player=player, round=rnd, provider_round_id=round_id, amount=amount.amount, credited=amount.amount
        )
    ]
    if win_txn:
        rows.append(
            ProviderTransaction(
                transaction_id=win_txn,
                kind=ProviderTransaction.Kind.WIN,
                player=player,
                round=rnd,
                provider_round_id=round_id,
                bet_transaction_id=txn_id,
                amount=won.amount,
                credited=result.moved,
            )
        )
    return answer, rows


def _bet_of(ctx: providers_sql.CallContext, body: dict[str, Any]) -> tuple[ProviderTransaction, str, str]:
    """The bet a win or a rollback names: known, not rolled back, of this round."""
    bet_txn_id = _text(body, "bet_transaction_id")
    round_id = _text(body, "round_id")
    bet = ctx.bet
    if bet is not None and bet.kind == ProviderTransaction.Kind.TOMBSTONE:
        raise errors.TRANSACTION_ROLLED_BACK(transaction_id=bet_txn_id)
    if bet is None or bet.kind != ProviderTransaction.Kind.BET or bet.response_status != 200 or bet.round_id is None:
        raise errors.TRANSACTION_UNKNOWN(transaction_id=bet_txn_id)
    if bet.provider_round_id != round_id:
        raise errors.ROUND_MISMATCH(transaction_id=bet_txn_id, round_id=round_id)
    return bet, bet_txn_id, round_id


def _owner(ctx: providers_sql.CallContext, bet: ProviderTransaction) -> Player:
    _, player = _live_session(ctx, may_be_expired=True)
    if player.pk != bet.player_id:
        raise errors.SESSION_INVALID()
    return player


def _win(
    provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, ProviderTransaction]:
    amount = _amount(body)
    closed = _flag(body, "round_closed")
    detail = _round_detail(body, closing=closed)
    bet, bet_txn_id, round_id = _bet_of(ctx, body)
    player = _owner(ctx, bet)
    assert bet.round_id is not None
    result = games.remote_win(
        player=player,
        round_pk=bet.round_id,
        transaction_id=txn_id,
        amount=amount,
        closed=closed,
        actor=_actor(ctx, provider),
        detail=detail,
    )
    seq = len(((result.round.state or {}).get("remote") or {}).get("transactions", [])) - 1
    answer = Answer(
        200,
        {
            "status": errors.RS_OK,
            "balance": money(result.balance),
            "transaction_id": txn_id,
            "platform_transaction_id": f"round:{bet.round_id}:win:{seq}",
            "credited": money(result.moved),
            "win_capped": result.capped,
        },
    )
    return answer, ProviderTransaction(
        player=player,
        round_id=bet.round_id,
        provider_round_id=round_id,
        bet_transaction_id=bet_txn_id,
        amount=amount.amount,
        credited=result.moved,
    )


def _rollback(
    provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, ProviderTransaction]:
    bet_txn_id = _text(body, "bet_transaction_id")
    round_id = _text(body, "round_id")
    bet = ctx.bet
    if bet is None or bet.kind == ProviderTransaction.Kind.TOMBSTONE or bet.response_status != 200:
        # a bet never seen (or refused, or already a tombstone): nothing moves; an unseen bet's id is recorded as a
        # tombstone so that the late bet is refused
        _, player = _live_session(ctx, may_be_expired=True)
        if bet is None:
            ProviderTransaction.objects.create(
                provider=provider,
                transaction_id=bet_txn_id,
                kind=ProviderTransaction.Kind.TOMBSTONE,
                player=player,
                provider_round_id=round_id,
                request_sha256="",
                response_status=409,
                response={"rolled_back_by": txn_id},
                created_at=clock.now(),
            )
        answer = Answer(
            200,
            {
                "status": errors.RS_OK,
                "balance": money(wallet_balance(player).amount),
                "transaction_id": txn_id,
                "platform_transaction_id": "",
            },
        )
        return answer, ProviderTransaction(player=player, provider_round_id=round_id, bet_transaction_id=bet_txn_id)
    if bet.provider_round_id != round_id:
        raise errors.ROUND_MISMATCH(transaction_id=bet_txn_id, round_id=round_id)
    player = _owner(ctx, bet)
    assert bet.round_id is not None
    result = games.remote_rollback(
        player=player, round_pk=bet.round_id, transaction_id=txn_id, actor=_actor(ctx, provider)
    )
    answer = Answer(
        200,
        {
            "status": errors.RS_OK,
            "balance": money(result.balance),
            "transaction_id": txn_id,
            "platform_transaction_id": f"round:{bet.round_id}:refund",
        },
    )
    return answer, ProviderTransaction(
        player=player,
        round_id=bet.round_id,
        provider_round_id=round_id,
        bet_transaction_id=bet_txn_id,
        amount=bet.amount,
        credited=result.moved,
    )


def _round_end(
    provider: Provider, body: dict[str, Any], ctx: providers_sql.CallContext, txn_id: str
) -> tuple[Answer, ProviderTransaction]:
    round_id = _text(body, "round_id")
    detail = _round_detail(body, closing=True)
    _, player = _live_session(ctx, may_be_expired=True)
    round_pk = (
        Round.objects.filter(player=player, idempotency_key=games.remote_key(provider.code, round_id))
        .values_list("pk", flat=True)
        .first()
    )
    if round_pk is None:
        raise errors.TRANSACTION_UNKNOWN(round_id=round_id)
    result = games.remote_round_end(
        player=player, round_pk=round_pk, transaction_id=txn_id, actor=_actor(ctx, provider), detail=detail
    )
    answer = Answer(
        200,
        {
            "status": errors.RS_OK,
            "balance": money(result.balance),
            "transaction_id": txn_id,
            "round_status": result.round.status,
            "win": money(result.round.win),
        },
    )
    return answer, ProviderTransaction(player=player, round_id=round_pk, provider_round_id=round_id)
