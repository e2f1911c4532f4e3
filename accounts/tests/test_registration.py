"""Registration (GP §4, §5(1)): validation, duplicates, registers, temporary account, branch."""

import re
import threading
from datetime import timedelta

import pytest
import time_machine
from django.core import mail
from django.db import connection

from accounts import errors, selectors, services
from accounts.models import (
    BarredPerson,
    DuplicateCase,
    IdentityVerification,
    Player,
    RegisterCheck,
    SandboxSms,
    User,
)
from core import clock
from core.audit import Actor
from core.errors import DomainError
from tests.kit.accounts import (
    applicant_data,
    birth_number_for,
    make_excluded,
    make_player,
    make_register_record,
    make_staff,
    registration_payload,
)
from tests.kit.refusals import refusal_code

pytestmark = pytest.mark.django_db


def nothing_stored():
    return Player.objects.count() == 0 and User.objects.count() == 0 and len(mail.outbox) == 0


def test_a_valid_registration_activates_the_temporary_account_for_30_days_and_emails_the_link(register):
    body = registration_payload(username="novak.jan")
    make_register_record(body)
    r = register(body)
    assert r.status_code == 201, r.json()
    player = Player.objects.get(user__username="novak.jan")
    assert r.json()["status"] == player.status == Player.Status.TEMPORARY
    assert player.temporary_expires_at == player.created_at + timedelta(days=30)
    assert player.temporary_activated_at is not None
    assert player.temporary_expires_at <= player.temporary_activated_at + timedelta(days=30)
    # GP §4(4)b: the register match verifies identity and age; it is not the AML identification (document +
    # likeness through the identification provider, aml), so the account stays temporary until that is done
    assert player.identity_verified_at and player.aml_identified_at is None
    assert player.personal.birth_number == body["birth_number"]
    assert not player.user.has_usable_password()  # the first password comes by SMS after the e-mail link
    assert len(mail.outbox) == 1 and "confirm-email?token=" in mail.outbox[0].body
    assert mail.outbox[0].to == [body["email"]]
    assert SandboxSms.objects.count() == 0
    assert set(RegisterCheck.objects.filter(player=player).values_list("register", "result")) == {
        ("exclusion", "not_listed"),
        ("population", "found"),
    }
    assert not IdentityVerification.objects.filter(player=player).exists()


def test_invalid_personal_data_are_refused_with_every_problem_and_nothing_is_stored(register):
    body = registration_payload(email="nope", birth_number="7001011235")
    r = register(body)
    assert r.status_code == 400
    err = r.json()["error"]
    assert err["code"] == errors.INVALID_PERSONAL_DATA.code
    assert "email" in err["details"]["fields"] and "birth_number" in err["details"]["fields"]
    assert nothing_stored()


def test_a_missing_required_field_is_the_same_personal_data_error(register):
    body = registration_payload()
    del body["surname"]
    r = register(body)
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.INVALID_PERSONAL_DATA.code
    assert r.json()["error"]["details"]["fields"]["surname"] == ["required"]
    assert nothing_stored()


def test_an_applicant_under_18_is_refused(register):
    today = clock.business_date()
    dob = today.replace(year=today.year - 18) + timedelta(days=1)
    body = registration_payload(date_of_birth=dob.isoformat(), birth_number=birth_number_for(dob, sex="M"), sex="M")
    make_register_record(body)
    r = register(body)
    assert r.status_code == 403 and r.json()["error"]["code"] == errors.UNDERAGE.code
    assert nothing_stored()


def test_the_username_must_be_well_formed_and_free(register):
    r = register(registration_payload(username="x!"))
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.USERNAME_INVALID.code
    make_player(username="Obsazeno")
    r = register(registration_payload(username="obsazeno"))
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.USERNAME_TAKEN.code
    assert Player.objects.count() == 1


def test_terms_data_processing_and_the_game_plan_must_be_accepted_in_the_current_version(register):
    body = registration_payload()
    del body["consents"]["game_plan"]
    r = register(body)
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CONSENT_REQUIRED.code
    body = registration_payload()
    body["consents"]["terms"] = "2019-01"
    r = register(body)
    assert r.status_code == 400 and r.json()["error"]["code"] == errors.CONSENT_VERSION_OUTDATED.code
    assert nothing_stored()


def _dup_of(existing: dict, field: str) -> dict:
    other = applicant_data()
    if field == "birth_number":
        other.update(
            birth_number=existing["birth_number"], date_of_birth=existing["date_of_birth"], sex=existing["sex"]
        )
    elif field == "email":
        other["email"] = existing["email"].upper()
    elif field == "phone":
        other["phone"] = existing["phone"].replace("+420", "")
    elif field == "document_number":
        other["document_number"] = existing["document_number"]
    elif field == "name_and_date_of_birth":
        from datetime import date

        dob = date.fromisoformat(existing["date_of_birth"])
        other.update(
            given_names=existing["given_names"],
            surname=existing["surname"].upper(),
            date_of_birth=existing["date_of_birth"],
            sex=existing["sex"],
            birth_number=birth_number_for(dob, sex=existing["sex"], serial=987),
        )
    return other


