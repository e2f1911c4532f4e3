"""Who did what: actors and the append-only audit trail."""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.db import connections

from core import clock
from core.jsonable import jsonable
from core.logging import get_request_id
from core.models import AuditEvent, SecurityEventWindow
from core.roles import role_used
from core.sql import new_instance
from core.throttling import source_key

#: the attribute on a request's user object naming the permission the request's decision was checked against
PERM_IN_USE = "_platform_perm_in_use"


def mark_permission_in_use(user: Any, perm: str) -> None:
    """Record on the request's user object the permission this request's decision was checked against, so the
    audit event names the role that granted it."""
    try:
        setattr(user, PERM_IN_USE, perm)
    except AttributeError:  # an AnonymousUser-like object without a __dict__: nothing to record
        pass


@dataclass(frozen=True)
class Actor:
    """The one who acts: a player, a staff user or the system (a job, a callback)."""

    type: str  # "player" | "staff" | "system"
    id: str = ""
    label: str = ""
    role: str = ""  # staff: the role through which the decision's permission is held (core.roles.role_used)

    @classmethod
    def system(cls, label: str = "system") -> Actor:
        return cls("system", "", label)

    @classmethod
    def staff(cls, user: Any, perm: str | None = None) -> Actor:
        """The staff member, with the role used: the one granting ``perm``, or the permission the staff API or the
        admin's decision checked for this request (``core.permissions``, ``core.admin.decision_path`` mark it on
        the user object, which lives for one request), else all their roles."""
        perm = perm or getattr(user, PERM_IN_USE, None)
        return cls("staff", str(user.pk), user.get_username(), role_used(user, perm))

    @classmethod
    def player(cls, player: Any) -> Actor:
        user = getattr(player, "user", None)
        return cls("player", str(player.pk), user.get_username() if user is not None else str(player.pk))

    @classmethod
    def from_user(cls, user: Any) -> Actor:
        """Staff for staff users, the player otherwise."""
        if getattr(user, "is_staff", False):
            return cls.staff(user)
        player = getattr(user, "player", None)
        return cls.player(player) if player is not None else cls("player", str(user.pk), user.get_username())


def audit_record(
    *,
    actor: Actor,
    action: str,
    obj: Any = None,
    object_type: str = "",
    object_id: str | int = "",
    old: dict[str, Any] | None = None,
    new: dict[str, Any] | None = None,
    **details: Any,
) -> AuditEvent:
    """Append one audit event; call it inside the service's transaction."""
    event = audit_event(
        actor=actor, action=action, obj=obj, object_type=object_type, object_id=object_id, old=old, new=new, **details
    )
    event.save(force_insert=True)
    return event


def audit_event(
    *,
    actor: Actor,
    action: str,
    obj: Any = None,
    object_type: str = "",
    object_id: str | int = "",
    old: dict[str, Any] | None = None,
    new: dict[str, Any] | None = None,
    **details: Any,
) -> AuditEvent:
    """The audit event :func:`audit_record` appends, not saved yet: for a hot path that writes it in the same
    statement as the row it records (``games/sql.py`` ROUND_WRITE), inside the service's transaction."""
    if obj is not None:
        object_type = object_type or f"{obj._meta.app_label}.{obj._meta.model_name}"
        object_id = object_id or obj.pk
    return new_instance(  # AuditEvent(...) without Model.__init__'s generic work (core.sql.new_instance)
        AuditEvent,
        occurred_at=clock.now(),
        actor_type=actor.type,
        actor_id=actor.id,
        actor_label=actor.label[:150],
        actor_role=actor.role[:100],
        action=action,
        object_type=object_type,
        object_id=str(object_id) if object_id != "" else "",
        old_values=jsonable(old) if old is not None else None,
        new_values=jsonable(new) if new is not None else None,
        details=jsonable(details),
        request_id=get_request_id() or "",
    )


# Security events: written on their own connection so the refusal's rollback cannot erase them --------------------
SIDE_DB = "refusal_log"  # config/settings/: its own autocommit connection to the same database


