"""Keeping the issued packages: the daily job re-hashes every stored sealed file against the hash recorded when it was
issued (a missing or changed file is marked damaged, alarmed, queued for staff and never served or rebuilt), and
deletes a package's file once its retention period (the AML records' 10 years) has passed, keeping its row."""

from __future__ import annotations

import os
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import time_machine
from cryptography import x509

from core.models import AuditEvent
from regulator import selectors, services, wire
from regulator.errors import PACKAGE_GONE
from regulator.models import RegulatorPackage
from regulator.schedules import BEAT_SCHEDULE
from regulator.tasks import packages_keep

pytestmark = pytest.mark.django_db(databases=["default", "refusal_log"])  # the integrity alarm: the side log
URL = "/api/v1/regulator/ministry"
ISSUED_AT = datetime(2026, 3, 2, 15, 20, tzinfo=UTC)


@pytest.fixture
def issued() -> RegulatorPackage:
    with time_machine.travel(ISSUED_AT, tick=False):
        return services.package_issue(period=wire.Period.parse("2026030208"))


def _download(client: Any, pki: Any, settings: Any, pkg: RegulatorPackage) -> Any:
    cert = x509.load_pem_x509_certificate(pki.ministry_cert.read_bytes())
    settings.REGULATOR_MINISTRY_CLIENTS = [cert.subject.rfc4514_string()]
    return client.get(
        f"{URL}/packages/{pkg.name}.zip.p7e.p7s",
        HTTP_X_SSL_CLIENT_CERT=quote(pki.ministry_cert.read_text()),
        HTTP_X_SSL_CLIENT_VERIFY="SUCCESS",
    )


def _tamper(path: Path) -> None:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


def test_the_job_is_scheduled_daily():
    assert BEAT_SCHEDULE["regulator.packages_keep"] == {"task": "regulator.packages_keep", "schedule": 86_400.0}


def test_an_intact_package_is_checked_and_stays_downloadable(issued, client, pki, settings):
    with time_machine.travel(ISSUED_AT + timedelta(days=1), tick=False):
        assert packages_keep() == {"checked": 1, "damaged": [], "purged": []}
    issued.refresh_from_db()
    assert issued.checked_at == ISSUED_AT + timedelta(days=1) and issued.damaged_at is None
    assert _download(client, pki, settings, issued).status_code == 200


@pytest.mark.parametrize("how", ["changed", "missing"])
def test_a_changed_or_missing_file_is_marked_damaged_alarmed_queued_and_never_served(
    issued, client, pki, settings, caplog, how
):
    path = services.package_file(issued)
    _tamper(path) if how == "changed" else path.unlink()
    with time_machine.travel(ISSUED_AT + timedelta(days=1), tick=False):
        assert packages_keep()["damaged"] == [issued.name]
        assert packages_keep()["damaged"] == [issued.name]  # still damaged on the next run, alarmed once
    issued.refresh_from_db()
    assert issued.damaged_at == ISSUED_AT + timedelta(days=1) and issued.checked_at is None
    assert issued.sha256 and issued.purged_at is None  # the recorded hash is kept: nothing is rebuilt
    assert AuditEvent.objects.filter(action="regulator.package_damaged").count() == 1
    alarms = AuditEvent.objects.using("refusal_log").filter(action="core.integrity_failure")
    assert [a.details["source"] for a in alarms] == ["regulator.packages_keep"]
    assert any(r.name == "platform.alarm" for r in caplog.records)
    assert selectors.packages_damaged_queue().count == 1
    r = _download(client, pki, settings, issued)
    assert r.status_code == 410 and r.json()["error"]["code"] == PACKAGE_GONE.code
    issued.refresh_from_db()
    assert issued.state == RegulatorPackage.State.ISSUED  # a refused download is not a download


def test_a_file_restored_from_the_backup_is_checked_and_served_again(issued, client, pki, settings):
    path = services.package_file(issued)
    backup = path.read_bytes()
    path.unlink()
    with time_machine.travel(ISSUED_AT + timedelta(days=1), tick=False):
        packages_keep()
    path.write_bytes(backup)
    with time_machine.travel(ISSUED_AT + timedelta(days=2), tick=False):
        assert packages_keep() == {"checked": 1, "damaged": [], "purged": []}
    issued.refresh_from_db()
    assert issued.damaged_at is None and issued.checked_at == ISSUED_AT + timedelta(days=2)
    assert AuditEvent.objects.filter(action="regulator.package_restored").count() == 1
    assert selectors.packages_damaged_queue().count == 0
    assert _download(client, pki, settings, issued).status_code == 200


def test_a_file_missing_before_any_check_is_not_served_either(issued, client, pki, settings):
    services.package_file(issued).unlink()
    r = _download(client, pki, settings, issued)
    assert r.status_code == 410 and r.json()["error"]["code"] == PACKAGE_GONE.code


def test_retention_is_the_aml_records_period_counted_from_the_periods_end(issued, settings):
    settings.AUDIT_RETENTION_AML_YEARS = 10
    cutoff_at = issued.period_end + timedelta(days=3660)  # 10 years of 366 days after the period ended
    with time_machine.travel(cutoff_at, tick=False):
        assert packages_keep() == {"checked": 1, "damaged": [], "purged": []}  # exactly at the boundary: kept
    assert services.package_file(issued).is_file()
    with time_machine.travel(cutoff_at + timedelta(microseconds=1), tick=False):
        assert packages_keep() == {"checked": 0, "damaged": [], "purged": [issued.name]}
        assert packages_keep() == {"checked": 0, "damaged": [], "purged": []}  # safe to run twice
    assert not services.package_file(issued).exists()
    issued.refresh_from_db()
    assert issued.purged_at == cutoff_at + timedelta(microseconds=1)
    assert issued.name and issued.sha256 and issued.files  # the record that it existed stays
    event = AuditEvent.objects.get(action="regulator.package_purged")
    assert event.new_values is not None and event.new_values["sha256"] == issued.sha256


def test_a_purged_package_answers_410(issued, client, pki, settings):
    with time_machine.travel(issued.period_end + timedelta(days=3661), tick=False):
        packages_keep()
    r = _download(client, pki, settings, issued)
    assert r.status_code == 410 and r.json()["error"]["code"] == PACKAGE_GONE.code


def test_a_longer_configured_retention_keeps_the_package_longer(issued, settings):
    settings.AUDIT_RETENTION_AML_YEARS = 12
    with time_machine.travel(issued.period_end + timedelta(days=3661), tick=False):
        assert packages_keep()["purged"] == []
    with time_machine.travel(issued.period_end + timedelta(days=366 * 12 + 1), tick=False):
        assert packages_keep()["purged"] == [issued.name]
