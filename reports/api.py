"""The read-only staff API of the reports (the supervisory authority's account: the auditor role). GET only; every
other method is answered 405 in the platform's error shape. Mounted at /api/v1/reports/staff/ (docs/reports.md)."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path

from django.http import FileResponse, HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core import clock
from core.permissions import staff_permission
from reports import errors, figures, seal, selectors
from reports.models import DayReport

VIEW = "reports.view_dayreport"
EXPORT = "reports.export_regulator_record"
PERIOD = OpenApiParameter(
    "period",
    str,
    description="YYYY-MM-DD (a day), YYYY-MM (a month) or YYYY-Qn (a tax "
    "period, the calendar quarter); default: today (Europe/Prague)",
)


def _period(request: Request) -> figures.Period:
    text = request.query_params.get("period") or clock.business_date().isoformat()
    try:
        return figures.parse_period(text)
    except ValueError:
        raise errors.BAD_PERIOD(value=text[:20]) from None


class DaySerializer(serializers.ModelSerializer[DayReport]):
    class Meta:
        model = DayReport
        fields = ["day", "computed_at", "read_from", "rounds", "stakes", "wins", "ggr", "ledger_agrees"]


class DayListView(generics.ListAPIView[DayReport]):
    """The operating days whose reports are computed, newest first (amounts in haléře)."""

    permission_classes = [staff_permission(VIEW)]
    serializer_class = DaySerializer
    queryset = DayReport.objects.order_by("-day")

    @extend_schema(operation_id="reports_days")
    def get(self, request: Request, *args: object, **kwargs: object) -> Response:
        return super().get(request, *args, **kwargs)


class FiguresView(APIView):
    """The figures of a day, a month or a tax period, per game and in total, from the report rows."""

    permission_classes = [staff_permission(VIEW)]

    @extend_schema(
        parameters=[PERIOD],
        operation_id="reports_figures",
        responses={200: OpenApiResponse(response=OpenApiTypes.OBJECT, description="docs/reports.md")},
    )
    def get(self, request: Request) -> Response:
        return Response(selectors.period_report(_period(request)))


class FiguresCsvView(APIView):
    """The same figures as CSV (UTF-8, amounts in haléře)."""

    permission_classes = [staff_permission(VIEW)]

    @extend_schema(
        parameters=[PERIOD],
        operation_id="reports_figures_csv",
        responses={(200, "text/csv"): OpenApiResponse(response=OpenApiTypes.STR, description="CSV file")},
    )
    def get(self, request: Request) -> HttpResponse:
        period = _period(request)
        resp = HttpResponse(selectors.period_csv(period), content_type="text/csv; charset=utf-8")
        resp["Content-Disposition"] = f'attachment; filename="report-{period.label}.csv"'
        return resp


class _Cleanup(FileResponse):
    """A file response that removes the export's temporary folder once sent."""

    folder: Path | None = None

    def close(self) -> None:
        super().close()
        if self.folder is not None:
            shutil.rmtree(self.folder, ignore_errors=True)


class RegulatorRecordView(APIView):
    """The sealed regulator's record of one operating day (XML, XAdES enveloped signature)."""

    permission_classes = [staff_permission(EXPORT)]

    @extend_schema(
        parameters=[OpenApiParameter("day", str, required=True, description="YYYY-MM-DD")],
        operation_id="reports_regulator_record",
        responses={
            (200, "application/xml"): OpenApiResponse(response=OpenApiTypes.BINARY, description="sealed XML record")
        },
    )
    def get(self, request: Request) -> FileResponse:
        text = request.query_params.get("day") or ""
        try:
            day = date.fromisoformat(text)
        except ValueError:
            raise errors.BAD_PERIOD(value=text[:20]) from None
        if not clock.day_in_range(day):
            raise errors.BAD_PERIOD(value=text[:20])
        path = seal.export_day(day=day)
        resp = _Cleanup(path.open("rb"), content_type="application/xml", as_attachment=True, filename=path.name)
        resp.folder = path.parent
        return resp
