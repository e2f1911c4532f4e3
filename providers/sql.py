"""The providers' hot statement, built from the models (see core/sql.py).

* :data:`CALL_CONTEXT`: everything a signed provider call needs before it moves money, in ONE statement (each an
  index lookup): the provider row (its secret, switch and allowed sources), the game session with its player (and
  the player's user: the account checks and the audit's label read it), game and login session (the login the
  game session belongs to), the stored call of this ``transaction_id`` (the
  exactly-once lookup) and the call of ``bet_transaction_id`` (the bet a win or a rollback names). Replaces 4-6 ORM
  reads. The signature is checked in Python on what it returns, before anything is written.

Pinned by ``providers/tests/test_call_cost.py`` (statement counts) and ``tests/test_sql_contracts.py``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db import connection

from accounts.models import LoginSession, Player, User
from core.sql import attnames, col, execute, instance_from_json, json_object, register, table
from games.models import Game
from providers.models import GameSession, Provider, ProviderTransaction

_PROVIDER_FIELDS = attnames(Provider)
_SESSION_FIELDS = attnames(GameSession)
_PLAYER_FIELDS = attnames(Player)
_USER_FIELDS = attnames(User)
_GAME_FIELDS = attnames(Game, exclude=("description",))
_TXN_FIELDS = attnames(ProviderTransaction)
_LOGIN_FIELDS = ("id", "player", "started_at", "last_seen_at", "ended_at", "end_reason")
_PROVIDER_ID = f"(SELECT p.id FROM {table(Provider)} p WHERE p.{col(Provider, 'code')} = %(provider)s)"


def _txn(param: str) -> str:
    return (f"(SELECT {json_object(ProviderTransaction, 't', _TXN_FIELDS)} FROM {table(ProviderTransaction)} t "
            f"WHERE t.{col(ProviderTransaction, 'provider')} = {_PROVIDER_ID} "
            f"AND t.{col(ProviderTransaction, 'transaction_id')} = %({param})s)")


CALL_CONTEXT = register(
    "providers.call_context",
    f"""SELECT
  (SELECT {json_object(Provider, 'p', _PROVIDER_FIELDS)} FROM {table(Provider)} p
    WHERE p.{col(Provider, 'code')} = %(provider)s),
  (SELECT json_build_object('session', {json_object(GameSession, 's', _SESSION_FIELDS)},
                            'player', {json_object(Player, 'pl', _PLAYER_FIELDS)},
                            'user', {json_object(User, 'u', _USER_FIELDS)},
                            'game', {json_object(Game, 'g', _GAME_FIELDS)},
                            'login', CASE WHEN ls.id IS NOT NULL THEN {json_object(LoginSession, 'ls', _LOGIN_FIELDS)}
                                     END)
    FROM {table(GameSession)} s
    JOIN {table(Player)} pl ON pl.id = s.{col(GameSession, 'player')}
    JOIN {table(User)} u ON u.id = pl.{col(Player, 'user')}
    JOIN {table(Game)} g ON g.id = s.{col(GameSession, 'game')}
    LEFT JOIN {table(LoginSession)} ls ON ls.id = s.{col(GameSession, 'login_session')}
    WHERE s.{col(GameSession, 'session_hash')} = %(session)s AND s.{col(GameSession, 'provider')} = {_PROVIDER_ID}),
  {_txn('txn')},
  {_txn('bet_txn')}""",
    columns={Provider: _PROVIDER_FIELDS, GameSession: _SESSION_FIELDS, Player: (*_PLAYER_FIELDS, "user"),
             User: _USER_FIELDS, Game: _GAME_FIELDS, ProviderTransaction: _TXN_FIELDS, LoginSession: _LOGIN_FIELDS},
    params={"provider": str, "session": str, "txn": str, "bet_txn": str},
)


@dataclass
class CallContext:
    provider: Provider | None
    session: GameSession | None
    login: LoginSession | None
    player: Player | None
    username: str
    game: Game | None
    txn: ProviderTransaction | None
    bet: ProviderTransaction | None


def call_context(*, provider: str, session_hash: str, transaction_id: str, bet_transaction_id: str) -> CallContext:
    """Run :data:`CALL_CONTEXT` (empty strings look up nothing)."""
    with connection.cursor() as cur:
        execute(cur, CALL_CONTEXT, {"provider": provider, "session": session_hash, "txn": transaction_id,
                                       "bet_txn": bet_transaction_id})
        prov, sess, txn, bet = cur.fetchone()
    session = player = game = login = None
    username = ""
    if sess:
        session = instance_from_json(GameSession, sess["session"])
        player = instance_from_json(Player, sess["player"])
        game = instance_from_json(Game, sess["game"])
        user = instance_from_json(User, sess["user"])
        username = user.get_username()
        player._state.fields_cache["user"] = user  # the account state checks read it: no statement of their own
        session._state.fields_cache["player"] = player
        session._state.fields_cache["game"] = game
        if sess.get("login"):
            login = instance_from_json(LoginSession, sess["login"])
    provider_row = instance_from_json(Provider, prov) if prov else None
    return CallContext(provider=provider_row, session=session, login=login, player=player, username=username, game=game,
                       txn=_row(txn), bet=_row(bet))


def _row(obj: dict[str, Any] | None) -> ProviderTransaction | None:
    return instance_from_json(ProviderTransaction, obj) if obj else None
