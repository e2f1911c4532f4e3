"""ZIP -> CMS EnvelopedData (AES-256-CBC, DER) for the Ministry's encryption certificate(s) -> CAdES-BES enveloping
signature (SHA-256, signing-certificate-v2) with the operator's seal, through the openssl CLI exactly as the Ministry's
reference procedure runs it (``openssl cms -encrypt ... -aes-256-cbc``; ``openssl cms -sign ... -cades``). No
cryptography is written here: the seal's PKCS#12 is read with ``cryptography`` and handed to openssl as an encrypted
PEM whose one-time pass phrase travels in the child's environment only."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.serialization import pkcs12
from django.conf import settings

from core import clock


class SealError(Exception):
    pass


@dataclass(frozen=True)
class Seal:
    key_pem: bytes  # encrypted with ``passphrase``
    cert_pem: bytes
    chain_pem: bytes
    passphrase: str
    not_after: datetime
    subject: str


def load_seal(path: str | Path, password: str) -> Seal:
    """The operator's seal from a PKCS#12 file. Refuses one without a key or certificate, or past its validity."""
    try:
        key, cert, extra = pkcs12.load_key_and_certificates(Path(path).read_bytes(), password.encode() or None)
    except (OSError, ValueError) as exc:
        raise SealError(f"the seal's PKCS#12 cannot be read: {exc}") from exc
    if key is None or cert is None:
        raise SealError("the seal's PKCS#12 holds no key or no certificate")
    now = clock.now()
    if not cert.not_valid_before_utc <= now < cert.not_valid_after_utc:
        raise SealError(
            f"the seal's certificate is not valid now (valid {cert.not_valid_before_utc:%Y-%m-%d} - "
            f"{cert.not_valid_after_utc:%Y-%m-%d})"
        )
    phrase = secrets.token_urlsafe(24)
    key_pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.BestAvailableEncryption(phrase.encode()),
    )
    return Seal(
        key_pem,
        cert.public_bytes(serialization.Encoding.PEM),
        b"".join(c.public_bytes(serialization.Encoding.PEM) for c in extra or ()),
        phrase,
        cert.not_valid_after_utc,
        cert.subject.rfc4514_string(),
    )


def configured_seal() -> Seal:
    if not settings.REGULATOR_SEAL_P12:
        raise SealError("REGULATOR_SEAL_P12 is not set")
    return load_seal(settings.REGULATOR_SEAL_P12, settings.REGULATOR_SEAL_P12_PASSWORD)


def recipient_certificates() -> list[Path]:
    """The Ministry's encryption certificates (PEM files), and the operator's own when configured."""
    paths = [Path(p) for p in settings.REGULATOR_MINISTRY_ENCRYPTION_CERTS]
    if settings.REGULATOR_OWN_ENCRYPTION_CERT:
        paths.append(Path(settings.REGULATOR_OWN_ENCRYPTION_CERT))
    if not paths:
        raise SealError("REGULATOR_MINISTRY_ENCRYPTION_CERTS is empty")
    for p in paths:
        x509.load_pem_x509_certificate(p.read_bytes())  # refuses a file that is not a PEM certificate
    return paths


def _run(args: Sequence[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(
        [settings.REGULATOR_OPENSSL, *args], capture_output=True, env={**os.environ, **(env or {})}, check=False
    )
    if done.returncode != 0:
        raise SealError(f"openssl {args[0]} {args[1]}: {done.stderr.decode(errors='replace').strip()[:500]}")


def zip_files(folder: Path, names: Sequence[str], out: Path) -> None:
    """The data files at the archive's root (the reference procedure's layout)."""
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for name in names:
            zf.write(folder / name, arcname=name)


def encrypt(zip_path: Path, out: Path, recipients: Sequence[Path]) -> None:
    _run(
        [
            "cms",
            "-encrypt",
            "-binary",
            "-in",
            str(zip_path),
            "-outform",
            "DER",
            "-aes-256-cbc",
            "-out",
            str(out),
            *[str(r) for r in recipients],
        ]
    )


def sign(p7e: Path, out: Path, seal: Seal) -> None:
    """CAdES-BES enveloping (the encrypted file inside the SignedData), SHA-256, with the seal's certificate."""
    with tempfile.TemporaryDirectory() as tmp:
        key, cert, chain = Path(tmp, "key.pem"), Path(tmp, "cert.pem"), Path(tmp, "chain.pem")
        key.write_bytes(seal.key_pem)
        key.chmod(0o600)
        cert.write_bytes(seal.cert_pem)
        args = [
            "cms",
            "-sign",
            "-binary",
            "-nodetach",
            "-cades",
            "-md",
            "sha256",
            "-in",
            str(p7e),
            "-outform",
            "DER",
            "-out",
            str(out),
            "-signer",
            str(cert),
            "-inkey",
            str(key),
            "-passin",
            "env:REGULATOR_SEAL_PASS",
        ]
        if seal.chain_pem:
            chain.write_bytes(seal.chain_pem)
            args += ["-certfile", str(chain)]
        _run(args, env={"REGULATOR_SEAL_PASS": seal.passphrase})


def verify(p7s: Path, out: Path, trusted: Path) -> None:
    """Check the seal against ``trusted`` (PEM CA or the seal certificate itself) and write the enveloped content."""
    _run(
        [
            "cms",
            "-verify",
            "-binary",
            "-inform",
            "DER",
            "-in",
            str(p7s),
            "-CAfile",
            str(trusted),
            "-out",
            str(out),
            "-purpose",
            "any",
        ]
    )


def decrypt(p7e: Path, out: Path, cert: Path, key: Path) -> None:
    _run(
        [
            "cms",
            "-decrypt",
            "-binary",
            "-inform",
            "DER",
            "-in",
            str(p7e),
            "-recip",
            str(cert),
            "-inkey",
            str(key),
            "-out",
            str(out),
        ]
    )
