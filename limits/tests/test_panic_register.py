"""The panic button "from all gambling" (2024 amendment): each press is reported to the register of excluded
persons through an outbox (sent after commit, retried with exponential backoff until acknowledged, a repeat is
harmless), and the 48 hours hold for the person: a new account of the same person is refused until they end."""

from __future__ import annotations

import os
import time
import uuid
from datetime import timedelta

import pytest
import time_machine

from accounts import errors as account_errors
from accounts import rules as account_rules
from accounts.adapters import RegisterUnavailable, SandboxExclusionRegister, get_exclusion_register
from accounts.models import LoginSession, Player, SandboxExclusionEntry
from accounts.services import registration_submit
from core.audit import Actor
from core.models import AuditEvent
from core.tests.test_celery_worker import worker_env  # noqa: F401 - a fixture of the worker test below
from limits import errors
from limits.models import PanicExclusion, PanicReport
from limits.rules import panic_report_retry_delay
from limits.services import login_check, panic_press, panic_report_send, panic_reports_send_due
from limits.services.exclusions import _panic_report_claim, _panic_report_deliver
from tests.kit.accounts import (
    applicant_data,
    login_session_for,
    make_excluded,
    make_player,
    make_register_record,
    make_staff,
)
from tests.kit.limits import stake
from tests.kit.money import czk, prague
from tests.kit.refusals import refusal_of

T = prague(2025, 5, 15, 10)
SEC = timedelta(seconds=1)
MIN = timedelta(minutes=1)
H48 = timedelta(hours=48)

_persons = iter(range(700_000, 800_000))  # person numbers of tests.kit.accounts, far from the ones it hands out


def person(status="active"):
    """(person number, a first account of that person)."""
    n = next(_persons)
    return n, make_player(status=status, personal_data={"n": n})


def press(player, at):
    with time_machine.travel(at, tick=False):
        return panic_press(player=player, actor=Actor.player(player), now=at)


def sweep(at):
    with time_machine.travel(at, tick=False):
        return panic_reports_send_due(now=at)


def panic_entries(player):
    return SandboxExclusionEntry.objects.filter(birth_number=player.personal.birth_number, source="panic_button")


# --- the outbox: a press reaches the register -----------------------------------------------------------------
def test_a_press_is_queued_and_reaches_the_register_which_acknowledges_it(player):
    panic = press(player, T)
    report = PanicReport.objects.get(panic=panic)
    assert (report.status, report.attempts, report.next_attempt_at) == ("pending", 0, T)  # due at once
    assert report.reference.startswith("panic-")

    assert sweep(T) == {"acknowledged": 1, "failed": 0}
    report.refresh_from_db()
    entry = panic_entries(player).get()  # the sandbox register recorded the listing
    assert (entry.outcome, entry.listed_until) == ("listed", T + H48)
    assert (report.status, report.attempts, report.acknowledged_at) == ("acknowledged", 1, T)
    assert report.register_reference == f"SANDBOX-{entry.pk}" and report.next_attempt_at is None
    assert AuditEvent.objects.filter(action="limits.panic_reported", details__player_id=player.pk).count() == 1
    assert sweep(T + MIN) == {"acknowledged": 0, "failed": 0}  # sent once only

    # every operator asking the register now learns "listed" until the 48 hours end
    register = get_exclusion_register()
    with time_machine.travel(T + H48 - SEC, tick=False):
        assert register.is_listed(player) is True
    with time_machine.travel(T + H48, tick=False):
        assert register.is_listed(player) is False


def test_the_api_press_sends_the_report_right_after_it_commits(player, django_capture_on_commit_callbacks):
    from rest_framework.test import APIClient

    from config.celery import app
    from tests.kit.accounts import token_for

    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = True
    try:
        with time_machine.travel(T, tick=False), django_capture_on_commit_callbacks(execute=True) as callbacks:
            r = c.post("/api/v1/limits/panic")
    finally:
        app.conf.task_always_eager = eager
    assert r.status_code == 201 and len(callbacks) == 1
    report = PanicReport.objects.get(panic__player=player)
    assert report.status == "acknowledged" and report.attempts == 1 and panic_entries(player).count() == 1


def test_a_press_that_rolls_back_leaves_nothing_to_send(player):
    from django.db import transaction

    with pytest.raises(RuntimeError), transaction.atomic():
        press(player, T)
        raise RuntimeError
    assert not PanicReport.objects.exists() and sweep(T) == {"acknowledged": 0, "failed": 0}


