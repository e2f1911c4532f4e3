"""The documentation page renders in Debian's headless Chromium with no internet access needed
(it was blank: Swagger UI came from a CDN at @latest)."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from jackpots.tests.test_admin_browser import browser, shot  # noqa: F401 - browser is a fixture

pytestmark = pytest.mark.django_db(transaction=True)


def test_swagger_ui_renders_the_operations_from_our_own_files(browser, live_server):  # noqa: F811
    browser.get(f"{live_server.url}/api/docs")
    WebDriverWait(browser, 20).until(ec.presence_of_element_located((By.CSS_SELECTOR, ".opblock")))
    operations = browser.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
    paths = {o.get_attribute("data-path") for o in operations}
    assert "/api/v1/games/rounds" in paths and "/api/v1/jackpots" in paths
    # every resource the page loaded came from the platform itself
    loaded = browser.execute_script("return performance.getEntriesByType('resource').map(e => e.name)")
    assert loaded and all(u.startswith(live_server.url) for u in loaded), loaded
    shot(browser, "api-docs")
