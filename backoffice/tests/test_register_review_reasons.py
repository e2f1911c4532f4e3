"""The AISG review queue says why a person is reviewed by hand: a person the register says is under 18
(``Plnoleta=NE``) reads "under 18 by the register" in the staff member's language, not "person not identified";
a person the population register did not find reads so; an outage's reason (the failure's own words) is shown as
stored."""

from __future__ import annotations

import pytest
from django.test import Client

from accounts.aisg import client as aisg
from accounts.models import RegisterReview
from accounts.services.registers import outcome_review
from tests.kit.accounts import make_staff

pytestmark = pytest.mark.django_db


def test_the_queue_names_why_a_person_is_reviewed() -> None:
    outcome_review(aisg.Decision(aisg.UNDERAGE, "Plnoleta=NE"), player=None, context="registration")
    outcome_review(aisg.Decision(aisg.MANUAL_REVIEW, "NalezenaROB=NENALEZENA"), player=None, context="registration")
    outcome_review(aisg.Decision(aisg.UNAVAILABLE, "timeout"), player=None, context="login")
    assert RegisterReview.objects.count() == 3
    client = Client(headers={"accept-language": "cs"})
    client.force_login(make_staff(superuser=True))
    page = client.get("/admin/accounts/registerreview/").content.decode()
    assert "podle registru mladší 18 let" in page
    assert "nenalezena v registru obyvatel" in page
    assert "ruční posouzení osoby" in page and "timeout" in page
    assert "neidentifikována" not in page and "Plnoleta=NE" not in page
    review = RegisterReview.objects.get(reason="Plnoleta=NE")
    page = client.get(f"/admin/accounts/registerreview/{review.pk}/change/").content.decode()
    assert "podle registru mladší 18 let" in page and "Plnoleta=NE" not in page