# --- failures are retried with exponential backoff ------------------------------------------------------------
def test_the_retry_delay_doubles_from_one_minute_up_to_an_hour():
    assert [panic_report_retry_delay(n) for n in range(1, 9)] == [
        MIN,
        2 * MIN,
        4 * MIN,
        8 * MIN,
        16 * MIN,
        32 * MIN,
        60 * MIN,
        60 * MIN,
    ]
    assert panic_report_retry_delay(10_000) == 60 * MIN
    with pytest.raises(ValueError):
        panic_report_retry_delay(0)


def test_a_failure_is_retried_at_the_backoff_boundaries_and_then_acknowledged(player):
    down = make_excluded(player, outcome="unavailable")  # the register cannot answer for this person
    panic = press(player, T)
    assert sweep(T) == {"acknowledged": 0, "failed": 1}
    report = PanicReport.objects.get(panic=panic)
    assert (report.status, report.attempts, report.next_attempt_at) == ("pending", 1, T + MIN)
    assert "RegisterUnavailable" in report.last_error

    assert sweep(T + MIN - SEC) == {"acknowledged": 0, "failed": 0}  # 1 minute after the 1st failure: not yet
    assert sweep(T + MIN) == {"acknowledged": 0, "failed": 1}  # due: tried, fails again
    report.refresh_from_db()
    assert (report.attempts, report.next_attempt_at) == (2, T + MIN + 2 * MIN)  # then 2 minutes

    down.delete()  # the register is back
    assert sweep(T + 3 * MIN - SEC) == {"acknowledged": 0, "failed": 0}
    assert sweep(T + 3 * MIN) == {"acknowledged": 1, "failed": 0}
    report.refresh_from_db()
    assert (report.status, report.attempts, report.acknowledged_at, report.last_error) == (
        "acknowledged",
        3,
        T + 3 * MIN,
        "",
    )
    assert panic_entries(player).count() == 1


def test_the_local_exclusion_does_not_wait_for_the_register(player):
    make_excluded(player, outcome="unavailable")
    press(player, T)
    sweep(T)
    assert PanicReport.objects.get().status == "pending"
    assert refusal_of(stake, player, "1", T + MIN).code == errors.PANIC_EXCLUSION.code


# --- a repeat is harmless ---------------------------------------------------------------------------------------
def test_the_sandbox_register_acknowledges_a_repeated_report_once(player):
    register = SandboxExclusionRegister()
    first = register.report_panic(player, reference="panic-x", started_at=T, ends_at=T + H48)
    again = register.report_panic(player, reference="panic-x", started_at=T, ends_at=T + H48)
    assert first == again and panic_entries(player).count() == 1


def test_a_report_delivered_twice_lists_once_and_is_acknowledged_once(player):
    """A claim that outlived a slow call: a second worker claims the same report and both deliver it."""
    panic = press(player, T)
    first = _panic_report_claim(now=T, report_id=None, force=False)
    assert _panic_report_claim(now=T + MIN, report_id=None, force=False) is None  # claimed: not due for 5 minutes
    second = _panic_report_claim(now=T + 5 * MIN, report_id=None, force=False)  # the claim ran out
    assert first is not None and second is not None and first.pk == second.pk
    actor = Actor.system("test")
    done = _panic_report_deliver(second, now=T + 5 * MIN, actor=actor)
    late = _panic_report_deliver(first, now=T + 6 * MIN, actor=actor)
    assert done.status == late.status == "acknowledged"
    assert late.acknowledged_at == T + 5 * MIN and late.register_reference == done.register_reference
    assert panic_entries(player).count() == 1 and panic.report.reference == late.reference
    assert AuditEvent.objects.filter(action="limits.panic_reported").count() == 1
    assert panic_report_send(report_id=panic.report.pk, now=T + 7 * MIN) is None  # nothing more to send


# --- the person, not the account ----------------------------------------------------------------------------------
@pytest.mark.parametrize("after,allowed", [(H48 - SEC, False), (H48, True)])
def test_the_exclusion_holds_on_a_new_account_of_the_same_person_until_48_hours(db, after, allowed):
    n, old = person()
    press(old, T)
    Player.objects.filter(pk=old.pk).update(status="closed", closed_at=T + timedelta(hours=1))
    new = make_player(status="active", personal_data={"n": n})  # the same person registers again
    _, stranger = person()
    assert stake(stranger, "1", T + after).stake == czk(1)  # another person is not affected
    if allowed:
        login_check(player=new, now=T + after)
        assert stake(new, "1", T + after).stake == czk(1)
    else:
        err = refusal_of(stake, new, "1", T + after)
        assert err.code == errors.PANIC_EXCLUSION.code and err.details["ends_at"] == T + H48
        assert login_check(player=new, now=T + after) == T + H48  # the account only: balance, withdrawals


