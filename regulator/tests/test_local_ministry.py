"""The local Ministry against the platform behind a TLS terminator that requires client certificates: it downloads the
package over mutual TLS, verifies the seal, decrypts, validates and answers; the platform records the answer. A
client without a certificate is stopped by TLS, a certificate of the right CA that is not the Ministry's by the
platform."""

from __future__ import annotations

import ssl
import urllib.error
import urllib.request
from datetime import UTC, datetime

import pytest
import time_machine
from cryptography import x509

from regulator import services, wire
from regulator.ministry import MinistrySide
from regulator.models import RegulatorPackage
from tests.kit.regulator import TlsTerminator

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def terminator(live_server, pki, settings):
    client = x509.load_pem_x509_certificate(pki.client_cert.read_bytes())
    settings.REGULATOR_MINISTRY_CLIENTS = [client.subject.rfc4514_string()]
    t = TlsTerminator(upstream=live_server.url, cert=pki.server_cert, key=pki.server_key, ca=pki.ca)
    yield t
    t.close()


def _side(terminator, pki, cert=None, key=None):
    return MinistrySide(
        base_url=f"{terminator.url}/api/v1/regulator/ministry/",
        client_cert=cert or pki.client_cert,
        client_key=key or pki.client_key,
        server_ca=pki.ca,
        seal_ca=pki.ca,
        decrypt_cert=pki.ministry_cert,
        decrypt_key=pki.ministry_key,
    )


def test_the_ministry_downloads_over_mutual_tls_checks_the_package_and_confirms_it(terminator, pki):
    with time_machine.travel(datetime(2026, 3, 2, 15, 20, tzinfo=UTC), tick=False):
        pkg = services.package_issue(period=wire.Period.parse("2026030208"))
    report = _side(terminator, pki).process(pkg.name)
    assert report.errors == [] and report.counts == pkg.files
    pkg.refresh_from_db()
    assert pkg.state == RegulatorPackage.State.CONFIRMED and pkg.downloaded_at is not None
    assert pkg.notices.get().body.startswith("OK: ")


def test_a_client_without_a_certificate_is_stopped_by_tls_and_another_certificate_by_the_platform(terminator, pki):
    ctx = ssl.create_default_context(cafile=str(pki.ca))
    with pytest.raises((ssl.SSLError, urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(
            f"{terminator.url}/api/v1/regulator/ministry/notify/success", data=b"OK", context=ctx, timeout=10
        ).read()
    other = _side(terminator, pki, cert=pki.operator_cert, key=pki.operator_key)  # right CA, not the Ministry
    with pytest.raises(RuntimeError, match="HTTP 403"):
        other.download("12345678-V-2026030208-T-01", pki.folder)


def test_the_ministrys_confirmation_package_is_verified_decrypted_and_recorded(pki, tmp_path):
    from regulator import crypto
    from regulator.ministry import confirmation_package
    from regulator.validator import Report

    with time_machine.travel(datetime(2026, 3, 2, 15, 20, tzinfo=UTC), tick=False):
        pkg = services.package_issue(period=wire.Period.parse("2026030208"))
    ministry_seal = crypto.load_seal(pki.seal_p12, pki.seal_password)  # a test CA's seal stands for the Ministry's
    bad = Report(errors=["ERR_LINE_BAD_HEADER [ucet.csv] [2]: expected ..."])
    path = confirmation_package(
        package=pkg.name, report=bad, out_dir=tmp_path, seal=ministry_seal, recipient=pki.operator_cert
    )
    assert path.name == f"{pkg.name}.Err.zip.p7e.p7s"
    with pytest.raises(crypto.SealError):  # not for the Ministry's key: only the operator's opens it
        services.confirmation_record(
            path=path, ministry_seal_ca=pki.ca, own_cert=pki.ministry_cert, own_key=pki.ministry_key
        )
    notice = services.confirmation_record(
        path=path, ministry_seal_ca=pki.ca, own_cert=pki.operator_cert, own_key=pki.operator_key
    )
    pkg.refresh_from_db()
    assert (pkg.state, pkg.error_code, notice.staff_task_open) == ("rejected", "ERR_LINE_BAD_HEADER", True)
    ok = confirmation_package(
        package=pkg.name, report=Report(), out_dir=tmp_path, seal=ministry_seal, recipient=pki.operator_cert
    )
    assert ok.name == f"{pkg.name}.Ok.zip.p7e.p7s"
    services.confirmation_record(path=ok, ministry_seal_ca=pki.ca, own_cert=pki.operator_cert, own_key=pki.operator_key)
    pkg.refresh_from_db()
    assert pkg.state == "confirmed"
