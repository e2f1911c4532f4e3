"""The one place that chooses the database the reports read from: the read replica where one is configured
(``DATABASES["replica"]``, set from ``DATABASE_REPLICA_URL``), the primary otherwise. Report rows are written to the
primary (``default``)."""

from __future__ import annotations

from django.conf import settings

REPLICA = "replica"


def read_alias() -> str:
    return REPLICA if REPLICA in settings.DATABASES else "default"
