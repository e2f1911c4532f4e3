"""Filing through the API (GP §10(2), §11(1)-(4)): confirmation, reference, due date, windows, ownership of the
named rounds and transactions, attachments, what a player may see."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from django.core import mail

from complaints import errors
from complaints.models import Complaint, ComplaintAttachment, ComplaintNotice
from complaints.tests.helpers import JPEG, PDF, PNG, file_via_api, play_round, upload
from core.clock import PRAGUE
from core.errors import NOT_A_PLAYER, VALIDATION
from core.models import AuditEvent
from tests.kit.accounts import make_player
from tests.kit.clients import client_for
from tests.kit.wallet import fund

NOW = datetime(2026, 11, 15, 10, 0, tzinfo=PRAGUE)
REF = re.compile(r"^RK-2026-\d{6}$")


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False) as t:
        yield t


@pytest.fixture
def games_catalogue(db):
    from games.services import games_sync

    games_sync()


def _nothing_stored():
    assert Complaint.objects.count() == 0
    assert ComplaintAttachment.objects.count() == 0
    assert ComplaintNotice.objects.count() == 0
    assert not AuditEvent.objects.filter(action__startswith="complaints.").exists()


# --- the happy path, end to end ----------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_player_files_a_complaint_about_their_round_and_gets_the_reference_and_due_date_at_once(
    player, frozen, games_catalogue, django_capture_on_commit_callbacks
):
    fund(player)
    round_id = play_round(player)
    c = client_for(player.user)
    with django_capture_on_commit_callbacks(execute=True):
        r = file_via_api(
            c,
            rounds=[round_id],
            remedy_requested="Pay the win I expected.",
            remedy_amount_requested={"amount": 20000, "currency": "CZK"},
        )
    assert r.status_code == 201, r.content
    body = r.json()
    assert REF.match(body["reference"])
    conf = body["confirmation"]
    assert conf["reference"] == body["reference"]
    assert conf["received_on"] == "2026-11-15"
    assert conf["respond_by_date"] == "2026-12-15"  # 30 days (GP §11(1))
    assert any("adr.coi.cz" in s for s in conf["next_steps"])
    assert body["reference"] in conf["text_cs"] and body["reference"] in conf["text_en"]
    assert "15. 12. 2026" in conf["text_cs"] and "2026-12-15" in conf["text_en"]
    assert body["status"] == "new" and body["late"] is False and body["answer"] is None
    assert body["items"] == [
        {"kind": "round", "object_id": str(round_id), "occurred_at": body["items"][0]["occurred_at"], "late": False}
    ]
    assert body["event_at_from_records"] is True
    # The confirmation of receipt went out by e-mail after commit (GP §11(4)), in Czech and English.
    assert len(mail.outbox) == 1
    msg = mail.outbox[0]
    assert msg.to == [player.user.email]
    assert body["reference"] in msg.subject
    assert "Potvrzujeme" in msg.body and "We confirm" in msg.body and "15. 12. 2026" in msg.body
    notice = ComplaintNotice.objects.get(kind="confirmation")
    assert notice.sent_at is not None
    assert AuditEvent.objects.filter(action="complaints.filed", object_id=str(Complaint.objects.get().pk)).exists()


@pytest.mark.django_db
def test_the_confirmation_is_not_mailed_before_the_transaction_commits(player, frozen):
    r = file_via_api(client_for(player.user), event_at=(NOW - timedelta(days=1)).isoformat())
    assert r.status_code == 201
    # Inside the test's transaction nothing has committed yet, so nothing was sent.
    assert mail.outbox == []
    assert ComplaintNotice.objects.get().sent_at is None


@pytest.mark.django_db
def test_english_is_the_primary_language_when_the_player_asks_for_it(
    player, frozen, django_capture_on_commit_callbacks
):
    c = client_for(player.user)
    with django_capture_on_commit_callbacks(execute=True):
        r = c.post(
            "/api/v1/complaints",
            {"reason": "deposit", "description": "Deposit missing", "event_at": (NOW - timedelta(days=2)).isoformat()},
            format="json",
            HTTP_ACCEPT_LANGUAGE="en",
        )
    assert r.status_code == 201
    assert r.json()["reason_label"] == "deposit" and r.json()["status_label"] == "received"
    assert mail.outbox[0].body.startswith("We confirm")
    assert Complaint.objects.get().language == "en"


@pytest.mark.django_db
def test_references_are_unique_and_increase(player, frozen):
    c = client_for(player.user)
    refs = [file_via_api(c, event_at=(NOW - timedelta(days=1)).isoformat()).json()["reference"] for _ in range(3)]
    assert len(set(refs)) == 3 and all(REF.match(r) for r in refs)
    assert [int(r[-6:]) for r in refs] == sorted(int(r[-6:]) for r in refs)


# --- ownership of what the complaint names ------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_complaint_naming_another_players_round_is_refused_and_nothing_is_stored(
    player, other_player, frozen, games_catalogue
):
    fund(other_player)
    foreign_round = play_round(other_player)
    r = file_via_api(client_for(player.user), rounds=[foreign_round])
    assert r.status_code == 422
    err = r.json()["error"]
    assert err["code"] == errors.ROUND_NOT_YOURS.code
    assert str(foreign_round) in err["message"] and err["details"]["round_id"] == str(foreign_round)
    _nothing_stored()


@pytest.mark.django_db
def test_one_foreign_round_among_own_rounds_refuses_the_whole_complaint(player, other_player, frozen, games_catalogue):
    fund(player)
    fund(other_player)
    own = play_round(player)
    foreign = play_round(other_player)
    r = file_via_api(client_for(player.user), rounds=[own, foreign])
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.ROUND_NOT_YOURS.code
    _nothing_stored()


@pytest.mark.django_db
def test_a_round_that_does_not_exist_is_refused_the_same_way(player, frozen, games_catalogue):
    r = file_via_api(client_for(player.user), rounds=[987654321])
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.ROUND_NOT_YOURS.code
    _nothing_stored()


@pytest.mark.django_db
def test_a_complaint_naming_another_players_ledger_transaction_is_refused_and_nothing_is_stored(
    player, other_player, frozen
):
    from wallet.models import LedgerTransaction

    fund(other_player, 5000)
    fund(player, 5000)
    foreign = LedgerTransaction.objects.filter(player=other_player).latest("pk")
    own = LedgerTransaction.objects.filter(player=player).latest("pk")
    r = file_via_api(client_for(player.user), reason="balance", transactions=[str(foreign.pk)])
    assert r.status_code == 422
    assert r.json()["error"]["code"] == errors.TRANSACTION_NOT_YOURS.code
    _nothing_stored()
    r = file_via_api(client_for(player.user), reason="balance", transactions=[str(own.pk)])
    assert r.status_code == 201, r.content
    assert r.json()["items"][0]["kind"] == "transaction"


# --- the windows (GP §11(1), §10(2), §11(3)) -------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_complaint_about_an_event_exactly_six_calendar_months_ago_is_accepted_for_investigation(player, frozen):
    r = file_via_api(client_for(player.user), event_at=datetime(2026, 5, 15, 0, 0, tzinfo=PRAGUE).isoformat())
    assert r.status_code == 201
    assert r.json()["late"] is False and r.json()["status"] == "new"
    assert r.json()["filing_deadline"] == "2026-11-15"


@pytest.mark.django_db
def test_a_complaint_one_day_past_six_months_is_recorded_and_answered_at_once_as_not_justified(
    player, frozen, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        r = file_via_api(client_for(player.user), event_at=datetime(2026, 5, 14, 23, 59, tzinfo=PRAGUE).isoformat())
    assert r.status_code == 201
    body = r.json()
    assert body["late"] is True and body["status"] == "resolved"
    assert body["answer"]["outcome"] == "not_justified_late"
    assert "14. 11. 2026" in body["answer"]["text_cs"]  # the reason: when the term ended
    assert "adr.coi.cz" in body["answer"]["text"]  # GP §11(8)
    kinds = sorted(ComplaintNotice.objects.values_list("kind", flat=True))
    assert kinds == ["answer", "confirmation"]
    assert len(mail.outbox) == 2
    assert "neoprávněná" in mail.outbox[1].body and "not justified" in mail.outbox[1].body
    c = Complaint.objects.get()
    assert c.outcome == "not_justified_late" and c.answered_at is not None
    assert AuditEvent.objects.filter(action="complaints.resolved", actor_type="system", object_id=str(c.pk)).exists()


@pytest.mark.django_db
def test_a_win_claim_is_in_time_until_one_year_after_settlement_and_late_the_day_after(player, frozen):
    c = client_for(player.user)
    r = file_via_api(c, reason="win_not_credited", event_at=datetime(2025, 11, 15, 21, 0, tzinfo=PRAGUE).isoformat())
    assert r.status_code == 201
    assert r.json()["kind"] == "win_claim" and r.json()["late"] is False
    r = file_via_api(c, reason="win_not_credited", event_at=datetime(2025, 11, 14, 21, 0, tzinfo=PRAGUE).isoformat())
    assert r.status_code == 201
    assert r.json()["late"] is True and r.json()["answer"]["outcome"] == "not_justified_late"


@pytest.mark.django_db
def test_a_win_claim_about_a_round_counts_the_year_from_the_rounds_recorded_settlement(player, games_catalogue):
    played_at = datetime(2025, 11, 15, 12, 0, tzinfo=PRAGUE)
    with time_machine.travel(played_at, tick=False):
        fund(player)
        round_id = play_round(player)
    with time_machine.travel(datetime(2026, 11, 15, 23, 0, tzinfo=PRAGUE), tick=False):
        r = file_via_api(
            client_for(player.user),
            reason="win_not_credited",
            rounds=[round_id],
            event_at=datetime(2026, 11, 1, tzinfo=PRAGUE).isoformat(),
        )  # the player's own (wrong) date
    assert r.status_code == 201
    body = r.json()
    assert body["late"] is False and body["event_at_from_records"] is True
    assert datetime.fromisoformat(body["event_at"]) == played_at.astimezone(UTC)
    assert datetime.fromisoformat(body["event_at_stated"]) == datetime(2026, 11, 1, tzinfo=PRAGUE)  # kept
    with time_machine.travel(datetime(2026, 11, 16, 0, 5, tzinfo=PRAGUE), tick=False):
        r = file_via_api(client_for(player.user), reason="win_not_credited", rounds=[round_id])
    assert r.json()["late"] is True and r.json()["items"][0]["late"] is True


@pytest.mark.django_db
def test_a_complaint_without_a_time_or_a_named_record_is_refused(player, frozen):
    r = file_via_api(client_for(player.user))
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.EVENT_TIME_REQUIRED.code
    _nothing_stored()


@pytest.mark.django_db
def test_an_event_in_the_future_is_refused(player, frozen):
    r = file_via_api(client_for(player.user), event_at=(NOW + timedelta(hours=1)).isoformat())
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.EVENT_IN_FUTURE.code
    _nothing_stored()


# --- attachments ----------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_pdf_png_and_jpeg_attachments_are_accepted_by_their_content(player, frozen):
    c = client_for(player.user)
    r = c.post(
        "/api/v1/complaints",
        {
            "reason": "withdrawal",
            "description": "Withdrawal not received",
            "event_at": (NOW - timedelta(days=3)).isoformat(),
            "attachments": [upload("statement.pdf", PDF), upload("shot.png", PNG), upload("photo.JPG", JPEG)],
        },
        format="multipart",
    )
    assert r.status_code == 201, r.content
    types = sorted(a["content_type"] for a in r.json()["attachments"])
    assert types == ["application/pdf", "image/jpeg", "image/png"]
    a = ComplaintAttachment.objects.get(content_type="application/pdf")
    assert a.original_name == "statement.pdf" and not a.file.name.endswith("statement.pdf")  # generated name
    # The player can download their own attachment.
    ref = r.json()["reference"]
    d = c.get(f"/api/v1/complaints/{ref}/attachments/{a.pk}")
    assert d.status_code == 200 and d.getvalue() == PDF  # a FileResponse joins its stream


@pytest.mark.django_db
@pytest.mark.parametrize(
    "name,data,code",
    [
        ("invoice.pdf", b"MZ\x90\x00 this is an executable", errors.ATTACHMENT_TYPE.code),
        ("image.png", b"<html><script>alert(1)</script></html>", errors.ATTACHMENT_TYPE.code),
        ("statement.png", PDF, errors.ATTACHMENT_EXTENSION.code),
        ("empty.pdf", b"", errors.ATTACHMENT_EMPTY.code),
    ],
)
def test_an_attachment_whose_content_is_not_what_is_allowed_refuses_the_filing(player, frozen, name, data, code):
    r = client_for(player.user).post(
        "/api/v1/complaints",
        {
            "reason": "other",
            "description": "x",
            "event_at": (NOW - timedelta(days=1)).isoformat(),
            "attachments": [upload("ok.pdf", PDF), upload(name, data, "application/pdf")],
        },
        format="multipart",
    )
    if code == errors.ATTACHMENT_EMPTY.code and r.status_code == 400:
        assert r.json()["error"]["code"] == VALIDATION.code  # DRF refuses an empty file before the service
    else:
        assert r.status_code == 422 and r.json()["error"]["code"] == code
    _nothing_stored()


@pytest.mark.django_db
def test_an_attachment_over_5_mb_is_refused_and_exactly_5_mb_is_accepted(player, frozen):
    c = client_for(player.user)
    body = {"reason": "other", "description": "x", "event_at": (NOW - timedelta(days=1)).isoformat()}
    big = PDF + b"0" * (5 * 1024 * 1024 - len(PDF) + 1)
    r = c.post("/api/v1/complaints", {**body, "attachments": [upload("big.pdf", big)]}, format="multipart")
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.ATTACHMENT_TOO_LARGE.code
    _nothing_stored()
    r = c.post("/api/v1/complaints", {**body, "attachments": [upload("max.pdf", big[:-1])]}, format="multipart")
    assert r.status_code == 201 and r.json()["attachments"][0]["size"] == 5 * 1024 * 1024


@pytest.mark.django_db
def test_attachments_can_be_added_while_open_but_not_after_resolution(player, frozen):
    c = client_for(player.user)
    ref = file_via_api(c, event_at=(NOW - timedelta(days=1)).isoformat()).json()["reference"]
    r = c.post(f"/api/v1/complaints/{ref}/attachments", {"attachments": [upload("more.png", PNG)]}, format="multipart")
    assert r.status_code == 201 and r.json()[0]["content_type"] == "image/png"
    late_ref = file_via_api(c, event_at=(NOW - timedelta(days=400)).isoformat()).json()["reference"]
    r = c.post(
        f"/api/v1/complaints/{late_ref}/attachments", {"attachments": [upload("more.png", PNG)]}, format="multipart"
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.COMPLAINT_CLOSED.code
    assert Complaint.objects.get(reference=late_ref).attachments.count() == 0


# --- who may see what -------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_a_player_never_sees_or_adds_to_another_players_complaint(player, other_player, frozen):
    mine = file_via_api(client_for(player.user), event_at=(NOW - timedelta(days=1)).isoformat()).json()["reference"]
    intruder = client_for(other_player.user)
    assert intruder.get(f"/api/v1/complaints/{mine}").status_code == 404
    r = intruder.post(f"/api/v1/complaints/{mine}/messages", {"text": "hi"}, format="json")
    assert r.status_code == 404 and r.json()["error"]["code"] == errors.COMPLAINT_NOT_FOUND.code
    r = intruder.post(
        f"/api/v1/complaints/{mine}/attachments", {"attachments": [upload("a.png", PNG)]}, format="multipart"
    )
    assert r.status_code == 404
    a_id = 1
    assert intruder.get(f"/api/v1/complaints/{mine}/attachments/{a_id}").status_code == 404
    assert intruder.get("/api/v1/complaints").json()["count"] == 0
    assert Complaint.objects.get(reference=mine).messages.count() == 0


@pytest.mark.django_db
def test_the_list_is_paginated_and_shows_only_the_players_own_complaints(player, other_player, frozen):
    for p in (player, player, other_player):
        file_via_api(client_for(p.user), event_at=(NOW - timedelta(days=1)).isoformat())
    r = client_for(player.user).get("/api/v1/complaints?page_size=1")
    assert r.status_code == 200 and r.json()["count"] == 2 and len(r.json()["results"]) == 1


@pytest.mark.django_db
def test_unauthenticated_and_staff_without_a_player_get_a_clean_refusal(agent, frozen):
    from rest_framework.test import APIClient

    assert APIClient().get("/api/v1/complaints").status_code == 401
    r = client_for(agent).post(
        "/api/v1/complaints", {"reason": "other", "description": "x", "event_at": NOW.isoformat()}, format="json"
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code == "auth.not_a_player"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {},
        {"reason": "nonsense", "description": "x"},
        {"reason": "other", "description": "x", "event_at": "yesterday"},
        {"reason": "other", "description": "x", "rounds": ["abc"]},
        {"reason": "other", "description": "x", "rounds": 5},
        {"reason": "other", "description": "", "event_at": NOW.isoformat()},
        {
            "reason": "other",
            "description": "x",
            "event_at": NOW.isoformat(),
            "remedy_amount_requested": {"amount": -5, "currency": "CZK"},
        },
    ],
)
def test_malformed_filings_are_400s_in_the_error_shape_never_500s(player, frozen, body):
    r = client_for(player.user).post("/api/v1/complaints", body, format="json")
    assert r.status_code == 400 and r.json()["error"]["code"] == VALIDATION.code
    _nothing_stored()


@pytest.mark.django_db
def test_a_retried_filing_with_the_same_idempotency_key_files_once(player, frozen):
    c = client_for(player.user)
    body = {"reason": "deposit", "description": "x", "event_at": (NOW - timedelta(days=1)).isoformat()}
    r1 = c.post("/api/v1/complaints", body, format="json", HTTP_IDEMPOTENCY_KEY="file-1")
    r2 = c.post("/api/v1/complaints", body, format="json", HTTP_IDEMPOTENCY_KEY="file-1")
    assert r1.status_code == r2.status_code == 201
    assert r1.json()["reference"] == r2.json()["reference"] and r2["Idempotent-Replayed"] == "true"
    assert Complaint.objects.count() == 1


# --- staff entry of a complaint received off-line ---------------------------------------------------------------------
@pytest.mark.django_db
def test_staff_enter_a_complaint_received_by_email_with_its_date_received(
    player, agent, frozen, django_capture_on_commit_callbacks
):
    from complaints.services import complaint_file
    from core.audit import Actor

    received = datetime(2026, 11, 10, 16, 30, tzinfo=PRAGUE)
    with django_capture_on_commit_callbacks(execute=True):
        c = complaint_file(
            player=player,
            reason="withdrawal",
            description="Letter: withdrawal missing",
            event_at=datetime(2026, 11, 1, tzinfo=PRAGUE),
            channel="email",
            received_at=received,
            entered_by=agent,
            actor=Actor.staff(agent),
        )
    assert c.channel == "email" and c.received_at == received and c.entered_by == agent
    assert str(c.respond_by_date) == "2026-12-10"  # counted from the date received, not from the entry
    assert mail.outbox[0].to == [player.user.email] and "e-mail" in mail.outbox[0].body


@pytest.mark.django_db
def test_a_player_cannot_claim_an_offline_channel_or_a_date_received_and_staff_cannot_date_it_in_the_future(
    player, agent, frozen
):
    from complaints.services import complaint_file
    from core.audit import Actor
    from core.errors import DomainError

    with pytest.raises(DomainError) as exc:
        complaint_file(
            player=player, reason="other", description="x", event_at=NOW, channel="branch", actor=Actor.player(player)
        )
    assert exc.value.code == errors.CHANNEL_INVALID.code
    with pytest.raises(DomainError) as exc:
        complaint_file(
            player=player,
            reason="other",
            description="x",
            event_at=NOW,
            channel="branch",
            received_at=NOW + timedelta(days=1),
            actor=Actor.staff(agent),
        )
    assert exc.value.code == errors.RECEIVED_IN_FUTURE.code
    _nothing_stored()


@pytest.mark.django_db
def test_a_player_without_an_email_address_still_gets_the_confirmation_in_the_response(frozen):
    p = make_player()
    p.user.email = ""
    p.user.save()
    r = file_via_api(client_for(p.user), event_at=(NOW - timedelta(days=1)).isoformat())
    assert r.status_code == 201 and r.json()["confirmation"]["reference"]


@pytest.mark.django_db
def test_a_multipart_filing_can_name_transactions_and_carry_attachments_together(player, frozen):
    from wallet.models import LedgerTransaction

    fund(player, 5000)
    fund(player, 7000)
    ids = [str(t.pk) for t in LedgerTransaction.objects.filter(player=player).order_by("pk")]
    r = client_for(player.user).post(
        "/api/v1/complaints",
        {
            "reason": "deposit",
            "description": "Two deposits, one missing",
            "transactions": ids,
            "attachments": [upload("bank.pdf", PDF)],
        },
        format="multipart",
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert sorted(i["object_id"] for i in body["items"]) == sorted(ids)
    assert body["event_at_from_records"] is True and len(body["attachments"]) == 1


@pytest.mark.django_db
def test_odd_requests_on_the_other_endpoints_are_clean_4xx_never_500(player, frozen):
    c = client_for(player.user)
    ref = file_via_api(c, event_at=(NOW - timedelta(days=1)).isoformat()).json()["reference"]
    cases = [
        (c.get("/api/v1/complaints/RK-0000-%00"), 404),
        (c.get("/api/v1/complaints/nonsense"), 404),
        (c.post(f"/api/v1/complaints/{ref}/messages", {"text": ""}, format="json"), 400),
        (c.post(f"/api/v1/complaints/{ref}/messages", {}, format="json"), 400),
        (c.post(f"/api/v1/complaints/{ref}/attachments", {}, format="multipart"), 400),
        (c.post(f"/api/v1/complaints/{ref}/attachments", {"attachments": "text"}, format="multipart"), 400),
        (c.post(f"/api/v1/complaints/{ref}/attachments", {"a": 1}, format="json"), 415),
        (c.get(f"/api/v1/complaints/{ref}/attachments/999999"), 404),
        (c.delete(f"/api/v1/complaints/{ref}"), 405),
        (c.get("/api/v1/complaints?page=999"), 404),
    ]
    for response, status in cases:
        assert response.status_code == status, (response.request["PATH_INFO"], response.content[:300])
        assert "error" in response.json()
    assert c.get(f"/api/v1/complaints/{ref.lower()}").status_code == 200  # references are case-insensitive


@pytest.mark.django_db
def test_absurd_numbers_are_refused_cleanly(player, frozen):
    c = client_for(player.user)
    base = {"reason": "balance", "description": "x", "event_at": (NOW - timedelta(days=1)).isoformat()}
    assert file_via_api(c, **base, remedy_amount_requested={"amount": 10**20, "currency": "CZK"}).status_code == 400
    assert file_via_api(c, **base, rounds=[10**30]).status_code == 400
    r = file_via_api(c, **base, transactions=[str(10**30)])
    assert r.status_code == 422 and r.json()["error"]["code"] == errors.TRANSACTION_NOT_YOURS.code
    _nothing_stored()
