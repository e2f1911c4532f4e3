"""/health, the worker heartbeat endpoint and the API documentation page."""

from __future__ import annotations

import time
from typing import Any

import celery
from django.conf import settings
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.http import HttpRequest, JsonResponse
from django_celery_beat.models import PeriodicTask
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularSwaggerSplitView
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import clock, partitioning
from core.models import TaskHeartbeat
from core.permissions import staff_permission
from core.tasks import heartbeat_send


def _check_database() -> dict[str, Any]:
    started = time.monotonic()
    try:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
            cur.fetchone()
        return {"ok": True, "ms": round((time.monotonic() - started) * 1000, 1)}
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return {"ok": False, "error": exc.__class__.__name__}


def _check_broker() -> dict[str, Any]:
    started = time.monotonic()
    try:
        with celery.current_app.connection_for_write(settings.CELERY_BROKER_URL) as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {
            "ok": True,
            "transport": conn.transport_cls if isinstance(conn.transport_cls, str) else "custom",
            "ms": round((time.monotonic() - started) * 1000, 1),
        }
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "error": exc.__class__.__name__}


def _check_migrations() -> dict[str, Any]:
    try:
        executor = MigrationExecutor(connection)
        plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
        return {"ok": not plan, "pending": [f"{m.app_label}.{m.name}" for m, _ in plan]}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "error": exc.__class__.__name__}


BEAT_HEARTBEAT = "core.heartbeat-every-minute"  # the schedule entry (core/schedules.py)


def _age(at: Any) -> float | None:
    return None if at is None else round((clock.now() - at).total_seconds(), 1)


def _check_jobs() -> tuple[dict[str, Any], dict[str, Any]]:
    """(worker, beat): the scheduled heartbeat proves both. Beat records when it last sent it (django-celery-beat's
    ``last_run_at``); a worker writes the row when it runs it. Each is stale after HEALTH_JOBS_MAX_AGE_SECONDS,
    so the deadline jobs cannot stop silently."""
    limit = float(settings.HEALTH_JOBS_MAX_AGE_SECONDS)
    try:
        ran = (
            TaskHeartbeat.objects.filter(marker__startswith="beat-", ran_at__isnull=False)
            .order_by("-ran_at")
            .values_list("ran_at", flat=True)
            .first()
        )
        sent = PeriodicTask.objects.filter(name=BEAT_HEARTBEAT).values_list("last_run_at", flat=True).first()
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        error = {"ok": False, "error": exc.__class__.__name__}
        return error, error
    worker_age, beat_age = _age(ran), _age(sent)
    return (
        {"ok": worker_age is not None and worker_age <= limit, "last_run_seconds_ago": worker_age},
        {"ok": beat_age is not None and beat_age <= limit, "last_sent_seconds_ago": beat_age},
    )


def _check_partitions() -> dict[str, Any]:
    """This month's and next month's partition of every monthly-partitioned table exist (core/partitioning.py:
    there is no default partition, so a month without one refuses its inserts; the hourly job makes them ahead),
    and every attached month has the foreign keys its table declares per month (``MonthKey``), by name."""
    try:
        missing = partitioning.partitions_missing(connection, months=2)
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        return {"ok": False, "error": exc.__class__.__name__}
    return {"ok": not missing, "missing": missing}


def health(request: HttpRequest) -> JsonResponse:
    """GET /health: database, broker, pending migrations, and the jobs (a worker ran the scheduled heartbeat
    recently; beat sent it; the job made this and next month's partitions). 200 when all are green, else 503. The
    jobs and the partitions count toward the status where
    HEALTH_REQUIRE_JOBS is on (production by default); elsewhere they are reported only."""
    checks = {"database": _check_database(), "broker": _check_broker()}
    checks["migrations"] = _check_migrations() if checks["database"]["ok"] else {"ok": False, "error": "no database"}
    if checks["database"]["ok"]:
        checks["worker"], checks["beat"] = _check_jobs()
        checks["partitions"] = _check_partitions()
    else:
        checks["worker"] = checks["beat"] = checks["partitions"] = {"ok": False, "error": "no database"}
    required = [k for k in checks if k not in ("worker", "beat", "partitions") or settings.HEALTH_REQUIRE_JOBS]
    ok = all(checks[k]["ok"] for k in required)
    return JsonResponse(
        {"status": "ok" if ok else "fail", "checks": checks, "env": settings.DJANGO_ENV}, status=200 if ok else 503
    )


class HeartbeatSerializer(serializers.Serializer[Any]):
    marker = serializers.CharField()
    sent_at = serializers.DateTimeField()
    ran_at = serializers.DateTimeField(allow_null=True)
    worker = serializers.CharField()


class HeartbeatView(APIView):
    """Staff: send a task from the web process and see whether a worker ran it."""

    permission_classes = [staff_permission("core.view_taskheartbeat")]
    serializer_class = HeartbeatSerializer

    @extend_schema(request=None, responses={202: HeartbeatSerializer})  # no body is read; the answer is a 202
    def post(self, request: Request) -> Response:

        marker = heartbeat_send()
        return Response(HeartbeatSerializer(TaskHeartbeat.objects.get(marker=marker)).data, status=202)

    @extend_schema(responses=HeartbeatSerializer(many=True))
    def get(self, request: Request) -> Response:

        rows = TaskHeartbeat.objects.order_by("-sent_at")[:10]
        return Response(HeartbeatSerializer(rows, many=True).data)


# The API documentation page: Swagger UI from our own static files, its start-up script a separate file of ours
# (no inline script), and a policy that lets the browser run nothing from anywhere else.
DOCS_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
)


class ApiDocsView(SpectacularSwaggerSplitView):
    """``/api/docs``: Swagger UI served from drf-spectacular-sidecar, under :data:`DOCS_CSP`."""

    @extend_schema(exclude=True)
    def get(self, request: Any, *args: Any, **kwargs: Any) -> Any:
        response = super().get(request, *args, **kwargs)  # type: ignore[no-untyped-call]  # drf-spectacular is untyped
        response["Content-Security-Policy"] = DOCS_CSP
        return response
