"""Back office: the issued packages with their delivery state and the Ministry's notices (read-only; the model's view
permission)."""
from __future__ import annotations

from django.contrib import admin

from core.admin import ReadOnlyAdmin
from regulator.models import MinistryNotice, RegulatorPackage


@admin.register(RegulatorPackage)
class RegulatorPackageAdmin(ReadOnlyAdmin):
    list_display = ("name", "period_start", "version", "state", "error_code", "issued_at", "downloaded_at",
                    "answered_at", "size")
    list_filter = ("state", "game_type")
    search_fields = ("name", "error_code")
    readonly_fields = ("name", "period_start", "period_end", "game_type", "version", "state", "error_code",
                       "error_detail", "sha256", "path", "size", "files", "issued_at", "downloaded_at", "answered_at",
                       "state_changed_at", "previous")


@admin.register(MinistryNotice)
class MinistryNoticeAdmin(ReadOnlyAdmin):
    list_display = ("received_at", "kind", "package_name", "error_code", "staff_task_open", "client_identity")
    list_filter = ("kind", "staff_task_open")
    search_fields = ("package_name", "error_code")
