"""The large tables' lists (``core.admin.LargeTableAdmin``) in a real headless Chromium, as a member of staff reads
them: the rounds' list with more rows than the paginator counts says "about N" (in Czech, the staff's language)
with its explanation on hover, offers the date hierarchy's years from the first and last row, and a year's link
narrows the list to that year's rounds, counted exactly. Screenshots go to ``ADMIN_LIST_SCREENSHOTS`` (default
/tmp/admin-list-screens). The statements of these pages are tested in ``tests/test_admin_large_lists.py``."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from django.core.management import call_command
from selenium.webdriver.common.by import By

from core.admin import EstimatedCountPaginator
from games.models import Round
from jackpots.tests import test_admin_browser as harness
from jackpots.tests.test_admin_browser import browser, visible  # noqa: F401 - browser is a fixture
from tests.kit.accounts import DEFAULT_PASSWORD, make_staff
from tests.test_admin_list_queries import ROWS, _fill

pytestmark = pytest.mark.django_db(transaction=True, databases=["default", "refusal_log"])


@pytest.fixture
def screens(monkeypatch):
    monkeypatch.setattr(harness, "SCREENS", Path(os.environ.get("ADMIN_LIST_SCREENSHOTS", "/tmp/admin-list-screens")))


def test_the_rounds_list_reads_about_n_and_its_year_narrows_it_in_chromium(
    live_server,
    browser,  # noqa: F811
    settings,
    screens,
):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("seed_demo", stdout=io.StringIO())
    _fill(Round)
    rounds = Round.objects.count()
    assert rounds >= ROWS
    # the live server runs in this process: the demo's rounds stand for a table too large to count
    EXACT = ROWS - 2
    original = EstimatedCountPaginator.EXACT_UP_TO
    EstimatedCountPaginator.EXACT_UP_TO = EXACT
    try:
        staff = make_staff(superuser=True)
        browser.get(f"{live_server.url}/admin/login/?next=/admin/games/round/")
        browser.add_cookie({"name": "django_language", "value": "cs"})
        browser.get(f"{live_server.url}/admin/login/?next=/admin/games/round/")
        browser.find_element(By.NAME, "username").send_keys(staff.get_username())
        browser.find_element(By.NAME, "password").send_keys(DEFAULT_PASSWORD)
        browser.find_element(By.CSS_SELECTOR, "input[type=submit], button[type=submit]").click()
        browser.find_element(By.ID, "result_list")  # waits for the list after the redirect
        paginator = browser.find_element(By.CSS_SELECTOR, "p.paginator")
        mark = paginator.find_element(By.CSS_SELECTOR, ".estimated-count")
        assert mark.text.startswith("přibližně "), paginator.text
        assert mark.get_attribute("title"), "the estimate explains itself on hover"
        shown = int(mark.text.removeprefix("přibližně ").replace("\xa0", "").replace(" ", ""))
        assert shown > EXACT  # the partitions' statistics, or the LIMITed count where they say less
        assert not browser.find_elements(By.PARTIAL_LINK_TEXT, "Zobrazit počty")  # no facets: whole-table counts
        harness.shot(browser, "1-rounds-about-n")

        years = {r.started_at.year for r in Round.objects.only("started_at")}
        links = browser.find_elements(By.CSS_SELECTOR, ".xfull a, nav.toplinks a, .toplinks a")
        offered = {link.text.strip() for link in links}
        assert {str(y) for y in years} <= offered or len(years) == 1, offered
        year = min(years)
        if len(years) > 1:
            browser.find_element(By.LINK_TEXT, str(year)).click()
        else:  # one year only: the hierarchy opens on its months (as Django's does); pick the year by its URL
            browser.get(f"{live_server.url}/admin/games/round/?started_at__year={year}")
        browser.find_element(By.ID, "result_list")
        in_year = Round.objects.filter(started_at__year=year).count()
        text = visible(browser)
        assert "přibližně" not in text  # a narrowed list is counted exactly
        assert str(in_year) in browser.find_element(By.CSS_SELECTOR, "p.paginator").text
        harness.shot(browser, "2-rounds-one-year")
    finally:
        EstimatedCountPaginator.EXACT_UP_TO = original