@pytest.mark.parametrize("field", ["birth_number", "email", "phone", "document_number", "name_and_date_of_birth"])
def test_one_matching_identifying_datum_refuses_the_registration_and_opens_a_case_for_support(register, field):
    existing = make_player(status="temporary")
    data = {
        f: getattr(existing.personal, f)
        for f in ("birth_number", "email", "phone", "document_number", "given_names", "surname", "sex")
    }
    data["date_of_birth"] = existing.personal.date_of_birth.isoformat()
    dup = _dup_of(data, field)
    body = {**registration_payload(), **dup}
    make_register_record(body)
    r = register(body)
    assert r.status_code == 409, r.json()
    err = r.json()["error"]
    assert err["code"] == errors.DUPLICATE_PERSONAL_DATA.code and err["details"]["case_id"]
    assert Player.objects.count() == 1 and len(mail.outbox) == 0
    case = DuplicateCase.objects.get(pk=err["details"]["case_id"])
    assert case.kind == "registration" and case.state == "open" and field in case.matched_fields
    assert list(case.players.all()) == [existing]
    assert (case.application or {}).get("username") == body["username"]


def test_a_closed_account_of_the_same_person_does_not_block_a_new_registration(register):
    old = make_player(status="closed")
    body = registration_payload(
        birth_number=old.personal.birth_number,
        date_of_birth=old.personal.date_of_birth.isoformat(),
        sex=old.personal.sex,
    )
    make_register_record(body)
    r = register(body)
    assert r.status_code == 201, r.json()
    new = Player.objects.get(user__username=body["username"])
    assert selectors.person_key(new) == selectors.person_key(old)


def test_a_person_listed_in_the_exclusion_register_cannot_register(register):
    body = registration_payload()
    make_register_record(body)
    make_excluded(body)
    r = register(body)
    assert r.status_code == 403 and r.json()["error"]["code"] == errors.EXCLUDED_PERSON.code
    assert nothing_stored()


def test_a_person_the_population_register_does_not_know_cannot_register(register):
    r = register(registration_payload())
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.REGISTER_NOT_FOUND.code
    assert nothing_stored()


def test_data_not_matching_the_population_register_are_refused_naming_the_fields(register):
    body = registration_payload()
    make_register_record(body, given_names="Josef")
    r = register(body)
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.REGISTER_MISMATCH.code
    assert r.json()["error"]["details"]["fields"] == ["given_names"]
    assert nothing_stored()


def test_a_person_not_resident_in_the_czech_republic_per_the_register_is_refused(register):
    body = registration_payload()
    make_register_record(body, resident_in_cz=False)
    r = register(body)
    assert r.status_code == 422 and r.json()["error"]["details"]["fields"] == ["residence"]


def test_a_foreigner_without_a_birth_number_registers_by_name_and_date_of_birth(register):
    body = registration_payload(foreigner=True)
    make_register_record(body)
    r = register(body)
    assert r.status_code == 201, r.json()
    assert Player.objects.get().personal.birth_number == ""


def test_when_the_population_register_is_down_the_applicant_waits_and_is_told_so(register):
    body = registration_payload()
    make_register_record(body, simulate_unavailable=True)
    with time_machine.travel(clock.now(), tick=False):
        r = register(body)
    assert r.status_code == 202 and r.json()["checks_pending"] is True
    player = Player.objects.get()
    assert player.status == Player.Status.APPLICANT and player.temporary_expires_at is None
    assert player.checks_retry_at == player.created_at + timedelta(minutes=15)
    assert len(mail.outbox) == 1 and "later" in mail.outbox[0].body
    assert RegisterCheck.objects.filter(player=player, result="unavailable").count() == 1
    assert refusal_code(selectors.betting_refusal(player)) == errors.NOT_REGISTERED.code


def test_when_the_exclusion_register_is_down_the_applicant_waits_too(register):
    body = registration_payload()
    make_register_record(body)
    make_excluded(body, outcome="unavailable")
    r = register(body)
    assert r.status_code == 202
    assert RegisterCheck.objects.get().register == "exclusion"


def _pending_applicant(register):
    body = registration_payload()
    record = make_register_record(body, simulate_unavailable=True)
    assert register(body).status_code == 202
    mail.outbox.clear()
    return Player.objects.get(), record


def test_the_retry_job_activates_the_temporary_account_once_the_register_answers(register, commit):
    player, record = _pending_applicant(register)
    with commit():
        assert services.registration_checks_retry_due() == 0  # not due yet
    record.simulate_unavailable = False
    record.save()
    with time_machine.travel(clock.now() + timedelta(minutes=15), tick=False):
        with commit():
            assert services.registration_checks_retry_due() == 1
        player.refresh_from_db()
        assert player.status == Player.Status.TEMPORARY and player.checks_retry_at is None
        assert player.temporary_expires_at == player.created_at + timedelta(days=30)  # GP §5(9)
    assert len(mail.outbox) == 1 and "confirm-email" in mail.outbox[0].body


