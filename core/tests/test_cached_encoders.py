"""The request log's line (``core.logging``) and the bet/action check (``games.validation.check_request_json``) keep
one ``json.JSONEncoder`` for the process instead of the one ``json.dumps`` builds on every call with non-default
options: the same text or the same error for any value, also from several threads at once (the web's gthread
workers share it)."""

from __future__ import annotations

import json
import threading
from typing import Any

from hypothesis import given, settings

from core.logging import _ENCODER
from core.tests.test_json_copy import VALUES
from games.validation import _STRICT


def encoded(fn: Any, value: Any) -> tuple[str, Any]:
    try:
        return "text", fn(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return "error", (type(exc), str(exc))


@settings(max_examples=1000, deadline=None)
@given(VALUES)
def test_the_kept_encoders_write_what_json_dumps_writes(value):
    assert encoded(_STRICT.encode, value) == encoded(lambda v: json.dumps(v, allow_nan=False), value)
    assert encoded(_ENCODER.encode, value) == encoded(lambda v: json.dumps(v, ensure_ascii=False), value)


def test_a_circular_value_is_the_same_error_and_the_encoder_stays_usable():
    looped: list[Any] = []
    looped.append(looped)
    assert encoded(_STRICT.encode, looped) == ("error", (ValueError, "Circular reference detected"))
    assert _STRICT.encode({"a": [1, "ř"]}) == json.dumps({"a": [1, "ř"]}, allow_nan=False)


def test_threads_sharing_an_encoder_each_get_their_own_text():
    values = [{"player": i, "items": list(range(i % 50)), "name": f"hráč {i}"} for i in range(400)]
    results: dict[int, str] = {}

    def work(start: int) -> None:
        for i in range(start, len(values), 4):
            for _ in range(20):
                text = _ENCODER.encode(values[i])
                if results.setdefault(i, text) != text:
                    results[i] = "differs"

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results == {i: json.dumps(v, ensure_ascii=False) for i, v in enumerate(values)}
