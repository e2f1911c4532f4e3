"""The privacy contract across the apps (GP §12(5), §12(7)): each app's records are anonymised at the end of their own
retention period by the one job (a day before: kept; on the day: anonymised, files deleted from storage), the export
holds each app's part and never another player's data, a missing contract stops the platform, a deletion request is
answered with exactly what is done, and the recipients of the data are published and told of corrections and
erasures."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from datetime import datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.core.files.base import ContentFile
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import SystemCheckError
from rest_framework.test import APIClient

from accounts import privacy_contract, selectors, services
from accounts.hooks import HookMissing
from accounts.models import Message, PersonalData, PersonalDataErasure, Player, RecipientNotice
from aml.models import (
    ComplianceCase,
    IdentificationCheck,
    IdentificationEvent,
    IdentificationImage,
    PepDeclaration,
    ScreeningRun,
    SourceOfFundsDeclaration,
)
from complaints.models import Complaint, ComplaintAttachment, ComplaintMessage
from core import clock
from core.audit import Actor
from tests.kit.accounts import make_player, make_staff, token_for
from tests.kit.money import prague
from wallet.models import Deposit, LedgerTransaction, MethodDocument, PaymentMethod, ProviderEvent

pytestmark = pytest.mark.django_db(transaction=False)
PRAGUE = clock.PRAGUE
JPEG = b"\xff\xd8\xff\xe0" + b"\x00" * 64
PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64
PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
CLOSED_AT = datetime(2026, 3, 15, 10, 0, tzinfo=PRAGUE)
_n = itertools.count(1)


@pytest.fixture(autouse=True)
def _settings(settings, tmp_path):
    """Tasks enqueued after commit run in-process (the sandbox identification answers at once); files go to a temp
    dir; distinct periods so that each group of records ends on its own day."""
    from django.core.cache import cache

    from config.celery import app

    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    settings.AML_SANDBOX_ENABLED = True
    settings.WALLET_SANDBOX_ENABLED = True
    settings.AML_SANDBOX_UNAVAILABLE = False
    settings.AML_SANDBOX_IDENT_OUTCOME = "auto"
    settings.AML_SANDBOX_CALLBACK_URL = ""
    settings.MEDIA_ROOT = str(tmp_path / "media")
    settings.ACCOUNTS_RETENTION_GAMBLING_YEARS = 3
    settings.ACCOUNTS_RETENTION_AML_YEARS = 5
    settings.ACCOUNTS_RETENTION_ACCOUNTING_YEARS = 5
    cache.clear()
    yield
    cache.clear()
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


@pytest.fixture
def commit(django_capture_on_commit_callbacks):
    def run():
        return django_capture_on_commit_callbacks(execute=True)

    return run


def api(player: Player | None = None) -> APIClient:
    c = APIClient(raise_request_exception=False)
    if player is not None:
        c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    return c


def rich_player(marker: str, commit) -> dict[str, Any]:
    """A player with records of every kind the apps keep, made through the player API where the player makes them
    (identification with images through the sandbox provider, PEP and source-of-funds declarations, a complaint with
    an attachment) and as rows where staff or a provider make them (screening hit, case, payment method with a
    document, a deposit with its payer, the provider's callback). Each personal value carries ``marker``."""
    player = make_player(status="temporary", aml_identified_at=None)
    c = api(player)
    n = next(_n)
    number = f"AB{n:07d}"
    body: dict[str, Any] = {
        "document_type": "id_card",
        "document_number": number,
        "document_issuing_state": "CZ",
        "document_issuing_authority": f"MěÚ {marker}",
        "document_valid_until": clock.business_date().replace(year=clock.business_date().year + 1).isoformat(),
    }
    for side, content in (("front", JPEG), ("back", PNG), ("selfie", JPEG)):
        body[side] = SimpleUploadedFile(f"{side}.jpg", content, content_type="image/jpeg")
    with commit():
        r = c.post("/api/v1/aml/identifications", body, format="multipart")
    assert r.status_code == 201, r.content
    check = IdentificationCheck.objects.get(pk=r.json()["id"])
    assert check.status == "approved" and check.extracted
    r = c.post("/api/v1/aml/pep-declaration", {"relation": "self", "position": f"Starosta {marker}"}, format="json")
    assert r.status_code in (200, 201), r.content
    r = c.post("/api/v1/aml/source-of-funds", {"source": "other", "description": f"Dědictví {marker}"}, format="json")
    assert r.status_code in (200, 201), r.content
    now = clock.now()
    ScreeningRun.objects.create(
        player=player,
        trigger="periodic",
        ran_at=now,
        list_code="sandbox",
        result="hit",
        matches=[{"entry_id": f"E-{marker}", "name": f"Listed {marker}"}],
    )
    ComplianceCase.objects.create(
        player=player,
        kind="screening_hit",
        key=f"hit:{marker}",
        blocking=True,
        opened_at=now,
        summary=f"list match {marker}",
        details={"entry": f"E-{marker}"},
    )
    method = PaymentMethod.objects.create(
        player=player,
        kind="bank_account",
        identifier=f"{n:06d}1234/0800",
        bank_code="0800",
        iban=f"CZ6508000000{n:06d}1234",
        holder_name=f"Holder {marker}",
        status="verified",
        created_at=now,
    )
    doc = MethodDocument(
        method=method,
        original_name=f"statement-{marker}.pdf",
        content_type="application/pdf",
        size=len(PDF),
        sha256="0" * 64,
        uploaded_at=now,
    )
    doc.file.save(f"doc-{marker}.pdf", ContentFile(PDF), save=False)
    doc.save()
    deposit = Deposit.objects.create(
        player=player,
        method=method,
        provider="sandbox",
        amount=10_000,
        into_temporary=True,
        status="confirmed",
        payment_reference=f"VS{n:08d}",
        idempotency_reference=f"dep-{marker}",
        created_at=now,
        expires_at=now,
        confirmed_at=now,
        payer={"name": f"Payer {marker}", "account": "1/0800"},
    )
    ProviderEvent.objects.create(
        provider="sandbox",
        provider_txn_id=f"ev-{marker}",
        event_type="payment.succeeded",
        player=player,
        raw_body=json.dumps({"payer": {"name": f"Payer {marker}"}}),
        received_at=now,
        result="confirmed",
    )
    r = c.post(
        "/api/v1/complaints",
        {
            "reason": "other",
            "description": f"Complaint {marker}",
            "event_at": (now - timedelta(days=1)).isoformat(),
            "attachments": [SimpleUploadedFile(f"proof-{marker}.pdf", PDF)],
        },
        format="multipart",
    )
    assert r.status_code == 201, r.content
    complaint = Complaint.objects.get(reference=r.json()["reference"])
    return {
        "player": player,
        "check": check,
        "number": number,
        "method": method,
        "document": doc,
        "deposit": deposit,
        "complaint": complaint,
        "images": [i.file.path for i in check.images.all()],
        "document_file": doc.file.path,
        "attachment_file": complaint.attachments.get().file.path,
    }


def _content(response: Any) -> bytes:
    return b"".join(response.streaming_content)


def close(player: Player, at: datetime = CLOSED_AT) -> None:
    Player.objects.filter(pk=player.pk).update(status="closed", closed_at=at, status_changed_at=at)
    player.refresh_from_db()


def run_job_at(year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0) -> int:
    with time_machine.travel(prague(year, month, day, hour, minute, second), tick=False):
        return services.personal_data_anonymise_due()


# Retention: each record at the end of its own period ------------------------------------------------------------
def test_each_apps_records_are_kept_a_day_before_their_end_and_anonymised_on_the_day_files_deleted(commit):
    """GP §12(5): complaints (Gambling Act, 3 years), AML records (5 years here), payments (accounting 5 years from
    the end of the year, and AML) and the account itself, each at 00:00 Prague after the last day of its period."""
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
        b = rich_player("BRAVO", commit)  # stays open: never touched
    close(a["player"])
    pa, pb = a["player"], b["player"]

    # complaints: 3 years from 15 March 2026 -> last day 15 March 2029
    assert run_job_at(2029, 3, 15, 23, 59, 59) == 0
    assert Complaint.objects.get(pk=a["complaint"].pk).description == "Complaint ALPHA"
    assert os.path.exists(a["attachment_file"])
    assert run_job_at(2029, 3, 16, 0, 0, 0) == 0  # the account itself is not anonymised yet
    c = Complaint.objects.get(pk=a["complaint"].pk)
    assert c.description == "[anonymised]" and c.reference == a["complaint"].reference
    assert not os.path.exists(a["attachment_file"])
    att = ComplaintAttachment.objects.get(complaint=c)
    assert (att.file.name, att.original_name) == ("", "")
    assert ComplaintMessage.objects.filter(complaint=c).exclude(text="[anonymised]").count() == 0
    # AML records untouched so far
    assert IdentificationCheck.objects.get(pk=a["check"].pk).document_number == a["number"]
    assert all(os.path.exists(p) for p in a["images"])

    # AML law: 5 years here -> last day 15 March 2031
    assert run_job_at(2031, 3, 15, 23, 59, 59) == 0
    assert IdentificationCheck.objects.get(pk=a["check"].pk).extracted
    assert all(os.path.exists(p) for p in a["images"])
    assert run_job_at(2031, 3, 16, 0, 0, 0) == 0
    check = IdentificationCheck.objects.get(pk=a["check"].pk)
    assert (check.document_number, check.document_issuing_authority, check.extracted, check.provider_check_id) == (
        "",
        "",
        {},
        "",
    )
    assert check.status == "approved"  # that it took place, and its outcome, stay
    assert not any(os.path.exists(p) for p in a["images"])
    assert set(IdentificationImage.objects.filter(identification=check).values_list("file", flat=True)) == {""}
    events = IdentificationEvent.objects.filter(identification=check)
    assert events.exists() and set(events.values_list("raw_body", flat=True)) == {""}
    assert PepDeclaration.objects.get(player=pa).position == ""
    assert SourceOfFundsDeclaration.objects.get(player=pa).description == "[anonymised]"
    assert ScreeningRun.objects.get(player=pa).matches == []
    assert set(ComplianceCase.objects.filter(player=pa).values_list("summary", flat=True)) == {"[anonymised]"}
    # payments untouched so far
    assert PaymentMethod.objects.get(pk=a["method"].pk).holder_name == "Holder ALPHA"
    assert os.path.exists(a["document_file"])

    # accounting: 5 years from the end of 2026 -> last day 31 December 2031 (and the AML period has passed)
    assert run_job_at(2031, 12, 31, 23, 59, 59) == 0
    assert PaymentMethod.objects.get(pk=a["method"].pk).iban.startswith("CZ65")
    assert os.path.exists(a["document_file"])
    assert PersonalData.objects.get(player=pa).surname != "[anonymised]"
    ledger = list(LedgerTransaction.objects.filter(player=pa).values())
    assert run_job_at(2032, 1, 1, 0, 0, 0) == 1
    m = PaymentMethod.objects.get(pk=a["method"].pk)
    assert (m.iban, m.holder_name) == ("", "") and m.identifier == f"#{m.pk} ****1234/0800"
    assert not os.path.exists(a["document_file"])
    assert MethodDocument.objects.get(pk=a["document"].pk).original_name == ""
    assert Deposit.objects.get(pk=a["deposit"].pk).payer is None
    assert Deposit.objects.get(pk=a["deposit"].pk).amount == 10_000  # accounting keeps the amounts
    assert ProviderEvent.objects.get(provider_txn_id="ev-ALPHA").raw_body == ""
    assert list(LedgerTransaction.objects.filter(player=pa).values()) == ledger  # the ledger is not touched
    pa.refresh_from_db()
    assert pa.anonymised_at == prague(2032, 1, 1)
    assert PersonalData.objects.get(player=pa).surname == "[anonymised]"
    groups = dict(PersonalDataErasure.objects.filter(player=pa).values_list("retention", "erased_at"))
    assert groups == {
        "gambling": prague(2029, 3, 16),
        "aml": prague(2031, 3, 16),
        "accounting+aml": prague(2032, 1, 1),
        "accounting+aml+gambling": prague(2032, 1, 1),
    }
    assert run_job_at(2032, 1, 2, 0, 0, 0) == 0  # safe to run twice

    # the open account of the other player: nothing of it changed, every file still there
    assert Complaint.objects.get(pk=b["complaint"].pk).description == "Complaint BRAVO"
    assert IdentificationCheck.objects.get(pk=b["check"].pk).document_number == b["number"]
    assert all(os.path.exists(p) for p in [*b["images"], b["document_file"], b["attachment_file"]])
    assert PaymentMethod.objects.get(pk=b["method"].pk).holder_name == "Holder BRAVO"
    assert not PersonalDataErasure.objects.filter(player=pb).exists()


def test_the_erasures_tell_the_recipients_that_received_the_records(commit):
    """GP §12(7): those who received the data are told: the identification provider of the AML records, the payment
    providers of the payments, e-mail delivery of the complaints and the account; an authority is not (by law)."""
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
    close(a["player"])
    run_job_at(2029, 3, 16)
    notices = RecipientNotice.objects.filter(player=a["player"])
    assert {(n.recipient, n.reference) for n in notices} == {("email_delivery", "erasure:gambling")}
    run_job_at(2032, 1, 1)
    got = {(n.recipient, n.reference, tuple(n.records)) for n in notices.all()}
    assert got == {
        ("email_delivery", "erasure:gambling", ("complaints.complaints",)),
        ("identification_provider", "erasure:aml", ("aml.identification",)),
        ("payment_provider", "erasure:accounting+aml", ("wallet.payment_methods", "wallet.payments")),
        ("email_delivery", "erasure:accounting+aml+gambling", ("accounts.personal_data",)),  # no inbox messages
        ("sms_gateway", "erasure:accounting+aml+gambling", ("accounts.personal_data",)),
    }
    mail.outbox.clear()
    with time_machine.travel(prague(2032, 1, 1, 0, 10), tick=False):
        assert services.recipient_notices_send_due() == {"sent": 5, "failed": 0, "not_due": 0}
        assert services.recipient_notices_send_due()["sent"] == 0  # each once
    to = sorted(str(m.to[0]) for m in mail.outbox)
    assert to == sorted(
        [
            "privacy@mail-delivery.example",
            "privacy@identification-provider.example",
            "privacy@payment-provider.example",
            "privacy@mail-delivery.example",
            "privacy@sms-gateway.example",
        ]
    )
    body = "\n".join(str(m.body) for m in mail.outbox)
    assert f"{a['player'].pk}" in body and "ALPHA" not in body and a["number"] not in body  # no personal value


def test_a_correction_is_notified_to_the_recipients_of_the_personal_data_with_the_fields_only():
    """GP §12(7): a correction of the personal data is told to e-mail delivery and the SMS gateway (the recipients
    of accounts.personal_data that are notified), naming the fields, not the values."""
    player = make_player()
    req = services.correction_request_create(
        player=player, changes={"phone": "+420777123456"}, note="new phone", actor=Actor.player(player)
    )
    services.correction_approve(request=req, actor=Actor.staff(make_staff()))
    notices = RecipientNotice.objects.filter(player=player, event="correction")
    assert {n.recipient for n in notices} == {"email_delivery", "sms_gateway"}
    assert all(n.fields == ["phone"] and n.sent_at is None for n in notices)
    mail.outbox.clear()
    assert services.recipient_notices_send_due()["sent"] == 2
    assert all("phone" in m.body and "777123456" not in m.body for m in mail.outbox)


def test_a_failed_notice_is_retried_after_the_retry_time(settings, monkeypatch):
    player = make_player()
    services.correction_approve(
        request=services.correction_request_create(
            player=player, changes={"phone": "+420777123457"}, note="", actor=Actor.player(player)
        ),
        actor=Actor.staff(make_staff()),
    )
    import accounts.services.recipients as rec

    def refuse(*args, **kwargs):
        raise OSError("mail server down")

    monkeypatch.setattr(rec, "send_mail", refuse)
    start = clock.now()
    assert services.recipient_notices_send_due(now=start)["failed"] == 2
    n = RecipientNotice.objects.filter(player=player).first()
    assert n is not None and n.last_error == "mail server down" and n.attempts == 1 and n.sent_at is None
    monkeypatch.undo()
    retry = timedelta(minutes=settings.PRIVACY_NOTICE_RETRY_MINUTES)
    assert services.recipient_notices_send_due(now=start + retry - timedelta(seconds=1))["sent"] == 0
    assert services.recipient_notices_send_due(now=start + retry)["sent"] == 2


# The export (GP §12(7)a) -------------------------------------------------------------------------------------------
def test_the_export_holds_each_apps_part_through_the_api_and_nothing_of_another_player(commit):
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
        b = rich_player("BRAVO", commit)
        r = api(a["player"]).get("/api/v1/accounts/me/export")
    assert r.status_code == 200, r.content
    data = r.json()
    # accounts' own part stays at the top level
    assert {"account", "personal_data", "consents", "data_requests", "history"} <= set(data)
    assert {"aml", "wallet", "complaints", "games", "limits", "jackpots", "retention", "withheld", "recipients"} <= set(
        data
    )
    ident = data["aml"]["identifications"][0]
    assert ident["document_number"] == a["number"] and ident["document_issuing_authority"] == "MěÚ ALPHA"
    assert ident["extracted"]["surname"] and ident["status"] == "approved"
    assert {i["side"] for i in ident["images"]} == {"front", "back", "selfie"}
    assert "score" not in ident and "note" not in ident
    assert data["aml"]["pep_declarations"][0]["position"] == "Starosta ALPHA"
    assert data["aml"]["source_of_funds_declarations"][0]["description"] == "Dědictví ALPHA"
    assert [s["result"] for s in data["aml"]["screenings"]].count("review") == 1
    assert data["wallet"]["payment_methods"][0]["holder_name"] == "Holder ALPHA"
    assert data["wallet"]["payment_methods"][0]["documents"][0]["name"] == "statement-ALPHA.pdf"
    assert data["wallet"]["deposits"][0]["payer"]["name"] == "Payer ALPHA"
    complaint = data["complaints"]["complaints"][0]
    assert complaint["description"] == "Complaint ALPHA"
    assert complaint["attachments"][0]["name"] == "proof-ALPHA.pdf"
    assert {row["record"] for row in data["retention"]} >= {
        "aml.identification",
        "wallet.payment_methods",
        "complaints.complaints",
        "accounts.personal_data",
    }
    assert {w["app"] for w in data["withheld"]} >= {"aml", "wallet", "complaints"}
    dumped = json.dumps(data, ensure_ascii=False)
    # never another player's data, never what the AML law withholds (the case, the matched list entry)
    assert "BRAVO" not in dumped and b["number"] not in dumped
    assert "list match ALPHA" not in dumped and "E-ALPHA" not in dumped and "Listed ALPHA" not in dumped
    # the player downloads their own images; another player's path is not found
    with time_machine.travel(prague(2026, 3, 2, 13, 0), tick=True):
        got = api(a["player"]).get(ident["images"][0]["download"])
        assert got.status_code == 200 and got["Content-Disposition"].startswith("attachment")
        assert _content(got) in (JPEG, PNG)
        assert api(b["player"]).get(ident["images"][0]["download"]).status_code == 404
        assert api(a["player"]).get(f"/api/v1/aml/identifications/{a['check'].pk}/images/x%00").status_code == 404
        got = api(a["player"]).get(complaint["attachments"][0]["download"])
        assert got.status_code == 200 and _content(got) == PDF


def test_after_the_aml_period_the_export_says_the_images_are_gone_and_their_download_is_not_found(commit):
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
    close(a["player"])
    run_job_at(2031, 3, 16)
    part = selectors.personal_data_export(a["player"])["aml"]["identifications"][0]
    assert part["document_number"] == "" and part["extracted"] == {}
    assert all(i["available"] is False and i["download"] is None for i in part["images"])
    rows = {r["record"]: r for r in selectors.personal_data_export(a["player"])["retention"]}
    assert rows["aml.identification"]["erased_at"] == prague(2031, 3, 16)
    assert rows["accounts.personal_data"]["erased_at"] is None
    assert rows["accounts.personal_data"]["erase_from"] == prague(2032, 1, 1)


# Fail closed -----------------------------------------------------------------------------------------------------
def test_the_platform_does_not_start_and_exports_nothing_when_an_app_registers_no_contract(monkeypatch):
    assert privacy_contract.problems() == []
    monkeypatch.delitem(privacy_contract._contracts, "aml")
    monkeypatch.setattr(privacy_contract, "_verified", False)
    found = privacy_contract.problems()
    assert {p.id for p in found} == {"accounts.E002", "accounts.E003"}  # aml models undeclared, its recipient's
    assert any("aml.IdentificationImage" in p.msg and "registers no privacy contract" in str(p.hint) for p in found)
    with pytest.raises(SystemCheckError):
        call_command("check")
    with pytest.raises(HookMissing):
        selectors.personal_data_export(make_player())
    with pytest.raises(HookMissing):
        services.personal_data_anonymise_due()


def test_a_model_holding_personal_data_left_out_of_every_record_stops_the_platform(monkeypatch):
    from dataclasses import replace

    from complaints.privacy import CONTRACT

    record = CONTRACT.records[0]
    smaller = replace(
        CONTRACT,
        records=(replace(record, models=tuple(m for m in record.models if m != "complaints.ComplaintAttachment")),),
    )
    monkeypatch.setitem(privacy_contract._contracts, "complaints", smaller)
    monkeypatch.setattr(privacy_contract, "_verified", False)
    msgs = [str(p.msg) for p in privacy_contract.problems()]
    assert msgs == [
        "model complaints.ComplaintAttachment holds a participant's data but no privacy record declares "
        "it (retention, export, anonymisation)"
    ]


def test_every_model_pointing_at_a_player_or_storing_files_is_found():
    found = privacy_contract.personal_models()
    assert {
        "aml.IdentificationImage",
        "wallet.MethodDocument",
        "complaints.ComplaintAttachment",
        "wallet.Entry",
        "jackpots.Contribution",
        "limits.PanicReport",
        "games.RoundAction",
    } <= found
    assert "accounts.TermsVersion" not in found and "jackpots.Jackpot" not in found


# The answer to a deletion request --------------------------------------------------------------------------------
def test_a_deletion_request_is_answered_with_exactly_what_is_erased_now_and_when_the_rest_goes(commit):
    """Past the complaints' period but within the AML one: the complaints are anonymised now, the answer lists them
    and names the day of each of the other records."""
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
    close(a["player"])
    staff = Actor.staff(make_staff())
    with time_machine.travel(prague(2030, 6, 1, 12, 0), tick=False):
        req = services.data_request_create(player=a["player"], kind="deletion", text="", actor=staff, channel="staff")
        with commit():
            services.data_request_decide(request=req, outcome="granted", actor=staff)
    req.refresh_from_db()
    assert req.state == "partly_granted" and str(req.erase_on) == "2032-01-01"
    body = Message.objects.get(reference=f"accounts.data_request:{req.pk}:decided").body_en
    now_part = body.split("Anonymised now")[1].split("The data the law requires")[0]
    assert "complaints and win claims" in now_part and "self-limits" in now_part
    assert "AML identification" not in now_part
    assert "- AML identification: the document particulars" in body and "on 2031-03-16" in body
    assert "- payment methods (account number, IBAN, holder)" in body and "on 2032-01-01" in body
    assert "What stays after the anonymisation" in body
    # and it was done: the complaint is anonymised, its file gone; the AML records are kept
    assert Complaint.objects.get(pk=a["complaint"].pk).description == "[anonymised]"
    assert not os.path.exists(a["attachment_file"])
    assert IdentificationCheck.objects.get(pk=a["check"].pk).document_number == a["number"]


# The published list of recipients (GP §12(4)) ---------------------------------------------------------------------
def test_the_privacy_notice_publishes_the_recipients_and_every_declared_record_with_its_retention():
    """GP §12(4): the processors the operator appointed are named to the players (with the other recipients)."""
    r = api().get("/api/v1/accounts/privacy")
    assert r.status_code == 200
    data = r.json()
    codes = {x["code"]: x for x in data["recipients"]}
    assert {
        "identification_provider",
        "payment_provider",
        "email_delivery",
        "sms_gateway",
        "population_register",
        "exclusion_register",
    } <= set(codes)
    assert codes["identification_provider"]["records"] == ["aml.identification"]
    assert codes["exclusion_register"]["notify"] is False and "contact" not in codes["exclusion_register"]
    records = {x["record"]: x for x in data["records"]}
    assert records["complaints.complaints"]["years"] == 3 and records["aml.identification"]["years"] == 5
    assert records["wallet.payments"]["periods"] == ["accounting", "aml"]
    assert any("253/2008" in s for s in records["aml.identification"]["sources_en"])


def test_a_real_deposit_links_its_provider_callback_to_the_player_and_masks_the_number_in_the_ledger_memo():
    """The callback's raw body (the payer's data) is erased with the payments because it knows whose it is; the
    ledger (append-only, kept) names the method only masked."""
    from tests.kit.money import czk
    from tests.kit.wallet import deposit, verified_bank

    player = make_player()
    method = verified_bank(player)
    d = deposit(player, method, czk(100))
    assert d.status == "confirmed"
    event = ProviderEvent.objects.get(event_type="payment.succeeded", raw_body__contains=d.payment_reference)
    assert event.player_id == player.pk
    memo = LedgerTransaction.objects.get(kind="deposit", reference=d.payment_reference).memo
    number, bank_code = method.identifier.split("/")
    assert number not in memo and memo.endswith(f"#{method.pk} ****{number[-4:]}/{bank_code}")
    close(player)
    assert run_job_at(2036, 12, 1) == 1
    assert ProviderEvent.objects.get(pk=event.pk).raw_body == ""
    assert Deposit.objects.get(pk=d.pk).payer is None and Deposit.objects.get(pk=d.pk).amount == 10_000


def test_an_account_anonymised_before_the_contract_gets_the_other_apps_records_anonymised_and_keeps_its_own(commit):
    """The security review's case (N-4): an account the earlier job anonymised, its AML identification and images
    still there. The job now anonymises them; the account's own anonymisation is not repeated."""
    with time_machine.travel(prague(2026, 3, 2, 12, 0), tick=True):
        a = rich_player("ALPHA", commit)
    close(a["player"])
    Player.objects.filter(pk=a["player"].pk).update(anonymised_at=prague(2032, 1, 1))  # as the earlier job did
    assert run_job_at(2032, 1, 2) == 1
    assert IdentificationCheck.objects.get(pk=a["check"].pk).document_number == ""
    assert not any(os.path.exists(p) for p in [*a["images"], a["document_file"], a["attachment_file"]])
    a["player"].refresh_from_db()
    assert a["player"].anonymised_at == prague(2032, 1, 1)
    assert PersonalData.objects.get(player=a["player"]).surname != "[anonymised]"  # the fixture's, not re-done
    assert PersonalDataErasure.objects.filter(player=a["player"]).count() == 4
    assert run_job_at(2032, 1, 3) == 0


# The bank's records of no player, and the bank files themselves ---------------------------------------------------
def _bank_money() -> dict[str, Any]:
    """What a re-import must not change: the ledger, and the balance of every ledger account."""
    from wallet.models import LedgerAccount

    return {
        "transactions": LedgerTransaction.objects.count(),
        "balances": dict(LedgerAccount.objects.values_list("pk", "balance")),
    }


def test_bank_lines_of_no_player_and_the_bank_files_go_after_ten_years_from_booking_and_a_reimport_changes_nothing(
    settings, commit
):
    """GP §12(5), AML Act §16(1) (10 years from a transaction outside a business relationship), Accounting Act
    §31(2)b: a stranger's credit returned to him, its return order, the bank's debit of that order and a fee lose the
    payer's name, account and message from 00:00 Prague after ten years from their booking day; a statement file is
    deleted, and a payment-order file blanked, once every line it holds is past its period (a player's line: the
    player's payments anonymised; a credit still waiting for staff: never). The same statement imported again after
    its file is gone moves no money and brings nothing back."""
    from tests.kit.money import czk
    from tests.kit.wallet import SYSTEM, bank, bank_number
    from wallet.methods import czech_account_iban
    from wallet.models import BankEntry, BankStatement, PaymentOrder, PaymentOrderBatch
    from wallet.selectors import player_identity
    from wallet.services import bank_credit_return, bank_payment_order_export, bank_statement_import, deposit_start
    from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt, pain_transfers

    settings.ACCOUNTS_RETENTION_AML_YEARS = 10  # the law's; decides over accounting (5 years from the year's end)
    settings.WALLET_PROVIDER_BY_KIND = {"bank_account": "bank"}
    settings.WALLET_BANK_IBAN = OPERATOR_IBAN
    settings.WALLET_BANK_BIC = ""
    settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_NAME
    stranger_iban = czech_account_iban(bank_number("0300"))
    stranger_other = czech_account_iban(bank_number("0300"))

    def imported(raw: bytes) -> dict[str, Any]:
        with commit():
            return bank_statement_import(raw=raw, name="statement.xml", actor=SYSTEM)[1]

    def player_paying(booked: str) -> tuple[Player, Tx]:
        p = make_player()
        method = bank(p, bank_number("0800"))
        d = deposit_start(player=p, method=method, amount=czk(500), reference=f"dep-{next(_n)}", actor=Actor.player(p))
        identity = player_identity(p)
        assert identity is not None
        return p, Tx(
            "500.00",
            vs=d.payment_reference,
            name=f"{identity.given_names} {identity.surname}",
            iban=method.iban,
            booked=booked,
        )

    with time_machine.travel(prague(2026, 12, 3, 12, 0), tick=False):
        ended, ended_tx = player_paying("2026-12-03")
        credit = Tx(
            "1000.00", vs="5555555555", name="Petr Svoboda", iban=stranger_iban, message="za Petra", booked="2026-12-03"
        )
        raw1 = camt([credit, ended_tx])  # a stranger's credit and the line of a player whose account ends today
        assert imported(raw1)["by_status"] == {"unmatched": 1, "confirmed": 1}
        stranger = BankEntry.objects.get(bank_reference=credit.ref)
        bank_credit_return(entry=stranger, reason="neznámý plátce", actor=SYSTEM)
        batch = bank_payment_order_export(actor=SYSTEM)
        assert batch is not None
        [order] = pain_transfers(batch.xml)
        close(ended, at=prague(2026, 12, 3, 18, 0))
        stays, stays_tx = player_paying("2026-12-03")  # stays open
        waiting = Tx("300.00", name="Eva Malá", iban=stranger_other, message="pro Evu", booked="2026-12-03")
        fee = Tx("25.00", direction="DBIT", name="Fio banka", message="poplatek", booked="2026-12-03")
        raw3 = camt([stays_tx, waiting, fee], kind="054")
        assert imported(raw3)["by_status"] == {"confirmed": 1, "unmatched": 1, "other": 1}
    with time_machine.travel(prague(2026, 12, 4, 12, 0), tick=False):
        debit = Tx(
            "1000.00",
            direction="DBIT",
            e2e=order["end_to_end_id"],
            name="Petr Svoboda",
            iban=stranger_iban,
            booked="2026-12-04",
        )
        raw2 = camt([debit])
        assert imported(raw2)["by_status"] == {"settled": 1}
    stmt1, stmt2, stmt3 = (BankStatement.objects.get(sha256=hashlib.sha256(r).hexdigest()) for r in (raw1, raw2, raw3))
    paths = {s.pk: s.file.path for s in (stmt1, stmt2, stmt3)}
    returned = BankEntry.objects.get(bank_reference=credit.ref)
    assert returned.status == BankEntry.Status.RETURNED_TO_PAYER and returned.player_id is None
    po = PaymentOrder.objects.get(credit=returned)
    assert po.status == PaymentOrder.Status.SETTLED and po.player_id is None

    def entry(tx: Tx) -> tuple[str, str, str, str]:
        e = BankEntry.objects.get(bank_reference=tx.ref)
        return e.counterparty_name, e.counterparty_iban, e.counterparty_account, e.remittance

    # 10 years from 3 December 2026: the last day is 3 December 2036
    run_job_at(2036, 12, 3, 23, 59, 59)
    assert entry(credit) == ("Petr Svoboda", stranger_iban, stranger_iban, "5555555555 | za Petra")
    assert entry(fee)[0] == "Fio banka" and entry(ended_tx)[1]
    assert all(os.path.exists(p) for p in paths.values())
    assert not PersonalDataErasure.objects.filter(player=ended, retention="accounting+aml").exists()

    run_job_at(2036, 12, 4, 0, 0, 0)
    assert entry(credit) == ("", "", "", "")
    assert entry(fee) == ("", "", "", "")
    assert entry(ended_tx) == ("", "", "", "")  # the ended player's payments: the IBAN goes with the name now
    assert BankEntry.objects.get(bank_reference=credit.ref).amount == 100_000  # accounting keeps the amounts
    assert not os.path.exists(paths[stmt1.pk])  # both its lines are past: the stranger's, the ended player's
    stmt1.refresh_from_db()
    assert stmt1.file.name == "" and stmt1.sha256 == hashlib.sha256(raw1).hexdigest()
    # booked a day later: the debit that paid the stranger back, the return order and its file
    assert entry(debit)[0] == "Petr Svoboda" and os.path.exists(paths[stmt2.pk])
    po.refresh_from_db()
    assert (po.creditor_name, po.creditor_iban) == ("Petr Svoboda", stranger_iban)
    assert PaymentOrderBatch.objects.get(pk=batch.pk).xml == batch.xml
    # an open player's line and a credit still waiting for staff keep the third file and their data
    assert entry(stays_tx)[1] and entry(waiting)[:3] == ("Eva Malá", stranger_other, stranger_other)
    assert os.path.exists(paths[stmt3.pk])

    run_job_at(2036, 12, 5, 0, 0, 0)
    assert entry(debit) == ("", "", "", "") and not os.path.exists(paths[stmt2.pk])
    po.refresh_from_db()
    assert (po.creditor_name, po.creditor_iban, po.creditor_account) == (
        "[anonymised]",
        "",
        f"****{stranger_iban[-4:]}",
    )
    blank = PaymentOrderBatch.objects.get(pk=batch.pk)
    assert blank.xml == "" and (blank.sha256, blank.count, blank.control_sum) == (batch.sha256, 1, 100_000)
    assert os.path.exists(paths[stmt3.pk]) and entry(waiting)[0] == "Eva Malá" and entry(stays_tx)[1]
    assert run_job_at(2036, 12, 6) == 0  # safe to run twice

    # the same statement again: recognised by its hash, every line handled already; no money moves, no file back
    money = _bank_money()
    with time_machine.travel(prague(2036, 12, 7, 9, 0), tick=False):
        summary = imported(raw1)
    assert summary["this_run"] == {"duplicate": 2} and _bank_money() == money
    assert BankStatement.objects.count() == 3 and BankStatement.objects.get(pk=stmt1.pk).file.name == ""
    assert entry(credit) == ("", "", "", "") and not os.path.exists(paths[stmt1.pk])
    call_command("ledger_check", verbosity=0)
