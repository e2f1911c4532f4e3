"""Writing a period's data files from real rounds and postings, and validating them with the package validator."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
import time_machine

from regulator import wire
from regulator.services import write_files
from regulator.validator import parse_time, validate_folder
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db


def _rows(folder, name):
    lines = (folder / name).read_bytes().split(b"\r\n")
    assert lines[-1] == b""
    header = lines[1].decode().split(";")
    return [dict(zip(header, ln.decode().split(";"), strict=True)) for ln in lines[2:-1]]


def _kc(text: str) -> int:
    return int(Decimal(text.replace(",", ".")) * 100) if text else 0


def test_the_wire_values_are_czech_local_time_with_one_decimal_and_amounts_with_a_decimal_comma():
    assert wire.fmt_time(datetime(2026, 3, 2, 9, 0, 1, 987654, tzinfo=UTC)) == "2026-03-02T10:00:01.9+01:00"
    assert wire.fmt_time(datetime(2026, 7, 2, 9, 0, 1, tzinfo=UTC)) == "2026-07-02T11:00:01.0+02:00"
    assert (wire.fmt_money(1726), wire.fmt_money(-500), wire.fmt_money(5), wire.fmt_money(0)) == (
        "17,26",
        "-5,00",
        "0,05",
        "0,00",
    )
    assert wire.line(["a;b", 'x"y', "c\r\nd", None, 1]) == b'"a;b";"x""y";c  d;;1\r\n'


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("2026030200", datetime(2026, 3, 1, 23, tzinfo=UTC), datetime(2026, 3, 2, 7, tzinfo=UTC)),
        ("2026030216", datetime(2026, 3, 2, 15, tzinfo=UTC), datetime(2026, 3, 2, 23, tzinfo=UTC)),
        ("2026032900", datetime(2026, 3, 28, 23, tzinfo=UTC), datetime(2026, 3, 29, 6, tzinfo=UTC)),  # 7 h (DST)
        ("2026102500", datetime(2026, 10, 24, 22, tzinfo=UTC), datetime(2026, 10, 25, 7, tzinfo=UTC)),  # 9 h
    ],
)
def test_a_period_is_8_hours_of_local_time_from_00_08_or_16(text, start, end):
    p = wire.Period.parse(text)
    assert (p.start, p.end, p.code) == (start, end, text)
    assert wire.Period.containing(end) == p.next() and p.next().previous() == p


def test_a_period_must_start_at_00_08_or_16():
    with pytest.raises(ValueError):
        wire.Period.parse("2026030209")


def test_a_period_s_files_hold_its_stakes_and_wins_as_the_ledger_does_and_validate_with_no_error(tmp_path):
    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=UTC), tick=False) as t:
        player = funded_player(100_000)
        c = client_for(player)
        for _ in range(6):
            assert start(c).status_code == 201
            t.shift(3)
    period = wire.Period.parse("2026030208")
    written = write_files(period, 1, tmp_path / "12345678-V-2026030208-T-01")
    report = validate_folder(written.folder)
    assert report.errors == []
    bets = _rows(written.folder, "hra_toky.csv")
    assert written.counts["hra_toky.csv"] == len(bets) == 6 == written.counts["vazba_hra_sazka.csv"]
    ledger = LedgerTransaction.objects.filter(created_at__gte=period.start, created_at__lt=period.end)
    assert sum(_kc(b["SazkaVysePuvodni"]) for b in bets) == sum(x.amount for x in ledger.filter(kind="stake"))
    assert sum(_kc(b["VyhraVysePuvodni"]) for b in bets) == sum(x.amount for x in ledger.filter(kind="win"))
    assert all(b["IDHraToky"].startswith("12345678-HT") for b in bets)
    # the funding (an adjustment) is an other payment; the account is in konto with its scope change
    assert [r["OstatniPlneniVysePuvodni"] for r in _rows(written.folder, "ostatni_plneni.csv")] == ["1000,00"]
    assert _rows(written.folder, "konto.csv")[0]["ZrizeniCas"] == "2026-03-02T10:00:00.0+01:00"
    assert {r["DocasneTrvale"] for r in _rows(written.folder, "konto_zmeny.csv")} == {"D", "T"}
    assert len(_rows(written.folder, "provozovatel.csv")) == 1
    first = (written.folder / "ucet.csv").read_bytes().split(b"\r\n")[0].decode()
    package, name, created, version = first.split(";")
    assert (package, name, version) == ("#12345678-V-2026030208-T-01", "ucet.csv", "1.0")
    assert parse_time(created) is not None
