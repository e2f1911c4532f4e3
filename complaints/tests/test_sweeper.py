"""The deadline sweeper on a moved clock (time_machine): day-20 and day-27 reminders to the assignee and the
supervisors, the overdue flag after day 30 (GP §11(1)), each once, safe to run twice, nothing passes silently."""

from __future__ import annotations

from datetime import datetime, timedelta

import psycopg
import pytest
import time_machine
from django.core import mail

from complaints import services
from complaints.models import Complaint, ComplaintNotice
from complaints.schedules import BEAT_SCHEDULE
from complaints.tasks import deadline_sweep
from core.audit import Actor
from core.clock import PRAGUE
from core.models import AuditEvent

RECEIVED = datetime(2026, 11, 2, 14, 0, tzinfo=PRAGUE)  # day 0; due 2026-12-02, overdue from 2026-12-03 00:00


def day(n: int, hour: int = 0, minute: int = 0) -> datetime:
    return (RECEIVED.replace(hour=hour, minute=minute) + timedelta(days=n)).replace(tzinfo=PRAGUE)


def sweep(at: datetime, capture) -> dict:
    with time_machine.travel(at, tick=False), capture(execute=True):
        return services.complaints_deadline_sweep()


def stages(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "notices_retried"}


NONE_DUE = {"reminder_first": 0, "reminder_second": 0, "overdue": 0}


@pytest.fixture
def open_complaint(player, agent):
    with time_machine.travel(RECEIVED, tick=False):
        c = services.complaint_file(
            player=player,
            reason="withdrawal",
            description="Withdrawal missing",
            event_at=RECEIVED - timedelta(days=1),
            actor=Actor.player(player),
        )
        services.complaint_assign(complaint=c, assignee=agent, actor=Actor.staff(agent))
    return Complaint.objects.get(pk=c.pk)


def _staff_mail(kind_word: str):
    return [m for m in mail.outbox if kind_word in m.subject]


@pytest.mark.django_db
def test_a_complaint_left_open_gets_both_reminders_and_the_overdue_flag_each_exactly_once(
    open_complaint, agent, supervisor, django_capture_on_commit_callbacks
):
    cap = django_capture_on_commit_callbacks
    c = open_complaint
    assert str(c.respond_by_date) == "2026-12-02"

    # Day 19, 23:59 Prague: nothing is due yet.
    assert sweep(day(19, 23, 59), cap)["reminder_first"] == 0
    # Day 20, 00:00 Prague: the first reminder, to the assignee and the supervisor.
    assert sweep(day(20), cap)["reminder_first"] == 1
    [m] = _staff_mail("Připomínka (20. den)")
    assert sorted(m.to) == sorted([agent.email, supervisor.email]) and c.reference in m.subject
    # Run twice (or on a second worker): nothing more.
    assert stages(sweep(day(20, 0, 10), cap)) == NONE_DUE
    assert len(_staff_mail("Připomínka (20. den)")) == 1

    assert sweep(day(26, 23, 59), cap)["reminder_second"] == 0
    assert sweep(day(27), cap)["reminder_second"] == 1
    assert len(_staff_mail("Připomínka (27. den)")) == 1

    # Day 30 is the last day to answer: not overdue until it ends (Prague).
    assert sweep(day(30, 23, 59), cap)["overdue"] == 0
    c.refresh_from_db()
    assert c.overdue_flagged_at is None
    # Day 31, 00:00 Prague: flagged and e-mailed to the supervisors (and the assignee).
    assert sweep(day(31), cap)["overdue"] == 1
    c.refresh_from_db()
    assert c.overdue_flagged_at is not None
    [alert] = _staff_mail("PO LHŮTĚ")
    assert supervisor.email in alert.to and "OVERDUE" in alert.subject
    assert sweep(day(31, 1), cap)["overdue"] == 0
    assert stages(sweep(day(45), cap)) == NONE_DUE

    kinds = list(
        ComplaintNotice.objects.filter(complaint=c)
        .exclude(kind__in=["confirmation", "assigned"])
        .values_list("kind", flat=True)
        .order_by("created_at")
    )
    assert kinds == ["reminder_first", "reminder_second", "overdue"]
    assert ComplaintNotice.objects.filter(complaint=c, sent_at__isnull=True).count() == 0
    assert list(
        AuditEvent.objects.filter(object_type="complaints.complaint", object_id=str(c.pk), actor_type="system")
        .order_by("occurred_at")
        .values_list("action", flat=True)
    ) == ["complaints.reminder_first_sent", "complaints.reminder_second_sent", "complaints.overdue_flagged"]
    # The flag shows in the player-independent views: the report counts it.
    from complaints.selectors import complaints_report, overdue_open

    with time_machine.travel(day(31, 2), tick=False):
        assert list(overdue_open()) == [c]
        assert complaints_report("2026-11")["overdue_open_now"] == 1


