"""The seal of the regulator's record: an enveloped XAdES-BES signature (signxml) with the operator's key and
certificate (``REPORTS_SEAL_KEY_FILE`` / ``REPORTS_SEAL_CERT_FILE``), and its verification against a certificate and
the record's XSD. Outside production, without the files, a self-signed development seal is made once under
``REPORTS_DEV_SEAL_DIR`` (production refuses to start without the files: config/settings/)."""

from __future__ import annotations

import datetime as dt
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from django.conf import settings
from lxml import etree
from signxml import InvalidInput, InvalidSignature, methods
from signxml.xades import XAdESDataObjectFormat, XAdESSigner, XAdESVerifier

from reports import errors, record

_PARSER = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=True, remove_blank_text=False)


def _dev_seal() -> tuple[Path, Path]:
    folder = settings.REPORTS_DEV_SEAL_DIR
    key_file, cert_file = folder / "seal-key.pem", folder / "seal-cert.pem"
    if key_file.is_file() and cert_file.is_file():
        return key_file, cert_file
    folder.mkdir(parents=True, exist_ok=True)
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Development operator (not licensed)"),
            x509.NameAttribute(NameOID.COMMON_NAME, "development seal of the regulator's record"),
        ]
    )
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_file.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    key_file.chmod(0o600)
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return key_file, cert_file


def seal_files() -> tuple[Path, Path]:
    """(key file, certificate file) of the operator's seal."""
    key, cert = settings.REPORTS_SEAL_KEY_FILE, settings.REPORTS_SEAL_CERT_FILE
    if key and cert:
        if not (Path(key).is_file() and Path(cert).is_file()):
            raise errors.SEAL_NOT_CONFIGURED()
        return Path(key), Path(cert)
    if settings.PRODUCTION:
        raise errors.SEAL_NOT_CONFIGURED()
    return _dev_seal()


def seal(*, unsigned: Path, sealed: Path) -> None:
    """Sign the record in ``unsigned`` with an enveloped XAdES signature and write it to ``sealed``. The signature
    covers the canonical form of the whole document, so lxml parses it here (the record was written streamed)."""
    key_file, cert_file = seal_files()
    doc = etree.parse(str(unsigned), _PARSER).getroot()
    signer = XAdESSigner(
        method=methods.enveloped,
        data_object_format=XAdESDataObjectFormat(
            Description=f"Regulator's record {record.VERSION} of operating day {doc.get('operatingDay')}",
            MimeType="text/xml",
        ),
    )
    signed = signer.sign(doc, key=key_file.read_bytes(), cert=cert_file.read_text())
    etree.ElementTree(signed).write(str(sealed), xml_declaration=True, encoding="utf-8")


@dataclass
class Verification:
    ok: bool
    signature_ok: bool = False
    schema_ok: bool = False
    problems: list[str] = field(default_factory=list)
    signer: str = ""
    signed_at: str = ""
    header: dict[str, str] = field(default_factory=dict)
    summary: dict[str, str] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "signature_ok": self.signature_ok,
            "schema_ok": self.schema_ok,
            "problems": self.problems,
            "signer": self.signer,
            "signed_at": self.signed_at,
            "header": self.header,
            "summary": self.summary,
        }


def _schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(record.SCHEMA)))


def verify(path: Path, *, cert_pem: str | None = None) -> Verification:
    """Check the seal of the record in ``path`` against ``cert_pem`` (default: the operator's certificate) and the
    document against the XSD; report what it holds. Never raises for a bad file: the problems say what failed."""
    out = Verification(ok=False)
    if cert_pem is None:
        cert_pem = seal_files()[1].read_text()
    try:
        data = Path(path).read_bytes()
        doc = etree.fromstring(data, _PARSER)
    except (OSError, etree.XMLSyntaxError) as exc:
        out.problems.append(f"not a readable XML file: {exc}")
        return out
    try:
        XAdESVerifier().verify(data, x509_cert=cert_pem, expect_references=3)
        out.signature_ok = True
        out.signer = x509.load_pem_x509_certificate(cert_pem.encode()).subject.rfc4514_string()
        signing_time = doc.find(".//{*}SignedProperties//{*}SigningTime")  # covered by the verified seal
        out.signed_at = signing_time.text if signing_time is not None else ""
    except (InvalidSignature, InvalidInput, ValueError) as exc:
        out.problems.append(f"seal: {exc}")
    schema = _schema()
    if schema.validate(doc):
        out.schema_ok = True
    else:
        out.problems.extend(f"schema: line {e.line}: {e.message}" for e in list(schema.error_log)[:5])
    out.header = {k: v for k, v in doc.attrib.items()}
    summary = doc.find(f"{{{record.NS}}}Summary")
    out.summary = dict(summary.attrib) if summary is not None else {}
    out.ok = out.signature_ok and out.schema_ok
    return out


def export_day(*, day: dt.date, folder: Path | None = None) -> Path:
    """The sealed record of ``day`` as a file (``regulator-record-<day>.xml``) in ``folder`` (a new temporary
    directory by default); the caller removes it."""
    folder = Path(folder or tempfile.mkdtemp(prefix="regulator-record-"))
    unsigned = folder / f".unsigned-{day.isoformat()}.xml"
    sealed = folder / f"regulator-record-{day.isoformat()}.xml"
    record.record_write(day=day, path=unsigned)
    try:
        seal(unsigned=unsigned, sealed=sealed)
    finally:
        unsigned.unlink(missing_ok=True)
    return sealed
