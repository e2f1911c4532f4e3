"""End to end: a player files about a real round through the API; staff investigate in the admin with the
round's full recall, uphold it there with a money remedy, and the credit appears in the player's statement.
Then the monthly report (selector, management command, staff API)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from io import StringIO

import pytest
import time_machine
from django.core import mail
from django.core.management import call_command
from django.test import Client

from complaints import services
from complaints.errors import REPORT_MONTH_INVALID
from complaints.models import Complaint
from complaints.selectors import complaints_report
from complaints.tests.helpers import file_via_api, play_round
from core.audit import Actor
from core.clock import PRAGUE
from core.money import Money
from tests.kit.clients import client_for
from tests.kit.wallet import fund

NOW = datetime(2026, 11, 3, 11, 0, tzinfo=PRAGUE)


@pytest.fixture
def games_catalogue(db):
    from games.services import games_sync

    games_sync()


def admin_client(user) -> Client:
    c = Client(raise_request_exception=True, headers={"accept-language": "en"})  # reads the English texts
    c.force_login(user)
    return c


@pytest.mark.django_db
def test_a_player_complains_about_a_round_staff_uphold_it_in_the_admin_and_the_credit_reaches_the_statement(
    player, agent, games_catalogue, django_capture_on_commit_callbacks
):
    from wallet.selectors import balance, statement

    with time_machine.travel(NOW, tick=False) as clock:
        fund(player, 50_000)
        round_id = play_round(player)
        clock.shift(timedelta(minutes=5))
        # 1. The player files through the API and gets the confirmation.
        with django_capture_on_commit_callbacks(execute=True):
            r = file_via_api(
                client_for(player.user),
                rounds=[round_id],
                description="The wheel showed red.",
                remedy_requested="Pay my win",
                remedy_amount_requested={"amount": 10_000, "currency": "CZK"},
            )
        assert r.status_code == 201
        ref = r.json()["reference"]
        c = Complaint.objects.get(reference=ref)
        assert mail.outbox[-1].to == [player.user.email] and ref in mail.outbox[-1].subject

        # 2. Staff open the case in the admin: the round's full recall is rendered.
        staff = admin_client(agent)
        page = staff.get(f"/admin/complaints/complaint/{c.pk}/change/")
        assert page.status_code == 200
        html = page.content.decode()
        assert f"Round {round_id}" in html and "european_roulette" in html and "Recall unavailable" not in html
        assert "&quot;draws&quot;" in html  # everything stored with the round (GP §11(5))
        assert 'replay check</th><td colspan="3"><b style="color:#080">match</b>' in html
        # Direct edits are impossible: no save button, everything goes through the workflow.
        assert 'name="_save"' not in html

        # 3. Assign, investigate, note, uphold with a remedy, all through the admin's workflow views (the money
        # remedy needs its own permission: finance or a complaint supervisor).
        from django.contrib.auth.models import Permission

        agent.user_permissions.add(Permission.objects.get(codename="credit_remedy"))
        base = f"/admin/complaints/complaint/{c.pk}/act"
        with django_capture_on_commit_callbacks(execute=True):
            assert staff.post(f"{base}/assign_me/").status_code == 302
            assert staff.post(f"{base}/investigate/").status_code == 302
            assert staff.post(f"{base}/note/", {"text": "Replay matches the record."}).status_code == 302
            before = balance(player)
            form = {
                "outcome": "partly_upheld",
                "answer_cs": "Uznáváme část nároku.",
                "answer_en": "Partly upheld.",
                "remedy_amount": "100,00 Kč",
                "remedy_text": "",
            }
            resp = staff.post(f"{base}/resolve/", form)
            assert resp.status_code == 200 and "100,00" in resp.content.decode()  # the confirmation page
            assert balance(player) == before
            resp = staff.post(f"{base}/resolve/", {**form, "confirmed": "1"})
            assert resp.status_code == 302
        c.refresh_from_db()
        assert c.status == "resolved" and c.outcome == "partly_upheld" and c.assignee == agent
        assert c.remedy_amount == 10_000 and c.credit_reference == f"complaint:{c.pk}"
        assert balance(player) == before + Money(10_000)
        lines = [
            ln
            for ln in statement(player, NOW - timedelta(days=1), NOW + timedelta(days=1))
            if ln.reference == f"complaint:{c.pk}"
        ]
        assert len(lines) == 1 and lines[0].amount == Money(10_000)
        # Posting the resolution again changes nothing and credits nothing.
        staff.post(
            f"{base}/resolve/", {"outcome": "upheld", "answer_cs": "x", "remedy_amount": "100,00", "confirmed": "1"}
        )
        assert len([ln for ln in statement(player) if ln.reference == f"complaint:{c.pk}"]) == 1

        # 4. The player reads the answer with the remedy and the ČOI notice (GP §11(8)).
        body = client_for(player.user).get(f"/api/v1/complaints/{ref}").json()
        assert body["status"] == "resolved" and body["answer"]["remedy_amount"]["amount"] == 10_000
        assert "adr.coi.cz" in body["answer"]["text"]
        assert "Replay matches" not in json.dumps(body)  # internal note stays internal
        # The case page now shows the audit trail of every step.
        html = staff.get(f"/admin/complaints/complaint/{c.pk}/change/").content.decode()
        for action in ("complaints.filed", "complaints.assigned", "complaints.resolved", "complaints.remedy_credited"):
            assert action in html


@pytest.mark.django_db
def test_staff_without_the_complaints_permission_can_neither_act_nor_see(player, games_catalogue):
    from tests.kit.accounts import make_staff

    with time_machine.travel(NOW, tick=False):
        c = services.complaint_file(
            player=player, reason="other", description="x", event_at=NOW, actor=Actor.player(player)
        )
    nobody = admin_client(make_staff())
    assert nobody.post(f"/admin/complaints/complaint/{c.pk}/act/assign_me/").status_code == 403
    assert nobody.get(f"/admin/complaints/complaint/{c.pk}/change/").status_code in (302, 403)
    assert Complaint.objects.get(pk=c.pk).status == "new"


@pytest.mark.django_db
def test_staff_enter_a_branch_complaint_through_the_admin_form(player, agent, django_capture_on_commit_callbacks):
    staff = admin_client(agent)
    with time_machine.travel(NOW, tick=False), django_capture_on_commit_callbacks(execute=True):
        assert staff.get("/admin/complaints/complaint/add/").status_code == 302
        r = staff.post(
            "/admin/complaints/complaint/file/",
            {
                "username": player.user.username,
                "channel": "branch",
                "received_at": "2026-11-01 15:30:00",
                "reason": "withdrawal",
                "description": "Cash withdrawal at the branch was short by 100 CZK.",
                "event_at": "2026-11-01 15:00:00",
                "language": "cs",
                "remedy_requested": "Pay the difference",
            },
        )
    assert r.status_code == 302, r.content.decode()[:2000]
    c = Complaint.objects.get()
    assert c.channel == "branch" and c.entered_by == agent
    assert c.received_at == datetime(2026, 11, 1, 15, 30, tzinfo=PRAGUE)
    assert str(c.respond_by_date) == "2026-12-01"
    assert mail.outbox[0].to == [player.user.email]


@pytest.mark.django_db
def test_the_admin_changelist_and_report_pages_render(player, agent):
    with time_machine.travel(NOW, tick=False):
        services.complaint_file(
            player=player, reason="deposit", description="x", event_at=NOW, actor=Actor.player(player)
        )
        staff = admin_client(agent)
        assert staff.get("/admin/complaints/complaint/").status_code == 200
        assert staff.get("/admin/complaints/complaint/?deadline=overdue").status_code == 200
        page = staff.get("/admin/complaints/complaint/report/?month=2026-11")
        assert page.status_code == 200 and "Complaints received in 2026-11: 1" in page.content.decode()


# --- the monthly report ---------------------------------------------------------------------------------------------
@pytest.fixture
def november(player, agent):
    """Five complaints received in November 2026 (Prague) and one in December:
    A deposit, answered after 2 days, upheld; B game_result, answered after 10 days, rejected;
    C game_result, filed late (auto-answered); D withdrawal, open and past due at the report time;
    E deposit received 30 Nov 23:30 Prague (= 22:30 UTC, still November), answered after 40 days (late)."""
    staff = Actor.staff(agent)

    def make(at, reason, event_delta=timedelta(days=1)):
        with time_machine.travel(at, tick=False):
            return services.complaint_file(
                player=player, reason=reason, description="x", event_at=at - event_delta, actor=Actor.player(player)
            )

    def answer(c, at, outcome):
        with time_machine.travel(at, tick=False):
            services.complaint_assign(complaint=c, assignee=agent, actor=staff)
            services.complaint_investigate(complaint=c, actor=staff)
            services.complaint_resolve(complaint=c, outcome=outcome, answer_cs="Odpověď.", actor=staff)

    a = make(datetime(2026, 11, 2, 9, 0, tzinfo=PRAGUE), "deposit")
    answer(a, datetime(2026, 11, 4, 9, 0, tzinfo=PRAGUE), "upheld")
    b = make(datetime(2026, 11, 5, 9, 0, tzinfo=PRAGUE), "game_result")
    answer(b, datetime(2026, 11, 15, 9, 0, tzinfo=PRAGUE), "rejected")
    make(datetime(2026, 11, 6, 9, 0, tzinfo=PRAGUE), "game_result", event_delta=timedelta(days=300))
    make(datetime(2026, 11, 7, 9, 0, tzinfo=PRAGUE), "withdrawal")
    e = make(datetime(2026, 11, 30, 23, 30, tzinfo=PRAGUE), "deposit")
    answer(e, datetime(2027, 1, 9, 23, 30, tzinfo=PRAGUE), "partly_upheld")
    make(datetime(2026, 12, 1, 0, 30, tzinfo=PRAGUE), "other")  # December in Prague (still Nov 30 in UTC)


@pytest.mark.django_db
def test_the_monthly_report_counts_by_reason_and_outcome_with_median_and_maximum_time_to_answer(november):
    r = complaints_report("2026-11", now=datetime(2027, 1, 15, tzinfo=PRAGUE))
    assert r["received"] == 5 and r["open"] == 1 and r["late_filed"] == 1
    assert r["by_reason"]["deposit"] == 2 and r["by_reason"]["game_result"] == 2 and r["by_reason"]["withdrawal"] == 1
    assert r["by_reason"]["other"] == 0  # the 1 December complaint belongs to December (Prague)
    assert r["by_outcome"] == {
        "open": 1,
        "upheld": 1,
        "partly_upheld": 1,
        "rejected": 1,
        "not_justified_rules": 0,
        "not_justified_late": 1,
    }
    assert r["reason_by_outcome"]["game_result"] == {"rejected": 1, "not_justified_late": 1}
    t = r["time_to_answer"]
    assert t["answered"] == 3  # the automatic answer to the late filing is not counted
    assert t["median_days"] == 10.0 and t["max_days"] == 40.0
    assert r["overdue"] == 2 and r["overdue_answered_late"] == 1 and r["overdue_open_now"] == 1


@pytest.mark.django_db
def test_the_report_command_prints_the_month_as_text_and_json(november):
    out = StringIO()
    with time_machine.travel(datetime(2027, 1, 15, tzinfo=PRAGUE), tick=False):
        call_command("complaints_report", "--month", "2026-11", stdout=out)
        text = out.getvalue()
        assert "Complaints received in 2026-11 (Europe/Prague): 5" in text and "median 10.0 d, max 40.0 d" in text
        out = StringIO()
        call_command("complaints_report", "--month", "2026-11", "--json", stdout=out)
    assert json.loads(out.getvalue())["overdue"] == 2


@pytest.mark.django_db
def test_the_report_endpoint_is_for_staff_only(november, player, agent):
    from rest_framework.test import APIClient

    staff = APIClient()
    staff.force_authenticate(agent)
    r = staff.get("/api/v1/complaints/staff/report?month=2026-11")
    assert r.status_code == 200 and r.json()["received"] == 5 and r.json()["by_reason"]["deposit"] == 2
    r = staff.get("/api/v1/complaints/staff/report?month=November")
    assert r.status_code == 400 and r.json()["error"]["code"] == REPORT_MONTH_INVALID.code
    r = client_for(player.user).get("/api/v1/complaints/staff/report?month=2026-11")
    assert r.status_code == 403


@pytest.mark.django_db
def test_the_assign_to_me_action_of_the_changelist_goes_through_the_service(player, agent):
    with time_machine.travel(NOW, tick=False):
        c = services.complaint_file(
            player=player, reason="other", description="x", event_at=NOW, actor=Actor.player(player)
        )
        r = admin_client(agent).post(
            "/admin/complaints/complaint/", {"action": "assign_to_me", "_selected_action": [c.pk]}
        )
    assert r.status_code == 302
    c.refresh_from_db()
    assert c.status == "assigned" and c.assignee == agent
    from core.models import AuditEvent

    assert AuditEvent.objects.filter(action="complaints.assigned", object_id=str(c.pk), actor_type="staff").exists()


@pytest.mark.django_db
def test_the_demo_data_is_idempotent(player):
    from complaints import demo

    out = StringIO()
    demo.seed(out)
    n = Complaint.objects.count()
    demo.seed(out)
    assert n >= 2 and Complaint.objects.count() == n
