"""``/play/``: the shell page of the player web client. Everything else it does goes through /api/v1/ (static ES
modules under /static/playclient/); the page itself reads nothing from the domain apps."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.views.decorators.http import require_safe

# The same strict policy as the API docs (core.views.DOCS_CSP), stricter on styles: the client's scripts and styles
# are files of ours, nothing inline, nothing from another origin; it talks to its own origin only.
PLAY_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)


@require_safe
def play(request: HttpRequest) -> HttpResponse:
    """The single page; the client picks Czech or English (the browser's language first, then the switch)."""
    language = "en" if (translation.get_language() or "cs").startswith("en") else "cs"
    response = render(request, "playclient/index.html", {"language": language})
    response["Content-Security-Policy"] = PLAY_CSP
    response["Referrer-Policy"] = "no-referrer"  # the e-mail link's token stays out of any Referer
    response["Cache-Control"] = "no-store"
    return response
