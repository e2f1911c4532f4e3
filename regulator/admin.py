"""Back office: the issued packages with their delivery state and the Ministry's notices (read-only; the model's view
permission)."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from core.admin import ReadOnlyAdmin, decision_action, run_service_action
from regulator import services
from regulator.models import MinistryNotice, RegulatorPackage

REISSUE = "regulator.reissue_package"
HANDLE = "regulator.handle_notice"


@admin.register(RegulatorPackage)
class RegulatorPackageAdmin(ReadOnlyAdmin):
    list_display = (
        "name",
        "period_start",
        "version",
        "state",
        "error_code",
        "issued_at",
        "downloaded_at",
        "answered_at",
        "damaged_at",
        "purged_at",
        "size",
    )
    list_filter = (
        "state",
        "game_type",
        ("damaged_at", admin.EmptyFieldListFilter),
        ("purged_at", admin.EmptyFieldListFilter),
    )
    search_fields = ("name", "error_code")
    readonly_fields = (
        "name",
        "period_start",
        "period_end",
        "game_type",
        "version",
        "state",
        "error_code",
        "error_detail",
        "sha256",
        "path",
        "size",
        "files",
        "issued_at",
        "downloaded_at",
        "answered_at",
        "state_changed_at",
        "previous",
        "checked_at",
        "damaged_at",
        "purged_at",
    )
    actions = ["reissue"]

    @decision_action(REISSUE, description="Issue the rejected packages again (next version)")
    def reissue(self, request: HttpRequest, queryset: QuerySet[RegulatorPackage]) -> None:
        run_service_action(
            self,
            request,
            queryset,
            lambda p, actor: services.package_reissue(package=p, actor=actor),
            done="Packages issued again",
        )


@admin.register(MinistryNotice)
class MinistryNoticeAdmin(ReadOnlyAdmin):
    list_display = (
        "received_at",
        "kind",
        "package_name",
        "error_code",
        "staff_task_open",
        "handled_by",
        "client_identity",
    )
    list_filter = ("kind", "staff_task_open")
    search_fields = ("package_name", "error_code")
    actions = ["handle"]

    @decision_action(HANDLE, description="Close the staff task of the selected error notices")
    def handle(self, request: HttpRequest, queryset: QuerySet[MinistryNotice]) -> None:
        run_service_action(
            self, request, queryset, lambda n, actor: services.notice_handle(notice=n, actor=actor), done="Tasks closed"
        )