@pytest.mark.django_db
def test_a_complaint_nobody_took_still_reaches_the_supervisors(player, supervisor, django_capture_on_commit_callbacks):
    with time_machine.travel(RECEIVED, tick=False):
        services.complaint_file(
            player=player, reason="other", description="x", event_at=RECEIVED, actor=Actor.player(player)
        )
    sweep(day(20), django_capture_on_commit_callbacks)
    [m] = _staff_mail("Připomínka (20. den)")
    assert m.to == [supervisor.email]


@pytest.mark.django_db
def test_without_any_supervisor_the_superusers_are_told(player, django_capture_on_commit_callbacks):
    from tests.kit.accounts import make_staff

    boss = make_staff(superuser=True)
    with time_machine.travel(RECEIVED, tick=False):
        services.complaint_file(
            player=player, reason="other", description="x", event_at=RECEIVED, actor=Actor.player(player)
        )
    sweep(day(31), django_capture_on_commit_callbacks)
    assert any(boss.email in m.to for m in _staff_mail("PO LHŮTĚ"))


@pytest.mark.django_db
def test_a_complaint_resolved_in_time_gets_no_reminder_and_no_flag(
    open_complaint, agent, supervisor, django_capture_on_commit_callbacks
):
    with time_machine.travel(day(10), tick=False):
        services.complaint_investigate(complaint=open_complaint, actor=Actor.staff(agent))
        services.complaint_resolve(
            complaint=open_complaint, outcome="rejected", answer_cs="Zamítnuto.", actor=Actor.staff(agent)
        )
    assert stages(sweep(day(40), django_capture_on_commit_callbacks)) == NONE_DUE
    assert not ComplaintNotice.objects.filter(kind__in=["reminder_first", "reminder_second", "overdue"]).exists()


@pytest.mark.django_db
def test_a_complaint_resolved_after_day_30_stays_flagged_and_counts_as_answered_late(
    open_complaint, agent, supervisor, django_capture_on_commit_callbacks
):
    sweep(day(31), django_capture_on_commit_callbacks)
    with time_machine.travel(day(33), tick=False):
        c = services.complaint_investigate(complaint=open_complaint, actor=Actor.staff(agent))
        services.complaint_resolve(complaint=c, outcome="rejected", answer_cs="Zamítnuto.", actor=Actor.staff(agent))
        from complaints.selectors import complaints_report

        report = complaints_report("2026-11")
    assert report["overdue"] == 1 and report["overdue_answered_late"] == 1 and report["overdue_open_now"] == 0
    assert AuditEvent.objects.filter(action="complaints.resolved", object_id=str(c.pk), details__overdue=True).exists()


@pytest.mark.django_db
def test_a_complaint_entered_late_by_staff_gets_every_due_step_on_the_next_run(
    player, agent, supervisor, django_capture_on_commit_callbacks
):
    """A letter found 35 days after it arrived: the next sweep sends both reminders and the overdue alert."""
    with time_machine.travel(day(35), tick=False):
        services.complaint_file(
            player=player,
            reason="other",
            description="letter",
            event_at=RECEIVED,
            channel="post",
            received_at=RECEIVED,
            actor=Actor.staff(agent),
            entered_by=agent,
        )
    assert stages(sweep(day(35, 0, 10), django_capture_on_commit_callbacks)) == {
        "reminder_first": 1,
        "reminder_second": 1,
        "overdue": 1,
    }


