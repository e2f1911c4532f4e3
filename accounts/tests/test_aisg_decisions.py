"""The AISG decision table (docs/aml.md "AISG decision table"), one test per row, through registration and login
against the local AISG server: not adult -> refused; in RVO -> refused and excluded; not found / dead / duplicate in
ROB -> no registration, manual review; NEOVERENO / no answer / timeout / fault / bad signature -> fail closed, the
retry schedule and a staff alert; everything in order -> registered, the HID kept and used at every login."""

import datetime as dt
from datetime import timedelta

import pytest
import time_machine

from accounts import errors, services
from accounts.aisg import types as t
from accounts.aisg.v1 import q
from accounts.models import LoginSession, Player, RegisterCheck, RegisterReview
from core import clock
from core.errors import DomainError
from tests.kit.accounts import make_player, registration_payload

pytestmark = pytest.mark.django_db
R = RegisterCheck.Result


def known(aisg, body, **answer):
    return aisg.add(body["given_names"], body["surname"], dt.date.fromisoformat(body["date_of_birth"]), **answer)


def code(r):
    return r.json()["error"]["code"]


# Registration -------------------------------------------------------------------------------------------------
def test_row_ok_registers_with_reason_registrace_and_keeps_the_hid(aisg, register):
    body = registration_payload()
    person = known(aisg, body)
    r = register(body)
    assert r.status_code == 201, r.json()
    player = Player.objects.get(user__username=body["username"])
    assert player.status == Player.Status.TEMPORARY and str(player.personal.aisg_hid) == person.hid
    action, request = aisg.requests[-1]
    assert action == "OveritOsobu" and request.findtext(q("Duvod")) == "Registrace"
    osoba = request.find(q("Osoba"))
    assert osoba.findtext(q("Jmeno")) == body["given_names"] and osoba.findtext(q("StatniObcanstvi")) == "CZ"
    assert osoba.findtext(f"{q('TrvalyPobyt')}/{q('TrvalyPobytCR')}/{q('PSC')}") == "11000"
    assert sorted(player.register_checks.values_list("register", "result")) == [
        ("exclusion", R.NOT_LISTED),
        ("population", R.FOUND),
    ]
    assert len(aisg.requests) == 1  # one answer for both registers


def test_row_not_adult_is_refused_and_a_manual_review(aisg, register):
    body = registration_payload()
    known(aisg, body, adult=t.ADULT_NO)
    r = register(body)
    assert r.status_code == 403 and code(r) == errors.UNDERAGE.code
    assert not Player.objects.exists()
    # the applicant declared an adult birth date the register contradicts: staff review it (the table's row 2)
    review = RegisterReview.objects.get()
    assert (review.kind, review.context, review.reason) == ("manual_review", "registration", "Plnoleta=NE")
    assert review.details["application"]["surname"] == body["surname"]


def test_row_listed_in_rvo_is_refused(aisg, register):
    body = registration_payload()
    known(aisg, body, rvo=t.RVO_LISTED)
    r = register(body)
    assert r.status_code == 403 and code(r) == errors.EXCLUDED_PERSON.code
    assert not Player.objects.exists()


@pytest.mark.parametrize("rob", [t.ROB_NOT_FOUND, t.ROB_DEAD, t.ROB_DUPLICATE])
def test_row_not_identified_in_rob_is_no_registration_and_a_manual_review(aisg, register, rob):
    body = registration_payload()
    known(aisg, body, rob=rob, rvo=t.RVO_UNVERIFIED)
    r = register(body)
    assert r.status_code == 422 and code(r) == errors.REGISTER_NOT_FOUND.code
    assert r.json()["error"]["details"] == {"population_register": rob, "manual_review": True}
    assert not Player.objects.exists()
    review = RegisterReview.objects.get()
    assert (review.kind, review.context, review.reason) == ("manual_review", "registration", f"NalezenaROB={rob}")
    assert review.details["application"]["surname"] == body["surname"]


