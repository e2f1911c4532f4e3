"""The accounts' hot statement: the token of every API request with its user, login session and player, as the SQL
it is (see core/sql.py), mapped back with ``Model.from_db``; replaces the 3-4 ORM reads of
``select_related("user", "session", "user__player")`` and its compilation per request. Each row is read whole
(``tests/test_sql_contracts.py`` fails when a model gains a field the statement does not read). Pinned by every API
test, ``games/tests/platform/test_round_cost.py`` and ``tests/test_sql_contracts.py``."""

from __future__ import annotations

from django.db import connection
from django.db.models import Model

from accounts.models import AuthToken, LoginSession, Player, User
from core.sql import execute, instance, register

#: (model, its columns in the order the statement selects them, whether the row may be absent: a LEFT JOIN)
_PARTS: tuple[tuple[type[Model], tuple[str, ...], bool], ...] = (
    (
        AuthToken,
        ("id", "user_id", "key_hash", "created_at", "last_used_at", "revoked_at", "revoked_reason", "session_id"),
        False,
    ),
    (
        User,
        (
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
        ),
        False,
    ),
    (
        LoginSession,
        (
            "id",
            "player_id",
            "started_at",
            "last_seen_at",
            "ended_at",
            "end_reason",
            "end_detail",
            "ip_address",
            "user_agent",
        ),
        True,
    ),
    (
        Player,
        (
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
        ),
        True,
    ),
)
_FIELDS = {model: names for model, names, _ in _PARTS}

TOKEN_WITH_OWNER = register(
    "accounts.token_with_owner",
    """SELECT t.id, t.user_id, t.key_hash, t.created_at, t.last_used_at, t.revoked_at, t.revoked_reason, t.session_id,
       u.id, u.password, u.last_login, u.is_superuser, u.username, u.first_name, u.last_name, u.email, u.is_staff,
       u.is_active, u.date_joined, u.must_change_password,
       s.id, s.player_id, s.started_at, s.last_seen_at, s.ended_at, s.end_reason, s.end_detail, s.ip_address,
       s.user_agent,
       p.id, p.user_id, p.status, p.created_at, p.channel, p.status_changed_at, p.status_reason, p.suspended_from,
       p.checks_retry_at, p.checks_attempts, p.identity_verified_at, p.aml_identified_at, p.temporary_activated_at,
       p.temporary_expires_at, p.completed_at, p.email_link_seq, p.email_link_used_seq, p.email_confirmed_at,
       p.first_password_sent_at, p.closure_requested_at, p.closure_method, p.closed_at, p.balance_handoff,
       p.balance_handoff_at, p.balance_handoff_error, p.barred_insider, p.barred_insider_note, p.exclusion_listed,
       p.exclusion_checked_at, p.aml_restriction, p.terms_version_accepted, p.anonymised_at
FROM accounts_authtoken t
JOIN accounts_user u ON u.id = t.user_id
LEFT JOIN accounts_loginsession s ON s.id = t.session_id
LEFT JOIN accounts_player p ON p.user_id = u.id
WHERE t.key_hash = %(key_hash)s LIMIT 1""",
    columns={
        **_FIELDS,
        AuthToken: (*_FIELDS[AuthToken], "user", "session", "key_hash"),
        Player: (*_FIELDS[Player], "user"),
    },
    params={"key_hash": str},
)


def token_with_owner(key_hash: str) -> tuple[AuthToken, User, LoginSession | None, Player | None] | None:
    """Run :data:`TOKEN_WITH_OWNER`: the token, its user, its session and the user's player (None when absent)."""
    with connection.cursor() as cur:
        execute(cur, TOKEN_WITH_OWNER, {"key_hash": key_hash})
        row = cur.fetchone()
    if row is None:
        return None
    objs: list[Model | None] = []
    start = 0
    for model, names, optional in _PARTS:
        values = row[start : start + len(names)]
        start += len(names)
        objs.append(None if optional and values[0] is None else instance(model, names, values))
    token, user, session, player = objs
    assert isinstance(token, AuthToken) and isinstance(user, User)
    assert session is None or isinstance(session, LoginSession)
    assert player is None or isinstance(player, Player)
    return token, user, session, player