def _no_nul(value: Any) -> Any:
    """The details without NUL characters (PostgreSQL's jsonb refuses ``\\u0000``; a refused request may carry
    one, and its record must not be lost for it): each NUL is written as the two characters ``\\0``."""
    if isinstance(value, str):
        return value.replace("\x00", "\\0")
    if isinstance(value, dict):
        return {_no_nul(k): _no_nul(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_nul(v) for v in value]
    return value


def window_seconds() -> int:
    """``SECURITY_EVENT_WINDOW_SECONDS``: the window in which repeats of a summarised security event are counted."""
    return max(1, settings.SECURITY_EVENT_WINDOW_SECONDS)


def _count_in_window(action: str, source: str, now: datetime) -> tuple[int, int, datetime, int]:
    """Count one more ``action`` from ``source`` in the current window (one statement, safe under concurrency):
    (the window row's id, the count with this one, the window's start, its length in seconds)."""
    seconds = window_seconds()
    start = datetime.fromtimestamp(int(now.timestamp()) // seconds * seconds, tz=UTC)
    table = SecurityEventWindow._meta.db_table
    with connections[SIDE_DB].cursor() as cur:
        cur.execute(
            f"INSERT INTO {table} (action, source, window_start, window_seconds, count, first_at, last_at) "
            "VALUES (%s, %s, %s, %s, 1, %s, %s) ON CONFLICT (action, source, window_start) "
            f"DO UPDATE SET count = {table}.count + 1, last_at = EXCLUDED.last_at RETURNING id, count",
            [action, source, start, seconds, now, now],
        )
        row_id, count = cur.fetchone()
    return int(row_id), int(count), start, seconds


def security_event(
    *, action: str, source: str = "", tried: str = "", body: bytes | str = b"", summarise: bool = False, **details: Any
) -> int:
    """A refused or suspicious request (a forged provider callback, a lock-out, a throttled login): one audit event
    with the system actor, the source address, what was tried and the SHA-256 of the body, committed at once on
    its own connection (``SIDE_DB``) so that the refusal's rollback cannot erase it. Staff read it in the audit
    trail. A failure to record never hides the refusal itself (it is logged).

    ``summarise`` is for a refusal anyone can repeat at request speed: per action and source
    (``core.throttling.source_key``) and per window of ``SECURITY_EVENT_WINDOW_SECONDS``, only the first is an
    audit event (its details name the window and the counter row, ``core.SecurityEventWindow``); the rest only
    count there. Returns how many of these the window holds now (1 for an event not summarised, 0 when nothing
    could be recorded)."""
    raw = body.encode() if isinstance(body, str) else body
    now = clock.now()
    extra: dict[str, Any] = {}
    count = 1
    try:
        if summarise:
            row_id, count, start, seconds = _count_in_window(action, _no_nul(source_key(source)), now)
            if count > 1:
                return count
            extra = {
                "summary": {
                    "window_start": start,
                    "window_seconds": seconds,
                    "counter": f"core.securityeventwindow:{row_id}",
                    "note": "repeats from this source in this window are counted there, not here",
                }
            }
        AuditEvent.objects.using(SIDE_DB).create(
            occurred_at=now,
            actor_type="system",
            actor_id="",
            actor_label="security",
            action=action,
            object_type="",
            object_id="",
            old_values=None,
            new_values=None,
            details=_no_nul(
                jsonable(
                    {
                        "source": source,
                        "tried": tried[:500],
                        "body_sha256": hashlib.sha256(raw).hexdigest() if raw else "",
                        **details,
                        **extra,
                    }
                )
            ),
            request_id=get_request_id() or "",
        )
    except Exception:  # safe: the refusal itself is raised by the caller either way; a lost record is logged loudly
        logging.getLogger("platform.security").exception("could not record security event %s", action)
        return 0
    return count


def integrity_alarm(exc: BaseException, *, source: str, **details: Any) -> None:
    """A database integrity check refused a write that the code believed correct (a money bug, not a client's
    mistake): logged at ERROR on ``platform.alarm`` and recorded as the audit event ``core.integrity_failure`` on
    the side connection (it survives the rollback; staff and the alerting read it). The caller re-raises: the
    client gets a server error, never a refusal that looks like its own fault."""
    if getattr(exc, "_platform_alarmed", False):  # raised on by the one who alarmed it: once per failure
        return
    try:
        setattr(exc, "_platform_alarmed", True)  # noqa: B010 - a marker on the exception object
    except AttributeError:  # safe: an exception without a __dict__ is alarmed below all the same (maybe twice)
        pass
    diag = getattr(exc.__cause__, "diag", None) or getattr(exc, "diag", None)
    constraint = getattr(diag, "constraint_name", None) or ""
    logging.getLogger("platform.alarm").error(
        "integrity failure in %s (constraint %s): %s", source, constraint or "-", exc, exc_info=exc
    )
    security_event(
        action="core.integrity_failure", source=source, tried=str(exc)[:500], constraint=constraint, **details
    )