@pytest.mark.parametrize(
    "failure", ["NEOVERENO", "NEODPOVEZENO", "NEPROVEDENA", "timeout", "fault", "signature", "down"]
)
def test_row_no_usable_answer_fails_closed_with_a_retry_schedule_and_a_staff_alert(aisg, register, settings, failure):
    body = registration_payload()
    if failure == "NEOVERENO":
        known(aisg, body, rvo=t.RVO_UNVERIFIED)
    elif failure in ("NEODPOVEZENO", "NEPROVEDENA"):
        known(aisg, body, rob=failure)
    else:
        known(aisg, body)
        if failure == "timeout":
            settings.ACCOUNTS_AISG_TIMEOUT_SECONDS, aisg.delay = 0.3, 0.8
        elif failure == "fault":
            aisg.fault = (9100, "ROB nedostupný")
        elif failure == "signature":
            aisg.sign_with = "other"
        else:
            settings.ACCOUNTS_AISG_URL = "http://127.0.0.1:9/rovo/v1"
    now = clock.now()
    r = register(body)
    assert r.status_code == 202, r.json()  # accepted, the checks pending
    player = Player.objects.get(user__username=body["username"])
    # no registration: the applicant waits, no temporary account, no login, no play
    assert player.status == Player.Status.APPLICANT and player.identity_verified_at is None
    assert player.checks_retry_at is not None
    retry = now + timedelta(minutes=settings.ACCOUNTS_CHECK_RETRY_FIRST_MINUTES)
    assert abs(player.checks_retry_at - retry) < timedelta(seconds=10)  # the retry schedule's first step
    assert RegisterReview.objects.filter(kind="outage", context="registration").count() == 1
    assert set(player.register_checks.values_list("result", flat=True)) & {R.UNAVAILABLE}
    # the retry: the interface answers again, the applicant becomes a temporary account
    aisg.fault, aisg.delay, aisg.sign_with = None, 0, "ministry"
    settings.ACCOUNTS_AISG_TIMEOUT_SECONDS = 2.0
    settings.ACCOUNTS_AISG_URL = aisg.url
    known(aisg, body)
    with time_machine.travel(player.checks_retry_at + timedelta(seconds=1)):
        assert services.registration_checks_retry_due() == 1
    player.refresh_from_db()
    assert player.status == Player.Status.TEMPORARY and player.personal.aisg_hid is not None


# Login ---------------------------------------------------------------------------------------------------------
def aisg_player(aisg, **answer):
    player = make_player()
    pd = player.personal
    person = aisg.add(pd.given_names, pd.surname, pd.date_of_birth, **answer)
    pd.aisg_hid = person.hid
    pd.save(update_fields=["aisg_hid"])
    return player, person


def test_login_asks_with_prihlaseni_and_the_stored_hid(aisg):
    player, person = aisg_player(aisg)
    session, _key = services.session_start(player=player)
    action, request = aisg.requests[-1]
    assert (action, request.findtext(q("Duvod")), request.findtext(q("HID"))) == (
        "OveritOsobu",
        "Prihlaseni",
        person.hid,
    )
    assert request.find(q("Osoba")) is None and session.pk


def test_login_of_a_player_without_hid_sends_the_personal_data_and_keeps_the_hid(aisg):
    player = make_player()
    pd = player.personal
    person = aisg.add(pd.given_names, pd.surname, pd.date_of_birth)
    services.session_start(player=player)
    assert aisg.requests[-1][1].find(q("Osoba")) is not None
    pd.refresh_from_db()
    assert str(pd.aisg_hid) == person.hid


def test_login_row_listed_in_rvo_refuses_and_excludes_the_player(aisg):
    player, _ = aisg_player(aisg, rvo=t.RVO_LISTED)
    with pytest.raises(DomainError) as exc:
        services.session_start(player=player)
    assert exc.value.code == errors.EXCLUDED_PERSON.code
    player.refresh_from_db()
    assert player.exclusion_listed and not LoginSession.objects.filter(player=player, ended_at__isnull=True).exists()


@pytest.mark.parametrize("rob", [t.ROB_DEAD, t.ROB_DUPLICATE])
def test_login_row_not_identified_refuses_and_opens_a_manual_review(aisg, rob):
    player, _ = aisg_player(aisg, rob=rob)
    with pytest.raises(DomainError) as exc:
        services.session_start(player=player)
    assert exc.value.code == errors.REGISTER_REVIEW_PENDING.code
    assert RegisterReview.objects.filter(player=player, kind="manual_review", context="login").exists()


def test_login_row_not_adult_refuses_and_opens_the_review_it_waits_on(aisg):
    player, _ = aisg_player(aisg, adult=t.ADULT_NO)
    with pytest.raises(DomainError) as exc:
        services.session_start(player=player)
    assert exc.value.code == errors.REGISTER_REVIEW_PENDING.code
    review = RegisterReview.objects.get(player=player)
    assert (review.kind, review.context, review.reason) == ("manual_review", "login", "Plnoleta=NE")


@pytest.mark.parametrize("failure", ["NEOVERENO", "fault", "signature"])
def test_login_row_no_usable_answer_refuses_and_alerts_staff_once_per_outage(aisg, failure):
    player, _ = aisg_player(aisg, rvo=t.RVO_UNVERIFIED if failure == "NEOVERENO" else t.RVO_NOT_LISTED)
    if failure == "fault":
        aisg.fault = (9100, "RVO nedostupný")
    elif failure == "signature":
        aisg.sign_with = "tamper"
    for _ in range(2):
        with pytest.raises(DomainError) as exc:
            services.session_start(player=player)
        assert exc.value.code == errors.REGISTER_UNAVAILABLE.code
    alert = RegisterReview.objects.get(player=player, kind="outage", context="login")
    assert alert.occurrences == 2
    assert not LoginSession.objects.filter(player=player).exists()
