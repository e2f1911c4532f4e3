"""The issued package: ZIP -> CMS EnvelopedData AES-256-CBC for the Ministry (and the operator) -> CAdES-BES seal,
kept immutable with its hash; checked as the Ministry does (seal, decryption, files), with an independent decryption
through ``cryptography``."""

from __future__ import annotations

import hashlib
import io
import subprocess
import zipfile
from datetime import UTC, datetime, timedelta

import pytest
import time_machine
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs7
from django.core.management import call_command

from core.errors import DomainError
from regulator import crypto, schema, services, wire
from regulator.errors import PERIOD_OPEN
from regulator.models import RegulatorPackage
from regulator.validator import validate_sealed
from tests.kit.clients import client_for
from tests.kit.platform import funded_player, start
from tests.kit.regulator import make_pki

pytestmark = pytest.mark.django_db
PERIOD = wire.Period.parse("2026030208")


def _play(n=3):
    with time_machine.travel(datetime(2026, 3, 2, 9, 0, tzinfo=UTC), tick=False) as t:
        c = client_for(funded_player(100_000))
        for _ in range(n):
            assert start(c).status_code == 201
            t.shift(3)


def _issue():
    with time_machine.travel(datetime(2026, 3, 2, 15, 20, tzinfo=UTC), tick=False):
        return services.package_issue(period=PERIOD)


def test_an_issued_package_is_sealed_encrypted_stored_with_its_hash_and_validates_at_the_ministry(pki):
    _play()
    pkg = _issue()
    path = services.package_file(pkg)
    assert pkg.name == "12345678-V-2026030208-T-01" and pkg.version == 1
    assert path.name == f"{pkg.name}.{pkg.sha256[:16]}.zip.p7e.p7s"
    assert hashlib.sha256(path.read_bytes()).hexdigest() == pkg.sha256 and pkg.size == path.stat().st_size
    assert pkg.files["hra_toky.csv"] == 3 and set(pkg.files) == set(schema.FILE_NAMES)
    report = validate_sealed(path, trusted_seal=pki.ca, decrypt_cert=pki.ministry_cert, decrypt_key=pki.ministry_key)
    assert report.errors == [] and report.counts["hra_toky.csv"] == 3
    # the operator's own certificate is a recipient too; the seal is CAdES (signing-certificate-v2, SHA-256)
    assert validate_sealed(path, trusted_seal=pki.ca, decrypt_cert=pki.operator_cert, decrypt_key=pki.operator_key).ok
    printed = subprocess.run(
        ["openssl", "cms", "-cmsout", "-print", "-inform", "DER", "-in", str(path)], capture_output=True, check=True
    ).stdout.decode()
    assert "signingCertificateV2" in printed or "id-smime-aa-signingCertificateV2" in printed
    assert "sha256" in printed
    # decrypted independently of openssl's CLI: AES-256-CBC EnvelopedData, the zip of the 16 files at its root
    p7e = path.parent / "x.p7e"
    crypto.verify(path, p7e, pki.ca)
    key = serialization.load_pem_private_key(pki.ministry_key.read_bytes(), None)
    assert isinstance(key, rsa.RSAPrivateKey)
    cert = x509.load_pem_x509_certificate(pki.ministry_cert.read_bytes())
    enveloped = subprocess.run(
        ["openssl", "cms", "-cmsout", "-print", "-inform", "DER", "-in", str(p7e)], capture_output=True, check=True
    ).stdout.decode()
    assert "aes-256-cbc" in enveloped and "envelopedData" in enveloped
    plain = pkcs7.pkcs7_decrypt_der(p7e.read_bytes(), cert, key, [])
    assert sorted(zipfile.ZipFile(io.BytesIO(plain)).namelist()) == sorted(schema.FILE_NAMES)


def test_a_package_is_issued_once_and_never_rebuilt_then_a_rejected_one_is_issued_again_as_version_02(pki):
    _play()
    first = _issue()
    assert _issue().pk == first.pk  # a second run returns it
    first.files = {"x": 1}
    with pytest.raises(ValueError, match="immutable"):
        first.save()
    first.refresh_from_db()
    with time_machine.travel(datetime(2026, 3, 2, 16, 0, tzinfo=UTC), tick=False):
        services.notice_record(
            kind="error",
            package_name_=f"{first.name}.zip.p7e.p7s",
            body="ERR_LINE_BAD_HEADER [ucet.csv] [2]: ...",
            error_code="ERR_LINE_BAD_HEADER",
            client="CN=SPCSS Playground AM AISG Autentizacni CGI",
        )
        first.refresh_from_db()
        assert (first.state, first.error_code) == (RegulatorPackage.State.REJECTED, "ERR_LINE_BAD_HEADER")
        second = services.package_reissue(package=first)
    first.refresh_from_db()
    assert second.name == "12345678-V-2026030208-T-02" and second.version == 2 and second.previous == first
    assert first.state == RegulatorPackage.State.REISSUED
    assert validate_sealed(
        services.package_file(second), trusted_seal=pki.ca, decrypt_cert=pki.ministry_cert, decrypt_key=pki.ministry_key
    ).ok
    with pytest.raises(DomainError):
        services.package_reissue(package=second)


def test_an_open_period_is_not_issued():
    with time_machine.travel(datetime(2026, 3, 2, 14, 0, tzinfo=UTC), tick=False):
        with pytest.raises(DomainError) as exc:
            services.package_issue(period=PERIOD)
    assert exc.value.code == PERIOD_OPEN.code


def test_an_expired_seal_certificate_is_refused(tmp_path, settings):
    old = make_pki(tmp_path / "old", seal_days=30, seal_not_before=datetime.now(UTC) - timedelta(days=60))
    settings.REGULATOR_SEAL_P12 = str(old.seal_p12)
    with pytest.raises(crypto.SealError, match="not valid now"):
        crypto.configured_seal()


def test_the_command_writes_the_sealed_package_and_the_plain_files(tmp_path, settings, pki, capsys):
    _play()
    settings.REGULATOR_OWN_ENCRYPTION_KEY = str(pki.operator_key)
    settings.REGULATOR_SEAL_TRUST = str(pki.ca)
    with time_machine.travel(datetime(2026, 3, 2, 15, 20, tzinfo=UTC), tick=False):
        call_command("regulator_package", "--period", "2026030208", "--out", str(tmp_path), "--plain")
    out = capsys.readouterr().out
    assert "hra_toky.csv: 3" in out and "decrypted from the issued package" in out
    assert (tmp_path / "12345678-V-2026030208-T-01.zip.p7e.p7s").is_file()
    call_command("regulator_package_check", str(tmp_path / "12345678-V-2026030208-T-01"))
    call_command(
        "regulator_package_check",
        str(tmp_path / "12345678-V-2026030208-T-01.zip.p7e.p7s"),
        "--seal-ca",
        str(pki.ca),
        "--cert",
        str(pki.ministry_cert),
        "--key",
        str(pki.ministry_key),
    )
