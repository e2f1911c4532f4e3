"""The database: DATABASE_URL (config/database_url.py parses it, libpq's multi-host form included), else the
embedded PostgreSQL (pgserver) on a Unix socket in .data/pg. Importing the settings starts nothing: `make run`
(scripts/run.py), `make test` and conftest.py start the embedded server (config/embedded_db.py) and hand DATABASE_URL
to their children."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import BASE_DIR, env

env.area("Database")
EMBEDDED_PG_DIR = env.path(
    "EMBEDDED_PG_DIR", BASE_DIR / ".data" / "pg", "the embedded PostgreSQL's data directory (used without DATABASE_URL)"
)
_primary = env.database(
    "DATABASE_URL",
    "the primary database, postgres://USER:PASSWORD@HOST:PORT/NAME?options; "
    "several hosts for a failover cluster: postgres://u:pw@h1:5432,h2:5432/db?"
    "target_session_attrs=read-write; unset outside production: the embedded server",
    required=True,
)
DATABASES: dict[str, dict[str, Any]] = {
    "default": _primary
    or {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "postgres",
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": str(EMBEDDED_PG_DIR),
        "PORT": "",
    }
}
DATABASE_NAME = env.str(
    "DATABASE_NAME",
    "",
    "overrides the database name of DATABASE_URL (the test suite's child "
    "processes, such as a real Celery worker, point at the test database)",
)
if DATABASE_NAME:
    DATABASES["default"]["NAME"] = DATABASE_NAME
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
# Behind PgBouncer in transaction mode nothing outlives a transaction (no server-side cursors, CONN_MAX_AGE=0, no
# prepared statement; docs/scaling.md "One primary, PgBouncer in front").
DATABASE_POOLER = env.str(
    "DATABASE_POOLER",
    "",
    "pgbouncer when DATABASE_URL (and DATABASE_REPLICA_URL) point at a "
    "PgBouncer in transaction mode; empty: direct connections",
)
if DATABASE_POOLER not in ("", "pgbouncer"):
    raise ImproperlyConfigured(f"DATABASE_POOLER={DATABASE_POOLER!r}: the one pooler supported is 'pgbouncer'")
POOLED = DATABASE_POOLER == "pgbouncer"
DATABASES["default"]["CONN_MAX_AGE"] = env.int(
    "CONN_MAX_AGE",
    0 if POOLED else 60,
    "seconds a web worker keeps its database connection (default 0 with DATABASE_POOLER=pgbouncer)",
)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool(
    "CONN_HEALTH_CHECKS", True, "a kept connection the server closed is dropped before it is reused"
)
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = POOLED
# Django's PostgreSQL backend whose health check needs no round trip on a quiet connection (core/pgbackend/base.py):
# a connection the server ended is still dropped before it is reused.
DATABASES["default"]["ENGINE"] = "core.pgbackend"
# The hot statements (core/sql.py) as server-side prepared statements: prepared once per connection, planned once.
DATABASE_PREPARED_STATEMENTS = env.bool(
    "DATABASE_PREPARED_STATEMENTS",
    not POOLED,
    "the hot statements as "
    "server-side prepared statements (true unless DATABASE_POOLER=pgbouncer, "
    "where it is refused: a pooled connection serves other clients)",
)
if POOLED and DATABASE_PREPARED_STATEMENTS:
    raise ImproperlyConfigured(
        "DATABASE_PREPARED_STATEMENTS=1 with DATABASE_POOLER=pgbouncer: a server connection in "
        "transaction mode serves other clients, which do not have the statements prepared"
    )
# The stake-refusal log (limits) writes on its own autocommit connection, so a refusal is kept although the caller's
# transaction rolls back; behind PgBouncer a second entry is a pool of its own (docs/scaling.md).
DATABASES["refusal_log"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}
_side = env.database(
    "DATABASE_SIDE_URL",
    "behind PgBouncer: a second PgBouncer entry for the same database, the "
    "stake-refusal log's own pool; empty: the primary's address",
)
if _side:
    DATABASES["refusal_log"].update(
        {k: v for k, v in _side.items() if k in ("NAME", "HOST", "PORT", "USER", "PASSWORD")}
    )
# A streaming replica for reads that may lag (core/db_router.py, docs/scaling.md). Only code that says so reads there
# (`core.db_router.replica_reads()` or `.using(core.db_router.replica())`); money and limit decisions, and everything
# inside a transaction on the primary, read the primary. Tests mirror it to the test database.
_replica = env.database(
    "DATABASE_REPLICA_URL",
    "a streaming replica for reads that may lag (the same URL forms as DATABASE_URL); empty: every read on the primary",
)
if _replica:
    DATABASES["replica"] = {
        **_replica,
        "ATOMIC_REQUESTS": False,
        "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"],
        "CONN_HEALTH_CHECKS": True,
        "ENGINE": "core.pgbackend",
        "DISABLE_SERVER_SIDE_CURSORS": POOLED,
        "TEST": {"MIRROR": "default"},
    }
DATABASE_ROUTERS = ["core.db_router.ReplicaRouter"]
