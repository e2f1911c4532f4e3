"""Online AML identification (GP §4(4)b): document images and a likeness check through the identification
provider; its signed answers; the staff review queue for doubtful results."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from accounts.models import Player
from aml import errors
from aml.adapters import SIGNATURE_HEADER, sandbox_identification_event
from aml.models import IdentificationCheck, IdentificationEvent
from aml.services import (
    identification_callback_handle,
    identification_review,
    identification_start,
    identification_submit_due,
)
from core import clock
from core.audit import Actor
from core.errors import FORBIDDEN, VALIDATION, DomainError
from core.models import AuditEvent, SecurityEventWindow
from tests.kit.aml import JPEG, PDF, PNG, applicant, client, document, images, make_staff, upload_body

pytestmark = pytest.mark.django_db
API = "/api/v1/aml"


def code(r) -> str:
    return r.json()["error"]["code"]


def start(player, number=None, commit=None, **doc_overrides):
    """Start a check as the player (services); with ``commit`` the submission and the answer run after commit."""
    doc = document(number, **doc_overrides)
    if commit is None:
        return identification_start(player=player, document=doc, images=images(), actor=Actor.player(player))
    with commit():
        check = identification_start(player=player, document=doc, images=images(), actor=Actor.player(player))
    check.refresh_from_db()
    return check


def test_an_approved_identification_makes_the_player_aml_identified_through_the_api(commit):
    """GP §4(4)b: the applicant presents the document (front, back) and a selfie; the provider answers later."""
    player = applicant()
    with commit():
        r = client(player).post(f"{API}/identifications", upload_body(document()), format="multipart")
    assert r.status_code == 201, r.content
    assert r.json()["status"] == "pending"  # the answer comes asynchronously
    check = IdentificationCheck.objects.get(pk=r.json()["id"])
    assert check.status == "approved" and check.score == 93 and check.provider_check_id.startswith("sbxid_")
    assert {i.side for i in check.images.all()} == {"front", "back", "selfie"}
    player.refresh_from_db()
    assert player.aml_identified_at is not None and player.status == "temporary"
    assert client(player).get(f"{API}/identifications/{check.pk}").json()["status"] == "approved"
    actions = list(
        AuditEvent.objects.filter(object_id__in=[str(check.pk), str(player.pk)]).values_list("action", flat=True)
    )
    assert {
        "aml.identification_started",
        "aml.identification_submitted",
        "aml.identification_answered",
        "accounts.identity.verified_online",
    } <= set(actions)


def test_a_register_match_alone_leaves_the_aml_step_missing_until_the_provider_approves(commit):
    """The population register does not identify: the completion step stays missing (the account temporary)."""
    from accounts.selectors import registration_steps

    player = applicant()
    assert "aml_identification" in registration_steps(player)["missing"]
    start(player, commit=commit)
    player.refresh_from_db()
    assert "aml_identification" not in registration_steps(player)["missing"]


@pytest.mark.parametrize(
    ("number", "status", "reasons"),
    [
        ("AB1234DBT", "doubtful", ["likeness_uncertain"]),
        ("AB1234REJ", "rejected", ["document_not_authentic"]),
        ("AB1234MIS", "doubtful", ["surname_mismatch"]),
    ],
)
def test_each_sandbox_outcome_is_recorded_and_only_an_approval_identifies(commit, number, status, reasons):
    player = applicant()
    check = start(player, number, commit=commit)
    assert (check.status, check.reasons) == (status, reasons)
    player.refresh_from_db()
    assert player.aml_identified_at is None


def test_an_approval_below_the_minimum_score_goes_to_staff_review(commit, settings):
    settings.AML_IDENTIFICATION_MIN_SCORE = 94  # the sandbox approves with 93
    below = start(applicant(), commit=commit)
    settings.AML_IDENTIFICATION_MIN_SCORE = 93
    at = start(applicant(), commit=commit)
    assert (below.status, below.reasons) == ("doubtful", ["score_below_minimum"])
    assert at.status == "approved"


def test_staff_approve_a_doubtful_check_with_a_note_and_the_player_is_identified(commit):
    player = applicant()
    check = start(player, "AB5555DBT", commit=commit)
    staff = make_staff(role="compliance")
    cs = client(staff)
    queue = cs.get(f"{API}/staff/identifications").json()
    assert check.pk in [c["id"] for c in queue["results"]]
    r = cs.post(f"{API}/staff/identifications/{check.pk}/review", {"approve": True, "note": ""}, format="json")
    assert r.status_code == 400  # a note is required
    r = cs.post(
        f"{API}/staff/identifications/{check.pk}/review",
        {"approve": True, "note": "likeness checked against the photo"},
        format="json",
    )
    assert r.status_code == 200 and r.json()["status"] == "approved" and r.json()["decided_by"] == staff.username
    player.refresh_from_db()
    assert player.aml_identified_at is not None
    assert AuditEvent.objects.filter(action="aml.identification_reviewed", actor_label=staff.username).exists()
    r = cs.post(f"{API}/staff/identifications/{check.pk}/review", {"approve": False, "note": "again"}, format="json")
    assert r.status_code == 409 and code(r) == errors.IDENTIFICATION_STATE.code


def test_staff_reject_a_doubtful_check_and_the_player_may_try_again(commit):
    player = applicant()
    check = start(player, "AB6666DBT", commit=commit)
    identification_review(check=check, approve=False, note="the face does not match", actor=Actor.staff(make_staff()))
    check.refresh_from_db()
    player.refresh_from_db()
    assert check.status == "rejected" and player.aml_identified_at is None
    again = start(player, commit=commit)
    assert again.status == "approved"


def test_the_review_needs_a_note_and_refuses_a_check_that_is_not_doubtful(commit):
    check = start(applicant(), commit=commit)
    staff = Actor.staff(make_staff())
    with pytest.raises(DomainError) as e:
        identification_review(check=check, approve=True, note="  ", actor=staff)
    assert e.value.code == errors.NOTE_REQUIRED.code
    with pytest.raises(DomainError) as e:
        identification_review(check=check, approve=True, note="ok", actor=staff)
    assert e.value.code == errors.IDENTIFICATION_STATE.code


# The provider's callbacks --------------------------------------------------------------------------------------------


def _submitted(player):
    """A check the provider has taken but not answered yet (the sandbox's own answer is not delivered)."""
    check = start(player)
    check.status, check.provider_check_id = IdentificationCheck.Status.SUBMITTED, "sbxid_x"
    check.save(update_fields=["status", "provider_check_id"])
    return check


@pytest.mark.django_db(databases=["default", "refusal_log"])
def test_a_callback_with_a_bad_signature_is_refused_changes_nothing_and_is_recorded():
    assert SIGNATURE_HEADER == "X-Signature"  # sent below as HTTP_X_SIGNATURE
    player = applicant()
    check = _submitted(player)
    body, sig = sandbox_identification_event(check.reference, "approved", score=99)
    r = client().post(
        f"{API}/callbacks/sandbox",
        body,
        content_type="application/json",
        HTTP_X_SIGNATURE=sig[:-1] + ("0" if sig[-1] != "0" else "1"),
    )
    assert r.status_code == 401 and code(r) == errors.BAD_SIGNATURE.code
    r = client().post(f"{API}/callbacks/sandbox", body, content_type="application/json")  # no signature at all
    assert r.status_code == 401
    check.refresh_from_db()
    player.refresh_from_db()
    assert check.status == "submitted" and player.aml_identified_at is None
    assert not IdentificationEvent.objects.exists()
    refused = AuditEvent.objects.using("refusal_log").filter(
        action="security.callback_refused", details__tried__startswith="POST aml/callbacks/sandbox"
    )
    # one audit event per source and window, the repeat counted
    assert refused.count() == 1
    assert SecurityEventWindow.objects.using("refusal_log").get(action="security.callback_refused").count == 2


@pytest.mark.django_db(databases=["default", "refusal_log"])
def test_a_duplicate_callback_is_harmless_and_a_changed_replay_is_refused():
    player = applicant()
    check = _submitted(player)
    body, sig = sandbox_identification_event(check.reference, "approved", score=95, event_id="evt-1")
    first = client().post(f"{API}/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=sig)
    assert first.json() == {"status": "processed", "event_id": "evt-1", "result": "approved"}
    player.refresh_from_db()
    identified_at = player.aml_identified_at
    again = client().post(f"{API}/callbacks/sandbox", body, content_type="application/json", HTTP_X_SIGNATURE=sig)
    assert again.status_code == 200 and again.json() == {
        "status": "duplicate",
        "event_id": "evt-1",
        "result": "approved",
    }
    changed, sig2 = sandbox_identification_event(check.reference, "rejected", score=5, event_id="evt-1")
    r = client().post(f"{API}/callbacks/sandbox", changed, content_type="application/json", HTTP_X_SIGNATURE=sig2)
    assert r.status_code == 409 and code(r) == errors.REPLAY_MISMATCH.code
    check.refresh_from_db()
    player.refresh_from_db()
    assert check.status == "approved" and player.aml_identified_at == identified_at
    assert AuditEvent.objects.filter(action="accounts.identity.verified_online").count() == 1
    assert AuditEvent.objects.using("refusal_log").filter(action="security.callback_replayed").count() == 1


def test_a_later_answer_for_a_decided_check_and_an_unknown_reference_are_recorded_and_ignored():
    player = applicant()
    check = _submitted(player)
    for event_id, outcome in (("e1", "approved"), ("e2", "rejected")):
        body, sig = sandbox_identification_event(check.reference, outcome, score=95, event_id=event_id)
        identification_callback_handle(provider="sandbox", raw_body=body, signature=sig)
    check.refresh_from_db()
    assert check.status == "approved"
    assert IdentificationEvent.objects.get(event_id="e2").result == "ignored_approved"
    body, sig = sandbox_identification_event("idc_nobody", "approved", event_id="e3")
    assert (
        identification_callback_handle(provider="sandbox", raw_body=body, signature=sig)["result"]
        == "unknown_reference"
    )


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"[]",
        b'{"event_id": 1}',
        b"not json",
        b'{"event_id": "x", "type": "identification.completed", "reference": "r", "outcome": "maybe", "score": 5}',
    ],
)
def test_a_malformed_but_signed_callback_is_a_400(body):
    from django.conf import settings

    from aml.adapters import hmac_signature

    r = client().post(
        f"{API}/callbacks/sandbox",
        body,
        content_type="application/json",
        HTTP_X_SIGNATURE=hmac_signature(settings.AML_SANDBOX_SECRET, body),
    )
    assert r.status_code == 400 and code(r) == errors.BAD_CALLBACK.code


