"""A package validator with the Ministry's rules and ERR_* codes (its reference validator's behaviour, docs/regulator.md
"Validation"), checking against the project's own definitions (:mod:`regulator.schema`): file set, lines, metadata,
header, field counts, types and domains, lengths, code lists, mandatory and mandatory-if items, and the context rules
(= operator id, starts with operator id, = package game type, within the package's period).

Stricter than the reference validator where the specification says so: the period check is implemented (a record
none of whose times lies in the package's period is flagged once, on its first time item); a record's metadata time
is checked as a DateTime. Streams each file line by line (bounded memory)."""

from __future__ import annotations

import csv
import io
import re
import tempfile
import zipfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import IO

from regulator import crypto, schema
from regulator.wire import PACKAGE_NAME_RE, Period

MAX_LINE = 64_000
MAX_ERRORS_PER_FILE = 1000

_DATETIME = re.compile(
    r"^(\d{4})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T([01][0-9]|2[0-3]):([0-5][0-9]):"
    r"([0-5][0-9]|60)(\.[0-9])(([+-]([01][0-9]|2[0-3]):([0-5][0-9]))|Z)$"
)
_DATE = re.compile(r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$")
_DECIMAL = {
    schema.D_MONEY: re.compile(r"^-?\d{1,13}(,\d{0,2})?$"),
    schema.D_GPS: re.compile(r"^-?\d{1,4},\d{4,7}$"),
    schema.D_COURSE: re.compile(r"^-?\d{1,18}(,\d{0,3})?$"),
}
_INTEGER = re.compile(r"^-?\d{1,10}$")
_IDENT = re.compile(r"^[\w-]+$")
_IDENT_EXT = re.compile(r"^\w+(-.*)?$")


@dataclass
class Report:
    errors: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)

    def add(self, code: str, where: str, message: str) -> None:
        self.errors.append(f"{code}{where}: {message}")

    @property
    def ok(self) -> bool:
        return not self.errors

    def codes(self) -> list[str]:
        return [e.split(" ")[0].split(":")[0] for e in self.errors]


def parse_time(value: str) -> datetime | None:
    if not _DATETIME.match(value):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None


class _Ctx:
    def __init__(self, package: str) -> None:
        m = PACKAGE_NAME_RE.match(package)
        self.package = package
        self.operator = m.group(1) if m else ""
        self.game_type = m.group(4) if m else ""
        try:
            self.period: Period | None = Period.parse(m.group(3)) if m else None
        except ValueError:
            self.period = None


def _presence(item: schema.Item, value: str, record: dict[str, str]) -> tuple[str, str] | None | bool:
    """An error, True when the (empty) item is allowed empty, False when it has a value to check further."""
    mandatory = item.mandatory
    if item.required_if:
        other = record.get(item.required_if[1], "")
        mandatory = (other == "") if item.required_if[0] == "empty" else (other in item.required_if[2])
        if mandatory and value == "":
            return "ERR_FIELD_MANDATORY", f"required when {item.required_if[1]} is {other or 'empty'}"
    if value == "":
        return ("ERR_FIELD_NOT_NULL", "must have a value") if mandatory else True
    return False


_LENGTH_TYPES = (
    schema.IDENTIFIER,
    schema.REFERENCE,
    schema.IDENTIFIER_EXT,
    schema.REFERENCE_EXT,
    schema.TEXT,
    schema.CODE,
)


def _format(item: schema.Item, value: str) -> tuple[str, str] | None:
    t = item.type
    if t in _LENGTH_TYPES:
        if item.min_len and len(value) < item.min_len:
            return "ERR_FIELD_TOO_SHORT", f"{value!r} shorter than {item.min_len}"
        if item.max_len and len(value) > item.max_len:
            return "ERR_FIELD_TOO_LONG", f"{value!r} longer than {item.max_len}"
    pattern = {
        schema.IDENTIFIER: _IDENT,
        schema.REFERENCE: _IDENT,
        schema.IDENTIFIER_EXT: _IDENT_EXT,
        schema.REFERENCE_EXT: _IDENT_EXT,
        schema.DATE: _DATE,
        schema.INTEGER: _INTEGER,
        schema.DECIMAL: _DECIMAL.get(item.domain),
    }.get(t)
    if pattern is not None and not pattern.match(value):
        return "ERR_FIELD_BAD_FORMAT_RE", f"{value!r} is not a valid {t} ({item.domain})"
    if t == schema.DATETIME and parse_time(value) is None:
        return "ERR_FIELD_BAD_FORMAT_RE", f"{value!r} is not YYYY-MM-DDThh:mm:ss.s+hh:mm"
    if t == schema.INTEGER and item.domain == schema.D_BINARY and value not in ("0", "1"):
        return "ERR_FIELD_DOMAIN_TYPE", f"{value!r} is not 0 or 1"
    if t == schema.CODE:
        allowed = ("0", "1") if item.domain == schema.D_BINARY else schema.CODE_LISTS.get(item.codes, ())
        if value not in allowed:
            return "ERR_FIELD_CODEBOOK", f"{value!r} is not in the code list {item.codes}"
    return None


