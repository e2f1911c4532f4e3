"""Personal-data requests (GP §12(7)), the retention periods and the anonymisation at their end (GP §12(5)), and the
notice of the right to turn to the data-protection authority (GP §12(7)e)."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest
import time_machine
from django.core import mail
from django.test import Client

from accounts import errors, retention, rules, selectors, services
from accounts.models import (
    Consent,
    CorrectionRequest,
    DataRequest,
    Delivery,
    IdentityVerification,
    LoginSession,
    Message,
    PersonalData,
    Player,
    RegisterCheck,
    TermsAcceptance,
    TermsVersion,
    User,
)
from accounts.privacy import AUTHORITY_NOTICE_CS, AUTHORITY_NOTICE_EN
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.accounts import login_session_for, make_player, make_staff
from tests.kit.clients import client_for
from tests.kit.money import prague

pytestmark = pytest.mark.django_db
URL = "/api/v1/accounts/me/data-requests"
PRAGUE = clock.PRAGUE


def staff_actor() -> Actor:
    return Actor.staff(make_staff())


def with_marketing(player: Player) -> Player:
    services.consent_give(
        player=player, kind="marketing", version=rules.document_versions()["marketing"], actor=Actor.player(player)
    )
    return player


def code_of(call) -> str:
    with pytest.raises(DomainError) as exc:
        call()
    return exc.value.code


def closed_player(closed_at: datetime, **extra) -> Player:
    return make_player(status="closed", closed_at=closed_at, status_changed_at=closed_at, **extra)


# Requests through the API ---------------------------------------------------------------------------------------
def test_a_player_files_an_explanation_request_due_in_one_month_and_is_told_of_the_authority():
    player = make_player()
    with time_machine.travel(prague(2027, 1, 31, 10, 0), tick=False):
        r = client_for(player).post(
            URL, {"kind": "explanation", "text": "Why do you keep my phone number?"}, format="json"
        )
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["kind"] == "explanation" and body["state"] == "pending" and body["in_force"] is False
    # GDPR art. 12(3): one month; 31 January -> the last day of February, same time
    assert datetime.fromisoformat(body["due_at"]) == prague(2027, 2, 28, 10, 0)
    receipt = Message.objects.get(player=player, kind="data_request")
    assert receipt.reference == f"accounts.data_request:{body['id']}:received"
    assert "28. 2. 2027" in receipt.body_cs and "2027-02-28" in receipt.body_en
    assert AUTHORITY_NOTICE_CS in receipt.body_cs and AUTHORITY_NOTICE_EN in receipt.body_en
    assert "www.uoou.gov.cz" in receipt.body_cs
    event = AuditEvent.objects.get(action="accounts.data_request.received")
    assert event.actor_type == "player" and event.details["kind"] == "explanation"
    listed = client_for(player).get(URL).json()
    assert [x["id"] for x in listed["results"]] == [body["id"]]
    assert client_for(player).get(f"{URL}/{body['id']}").json()["text"] == "Why do you keep my phone number?"


def test_the_answer_term_follows_the_calendar_month_and_the_setting(settings):
    assert retention.request_due_at(prague(2028, 1, 31, 23, 30)) == prague(2028, 2, 29, 23, 30)  # leap year
    assert retention.request_due_at(prague(2027, 3, 15, 9, 0)) == prague(2027, 4, 15, 9, 0)  # across summer time
    assert retention.request_due_at(prague(2027, 12, 10, 9, 0)) == prague(2028, 1, 10, 9, 0)
    settings.ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS = 3
    assert retention.request_due_at(prague(2027, 11, 30, 9, 0)) == prague(2028, 2, 29, 9, 0)


def test_another_players_request_is_not_found_and_unchanged():
    owner, other = make_player(), make_player()
    req = services.data_request_create(player=owner, kind="blocking", text="", actor=Actor.player(owner))
    c = client_for(other)
    assert c.get(f"{URL}/{req.pk}").status_code == 404
    assert c.post(f"{URL}/{req.pk}/withdraw", {}, format="json").status_code == 404
    assert c.get(f"{URL}/{2**63}").status_code == 404
    assert c.get(URL).json()["results"] == []
    req.refresh_from_db()
    assert req.state == "pending"


@pytest.mark.parametrize(
    "payload, field",
    [
        ({"kind": "access", "text": "x"}, "kind"),
        ({"text": "x"}, "kind"),
        ({"kind": "explanation", "text": "   "}, "text"),
        ({"kind": "explanation"}, "text"),
        ({"kind": "deletion", "text": "x" * 2001}, "text"),
        ({"kind": ["blocking"], "text": "x"}, "kind"),
    ],
)
def test_an_invalid_request_is_refused_with_the_field(payload, field):
    r = client_for(make_player()).post(URL, payload, format="json")
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["code"] == errors.DATA_REQUEST_INVALID.code and field in error["details"]["fields"]
    assert DataRequest.objects.count() == 0


def test_the_longest_text_is_accepted_and_a_second_open_request_of_a_kind_is_refused():
    player = make_player()
    c = client_for(player)
    assert c.post(URL, {"kind": "deletion", "text": "x" * 2000}, format="json").status_code == 201
    r = c.post(URL, {"kind": "deletion", "text": ""}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.DATA_REQUEST_ALREADY_OPEN.code
    assert c.post(URL, {"kind": "blocking"}, format="json").status_code == 201  # another kind is fine


def test_an_anonymous_caller_and_staff_cannot_file_requests(api):
    assert api.post(URL, {"kind": "blocking"}, format="json").status_code == 401
    staff = make_staff()
    c = Client()
    c.force_login(staff)
    assert c.get(URL).status_code in (401, 403)


# Explanation ------------------------------------------------------------------------------------------------------
def test_staff_answer_an_explanation_in_writing_and_the_player_reads_it_with_the_authority_notice():
    player = make_player()
    req = services.data_request_create(player=player, kind="explanation", text="why?", actor=Actor.player(player))
    actor = staff_actor()
    assert (
        code_of(
            lambda: services.data_request_decide(
                request=req, outcome="answered", answer_cs="Kvůli zákonu.", answer_en="", actor=actor
            )
        )
        == errors.DATA_REQUEST_ANSWER_REQUIRED.code
    )
    assert (
        code_of(
            lambda: services.data_request_decide(
                request=req, outcome="granted", answer_cs="x", answer_en="x", actor=actor
            )
        )
        == errors.DATA_REQUEST_OUTCOME_INVALID.code
    )
    services.data_request_decide(
        request=req,
        outcome="answered",
        answer_cs="Telefon vyžaduje ZHH.",
        answer_en="The Gambling Act requires the phone number.",
        actor=actor,
    )
    req.refresh_from_db()
    assert req.state == "answered" and req.decided_by_id == int(actor.id) and req.decided_at is not None
    answer = Message.objects.get(reference=f"accounts.data_request:{req.pk}:decided")
    assert "Telefon vyžaduje ZHH." in answer.body_cs and AUTHORITY_NOTICE_CS in answer.body_cs
    assert "The Gambling Act requires the phone number." in answer.body_en and AUTHORITY_NOTICE_EN in answer.body_en
    event = AuditEvent.objects.get(action="accounts.data_request.decided")
    assert event.actor_type == "staff" and event.new_values == {"state": "answered"}
    r = client_for(player).get(f"{URL}/{req.pk}", HTTP_ACCEPT_LANGUAGE="en")
    assert r.json()["answer"] == "The Gambling Act requires the phone number."
    assert (
        code_of(
            lambda: services.data_request_decide(
                request=req, outcome="answered", answer_cs="a", answer_en="b", actor=actor
            )
        )
        == errors.DATA_REQUEST_NOT_PENDING.code
    )


def test_a_refusal_needs_its_legal_basis_and_states_it():
    player = make_player()
    req = services.data_request_create(player=player, kind="explanation", text="?", actor=Actor.player(player))
    actor = staff_actor()
    assert (
        code_of(
            lambda: services.data_request_decide(
                request=req, outcome="refused", answer_cs="Ne.", answer_en="No.", actor=actor
            )
        )
        == errors.DATA_REQUEST_ANSWER_REQUIRED.code
    )
    services.data_request_decide(
        request=req,
        outcome="refused",
        answer_cs="Žádost je zjevně nedůvodná.",
        answer_en="The request is manifestly unfounded.",
        legal_basis="GDPR art. 12(5)b",
        actor=actor,
    )
    req.refresh_from_db()
    assert req.state == "refused" and req.legal_basis == "GDPR art. 12(5)b"
    answer = Message.objects.get(reference=f"accounts.data_request:{req.pk}:decided")
    assert "Právní důvod: GDPR art. 12(5)b" in answer.body_cs and "Legal basis: GDPR art. 12(5)b" in answer.body_en


# Blocking (GDPR art. 18) ------------------------------------------------------------------------------------------
def test_a_blocking_stops_marketing_from_its_receipt_while_the_legally_required_processing_continues():
    player = with_marketing(make_player())
    assert selectors.marketing_allowed(player) is True
    r = client_for(player).post(URL, {"kind": "blocking", "text": "stop"}, format="json")
    assert r.status_code == 201 and r.json()["in_force"] is True
    assert selectors.processing_restricted(player) and not selectors.marketing_allowed(player)
    # the consent itself stays (the player did not withdraw it); the processing the law requires goes on
    assert "marketing" in selectors.live_consents(player)
    assert selectors.betting_refusal(player) is None
    receipt = Message.objects.get(reference=f"accounts.data_request:{r.json()['id']}:received")
    assert "účetnictví" in receipt.body_cs and "accounting" in receipt.body_en
    req = DataRequest.objects.get()
    services.data_request_decide(request=req, outcome="granted", actor=staff_actor())
    req.refresh_from_db()
    assert req.state == "granted" and not selectors.marketing_allowed(player)
    # a second blocking while one is in force is refused
    again = client_for(player).post(URL, {"kind": "blocking"}, format="json")
    assert again.status_code == 409 and again.json()["error"]["details"]["request_id"] == req.pk
    # the player ends it: marketing (consented) may resume
    w = client_for(player).post(f"{URL}/{req.pk}/withdraw", {}, format="json")
    assert w.status_code == 200 and w.json()["state"] == "lifted" and w.json()["in_force"] is False
    assert selectors.marketing_allowed(player) is True


def test_a_refused_blocking_ends_and_staff_may_lift_a_granted_one_telling_the_player_why():
    player = with_marketing(make_player())
    actor = staff_actor()
    first = services.data_request_create(player=player, kind="blocking", text="", actor=Actor.player(player))
    services.data_request_decide(
        request=first,
        outcome="refused",
        answer_cs="Údaje jsou přesné.",
        answer_en="The data are accurate.",
        legal_basis="GDPR art. 18(1)a",
        actor=actor,
    )
    first.refresh_from_db()
    assert first.state == "refused" and first.ended_at is not None and selectors.marketing_allowed(player)
    second = services.data_request_create(player=player, kind="blocking", text="", actor=Actor.player(player))
    assert (
        code_of(lambda: services.blocking_lift(request=second, actor=actor, answer_cs="x", answer_en="x"))
        == errors.DATA_REQUEST_NOT_PENDING.code
    )  # not granted yet
    services.data_request_decide(request=second, outcome="granted", actor=actor)
    assert (
        code_of(lambda: services.blocking_lift(request=second, actor=actor, answer_cs="", answer_en="x"))
        == errors.DATA_REQUEST_ANSWER_REQUIRED.code
    )
    services.blocking_lift(request=second, actor=actor, answer_cs="Ověření skončilo.", answer_en="Verification done.")
    second.refresh_from_db()
    assert second.state == "lifted" and selectors.marketing_allowed(player)
    notice = Message.objects.get(reference=f"accounts.data_request:{second.pk}:lifted")
    assert "Verification done." in notice.body_en and AUTHORITY_NOTICE_EN in notice.body_en
    assert AuditEvent.objects.filter(action="accounts.data_request.blocking_lifted", actor_type="staff").count() == 1


def test_a_decided_request_cannot_be_withdrawn():
    player = make_player()
    req = services.data_request_create(player=player, kind="explanation", text="?", actor=Actor.player(player))
    c = client_for(player)
    assert c.post(f"{URL}/{req.pk}/withdraw", {}, format="json").json()["state"] == "withdrawn"
    r = c.post(f"{URL}/{req.pk}/withdraw", {}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.DATA_REQUEST_NOT_PENDING.code


def test_marketing_is_never_allowed_without_consent_or_on_an_ended_account():
    assert selectors.marketing_allowed(make_player()) is False
    closed = with_marketing(make_player())
    Player.objects.filter(pk=closed.pk).update(status="closed")
    closed.refresh_from_db()
    assert selectors.marketing_allowed(closed) is False


# Deletion (GDPR art. 17) ------------------------------------------------------------------------------------------
def test_a_deletion_on_an_open_account_erases_the_optional_data_and_keeps_what_the_law_requires():
    player = with_marketing(make_player())
    birth_number = player.personal.birth_number
    req = services.data_request_create(player=player, kind="deletion", text="delete me", actor=Actor.player(player))
    services.data_request_decide(request=req, outcome="granted", actor=staff_actor())
    req.refresh_from_db()
    assert req.state == "partly_granted" and req.erase_on is None
    assert "253/2008" in req.legal_basis and "17(3)" in req.legal_basis
    assert "marketing" not in selectors.live_consents(player)  # erased now
    assert Consent.objects.get(player=player, kind="marketing").withdrawn_at is not None
    player.personal.refresh_from_db()
    assert player.personal.birth_number == birth_number and player.anonymised_at is None
    answer = Message.objects.get(reference=f"accounts.data_request:{req.pk}:decided")
    assert "dokud je konto otevřené" in answer.body_cs and "while the account is open" in answer.body_en
    assert "10 years" in answer.body_en and "253/2008" in answer.body_en and AUTHORITY_NOTICE_EN in answer.body_en
    assert client_for(player).get(f"{URL}/{req.pk}").json()["state"] == "partly_granted"


def test_a_deletion_on_a_closed_account_within_retention_names_the_day_the_data_will_be_erased():
    player = closed_player(prague(2026, 3, 15, 10, 0))
    with time_machine.travel(prague(2030, 6, 1, 12, 0), tick=False):
        req = services.data_request_create(
            player=player, kind="deletion", text="", actor=staff_actor(), channel="staff"
        )
        services.data_request_decide(request=req, outcome="granted", actor=staff_actor())
    req.refresh_from_db()
    assert req.state == "partly_granted" and req.erase_on == date(2036, 3, 16)
    answer = Message.objects.get(reference=f"accounts.data_request:{req.pk}:decided")
    assert "16. 3. 2036" in answer.body_cs and "2036-03-16" in answer.body_en
    assert PersonalData.objects.get(player=player).surname != "[anonymised]"


def test_a_deletion_on_a_closed_account_past_retention_is_answered_then_anonymised_at_once(commit):
    player = closed_player(prague(2026, 3, 15, 10, 0))
    old_email = player.personal.email
    with time_machine.travel(prague(2036, 4, 1, 9, 0), tick=False):
        req = services.data_request_create(
            player=player, kind="deletion", text="", actor=staff_actor(), channel="staff"
        )
        mail.outbox.clear()
        with commit():
            services.data_request_decide(request=req, outcome="granted", actor=staff_actor())
    req.refresh_from_db()
    player.refresh_from_db()
    assert req.state == "granted" and req.erase_on == date(2036, 4, 1)
    assert [m.to for m in mail.outbox] == [[old_email]]  # the answer went out before the address was erased
    assert player.anonymised_at == prague(2036, 4, 1, 9, 0)
    assert PersonalData.objects.get(player=player).email == ""


# Retention and the anonymisation job ------------------------------------------------------------------------------
def _rich_history(player: Player) -> None:
    """Records of every kind the anonymisation must clear."""
    login_session_for(player)
    LoginSession.objects.filter(player=player).update(ip_address="203.0.113.7", user_agent="Firefox/140")
    tv = TermsVersion.objects.create(
        version=1,
        title="v1",
        summary_cs="x",
        summary_en="x",
        sha256="0" * 64,
        published_at=clock.now(),
        effective_at=clock.now(),
    )
    TermsAcceptance.objects.create(
        player=player, version=tv, accepted_at=clock.now(), source="api", source_address="203.0.113.7"
    )
    IdentityVerification.objects.create(
        player=player,
        method="branch",
        document_type="id_card",
        document_number="123456789",
        document_issuing_state="CZ",
        document_issuing_authority="MěÚ Praha 1",
        document_valid_until=date(2030, 1, 1),
        verified_at=clock.now(),
        note="seen the card",
    )
    RegisterCheck.objects.create(
        player=player,
        register="population",
        context="registration",
        result="mismatch",
        details={"fields": {"surname": "Novák"}},
        checked_at=clock.now(),
    )
    CorrectionRequest.objects.create(
        player=player, changes={"surname": "Nováková"}, note="married", created_at=clock.now()
    )
    services.message_send(
        player=player,
        kind="notice",
        subject_cs="S",
        subject_en="S",
        body_cs=f"Vážený pane {player.personal.surname}",
        body_en="Dear Sir",
    )


def test_the_job_anonymises_a_closed_account_on_the_first_day_after_retention_and_not_a_second_earlier():
    closed_at = prague(2026, 3, 15, 10, 0)
    player = closed_player(closed_at)
    _rich_history(player)
    pd = PersonalData.objects.get(player=player)
    before = {
        "birth_number": pd.birth_number,
        "surname": pd.surname,
        "email": pd.email,
        "phone": pd.phone,
        "person_key": pd.person_key,
        "document_number": pd.document_number,
        "username": player.user.username,
    }
    # AML law §16(1): 10 years from the end of the relationship, the longest period by default; the last day is
    # 15 March 2036 (civil code §605), so the data may go from 16 March 2036 00:00 Prague
    with time_machine.travel(prague(2036, 3, 15, 23, 59, 59), tick=False):
        assert services.personal_data_anonymise_due() == 0
    assert PersonalData.objects.get(player=player).birth_number == before["birth_number"]
    with time_machine.travel(prague(2036, 3, 16, 0, 0, 0), tick=False):
        assert services.personal_data_anonymise_due() == 1
    player.refresh_from_db()
    assert player.anonymised_at == prague(2036, 3, 16)
    pd = PersonalData.objects.get(player=player)
    assert (pd.given_names, pd.surname, pd.birth_number, pd.phone, pd.email, pd.document_number) == (
        "[anonymised]",
        "[anonymised]",
        "",
        "",
        "",
        "",
    )
    assert pd.date_of_birth == date(1900, 1, 1) and pd.residence_street == pd.permanent_residence_street == ""
    assert pd.person_key != before["person_key"] and len(pd.person_key) == 64
    assert pd.email_key == pd.document_key == pd.name_dob_key == ""
    user = User.objects.get(pk=player.user_id)
    assert user.username == f"anonymised:{player.pk}" and user.email == "" and not user.is_active
    assert not user.has_usable_password()
    assert list(LoginSession.objects.filter(player=player).values_list("ip_address", "user_agent")) == [(None, "")]
    assert TermsAcceptance.objects.get(player=player).source_address is None
    iv = IdentityVerification.objects.get(player=player)
    assert (iv.document_number, iv.document_issuing_authority, iv.note) == ("", "", "")
    assert RegisterCheck.objects.get(player=player).details == {}
    assert CorrectionRequest.objects.get(player=player).changes == {"surname": "[anonymised]"}
    assert set(Message.objects.filter(player=player).values_list("body_cs", flat=True)) == {"[anonymised]"}
    assert set(Delivery.objects.filter(message__player=player).values_list("recipient", flat=True)) == {""}
    event = AuditEvent.objects.get(action="accounts.personal_data.anonymised")
    assert event.actor_type == "system" and event.details["player_id"] == player.pk
    assert event.details["rows"]["personal_data"] == 1 and event.details["rows"]["login_sessions"] == 1
    dumped = json.dumps([event.details, event.old_values, event.new_values])
    assert all(str(v) not in dumped for v in before.values())  # the event keeps none of the old values
    # a second run changes nothing
    snapshot = (PersonalData.objects.filter(player=player).values().get(), player.anonymised_at)
    events = AuditEvent.objects.count()
    with time_machine.travel(prague(2036, 3, 17, 0, 0, 0), tick=False):
        assert services.personal_data_anonymise_due() == 0
        assert services.player_anonymise(player=player, actor=Actor.system("test")) is False
    player.refresh_from_db()
    assert (PersonalData.objects.filter(player=player).values().get(), player.anonymised_at) == snapshot
    assert AuditEvent.objects.count() == events


def test_an_open_account_is_never_anonymised_however_old():
    old = prague(2000, 1, 1, 12, 0)
    open_ones = [
        make_player(status=s, created_at=old, status_changed_at=old)
        for s in ("active", "suspended", "closing", "temporary", "applicant")
    ]
    with time_machine.travel(prague(2060, 1, 1, 12, 0), tick=False):
        assert services.personal_data_anonymise_due() == 0
        assert all(services.player_anonymise(player=p, actor=Actor.system("test")) is False for p in open_ones)
    assert Player.objects.filter(anonymised_at__isnull=False).count() == 0
    assert PersonalData.objects.filter(surname="[anonymised]").count() == 0


def test_expired_and_refused_accounts_count_from_their_end():
    ended = prague(2026, 5, 1, 8, 0)
    expired = make_player(status="expired", closed_at=ended, status_changed_at=ended)
    rejected = make_player(status="rejected", status_changed_at=prague(2026, 6, 1, 8, 0))
    with time_machine.travel(prague(2036, 5, 2, 0, 0), tick=False):
        assert services.personal_data_anonymise_due() == 1
    assert Player.objects.get(pk=expired.pk).anonymised_at is not None
    assert Player.objects.get(pk=rejected.pk).anonymised_at is None
    with time_machine.travel(prague(2036, 6, 2, 0, 0), tick=False):
        assert services.personal_data_anonymise_due() == 1
    assert Player.objects.get(pk=rejected.pk).anonymised_at is not None


def test_the_longest_period_decides_the_accounting_one_counted_from_the_end_of_the_year(settings):
    settings.ACCOUNTS_RETENTION_AML_YEARS = 1
    settings.ACCOUNTS_RETENTION_GAMBLING_YEARS = 2
    settings.ACCOUNTS_RETENTION_ACCOUNTING_YEARS = 5
    closed_player(prague(2026, 3, 15, 10, 0))
    # accounting law §31(2)b: 5 years from the end of the accounting period (31 December 2026) -> last day 2031-12-31
    assert retention.retention_ends_at(prague(2026, 3, 15, 10, 0)) == prague(2032, 1, 1)
    with time_machine.travel(prague(2031, 12, 31, 23, 59, 59), tick=False):
        assert services.personal_data_anonymise_due() == 0
    with time_machine.travel(prague(2032, 1, 1), tick=False):
        assert services.personal_data_anonymise_due() == 1
    settings.ACCOUNTS_RETENTION_GAMBLING_YEARS = 7
    assert retention.retention_ends_at(prague(2026, 3, 15, 10, 0)) == prague(2033, 3, 16)


def test_a_period_ending_on_29_february_ends_on_28_february_in_a_common_year():
    assert retention.retention_last_day(prague(2028, 2, 29, 12, 0)) == date(2038, 2, 28)
    assert retention.retention_ends_at(prague(2028, 2, 29, 12, 0)) == prague(2038, 3, 1)
    # the database bound lets no due account through (a day of summer time included)
    ended = prague(2028, 2, 29, 23, 59)
    assert retention.prefilter_ended_before(retention.retention_ends_at(ended)) >= ended


def test_the_job_works_in_batches_oldest_first_and_keeps_its_limit():
    players = [closed_player(prague(2026, 1, d, 12, 0)) for d in (3, 1, 2)]
    with time_machine.travel(prague(2037, 1, 1), tick=False):
        assert services.personal_data_anonymise_due(batch=1, limit=2) == 2
        done = set(Player.objects.filter(anonymised_at__isnull=False).values_list("pk", flat=True))
        assert done == {players[1].pk, players[2].pk}  # closed on 1 and 2 January
        assert services.personal_data_anonymise_due(batch=1) == 1
    assert Player.objects.filter(anonymised_at__isnull=True).count() == 0


def test_ledger_and_audit_records_are_not_touched():
    from tests.kit.money import czk
    from tests.kit.wallet import fund
    from wallet.models import Entry, LedgerTransaction

    player = make_player()
    fund(player, czk(100))
    Player.objects.filter(pk=player.pk).update(status="closed", closed_at=prague(2026, 3, 15, 10, 0))
    ledger = (
        list(LedgerTransaction.objects.filter(player_id=player.pk).values()),
        list(Entry.objects.filter(transaction__player_id=player.pk).values()),
    )
    audit = list(AuditEvent.objects.order_by("id").values())
    assert ledger[0] and audit
    with time_machine.travel(prague(2036, 3, 16), tick=False):
        assert services.personal_data_anonymise_due() == 1
    assert (
        list(LedgerTransaction.objects.filter(player_id=player.pk).values()),
        list(Entry.objects.filter(transaction__player_id=player.pk).values()),
    ) == ledger
    assert list(AuditEvent.objects.order_by("id").values())[: len(audit)] == audit


def test_an_anonymised_account_takes_no_more_requests_and_exports_nothing_personal():
    player = closed_player(prague(2026, 3, 15, 10, 0))
    birth_number = player.personal.birth_number
    with time_machine.travel(prague(2036, 3, 16), tick=False):
        services.personal_data_anonymise_due()
        assert (
            code_of(
                lambda: services.data_request_create(
                    player=player, kind="deletion", text="", actor=staff_actor(), channel="staff"
                )
            )
            == errors.DATA_REQUEST_ANONYMISED.code
        )
    player.refresh_from_db()
    assert birth_number not in json.dumps(selectors.personal_data_export(player)["personal_data"], default=str)


# The privacy notice (GP §12(3), §12(5), §12(7)) -------------------------------------------------------------------
def test_the_privacy_notice_states_purposes_retention_from_the_settings_rights_and_the_authority(api, settings):
    settings.ACCOUNTS_RETENTION_AML_YEARS = 11
    r = api.get("/api/v1/accounts/privacy")
    assert r.status_code == 200
    body = r.json()
    assert [p["code"] for p in body["purposes"]] == ["participation", "aml", "marketing", "loyalty"]
    assert {p["code"]: p["mandatory"] for p in body["purposes"]}["marketing"] is False
    assert {x["code"]: x["years"] for x in body["retention"]} == {"gambling": 3, "aml": 11, "accounting": 5}
    assert {x["code"] for x in body["rights"]} >= {
        "access",
        "correction",
        "explanation",
        "blocking",
        "deletion",
        "complaint",
    }
    assert body["authority"]["web"] == "https://www.uoou.gov.cz"
    assert body["authority"]["name_cs"] == "Úřad pro ochranu osobních údajů"
    assert body["authority_notice_cs"] == AUTHORITY_NOTICE_CS and body["answer_within_months"] == 1


def test_the_export_lists_the_players_data_requests():
    player = make_player()
    req = services.data_request_create(player=player, kind="blocking", text="b", actor=Actor.player(player))
    exported = selectors.personal_data_export(player)["data_requests"]
    assert [(x["id"], x["kind"], x["state"]) for x in exported] == [(req.pk, "blocking", "pending")]


# The staff queue (admin) ------------------------------------------------------------------------------------------
def test_staff_see_the_queue_record_a_written_request_and_decide_it_in_the_admin(staff_client):
    staff_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"  # the English labels
    player = with_marketing(make_player())
    assert staff_client.get("/admin/accounts/datarequest/").status_code == 200
    r = staff_client.post(
        "/admin/accounts/datarequest/record/",
        {"username": player.user.username, "kind": "deletion", "text": "by letter"},
    )
    assert r.status_code == 302, r.content[:500]
    req = DataRequest.objects.get()
    assert req.channel == "staff" and req.entered_by_id == staff_client.staff.pk
    assert staff_client.get(f"/admin/accounts/datarequest/{req.pk}/change/").status_code == 200
    unknown = staff_client.post("/admin/accounts/datarequest/record/", {"username": "nobody", "kind": "deletion"})
    assert b"No player with the username" in unknown.content
    refused = staff_client.post(f"/admin/accounts/datarequest/{req.pk}/decide/", {"outcome": "refused"})
    assert refused.status_code == 200 and errors.DATA_REQUEST_ANSWER_REQUIRED.code.encode() in refused.content
    r = staff_client.post(f"/admin/accounts/datarequest/{req.pk}/decide/", {"outcome": "granted"})
    assert r.status_code == 302
    req.refresh_from_db()
    assert req.state == "partly_granted" and req.decided_by_id == staff_client.staff.pk
    assert AuditEvent.objects.filter(action="accounts.data_request.decided", actor_type="staff").count() == 1


def test_staff_end_a_blocking_in_the_admin(staff_client):
    staff_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"  # the English labels
    player = make_player()
    req = services.data_request_create(player=player, kind="blocking", text="", actor=Actor.player(player))
    services.data_request_decide(request=req, outcome="granted", actor=Actor.staff(staff_client.staff))
    r = staff_client.post(f"/admin/accounts/datarequest/{req.pk}/lift/", {"answer_cs": "Konec.", "answer_en": "End."})
    assert r.status_code == 302
    req.refresh_from_db()
    assert req.state == "lifted"


def test_the_overdue_filter_shows_pending_requests_past_their_due_date(staff_client):
    staff_client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"  # the English labels
    player = make_player()
    with time_machine.travel(prague(2027, 1, 10, 9, 0), tick=False):
        services.data_request_create(player=player, kind="explanation", text="?", actor=Actor.player(player))
    with time_machine.travel(prague(2027, 2, 10, 8, 59, 59), tick=False):
        staff_client.force_login(staff_client.staff)  # a session of the travelled time
        assert b"0 data requests" in staff_client.get("/admin/accounts/datarequest/?overdue=yes").content
    with time_machine.travel(prague(2027, 2, 10, 9, 0), tick=False):
        staff_client.force_login(staff_client.staff)
        assert b"1 data request" in staff_client.get("/admin/accounts/datarequest/?overdue=yes").content


def test_the_anonymisation_is_scheduled_daily():
    from accounts.schedules import BEAT_SCHEDULE
    from accounts.tasks import personal_data_anonymise

    assert BEAT_SCHEDULE["accounts.personal_data_anonymise"]["task"] == personal_data_anonymise.name
    player = closed_player(prague(2000, 1, 1, 12, 0))
    assert personal_data_anonymise() == 1
    assert Player.objects.get(pk=player.pk).anonymised_at is not None


def test_a_year_added_to_29_february_is_28_february_unless_leap():
    assert retention.add_years(date(2024, 2, 29), 1) == date(2025, 2, 28)
    assert retention.add_years(date(2024, 2, 29), 4) == date(2028, 2, 29)
    assert retention.add_years(date(2024, 3, 1), 1) == date(2025, 3, 1)