def test_the_new_account_sees_the_running_exclusion_in_the_api(db):
    from rest_framework.test import APIClient

    from tests.kit.accounts import token_for

    n, old = person()
    press(old, T)
    new = make_player(status="active", personal_data={"n": n})
    c = APIClient()
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(new.user)}")
    with time_machine.travel(T + H48 - SEC, tick=False):
        assert c.get("/api/v1/limits/panic").json() == {"active": True, "ends_at": "2025-05-17T08:00:00Z"}
    with time_machine.travel(T + H48, tick=False):
        assert c.get("/api/v1/limits/panic").json() == {"active": False, "ends_at": None}


def test_a_press_logs_out_every_account_of_the_person(db):
    n, first = person()
    second = make_player(status="active", personal_data={"n": n})
    _, stranger = person()
    sessions = [login_session_for(p, at=T - MIN)[0] for p in (first, second, stranger)]
    panic = press(first, T)
    ended = [LoginSession.objects.get(pk=s.pk).end_reason for s in sessions]
    assert ended == [LoginSession.EndReason.FORCED, LoginSession.EndReason.FORCED, ""]
    assert panic.person_key == first.personal.person_key == second.personal.person_key


def test_the_register_refuses_a_new_registration_of_the_person_until_the_48_hours_end(db):
    n = next(_persons)
    data = applicant_data(n=n)
    make_register_record(data)
    old = make_player(status="active", personal_data={"n": n})
    assert old.personal.birth_number == data["birth_number"]
    press(old, T)
    sweep(T)
    Player.objects.filter(pk=old.pk).update(status="closed", closed_at=T + timedelta(hours=1))
    versions = account_rules.document_versions()
    consents = {
        "terms": versions["terms"],
        "data_processing": versions["data_processing"],
        "game_plan": versions["game_plan"],
        "marketing": False,
    }

    def register(at, username):
        with time_machine.travel(at, tick=False):
            return registration_submit(data=dict(data), consents=consents, username=username)

    err = refusal_of(register, T + H48 - SEC, f"again{uuid.uuid4().hex[:8]}")
    assert err.code == account_errors.EXCLUDED_PERSON.code
    new = register(T + H48, f"again{uuid.uuid4().hex[:8]}")
    assert new.status == "temporary" and new.personal.person_key == old.personal.person_key


def test_the_migration_keys_earlier_presses_by_person_and_queues_the_running_ones(player, other_player):
    from django.apps import apps

    from limits.tests.test_responsible_gaming import migration_module

    migration = migration_module("limits", "0002_panic_person_and_register_report")
    running = PanicExclusion.objects.create(player=player, started_at=T - MIN, ends_at=T - MIN + H48)
    ended = PanicExclusion.objects.create(player=other_player, started_at=T - 3 * H48, ends_at=T - 2 * H48)
    with time_machine.travel(T, tick=False):
        migration.backfill(apps, None)
    running.refresh_from_db()
    ended.refresh_from_db()
    assert running.person_key == player.personal.person_key and ended.person_key == other_player.personal.person_key
    report = PanicReport.objects.get()
    assert (report.panic_id, report.status, report.next_attempt_at) == (running.pk, "pending", T)
    assert sweep(T) == {"acknowledged": 1, "failed": 0}


# --- the HTTP register ---------------------------------------------------------------------------------------------
@pytest.fixture
def http_register():
    import json
    import threading
    from http.server import BaseHTTPRequestHandler, HTTPServer

    from django.test import override_settings

    class Register(BaseHTTPRequestHandler):
        answer: tuple[int, dict] = (200, {})
        seen: list = []

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            self.seen.append((self.path, body))
            status, payload = self.answer
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(json.dumps(payload).encode())

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Register)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with override_settings(
        ACCOUNTS_EXCLUSION_REGISTER="http",
        ACCOUNTS_EXCLUSION_REGISTER_URL=f"http://127.0.0.1:{server.server_port}",
        ACCOUNTS_GATEWAY_TIMEOUT_SECONDS=2,
    ):
        yield Register
    server.shutdown()
    server.server_close()


