"""Personal data (GP §12): export, corrections reviewed by staff, consents, duplicates found later (GP §5(3))."""

import json

import pytest

from accounts import errors, rules, selectors, services
from accounts.models import BarredPerson, Consent, CorrectionRequest, DuplicateCase, Player
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.accounts import make_player, make_register_record, make_staff, registration_payload
from tests.kit.clients import client_for
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db
SYSTEM = Actor.system("test")


def test_a_player_exports_all_their_data_and_nothing_of_anyone_else():
    me, other = make_player(), make_player()
    r = client_for(me).get("/api/v1/accounts/me/export")
    assert r.status_code == 200
    data = r.json()
    assert data["personal_data"]["birth_number"] == me.personal.birth_number
    assert {c["kind"] for c in data["consents"]} == {"terms", "data_processing", "game_plan"}
    assert other.personal.birth_number not in r.content.decode()
    assert other.personal.email not in r.content.decode()


def test_a_correction_request_is_applied_when_staff_approve_it_and_the_audit_shows_who_changed_what():
    player = make_player()
    old_email = player.personal.email
    r = client_for(player).post(
        "/api/v1/accounts/me/corrections",
        {"changes": {"email": "nova.adresa@example.cz"}, "note": "new address"},
        format="json",
    )
    assert r.status_code == 201 and r.json()["state"] == "pending"
    player.refresh_from_db()
    assert player.personal.email == old_email  # nothing changes before the review
    staff = make_staff()
    req = CorrectionRequest.objects.get()
    services.correction_approve(request=req, actor=Actor.staff(staff), note="ok")
    player.personal.refresh_from_db()
    player.user.refresh_from_db()
    assert player.personal.email == player.user.email == "nova.adresa@example.cz"
    event = AuditEvent.objects.get(action="accounts.personal_data.changed")
    assert event.actor_type == "staff" and event.actor_label == staff.username
    assert event.details["fields"] == ["email"]  # the fields, never the values: the trail outlives anonymisation
    trail = json.dumps([event.old_values, event.new_values, event.details], default=str)
    assert old_email not in trail and "nova.adresa@example.cz" not in trail
    assert any(
        h["action"] == "accounts.personal_data.changed" for h in selectors.personal_data_export(player)["history"]
    )
    with pytest.raises(DomainError) as exc:
        services.correction_approve(request=req, actor=Actor.staff(staff))
    assert exc.value.code == errors.CORRECTION_NOT_PENDING.code


def test_a_rejected_correction_changes_nothing():
    player = make_player()
    req = services.correction_request_create(
        player=player, changes={"residence_city": "Brno"}, note="", actor=Actor.player(player)
    )
    services.correction_reject(request=req, actor=Actor.staff(make_staff()), note="no proof")
    player.personal.refresh_from_db()
    assert player.personal.residence_city == "Praha"
    assert CorrectionRequest.objects.get().state == "rejected"


def test_an_invalid_correction_cannot_be_approved_and_stays_pending():
    player = make_player()
    req = services.correction_request_create(
        player=player, changes={"phone": "12"}, note="", actor=Actor.player(player)
    )
    with pytest.raises(DomainError) as exc:
        services.correction_approve(request=req, actor=Actor.staff(make_staff()))
    assert exc.value.code == errors.INVALID_PERSONAL_DATA.code
    assert CorrectionRequest.objects.get().state == "pending"


