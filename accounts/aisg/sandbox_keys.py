"""The keys of the AISG sandbox (development only, never production): the operator's signing key and certificate and
"the Ministry's" key and certificate, made once in a folder (``aisg_sandbox_keys``) and handed to the platform as its
usual settings (``sandbox_settings``), with ``ACCOUNTS_AISG_URL=sandbox:<folder>``: the platform's AISG client then
hands its signed requests to the sandbox Ministry in ``accounts.aisg.sandbox`` instead of the network. Only the
``cryptography`` package: ``scripts/run.py`` calls it before Django starts."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

#: the file that marks a folder as the AISG sandbox's
MARKER = "aisg-sandbox.json"
#: ``ACCOUNTS_AISG_URL`` of the sandbox: this prefix and the folder
URL_PREFIX = "sandbox:"


def key_pair(common_name: str, *, days: int = 365) -> tuple[bytes, bytes]:
    """(private key PEM, self-signed certificate PEM), RSA 2048, valid from yesterday for ``days``."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=days))
        .sign(key, hashes.SHA256())
    )
    key_pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    return key_pem, cert.public_bytes(serialization.Encoding.PEM)


@dataclass(frozen=True)
class AisgSandboxKeys:
    folder: Path
    operator_key: Path
    operator_cert: Path
    ministry_key: Path  # the sandbox Ministry signs its answers with it
    ministry_cert: Path

    @classmethod
    def at(cls, folder: Path) -> AisgSandboxKeys:
        return cls(
            folder,
            folder / "operator-key.pem",
            folder / "operator-cert.pem",
            folder / "ministry-key.pem",
            folder / "ministry-cert.pem",
        )

    @property
    def url(self) -> str:
        return f"{URL_PREFIX}{self.folder}"


def aisg_sandbox_keys(folder: Path) -> AisgSandboxKeys:
    """The sandbox's keys in ``folder``: made on the first call (valid for 20 years), the same files afterwards."""
    keys = AisgSandboxKeys.at(folder)
    if (folder / MARKER).is_file():
        return keys
    folder.mkdir(parents=True, exist_ok=True)
    for key_path, cert_path, name in (
        (keys.operator_key, keys.operator_cert, "Sandbox operator - AISG signing"),
        (keys.ministry_key, keys.ministry_cert, "Sandbox MF - Dozorová část AISG"),
    ):
        key_pem, cert_pem = key_pair(name, days=7300)
        key_path.write_bytes(key_pem)
        cert_path.write_bytes(cert_pem)
    (folder / MARKER).write_text(json.dumps({"made_at": dt.datetime.now(dt.UTC).isoformat(), "purpose": "development"}))
    return keys


def keys_of_url(url: str) -> AisgSandboxKeys | None:
    """The sandbox whose ``ACCOUNTS_AISG_URL`` is ``url`` (``sandbox:<folder>`` of a made set), or None."""
    if not url.startswith(URL_PREFIX):
        return None
    folder = Path(url.removeprefix(URL_PREFIX))
    return AisgSandboxKeys.at(folder) if (folder / MARKER).is_file() else None


def sandbox_settings(keys: AisgSandboxKeys) -> dict[str, str]:
    """Both registers through the AISG interface of the sandbox, as the settings' environment variables
    (config/settings/accounts.py)."""
    return {
        "ACCOUNTS_POPULATION_REGISTER": "aisg",
        "ACCOUNTS_EXCLUSION_REGISTER": "aisg",
        "ACCOUNTS_AISG_URL": keys.url,
        "ACCOUNTS_AISG_KEY_FILE": str(keys.operator_key),
        "ACCOUNTS_AISG_CERT_FILE": str(keys.operator_cert),
        "ACCOUNTS_AISG_MINISTRY_CERT_FILE": str(keys.ministry_cert),
    }
