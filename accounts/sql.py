"""The accounts' hot statement: the token of every API request with its user, login session and player, as the SQL
it is (see core/sql.py), mapped back with ``Model.from_db``; replaces the 3-4 ORM reads of
``select_related("user", "session", "user__player")`` and its compilation per request.

Each row is read in the columns API requests use (:data:`_PARTS`); the others are deferred (:data:`DEFERRED`, each
with the endpoints that read it: Django loads a deferred field on its first access by a statement of its own, correct
but a statement more, so only fields no frequent request reads are left out). The 60 columns of the whole rows cost
each request a column name decoded and a value converted and set per column (~6 % of a settled round's web CPU
for this one statement). ``tests/test_sql_contracts.py`` fails when a model gains a field that is neither read nor
declared deferred here; ``accounts/tests/test_token_columns.py`` fails when a round's start, an action, the balance
or the wallet's endpoints load a deferred field (``accounts/tests/deferred_loads.py`` records them; run as a plugin
over the API tests it lists every reader, how this list was chosen). Pinned by every API test,
``games/tests/platform/test_round_cost.py`` and ``tests/test_sql_contracts.py``."""

from __future__ import annotations

from django.db import connection
from django.db.models import Model

from accounts.models import AuthToken, LoginSession, Player, User
from core.sql import execute, instance, register

#: (model, its columns in the order the statement selects them, whether the row may be absent: a LEFT JOIN)
_PARTS: tuple[tuple[type[Model], tuple[str, ...], bool], ...] = (
    # the authentication itself (accounts/auth.py): revoked, its session, the once-a-minute activity write
    (AuthToken, ("id", "user_id", "session_id", "revoked_at", "last_used_at"), False),
    # is_active / must_change_password: the authentication (GP §4(7)); username: the audit's actor, /me; is_staff,
    # is_superuser: the staff API's permissions (core/permissions.py)
    (User, ("id", "username", "is_active", "must_change_password", "is_staff", "is_superuser"), False),
    # the idle and maximum-age timeouts (accounts.services.sessions.session_activity)
    (LoginSession, ("id", "player_id", "started_at", "last_seen_at", "ended_at"), True),
    # accounts.selectors.betting_refusal (every round's start and action, GP §3(5), §4, §5) and
    # money_movement_refusal (the wallet's deposits and withdrawals), the wallet's method-verification deadline
    # (created_at, temporary_activated_at: GP §5(9), §5(11)), /me (completed_at), the AML status and thresholds
    # (aml_identified_at)
    (
        Player,
        (
            "id",
            "user_id",
            "status",
            "status_reason",
            "temporary_expires_at",
            "exclusion_listed",
            "exclusion_checked_at",
            "barred_insider",
            "aml_restriction",
            "terms_version_accepted",
            "created_at",
            "temporary_activated_at",
            "completed_at",
            "aml_identified_at",
        ),
        True,
    ),
)

#: the fields the statement leaves deferred, and who reads them (a statement each, on those requests only)
DEFERRED: dict[type[Model], dict[str, str]] = {
    AuthToken: {
        "key_hash": "the statement's own WHERE; no request reads it back",
        "created_at": "the sessions' page and the admin read tokens by their own queries",
        "revoked_reason": "written by logout and revocations, never read back by a request",
    },
    User: {
        "password": "the password change (check_password), once",
        "first_name": "the password change's similarity validator",
        "last_name": "the password change's similarity validator",
        "email": "the password change's similarity validator (a player's e-mail is in PersonalData)",
        "last_login": "the personal-data export",
        "date_joined": "no API request",
    },
    LoginSession: {
        "end_reason": "written when the session ends; the sessions' list reads sessions by its own query",
        "end_detail": "written when the session ends, with end_reason",
        "ip_address": "the sessions' list (its own query)",
        "user_agent": "the sessions' list (its own query)",
    },
    Player: {
        "channel": "the personal-data export",
        "status_changed_at": "staff and the lifecycle services (their own rows)",
        "suspended_from": "staff and the lifecycle services (their own rows)",
        "checks_retry_at": "the registration steps (a registering player's polling)",
        "checks_attempts": "the registration's register checks (their own rows)",
        "identity_verified_at": "the registration steps and the export",
        "email_link_seq": "the e-mail confirmation (its own row)",
        "email_link_used_seq": "the e-mail confirmation (its own row)",
        "email_confirmed_at": "the registration steps and the export",
        "first_password_sent_at": "the registration steps",
        "closure_requested_at": "the export; the closure service locks its own row",
        "closure_method": "the personal-data export",
        "closed_at": "the personal-data export",
        "balance_handoff": "the closure's balance hand-off (staff, jobs)",
        "balance_handoff_at": "the closure's balance hand-off (staff, jobs)",
        "balance_handoff_error": "the closure's balance hand-off (staff, jobs)",
        "barred_insider_note": "staff only (the admin's own rows)",
        "anonymised_at": "the anonymisation job",
    },
}
_FIELDS = {model: names for model, names, _ in _PARTS}
_ALIAS = {AuthToken: "t", User: "u", LoginSession: "s", Player: "p"}

TOKEN_WITH_OWNER = register(
    "accounts.token_with_owner",
    "SELECT "
    + ",\n       ".join(", ".join(f"{_ALIAS[m]}.{n}" for n in names) for m, names, _ in _PARTS)
    + """
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
