"""Notices the operator can prove (GP §7(7), §10(4)): the in-app inbox with read receipts and the e-mail, each
delivery recorded; the contract ``accounts.services.message_send`` other apps call."""

import inspect
import threading
from datetime import timedelta
from smtplib import SMTPException

import pytest
import time_machine
from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend
from django.db import connection, transaction

from accounts import errors, rules, services
from accounts.models import Delivery, Message, Player
from core import clock
from core.audit import Actor
from core.errors import NOT_A_PLAYER, NOT_FOUND, DomainError
from core.models import AuditEvent
from tests.kit.accounts import make_player, make_staff
from tests.kit.clients import client_for

pytestmark = pytest.mark.django_db
INBOX = "/api/v1/accounts/me/messages"
DEDUCTION = {
    "kind": "win_deduction",
    "subject_cs": "Odečtení výhry",
    "subject_en": "Win deducted",
    "body_cs": "Výhra 100 Kč připsaná omylem byla odečtena.",
    "body_en": "A win of 100 CZK credited in error was deducted.",
}


class FailingBackend(BaseEmailBackend):
    """A mail server that refuses everything."""

    def send_messages(self, email_messages):
        raise SMTPException("451 try again later")


def send(player, **overrides):
    return services.message_send(player=player, **{**DEDUCTION, **overrides})


def test_the_contract_keeps_its_name_and_keyword_only_signature():
    sig = inspect.signature(services.message_send)
    assert all(p.kind is p.KEYWORD_ONLY for p in sig.parameters.values())
    assert list(sig.parameters) == [
        "player",
        "kind",
        "subject_cs",
        "subject_en",
        "body_cs",
        "body_en",
        "reference",
        "email",
    ]
    assert sig.parameters["reference"].default == "" and sig.parameters["email"].default is True


def test_a_message_is_in_the_inbox_at_once_and_its_email_goes_after_commit_with_the_outcome_recorded(commit):
    player = make_player()
    with time_machine.travel(clock.now(), tick=False):
        with commit():
            msg = send(player, reference="wallet.deduction:17")
            inbox = msg.deliveries.get(channel="inbox")
            email = msg.deliveries.get(channel="email")
            assert inbox.status == "delivered" and inbox.delivered_at == msg.created_at  # recorded at creation
            assert email.status == "pending" and email.recipient == player.personal.email
            assert mail.outbox == []  # nothing leaves before the commit
        email.refresh_from_db()
        assert email.status == "sent" and email.delivered_at == clock.now() and email.attempts == 1
    assert len(mail.outbox) == 1
    sent = mail.outbox[0]
    assert sent.to == [player.personal.email] and sent.subject == "Odečtení výhry / Win deducted"
    assert DEDUCTION["body_cs"] in sent.body and DEDUCTION["body_en"] in sent.body
    event = AuditEvent.objects.get(action="accounts.message.sent")
    assert event.details["reference"] == "wallet.deduction:17" and event.details["kind"] == "win_deduction"


def test_a_retried_caller_with_the_same_reference_sends_nothing_twice(commit):
    player = make_player()
    with commit():
        first = send(player, reference="wallet.deduction:17")
    with commit():
        again = send(player, reference="wallet.deduction:17", body_cs="jiný text")
    assert again.pk == first.pk and again.body_cs == DEDUCTION["body_cs"]
    assert Message.objects.count() == 1 and Delivery.objects.count() == 2 and len(mail.outbox) == 1
    other = make_player()
    with commit():
        send(other, reference="wallet.deduction:17")  # the reference is per player
    with commit():
        send(player)
        send(player)  # without a reference every call is a message
    assert Message.objects.filter(player=player).count() == 3 and len(mail.outbox) == 4


def test_the_same_reference_with_another_kind_is_a_conflict_and_nothing_is_written():
    player = make_player()
    send(player, reference="wallet.hold:3", kind="hold")
    with pytest.raises(DomainError) as exc:
        send(player, reference="wallet.hold:3", kind="debt")
    assert exc.value.code == errors.MESSAGE_REFERENCE_CONFLICT.code
    assert Message.objects.count() == 1


def test_an_unknown_kind_an_empty_text_or_a_subject_with_a_line_break_is_refused():
    player = make_player()
    for bad in (
        {"kind": "spam"},
        {"body_en": " "},
        {"subject_cs": "a\nBcc: x@example.cz"},
        {"subject_en": "x" * 201},
        {"reference": "r" * 101},
    ):
        with pytest.raises(DomainError) as exc:
            send(player, **bad)
        assert exc.value.code == errors.MESSAGE_INVALID.code, bad
    assert Message.objects.count() == 0


