"""The providers' hot statement, as the SQL it is (see core/sql.py).

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
from core.sql import execute, instance_from_json, register
from games.models import Game
from providers.models import GameSession, Provider, ProviderTransaction

_PROVIDER_FIELDS = (
    "id",
    "code",
    "name",
    "enabled",
    "launch_url",
    "api_url",
    "secret",
    "allowed_sources",
    "currency",
    "created_at",
    "updated_at",
)
_SESSION_FIELDS = (
    "id",
    "session_hash",
    "player_id",
    "game_id",
    "provider_id",
    "login_session_id",
    "created_at",
    "expires_at",
)
_PLAYER_FIELDS = (
    "id",
    "user_id",
    "status",
    "created_at",
    "channel",
    "status_changed_at",
    "status_reason",
    "suspended_from",
    "checks_retry_at",
    "checks_attempts",
    "identity_verified_at",
    "aml_identified_at",
    "temporary_activated_at",
    "temporary_expires_at",
    "completed_at",
    "email_link_seq",
    "email_link_used_seq",
    "email_confirmed_at",
    "first_password_sent_at",
    "closure_requested_at",
    "closure_method",
    "closed_at",
    "balance_handoff",
    "balance_handoff_at",
    "balance_handoff_error",
    "barred_insider",
    "barred_insider_note",
    "exclusion_listed",
    "exclusion_checked_at",
    "aml_restriction",
    "terms_version_accepted",
    "anonymised_at",
)
_USER_FIELDS = (
    "id",
    "password",
    "last_login",
    "is_superuser",
    "username",
    "first_name",
    "last_name",
    "email",
    "is_staff",
    "is_active",
    "date_joined",
    "must_change_password",
)
_GAME_FIELDS = (
    "id",
    "code",
    "version",
    "name",
    "name_cs",
    "kind",
    "enabled",
    "current",
    "registered",
    "rtp",
    "rtp_with_jackpots",
    "min_bet",
    "max_bet",
    "max_win",
    "avg_hourly_loss",
    "unfinished_deadline_days",
    "synced_at",
    "approval_state",
    "approval_plan_version",
    "approval_reference",
    "approved_at",
    "approved_by_id",
    "provider",
    "provider_game_id",
)  # every field but the description
_TXN_FIELDS = (
    "id",
    "provider_id",
    "transaction_id",
    "kind",
    "player_id",
    "round_id",
    "provider_round_id",
    "bet_transaction_id",
    "amount",
    "credited",
    "request_sha256",
    "response_status",
    "response",
    "created_at",
)
_LOGIN_FIELDS = ("id", "player", "started_at", "last_seen_at", "ended_at", "end_reason")


def _txn(param: str) -> str:
    """The stored call of this provider whose ``transaction_id`` is the parameter ``param``, as JSON."""
    return f"""(SELECT json_build_object('id', t.id, 'provider_id', t.provider_id, 'transaction_id', t.transaction_id,
      'kind', t.kind, 'player_id', t.player_id, 'round_id', t.round_id, 'provider_round_id', t.provider_round_id,
      'bet_transaction_id', t.bet_transaction_id, 'amount', t.amount, 'credited', t.credited,
      'request_sha256', t.request_sha256, 'response_status', t.response_status, 'response', t.response,
      'created_at', t.created_at)
    FROM providers_providertransaction t
    WHERE t.provider_id = (SELECT p.id FROM providers_provider p WHERE p.code = %(provider)s)
      AND t.transaction_id = %({param})s)"""


CALL_CONTEXT = register(
    "providers.call_context",
    f"""SELECT
  (SELECT json_build_object('id', p.id, 'code', p.code, 'name', p.name, 'enabled', p.enabled,
      'launch_url', p.launch_url, 'api_url', p.api_url, 'secret', p.secret, 'allowed_sources', p.allowed_sources,
      'currency', p.currency, 'created_at', p.created_at, 'updated_at', p.updated_at)
    FROM providers_provider p
    WHERE p.code = %(provider)s),
  (SELECT json_build_object(
      'session', json_build_object('id', s.id, 'session_hash', s.session_hash, 'player_id', s.player_id,
          'game_id', s.game_id, 'provider_id', s.provider_id, 'login_session_id', s.login_session_id,
          'created_at', s.created_at, 'expires_at', s.expires_at),
      'player', json_build_object('id', pl.id, 'user_id', pl.user_id, 'status', pl.status,
          'created_at', pl.created_at, 'channel', pl.channel, 'status_changed_at', pl.status_changed_at,
          'status_reason', pl.status_reason, 'suspended_from', pl.suspended_from,
          'checks_retry_at', pl.checks_retry_at, 'checks_attempts', pl.checks_attempts,
          'identity_verified_at', pl.identity_verified_at, 'aml_identified_at', pl.aml_identified_at,
          'temporary_activated_at', pl.temporary_activated_at, 'temporary_expires_at', pl.temporary_expires_at,
          'completed_at', pl.completed_at, 'email_link_seq', pl.email_link_seq,
          'email_link_used_seq', pl.email_link_used_seq, 'email_confirmed_at', pl.email_confirmed_at,
          'first_password_sent_at', pl.first_password_sent_at, 'closure_requested_at', pl.closure_requested_at,
          'closure_method', pl.closure_method, 'closed_at', pl.closed_at, 'balance_handoff', pl.balance_handoff,
          'balance_handoff_at', pl.balance_handoff_at, 'balance_handoff_error', pl.balance_handoff_error,
          'barred_insider', pl.barred_insider, 'barred_insider_note', pl.barred_insider_note,
          'exclusion_listed', pl.exclusion_listed, 'exclusion_checked_at', pl.exclusion_checked_at,
          'aml_restriction', pl.aml_restriction, 'terms_version_accepted', pl.terms_version_accepted,
          'anonymised_at', pl.anonymised_at),
      'user', json_build_object('id', u.id, 'password', u.password, 'last_login', u.last_login,
          'is_superuser', u.is_superuser, 'username', u.username, 'first_name', u.first_name,
          'last_name', u.last_name, 'email', u.email, 'is_staff', u.is_staff, 'is_active', u.is_active,
          'date_joined', u.date_joined, 'must_change_password', u.must_change_password),
      'game', json_build_object('id', g.id, 'code', g.code, 'version', g.version, 'name', g.name,
          'name_cs', g.name_cs, 'kind', g.kind, 'enabled', g.enabled, 'current', g.current,
          'registered', g.registered, 'rtp', g.rtp, 'rtp_with_jackpots', g.rtp_with_jackpots,
          'min_bet', g.min_bet, 'max_bet', g.max_bet, 'max_win', g.max_win, 'avg_hourly_loss', g.avg_hourly_loss,
          'unfinished_deadline_days', g.unfinished_deadline_days, 'synced_at', g.synced_at,
          'approval_state', g.approval_state, 'approval_plan_version', g.approval_plan_version,
          'approval_reference', g.approval_reference, 'approved_at', g.approved_at,
          'approved_by_id', g.approved_by_id, 'provider', g.provider, 'provider_game_id', g.provider_game_id),
      'login', CASE WHEN ls.id IS NOT NULL THEN json_build_object('id', ls.id, 'player', ls.player_id,
          'started_at', ls.started_at, 'last_seen_at', ls.last_seen_at, 'ended_at', ls.ended_at,
          'end_reason', ls.end_reason) END)
    FROM providers_gamesession s
    JOIN accounts_player pl ON pl.id = s.player_id
    JOIN accounts_user u ON u.id = pl.user_id
    JOIN games_game g ON g.id = s.game_id
    LEFT JOIN accounts_loginsession ls ON ls.id = s.login_session_id
    WHERE s.session_hash = %(session)s
      AND s.provider_id = (SELECT p.id FROM providers_provider p WHERE p.code = %(provider)s)),
  {_txn("txn")},
  {_txn("bet_txn")}""",
    columns={
        Provider: _PROVIDER_FIELDS,
        GameSession: _SESSION_FIELDS,
        Player: (*_PLAYER_FIELDS, "user"),
        User: _USER_FIELDS,
        Game: _GAME_FIELDS,
        ProviderTransaction: _TXN_FIELDS,
        LoginSession: _LOGIN_FIELDS,
    },
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
        execute(
            cur,
            CALL_CONTEXT,
            {"provider": provider, "session": session_hash, "txn": transaction_id, "bet_txn": bet_transaction_id},
        )
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
    return CallContext(
        provider=provider_row,
        session=session,
        login=login,
        player=player,
        username=username,
        game=game,
        txn=_row(txn),
        bet=_row(bet),
    )


def _row(obj: dict[str, Any] | None) -> ProviderTransaction | None:
    return instance_from_json(ProviderTransaction, obj) if obj else None