def _context(item: schema.Item, value: str, ctx: _Ctx) -> tuple[str, str] | None:
    if item.context == schema.EQUALS_OPERATOR and value != ctx.operator:
        return "ERR_FIELD_CTX_OPERTORID", f"{value!r} is not the operator id {ctx.operator!r}"
    if item.context == schema.STARTS_WITH_OPERATOR and not value.startswith(ctx.operator):
        return "ERR_FIELD_CTX_OPERATORID_PREFIX", f"{value!r} does not start with {ctx.operator!r}"
    if item.context == schema.EQUALS_GAME_TYPE and value != ctx.game_type:
        return "ERR_FIELD_CTX_GAMETYPE", f"{value!r} is not the package's game type {ctx.game_type!r}"
    return None


def _check_item(item: schema.Item, value: str, record: dict[str, str], ctx: _Ctx) -> tuple[str, str] | None:
    """The first error of one item, as (code, message), or None."""
    presence = _presence(item, value, record)
    if presence is True:
        return None
    if presence is not False:
        return presence
    return _format(item, value) or _context(item, value, ctx)


def _lines(fh: IO[bytes]) -> Iterator[tuple[int, bytes | None, str]]:
    """(line number, raw line without CRLF or None for an error, error code)."""
    n = 0
    for raw in fh:
        n += 1
        if len(raw) > MAX_LINE:
            yield n, None, "ERR_LINE_TOO_LONG"
            continue
        if not raw.endswith(b"\r\n"):
            if raw.endswith(b"\n") or raw.endswith(b"\r") or not raw:
                yield n, None, "ERR_LINE_INVALID_CSV"
                continue
            yield n, None, "ERR_LINE_INVALID_CSV"  # the last line lacks its CRLF
            continue
        yield n, raw[:-2], ""


def validate_file(name: str, fh: IO[bytes], package: str, report: Report) -> None:
    data_file = schema.FILES[name]
    ctx = _Ctx(package)
    header_seen, records, errors_before = False, 0, len(report.errors)
    for n, raw, err in _lines(fh):
        where = f" [{name}] [{n}]"
        if len(report.errors) - errors_before >= MAX_ERRORS_PER_FILE:
            report.add("ERR_FILE_TOO_MANY_ERRORS", f" [{name}]", "validation of the file stopped")
            return
        if raw is None:
            report.add(err, where, "line too long" if err == "ERR_LINE_TOO_LONG" else "a line must end with CRLF")
            if n <= 2:
                return
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            report.add("ERR_LINE_BAD_UTF8", where, "not valid UTF-8")
            return
        if n == 1:
            text = text.removeprefix("\ufeff")
            if not _metadata_ok(text, name, package, where, report):
                return
            continue
        if n == 2:
            header_seen = True
            if text != ";".join(data_file.header):
                report.add("ERR_LINE_BAD_HEADER", where, f"expected {';'.join(data_file.header)!r}")
                return
            continue
        try:
            values = next(csv.reader(io.StringIO(text), delimiter=";", quotechar='"', strict=True))
        except (csv.Error, StopIteration):
            report.add("ERR_LINE_INVALID_CSV", where, "not a valid CSV line")
            continue
        if len(values) != len(data_file.items):
            report.add("ERR_LINE_BAD_FIELD_COUNT", where, f"{len(values)} fields, {len(data_file.items)} expected")
            continue
        records += 1
        record = dict(zip(data_file.header, values, strict=True))
        _check_record(data_file, record, ctx, where, report)
    if not header_seen:
        report.add("ERR_LINE_BAD_HEADER", f" [{name}]", "the file has no header line")
    if name == "provozovatel.csv" and records != 1:
        report.add("ERR_FILE_BAD_RECORD_COUNT", f" [{name}]", f"exactly 1 record expected, found {records}")
    report.counts[name] = records


def _metadata_ok(text: str, name: str, package: str, where: str, report: Report) -> bool:
    if not text.startswith("#"):
        report.add("ERR_LINE_BAD_META", where, "line 1 must start with #")
        return False
    parts = text[1:].split(";")
    if len(parts) != 4:
        report.add("ERR_LINE_SPLIT_META", where, f"{len(parts)} parts, 4 expected")
        return False
    ok = True
    if parts[0].lower() != package.lower():
        report.add("ERR_META_FIELD_BAD_PACKAGE", where, f"{parts[0]!r} is not the package {package!r}")
        ok = False
    if parts[1].lower() != name.lower():
        report.add("ERR_META_FIELD_BAD_NAME", where, f"{parts[1]!r} is not the file {name!r}")
        ok = False
    if parse_time(parts[2]) is None:
        report.add("ERR_META_FIELD_DATETIME", where, f"{parts[2]!r} is not a DateTime")
        ok = False
    if parts[3] != schema.FORMAT_VERSION:
        report.add("ERR_META_FIELD_VERSION", where, f"{parts[3]!r} is not {schema.FORMAT_VERSION}")
        ok = False
    return ok


