"""A money remedy is read and typed in Kč by staff: a 5,50 Kč request is shown as 5,50 Kč, credited as 5,50 Kč by
finance after a confirmation page repeating the amount, the player and the reason, and refused to support (403,
nothing credited); support resolves with the same single step (no hidden assign -> investigate order)."""

from __future__ import annotations

import pytest
from django.test import Client

from complaints import services
from complaints.errors import ALREADY_RESOLVED
from complaints.models import Complaint
from core import clock
from core.audit import Actor
from core.money import Money
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db


def _client(role: str) -> Client:
    c = Client(raise_request_exception=False)
    c.force_login(make_staff(role=role))
    return c


@pytest.fixture
def complaint() -> Complaint:
    from tests.kit.wallet import fund

    player = make_player(status="active")
    fund(player, Money(10_000))
    return services.complaint_file(
        player=player,
        reason="other",
        description="the spin froze",
        event_at=clock.now(),
        remedy_requested="return my stake",
        remedy_amount_requested=Money.parse("5,50"),
        actor=Actor.player(player),
    )


def test_a_5_50_kc_remedy_is_shown_and_credited_as_5_50_kc_by_finance_after_a_confirmation(complaint):
    from wallet.selectors import balance

    assert complaint.remedy_amount_requested == 550
    url = f"/admin/complaints/complaint/{complaint.pk}/change/"
    page = _client("support").get(url).content.decode()
    assert "5,50\xa0Kč" in page and "haléř" not in page and "550" not in page.split("požadovaná částka")[1][:80]
    assert 'name="remedy_amount"' not in page  # support is offered no money field
    finance = _client("finance")
    page = finance.get(url).content.decode()
    assert 'name="remedy_amount"' in page and "Kč, dvě desetinná místa" in page  # the help text, in Czech
    before = balance(complaint.player)
    form = {
        "outcome": "upheld",
        "answer_cs": "Uznáváme.",
        "answer_en": "Upheld.",
        "remedy_amount": "5,50",
        "remedy_text": "",
    }
    act = f"/admin/complaints/complaint/{complaint.pk}/act/resolve/"
    confirm = finance.post(act, form)
    html = confirm.content.decode()
    assert confirm.status_code == 200 and 'id="confirm-amount">5,50\xa0Kč<' in html
    assert complaint.player.user.username in html and complaint.reference in html and "jiné" in html  # "other"
    assert balance(complaint.player) == before  # nothing moves before the confirmation
    assert finance.post(act, {**form, "confirmed": "1"}).status_code == 302
    complaint.refresh_from_db()
    assert complaint.status == "resolved" and complaint.remedy_amount == 550
    assert balance(complaint.player) == before + Money(550)
    page = finance.get(url).content.decode()
    assert 'Připsáno: <b class="money">5,50\xa0Kč</b>' in page
    audit = page.split("Auditní stopa", 1)[1]
    assert "complaints.remedy_credited" in audit and "{'" not in audit  # readable, not Python dicts


@pytest.mark.parametrize("confirmed", ["", "1"])
def test_support_cannot_credit_a_money_remedy(complaint, confirmed):
    from wallet.selectors import balance

    before = balance(complaint.player)
    r = _client("support").post(
        f"/admin/complaints/complaint/{complaint.pk}/act/resolve/",
        {"outcome": "upheld", "answer_cs": "Uznáváme.", "remedy_amount": "550", "confirmed": confirmed},
    )
    assert r.status_code == 403
    complaint.refresh_from_db()
    assert complaint.status == "new" and complaint.remedy_amount is None and balance(complaint.player) == before


def test_support_resolves_a_new_complaint_in_one_step_and_a_refusal_reads_as_a_sentence(complaint):
    support = _client("support")
    r = support.post(
        f"/admin/complaints/complaint/{complaint.pk}/act/resolve/",
        {"outcome": "rejected", "answer_cs": "Zamítáme.", "answer_en": "Rejected."},
        follow=True,
    )
    complaint.refresh_from_db()
    assert complaint.status == "resolved" and complaint.outcome == "rejected"
    r = support.post(f"/admin/complaints/complaint/{complaint.pk}/act/assign_me/", follow=True)
    text = r.content.decode()
    assert ALREADY_RESOLVED.code in text and "{'" not in text and "Complaint.Status" not in text


def test_the_complaint_supervisor_role_holds_the_supervision_and_the_remedy():
    from core.roles import ROLES

    holders = {name for name, role in ROLES.items() if "complaints.supervise_complaint" in role.permissions}
    assert holders == {"complaint_supervisor"}
    money = {name for name, role in ROLES.items() if "complaints.credit_remedy" in role.permissions}
    assert money == {"complaint_supervisor", "finance"}