def test_an_unknown_provider_is_a_404_and_a_disabled_sandbox_refuses(settings):
    assert client().post(f"{API}/callbacks/nobody", b"{}", content_type="application/json").status_code == 404
    settings.AML_SANDBOX_ENABLED = False
    r = client().post(f"{API}/callbacks/sandbox", b"{}", content_type="application/json")
    assert r.status_code == 404 and code(r) == errors.SANDBOX_DISABLED.code


# Failures of the provider are retried -------------------------------------------------------------------------------


def test_a_submission_the_provider_refuses_is_retried_with_back_off_then_answered(commit, settings):
    settings.AML_SANDBOX_UNAVAILABLE = True
    player = applicant()
    t0 = clock.now().replace(microsecond=0)
    with time_machine.travel(t0, tick=False):
        check = start(player, commit=commit)
    assert (check.status, check.attempts, check.next_attempt_at) == ("pending", 1, t0 + timedelta(minutes=5))
    assert check.last_error
    settings.AML_SANDBOX_UNAVAILABLE = False
    with time_machine.travel(t0 + timedelta(minutes=5) - timedelta(seconds=1), tick=False), commit():
        assert identification_submit_due() == {}  # not due yet
    with time_machine.travel(t0 + timedelta(minutes=5), tick=False), commit():
        assert identification_submit_due() == {"submitted": 1}
    check.refresh_from_db()
    player.refresh_from_db()
    assert check.status == "approved" and check.attempts == 2 and player.aml_identified_at is not None


