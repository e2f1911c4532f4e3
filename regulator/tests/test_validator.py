"""The package validator: each rule of the Ministry's with its ERR_* code, on a package the platform wrote and then
broke one thing in."""

from __future__ import annotations

import shutil
import zipfile
from datetime import UTC, datetime
from pathlib import Path

import pytest
import time_machine
from django.core.management import CommandError, call_command

from regulator import wire
from regulator.services import write_files
from regulator.validator import validate_folder, validate_zip
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start

pytestmark = pytest.mark.django_db
NAME = "12345678-V-2026030208-T-01"


@pytest.fixture
def package(tmp_path) -> Path:
    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=UTC), tick=False) as t:
        c = client_for(funded_player(100_000))
        for _ in range(3):
            assert start(c).status_code == 201
            t.shift(3)
    return write_files(wire.Period.parse("2026030208"), 1, tmp_path / NAME).folder


def _edit(folder: Path, name: str, line_no: int, old: str, new: str) -> None:
    lines = (folder / name).read_bytes().split(b"\r\n")
    assert old.encode() in lines[line_no - 1], lines[line_no - 1]
    lines[line_no - 1] = lines[line_no - 1].replace(old.encode(), new.encode(), 1)
    (folder / name).write_bytes(b"\r\n".join(lines))


def test_the_package_as_written_has_no_error(package):
    assert validate_folder(package).errors == []


@pytest.mark.parametrize(
    ("name", "line", "old", "new", "code"),
    [
        ("hra_toky.csv", 3, ";T;h;", ";L;h;", "ERR_FIELD_CTX_GAMETYPE"),
        ("hra_toky.csv", 3, ";T;h;", ";T;x;", "ERR_FIELD_CODEBOOK"),
        ("hra_toky.csv", 3, "12345678-HT", "87654321-HT", "ERR_FIELD_CTX_OPERATORID_PREFIX"),
        ("hra_toky.csv", 3, "+01:00", "", "ERR_FIELD_BAD_FORMAT_RE"),
        ("hra_toky.csv", 3, ";CZK;", ";CZK;;", "ERR_LINE_BAD_FIELD_COUNT"),
        ("hra_toky.csv", 3, ",00;", ".00;", "ERR_FIELD_BAD_FORMAT_RE"),
        ("hra_toky.csv", 3, ";CZK;", ";;", "ERR_FIELD_NOT_NULL"),
        ("konto.csv", 3, "2026-03-02T10:00:00.0+01:00", "2026-03-02T07:59:59.9+01:00", "ERR_FIELD_CTX_PKG_TIMESPAN"),
        ("konto.csv", 3, "2026-03-02T10:00:00.0+01:00", "2026-03-02T16:00:00.0+01:00", "ERR_FIELD_CTX_PKG_TIMESPAN"),
        ("konto.csv", 3, ";12345678;", ";12345679;", "ERR_FIELD_CTX_OPERTORID"),
        ("provozovatel.csv", 3, "12345678;", "12345678;" + "x" * 251, "ERR_FIELD_TOO_LONG"),
        ("ucet.csv", 2, "IDTransakce;", "IDTransakce2;", "ERR_LINE_BAD_HEADER"),
        ("ucet.csv", 1, ";ucet.csv;", ";konto.csv;", "ERR_META_FIELD_BAD_NAME"),
        ("ucet.csv", 1, "#12345678-V-2026030208-T-01", "#12345678-V-2026030208-T-02", "ERR_META_FIELD_BAD_PACKAGE"),
        ("ucet.csv", 1, ";1.0", ";1.1", "ERR_META_FIELD_VERSION"),
        ("ucet.csv", 1, ";1.0", ";1.0;x", "ERR_LINE_SPLIT_META"),
        ("konto_zmeny.csv", 3, ";0;1;", ";0;2;", "ERR_FIELD_CODEBOOK"),
    ],
)
def test_each_broken_rule_is_reported_with_the_ministrys_code(package, name, line, old, new, code):
    _edit(package, name, line, old, new)
    report = validate_folder(package)
    assert code in report.codes(), report.errors


def test_a_missing_or_extra_file_a_bad_line_end_and_bad_utf8_are_reported(package):
    shutil.copy(package / "ucet.csv", package / "mena_kurs.csv")
    (package / "misto.csv").unlink()
    codes = validate_folder(package).codes()
    assert "ERR_PKG_EXTRA_FILES" in codes and "ERR_PKG_MISSING_FILE" in codes


def test_a_line_ending_in_lf_only_and_bad_utf8_are_line_errors(package):
    data = (package / "hra_toky.csv").read_bytes().split(b"\r\n")
    (package / "hra_toky.csv").write_bytes(b"\r\n".join(data[:3]) + b"\n" + b"\r\n".join(data[3:]))
    assert "ERR_LINE_INVALID_CSV" in validate_folder(package).codes()
    (package / "konto.csv").write_bytes((package / "konto.csv").read_bytes().replace(b"12345678-K", b"\xff2345678-K"))
    assert "ERR_LINE_BAD_UTF8" in validate_folder(package).codes()


def test_a_self_limit_of_kind_a_needs_its_amount_and_currency(package):
    lines = (package / "sebeomezeni.csv").read_bytes()
    (package / "sebeomezeni.csv").write_bytes(
        lines + b"12345678-SO1;12345678-K1;a;;;;2026-03-02T10:00:00.0+01:00;2026-03-02T10:00:00.0+01:00;0;\r\n"
    )
    codes = validate_folder(package).codes()
    assert codes.count("ERR_FIELD_MANDATORY") == 2


def test_the_operator_file_holds_exactly_one_record(package):
    (package / "provozovatel.csv").write_bytes(
        b"\r\n".join((package / "provozovatel.csv").read_bytes().split(b"\r\n")[:2]) + b"\r\n"
    )
    assert "ERR_FILE_BAD_RECORD_COUNT" in validate_folder(package).codes()


def test_the_check_command_reads_a_zip_and_fails_on_errors(package, tmp_path, capsys):
    z = tmp_path / f"{NAME}.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in package.iterdir():
            zf.write(f, arcname=f.name)
    assert validate_zip(z).ok
    call_command("regulator_package_check", str(z))
    assert capsys.readouterr().out.strip().endswith("OK")
    _edit(package, "hra_toky.csv", 3, ";T;h;", ";L;h;")
    with pytest.raises(CommandError):
        call_command("regulator_package_check", str(package))
    assert "ERR_FIELD_CTX_GAMETYPE [hra_toky.csv] [3] [HraDruh/2]" in capsys.readouterr().out


def test_the_package_validates_with_the_ministrys_own_tables_and_a_break_is_found_there_too(package, settings):
    from regulator import schema
    from regulator.tests.ministry_tables import ministry_files

    data = Path(settings.BASE_DIR).parent / "shared" / "spec" / "regulator-data"
    if not (data / "fields_structure.csv").is_file():
        pytest.skip(f"the Ministry's tables are not at {data}")
    files, codes = ministry_files(data)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(schema, "FILES", files)
        mp.setattr(schema, "FILE_NAMES", tuple(files))
        mp.setattr(schema, "CODE_LISTS", codes)
        assert validate_folder(package).errors == []
        _edit(package, "hra_toky.csv", 3, ";CZK;", ";XYZ;")
        assert validate_folder(package).codes() == ["ERR_FIELD_CODEBOOK"]
