"""The request log's line (``core.logging.log_fields``): written straight to the settings' console handler when it is
the one handler on the way, the same JSON line logging writes through its record; through logging otherwise."""

from __future__ import annotations

import io
import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.http import HttpResponse
from django.test import RequestFactory

from core.logging import JsonFormatter, RequestIdFilter, log_fields, reset_request_id, set_request_id
from core.middleware import RequestIdMiddleware

FIELDS: dict[str, object] = {
    "method": "POST",
    "path": "/api/v1/games/rounds",
    "status": 201,
    "duration_ms": 12.3,
    "user_id": 7,
    "other": ["not", "plain"],  # written as its text
    "none": None,
}


def _console(stream: io.StringIO) -> logging.StreamHandler[Any]:
    """The settings' console handler (config/settings/core.py LOGGING) on ``stream``."""
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    handler.addFilter(RequestIdFilter())
    return handler


@pytest.fixture
def log() -> Iterator[logging.Logger]:
    """A logger of its own, outside logging's tree (pytest puts its capture handlers on the loggers it knows)."""
    logger = logging.Logger("platform.test_request_log", logging.INFO)
    logger.propagate = False
    yield logger


@pytest.fixture
def frozen(monkeypatch: pytest.MonkeyPatch) -> float:
    now = 1_796_000_000.987_654  # the record's and the fast path's time.time()
    monkeypatch.setattr(time, "time", lambda: now)
    return now


def _no_record(log: logging.Logger, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: Any, **kwargs: Any) -> logging.LogRecord:
        raise AssertionError("a LogRecord was made")

    monkeypatch.setattr(log, "makeRecord", refused)


@pytest.mark.parametrize("request_id", ["abcdef0123456789", None])
def test_the_fast_line_is_the_one_logging_writes(log, frozen, monkeypatch, request_id):
    by_logging, by_fast = io.StringIO(), io.StringIO()
    token = set_request_id(request_id)
    try:
        log.addHandler(_console(by_logging))
        log.info("request", extra=FIELDS)
        log.handlers.clear()
        log.addHandler(_console(by_fast))
        _no_record(log, monkeypatch)  # the fast path was taken
        log_fields(log, logging.INFO, "request", FIELDS)
    finally:
        reset_request_id(token)
    assert by_fast.getvalue() == by_logging.getvalue()
    line = json.loads(by_fast.getvalue())
    assert list(line) == ["ts", "level", "logger", "msg", "request_id", *FIELDS]
    assert line["ts"] == "2026-11-30T00:53:20.987Z" and line["request_id"] == request_id
    assert line["other"] == "['not', 'plain']"


def test_a_level_below_the_logger_writes_nothing(log, monkeypatch):
    stream = io.StringIO()
    log.addHandler(_console(stream))
    log.setLevel(logging.WARNING)
    log_fields(log, logging.INFO, "request", FIELDS)
    assert stream.getvalue() == ""


def _taken_by_logging(log: logging.Logger) -> list[logging.LogRecord]:
    records: list[logging.LogRecord] = []
    original = log.makeRecord

    def spy(*args: Any, **kwargs: Any) -> logging.LogRecord:
        records.append(original(*args, **kwargs))
        return records[-1]

    log.makeRecord = spy  # type: ignore[method-assign]
    return records


def test_any_other_configuration_goes_through_logging(log):
    stream, other = io.StringIO(), io.StringIO()
    log.addHandler(_console(stream))
    other_handler = _console(other)
    log.addHandler(other_handler)  # a second handler (pytest's caplog, a logconfig's): both get the record
    records = _taken_by_logging(log)
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(records) == 1 and records[0].pathname == __file__  # the caller's line, as logger.info gave
    assert stream.getvalue() == other.getvalue() and json.loads(other.getvalue())["status"] == 201

    log.removeHandler(other_handler)
    log.addFilter(lambda record: False)  # a logger filter: logging applies it
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(records) == 2 and json.loads(stream.getvalue())["status"] == 201  # still the first line only

    log.filters.clear()
    log.handlers[0].setFormatter(logging.Formatter("%(message)s"))  # another formatter
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(records) == 3 and stream.getvalue().endswith("}\nrequest\n")

    log.handlers[0].setFormatter(JsonFormatter())
    log.handlers[0].setLevel(logging.ERROR)  # the handler's level: logging skips it
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(records) == 4 and stream.getvalue().endswith("}\nrequest\n")

    log.handlers[0].setLevel(logging.NOTSET)
    with pytest.raises(KeyError, match="overwrite 'message'"):  # a name a record reserves: refused, as before
        log_fields(log, logging.INFO, "request", {"message": "a reserved name"})
    # the fast path again with the settings' handler alone
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(records) == 4 and stream.getvalue().count("\n") == 3


