"""The hot views' negotiation (core/renderers.py ``HotContentNegotiation``) answers the common ``Accept`` headers
without parsing them, with what DRF's own negotiation answers for them; every other header goes to DRF's."""

from __future__ import annotations

import pytest
from rest_framework.exceptions import NotAcceptable
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BrowsableAPIRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from core.renderers import HOT_RENDERERS, HotContentNegotiation

ACCEPTS = [
    None,
    "*/*",
    "application/json",
    "application/json; indent=2",
    "text/html",
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "application/*",
    " application/json",
    "application/json, */*",
]


def _request(accept: str | None, query: str = "") -> Request:
    path = "/api/v1/games/rounds" + query
    factory = APIRequestFactory()
    return Request(factory.get(path) if accept is None else factory.get(path, HTTP_ACCEPT=accept))


@pytest.mark.parametrize("accept", ACCEPTS)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=api", "?page=2"])
def test_it_chooses_what_drf_chooses(accept: str | None, query: str):
    def outcome(negotiation: DefaultContentNegotiation) -> object:
        try:
            renderer, media_type = negotiation.select_renderer(_request(accept, query), [r() for r in HOT_RENDERERS])
        except NotAcceptable:  # ?format=api with a JSON-only Accept: refused by both
            return NotAcceptable
        return type(renderer), media_type

    assert outcome(HotContentNegotiation()) == outcome(DefaultContentNegotiation())


def test_the_shortcut_is_taken_only_for_the_common_headers_and_a_json_renderer_first():
    json_first = [JSONRenderer(), BrowsableAPIRenderer()]
    html_first = [BrowsableAPIRenderer(), JSONRenderer()]
    assert HotContentNegotiation().select_renderer(_request(None), json_first)[0] is json_first[0]
    # the browsable API first: DRF's answer (the HTML renderer for */*), not the shortcut's JSON
    chosen = HotContentNegotiation().select_renderer(_request("*/*"), html_first)
    assert chosen == (html_first[0], "text/html")


def test_an_unacceptable_header_is_still_refused():
    with pytest.raises(NotAcceptable):
        HotContentNegotiation().select_renderer(_request("image/png"), [r() for r in HOT_RENDERERS])
