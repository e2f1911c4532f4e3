"""config/gunicorn.conf.py's access log (``JsonAccessLogger``): one JSON line per request, written by ``write_line``
straight to gunicorn's own stream or file handler (the text logging would have written, without the record it builds
for it), through ``handle`` for any other handler; the process id kept across forks."""

from __future__ import annotations

import json
import logging
import os
import runpy
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from gunicorn.config import Config

ROOT = Path(__file__).resolve().parent.parent
CONFIG = str(ROOT / "config" / "gunicorn.conf.py")


@pytest.fixture(scope="module")
def conf() -> dict[str, Any]:
    return runpy.run_path(CONFIG)


def access_logger(conf: dict[str, Any], accesslog: str) -> Any:
    """The logger gunicorn makes from this configuration (its own handlers and formatter)."""
    cfg = Config()
    cfg.set("accesslog", accesslog)
    cfg.set("errorlog", "-")
    cfg.set("logger_class", conf["logger_class"])
    return cfg.logger_class(cfg)


def response(**headers: str) -> Any:
    base = [("Content-Type", "application/json"), ("X-Request-ID", "req-0123456789"), ("Content-Length", "17")]
    return SimpleNamespace(headers=base + list(headers.items()), status="201 Created", sent=17)


ENVIRON = {"REMOTE_ADDR": "10.1.2.3", "REQUEST_METHOD": "POST", "PATH_INFO": '/api/v1/games/rounds/ř"x'}


def test_one_json_line_per_request_with_every_field(conf, tmp_path):
    path = tmp_path / "access.log"
    log = access_logger(conf, str(path))
    log.access(response(**{"X-SQL-Count": "9"}), None, ENVIRON, timedelta(microseconds=14_760))
    log.access(response(), None, {**ENVIRON, "REQUEST_METHOD": "GET"}, timedelta(milliseconds=3))
    first, second = (json.loads(line) for line in path.read_text(encoding="utf-8").splitlines())
    assert first.pop("ts").endswith("Z")
    assert first == {
        "level": "INFO",
        "logger": "gunicorn.access",
        "remote": "10.1.2.3",
        "method": "POST",
        "path": '/api/v1/games/rounds/ř"x',
        "status": 201,
        "bytes": 17,
        "duration_ms": 14.8,
        "request_id": "req-0123456789",
        "pid": os.getpid(),
        "sql": 9,
    }
    assert "sql" not in second and second["method"] == "GET"
    assert "ř" in path.read_text(encoding="utf-8")  # ensure_ascii=False, as json.dumps wrote it


@pytest.mark.parametrize("target", ["file", "stream"])
def test_the_line_is_what_logging_writes_without_the_record(conf, tmp_path, monkeypatch, target):
    """gunicorn's own handlers (a file for a path, a stream for ``-``) get the bytes ``log.info`` would have
    written, and no record is made for them (the fast path is taken: a gunicorn whose handlers change shape fails
    here instead of falling back unnoticed)."""
    path = tmp_path / "access.log"
    log = access_logger(conf, str(path) if target == "file" else "-")
    handler = next(h for h in log.access_log.handlers if getattr(h, "_gunicorn", False))
    monkeypatch.setattr(log.access_log, "handlers", [handler])  # gunicorn's own (pytest adds its capture's)
    if target == "stream":
        handler.setStream(path.open("w", encoding="utf-8"))
    text = '{"a": "ř", "b": 1}'
    log.access_log.info(text)  # logging's own way
    monkeypatch.setattr(log.access_log, "makeRecord", lambda *a, **k: pytest.fail("a record was made"))
    conf["write_line"](log.access_log, text)
    assert path.read_text(encoding="utf-8") == text + "\n" + text + "\n"


def test_other_handlers_get_the_record_as_before(conf, tmp_path, monkeypatch):
    """A handler that is not a plain stream or file (syslog, a ``logconfig``'s) or one with its own formatter or
    filter gets the record through ``handle``: its level, filters and format apply."""
    log = access_logger(conf, str(tmp_path / "access.log"))
    seen: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            seen.append(self.format(record))

    formatted = logging.StreamHandler((tmp_path / "formatted.log").open("w", encoding="utf-8"))
    formatted.setFormatter(logging.Formatter("%(name)s %(levelname)s %(message)s"))
    quiet = Collect(level=logging.WARNING)
    filtered = logging.StreamHandler((tmp_path / "filtered.log").open("w", encoding="utf-8"))
    filtered.setFormatter(logging.Formatter("%(message)s"))
    filtered.addFilter(lambda record: False)
    gunicorns = [h for h in log.access_log.handlers if getattr(h, "_gunicorn", False)]
    monkeypatch.setattr(log.access_log, "handlers", [*gunicorns, Collect(), formatted, quiet, filtered])
    conf["write_line"](log.access_log, "line")
    formatted.flush()
    assert seen == ["line"]
    assert (tmp_path / "formatted.log").read_text() == "gunicorn.access INFO line\n"
    assert (tmp_path / "filtered.log").read_text() == ""
    assert (tmp_path / "access.log").read_text() == "line\n"


def test_a_reopened_log_file_gets_the_next_line(conf, tmp_path):
    """``USR1`` (log rotation): gunicorn reopens its files; the next line goes to the new file."""
    path = tmp_path / "access.log"
    log = access_logger(conf, str(path))
    conf["write_line"](log.access_log, "before")
    path.rename(tmp_path / "access.log.1")
    log.reopen_files()
    conf["write_line"](log.access_log, "after")
    assert (tmp_path / "access.log.1").read_text() == "before\n"
    assert path.read_text() == "after\n"


def test_a_line_that_cannot_be_written_does_not_fail_the_request(conf, tmp_path):
    log = access_logger(conf, str(tmp_path / "access.log"))
    handler = next(h for h in log.access_log.handlers if getattr(h, "_gunicorn", False))
    handler.stream.close()  # a write now raises ValueError
    log.access(response(), None, ENVIRON, timedelta(milliseconds=1))  # no exception


@pytest.mark.process  # forks
def test_the_pid_of_each_line_is_the_writing_process(conf):
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through the pipe
        os.write(write, str(conf["_PID"][0] == os.getpid() != os.getppid()).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    assert os.read(read, 16) == b"True"
    assert conf["_PID"][0] == os.getpid()


@pytest.mark.parametrize(
    "path",
    ["/api/v1/games/rounds", '/a "quoted" ř path\\', "/\x00\x7f\u2028", "/lone \udcff surrogate", "/" + "é" * 300],
)
def test_the_line_encodes_the_object_json_would(conf, path):
    """orjson's text (compact) or, for what it refuses (a lone surrogate), the json module's: either way the same
    object comes back."""
    line = {"ts": "2026-12-07T11:00:00.000Z", "path": path, "status": 201, "bytes": 0, "duration_ms": 14.7, "sql": 9}
    text = conf["encode_line"](line)
    assert json.loads(text) == line
    assert text == (
        json.dumps(line, ensure_ascii=False)
        if "\udcff" in path
        else json.dumps(line, separators=(",", ":"), ensure_ascii=False)
    )