def test_a_rolled_back_caller_notifies_nobody(commit):
    player = make_player()
    with commit(), pytest.raises(RuntimeError), transaction.atomic():
        send(player, reference="wallet.deduction:99")
        raise RuntimeError("the deduction failed")
    assert Message.objects.count() == 0 and mail.outbox == []


def test_email_false_is_an_inbox_message_only(commit):
    player = make_player()
    with commit():
        msg = send(player, email=False)
    assert list(msg.deliveries.values_list("channel", flat=True)) == ["inbox"] and mail.outbox == []


def test_a_failed_email_is_recorded_and_sent_again_by_the_sweeper_after_the_retry_time(commit, settings):
    player = make_player()
    start = clock.now()
    settings.EMAIL_BACKEND = "accounts.tests.test_messages.FailingBackend"
    with time_machine.travel(start, tick=False), commit():
        msg = send(player)
    email = msg.deliveries.get(channel="email")
    assert email.status == "failed" and email.attempts == 1 and "451" in email.error
    assert msg.deliveries.get(channel="inbox").status == "delivered"  # the inbox has it whatever the mail does
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    retry = rules.message_email_retry_after()
    with time_machine.travel(start + retry - timedelta(seconds=1), tick=False):
        assert services.message_emails_retry_due() == 0
    with time_machine.travel(start + retry, tick=False):
        assert services.message_emails_retry_due() == 1
        assert services.message_emails_retry_due() == 0  # safe to run twice
    email.refresh_from_db()
    assert email.status == "sent" and email.attempts == 2 and email.error == ""
    assert email.delivered_at == start + retry and len(mail.outbox) == 1


def test_the_sweeper_gives_up_after_the_maximum_attempts(commit, settings):
    player = make_player()
    settings.EMAIL_BACKEND = "accounts.tests.test_messages.FailingBackend"
    start = clock.now()
    with time_machine.travel(start, tick=False), commit():
        msg = send(player)
    email = msg.deliveries.get(channel="email")
    for n in range(2, rules.MESSAGE_EMAIL_MAX_ATTEMPTS + 2):
        with time_machine.travel(start + n * rules.message_email_retry_after(), tick=False):
            services.message_emails_retry_due()
    email.refresh_from_db()
    assert email.status == "failed" and email.attempts == rules.MESSAGE_EMAIL_MAX_ATTEMPTS


def test_an_email_whose_after_commit_send_never_ran_is_sent_by_the_sweeper():
    player = make_player()
    start = clock.now()
    with time_machine.travel(start, tick=False):
        msg = send(player)  # no commit in this test: the on-commit send never runs (a worker died)
    email = msg.deliveries.get(channel="email")
    assert email.status == "pending"
    with time_machine.travel(start + rules.message_email_retry_after(), tick=False):
        assert services.message_emails_retry_due() == 1
    email.refresh_from_db()
    assert email.status == "sent" and len(mail.outbox) == 1


# The inbox API -------------------------------------------------------------------------------------------------------
def test_the_inbox_lists_my_messages_newest_first_with_the_unread_count():
    player = make_player()
    start = clock.now()
    for n in range(3):
        with time_machine.travel(start + timedelta(minutes=n), tick=False):
            send(player, subject_cs=f"Zpráva {n}", subject_en=f"Message {n}", email=False)
    send(make_player(), email=False)  # someone else's
    r = client_for(player).get(INBOX, {"page_size": 2})
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["count"] == 3 and body["unread"] == 3 and body["next"] is not None
    assert [m["subject"] for m in body["results"]] == ["Zpráva 2", "Zpráva 1"]
    assert body["results"][0]["subject_en"] == "Message 2" and body["results"][0]["read_at"] is None