def _check_record(data_file: schema.DataFile, record: dict[str, str], ctx: _Ctx, where: str, report: Report) -> None:
    times: list[tuple[str, datetime]] = []
    for pos, item in enumerate(data_file.items, 1):
        value = record[item.name].strip()
        problem = _check_item(item, value, record, ctx)
        if problem:
            report.add(problem[0], f"{where} [{item.name}/{pos}]", problem[1])
        elif item.context == schema.WITHIN_PERIOD and value:
            moment = parse_time(value)
            if moment is not None:
                times.append((item.name, moment))
    if times and ctx.period is not None and not any(ctx.period.contains(t) for _, t in times):
        report.add(
            "ERR_FIELD_CTX_PKG_TIMESPAN",
            f"{where} [{times[0][0]}]",
            f"no time of the record lies in the package's period {ctx.period.code}",
        )


def validate_members(
    package: str, members: Iterable[str], opener: Callable[[str], IO[bytes]], report: Report
) -> Report:
    """The file set, then every file (``opener(name)`` opens one for binary reading)."""
    names = {m.rsplit("/", 1)[-1]: m for m in members if not m.endswith("/")}
    extra = sorted(set(names) - set(schema.FILE_NAMES))
    missing = sorted(set(schema.FILE_NAMES) - set(names))
    if not PACKAGE_NAME_RE.match(package):
        report.add("ERR_PKG", "", f"{package!r} is not a package name")
        return report
    m = PACKAGE_NAME_RE.match(package)
    assert m is not None
    try:
        Period.parse(m.group(3))
    except ValueError as exc:
        report.add("ERR_FIELD_CTX_PGKDATE", "", str(exc))
        return report
    if extra:
        report.add("ERR_PKG_EXTRA_FILES", "", ", ".join(extra))
    if missing:
        report.add("ERR_PKG_MISSING_FILE", "", ", ".join(missing))
    if extra or missing:
        return report
    for name in schema.FILE_NAMES:
        with opener(names[name]) as fh:
            validate_file(name, fh, package, report)
    return report


def validate_folder(folder: Path, package: str | None = None) -> Report:
    package = package or folder.name
    return validate_members(
        package, [p.name for p in folder.iterdir() if p.is_file()], lambda n: open(folder / n, "rb"), Report()
    )


def validate_zip(path: Path, package: str | None = None) -> Report:
    report = Report()
    package = package or path.name.split(".")[0]
    try:
        zf = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as exc:
        report.add("ERR_PKG_UNZIP", "", str(exc))
        return report
    with zf:
        return validate_members(package, zf.namelist(), zf.open, report)


def validate_sealed(path: Path, *, trusted_seal: Path, decrypt_cert: Path, decrypt_key: Path) -> Report:
    """The Ministry's order: verify the seal, decrypt, unzip, validate."""
    report = Report()
    package = path.name.split(".")[0]
    data = path.read_bytes()
    if not data.startswith(b"\x30"):
        report.add("ERR_PKG_SIG_INVALID_DER", "", "not ASN.1 DER")
        return report
    with tempfile.TemporaryDirectory() as tmp:
        p7e, z = Path(tmp, "x.p7e"), Path(tmp, "x.zip")
        try:
            crypto.verify(path, p7e, trusted_seal)
        except crypto.SealError as exc:
            msg = str(exc)
            code = (
                "ERR_PKG_SIG_INVALID_DER"
                if "asn1" in msg.lower() or "parsing" in msg.lower()
                else ("ERR_PKG_SIG_CERT_UNTRUSTED" if "certificate" in msg.lower() else "ERR_PKG_SIG_INVALID_SIGNATURE")
            )
            report.add(code, "", msg)
            return report
        try:
            crypto.decrypt(p7e, z, decrypt_cert, decrypt_key)
        except crypto.SealError as exc:
            msg = str(exc)
            code = (
                "ERR_PKG_ENC_RECIPIENT"
                if "recipient" in msg.lower()
                else ("ERR_PKG_ENC_INVALID_DER" if "asn1" in msg.lower() else "ERR_PKG_ENC_BAD_DATA")
            )
            report.add(code, "", msg)
            return report
        result = validate_zip(z, package)
    report.errors += result.errors
    report.counts = result.counts
    return report
