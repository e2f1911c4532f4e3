"""The hot endpoints' renderer (``core.renderers.FastJSONRenderer``) refuses NaN and the infinities as DRF's does:
orjson writes them as ``null``, so an answer holding ``null`` is checked by a walk over its values
(``_floats_finite``), or by the standard library's strict encoder where the walk cannot tell. Compared here with
DRF's own renderer over generated answers: the same bytes, or a ValueError from both."""

from __future__ import annotations

import dataclasses
import enum
import json
import math
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rest_framework.renderers import JSONRenderer

from core.renderers import FastJSONRenderer, _floats_finite
from core.tests.test_json_copy import Colour, Items, Level, Real


class FloatValued(enum.Enum):
    NAN = math.nan
    HALF = 0.5


@dataclasses.dataclass
class Reading:
    value: float


def rendered(renderer: Any, data: Any) -> tuple[str, Any]:
    """The JSON value written (orjson spells some floats otherwise than DRF, ``0.00001`` for ``1e-05``: the same
    value), or how it was refused."""
    try:
        return "bytes", repr(json.loads(renderer.render(data)))
    except ValueError:
        return "refused", None
    except TypeError as exc:  # neither knows the type
        return "error", type(exc)


ANSWERS = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats()  # NaN and the infinities included
    | st.text(max_size=6)
    | st.sampled_from([Colour.RED, Level.HIGH, Real(1.5), Real("nan")]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=4).map(tuple)
        | st.lists(children, max_size=4).map(Items)
        | st.dictionaries(st.text(max_size=4), children, max_size=4)
        | st.dictionaries(st.text(max_size=4), children, max_size=4).map(OrderedDict)
    ),
    max_leaves=25,
)


@settings(max_examples=1000, deadline=None)
@given(ANSWERS)
def test_the_fast_renderer_gives_drfs_bytes_or_refuses_as_drf_does(data):
    assert rendered(FastJSONRenderer(), data) == rendered(JSONRenderer(), data)


@pytest.mark.parametrize(
    "data",
    [
        {"pending": None, "x": [1.0, {"y": math.nan}]},
        {"pending": None, "x": (math.inf,)},
        {"pending": None, "status": Colour.RED, "f": -math.inf},
        {"pending": None, "e": FloatValued.NAN},
        {"pending": None, "r": Reading(math.nan)},
        {"pending": None, "o": OrderedDict(a=math.nan)},
        [None, Items([math.inf])],
    ],
)
def test_a_nan_beside_a_null_is_never_written(data):
    """Refused as DRF refuses it; inside a type DRF does not know (a float enumeration, a dataclass), DRF's TypeError
    (orjson alone writes such types: the renderer's own documented difference, which only holds for finite data)."""
    assert rendered(FastJSONRenderer(), data) == rendered(JSONRenderer(), data)
    assert rendered(FastJSONRenderer(), data)[0] != "bytes"


def test_the_walk_answers_for_a_rounds_answer_and_defers_what_it_cannot_see():
    answer = {"status": Colour.RED, "pending": None, "steps": [{"win": 0, "ratio": 0.5}], "draws": [(37, 28)]}
    assert _floats_finite(answer) is True
    assert _floats_finite({**answer, "ratio": math.nan}) is False
    assert _floats_finite({**answer, "e": FloatValued.HALF}) is None  # the strict encoder decides
    assert _floats_finite({**answer, "o": OrderedDict()}) is None
