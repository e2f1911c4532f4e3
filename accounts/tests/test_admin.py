"""Staff actions in the admin: each form calls a service (audited)."""

import pytest
from django.test import Client

from accounts.models import (
    BarredPerson,
    CorrectionRequest,
    DuplicateCase,
    IdentityVerification,
    LoginSession,
    Player,
    SandboxPopulationRecord,
)
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.accounts import (
    applicant_data,
    login_session_for,
    make_excluded,
    make_player,
    make_register_record,
    registration_payload,
)

pytestmark = pytest.mark.django_db


def test_the_player_pages_render_with_the_history_and_the_staff_actions(staff_client):
    player = make_player()
    assert staff_client.get("/admin/accounts/player/").status_code == 200
    r = staff_client.get(f"/admin/accounts/player/{player.pk}/change/")
    assert r.status_code == 200 and "Ověřit totožnost na pobočce" in r.content.decode()
    for name in ("suspend", "close", "verify_branch", "insider", "exclusion_check", "force_logout", "reinstate"):
        assert staff_client.get(f"/admin/accounts/player/{player.pk}/act/{name}/").status_code == 200


def test_a_non_staff_user_cannot_use_the_staff_actions():
    player = make_player()
    c = Client()
    c.force_login(player.user)
    r = c.post(f"/admin/accounts/player/{player.pk}/act/suspend/", {"reason": "x"})
    assert r.status_code == 302 and "/admin/login/" in r["Location"]
    player.refresh_from_db()
    assert player.status == "active"


def test_staff_register_an_applicant_at_a_branch(staff_client):
    data = applicant_data()
    make_register_record(data)
    form = {
        **data,
        "accepted_terms": "on",
        "accepted_data_processing": "on",
        "acknowledged_game_plan": "on",
        "likeness_confirmed": "on",
    }
    r = staff_client.post("/admin/accounts/player/register-branch/", form)
    assert r.status_code == 302, r.content.decode()[:2000]
    player = Player.objects.get()
    assert player.channel == "branch" and player.status == "temporary" and player.user.username.startswith("h")
    assert IdentityVerification.objects.get(player=player).verified_by == staff_client.staff


def test_a_branch_registration_without_the_likeness_confirmed_shows_the_error(staff_client):
    data = applicant_data()
    make_register_record(data)
    form = {**data, "accepted_terms": "on", "accepted_data_processing": "on", "acknowledged_game_plan": "on"}
    r = staff_client.post("/admin/accounts/player/register-branch/", form)
    assert r.status_code == 200 and b"accounts.likeness_not_confirmed" in r.content
    assert Player.objects.count() == 0


def test_staff_verify_the_identity_of_an_online_applicant_at_a_branch(staff_client):
    player = make_player(status="temporary", aml_identified_at=None)
    passport = {
        "document_type": "passport",
        "document_number": "P1234567",
        "document_issuing_state": "CZ",
        "document_issuing_authority": "MV ČR",
        "document_valid_until": "2031-01-01",
        "likeness_confirmed": "on",
    }
    # GP §2 point 9: a Czech citizen shows a passport only when the identity card cannot be shown
    r = staff_client.post(f"/admin/accounts/player/{player.pk}/act/verify_branch/", passport)
    assert r.status_code == 200 and b"id_card_required" in r.content
    r = staff_client.post(
        f"/admin/accounts/player/{player.pk}/act/verify_branch/", {**passport, "id_card_unavailable": "on"}
    )
    assert r.status_code == 302
    player.refresh_from_db()
    assert player.aml_identified_at is not None
    assert player.personal.document_number == "P1234567"  # the recorded document updates the personal data
    assert player.personal.id_card_unavailable
    iv = IdentityVerification.objects.get(player=player)
    assert iv.method == "branch" and iv.likeness_confirmed and iv.id_card_unavailable


