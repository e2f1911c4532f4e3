"""The admin's shared parts: one read-only base, one way to run a service from an admin action."""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from django.contrib import admin, messages
from django.db import models
from django.http import HttpRequest

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent, IdempotencyRecord, SecurityEventWindow, TaskHeartbeat


class ReadOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Records written only through services (ledger, audit, rounds ...): staff look, never edit."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):  # type: ignore[type-arg]
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def domain_error_text(exc: DomainError) -> str:
    """How staff see a refusal: its stable code, the English message and the details."""
    return f"{exc.code} - {exc.message_en} {exc.details or ''}".strip()


def run_service_action(
    modeladmin: admin.ModelAdmin,  # type: ignore[type-arg]
    request: HttpRequest,
    objects: Iterable[models.Model],
    service: Callable[[Any, Actor], Any],
    done: str,
) -> int:
    """Run ``service(obj, actor)`` for each selected object as the signed-in staff member.

    Each call is its own service transaction; a refusal (``DomainError``) is shown to staff with its code and the
    others still run. Returns how many succeeded."""
    actor = Actor.staff(request.user)
    ok = 0
    for obj in objects:
        try:
            service(obj, actor)
            ok += 1
        except DomainError as exc:
            modeladmin.message_user(request, f"{obj}: {domain_error_text(exc)}", messages.ERROR)
    if ok:
        modeladmin.message_user(request, f"{done}: {ok}", messages.SUCCESS)
    return ok


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("occurred_at", "actor_type", "actor_label", "action", "object_type", "object_id", "request_id")
    list_filter = ("actor_type", "action", "object_type")
    search_fields = ("object_id", "actor_label", "action", "request_id")
    date_hierarchy = "occurred_at"


@admin.register(SecurityEventWindow)
class SecurityEventWindowAdmin(ReadOnlyAdmin):
    """Repeated security events counted per source and window (the audit trail holds the first of each)."""

    list_display = ("window_start", "action", "source", "count", "first_at", "last_at")
    list_filter = ("action",)
    search_fields = ("source",)
    date_hierarchy = "window_start"


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "scope", "key", "endpoint", "response_status")
    search_fields = ("key", "scope")


@admin.register(TaskHeartbeat)
class TaskHeartbeatAdmin(ReadOnlyAdmin):
    list_display = ("marker", "sent_at", "ran_at", "worker")
