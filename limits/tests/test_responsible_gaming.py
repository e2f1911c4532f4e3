"""Responsible gaming (GP §13(4)): the published texts and help contacts (public, Czech and English, edited by staff
and audited), and the player's own statistics per Prague day and calendar month (logged-in time, stakes, wins and
net loss of the decided bets), from the counters, with strict dates and a bounded range."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts.models import LoginSession
from core import clock
from core.errors import NOT_A_PLAYER
from core.models import AuditEvent
from limits.errors import INVALID_PERIOD
from limits.models import HelpContact, ResponsibleGamingText, SettledBet
from tests.kit.accounts import make_staff, token_for
from tests.kit.clients import client_for
from tests.kit.limits import play_round, settle, stake
from tests.kit.money import prague

BASE = "/api/v1/limits"
NOW = prague(2025, 11, 15, 12)


def money(amount):
    return {"amount": amount, "currency": "CZK"}


def statistics(player, query, at=NOW):
    with time_machine.travel(at, tick=False):
        return client_for(player).get(f"{BASE}/statistics{query}")


def session(player, start, end):
    return LoginSession.objects.create(player=player, started_at=start, last_seen_at=end or start, ended_at=end)


def migration_module(app: str, name: str):
    """The module of a migration (its name starts with a digit, so it is loaded by Django's migration loader)."""
    import sys

    from django.db.migrations.loader import MigrationLoader

    return sys.modules[type(MigrationLoader(None, ignore_no_migrations=True).get_migration(app, name)).__module__]


@pytest.fixture
def texts(db):
    """The texts migration 0003 puts in (run again here: a test with ``transaction=True`` elsewhere flushes the
    tables, migration rows included). Idempotent."""
    from django.apps import apps

    seed = migration_module("limits", "0003_responsible_gaming").seed
    seed(apps, None)
    seed(apps, None)
    return ResponsibleGamingText.objects.order_by("order")


def figures(entry):
    """An entry's figures, money reduced to amounts."""
    return (
        entry["logged_in_seconds"],
        entry["bets"],
        entry["stakes"]["amount"],
        entry["wins"]["amount"],
        entry["net_loss"]["amount"],
    )


# --- texts and help contacts (public) ---------------------------------------------------------------------------
def test_anyone_reads_the_responsible_gaming_texts_in_czech_and_english(texts):
    r = APIClient().get(f"{BASE}/responsible-gaming")
    assert r.status_code == 200
    assert "public" in r["Cache-Control"] and "max-age=300" in r["Cache-Control"]
    body = r.json()
    assert [t["key"] for t in body["texts"]] == ["principles", "self_limits", "break", "panic_button", "statistics"]
    assert texts.count() == 5  # seeding twice adds nothing
    assert all(t["title_cs"] and t["title_en"] and t["body_cs"] and t["body_en"] for t in body["texts"])
    assert "120 minutách" in body["texts"][2]["body_cs"] and "120 minutes" in body["texts"][2]["body_en"]
    assert body["help_contacts"] == []  # none is built in: the operator enters the real ones


def test_staff_edit_a_text_and_add_a_help_contact_audited_and_unpublish_instead_of_deleting(texts):
    from django.test import Client

    staff = make_staff(superuser=True)
    c = Client()
    c.force_login(staff)
    text = ResponsibleGamingText.objects.get(key="break")
    r = c.post(
        f"/admin/limits/responsiblegamingtext/{text.pk}/change/",
        {
            "key": "break",
            "order": 5,
            "title_cs": "Přestávka",
            "title_en": "Break",
            "body_cs": "Nový text.",
            "body_en": "New text.",
            "published": "on",
        },
    )
    assert r.status_code == 302
    event = AuditEvent.objects.get(action="limits.responsible_text_saved")
    assert event.old_values is not None and event.new_values is not None
    assert (event.actor_type, event.old_values["title_cs"], event.new_values["title_cs"]) == (
        "staff",
        "Povinná přestávka",
        "Přestávka",
    )

    contact = {
        "order": 1,
        "name_cs": "Linka pomoci",
        "name_en": "Help line",
        "description_cs": "",
        "description_en": "",
        "phone": "",
        "email": "",
        "url": "",
        "hours_cs": "",
        "hours_en": "",
        "published": "on",
    }
    r = c.post("/admin/limits/helpcontact/add/", contact)
    assert r.status_code == 200 and not HelpContact.objects.exists()  # nothing to reach it by: the form refuses
    assert b"Give a phone number, an e-mail address or a web address." in r.content
    r = c.post("/admin/limits/helpcontact/add/", {**contact, "url": "https://help.example/"})
    assert r.status_code == 302
    assert AuditEvent.objects.filter(action="limits.help_contact_saved", actor_type="staff").exists()

    body = APIClient().get(f"{BASE}/responsible-gaming").json()
    assert body["texts"][0]["key"] == "break" and body["texts"][0]["body_en"] == "New text."
    assert body["help_contacts"] == [
        {
            "name_cs": "Linka pomoci",
            "name_en": "Help line",
            "description_cs": "",
            "description_en": "",
            "phone": "",
            "email": "",
            "url": "https://help.example/",
            "hours_cs": "",
            "hours_en": "",
        }
    ]
    assert c.post(f"/admin/limits/responsiblegamingtext/{text.pk}/delete/", {"post": "yes"}).status_code == 403
    ResponsibleGamingText.objects.filter(key="principles").update(published=False)
    keys = [t["key"] for t in APIClient().get(f"{BASE}/responsible-gaming").json()["texts"]]
    assert "principles" not in keys and len(keys) == 4


# --- the player's statistics ---------------------------------------------------------------------------------------
def test_a_bet_belongs_to_the_prague_day_and_month_it_was_decided_in(player):
    play_round(player, "10", "0", prague(2025, 5, 31, 23, 59, 55), seconds=4)  # decided 31 May 23:59:59
    stake(player, "5", prague(2025, 5, 31, 23, 59, 59))  # placed in May ...
    settle(player, "5", "25", prague(2025, 5, 31, 23, 59, 59), prague(2025, 6, 1))  # ... decided at 00:00:00
    play_round(player, "2", "1", prague(2025, 5, 10, 12))  # the same month, outside the range
    r = statistics(player, "?from=2025-05-31&to=2025-06-01")
    assert r.status_code == 200
    body = r.json()
    assert (body["date_from"], body["date_to"], body["time_zone"]) == ("2025-05-31", "2025-06-01", "Europe/Prague")
    assert [(d["date"], figures(d)) for d in body["days"]] == [
        ("2025-05-31", (0, 1, 1000, 0, 1000)),
        ("2025-06-01", (0, 1, 500, 2500, -2000)),  # the player won more than they staked
    ]
    assert body["days"][1]["net_loss"] == {**money(-2000), "formatted": "-20,00\xa0Kč"}  # the house Money JSON
    # whole calendar months from the month counters (May also has the bet of 10 May)
    assert [(m["month"], m["first_day"], m["last_day"], figures(m)) for m in body["months"]] == [
        ("2025-05", "2025-05-01", "2025-05-31", (0, 2, 1200, 100, 1100)),
        ("2025-06", "2025-06-01", "2025-06-30", (0, 1, 500, 2500, -2000)),
    ]
    assert figures(body["total"]) == (0, 2, 1500, 2500, -1000)


def test_the_figures_come_from_the_counters_not_from_the_rounds(player):
    play_round(player, "10", "4", prague(2025, 7, 3, 9))
    before = statistics(player, "?from=2025-07-03&to=2025-07-03").json()
    SettledBet.objects.filter(player=player).delete()  # the per-round ledger is not read
    assert statistics(player, "?from=2025-07-03&to=2025-07-03").json() == before
    assert figures(before["days"][0]) == (0, 1, 1000, 400, 600)


def test_logged_in_time_is_split_at_prague_midnight_and_two_devices_count_once(player, other_player):
    session(player, prague(2025, 5, 31, 23, 30), prague(2025, 6, 1, 0, 45))
    session(player, prague(2025, 5, 31, 23, 40), prague(2025, 5, 31, 23, 50))  # a second device, inside the first
    session(player, prague(2025, 5, 2, 8), prague(2025, 5, 2, 9))  # May, outside the range of days
    session(other_player, prague(2025, 5, 31, 20), prague(2025, 5, 31, 23))  # someone else's
    body = statistics(player, "?from=2025-05-31&to=2025-06-01").json()
    assert [d["logged_in_seconds"] for d in body["days"]] == [30 * 60, 45 * 60]
    assert [m["logged_in_seconds"] for m in body["months"]] == [30 * 60 + 3600, 45 * 60]
    assert body["total"]["logged_in_seconds"] == 75 * 60


@pytest.mark.parametrize("day,hours", [(29, 24), (30, 23), (31, 24)])
def test_a_prague_day_lasts_23_hours_on_the_spring_dst_night(player, day, hours):
    session(player, prague(2025, 3, 28, 23), prague(2025, 4, 1, 1))  # logged in throughout
    body = statistics(player, f"?from=2025-03-{day}&to=2025-03-{day}").json()
    assert body["days"][0]["logged_in_seconds"] == hours * 3600


@pytest.mark.parametrize("day,hours", [(25, 24), (26, 25), (27, 24)])
def test_a_prague_day_lasts_25_hours_on_the_autumn_dst_night(player, day, hours):
    session(player, prague(2025, 10, 24, 23), prague(2025, 10, 28, 1))
    body = statistics(player, f"?from=2025-10-{day}&to=2025-10-{day}").json()
    assert body["days"][0]["logged_in_seconds"] == hours * 3600


def test_an_open_session_counts_up_to_now(player):
    session(player, prague(2025, 6, 1, 0, 30), None)
    body = statistics(player, "?from=2025-06-01&to=2025-06-02", at=prague(2025, 6, 1, 1)).json()
    assert [d["logged_in_seconds"] for d in body["days"]] == [1800, 0]


def test_the_range_may_be_366_days_not_367(player):
    r = statistics(player, "?from=2024-01-01&to=2024-12-31")  # a leap year: 366 days
    assert r.status_code == 200 and len(r.json()["days"]) == 366 and len(r.json()["months"]) == 12
    r = statistics(player, "?from=2024-01-01&to=2025-01-01")
    assert r.status_code == 400 and r.json()["error"]["code"] == INVALID_PERIOD.code
    assert r.json()["error"]["details"]["max_days"] == 366


@pytest.mark.parametrize(
    "query,code",
    [
        ("?to=", "limits.invalid_date"),
        ("?from=2025-05-01&to=", "limits.invalid_date"),
        ("?from=2025-5-1&to=2025-05-02", "limits.invalid_date"),
        ("?from=20250501&to=2025-05-02", "limits.invalid_date"),
        ("?from=2025-02-30&to=2025-03-02", "limits.invalid_date"),
        ("?from=2025-05-01T00:00&to=2025-05-02", "limits.invalid_date"),
        ("?from=%EF%BC%92025-05-01&to=2025-05-02", "limits.invalid_date"),  # a full-width digit
        ("?from=9999-12-01&to=9999-12-31", "limits.invalid_date"),
        ("?from=0001-01-01&to=0001-01-02", "limits.invalid_date"),
        ("?from=2025-05-02&to=2025-05-01", "limits.invalid_period"),
        ("?from=2025-05-01&to=2025-05-02&kind=poker", "limits.unknown_kind"),
    ],
)
def test_bad_dates_and_ranges_are_a_400_with_the_error_shape(player, query, code):
    r = statistics(player, query)
    assert r.status_code == 400, r.content
    error = r.json()["error"]
    assert error["code"] == code and error["message_cs"] and error["message_en"]


def test_without_from_and_to_the_statistics_cover_the_last_30_prague_days_today_included(player):
    """The review's call without a period was a 400; the default is the last 30 days."""
    today = clock.business_date(NOW)
    body = statistics(player, "").json()
    assert [d["date"] for d in (body["days"][0], body["days"][-1])] == [
        (today - timedelta(days=29)).isoformat(),
        today.isoformat(),
    ] and len(body["days"]) == 30
    body = statistics(player, "?from=2025-05-01").json()  # from a day to today
    assert body["days"][0]["date"] == "2025-05-01" and body["days"][-1]["date"] == today.isoformat()
    body = statistics(player, "?to=2025-05-31").json()  # the 30 days up to a day
    assert body["days"][0]["date"] == "2025-05-02" and len(body["days"]) == 30


def test_only_a_player_reads_statistics_and_only_their_own(player, other_player):
    play_round(other_player, "10", "0", prague(2025, 5, 5, 12))
    assert figures(statistics(player, "?from=2025-05-05&to=2025-05-05").json()["days"][0]) == (0, 0, 0, 0, 0)
    assert APIClient().get(f"{BASE}/statistics?from=2025-05-05&to=2025-05-05").status_code == 401
    staff = APIClient()
    staff.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff())}")
    r = staff.get(f"{BASE}/statistics?from=2025-05-05&to=2025-05-05")
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code


def test_the_range_may_end_in_the_future_with_nothing_counted_yet(player):
    body = statistics(player, "?from=2025-11-15&to=2025-11-20", at=NOW - timedelta(hours=1)).json()
    assert [figures(d) for d in body["days"]] == [(0, 0, 0, 0, 0)] * 6