def test_staff_suspend_a_player_and_the_audit_names_them(staff_client):
    player = make_player()
    r = staff_client.post(f"/admin/accounts/player/{player.pk}/act/suspend/", {"reason": "AML review"})
    assert r.status_code == 302
    player.refresh_from_db()
    assert player.status == "suspended"
    event = AuditEvent.objects.get(action="accounts.player.suspended")
    assert event.actor_type == "staff" and event.actor_label == staff_client.staff.username


def test_a_refused_staff_action_shows_the_error_and_changes_nothing(staff_client):
    player = make_player()
    r = staff_client.post(f"/admin/accounts/player/{player.pk}/act/reinstate/", {"reason": "x"})
    assert r.status_code == 200 and b"accounts.invalid_transition" in r.content
    player.refresh_from_db()
    assert player.status == "active"


def test_staff_resolve_a_refused_registration_in_the_admin(staff_client, register):
    existing = make_player()
    body = registration_payload(phone=existing.personal.phone)
    make_register_record(body)
    register(body)
    case = DuplicateCase.objects.get()
    assert staff_client.get(f"/admin/accounts/duplicatecase/{case.pk}/change/").status_code == 200
    r = staff_client.post(
        f"/admin/accounts/duplicatecase/{case.pk}/resolve/",
        {"same_person": "0", "closure_method": "transfer", "note": "different people"},
    )
    assert r.status_code == 302
    assert Player.objects.filter(user__username=body["username"], status="temporary").exists()


def test_staff_decide_a_correction_in_the_admin(staff_client):
    from accounts import services

    player = make_player()
    req = services.correction_request_create(
        player=player, changes={"residence_city": "Brno"}, note="", actor=Actor.player(player)
    )
    assert staff_client.get(f"/admin/accounts/correctionrequest/{req.pk}/change/").status_code == 200
    r = staff_client.post(f"/admin/accounts/correctionrequest/{req.pk}/decide/", {"approve": "1", "note": "ok"})
    assert r.status_code == 302
    assert CorrectionRequest.objects.get().state == "approved"
    player.personal.refresh_from_db()
    assert player.personal.residence_city == "Brno"


def test_adding_a_barred_person_in_the_admin_flags_their_account(staff_client):
    player = make_player()
    r = staff_client.post(
        "/admin/accounts/barredperson/add/",
        {
            "given_names": player.personal.given_names,
            "surname": player.personal.surname,
            "date_of_birth": player.personal.date_of_birth.isoformat(),
            "birth_number": "",
            "role": "employee",
            "active": "on",
            "note": "",
        },
    )
    assert r.status_code == 302
    assert BarredPerson.objects.count() == 1
    player.refresh_from_db()
    assert player.barred_insider


def test_staff_fill_the_sandbox_population_register(staff_client):
    r = staff_client.post(
        "/admin/accounts/sandboxpopulationrecord/add/",
        {
            "birth_number": "",
            "given_names": "Anna",
            "surname": "Cizinka",
            "date_of_birth": "1990-01-01",
            "sex": "F",
            "citizenship": "SK",
            "resident_in_cz": "on",
            "note": "",
        },
    )
    assert r.status_code == 302 and SandboxPopulationRecord.objects.get().surname == "Cizinka"


def test_an_exclusion_check_the_register_cannot_answer_is_shown_to_staff(staff_client):
    player = make_player()
    make_excluded(player, outcome="unavailable")
    r = staff_client.post(f"/admin/accounts/player/{player.pk}/act/exclusion_check/", {"go": "1"})
    assert r.status_code == 200 and b"RegisterUnavailable" in r.content


def test_staff_end_the_selected_login_sessions(staff_client):
    player = make_player()
    open_session, _ = login_session_for(player)
    r = staff_client.post(
        "/admin/accounts/loginsession/", {"action": "end_forced", "_selected_action": [open_session.pk]}
    )
    assert r.status_code == 302
    open_session.refresh_from_db()
    assert open_session.end_reason == LoginSession.EndReason.FORCED and open_session.end_detail == "staff"
    assert AuditEvent.objects.get(action="accounts.session.ended").actor_label == staff_client.staff.username
