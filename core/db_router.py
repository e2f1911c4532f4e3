"""Which database a query goes to: the primary, or the streaming replica for reads that may lag (docs/scaling.md).

The replica (``DATABASES["replica"]``, from ``DATABASE_REPLICA_URL``) is used only where the code says so, never
by guessing from the query:

- a selector's queryset ``.using(replica())`` (the player's statement, the list of settled rounds), or
- a block ``with replica_reads():`` around a read-only function (a report), which sends every read of the
  block to the replica.

Everything else reads the primary, and so does everything inside a transaction on the primary
(``transaction.atomic``): a money or limit decision reads, locks and writes in one transaction on the primary, so a
stale replica can never feed one, even when a service is called from inside ``replica_reads()`` or is handed an
object that was read from the replica. Writes always go to the primary. Without a replica configured,
:func:`replica` is ``"default"`` and ``replica_reads()`` changes nothing.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from django.conf import settings
from django.db import connections
from django.db.models import Model

PRIMARY = "default"
REPLICA = "replica"
_replica_reads: ContextVar[bool] = ContextVar("replica_reads", default=False)


def replica_configured() -> bool:
    return REPLICA in settings.DATABASES


def replica() -> str:
    """The alias for a read that may lag: the replica when there is one, else the primary."""
    return REPLICA if replica_configured() else PRIMARY


def in_primary_transaction() -> bool:
    return connections[PRIMARY].in_atomic_block


@contextlib.contextmanager
def replica_reads() -> Iterator[None]:
    """Every read in this block that is not inside a transaction on the primary goes to the replica."""
    token = _replica_reads.set(True)
    try:
        yield
    finally:
        _replica_reads.reset(token)


class ReplicaRouter:
    """``settings.DATABASE_ROUTERS``: the rules of the module docstring. Aliases other than the primary and the
    replica (the stake-refusal log's own connection to the primary) are chosen explicitly with ``.using()`` and
    are not routed here."""

    def db_for_read(self, model: type[Model], **hints: Any) -> str | None:
        if not replica_configured():
            return None
        instance_db = _instance_db(hints)
        if instance_db not in (None, PRIMARY, REPLICA):
            return None  # a row of another alias (the refusal log): Django's own rule, that alias
        if in_primary_transaction():
            return PRIMARY
        if _replica_reads.get() or instance_db == REPLICA:
            return REPLICA  # in a replica_reads() block, or related rows of a row read from the replica
        return PRIMARY

    def db_for_write(self, model: type[Model], **hints: Any) -> str | None:
        # a row read from the replica is saved on the primary; any other: Django's rule (its own alias)
        return PRIMARY if _instance_db(hints) == REPLICA else None

    def allow_relation(self, obj1: Model, obj2: Model, **hints: Any) -> bool | None:
        # the replica is a copy of the primary: rows read from either may be related
        return True

    def allow_migrate(self, db: str, app_label: str, model_name: str | None = None, **hints: Any) -> bool | None:
        return False if db == REPLICA else None


def _instance_db(hints: dict[str, Any]) -> str | None:
    instance = hints.get("instance")
    return None if instance is None else instance._state.db
