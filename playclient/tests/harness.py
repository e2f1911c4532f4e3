"""Driving the player web client in Debian's headless Chromium (the rule of jackpots/tests/test_admin_browser.py:
without chromium + chromedriver the test is skipped on a developer's machine and FAILS under CI).

``play_browser`` records the browser's console and network (Chromium's performance log), so a test can check that
the page ran without a script error and asked nothing but /api/v1/ and /static/. ``Screens`` takes a whole-page
screenshot at phone (375x812) and desktop (1366x900) size into ``PLAY_SCREENSHOTS`` (default /tmp/play-screens;
the committed docs/screenshots/play-*.png come from a run with ``PLAY_SCREENSHOTS=docs/screenshots``)."""

from __future__ import annotations

import base64
import json
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chrome.webdriver import WebDriver  # Chromium's: it has the console and network logs
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

from jackpots.tests.test_admin_browser import CHROMEDRIVER, CHROMIUM

SCREENS = Path(os.environ.get("PLAY_SCREENSHOTS", "/tmp/play-screens"))
PHONE, DESKTOP = (375, 812), (1366, 900)


@pytest.fixture
def play_browser() -> Iterator[WebDriver]:
    missing = [str(p) for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if missing:
        why = f"headless Chromium is not installed ({', '.join(missing)}); run `make browser-deps`"
        if os.environ.get("CI"):
            pytest.fail(why)
        pytest.skip(why)
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars",
        f"--window-size={DESKTOP[0]},{DESKTOP[1]}",
        "--lang=cs-CZ",
        "--accept-lang=cs-CZ,cs",
    ):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=str(CHROMEDRIVER)))
    driver.implicitly_wait(0)
    try:
        yield driver
    finally:
        driver.quit()


def found(pattern: str, text: object) -> str:
    """The first group of ``pattern`` in ``text`` (the whole match without a group); fails when it is absent."""
    m = re.search(pattern, str(text))
    assert m is not None, f"{pattern!r} not in {str(text)[:500]!r}"
    return m.group(m.lastindex or 0)


class Client:
    """The player web client in the browser: open a screen, fill a form, press a button, read what is shown."""

    def __init__(self, driver: WebDriver, base: str):
        self.d, self.base = driver, base
        self.requests: list[str] = []
        self.console: list[dict] = []

    def wait(self, condition, timeout: float = 15):
        try:
            # a screen that re-renders between finding an element and reading it (a card redrawn with the answer)
            # leaves a stale reference: the condition is not met yet, so it is polled again, as a missing one is
            waiting = WebDriverWait(
                self.d, timeout, poll_frequency=0.1, ignored_exceptions=(StaleElementReferenceException,)
            )
            return waiting.until(lambda d: condition(d))
        except TimeoutException:
            raise AssertionError(f"timed out; the page shows: {self.text()[:4000]}") from None

    def open(self, route: str = "") -> None:
        ready = route.split("?")[0].split("/")[0] or "home"
        if not self.d.current_url.startswith(f"{self.base}/play"):
            self.d.get(f"{self.base}/play#/{route}")
        else:
            self.d.execute_script(  # the same hash again fires no hashchange: the test fires it
                "document.getElementById('view').dataset.ready = '';"
                "if (location.hash === arguments[0]) window.dispatchEvent(new HashChangeEvent('hashchange'));"
                "else location.hash = arguments[0];",
                f"#/{route}",
            )
        self.ready(ready)

    def ready(self, name: str) -> None:
        self.wait(lambda d: d.execute_script("return document.getElementById('view')?.dataset.ready") == name)

    def el(self, css: str, timeout: float = 15) -> WebElement:
        return self.wait(lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, css)), None), timeout)

    def fill(self, form: str, **fields: str) -> None:
        for name, value in fields.items():
            e = self.el(f"{form} [name='{name}']")
            if e.tag_name == "select":
                Select(e).select_by_value(str(value))
            elif e.get_attribute("type") in ("date", "checkbox"):
                self.d.execute_script("arguments[0].value = arguments[1]", e, value)
            else:
                e.clear()
                e.send_keys(str(value))

    def click(self, css: str) -> None:
        e = self.wait(lambda d: next((x for x in d.find_elements(By.CSS_SELECTOR, css) if x.is_enabled()), None))
        self.d.execute_script("arguments[0].scrollIntoView({block: 'center'})", e)
        e.click()

    def text(self, css: str = "body") -> str:
        found = self.d.find_elements(By.CSS_SELECTOR, css)
        return found[0].text.replace("\xa0", " ") if found else ""

    def notice(self, contains: str = "", timeout: float = 15) -> str:
        """The notice bar's text once it shows ``contains``."""
        self.wait(
            lambda d: contains in self.text("#notice") and d.find_element(By.ID, "notice").is_displayed(), timeout
        )
        return self.text("#notice")

    def language(self, code: str) -> None:
        """Switch the language; the screen is shown again in it."""
        shown = self.d.execute_script(
            "const v = document.getElementById('view'); const r = v.dataset.ready;v.dataset.ready = ''; return r;"
        )
        self.click(f"[data-lang='{code}']")
        self.wait(lambda d: d.execute_script("return document.documentElement.lang") == code)
        self.ready(shown)

    def drain_logs(self) -> None:
        """Collect the requests the page made and its console messages so far."""
        for entry in self.d.get_log("performance"):
            msg = json.loads(entry["message"])["message"]
            if msg["method"] == "Network.requestWillBeSent":
                self.requests.append(msg["params"]["request"]["url"])
        self.console += self.d.get_log("browser")

    def foreign_requests(self) -> list[str]:
        """Every request outside this server's /play/, /api/v1/ and /static/."""
        self.drain_logs()
        base = urlsplit(self.base)
        out = []
        for u in self.requests:
            p = urlsplit(u)
            if p.scheme == "data":
                continue
            if (p.scheme, p.netloc) != (base.scheme, base.netloc) or not (
                p.path in ("/play", "/play/") or p.path.startswith(("/api/v1/", "/static/"))
            ):
                out.append(u)
        return out

    def script_errors(self) -> list[str]:
        self.drain_logs()
        # a refusal is an HTTP 4xx the console reports as a failed resource; that is the server speaking, not a bug
        return [
            c["message"] for c in self.console if c["level"] == "SEVERE" and "the server responded" not in c["message"]
        ]


class Screens:
    def __init__(self, driver: WebDriver, folder: Path | None = None):
        self.d = driver
        self.folder = folder or SCREENS
        self.taken: list[Path] = []

    def shot(self, name: str, sizes=(PHONE, DESKTOP)) -> None:
        """Whole-page screenshots of the current screen at each size (the page is laid out at that width first)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        for width, height in sizes:
            label = "phone" if width == PHONE[0] else "desktop"
            mobile = label == "phone"
            self.d.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
            )
            time.sleep(0.2)
            full = self.d.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
            self.d.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": max(height, int(full["height"])), "deviceScaleFactor": 1, "mobile": mobile},
            )
            png = self.d.execute_cdp_cmd("Page.captureScreenshot", {"format": "png"})["data"]
            path = self.folder / f"play-{name}-{label}.png"
            path.write_bytes(base64.b64decode(png))
            self.taken.append(path)
            print(f"screenshot: {path}")
        self.d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
