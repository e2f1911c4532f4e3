"""A connection warmed before it serves (``core.sql.warm_hot_statements`` / ``connection_warm``, called by each new
gunicorn worker's threads, config/gunicorn.conf.py "Warm workers"): every prepared hot statement has its generic plan
built ahead (EXPLAIN: nothing runs), and nothing is opened where connections are not kept or statements not prepared."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import DEFAULT_DB_ALIAS, connections
from psycopg import pq

from core import sql


def _plans(wrapper: Any) -> dict[str, int]:
    with wrapper.connection.cursor() as cur:
        cur.execute("SELECT name, generic_plans FROM pg_prepared_statements")
        return dict(cur.fetchall())


@pytest.mark.django_db
def test_warming_builds_the_plan_of_every_prepared_hot_statement():
    fresh = connections.create_connection(DEFAULT_DB_ALIAS)
    try:
        fresh.ensure_connection()  # prepares them (core.apps)
        prepared = {s.prepared_name for s in sql.REGISTRY.values() if s.prepared_name}
        assert prepared and set(_plans(fresh)) >= prepared
        assert not any(_plans(fresh)[name] for name in prepared)  # prepared, never planned
        assert sql.warm_hot_statements(fresh) == len(prepared)
        plans = _plans(fresh)
        assert all(plans[name] == 1 for name in prepared), {n: plans[n] for n in prepared if plans[n] != 1}
        # idle: EXPLAIN ran nothing and left no transaction
        assert fresh.connection.info.transaction_status == pq.TransactionStatus.IDLE
    finally:
        fresh.close()


@pytest.mark.django_db(transaction=True)
def test_connection_warm_opens_and_plans_only_where_connections_are_kept_and_statements_prepared(settings):
    wrapper = connections[DEFAULT_DB_ALIAS]
    wrapper.close()
    age = wrapper.settings_dict["CONN_MAX_AGE"]
    try:
        wrapper.settings_dict["CONN_MAX_AGE"] = 0  # closed after every request: nothing to keep warm
        assert sql.connection_warm() == 0 and wrapper.connection is None
        wrapper.settings_dict["CONN_MAX_AGE"] = 60
        settings.DATABASE_PREPARED_STATEMENTS = False  # behind PgBouncer: nothing prepared
        assert sql.connection_warm() == 0 and wrapper.connection is None
        settings.DATABASE_PREPARED_STATEMENTS = True
        planned = sql.connection_warm()
        assert wrapper.connection is not None
        assert planned == len(sql._prepared_on(wrapper)) > 20
    finally:
        wrapper.settings_dict["CONN_MAX_AGE"] = age
        wrapper.close()
