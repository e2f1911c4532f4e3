"""The source-of-funds declaration the AML duties ask for (GP §12(1)): required once confirmed deposits over the
window reach the threshold; further deposits are refused until it is submitted; staff review it."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from aml import errors
from aml.models import SourceOfFundsDeclaration, SourceOfFundsRequirement
from aml.selectors import compliance_refusal, sof_status
from aml.services import sof_declare, sof_requirements_scan, sof_review
from core import clock
from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from tests.kit.aml import client, make_player, make_staff
from tests.kit.money import czk
from tests.kit.refusals import refusal_code
from tests.kit.wallet import deposit, verified_bank

pytestmark = pytest.mark.django_db
API = "/api/v1/aml"


@pytest.fixture
def depositor():
    """An active player with 1,000.00 CZK of confirmed deposits (600 + 400), both confirmed at ``player.at``."""
    player = make_player()
    method = verified_bank(player)
    at = clock.now().replace(microsecond=0) - timedelta(hours=1)
    with time_machine.travel(at, tick=False):
        deposit(player, method, czk(600))
        d = deposit(player, method, czk(400))
    assert d.status == "confirmed" and d.confirmed_at == at
    player.at = at  # type: ignore[attr-defined]
    return player


def test_a_declaration_is_required_when_deposits_reach_the_threshold_not_a_haler_before(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_001  # 1,000.01 CZK: 1,000.00 deposited is 0.01 below
    assert compliance_refusal(depositor, "deposit") is None
    settings.AML_SOF_THRESHOLD = 100_000  # reached
    err = compliance_refusal(depositor, "deposit")
    assert err is not None and err.code == errors.SOURCE_OF_FUNDS_REQUIRED.code
    assert err.details["threshold"].amount == 100_000 and err.details["deposits_total"].amount == 100_000
    assert compliance_refusal(depositor, "withdrawal") is None  # deposits only
    assert refusal_code(compliance_refusal(depositor)) == errors.SOURCE_OF_FUNDS_REQUIRED.code


def test_the_window_counts_deposits_of_the_last_30_days(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    with time_machine.travel(depositor.at + timedelta(days=30), tick=False):
        assert sof_status(depositor).required  # the last deposit is exactly 30 days old: still counted
    with time_machine.travel(depositor.at + timedelta(days=30, seconds=1), tick=False):
        assert not sof_status(depositor).required


def test_a_recorded_requirement_stays_after_the_window_moves_on_until_a_declaration(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    assert sof_requirements_scan() == {"open_requirements": 1}
    assert sof_requirements_scan() == {"open_requirements": 0}  # one open requirement per player
    req = SourceOfFundsRequirement.objects.get(player=depositor)
    assert (req.deposits_total, req.threshold, req.status) == (100_000, 100_000, "open")
    with time_machine.travel(depositor.at + timedelta(days=60), tick=False):
        assert refusal_code(compliance_refusal(depositor, "deposit")) == errors.SOURCE_OF_FUNDS_REQUIRED.code
        decl = sof_declare(
            player=depositor, source="employment", description="salary from Acme s.r.o.", actor=Actor.player(depositor)
        )
        assert compliance_refusal(depositor, "deposit") is None
    req.refresh_from_db()
    assert (req.status, req.declaration_id) == ("fulfilled", decl.pk)


def test_the_player_declares_through_the_api_and_deposits_are_possible_again(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    c = client(depositor)
    body = c.get(f"{API}/source-of-funds").json()
    assert body["declaration_required"] is True and body["deposits_total"]["amount"] == 100_000
    assert body["latest"] is None
    r = c.post(f"{API}/source-of-funds", {"source": "savings", "description": ""}, format="json")
    assert r.status_code == 400
    r = c.post(f"{API}/source-of-funds", {"source": "savings", "description": "my savings account"}, format="json")
    assert r.status_code == 201 and r.json()["status"] == "submitted"
    assert r.json()["deposits_total"]["amount"] == 100_000
    body = c.get(f"{API}/source-of-funds").json()
    assert body["declaration_required"] is False and body["latest"]["source"] == "savings"
    assert compliance_refusal(depositor, "deposit") is None
    assert AuditEvent.objects.filter(action="aml.source_of_funds_declared").exists()


def test_staff_reject_a_declaration_and_deposits_are_refused_again_until_a_new_one(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    decl = sof_declare(player=depositor, source="other", description="found it", actor=Actor.player(depositor))
    staff = make_staff(role="compliance")
    cs = client(staff)
    assert [d["id"] for d in cs.get(f"{API}/staff/source-of-funds").json()["results"]] == [decl.pk]
    r = cs.post(
        f"{API}/staff/source-of-funds/{decl.pk}/review", {"accept": False, "note": "not credible"}, format="json"
    )
    assert r.status_code == 200 and r.json()["status"] == "rejected" and r.json()["reviewed_by"] == staff.username
    assert refusal_code(compliance_refusal(depositor, "deposit")) == errors.SOURCE_OF_FUNDS_REQUIRED.code
    assert SourceOfFundsRequirement.objects.filter(player=depositor, status="open").count() == 1
    r = cs.post(f"{API}/staff/source-of-funds/{decl.pk}/review", {"accept": True, "note": "again"}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.SOF_STATE.code
    again = sof_declare(player=depositor, source="employment", description="salary", actor=Actor.player(depositor))
    sof_review(declaration=again, accept=True, note="payslips seen", actor=Actor.staff(staff))
    assert compliance_refusal(depositor, "deposit") is None


def test_a_declaration_counts_for_its_validity_period(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    settings.AML_SOF_VALID_DAYS = 365
    t0 = clock.now()
    with time_machine.travel(t0, tick=False):
        sof_declare(player=depositor, source="pension", description="old-age pension", actor=Actor.player(depositor))
    settings.AML_SOF_WINDOW_DAYS = 400  # the same deposits still count a year later
    with time_machine.travel(t0 + timedelta(days=365) - timedelta(seconds=1), tick=False):
        assert compliance_refusal(depositor, "deposit") is None
    with time_machine.travel(t0 + timedelta(days=365), tick=False):
        assert refusal_code(compliance_refusal(depositor, "deposit")) == errors.SOURCE_OF_FUNDS_REQUIRED.code


def test_a_review_needs_a_note_and_the_source_must_be_known(depositor):
    with pytest.raises(DomainError) as e:
        sof_declare(player=depositor, source="lottery", description="won it", actor=Actor.player(depositor))
    assert e.value.code == errors.SOF_INVALID.code
    decl = sof_declare(player=depositor, source="business", description="my shop", actor=Actor.player(depositor))
    with pytest.raises(DomainError) as e:
        sof_review(declaration=decl, accept=True, note="", actor=Actor.staff(make_staff()))
    assert e.value.code == errors.NOTE_REQUIRED.code
    assert SourceOfFundsDeclaration.objects.get(pk=decl.pk).status == "submitted"


def test_staff_source_of_funds_endpoints_refuse_players_and_anonymous(depositor):
    decl = sof_declare(player=depositor, source="business", description="my shop", actor=Actor.player(depositor))
    for method, url in (("get", "staff/source-of-funds"), ("post", f"staff/source-of-funds/{decl.pk}/review")):
        assert getattr(client(), method)(f"{API}/{url}", {}, format="json").status_code == 401
        assert getattr(client(depositor), method)(f"{API}/{url}", {}, format="json").status_code == 403
    assert client().get(f"{API}/source-of-funds").status_code == 401


def test_a_rejected_declaration_reopens_the_requirement_it_fulfilled_even_after_the_window(depositor, settings):
    settings.AML_SOF_THRESHOLD = 100_000
    sof_requirements_scan()
    decl = sof_declare(player=depositor, source="other", description="a friend", actor=Actor.player(depositor))
    with time_machine.travel(depositor.at + timedelta(days=45), tick=False):
        assert not sof_status(depositor).required
        sof_review(declaration=decl, accept=False, note="not credible", actor=Actor.staff(make_staff()))
        assert refusal_code(compliance_refusal(depositor, "deposit")) == errors.SOURCE_OF_FUNDS_REQUIRED.code
    assert SourceOfFundsRequirement.objects.filter(player=depositor, status="open").count() == 1