def test_the_http_register_acknowledges_through_the_gateway(player, http_register):
    panic = press(player, T)
    http_register.answer = (503, {})
    assert sweep(T) == {"acknowledged": 0, "failed": 1}
    assert "HTTP 503" in PanicReport.objects.get().last_error
    http_register.answer = (200, {"status": "ok"})  # no acknowledgement: not taken as one
    assert sweep(T + MIN) == {"acknowledged": 0, "failed": 1}
    http_register.answer = (200, {"reference": "RVO-2025-000123"})
    assert sweep(T + 3 * MIN) == {"acknowledged": 1, "failed": 0}
    report = PanicReport.objects.get()
    assert (report.status, report.register_reference, report.attempts) == ("acknowledged", "RVO-2025-000123", 3)
    paths = {p for p, _ in http_register.seen}
    bodies = [b for _, b in http_register.seen]
    assert paths == {"/panic"} and len({b["reference"] for b in bodies}) == 1  # every attempt: the same reference
    assert bodies[-1]["reference"] == report.reference and bodies[-1]["birth_number"] == player.personal.birth_number
    assert bodies[-1]["started_at"] == panic.started_at.isoformat()
    assert bodies[-1]["ends_at"] == (T + H48).isoformat()
    with pytest.raises(RegisterUnavailable):
        http_register.answer = (200, {"reference": ""})
        get_exclusion_register().report_panic(player, reference="panic-y", started_at=T, ends_at=T + H48)


# --- staff ----------------------------------------------------------------------------------------------------------
def test_staff_see_the_report_state_and_can_send_a_pending_report_now(player):
    from django.test import Client

    down = make_excluded(player, outcome="unavailable")
    panic = press(player, T)
    sweep(T)
    c = Client()
    c.force_login(make_staff(superuser=True))
    with time_machine.travel(T + 10 * SEC, tick=False):
        body = c.get("/admin/limits/panicreport/").content.decode()
        assert panic.report.reference in body and "RegisterUnavailable" in body
        assert "pending, 1 attempt(s)" in c.get("/admin/limits/panicexclusion/").content.decode()
        assert c.get(f"/admin/limits/panicreport/{panic.report.pk}/change/").status_code == 200
        down.delete()
        r = c.post("/admin/limits/panicreport/", {"action": "send_now", "_selected_action": [panic.report.pk]})
    assert r.status_code == 302
    report = PanicReport.objects.get()
    assert report.status == "acknowledged" and report.attempts == 2  # sent before its retry was due
    assert AuditEvent.objects.filter(action="limits.panic_reported", actor_type="staff").exists()
    assert "acknowledged" in c.get("/admin/limits/panicexclusion/").content.decode()


def test_the_sweep_is_scheduled_every_minute():
    from limits.schedules import BEAT_SCHEDULE

    assert BEAT_SCHEDULE["limits.panic_reports_send_due"] == {"task": "limits.panic_reports_send_due", "schedule": 60.0}


# --- once through a real worker -------------------------------------------------------------------------------------
@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
def test_the_sweep_acknowledges_a_press_in_a_real_worker(worker_env):  # noqa: F811 - the fixture
    from config.celery import app
    from core.tests.test_celery_worker import _reachable, _start_worker, stop_worker, transport_options
    from limits.tasks import panic_reports_send_due_task

    player = make_player(status="active")
    panic = panic_press(player=player, actor=Actor.player(player))  # the real clock: due at once
    configured = os.environ.get("CELERY_BROKER_URL", "")
    url = (
        configured
        if configured and not configured.startswith("filesystem") and _reachable(configured)
        else "filesystem://"
    )
    queue = f"test-{uuid.uuid4().hex[:8]}"
    proc = _start_worker(worker_env, url, queue)
    try:
        with app.connection_for_write(url, transport_options=transport_options(worker_env, url)) as conn:
            panic_reports_send_due_task.apply_async(queue=queue, connection=conn)  # type: ignore[call-arg]
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and PanicReport.objects.get(panic=panic).status == "pending":
            time.sleep(0.2)
    finally:
        out = stop_worker(proc)
    report = PanicReport.objects.get(panic=panic)
    assert report.status == "acknowledged" and report.attempts == 1, out
    assert panic_entries(player).count() == 1
    assert PanicExclusion.objects.filter(player=player).count() == 1