@pytest.mark.django_db
def test_an_email_the_mail_server_refused_is_retried_by_the_sweeper(
    open_complaint, supervisor, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "complaints.tests.failing_mail.Backend"
    sweep(day(20), django_capture_on_commit_callbacks)
    notice = ComplaintNotice.objects.get(kind="reminder_first")
    assert notice.sent_at is None and notice.attempts == 1 and "refused" in notice.last_error
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    result = sweep(day(20, 0, 30), django_capture_on_commit_callbacks)
    notice.refresh_from_db()
    assert notice.sent_at is not None and result["reminder_first"] == 0 and result["notices_retried"] >= 1
    assert len(_staff_mail("Připomínka (20. den)")) == 1


@pytest.mark.django_db(transaction=True)
def test_two_workers_sweeping_at_once_send_each_reminder_once(player, agent, supervisor):
    import threading

    from django.db import connection

    with time_machine.travel(RECEIVED, tick=False):
        for _ in range(5):
            services.complaint_file(
                player=player, reason="other", description="x", event_at=RECEIVED, actor=Actor.player(player)
            )
    totals: list[dict] = []
    barrier = threading.Barrier(2)

    def run():
        try:
            barrier.wait(timeout=5)
            totals.append(services.complaints_deadline_sweep())
        finally:
            connection.close()

    # One traveller for both threads, entered and left by this thread: time_machine patches the clock for the whole
    # process and keeps one stack of travellers, so a traveller per thread would pop the other's on exit.
    with time_machine.travel(day(20), tick=False):
        threads = [threading.Thread(target=run) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    notices = list(
        ComplaintNotice.objects.filter(kind="reminder_first").values("complaint_id", "sent_at", "last_error")
    )
    assert len(notices) == 5 and all(n["sent_at"] is not None for n in notices), notices
    assert sum(t["reminder_first"] for t in totals) == 5, totals
    assert len([m for m in mail.outbox if "20. den" in m.subject]) == 5, [m.subject for m in mail.outbox]


@pytest.mark.django_db
def test_the_celery_task_runs_the_sweeper_and_beat_runs_it_every_ten_minutes(open_complaint, supervisor):
    with time_machine.travel(day(20), tick=False):
        result = deadline_sweep.apply().get()
    assert result["reminder_first"] == 1
    entry = BEAT_SCHEDULE["complaints.deadline_sweep"]
    assert entry["task"] == deadline_sweep.name == "complaints.deadline_sweep" and entry["schedule"] <= 600


@pytest.mark.django_db(transaction=True)
def test_a_notice_is_sent_while_another_transaction_holds_its_complaint(open_complaint, supervisor):
    """Sending locks the notice's row only: a sweeper or a staff action holding the complaint's row (CI's two-worker
    failure: one reminder of five left unsent until the retry) does not make the send skip the notice."""
    from django.db import connection

    from complaints import notify
    from core import clock

    # written unsent, as a service's transaction leaves it for its after-commit send
    notice = ComplaintNotice.objects.create(
        complaint=open_complaint,
        kind="info_request",
        recipients=["x@example.cz"],
        subject="held",
        body="x",
        created_at=clock.now(),
    )
    # a plain second connection to the same database: Django's libpq parameters, without the psycopg objects it adds
    # for its own connections (its cursor class, its adapters' context, the prepare threshold)
    libpq = {option.keyword.decode() for option in psycopg.pq.Conninfo.get_defaults()}
    other = psycopg.connect(**{k: v for k, v in connection.get_connection_params().items() if k in libpq})
    try:
        with other.cursor() as cur:
            cur.execute("SELECT id FROM complaints_complaint WHERE id = %s FOR NO KEY UPDATE", [open_complaint.pk])
            assert notify.notice_send(notice_id=notice.pk) is True
    finally:
        other.rollback()
        other.close()
    notice.refresh_from_db()
    assert notice.sent_at is not None and [m.subject for m in mail.outbox].count("held") == 1
