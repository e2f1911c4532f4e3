"""The accounts' hot statement: the token of every API request with its user, login session and player, built
from the models' field lists (see core/sql.py) and mapped back with ``Model.from_db``; replaces the 3-4 ORM reads
of ``select_related("user", "session", "user__player")`` and its compilation per request. Pinned by every API
test, ``games/tests/platform/test_round_cost.py`` and ``tests/test_sql_contracts.py``."""
from __future__ import annotations

from django.db import connection
from django.db.models import Model

from accounts.models import AuthToken, LoginSession, Player, User
from core.sql import attnames, cols, execute, instance, register, table

_PARTS: tuple[tuple[str, type[Model], bool], ...] = (
    ("t", AuthToken, False), ("u", User, False), ("s", LoginSession, True), ("p", Player, True))
_FIELDS = {model: attnames(model) for _, model, _ in _PARTS}

TOKEN_WITH_OWNER = register(
    "accounts.token_with_owner",
    f"SELECT {', '.join(cols(model, _FIELDS[model], alias=alias) for alias, model, _ in _PARTS)} "
    f"FROM {table(AuthToken)} t "
    f"JOIN {table(User)} u ON u.id = t.user_id "
    f"LEFT JOIN {table(LoginSession)} s ON s.id = t.session_id "
    f"LEFT JOIN {table(Player)} p ON p.user_id = u.id "
    "WHERE t.key_hash = %(key_hash)s LIMIT 1",
    columns={**_FIELDS, AuthToken: (*_FIELDS[AuthToken], "user", "session", "key_hash"),
             Player: (*_FIELDS[Player], "user")},
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
    for _, model, optional in _PARTS:
        names = _FIELDS[model]
        values = row[start:start + len(names)]
        start += len(names)
        objs.append(None if optional and values[0] is None else instance(model, names, values))
    token, user, session, player = objs
    assert isinstance(token, AuthToken) and isinstance(user, User)
    assert session is None or isinstance(session, LoginSession)
    assert player is None or isinstance(player, Player)
    return token, user, session, player
