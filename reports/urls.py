"""Mounted at /api/v1/reports/staff/ (read-only, staff: the convention of every staff API)."""

from django.urls import path

from reports import api

urlpatterns = [
    path("staff/days", api.DayListView.as_view(), name="reports-days"),
    path("staff/figures", api.FiguresView.as_view(), name="reports-figures"),
    path("staff/figures.csv", api.FiguresCsvView.as_view(), name="reports-figures-csv"),
    path("staff/regulator-record", api.RegulatorRecordView.as_view(), name="reports-regulator-record"),
]
