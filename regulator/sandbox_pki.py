"""The certificates of the Ministry's sandbox (development only, never production): both sides of the remote access,
made once in a folder (``sandbox_pki``) and handed to the platform as its usual settings (``operator_settings``).
Only the ``cryptography`` package: ``scripts/run.py`` calls it before Django starts. The sandbox Ministry that uses
them is ``regulator.sandbox``."""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12
from cryptography.x509.oid import NameOID

#: the file that marks a folder as a sandbox set (and names the seal's password)
MARKER = "sandbox.json"
_PASSWORD = "sandbox-seal"  # a development seal's PKCS#12 password, written next to it: nothing secret is here


def name_of(common_name: str) -> x509.Name:
    return x509.Name(
        [x509.NameAttribute(NameOID.COUNTRY_NAME, "CZ"), x509.NameAttribute(NameOID.COMMON_NAME, common_name)]
    )


def certificate(
    subject: str,
    key: rsa.RSAPrivateKey,
    issuer: str,
    issuer_key: rsa.RSAPrivateKey,
    *,
    ca: bool = False,
    not_before: datetime | None = None,
    days: int = 365,
    dns: tuple[str, ...] = (),
    ips: tuple[str, ...] = (),
) -> x509.Certificate:
    """A certificate for a seal, an encryption recipient or a TLS end (``dns``/``ips``: its subject alternative
    names), or a CA (``ca=True``), signed by ``issuer_key``."""
    start = not_before or datetime(2020, 1, 1, tzinfo=UTC)
    b = (
        x509.CertificateBuilder()
        .subject_name(name_of(subject))
        .issuer_name(name_of(issuer))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(start)
        .not_valid_after(start + timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if dns or ips:
        names: list[x509.GeneralName] = [x509.DNSName(d) for d in dns]
        names += [x509.IPAddress(ipaddress.ip_address(i)) for i in ips]
        b = b.add_extension(x509.SubjectAlternativeName(names), critical=False)
    if not ca:
        b = b.add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=True,
                key_encipherment=True,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
    return b.sign(issuer_key, hashes.SHA256())


def cert_pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def key_pem(key: rsa.RSAPrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )


def new_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@dataclass(frozen=True)
class SandboxPki:
    folder: Path
    operator_ca: Path  # issues the operator's seal and encryption certificate
    seal_p12: Path  # the operator's seal, registered with the sandbox Ministry (it trusts the operator CA)
    seal_password: str
    own_cert: Path  # the operator's own encryption certificate and key (to open its archive and the answers)
    own_key: Path
    ministry_ca: Path  # the sandbox Ministry's CA: its own seal's issuer (the operator trusts it for the answers)
    ministry_cert: Path  # the Ministry's encryption certificate and key
    ministry_key: Path
    ministry_seal_p12: Path
    #: a second operator seal from another CA ("Sandbox operator CA, not registered"): a renewed seal the operator has
    #: not yet registered with the Ministry; the demo seals one package with it, and the sandbox Ministry rejects it
    unregistered_seal_p12: Path

    @classmethod
    def at(cls, folder: Path) -> SandboxPki:
        return cls(
            folder,
            folder / "operator-ca.pem",
            folder / "operator-seal.p12",
            _PASSWORD,
            folder / "operator-encryption.pem",
            folder / "operator-encryption.key",
            folder / "ministry-ca.pem",
            folder / "ministry-encryption.pem",
            folder / "ministry-encryption.key",
            folder / "ministry-seal.p12",
            folder / "operator-seal-unregistered.p12",
        )


def _p12(path: Path, key: rsa.RSAPrivateKey, cert: x509.Certificate, ca: x509.Certificate) -> None:
    path.write_bytes(
        pkcs12.serialize_key_and_certificates(
            b"seal", key, cert, [ca], serialization.BestAvailableEncryption(_PASSWORD.encode())
        )
    )


def _unregistered_seal(pki: SandboxPki) -> None:
    """The seal the sandbox Ministry does not know: issued by a CA of its own, which nobody registered."""
    ca_name = "Sandbox operator CA (not registered)"
    ca_key = new_key()
    ca = certificate(ca_name, ca_key, ca_name, ca_key, ca=True, days=7300)
    key = new_key()
    _p12(
        pki.unregistered_seal_p12,
        key,
        certificate("Sandbox operator seal (not registered)", key, ca_name, ca_key, days=7300),
        ca,
    )


def sandbox_pki(folder: Path) -> SandboxPki:
    """The sandbox set in ``folder``: made on the first call (valid for 20 years), the same files afterwards (a set
    made before the unregistered seal existed gets that seal added)."""
    pki = SandboxPki.at(folder)
    if (folder / MARKER).is_file():
        if not pki.unregistered_seal_p12.is_file():
            _unregistered_seal(pki)
        return pki
    folder.mkdir(parents=True, exist_ok=True)
    for side, issued in (("operator", ("seal", "encryption")), ("ministry", ("seal", "encryption"))):
        ca_name = f"Sandbox {side} CA"
        ca_key = new_key()
        ca = certificate(ca_name, ca_key, ca_name, ca_key, ca=True, days=7300)
        (folder / f"{side}-ca.pem").write_bytes(cert_pem(ca))
        for what in issued:
            key = new_key()
            cert = certificate(f"Sandbox {side} {what}", key, ca_name, ca_key, days=7300)
            if what == "seal":
                _p12(folder / f"{side}-seal.p12", key, cert, ca)
            else:
                (folder / f"{side}-encryption.pem").write_bytes(cert_pem(cert))
                (folder / f"{side}-encryption.key").write_bytes(key_pem(key))
    _unregistered_seal(pki)
    (folder / MARKER).write_text(json.dumps({"made_at": datetime.now(UTC).isoformat(), "purpose": "development"}))
    return pki


def sandbox_pki_of_seal(seal_p12: str) -> SandboxPki | None:
    """The sandbox set whose operator seal is ``seal_p12`` (the configured seal), or None for any other seal."""
    if not seal_p12:
        return None
    path = Path(seal_p12)
    pki = SandboxPki.at(path.parent)
    return pki if (path.parent / MARKER).is_file() and path == pki.seal_p12 else None


def operator_settings(pki: SandboxPki) -> dict[str, str]:
    """The operator's side of the set as the settings' environment variables (config/settings/reports.py)."""
    return {
        "REGULATOR_SEAL_P12": str(pki.seal_p12),
        "REGULATOR_SEAL_P12_PASSWORD": pki.seal_password,
        "REGULATOR_SEAL_TRUST": str(pki.operator_ca),
        "REGULATOR_MINISTRY_ENCRYPTION_CERTS": str(pki.ministry_cert),
        "REGULATOR_OWN_ENCRYPTION_CERT": str(pki.own_cert),
        "REGULATOR_OWN_ENCRYPTION_KEY": str(pki.own_key),
        "REGULATOR_MINISTRY_SEAL_TRUST": str(pki.ministry_ca),
    }
