"""One way to move a status: the allowed moves are declared as data, the move is checked and audited.

    ALLOWED = {Status.NEW: {Status.ASSIGNED}, Status.ASSIGNED: {Status.INVESTIGATING}, ...}
    status_transition(obj, to=Status.ASSIGNED, allowed=ALLOWED, refused=errors.ILLEGAL_TRANSITION,
                      actor=actor, action="complaint.assigned")

The caller holds the row lock (``select_for_update``) and owns the transaction; the audit event is written
in it, so the move and its record commit together or not at all.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from django.db import models

from core.audit import Actor, audit_record
from core.errors import ErrorDef


def status_transition(
    obj: models.Model,
    *,
    to: str,
    allowed: Mapping[str, Collection[str]],
    refused: ErrorDef,
    actor: Actor,
    action: str,
    field: str = "status",
    extra_fields: Mapping[str, Any] | None = None,
    audit: bool = True,
    **details: Any,
) -> str:
    """Move ``obj.<field>`` to ``to`` if ``allowed[current]`` contains it, else raise ``refused``.

    ``extra_fields`` are set and saved with the status (e.g. ``status_changed_at``). Returns the old status.
    ``refused`` is raised with ``current`` and ``target`` in its details.
    """
    old: str = getattr(obj, field)
    if to not in allowed.get(old, ()):
        raise refused(current=old, target=to, **details)
    setattr(obj, field, to)
    update_fields = [field]
    for name, value in (extra_fields or {}).items():
        setattr(obj, name, value)
        update_fields.append(name)
    obj.save(update_fields=update_fields)
    if audit:
        audit_record(actor=actor, action=action, obj=obj, old={field: old}, new={field: to}, **details)
    return old
