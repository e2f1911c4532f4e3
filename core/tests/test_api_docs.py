"""The API documentation page loads nothing from a CDN and runs no third-party script."""

from __future__ import annotations

import re

from django.test import Client


def test_the_docs_page_uses_our_own_static_files_under_a_strict_policy(db):
    r = Client().get("/api/docs")
    assert r.status_code == 200
    html = r.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(s.startswith("/") for s in sources), sources  # nothing from another origin
    assert not re.search(r"cdn|jsdelivr|unpkg|@latest", html, re.I)
    assert any("drf_spectacular_sidecar/swagger-ui-dist/swagger-ui-bundle.js" in s for s in sources)
    assert "<script>" not in html.replace(" ", "")  # no inline script: the start-up script is a file of ours
    csp = r["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "http" not in csp and "unsafe-eval" not in csp
    init = [s for s in sources if "script=" in s or s.endswith(".js") and "sidecar" not in s]
    assert init, sources
    js = Client().get(init[0])
    assert js.status_code == 200 and b"SwaggerUIBundle" in js.content


def test_the_docs_page_itself_is_not_an_api_operation(db):
    assert "/api/docs" not in Client().get("/api/schema").content.decode()