def test_the_retry_job_backs_off_while_the_register_stays_down(register, commit):
    player, _ = _pending_applicant(register)
    at = clock.now() + timedelta(minutes=15)
    with time_machine.travel(at, tick=False):
        with commit():
            assert services.registration_checks_retry_due() == 1
    player.refresh_from_db()
    assert player.status == Player.Status.APPLICANT and player.checks_attempts == 2
    assert player.checks_retry_at == at + timedelta(minutes=30)
    assert len(mail.outbox) == 0  # told once


def test_the_retry_job_rejects_an_applicant_the_register_does_not_know(register, commit):
    player, record = _pending_applicant(register)
    record.delete()
    with time_machine.travel(clock.now() + timedelta(minutes=15), tick=False):
        with commit():
            services.registration_checks_retry_due()
    player.refresh_from_db()
    assert player.status == Player.Status.REJECTED and player.status_reason == errors.REGISTER_NOT_FOUND.code
    assert len(mail.outbox) == 1 and "support" in mail.outbox[0].body


def test_the_retry_job_gives_up_30_days_after_the_start_of_registration(register, commit):
    player, _ = _pending_applicant(register)
    Player.objects.filter(pk=player.pk).update(checks_retry_at=player.created_at + timedelta(days=29, hours=23))
    with time_machine.travel(player.created_at + timedelta(days=29, hours=23, minutes=59), tick=False):
        services.registration_checks_retry_due()
        player.refresh_from_db()
        assert player.status == Player.Status.APPLICANT
    with time_machine.travel(player.created_at + timedelta(days=30), tick=False):
        with commit():
            services.registration_checks_retry_due()
    player.refresh_from_db()
    assert player.status == Player.Status.REJECTED and player.status_reason == "checks_not_completed_in_30_days"


def test_an_insider_is_flagged_at_registration_and_may_not_bet(register):
    body = registration_payload()
    make_register_record(body)
    from datetime import date

    services.barred_person_save(
        person=BarredPerson(
            given_names=body["given_names"],
            surname=body["surname"],
            date_of_birth=date.fromisoformat(body["date_of_birth"]),
            role="employee",
        ),
        actor=Actor.system("test"),
    )
    assert register(body).status_code == 201
    player = Player.objects.get()
    assert player.barred_insider
    player.user.must_change_password = False
    assert refusal_code(selectors.betting_refusal(player)) == errors.BARRED_INSIDER.code


def test_staff_register_at_a_branch_with_a_generated_username_and_branch_identification():
    staff = make_staff()
    data = applicant_data()
    make_register_record(data)
    player = services.registration_submit(
        data=data,
        consents=registration_payload()["consents"],
        channel="branch",
        staff_user=staff,
        branch_identification={"likeness_confirmed": True},
    )
    assert re.fullmatch(r"h\d{8}", player.user.username)
    assert player.status == Player.Status.TEMPORARY and player.channel == "branch"
    iv = IdentityVerification.objects.get(player=player)
    assert iv.method == "branch" and iv.likeness_confirmed and iv.verified_by == staff


def test_a_branch_registration_needs_the_likeness_confirmed():
    staff = make_staff()
    data = applicant_data()
    make_register_record(data)
    with pytest.raises(DomainError) as exc:
        services.registration_submit(
            data=data,
            consents=registration_payload()["consents"],
            channel="branch",
            staff_user=staff,
            branch_identification={"likeness_confirmed": False},
        )
    assert exc.value.code == errors.BRANCH_LIKENESS_REQUIRED.code
    assert Player.objects.count() == 0


def test_the_documents_endpoint_lists_the_current_versions(api):
    r = api.get("/api/v1/accounts/registration/documents")
    assert r.status_code == 200
    assert set(r.json()) == {"terms", "data_processing", "game_plan", "marketing", "plan_version"}
    assert r.json()["plan_version"] is None  # no game plan and terms published as a version yet (GP §3(5))


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_registrations_of_one_birth_number_create_one_account():
    first = registration_payload()
    second = {
        **registration_payload(),
        "birth_number": first["birth_number"],
        "sex": first["sex"],
        "date_of_birth": first["date_of_birth"],
    }
    make_register_record(first)
    results = []
    barrier = threading.Barrier(2)

    def run(payload):
        try:
            barrier.wait()
            services.registration_submit(
                data={k: v for k, v in payload.items() if k not in ("username", "consents")},
                consents=payload["consents"],
                username=payload["username"],
            )
            results.append("ok")
        except DomainError as exc:
            results.append(exc.code)
        finally:
            connection.close()

    second["given_names"], second["surname"] = first["given_names"], first["surname"]
    threads = [threading.Thread(target=run, args=(p,)) for p in (first, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == sorted(["ok", errors.DUPLICATE_PERSONAL_DATA.code])
    assert Player.objects.count() == 1