def test_a_correction_of_an_unknown_field_is_refused():
    player = make_player()
    r = client_for(player).post("/api/v1/accounts/me/corrections", {"changes": {"status": "active"}}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CORRECTION_FIELD_INVALID.code
    assert CorrectionRequest.objects.count() == 0


def test_a_player_sees_only_their_own_correction_requests():
    me, other = make_player(), make_player()
    services.correction_request_create(
        player=other, changes={"residence_city": "Brno"}, note="", actor=Actor.player(other)
    )
    r = client_for(me).get("/api/v1/accounts/me/corrections")
    assert r.status_code == 200 and r.json()["results"] == []


def test_a_correction_that_matches_another_account_freezes_both_until_staff_resolve_it():
    a, b = make_player(), make_player()
    req = services.correction_request_create(
        player=b, changes={"phone": a.personal.phone}, note="", actor=Actor.player(b)
    )
    services.correction_approve(request=req, actor=Actor.staff(make_staff()))
    case = DuplicateCase.objects.get()
    assert case.kind == "accounts" and case.matched_fields == ["phone"]
    assert {p.pk for p in case.players.all()} == {a.pk, b.pk}
    for p in (a, b):
        assert refusal_code(selectors.money_movement_refusal(p)) == errors.DUPLICATE_ACCOUNTS_FROZEN.code
    services.duplicate_case_resolve(
        case=case, same_person=False, actor=Actor.staff(make_staff()), note="a family sharing a phone"
    )
    for p in (a, b):
        assert selectors.money_movement_refusal(p) is None
    assert services.duplicates_scan() == 0  # the resolved case is not reopened


def test_duplicates_of_one_person_confirmed_by_staff_keep_one_account_and_close_the_others():
    a, b = make_player(), make_player()
    case = services.duplicate_case_open(players=[a.pk, b.pk], matched_fields=["name_dob_key"], actor=SYSTEM)
    assert case is not None
    with pytest.raises(DomainError):
        services.duplicate_case_resolve(case=case, same_person=True, actor=SYSTEM, note="x")  # which one stays?
    services.duplicate_case_resolve(case=case, same_person=True, keep_player=a, actor=SYSTEM, note="same person")
    a.refresh_from_db()
    b.refresh_from_db()
    assert a.status == "active" and b.status == "closing" and b.status_reason == "duplicate_account"


def test_the_duplicate_scan_finds_accounts_of_one_person_once():
    a = make_player()
    make_player(personal_data={"document_number": a.personal.document_number})
    assert services.duplicates_scan() == 1
    assert services.duplicates_scan() == 0
    assert DuplicateCase.objects.get().matched_fields == ["document_key"]


def test_staff_register_a_refused_application_when_the_persons_are_different(register):
    existing = make_player()
    body = registration_payload(phone=existing.personal.phone)
    make_register_record(body)
    assert register(body).status_code == 409
    case = DuplicateCase.objects.get(kind="registration")
    services.duplicate_case_resolve(case=case, same_person=False, actor=Actor.staff(make_staff()), note="twins")
    new = Player.objects.get(user__username=body["username"])
    assert new.status == "temporary"
    case.refresh_from_db()
    assert case.state == "distinct" and case.registered_player == new


def test_staff_confirming_a_refused_application_as_the_same_person_registers_nobody(register):
    existing = make_player()
    body = registration_payload(email=existing.personal.email)
    make_register_record(body)
    register(body)
    case = DuplicateCase.objects.get()
    services.duplicate_case_resolve(case=case, same_person=True, actor=SYSTEM, note="already has an account")
    assert Player.objects.count() == 1
    with pytest.raises(DomainError) as exc:
        services.duplicate_case_resolve(case=case, same_person=False, actor=SYSTEM, note="again")
    assert exc.value.code == errors.DUPLICATE_CASE_NOT_OPEN.code


def test_marketing_consent_can_be_given_and_withdrawn_and_the_account_stays_open():
    player = make_player()
    c = client_for(player)
    v = rules.document_versions()["marketing"]
    r = c.post("/api/v1/accounts/me/consents", {"kind": "marketing", "version": v}, format="json")
    assert r.status_code == 201
    assert c.get("/api/v1/accounts/me").json()["marketing_consent"] is True
    r = c.post("/api/v1/accounts/me/consents/marketing/withdraw", {}, format="json")
    assert r.status_code == 200 and r.json()["withdrawn_at"]
    player.refresh_from_db()
    assert player.status == "active"
    assert c.get("/api/v1/accounts/me").json()["marketing_consent"] is False


def test_a_consent_in_an_old_version_or_of_an_unknown_kind_is_refused():
    c = client_for(make_player())
    r = c.post("/api/v1/accounts/me/consents", {"kind": "marketing", "version": "1999"}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CONSENT_VERSION_OUTDATED.code
    r = c.post("/api/v1/accounts/me/consents/nonsense/withdraw", {}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CONSENT_KIND_INVALID.code
    r = c.post("/api/v1/accounts/me/consents/marketing/withdraw", {}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.CONSENT_NOT_GIVEN.code


def test_withdrawing_the_mandatory_consent_cancels_the_registration():
    player = make_player()
    c = client_for(player)
    r = c.post("/api/v1/accounts/me/consents/data_processing/withdraw", {}, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CLOSURE_METHOD_INVALID.code
    assert Consent.objects.get(player=player, kind="data_processing").withdrawn_at is None
    r = c.post("/api/v1/accounts/me/consents/data_processing/withdraw", {"settlement": "transfer"}, format="json")
    assert r.status_code == 200
    player.refresh_from_db()
    assert player.status == "closing" and player.status_reason == "consent_withdrawn:data_processing"


def test_deactivating_a_barred_person_lifts_the_flag_of_their_account():
    player = make_player()
    person = BarredPerson(
        given_names=player.personal.given_names,
        surname=player.personal.surname,
        date_of_birth=player.personal.date_of_birth,
        role="officer",
    )
    services.barred_person_save(person=person, actor=SYSTEM)
    player.refresh_from_db()
    assert player.barred_insider
    person.active = False
    services.barred_person_save(person=person, actor=SYSTEM)
    player.refresh_from_db()
    assert not player.barred_insider


def test_the_person_key_is_stable_and_the_same_for_name_birth_date_of_a_foreigner():
    a = make_player(personal_data={"foreigner": True, "n": 501})
    b = make_player(
        status="closed",
        personal_data={
            "foreigner": True,
            "n": 501,
            "email": "jiny@example.cz",
            "phone": "+420731999999",
            "document_number": "X1234567",
        },
    )
    assert selectors.person_key(a) == selectors.person_key(b)
    assert selectors.person_key(a) != selectors.person_key(make_player())
    assert len(selectors.person_key(make_player(personal=False))) == 64
