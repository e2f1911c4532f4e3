"""The regulator's record (ZHH §§ 129 ff., decree 10/2019 Sb.): every round, deposit, withdrawal, adjustment and
jackpot award of an operating day in a versioned XML file valid against its XSD, sealed with the operator's
certificate (XAdES, enveloped) and verified by ``manage.py regulator_export_verify``; one changed byte fails it."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine
from django.core.management import CommandError, call_command
from lxml import etree

from games.models import Round
from reports import record, seal
from reports.tests.seal_ca import make_seal
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start
from wallet.models import LedgerTransaction

pytestmark = pytest.mark.django_db
DAY = date(2026, 9, 15)


@pytest.fixture
def operator_seal(settings, tmp_path):
    key, cert, ca = make_seal(tmp_path)
    settings.REPORTS_SEAL_KEY_FILE, settings.REPORTS_SEAL_CERT_FILE = str(key), str(cert)
    return key, cert, ca


@pytest.fixture
def day_played():
    players = [funded_player(50_000), funded_player(50_000)]
    with time_machine.travel(datetime(2026, 9, 15, 8, tzinfo=UTC), tick=False) as t:
        for p in players:
            for _ in range(3):
                assert start(client_for(p)).status_code == 201
                t.shift(3)
    return players


def _ns(tag: str) -> str:
    return f"{{{record.NS}}}{tag}"


def test_the_record_holds_every_round_and_movement_of_the_day_with_pseudonymous_players(
    operator_seal, day_played, tmp_path
):
    path = seal.export_day(day=DAY, folder=tmp_path)
    doc = etree.parse(str(path)).getroot()
    assert doc.tag == _ns("RegulatorRecord") and doc.get("version") == record.VERSION == "1.0"
    assert doc.get("operatingDay") == "2026-09-15" and doc.get("periodStart") == "2026-09-14T22:00:00+00:00"
    rounds = doc.find(_ns("Rounds")).findall(_ns("Round"))
    assert sorted(int(r.get("id")) for r in rounds) == sorted(Round.objects.values_list("pk", flat=True))
    assert sum(int(r.get("stake")) for r in rounds) == 600
    by_id = {r.pk: r for r in Round.objects.all()}
    for el in rounds:
        r = by_id[int(el.get("id"))]
        assert (int(el.get("win")), el.get("state"), el.get("game")) == (r.win, r.status, r.game_code)
        assert el.get("player") == record.player_reference(r.player_id) != str(r.player_id)
    text = path.read_text()
    for p in day_played:  # no name, birth number or user name in the file
        assert p.personal.surname not in text and p.personal.birth_number not in text
        assert f'"{p.user.username}"' not in text
    adjustments = LedgerTransaction.objects.filter(
        kind="adjustment",
        created_at__gte=datetime(2026, 9, 14, 22, tzinfo=UTC),
        created_at__lt=datetime(2026, 9, 15, 22, tzinfo=UTC),
    ).count()
    assert len(doc.find(_ns("Adjustments"))) == adjustments
    summary = doc.find(_ns("Summary"))
    assert summary.get("roundCount") == "6" and summary.get("stakes") == "600"
    assert doc[-1].tag == "{http://www.w3.org/2000/09/xmldsig#}Signature"  # enveloped, the root's last child


def test_the_sealed_record_verifies_against_the_certificate_and_the_xsd(operator_seal, day_played, tmp_path, capsys):
    path = seal.export_day(day=DAY, folder=tmp_path)
    result = seal.verify(path)
    assert result.ok and result.signature_ok and result.schema_ok, result.problems
    assert "Test operator seal" in result.signer and result.summary["roundCount"] == "6"
    call_command("regulator_export_verify", str(path))
    out = capsys.readouterr().out
    assert "seal (XAdES, enveloped): valid" in out and "schema (regulator-record 1.0): valid" in out


def test_one_changed_byte_fails_the_verification(operator_seal, day_played, tmp_path):
    path = seal.export_day(day=DAY, folder=tmp_path)
    data = path.read_bytes()
    i = data.index(b'stake="100"') + len(b'stake="')
    tampered = tmp_path / "tampered.xml"
    tampered.write_bytes(data[:i] + b"9" + data[i + 1 :])  # stake 100 -> 900
    result = seal.verify(tampered)
    assert not result.signature_ok and not result.ok and result.schema_ok
    assert any(p.startswith("seal:") for p in result.problems)
    with pytest.raises(CommandError):
        call_command("regulator_export_verify", str(tampered))


def test_a_record_sealed_with_another_certificate_does_not_verify_against_the_operator_s(
    operator_seal, day_played, tmp_path, settings
):
    path = seal.export_day(day=DAY, folder=tmp_path)
    _, other_cert, _ = make_seal(tmp_path, cn="Someone else")
    assert not seal.verify(path, cert_pem=other_cert.read_text()).ok
    assert seal.verify(path, cert_pem=operator_seal[1].read_text()).ok


def test_a_record_that_breaks_the_schema_is_reported_even_when_sealed(operator_seal, tmp_path):
    bad = tmp_path / "bad.xml"
    bad.write_text(f'<RegulatorRecord xmlns="{record.NS}" version="1.0"/>')
    unsealed = seal.verify(bad)
    assert not unsealed.ok and not unsealed.schema_ok and not unsealed.signature_ok
    sealed = tmp_path / "bad-sealed.xml"
    seal.seal(unsigned=bad, sealed=sealed)
    result = seal.verify(sealed)
    assert result.signature_ok and not result.schema_ok and not result.ok


def test_an_empty_day_is_a_valid_sealed_record(operator_seal, tmp_path):
    path = seal.export_day(day=date(2026, 1, 1), folder=tmp_path)
    result = seal.verify(path)
    assert result.ok, result.problems
    assert result.summary["roundCount"] == "0"


def test_the_export_command_writes_the_file_and_refuses_bad_input(operator_seal, day_played, tmp_path, capsys):
    call_command("regulator_export", "--day", "2026-09-15", "--out", str(tmp_path))
    written = capsys.readouterr().out.strip()
    assert written.endswith("regulator-record-2026-09-15.xml") and seal.verify(written).ok
    for bad in (["--day", "15.9.2026", "--out", str(tmp_path)], ["--day", "2026-09-15", "--out", "/nonexistent"]):
        with pytest.raises(CommandError):
            call_command("regulator_export", *bad)


def test_missing_seal_files_are_refused_with_their_error(settings, tmp_path):
    from core.errors import DomainError
    from reports import errors

    settings.REPORTS_SEAL_KEY_FILE, settings.REPORTS_SEAL_CERT_FILE = str(tmp_path / "no.pem"), str(tmp_path / "no.crt")
    with pytest.raises(DomainError) as exc:
        seal.export_day(day=DAY, folder=tmp_path)
    assert exc.value.code == errors.SEAL_NOT_CONFIGURED.code
