"""The package's wire format: period and package names, identifiers, values and lines of the CSV data files
(UTF-8 without BOM, ``;``, CRLF, a metadata line and a header line; docs/regulator.md "Format")."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import IO
from zoneinfo import ZoneInfo

from django.conf import settings

from regulator import schema

PERIOD_HOURS = (0, 8, 16)
PERIOD_LENGTH = timedelta(hours=8)
PACKAGE_NAME_RE = re.compile(r"^([A-Za-z0-9_]{1,20})-(V)-([0-9]{10})-([a-zA-Z])-([0-9]{2})$")


def period_zone() -> ZoneInfo:
    """The time zone of the 8-hour boundaries (settings.REGULATOR_PERIOD_TIME_ZONE; Czech local time until the
    Ministry confirms otherwise)."""
    return ZoneInfo(settings.REGULATOR_PERIOD_TIME_ZONE)


def operator_id() -> str:
    return settings.REGULATOR_OPERATOR_ID


@dataclass(frozen=True)
class Period:
    """One 8-hour period [start, end) starting at 00, 08 or 16 local time (a DST day's period is 7 or 9 hours)."""

    start: datetime  # aware, in the period zone

    @classmethod
    def parse(cls, text: str) -> Period:
        """``YYYYMMDDHH`` (local time of the period zone); HH must be 00, 08 or 16."""
        if not re.fullmatch(r"\d{10}", text) or int(text[8:]) not in PERIOD_HOURS:
            raise ValueError(f"period {text!r}: YYYYMMDDHH with HH 00, 08 or 16")
        return cls(datetime.strptime(text, "%Y%m%d%H").replace(tzinfo=period_zone()))

    @classmethod
    def containing(cls, moment: datetime) -> Period:
        local = moment.astimezone(period_zone())
        hour = max(h for h in PERIOD_HOURS if h <= local.hour)
        return cls(datetime(local.year, local.month, local.day, hour, tzinfo=period_zone()))

    @property
    def end(self) -> datetime:
        idx = PERIOD_HOURS.index(self.start.hour)
        if idx + 1 < len(PERIOD_HOURS):
            return self.start.replace(hour=PERIOD_HOURS[idx + 1])
        nxt = (self.start.replace(tzinfo=None) + timedelta(days=1)).replace(hour=0)
        return nxt.replace(tzinfo=period_zone())

    @property
    def code(self) -> str:
        return self.start.strftime("%Y%m%d%H")

    def next(self) -> Period:
        return Period(self.end)

    def previous(self) -> Period:
        return Period.containing(self.start - timedelta(minutes=1))

    def contains(self, moment: datetime) -> bool:
        return self.start <= moment < self.end


def package_name(period: Period, version: int, game_type: str = schema.GAME_TYPE) -> str:
    return f"{operator_id()}-V-{period.code}-{game_type}-{version:02d}"


def ident(kind: str, key: object) -> str:
    """A record's identifier: the operator's id, a hyphen, the record kind and the platform's own key of the record
    (a primary key never reused), so the same record keeps the same identifier in every package."""
    return f"{operator_id()}-{kind}{key}"


def fmt_time(moment: datetime | None) -> str:
    """``YYYY-MM-DDThh:mm:ss.s+hh:mm`` in Czech local time, one fractional digit (truncated)."""
    if moment is None:
        return ""
    local = moment.astimezone(ZoneInfo("Europe/Prague"))
    offset = local.strftime("%z")
    return f"{local:%Y-%m-%dT%H:%M:%S}.{local.microsecond // 100000}{offset[:3]}:{offset[3:]}"


def fmt_money(minor: int | None) -> str:
    """Haléře as Kč with a decimal comma and two decimals: 1726 -> ``17,26``, -500 -> ``-5,00``."""
    if minor is None:
        return ""
    sign = "-" if minor < 0 else ""
    whole, part = divmod(abs(int(minor)), 100)
    return f"{sign}{whole},{part:02d}"


_NEEDS_QUOTES = re.compile(r'[;"]')


def _field(value: object) -> str:
    text = "" if value is None else str(value)
    text = text.replace("\r", " ").replace("\n", " ")  # a line break inside a field is invalid
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def line(values: Iterable[object]) -> bytes:
    return (";".join(_field(v) for v in values) + "\r\n").encode("utf-8")


def metadata_line(package: str, file_name: str, created: datetime) -> bytes:
    return f"#{package};{file_name};{fmt_time(created)};{schema.FORMAT_VERSION}\r\n".encode()


class FileWriter:
    """Writes one data file: the metadata and header lines, then one line per record; counts the records."""

    def __init__(self, out: IO[bytes], *, package: str, data_file: schema.DataFile, created: datetime) -> None:
        self.out, self.data_file, self.count = out, data_file, 0
        out.write(metadata_line(package, data_file.name, created))
        out.write(line(data_file.header))

    def write(self, record: dict[str, object]) -> None:
        self.out.write(line(record.get(name, "") for name in self.data_file.header))
        self.count += 1