def test_a_failed_write_is_reported_by_the_handler(log, monkeypatch):
    class Broken(io.StringIO):
        def write(self, text: str) -> int:
            raise OSError("disk full")

    handler = _console(Broken())
    log.addHandler(handler)
    reported: list[logging.LogRecord] = []
    monkeypatch.setattr(handler, "handleError", reported.append)
    log_fields(log, logging.INFO, "request", FIELDS)
    assert len(reported) == 1 and reported[0].getMessage() == "request" and reported[0].status == 201  # type: ignore[attr-defined]


def test_the_middleware_writes_its_line_by_the_fast_path(monkeypatch):
    stream = io.StringIO()
    log = logging.getLogger("platform.request")
    monkeypatch.setattr(log, "propagate", False)
    monkeypatch.setattr(log, "handlers", [_console(stream)])
    monkeypatch.setattr(log, "level", logging.INFO)
    _no_record(log, monkeypatch)
    log.manager._clear_cache()  # type: ignore[attr-defined]  # logging keeps isEnabledFor answers
    try:
        middleware = RequestIdMiddleware(lambda request: HttpResponse(status=204))
        response = middleware(RequestFactory().post("/api/v1/x", HTTP_X_REQUEST_ID="request-id-0001"))
    finally:
        log.manager._clear_cache()  # type: ignore[attr-defined]  # logging keeps isEnabledFor answers
    line = json.loads(stream.getvalue())
    assert response["X-Request-ID"] == "request-id-0001"
    assert {k: line[k] for k in ("logger", "msg", "request_id", "method", "path", "status", "user_id")} == {
        "logger": "platform.request",
        "msg": "request",
        "request_id": "request-id-0001",
        "method": "POST",
        "path": "/api/v1/x",
        "status": 204,
        "user_id": None,
    }
    assert set(line) == {
        "ts",
        "level",
        "logger",
        "msg",
        "request_id",
        "method",
        "path",
        "status",
        "duration_ms",
        "user_id",
    }


def test_a_line_is_encoded_as_the_standard_encoder_encodes_it():
    """``core.logging._line`` (the C encoder made once) writes what ``json.JSONEncoder(ensure_ascii=False).encode``
    writes for a line's flat dict of plain values."""
    import enum
    import math
    import random

    from core.logging import _ENCODER, _line

    class Level(enum.IntEnum):
        HIGH = 2

    class Text(str):
        pass

    rng = random.Random(7)
    values: list[object] = [
        None,
        True,
        False,
        0,
        -(2**70),
        12.3,
        1e-7,
        -0.0,
        math.nan,
        math.inf,
        "",
        "příliš žluťoučký",
        'a"b\\c\n\t\x00\u2028',
        "\ud800",
        Level.HIGH,
        Text("t"),
    ]
    for _ in range(2000):
        data = {
            rng.choice(["ts", "msg", "ř", "a b", ""]) + str(i): rng.choice(values) for i in range(rng.randint(0, 8))
        }
        assert _line(data) == _ENCODER.encode(data), data


def test_a_reserved_field_name_is_refused_every_time_not_only_the_first(log, caplog):
    """The names found free are remembered; a reserved one is never remembered and goes through logging each time."""
    from core import logging as core_logging

    for _ in range(2):
        assert core_logging._free(("method", "status")) is True
        assert core_logging._free(("method", "msg")) is False
        assert core_logging._free(("_private",)) is False
    assert ("method", "status") in core_logging._FREE_NAMES
    assert ("method", "msg") not in core_logging._FREE_NAMES
