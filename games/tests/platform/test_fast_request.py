"""The hot path's request checks (``round_play_request_fast``, ``round_act_request_fast``) give exactly what the
serializers' ``validated_data`` gives for the bodies they accept, and accept nothing the serializer would refuse
(those bodies go to the serializer, whose refusals the API tests pin); the JSON renderer of the hot endpoints writes
what DRF's ``JSONRenderer`` writes."""

from __future__ import annotations

import json
import math
from decimal import Decimal
from typing import Any

import pytest
from rest_framework.renderers import JSONRenderer

from core.renderers import FastJSONRenderer
from games.serializers import (
    RoundActRequestSerializer,
    RoundPlayRequestSerializer,
    round_act_request_fast,
    round_play_request_fast,
)

CZK = "CZK"
PLAY_BODIES: list[Any] = [
    {"game": "european_roulette", "bet": {"bets": [{"type": "red", "amount": {"amount": 100, "currency": CZK}}]}},
    {"game": "kobushi", "bet": {"lines": 30, "coins": 1, "coin_value": {"amount": 10, "currency": CZK}}},
    {"game": "kobushi", "bet": {}, "extra": "ignored by both"},
    {"game": "x" * 60, "bet": {"lines": [1, 2, {"stake": {"amount": 5, "currency": CZK}}]}},
]
REFUSED_OR_OTHER: list[Any] = [
    None,
    [],
    "text",
    7,
    {},
    {"game": "kobushi"},
    {"bet": {}},
    {"game": "", "bet": {}},
    {"game": " kobushi", "bet": {}},
    {"game": "x" * 61, "bet": {}},
    {"game": "kob\x00ushi", "bet": {}},
    {"game": "Kobushi", "bet": {}},
    {"game": 12, "bet": {}},
    {"game": True, "bet": {}},
    {"game": "kobushi", "bet": []},
    {"game": "kobushi", "bet": None},
    {"game": "kobushi", "bet": {"coin_value": 10}},
    {"game": "kobushi", "bet": {"coin_value": {"amount": 1.5, "currency": CZK}}},
    {"game": "kobushi", "bet": {"coin_value": {"amount": 1, "currency": "EUR"}}},
    {"game": "kobushi", "bet": {}, "forced_draws": [[0, 1]]},
]


@pytest.mark.parametrize("body", PLAY_BODIES)
def test_a_common_round_body_gives_what_the_serializer_gives(body):
    serializer = RoundPlayRequestSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    assert round_play_request_fast(body) == (serializer.validated_data["game"], serializer.validated_data["bet"])
    assert "forced_draws" not in serializer.validated_data


@pytest.mark.parametrize("body", REFUSED_OR_OTHER)
def test_any_other_round_body_is_left_to_the_serializer(body):
    assert round_play_request_fast(body) is None


@pytest.mark.parametrize(
    "body", [{"action": {"type": "spin"}}, {"action": {}}, {"action": {"type": "pick", "n": 2}, "x": 1}]
)
def test_a_common_action_body_gives_what_the_serializer_gives(body):
    serializer = RoundActRequestSerializer(data=body)
    assert serializer.is_valid(), serializer.errors
    assert round_act_request_fast(body) == serializer.validated_data["action"]


@pytest.mark.parametrize("body", [None, [], {}, {"action": None}, {"action": []}, {"action": "spin"}])
def test_any_other_action_body_is_left_to_the_serializer(body):
    assert round_act_request_fast(body) is None


RENDERED: list[Any] = [
    {"id": 1, "status": "finished", "pending": None, "steps": [{"symbols": ["A", "K"], "win": 0}], "ok": True},
    {"name_cs": "Evropská ruleta – červená", "rtp": "97.30", "ratio": 0.25, "big": 2**62},
    {"text": "line\u2028separator\u2029paragraph"},
    [],
    {},
    "plain",
    0,
]


@pytest.mark.parametrize("data", RENDERED)
def test_the_fast_renderer_writes_what_drfs_renderer_writes(data):
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


@pytest.mark.parametrize("data", [{"amount": Decimal("1.50")}, {1: "non-string key"}, {"huge": 2**70}])
def test_types_the_fast_encoder_does_not_know_go_to_drfs_encoder(data):
    assert FastJSONRenderer().render(data) == JSONRenderer().render(data)


@pytest.mark.parametrize("data", [{"x": math.nan}, {"x": [1.0, math.inf]}, {"x": None, "y": -math.inf}])
def test_nan_and_infinity_are_refused_as_drf_refuses_them(data):
    with pytest.raises(ValueError):
        JSONRenderer().render(data)
    with pytest.raises(ValueError):
        FastJSONRenderer().render(data)


def test_an_indented_answer_is_drfs_own():
    data = {"a": [1, 2]}
    indented = FastJSONRenderer().render(data, "application/json; indent=2")
    assert indented == JSONRenderer().render(data, "application/json; indent=2") and b"\n" in indented
    assert json.loads(indented) == data
