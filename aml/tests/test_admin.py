"""Back office: every AML page renders; decisions go through forms that call the services (note required,
audited with the staff member)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse

from aml.errors import IDENTIFICATION_STATE, WIN_NOT_FOUND
from aml.models import AmlProfile, ComplianceCase, IdentificationCheck, ScreeningRun, SourceOfFundsDeclaration
from aml.services import (
    identification_start,
    pep_claim_record,
    pep_declare,
    risk_assess,
    screening_list_import,
    screening_run,
    sof_declare,
)
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.aml import JPEG, SYSTEM, applicant, document, images, make_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def doubtful(commit):
    player = applicant()
    with commit():
        check = identification_start(
            player=player, document=document("AB3333DBT"), images=images(), actor=Actor.player(player)
        )
    check.refresh_from_db()
    assert check.status == "doubtful"
    return check


def test_every_aml_admin_page_renders(staff_client, doubtful):
    player = doubtful.player
    pep_declare(player=player, relation="self", position="senator", actor=Actor.player(player))
    screening_run(player=player, actor=SYSTEM)
    sof_declare(player=player, source="savings", description="savings", actor=Actor.player(player))
    pep_claim_record(player=player, is_pep=True, source="bankid", actor=SYSTEM)
    screening_list_import(
        source="cz", data=(Path(__file__).parent / "lists" / "cz_national.csv").read_bytes(), actor=SYSTEM
    )
    risk_assess(player=player, actor=SYSTEM, trigger="test")
    models = [m for m in admin.site._registry if m._meta.app_label == "aml"]
    assert len(models) == 13  # images and case holds are inlines
    for model in models:
        prefix = f"admin:aml_{model._meta.model_name}"
        urls = [reverse(f"{prefix}_changelist")]
        obj = model._default_manager.order_by("pk").first()
        if obj is not None:
            urls.append(reverse(f"{prefix}_change", args=[obj.pk]))
        for url in urls:
            assert staff_client.get(url).status_code == 200, url
        assert staff_client.get(reverse(f"{prefix}_add")).status_code == 403  # records come from services only


def test_staff_review_a_doubtful_check_in_the_admin_and_see_its_images(staff_client, doubtful):
    url = reverse("admin:aml_identificationcheck_decide", args=[doubtful.pk])
    r = staff_client.post(url, {"approve": "1", "note": ""})
    assert r.status_code == 200  # the form again: a note is required
    doubtful.refresh_from_db()
    assert doubtful.status == "doubtful"
    image = staff_client.get(reverse("admin:aml_identificationcheck_image", args=[doubtful.pk, "front"]))
    assert image.status_code == 200 and b"".join(image.streaming_content) == JPEG
    r = staff_client.post(url, {"approve": "1", "note": "photo matches"})
    assert r.status_code == 302
    doubtful.refresh_from_db()
    doubtful.player.refresh_from_db()
    assert doubtful.status == "approved" and doubtful.player.aml_identified_at is not None
    assert AuditEvent.objects.filter(
        action="aml.identification_reviewed", actor_label=staff_client.staff.username
    ).exists()
    r = staff_client.post(url, {"approve": "0", "note": "again"})
    assert r.status_code == 200 and IDENTIFICATION_STATE.code in r.content.decode()


def test_staff_decide_a_case_and_review_a_declaration_in_the_admin(staff_client):
    player = make_player()
    pep_declare(player=player, relation="associate", position="adviser to a minister", actor=Actor.player(player))
    case = ComplianceCase.objects.get(player=player)
    r = staff_client.post(
        reverse("admin:aml_compliancecase_decide", args=[case.pk]), {"decision": "cleared", "note": "EDD done"}
    )
    assert r.status_code == 302
    case.refresh_from_db()
    assert case.status == "cleared" and case.decided_by == staff_client.staff.username
    decl = sof_declare(player=player, source="business", description="my shop", actor=Actor.player(player))
    r = staff_client.post(
        reverse("admin:aml_sourceoffundsdeclaration_decide", args=[decl.pk]), {"accept": "1", "note": "invoices seen"}
    )
    assert r.status_code == 302
    assert SourceOfFundsDeclaration.objects.get(pk=decl.pk).status == "accepted"


def test_the_hold_form_shows_the_refusal_until_the_wallet_can_hold(staff_client, monkeypatch):
    player = make_player()
    pep_declare(player=player, relation="self", position="mayor", actor=Actor.player(player))
    case = ComplianceCase.objects.get(player=player)
    r = staff_client.post(
        reverse("admin:aml_compliancecase_hold", args=[case.pk]),
        {"win_reference": "no-such-win", "reason": "aml", "note": "x"},
    )
    assert r.status_code == 200 and WIN_NOT_FOUND.code in r.content.decode()


def test_staff_screen_players_now_from_the_profile_list(staff_client):
    player = applicant()
    profile = AmlProfile.objects.create(
        player=player, created_at=player.created_at, next_screening_at=player.created_at
    )
    r = staff_client.post(
        reverse("admin:aml_amlprofile_changelist"), {"action": "screen_now", "_selected_action": [profile.pk]}
    )
    assert r.status_code == 302
    run = ScreeningRun.objects.get(player=player)
    assert run.trigger == "staff" and run.result == "clear"
    assert AuditEvent.objects.filter(action="aml.screened", actor_label=staff_client.staff.username).exists()


def test_a_player_cannot_open_the_aml_admin():
    c = Client(raise_request_exception=False)
    c.force_login(make_player().user)
    check_url = reverse("admin:aml_identificationcheck_changelist")
    assert c.get(check_url).status_code == 302  # to the admin login
    assert IdentificationCheck.objects.count() == 0
