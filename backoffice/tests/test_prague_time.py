"""The back office shows Prague time everywhere, labelled, in one format, across a change of daylight saving time:
a complaint received at 14:34 Prague time reads 14:34 in the list, on its page and on the player's page, in winter
(UTC+1) and in summer (UTC+2)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.test import Client

from complaints import services
from complaints.models import Complaint
from core import clock
from core.audit import Actor
from tests.kit.accounts import make_player, make_staff

pytestmark = pytest.mark.django_db

#: 14:34 in Prague the day before and the day after the spring change (2026-03-29, 02:00 -> 03:00)
WINTER = datetime(2026, 3, 28, 13, 34, tzinfo=UTC)
SUMMER = datetime(2026, 3, 30, 12, 34, tzinfo=UTC)


@pytest.mark.parametrize("received", [WINTER, SUMMER], ids=["winter", "summer"])
def test_a_complaint_reads_the_same_prague_time_in_the_list_on_its_page_and_on_the_players_page(received):
    player = make_player(status="active")
    c = services.complaint_file(
        player=player, reason="other", description="x", event_at=clock.now(), actor=Actor.player(player)
    )
    Complaint.objects.filter(pk=c.pk).update(received_at=received)
    staff = Client()
    staff.force_login(make_staff(role="support"))
    day = f"{clock.local(received):%-d}. 3. 2026 14:34"
    for url in (
        "/admin/complaints/complaint/",
        f"/admin/complaints/complaint/{c.pk}/change/",
        f"/admin/accounts/player/{player.pk}/change/",
    ):
        html = staff.get(url).content.decode()
        assert day in html, (url, day)
        assert f"{received:%H}:34" not in html.replace("14:34", ""), url  # never the UTC hour
        assert "(Europe/Prague)" in html  # labelled (the site's header, in Czech or English)
