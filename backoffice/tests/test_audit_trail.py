"""The audit trail: searchable by player, staff member, role, action, object and time; values shown as
readable changes; a streamed CSV export for the roles with ``core.export_audit``; the database refuses changes; a
retention setting at least the legal periods decides what the retention job may touch."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime

import pytest
import time_machine
from django.db import DatabaseError, transaction

from backoffice.errors import AUDIT_FILTER_INVALID
from backoffice.tests.test_player_page import client_as
from core.audit import Actor, audit_record
from core.models import AuditEvent
from core.retention_rules import RetentionTooShort, audit_retention
from core.selectors import audit_events_past_retention, changes_text, readable_changes
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def test_values_are_shown_as_old_to_new_per_field_not_as_dicts():
    changes = readable_changes(
        {"status": "active", "reason": "", "same": 1}, {"status": "suspended", "same": 1, "limits": {"daily": 500}}
    )
    assert [(c.field, c.old, c.new) for c in changes] == [
        ("status", "active", "suspended"),
        ("reason", "", "–"),
        ("limits", "–", '{"daily": 500}'),
    ]
    assert changes_text(None, {"barred": True}) == "barred: – -> yes"


@pytest.fixture
def trail():
    player = make_player()
    staff = make_staff(role="compliance")
    with time_machine.travel(T0, tick=False):
        with transaction.atomic():
            audit_record(
                actor=Actor.staff(staff),
                action="accounts.player_suspended",
                obj=player,
                old={"status": "active"},
                new={"status": "suspended"},
            )
    with time_machine.travel(datetime(2026, 3, 5, 9, 0, tzinfo=UTC), tick=False):
        with transaction.atomic():
            audit_record(
                actor=Actor.system("sweeper"),
                action="wallet.withdrawal_sent",
                object_type="wallet.withdrawal",
                object_id=77,
                player_id=player.pk,
                new={"status": "sent"},
            )
    return player, staff


def search(c, **query):
    r = c.get("/admin/core/auditevent/search/", query)
    assert r.status_code == 200
    return r.content.decode()


def test_the_audit_search_filters_by_player_staff_role_action_object_and_time(trail):
    player, staff = trail
    c = client_as("auditor")
    html = search(c, player=player.user.username)
    assert "2 události" in html and "status: active &rarr; suspended" in html
    assert "1 událost" in search(c, staff=staff.username)
    assert "1 událost" in search(c, role="compliance")
    assert "1 událost" in search(c, action="wallet.")
    assert "1 událost" in search(c, object_type="wallet.withdrawal", object_id="77")
    # the days are Prague days, "to" inclusive: 2 March alone holds the suspension, 3-4 March nothing
    assert "1 událost" in search(c, player=player.pk, since="2026-03-02", until="2026-03-02")
    assert "0 událostí" in search(c, player=player.pk, since="2026-03-03", until="2026-03-04")
    assert "0 událostí" in search(c, player="nobody-by-this-name")  # an unknown player matches nothing


def test_a_reversed_time_range_is_refused_with_its_code(trail):
    html = search(client_as("auditor"), since="2026-03-05", until="2026-03-01")
    assert AUDIT_FILTER_INVALID.code in html


def test_the_auditor_exports_the_search_as_csv_and_the_export_is_audited(trail):
    player, _ = trail
    r = client_as("auditor").get("/admin/core/auditevent/export/", {"player": player.user.username})
    assert r.status_code == 200 and r.streaming and r["Content-Type"].startswith("text/csv")
    body = b"".join(r.streaming_content).decode()  # type: ignore[attr-defined]
    rows = list(csv.reader(io.StringIO(body)))
    assert rows[0][:5] == ["occurred_at", "actor_type", "actor_label", "actor_role", "action"]
    assert [row[4] for row in rows[1:]] == ["wallet.withdrawal_sent", "accounts.player_suspended"]
    assert rows[2][7] == "status: active -> suspended"
    assert AuditEvent.objects.filter(action="backoffice.audit_exported", actor_role="auditor").count() == 1


@pytest.mark.parametrize("role", ["support", "compliance", "finance", "game_manager"])
def test_a_role_without_the_export_permission_cannot_export(trail, role):
    assert client_as(role).get("/admin/core/auditevent/export/").status_code == 403


def test_the_database_still_refuses_to_change_or_delete_an_event(trail):
    event = AuditEvent.objects.earliest("id")
    for attempt in (
        lambda: AuditEvent.objects.filter(pk=event.pk).update(action="x"),
        lambda: AuditEvent.objects.filter(pk=event.pk).delete(),
    ):
        with pytest.raises(DatabaseError), transaction.atomic():
            attempt()
    assert AuditEvent.objects.get(pk=event.pk).action == event.action


def test_the_retention_is_refused_below_the_legal_periods():
    assert audit_retention(5, 10) == (5, 10)
    with pytest.raises(RetentionTooShort, match="563/1991"):
        audit_retention(4, 10)
    with pytest.raises(RetentionTooShort, match="253/2008"):
        audit_retention(5, 9)
    with pytest.raises(RetentionTooShort):
        audit_retention(12, 11)  # the AML period is never shorter than the general one


def test_the_settings_refuse_to_load_with_a_retention_below_the_law():
    from core.tests.test_health_and_settings import _django_check_expr

    r = _django_check_expr({"AUDIT_RETENTION_YEARS": "4"}, "settings.AUDIT_RETENTION_YEARS")
    assert r.returncode != 0 and "AUDIT_RETENTION_YEARS=4" in r.stderr
    r = _django_check_expr({"AUDIT_RETENTION_YEARS": "6"}, "settings.AUDIT_RETENTION_YEARS")
    assert r.returncode == 0 and r.stdout.strip() == "6"


def test_the_retention_job_may_touch_an_event_only_after_its_period(settings):
    settings.AUDIT_RETENTION_YEARS, settings.AUDIT_RETENTION_AML_YEARS = 5, 10
    with time_machine.travel(T0, tick=False), transaction.atomic():
        other = audit_record(
            actor=Actor.system("t"), action="wallet.deposit_confirmed", object_type="wallet.deposit", object_id=1
        )
        aml = audit_record(
            actor=Actor.system("t"), action="aml.case_opened", object_type="aml.compliancecase", object_id=1
        )

    def due() -> list[AuditEvent]:
        return list(audit_events_past_retention().filter(pk__in=[other.pk, aml.pk]))

    # 2 March 2026 10:00 Prague + 5 years: due from that instant of 2 March 2031, not a second before
    with time_machine.travel(datetime(2031, 3, 2, 8, 59, 59, tzinfo=UTC), tick=False):
        assert due() == []
    with time_machine.travel(datetime(2031, 3, 2, 9, 0, 1, tzinfo=UTC), tick=False):
        assert due() == [other]
    with time_machine.travel(datetime(2036, 3, 2, 8, 59, 59, tzinfo=UTC), tick=False):
        assert due() == [other]
    with time_machine.travel(datetime(2036, 3, 2, 9, 0, 1, tzinfo=UTC), tick=False):
        assert due() == [other, aml]


def test_the_retention_command_counts_what_is_past_retention_and_deletes_nothing(settings, tmp_path):
    from django.core.management import call_command

    with time_machine.travel(T0, tick=False), transaction.atomic():
        old = audit_record(
            actor=Actor.system("t"), action="wallet.deposit_confirmed", object_type="wallet.deposit", object_id=5
        )
    before = AuditEvent.objects.count()
    out = io.StringIO()
    with time_machine.travel(datetime(2031, 3, 3, tzinfo=UTC), tick=False):
        call_command("audit_retention", csv=str(tmp_path / "due.csv"), stdout=out)
    assert "past retention: 1 event(s), of which AML 0" in out.getvalue()
    assert str(old.pk) in (tmp_path / "due.csv").read_text() and AuditEvent.objects.count() == before
