"""The home page's panels are declared through ``core.home`` and fail closed."""

from __future__ import annotations

import pytest

from core.home import HomeLink, HomePanel, declared_link_permissions, register_home_panel


def _url() -> str:
    return "/admin/"


def test_a_link_without_a_permission_cannot_be_made():
    with pytest.raises(ValueError, match="permission"):
        HomeLink("Reports", _url, "")


def test_a_second_panel_with_the_same_key_is_refused():
    from backoffice.queues import QUEUES

    with pytest.raises(ValueError, match="already registered"):
        register_home_panel(HomePanel(QUEUES.key, "Another", links=()))


def test_a_link_naming_an_undeclared_permission_stops_the_checks(monkeypatch):
    from core import home
    from core.apps import check_staff_permissions

    monkeypatch.setitem(
        home._panels, "typo", HomePanel("typo", "Typo", links=(HomeLink("Reports", _url, "reports.view_repport"),))
    )
    assert "reports.view_repport" in declared_link_permissions()
    assert [e.id for e in check_staff_permissions()] == ["core.E012"]


def test_the_back_office_queues_and_the_audit_link_are_registered_when_the_app_starts():
    assert {"queues", "audit"} <= {p.key for p in __import__("core.home", fromlist=["x"]).home_panels()}
