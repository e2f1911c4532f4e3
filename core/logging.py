"""Structured (JSON) logging with the request id of the request being served."""

from __future__ import annotations

import contextvars
import json
import logging
import time
from typing import Any

_request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("request_id", default=None)


def get_request_id() -> str | None:
    return _request_id.get()


def set_request_id(value: str | None) -> contextvars.Token[str | None]:
    return _request_id.set(value)


def reset_request_id(token: contextvars.Token[str | None]) -> None:
    _request_id.reset(token)


class RequestIdFilter(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = get_request_id()
        return True


_STD = set(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime", "request_id"}


#: ``json.dumps(data, ensure_ascii=False)`` builds this encoder on every call (every log line); one for the process
#: writes the same text (an encoder keeps no state between calls)
_ENCODER = json.JSONEncoder(ensure_ascii=False)

#: the C function that encoder's ``encode`` makes on every call (``iterencode``: the encoder's settings read, a
#: closure and the C encoder built), made once: the same settings, without the circular-reference bookkeeping, which a
#: line cannot need (a flat dict of the types :func:`_plain` lets through); None without the C accelerator
_C_ENCODE: Any = (
    json.encoder.c_make_encoder(  # type: ignore[attr-defined]  # the C accelerator is not in the stubs
        None, _ENCODER.default, json.encoder.encode_basestring, None, ": ", ", ", False, False, True
    )
    if getattr(json.encoder, "c_make_encoder", None) is not None
    else None
)


def _line(data: dict[str, object]) -> str:
    """``_ENCODER.encode(data)`` for a line's flat dict of plain values: the same text."""
    if _C_ENCODE is None:
        return _line(data)
    return "".join(_C_ENCODE(data, 0))


def _head(created: float, levelname: str, name: str, msg: str, request_id: str | None) -> dict[str, object]:
    """The first fields of a line, in their order: the time (UTC, to the millisecond, as ``LogRecord.msecs``
    truncates it), the level, the logger, the message, the request id."""
    return {
        "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created))
        + f".{int((created - int(created)) * 1000):03d}Z",
        "level": levelname,
        "logger": name,
        "msg": msg,
        "request_id": request_id,
    }


def _plain(value: object) -> object:
    """A field's value as the line writes it: JSON's own types as they are, anything else as its text."""
    return value if isinstance(value, (str, int, float, bool, type(None))) else str(value)


#: the exact types :func:`_plain` gives back as they are (checked before calling it)
_PLAIN_TYPES = frozenset((str, int, float, bool, type(None)))
#: the field names already checked to be none that a record reserves (the request log's, once per process)
_FREE_NAMES: set[tuple[str, ...]] = set()


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = _head(
            record.created, record.levelname, record.name, record.getMessage(), getattr(record, "request_id", None)
        )
        for key, value in vars(record).items():
            if key not in _STD and not key.startswith("_"):
                data[key] = _plain(value)
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return _line(data)


def _json_console(log: logging.Logger, level: int) -> logging.StreamHandler[Any] | None:
    """The one handler a record of ``log`` at ``level`` would reach when it is the settings' console handler as
    configured (a ``StreamHandler`` itself, the :class:`JsonFormatter`, only the :class:`RequestIdFilter`, a level
    that lets the record through) and no logger filter or other handler is in the way; else None. Walks what
    ``Logger.handle`` and ``callHandlers`` walk (the logger's filters, then every handler up to a logger that does not
    propagate), so a handler added at run time (pytest's ``caplog``, a ``logconfig``) is seen from the next line on."""
    if log.disabled or log.filters:
        return None
    found: logging.Handler | None = None
    current: logging.Logger | None = log
    while current is not None:
        for handler in current.handlers:
            if found is not None:
                return None
            found = handler
        if not current.propagate:
            break
        current = current.parent
    if (
        type(found) is not logging.StreamHandler
        or found.level > level
        or type(found.formatter) is not JsonFormatter
        or len(found.filters) != 1
        or type(found.filters[0]) is not RequestIdFilter
    ):
        return None  # none (logging's last resort), several, or one configured otherwise: logging writes it
    return found


def _free(names: tuple[str, ...]) -> bool:
    """Whether no name of ``names`` is one a log record reserves (or private); remembered when so (a bounded set:
    the callers' field names are fixed in the code)."""
    if any(key in _STD or key.startswith("_") for key in names):
        return False
    if len(_FREE_NAMES) < 256:
        _FREE_NAMES.add(names)
    return True


def log_fields(log: logging.Logger, level: int, msg: str, fields: dict[str, object]) -> None:
    """``log.log(level, msg, extra=fields)``, written without the ``LogRecord`` when :func:`_json_console` finds the
    console handler alone on the way: the same JSON line (:class:`JsonFormatter`'s fields in its order, then
    ``fields`` in theirs), written with the handler's terminator under its lock and flushed, as its ``emit`` does. Any
    other configuration, a field name a record reserves, or a failed write goes through logging itself. The request
    log's line (``core.middleware``): logging's record, caller lookup and handler calls were ~1.9 % of a round."""
    if not log.isEnabledFor(level):
        return
    handler = _json_console(log, level)
    names = tuple(fields)
    if handler is None or (names not in _FREE_NAMES and not _free(names)):
        log.log(level, msg, extra=fields, stacklevel=2)
        return
    data = _head(time.time(), logging.getLevelName(level), log.name, msg, get_request_id())
    for key, value in fields.items():
        data[key] = value if type(value) in _PLAIN_TYPES else _plain(value)
    try:
        line = _line(data) + handler.terminator
        with handler.lock:  # type: ignore[union-attr]  # created by Handler.__init__
            stream = handler.stream
            stream.write(line)
            if stream and hasattr(stream, "flush"):  # StreamHandler.flush, under the lock already held
                stream.flush()
    except RecursionError:  # as StreamHandler.emit
        raise
    except Exception:  # noqa: BLE001 - as StreamHandler.emit: the handler reports it (logging.raiseExceptions)
        record = log.makeRecord(log.name, level, "(unknown file)", 0, msg, (), None, extra=fields)
        record.request_id = get_request_id()
        handler.handleError(record)
