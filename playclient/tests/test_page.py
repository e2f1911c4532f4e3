"""The player web client's page and files, without a browser. The page is one HTML shell under a
strict Content-Security-Policy (no inline script, nothing from another origin), its files are our own static files
(no CDN, no build step), every request is built in api.js, and the Czech and English dictionaries have the same keys.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

STATIC = Path(__file__).resolve().parent.parent / "static" / "playclient"
SCRIPTS = sorted(STATIC.rglob("*.js"))


def directives(csp: str) -> dict[str, list[str]]:
    return {d.split()[0]: d.split()[1:] for d in (x.strip() for x in csp.split(";")) if d}


@pytest.mark.parametrize("path", ["/play", "/play/"])
def test_the_page_is_served_under_a_strict_policy_that_runs_only_our_own_scripts(db, path):
    r = Client().get(path, HTTP_ACCEPT_LANGUAGE="en")
    assert r.status_code == 200 and r["Content-Type"].startswith("text/html")
    policy = directives(r["Content-Security-Policy"])
    assert policy["script-src"] == ["'self'"] and policy["default-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"] and policy["connect-src"] == ["'self'"]
    assert policy["object-src"] == ["'none'"] and policy["base-uri"] == ["'none'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert not [v for values in policy.values() for v in values if "unsafe" in v or "http" in v or v == "*"]
    html = r.content.decode()
    assert 'lang="en"' in html
    assert not re.search(r"<script(?![^>]*\bsrc=)", html)  # no inline script
    assert not re.search(r"\sstyle=|<style", html)  # no inline style
    sources = re.findall(r'(?:src|href)="([^"#]+)"', html)
    assert sources and all(s.startswith("/static/playclient/") or s == "data:," for s in sources), sources


def test_the_page_takes_no_other_method_and_no_player_data(db):
    assert Client().post("/play").status_code == 405
    assert "Token" not in Client().get("/play").content.decode()


def test_every_file_the_page_loads_is_a_committed_static_file_of_ours():
    html = (STATIC.parent.parent / "templates" / "playclient" / "index.html").read_text()
    for name in re.findall(r"static 'playclient/([^']+)'", html):
        assert finders.find(f"playclient/{name}"), name
    imported = {m for f in SCRIPTS for m in re.findall(r'from "(\.{1,2}/[^"]+)"', f.read_text())}
    assert imported and all(m.endswith(".js") for m in imported)  # plain ES modules, no bundler names
    for f in SCRIPTS:
        for m in re.findall(r'from "(\.{1,2}/[^"]+)"', f.read_text()):
            assert (f.parent / m).resolve().is_file(), (f, m)


def test_requests_are_built_in_the_api_module_only_and_only_for_our_origin():
    for f in SCRIPTS:
        text = f.read_text()
        assert not re.search(r"https?://", text.replace("http://www.w3.org", "")), f  # no other origin
        assert not re.search(r"\beval\(|new Function\(|innerHTML", text), f
        if f.name != "api.js":
            assert not re.search(r"\bfetch\(|XMLHttpRequest|Idempotency-Key", text), f
    api = (STATIC / "api.js").read_text()
    assert 'API_ROOT = "/api/v1"' in api and '"Idempotency-Key"' in api and '"Accept-Language"' in api


def _keys(path: Path) -> set[str]:
    """The keys of a dictionary file (``"nav.games": "..."`` or ``brand: "..."``)."""
    return {a or b for a, b in re.findall(r'(?:^|,|\{)\s*(?:"([\w.]+)"|([a-z]\w*)):\s*"', path.read_text(), re.M)}


def test_czech_and_english_have_the_same_strings_and_every_string_the_screens_use():
    cs, en = _keys(STATIC / "i18n" / "cs.js"), _keys(STATIC / "i18n" / "en.js")
    assert len(cs) > 300 and cs == en, cs ^ en
    used = {k for f in SCRIPTS for k in re.findall(r'\bt\("([\w.]+)"', f.read_text())}
    assert used and used <= cs, used - cs