def test_after_the_last_attempt_the_check_fails_and_the_player_may_start_again(commit, settings):
    settings.AML_IDENTIFICATION_SUBMIT_MAX_ATTEMPTS = 2
    player = applicant()
    with commit():
        check = start(player, "AB7777ERR")  # the sandbox refuses this submission every time
    with time_machine.travel(clock.now() + timedelta(hours=1), tick=False), commit():
        assert identification_submit_due() == {"failed": 1}
    check.refresh_from_db()
    assert check.status == "failed" and check.attempts == 2 and check.next_attempt_at is None
    assert start(player, commit=commit).status == "approved"


# Refusals ------------------------------------------------------------------------------------------------------------


def test_one_open_check_at_a_time_and_none_once_identified(commit):
    player = applicant()
    start(player)
    with pytest.raises(DomainError) as e:
        start(player)
    assert e.value.code == errors.IDENTIFICATION_IN_PROGRESS.code
    done = applicant()
    start(done, commit=commit)
    with pytest.raises(DomainError) as e:
        start(done)
    assert e.value.code == errors.ALREADY_IDENTIFIED.code


@pytest.mark.parametrize("status", ["applicant", "closed", "expired", "rejected"])
def test_an_account_that_is_not_temporary_or_active_cannot_start(status):
    with pytest.raises(DomainError) as e:
        start(applicant(status=status))
    assert e.value.code == errors.IDENTIFICATION_NOT_ALLOWED.code


