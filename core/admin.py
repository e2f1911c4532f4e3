from django.contrib import admin

from core.models import AuditEvent, IdempotencyRecord, TaskHeartbeat


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ("occurred_at", "actor_type", "actor_label", "action", "object_type", "object_id", "request_id")
    list_filter = ("actor_type", "action", "object_type")
    search_fields = ("object_id", "actor_label", "action", "request_id")
    date_hierarchy = "occurred_at"


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "scope", "key", "endpoint", "response_status")
    search_fields = ("key", "scope")


@admin.register(TaskHeartbeat)
class TaskHeartbeatAdmin(ReadOnlyAdmin):
    list_display = ("marker", "sent_at", "ran_at", "worker")
