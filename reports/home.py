"""The reports' panel on the staff home page (``core.home``, the back office's panel registry)."""

from __future__ import annotations

from collections.abc import Callable

from django.urls import reverse

from core.home import HomeLink, HomePanel, register_home_panel


def _admin(name: str) -> Callable[[], str]:
    def url() -> str:
        return reverse(f"admin:{name}")

    return url


REPORTS = HomePanel(
    "reports",
    "Reports (regulator and tax)",
    order=80,
    links=(
        HomeLink("Daily report with charts", _admin("reports_dayreport_daily"), "reports.view_dayreport"),
        HomeLink("Month and tax period (quarter)", _admin("reports_dayreport_period"), "reports.view_dayreport"),
        HomeLink(
            "The regulator's record of a day (sealed) and its verification",
            _admin("reports_dayreport_verify"),
            "reports.export_regulator_record",
        ),
    ),
)


def register_panels() -> None:
    register_home_panel(REPORTS)
