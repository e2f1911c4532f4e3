"""Politically exposed persons and sanctions (GP §12(1), §2): the player's declaration, screening against the list
at registration and periodically, the compliance queue and what an open or confirmed case refuses."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine

from aml import errors
from aml.models import AmlProfile, ComplianceCase, ScreeningRun
from aml.selectors import compliance_refusal
from aml.services import case_decide, pep_declare, screening_due, screening_run
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.accounts import birth_number_for
from tests.kit.aml import SYSTEM, applicant, client, make_player, make_staff
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
API = "/api/v1/aml"
LISTED = {"given_names": "Ivan", "surname": "Sankcionovaný", "date_of_birth": "1971-03-14", "sex": "M"}


def listed_player(**personal):
    """A person on the sandbox sanctions list (SBX-SAN-001), or a near miss with ``personal`` overrides."""
    data = {**LISTED, **personal}
    data["birth_number"] = birth_number_for(date.fromisoformat(data["date_of_birth"]), sex=data["sex"], serial=7)
    return make_player(status="temporary", aml_identified_at=None, personal_data=data)


# PEP declaration ---------------------------------------------------------------------------------------------------


def test_not_a_pep_is_recorded_and_opens_no_case():
    player = applicant()
    r = client(player).post(f"{API}/pep-declaration", {"relation": "none"}, format="json")
    assert r.status_code == 201 and r.json()["is_pep"] is False
    assert client(player).get(f"{API}/pep-declaration").json()["relation"] == "none"
    assert not ComplianceCase.objects.filter(player=player).exists()


def test_a_pep_declaration_needs_the_position_and_opens_a_blocking_case():
    player = applicant()
    r = client(player).post(f"{API}/pep-declaration", {"relation": "family"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.PEP_DECLARATION_INVALID.code
    assert client(player).get(f"{API}/pep-declaration").status_code == 404
    r = client(player).post(
        f"{API}/pep-declaration", {"relation": "family", "position": "spouse of a senator"}, format="json"
    )
    assert r.status_code == 201
    case = ComplianceCase.objects.get(player=player)
    assert (case.kind, case.status, case.blocking) == ("pep_declared", "open", True)
    screening_run(player=player, actor=SYSTEM)
    assert refusal_code(compliance_refusal(player, "completion")) == errors.COMPLIANCE_REVIEW.code
    assert refusal_code(compliance_refusal(player, "withdrawal")) == errors.COMPLIANCE_REVIEW.code
    # an open blocking case refuses deposits and stakes too (docs/aml.md; through the API: tests/test_aml_case_refusals)
    assert refusal_code(compliance_refusal(player, "deposit")) == errors.COMPLIANCE_REVIEW.code
    assert refusal_code(compliance_refusal(player, "stake")) == errors.COMPLIANCE_REVIEW.code
    player.refresh_from_db()
    assert player.aml_restriction == "review"


def test_staff_clear_the_pep_case_and_nothing_is_refused_any_more():
    player = applicant()
    pep_declare(player=player, relation="self", position="mayor of Kolín", actor=Actor.player(player))
    screening_run(player=player, actor=SYSTEM)
    case = ComplianceCase.objects.get(player=player)
    staff = make_staff(role="compliance")
    r = client(staff).post(f"{API}/staff/cases/{case.pk}/decide", {"decision": "cleared", "note": ""}, format="json")
    assert r.status_code == 400
    r = client(staff).post(
        f"{API}/staff/cases/{case.pk}/decide",
        {"decision": "cleared", "note": "enhanced due diligence done, accepted"},
        format="json",
    )
    assert r.status_code == 200 and r.json()["status"] == "cleared"
    assert AuditEvent.objects.filter(
        action="aml.case_decided", actor_label=staff.username, object_id=str(case.pk)
    ).exists()
    for direction in ("completion", "withdrawal", "deposit", None):
        assert compliance_refusal(player, direction) is None
    r = client(staff).post(f"{API}/staff/cases/{case.pk}/decide", {"decision": "confirmed", "note": "x"}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.CASE_STATE.code


def test_a_confirmed_blocking_case_refuses_deposits_withdrawals_stakes_and_completion():
    player = applicant()
    pep_declare(player=player, relation="self", position="minister", actor=Actor.player(player))
    case = ComplianceCase.objects.get(player=player)
    case_decide(case=case, decision="confirmed", note="relationship refused", actor=Actor.staff(make_staff()))
    for direction in ("completion", "withdrawal", "deposit", "stake", None):
        assert refusal_code(compliance_refusal(player, direction)) == errors.COMPLIANCE_REFUSED.code
    player.refresh_from_db()
    assert player.aml_restriction == "refused"


def test_completion_needs_the_declaration_and_a_screening_that_answered(settings, tmp_path):
    player = applicant()
    assert refusal_code(compliance_refusal(player, "completion")) == errors.PEP_DECLARATION_REQUIRED.code
    pep_declare(player=player, relation="none", actor=Actor.player(player))
    assert refusal_code(compliance_refusal(player, "completion")) == errors.SCREENING_PENDING.code
    settings.AML_SCREENING_SANDBOX_FILE = tmp_path / "missing.json"
    t0 = clock.now().replace(microsecond=0)
    with time_machine.travel(t0, tick=False):
        run = screening_run(player=player, actor=SYSTEM)
    assert run.result == "unavailable"
    assert AmlProfile.objects.get(player=player).next_screening_at == t0 + timedelta(minutes=30)
    assert refusal_code(compliance_refusal(player, "completion")) == errors.SCREENING_PENDING.code
    settings.AML_SCREENING_SANDBOX_FILE = settings.BASE_DIR / "aml" / "data" / "sandbox_screening_list.json"
    assert screening_run(player=player, actor=SYSTEM).result == "clear"
    assert compliance_refusal(player, "completion") is None


# Screening -----------------------------------------------------------------------------------------------------------


def test_a_listed_person_is_a_hit_with_one_blocking_case_however_often_screened():
    player = listed_player()
    run = screening_run(player=player, actor=SYSTEM)
    assert run.result == "hit" and [m["entry_id"] for m in run.matches] == ["SBX-SAN-001"]
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    case = ComplianceCase.objects.get(player=player)
    assert (case.kind, case.blocking, case.status) == ("screening_hit", True, "open")
    assert refusal_code(compliance_refusal(player, "withdrawal")) == errors.COMPLIANCE_REVIEW.code
    case_decide(case=case, decision="cleared", note="false positive: another person", actor=Actor.staff(make_staff()))
    screening_run(player=player, actor=SYSTEM, trigger="periodic")
    assert ComplianceCase.objects.filter(player=player).count() == 1  # a cleared false positive is not reopened
    assert compliance_refusal(player, "withdrawal") is None


@pytest.mark.parametrize(
    ("personal", "result"),
    [
        ({}, "hit"),
        ({"given_names": "IVAN", "surname": "SANKCIONOVANY"}, "hit"),  # case and accents ignored
        ({"date_of_birth": "1971-03-15"}, "clear"),  # the day after: another person
        ({"date_of_birth": "1971-03-13"}, "clear"),
        ({"surname": "Sankcionovanýa"}, "clear"),
    ],
)
def test_matching_is_by_normalised_name_and_exact_birth_date(personal, result):
    assert screening_run(player=listed_player(**personal), actor=SYSTEM).result == result


@pytest.mark.parametrize(
    ("dob", "result"), [("1965-01-01", "hit"), ("1965-12-31", "hit"), ("1964-12-31", "clear"), ("1966-01-01", "clear")]
)
def test_an_entry_with_only_a_birth_year_matches_that_whole_year(dob, result):
    player = listed_player(given_names="Olga", surname="Zmrazená", date_of_birth=dob, sex="F")
    assert screening_run(player=player, actor=SYSTEM).result == result


def test_the_periodic_screening_runs_at_its_interval_and_at_once_when_the_list_changes(settings, tmp_path):
    import json

    player = applicant()
    t0 = clock.now().replace(microsecond=0)
    with time_machine.travel(t0, tick=False):
        screening_due()
    assert ScreeningRun.objects.filter(player=player).count() == 1
    with time_machine.travel(t0 + timedelta(hours=24) - timedelta(seconds=1), tick=False):
        screening_due()
    assert ScreeningRun.objects.filter(player=player).count() == 1
    with time_machine.travel(t0 + timedelta(hours=24), tick=False):
        screening_due()
    assert ScreeningRun.objects.filter(player=player).count() == 2
    data = json.loads((settings.BASE_DIR / "aml" / "data" / "sandbox_screening_list.json").read_text())
    data["version"] = "sandbox-next"
    changed = tmp_path / "list.json"
    changed.write_text(json.dumps(data))
    settings.AML_SCREENING_SANDBOX_FILE = changed
    with time_machine.travel(t0 + timedelta(hours=25), tick=False):
        screening_due()
    runs = list(ScreeningRun.objects.filter(player=player).order_by("ran_at"))
    assert len(runs) == 3 and runs[-1].list_version == "sandbox-next" and runs[-1].trigger == "periodic"


def test_the_periodic_screening_skips_closed_accounts_and_is_safe_to_run_twice():
    closed = make_player(status="closed")
    live = applicant()
    first = screening_due()
    second = screening_due()
    assert first["claimed"] >= 1 and second["claimed"] == 0
    assert ScreeningRun.objects.filter(player=live).count() == 1
    assert not ScreeningRun.objects.filter(player=closed).exists()


def test_the_schedule_holds_the_aml_jobs():
    from config.schedules import collect

    jobs = collect()
    assert {
        "aml.identification_sweep",
        "aml.screening_periodic",
        "aml.rules_evaluate",
        "aml.source_of_funds_scan",
    } <= set(jobs)


def test_the_compliance_queue_lists_open_cases_for_staff_only():
    player = listed_player()
    screening_run(player=player, actor=SYSTEM)
    staff = client(make_staff(role="compliance"))
    rows = staff.get(f"{API}/staff/cases").json()["results"]
    assert [r["kind"] for r in rows if r["player"] == player.pk] == ["screening_hit"]
    assert client(player).get(f"{API}/staff/cases").status_code == 403
    assert client().get(f"{API}/staff/cases").status_code == 401


def test_the_status_endpoint_tells_the_player_what_is_missing():
    player = applicant()
    body = client(player).get(f"{API}/status").json()
    assert body["identified"] is False and body["pep_declared"] is False
    assert body["refusals"]["completion"] == errors.PEP_DECLARATION_REQUIRED.code
    assert body["refusals"]["withdrawal"] is None


def test_a_declaration_of_a_closed_account_is_refused():
    player = make_player(status="closed")
    with pytest.raises(DomainError):
        pep_declare(player=player, relation="none", actor=Actor.player(player))


def test_a_screening_requested_at_registration_runs_after_commit(commit):
    from aml.services import screening_request

    player = listed_player()
    with commit():
        screening_request(player=player, actor=SYSTEM)
        assert not ScreeningRun.objects.filter(player=player).exists()  # not inside the caller's transaction
    run = ScreeningRun.objects.get(player=player)
    assert (run.trigger, run.result) == ("registration", "hit")
    assert ComplianceCase.objects.filter(player=player, kind="screening_hit", status="open").count() == 1
