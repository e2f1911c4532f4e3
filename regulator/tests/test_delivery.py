"""The Ministry's download and notification URLs admit only its configured client certificates (as the TLS terminator
passes them on); the scheduled job issues each closed period's package once."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import time_machine
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from django.test import Client

from regulator import services, wire
from regulator.config_check import registration_xml
from regulator.errors import CLIENT_REFUSED
from regulator.models import MinistryNotice, RegulatorPackage
from regulator.schedules import BEAT_SCHEDULE
from regulator.tasks import issue_closed_periods

pytestmark = pytest.mark.django_db
URL = "/api/v1/regulator/ministry"


def _headers(cert_path: Path, verify: str = "SUCCESS") -> Any:
    return {"HTTP_X_SSL_CLIENT_CERT": quote(cert_path.read_text()), "HTTP_X_SSL_CLIENT_VERIFY": verify}


@pytest.fixture
def ministry(settings, pki):
    cert = x509.load_pem_x509_certificate(pki.ministry_cert.read_bytes())
    settings.REGULATOR_MINISTRY_CLIENTS = [cert.subject.rfc4514_string()]
    return pki.ministry_cert


@pytest.fixture
def issued():
    with time_machine.travel(datetime(2026, 3, 2, 15, 20, tzinfo=UTC), tick=False):
        return services.package_issue(period=wire.Period.parse("2026030208"))


def test_the_ministry_downloads_the_stored_package_and_it_is_marked_downloaded(ministry, issued):
    r = Client().get(f"{URL}/packages/{issued.name}.zip.p7e.p7s", **_headers(ministry))
    assert r.status_code == 200
    assert b"".join(r.streaming_content) == services.package_file(issued).read_bytes()  # type: ignore[attr-defined]
    assert r["X-Content-SHA256"] == issued.sha256
    issued.refresh_from_db()
    assert issued.state == RegulatorPackage.State.DOWNLOADED and issued.downloaded_at is not None


@pytest.mark.parametrize("who", ["none", "unverified", "operator", "fingerprint-of-another"])
def test_anyone_else_is_refused_with_403(ministry, issued, pki, settings, who):
    headers: Any = {
        "none": {},
        "unverified": _headers(ministry, "FAILED:unable to verify"),
        "operator": _headers(pki.operator_cert),
        "fingerprint-of-another": _headers(pki.seal_cert),
    }[who]
    r = Client().get(f"{URL}/packages/{issued.name}.zip.p7e.p7s", **headers)
    assert r.status_code == 403 and r.json()["error"]["code"] == CLIENT_REFUSED.code
    r = Client().post(f"{URL}/notify/success?balicek={issued.name}", data="OK", content_type="text/plain", **headers)
    assert r.status_code == 403
    issued.refresh_from_db()
    assert issued.state == RegulatorPackage.State.ISSUED


def test_a_client_named_by_its_fingerprint_is_admitted(settings, pki, issued):
    cert = x509.load_pem_x509_certificate(pki.operator_cert.read_bytes())
    settings.REGULATOR_MINISTRY_CLIENTS = [cert.fingerprint(hashes.SHA256()).hex()]
    assert Client().get(f"{URL}/packages/{issued.name}.zip.p7e.p7s", **_headers(pki.operator_cert)).status_code == 200


def test_notifications_confirm_or_reject_the_package_and_an_error_opens_a_staff_task(ministry, issued):
    c = Client()
    r = c.post(
        f"{URL}/notify/error",
        data=f"{issued.name}\nERR_LINE_BAD_HEADER [ucet.csv] [2]: bad header",
        content_type="text/plain",
        **_headers(ministry),
    )
    assert r.status_code == 200 and r.content == b"Accepted!"
    issued.refresh_from_db()
    assert (issued.state, issued.error_code) == (RegulatorPackage.State.REJECTED, "ERR_LINE_BAD_HEADER")
    notice = MinistryNotice.objects.get()
    assert notice.staff_task_open and notice.package == issued
    r = c.post(
        f"{URL}/notify/success?balicek={issued.name}",
        data="OK: 20260302-163000",
        content_type="text/plain",
        **_headers(ministry),
    )
    issued.refresh_from_db()
    assert r.status_code == 200 and issued.state == RegulatorPackage.State.CONFIRMED
    r = c.post(
        f"{URL}/notify/success?balicek=12345678-V-2026030216-T-01",
        data="OK",
        content_type="text/plain",
        **_headers(ministry),
    )
    assert r.status_code == 404


def test_the_job_issues_each_closed_period_once_after_the_delay():
    assert BEAT_SCHEDULE["regulator.issue_closed_periods"]["task"] == "regulator.issue_closed_periods"
    with time_machine.travel(datetime(2026, 3, 2, 7, 10, tzinfo=UTC), tick=False):  # 08:10 Prague: delay not over
        names = issue_closed_periods()
    assert names == ["12345678-V-2026030116-T-01", "12345678-V-2026030108-T-01", "12345678-V-2026030100-T-01"]
    with time_machine.travel(datetime(2026, 3, 2, 7, 20, tzinfo=UTC), tick=False):
        names = issue_closed_periods()
    assert names[0] == "12345678-V-2026030200-T-01"
    assert RegulatorPackage.objects.count() == 4


def test_the_registration_record_for_the_customs_form_follows_the_ministrys_schema(settings, pki):
    settings.REGULATOR_PUBLIC_BASE_URL = "https://hraj.example.cz"
    xml = registration_xml(valid_from=datetime(2026, 4, 1, tzinfo=UTC).date())
    assert b'IDProvozovatel="12345678"' in xml and b"StazeniBalickuUrl" in xml


def test_the_registration_record_validates_against_the_ministrys_xsd_when_present(settings):
    from lxml import etree

    xsd = Path(settings.BASE_DIR).parent / "shared" / "spec" / "regulator-data" / "comParamReg.xsd"
    if not xsd.is_file():
        pytest.skip(f"the Ministry's registration schema is not at {xsd}")
    xml = registration_xml(valid_from=datetime(2026, 4, 1, tzinfo=UTC).date())
    schema = etree.XMLSchema(etree.parse(str(xsd)))
    doc = etree.fromstring(xml)
    assert schema.validate(doc), schema.error_log
    assert doc.find("{*}Zmenit/{*}Url/{*}StazeniBalickuUrl").text.endswith("/api/v1/regulator/ministry/packages/")


def test_staff_see_the_packages_read_only_with_the_view_permission(issued):
    from tests.kit.accounts import make_staff

    c = Client()
    for role, status in (("auditor", 200), ("compliance", 200), ("support", 403)):
        user = make_staff(role=role)
        c.force_login(user)
        r = c.get("/admin/regulator/regulatorpackage/")
        assert r.status_code in ((status, 302) if status == 403 else (status,)), (role, r.status_code)
        if status == 200:
            assert issued.name.encode() in r.content and b"issued" in r.content
            assert c.get(f"/admin/regulator/regulatorpackage/{issued.pk}/change/").status_code == 200
            assert c.post(f"/admin/regulator/regulatorpackage/{issued.pk}/delete/").status_code == 403


def test_the_job_issues_nothing_outside_production_without_a_seal(settings):
    settings.REGULATOR_SEAL_P12 = ""
    with time_machine.travel(datetime(2026, 3, 2, 7, 20, tzinfo=UTC), tick=False):
        assert issue_closed_periods() == []
    assert not RegulatorPackage.objects.exists()


def test_compliance_reissues_a_rejected_package_and_closes_the_notices_task_in_the_back_office(issued, ministry):
    from tests.kit.accounts import make_staff

    c = Client()
    r = c.post(
        f"{URL}/notify/error",
        data=f"{issued.name}\nERR_LINE_BAD_HEADER [ucet.csv] [2]: x",
        content_type="text/plain",
        **_headers(ministry),
    )
    assert r.status_code == 200
    notice = MinistryNotice.objects.get()
    c.force_login(make_staff(role="auditor"))  # reads, decides nothing
    c.post("/admin/regulator/regulatorpackage/", {"action": "reissue", "_selected_action": [issued.pk]})
    assert not RegulatorPackage.objects.filter(version=2).exists()  # the action is not offered to the auditor
    c.force_login(make_staff(role="compliance"))
    with time_machine.travel(datetime(2026, 3, 2, 16, 30, tzinfo=UTC), tick=False):
        r = c.post("/admin/regulator/regulatorpackage/", {"action": "reissue", "_selected_action": [issued.pk]})
    assert r.status_code == 302
    assert RegulatorPackage.objects.get(version=2).name == "12345678-V-2026030208-T-02"
    r = c.post("/admin/regulator/ministrynotice/", {"action": "handle", "_selected_action": [notice.pk]})
    notice.refresh_from_db()
    assert r.status_code == 302 and not notice.staff_task_open and notice.handled_at is not None
