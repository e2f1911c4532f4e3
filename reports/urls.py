"""Mounted at /api/v1/reports/ (read-only, staff)."""
from django.urls import path

from reports import api

urlpatterns = [
    path("days", api.DayListView.as_view(), name="reports-days"),
    path("figures", api.FiguresView.as_view(), name="reports-figures"),
    path("figures.csv", api.FiguresCsvView.as_view(), name="reports-figures-csv"),
    path("regulator-record", api.RegulatorRecordView.as_view(), name="reports-regulator-record"),
]