def test_the_subject_and_body_follow_the_request_language():
    player = make_player()
    msg = send(player, email=False)
    r = client_for(player).get(f"{INBOX}/{msg.pk}", HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 200 and r.json()["subject"] == "Win deducted" and r.json()["body"] == DEDUCTION["body_en"]


def test_the_read_receipt_records_the_first_opening_once():
    player = make_player()
    msg = send(player, email=False)
    c = client_for(player)
    first = clock.now() + timedelta(hours=1)
    with time_machine.travel(first, tick=False):
        r = c.post(f"{INBOX}/{msg.pk}/read")
    assert r.status_code == 200 and r.json()["read_at"] is not None
    with time_machine.travel(first + timedelta(days=1), tick=False):
        again = c.post(f"{INBOX}/{msg.pk}/read")
    assert again.status_code == 200 and again.json()["read_at"] == r.json()["read_at"]
    msg.refresh_from_db()
    assert msg.read_at == first
    assert AuditEvent.objects.filter(action="accounts.message.read").count() == 1
    assert c.get(INBOX).json()["unread"] == 0


def test_another_players_message_is_not_found_and_stays_unread():
    owner, other = make_player(), make_player()
    msg = send(owner, email=False)
    c = client_for(other)
    for url in (f"{INBOX}/{msg.pk}", f"{INBOX}/{msg.pk}/read"):
        r = c.get(url) if url.endswith(f"{msg.pk}") else c.post(url)
        assert r.status_code == 404 and r.json()["error"]["code"] == NOT_FOUND.code, url
    msg.refresh_from_db()
    assert msg.read_at is None and c.get(INBOX).json()["count"] == 0


@pytest.mark.parametrize("message_id", ["0", str(2**63), str(10**30)])
def test_an_identifier_out_of_range_is_not_found_not_a_server_error(message_id):
    c = client_for(make_player())
    assert c.get(f"{INBOX}/{message_id}").status_code == 404
    assert c.post(f"{INBOX}/{message_id}/read").status_code == 404


def test_the_inbox_needs_a_player(api):
    assert api.get(INBOX).status_code == 401
    r = client_for(make_staff()).get(INBOX)
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code


# The account cancellation is such a notice --------------------------------------------------------------------------
def test_a_cancellation_request_is_notified_in_the_inbox_and_by_email_once(commit):
    player = make_player(status="active")
    with commit():
        r = client_for(player).post("/api/v1/accounts/me/closure", {"settlement": "transfer"}, format="json")
    assert r.status_code == 200, r.content
    msg = Message.objects.get(player=player)
    assert msg.kind == "account_cancellation" and msg.reference == f"accounts.closure_request:{player.pk}"
    assert dict(msg.deliveries.values_list("channel", "status")) == {"inbox": "delivered", "email": "sent"}
    assert len(mail.outbox) == 1 and "10" in mail.outbox[0].body
    inbox = client_for(player).get(INBOX).json()  # a closing account still reads it
    assert inbox["count"] == 1 and inbox["results"][0]["kind"] == "account_cancellation"


def test_a_temporary_account_expiring_is_notified_provably(commit):
    start = clock.now()
    with time_machine.travel(start, tick=False):
        player = make_player(status="temporary")
    with time_machine.travel(start + timedelta(days=30), tick=False), commit():
        assert services.temporary_expire_due() == 1
    msg = Message.objects.get(player=player)
    assert msg.kind == "account_cancellation" and msg.deliveries.get(channel="email").status == "sent"
    assert "7" in mail.outbox[0].body


# Staff ---------------------------------------------------------------------------------------------------------------
def test_staff_see_messages_and_deliveries_read_only(client):
    staff = make_staff(superuser=True)
    client.force_login(staff)
    msg = send(make_player())
    assert client.get("/admin/accounts/message/").status_code == 200
    page = client.get(f"/admin/accounts/message/{msg.pk}/change/", headers={"accept-language": "en"})
    assert page.status_code == 200 and b"Win deducted" in page.content and b"pending" in page.content
    assert client.get("/admin/accounts/delivery/").status_code == 200
    assert client.get("/admin/accounts/message/add/").status_code == 403
    assert client.post(f"/admin/accounts/message/{msg.pk}/delete/", {"post": "yes"}).status_code == 403
    assert Message.objects.filter(pk=msg.pk).exists()


# Concurrency ---------------------------------------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_sends_with_one_reference_make_one_message():
    player = make_player()
    barrier = threading.Barrier(2)
    results: list[int] = []
    failures: list[BaseException] = []

    def worker():
        try:
            barrier.wait()
            with transaction.atomic():
                results.append(
                    send(Player.objects.get(pk=player.pk), reference="wallet.debt:5", kind="debt", email=False).pk
                )
        except BaseException as exc:  # noqa: BLE001 - reported below
            failures.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert failures == [] and len(results) == 2 and results[0] == results[1]
    assert Message.objects.filter(player=player).count() == 1
    assert Delivery.objects.filter(message__player=player).count() == 1


def test_a_message_is_audited_with_the_system_actor():
    player = make_player()
    send(player, reference="x:1")
    event = AuditEvent.objects.get(action="accounts.message.sent")
    assert event.actor_type == Actor.system("accounts.messages").type


def test_the_export_of_my_data_holds_my_messages_and_their_deliveries_not_anyone_elses(commit):
    """GP §12(7): the notices are personal data of the player too."""
    me, other = make_player(), make_player()
    with commit():
        send(me, reference="wallet.hold:1", kind="hold")
    send(other, subject_cs="Cizí zpráva", email=False)
    data = client_for(me).get("/api/v1/accounts/me/export").json()
    assert [m["kind"] for m in data["messages"]] == ["hold"]
    assert {d["channel"]: d["status"] for d in data["messages"][0]["deliveries"]} == {
        "inbox": "delivered",
        "email": "sent",
    }
    assert "Cizí zpráva" not in str(data)