def test_the_document_must_be_valid_today_expired_yesterday_is_refused():
    today = clock.business_date()
    ok = start(applicant(), document_valid_until=today.isoformat())
    assert ok.document_valid_until == today
    with pytest.raises(DomainError) as e:
        start(applicant(), document_valid_until=(today - timedelta(days=1)).isoformat())
    assert e.value.code == errors.INVALID_DOCUMENT.code
    assert e.value.details["fields"]["document_valid_until"] == ["document_expired"]


def test_images_are_checked_by_content_and_size(settings):
    player = applicant()
    doc = document()
    actor = Actor.player(player)
    for bad, expected in (
        (images(front=PDF), errors.IMAGE_TYPE),
        (images(selfie=None), errors.IMAGE_MISSING),
        (images(back=None), errors.IMAGE_MISSING),
    ):
        with pytest.raises(DomainError) as e:
            identification_start(player=player, document=doc, images=bad, actor=actor)
        assert e.value.code == expected.code
    settings.AML_IDENTIFICATION_IMAGE_MAX_BYTES = len(JPEG)
    with pytest.raises(DomainError) as e:
        identification_start(player=player, document=doc, images=images(front=JPEG + b"\x00"), actor=actor)
    assert e.value.code == errors.IMAGE_TOO_LARGE.code
    assert not IdentificationCheck.objects.filter(player=player).exists()
    check = identification_start(
        player=player, document=doc, images=images(front=JPEG, back=PNG[: len(JPEG)]), actor=actor
    )
    assert check.images.get(side="front").size == len(JPEG)


def test_a_passport_needs_no_back_side():
    player = applicant(personal_data={"foreigner": True})
    check = identification_start(
        player=player,
        document=document(document_type="passport", document_issuing_state="SK"),
        images=images(back=None),
        actor=Actor.player(player),
    )
    assert {i.side for i in check.images.all()} == {"front", "selfie"}


def test_the_api_refuses_bad_input_with_400_and_never_500():
    player = applicant()
    c = client(player)
    r = c.post(f"{API}/identifications", {"document_type": "id_card"}, format="multipart")
    assert r.status_code == 400 and code(r) == VALIDATION.code
    r = c.post(f"{API}/identifications", upload_body(document(), front=PDF), format="multipart")
    assert r.status_code == 400 and code(r) == errors.IMAGE_TYPE.code
    r = c.post(f"{API}/identifications", upload_body(document(document_number="x")), format="multipart")
    assert r.status_code == 400 and code(r) == errors.INVALID_DOCUMENT.code
    assert c.get(f"{API}/identifications").json()["count"] == 0


def test_another_players_identification_is_a_404_and_staff_endpoints_refuse_players_and_anonymous():
    owner = applicant()
    check = start(owner)
    other = applicant()
    assert client(other).get(f"{API}/identifications/{check.pk}").status_code == 404
    assert client(owner).get(f"{API}/identifications/{check.pk}").status_code == 200
    assert client().get(f"{API}/identifications/{check.pk}").status_code == 401
    for method, url in (("get", "staff/identifications"), ("post", f"staff/identifications/{check.pk}/review")):
        assert getattr(client(), method)(f"{API}/{url}", {}, format="json").status_code == 401
        r = getattr(client(owner), method)(f"{API}/{url}", {}, format="json")
        assert r.status_code == 403 and code(r) == FORBIDDEN.code
    assert client(make_staff()).get(f"{API}/identifications").status_code == 403  # staff are not players


def test_identification_completes_the_registration_step_of_a_temporary_player_only_once(commit):
    player = applicant()
    check = start(player, commit=commit)
    player.refresh_from_db()
    first = player.aml_identified_at
    assert Player.objects.get(pk=player.pk).aml_identified_at == first
    body, sig = sandbox_identification_event(check.reference, "approved", event_id="late-dup")
    identification_callback_handle(provider="sandbox", raw_body=body, signature=sig)
    player.refresh_from_db()
    assert player.aml_identified_at == first
