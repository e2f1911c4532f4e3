"""The day's non-money figures, each checked against the records it comes from: registrations and temporary
accounts, self-limit changes, panic presses, AML cases by kind and outcome, complaints in time and overdue; the
job's statement count does not grow with the day's rounds; production refuses to start without the seal files."""

from __future__ import annotations

import subprocess
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import time_machine
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from core.audit import Actor
from core.money import Money
from reports.services import day_range, reports_compute_day
from reports.tests.seal_ca import make_seal
from tests.kit.accounts import make_player, make_staff
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start
from tests.kit.production import PRODUCTION_ENV, settings_started

ROOT = Path(__file__).resolve().parents[2]
DAY = date(2026, 10, 5)


@pytest.mark.django_db
def test_registrations_limits_panic_aml_and_complaints_of_the_day_are_counted_from_their_records():
    from aml.services import case_decide, case_open
    from complaints.models import Complaint
    from complaints.services import complaint_assign, complaint_file, complaint_investigate, complaint_resolve
    from limits.models import SelfLimitChange
    from limits.services import panic_press, self_limit_set

    with time_machine.travel(datetime(2026, 9, 1, 9, tzinfo=UTC), tick=False):  # a complaint received 34 days before
        old = make_player()
        overdue = complaint_file(
            player=old,
            reason="deposit",
            description="not credited",
            actor=Actor.player(old),
            event_at=datetime(2026, 8, 31, 9, tzinfo=UTC),
        )
    with time_machine.travel(datetime(2026, 10, 5, 9, tzinfo=UTC), tick=False):
        temporary = [make_player(status="temporary") for _ in range(3)]
        active = make_player()
        self_limit_set(
            player=active, kind="technical", limit_type="daily_stake", value=Money(50_000), actor=Actor.player(active)
        )
        panic_press(player=temporary[0], actor=Actor.player(temporary[0]))
        case, _ = case_open(
            player_id=active.pk,
            kind="screening_hit",
            key="r-1",
            summary="name match",
            blocking=False,
            actor=Actor.system(),
        )
        case_open(
            player_id=temporary[1].pk,
            kind="suspicious",
            key="r-2",
            summary="rule",
            blocking=False,
            actor=Actor.system(),
        )
        case_decide(case=case, decision="cleared", note="another person", actor=Actor.staff(make_staff()))
        fresh = complaint_file(
            player=active,
            reason="balance",
            description="?",
            actor=Actor.player(active),
            event_at=datetime(2026, 10, 4, 9, tzinfo=UTC),
        )
        staff = make_staff(role="support")
        complaint_assign(complaint=fresh, assignee=staff, actor=Actor.staff(staff))
        complaint_investigate(complaint=fresh, actor=Actor.staff(staff))
        complaint_resolve(
            complaint=fresh, outcome="rejected", answer_en="Correct.", answer_cs="Správně.", actor=Actor.staff(staff)
        )
        rep = reports_compute_day(day=DAY)
    start_, end = day_range(DAY)
    assert rep.players_registered == Player.objects.filter(created_at__gte=start_, created_at__lt=end).count() >= 4
    assert (
        rep.temporary_opened
        == Player.objects.filter(temporary_activated_at__gte=start_, temporary_activated_at__lt=end).count()
    )
    assert rep.temporary_completed == Player.objects.filter(completed_at__gte=start_, completed_at__lt=end).count()
    changes = SelfLimitChange.objects.filter(requested_at__gte=start_, requested_at__lt=end)
    assert sum(rep.limits.values()) == changes.count() >= 1
    assert rep.panic_presses == 1
    assert rep.aml["opened"] == {"screening_hit": 1, "suspicious": 1}
    assert rep.aml["decided"] == {"screening_hit": {"cleared": 1}}
    assert (rep.complaints_received, rep.complaints_answered_in_time, rep.complaints_answered_late) == (1, 1, 0)
    assert Complaint.objects.get(pk=overdue.pk).respond_by < end
    assert rep.complaints_overdue == 1 and rep.queues["complaints"]["count"] == 1
    assert rep.queues["complaints"]["oldest_days"] == pytest.approx((end - overdue.received_at).days, abs=1)
    assert rep.queues["aml_cases"]["count"] == 1  # the suspicious-transaction case is still open


@pytest.mark.django_db
def test_the_job_s_statement_count_does_not_grow_with_the_day_s_rounds():
    player = funded_player(500_000)
    counts = []
    with time_machine.travel(datetime(2026, 10, 6, 9, tzinfo=UTC), tick=False) as t:
        for n in (2, 12):
            for _ in range(n):
                assert start(client_for(player)).status_code == 201
                t.shift(3)
            with CaptureQueriesContext(connection) as q:
                rep = reports_compute_day(day=date(2026, 10, 6))
            counts.append(len(q.captured_queries))
    assert rep.rounds == 14
    assert counts[0] == counts[1], counts
    print(f"reports_compute_day: {counts[1]} statements")


def _start_production(extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = {k: v for k, v in __import__("os").environ.items() if not k.startswith(("REPORTS_", "DJANGO_", "JACKPOTS_"))}
    env.update({**PRODUCTION_ENV, **extra})
    return settings_started(env, "settings.REPORTS_ENABLED")  # read in this process (tests.kit.production)


def test_production_with_reports_refuses_to_start_without_the_seal_files_and_starts_with_them(tmp_path):
    r = _start_production({"REPORTS_ENABLED": "true"})
    assert r.returncode != 0
    assert "REPORTS_SEAL_KEY_FILE is missing" in r.stderr and "REPORTS_SEAL_CERT_FILE is missing" in r.stderr
    key, cert, _ = make_seal(tmp_path)
    r = _start_production(
        {
            "REPORTS_ENABLED": "true",
            "REPORTS_SEAL_KEY_FILE": str(key),
            "REPORTS_SEAL_CERT_FILE": str(tmp_path / "nope.pem"),
        }
    )
    assert r.returncode != 0 and "REPORTS_SEAL_CERT_FILE is missing or not a file" in r.stderr
    assert "REPORTS_SEAL_KEY_FILE" not in r.stderr.split("refuses:")[-1]
    r = _start_production(
        {"REPORTS_ENABLED": "true", "REPORTS_SEAL_KEY_FILE": str(key), "REPORTS_SEAL_CERT_FILE": str(cert)}
    )
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr[-500:]
    r = _start_production({"REPORTS_ENABLED": "false"})
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-500:]
