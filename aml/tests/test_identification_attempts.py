"""Identification attempts are limited.

Before: 8 rejected identifications in a row were all accepted (8 x 201), each a paid provider check and up to three
stored 5 MB images. Now at most ``AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY`` (3) in any rolling 24 hours; once that
many were started within 24 hours, every further start is refused (``aml.identification_attempts_exhausted``, Czech
and English) until staff allow new attempts (``POST /api/v1/aml/staff/players/<id>/identification-attempts``,
``aml.review_identification``). A check the provider never answered (``failed``) does not count.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from aml import errors
from aml.models import IdentificationCheck, IdentificationImage
from core import clock
from core.errors import STAFF_PERMISSION_REQUIRED
from core.models import AuditEvent
from tests.kit.aml import applicant, client, document, upload_body
from tests.kit.clients import staff_api_client

pytestmark = pytest.mark.django_db
API = "/api/v1/aml"


def attempt(player, commit, number: str = "AB1234REJ"):
    """One identification started through the API; the sandbox rejects ``...REJ`` (its answer runs after commit)."""
    with commit():
        return client(player).post(f"{API}/identifications", upload_body(document(number)), format="multipart")


def test_the_fourth_attempt_within_24_hours_is_refused_and_stores_nothing(commit):
    player = applicant()
    with time_machine.travel(clock.now(), tick=False) as t:
        for _ in range(3):
            r = attempt(player, commit)
            assert r.status_code == 201, r.content
            t.shift(timedelta(hours=1))
        assert IdentificationCheck.objects.filter(player=player, status="rejected").count() == 3
        images = IdentificationImage.objects.count()
        r = attempt(player, commit)
        assert r.status_code == 409, r.content
        error = r.json()["error"]
        assert error["code"] == errors.IDENTIFICATION_ATTEMPTS_EXHAUSTED.code
        assert "3 během 24 hodin" in error["message_cs"] and "3 within 24 hours" in error["message_en"]
        assert error["details"] == {"max_attempts": 3, "used_last_24h": 3}
        assert IdentificationCheck.objects.filter(player=player).count() == 3
        assert IdentificationImage.objects.count() == images
        status = client(player).get(f"{API}/status").json()["identification_attempts"]
        assert status == {"max_per_day": 3, "used_last_24h": 3, "blocked": True}


def test_the_refusal_stays_after_the_24_hours_until_staff_allow_new_attempts(commit):
    player = applicant()
    with time_machine.travel(clock.now(), tick=False) as t:
        for _ in range(3):
            assert attempt(player, commit).status_code == 201
        t.shift(timedelta(days=3))
        r = attempt(player, commit)
        assert r.status_code == 409 and r.json()["error"]["code"] == errors.IDENTIFICATION_ATTEMPTS_EXHAUSTED.code
        url = f"{API}/staff/players/{player.pk}/identification-attempts"
        cs = staff_api_client(superuser=True)
        assert cs.get(url).json() == {
            "player_id": player.pk,
            "max_per_day": 3,
            "used_last_24h": 0,
            "blocked": True,
            "counted_from": None,
        }
        r = cs.post(url, {"note": ""}, format="json")
        assert r.status_code == 400  # a note is required
        r = cs.post(
            url, {"note": "three rejected attempts reviewed: a blurred photo, the player was told"}, format="json"
        )
        assert r.status_code == 200, r.content
        assert r.json()["blocked"] is False and r.json()["used_last_24h"] == 0 and r.json()["counted_from"]
        assert AuditEvent.objects.filter(
            action="aml.identification_attempts_allowed", details__was_blocked=True
        ).exists()
        t.shift(timedelta(seconds=1))
        assert attempt(player, commit, "AB7777777").status_code == 201  # approved this time
    player.refresh_from_db()
    assert player.aml_identified_at is not None


def test_attempts_further_apart_than_24_hours_are_never_refused(commit):
    """The boundary: three attempts within 24 h refuse the next; the third exactly 24 h after the first does not
    (rolling 24 hours, not the Prague calendar day)."""
    player = applicant()
    with time_machine.travel(clock.now(), tick=False) as t:
        assert attempt(player, commit).status_code == 201
        t.shift(timedelta(hours=12))
        assert attempt(player, commit).status_code == 201
        t.shift(timedelta(hours=12))  # 24:00 after the first
        assert attempt(player, commit).status_code == 201
        t.shift(timedelta(hours=11, minutes=59, seconds=59))  # the last three: 23:59:59 apart
        r = attempt(player, commit)
        assert r.status_code == 201, r.content
        t.shift(timedelta(seconds=1))
        r = attempt(player, commit)
        assert r.status_code == 409 and r.json()["error"]["code"] == errors.IDENTIFICATION_ATTEMPTS_EXHAUSTED.code


def test_a_check_the_provider_never_answered_does_not_count(commit, settings):
    player = applicant()
    with time_machine.travel(clock.now(), tick=False):
        for _ in range(3):
            assert attempt(player, commit).status_code == 201
        IdentificationCheck.objects.filter(player=player).update(status="failed")  # retries exhausted
        assert attempt(player, commit).status_code == 201


def test_the_number_is_a_setting(commit, settings):
    settings.AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY = 1
    player = applicant()
    with time_machine.travel(clock.now(), tick=False):
        assert attempt(player, commit).status_code == 201
        r = attempt(player, commit)
        assert r.status_code == 409 and r.json()["error"]["details"]["max_attempts"] == 1


def test_only_staff_with_the_review_permission_allow_new_attempts(commit):
    player = applicant()
    url = f"{API}/staff/players/{player.pk}/identification-attempts"
    assert client(player).post(url, {"note": "me"}, format="json").status_code == 403
    r = staff_api_client().post(url, {"note": "no role"}, format="json")
    assert r.status_code == 403 and r.json()["error"]["code"] == STAFF_PERMISSION_REQUIRED.code
    assert r.json()["error"]["details"]["permission"] == "aml.review_identification"
    assert not AuditEvent.objects.filter(action="aml.identification_attempts_allowed").exists()
    assert (
        staff_api_client(superuser=True).get(f"{API}/staff/players/999999999/identification-attempts").status_code
        == 404
    )
