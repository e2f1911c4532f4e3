"""A local "Ministry": the receiving side of the remote access, for tests and for operators who want to check their
own deployment end to end. It downloads a package over mutual TLS (its client certificate, the operator's server
verified against a CA), verifies the seal, decrypts with its own key, validates every file (regulator.validator, the
project's definitions that the conformance test holds equal to the Ministry's tables), and answers on the
notification URLs: ``OK: YYYYMMDD-HHMMSS`` on success, the ``ERR_*`` lines on error (the reference endpoint's
behaviour; the real notification format is an open point, docs/regulator.md)."""

from __future__ import annotations

import ssl
import tempfile
import urllib.error
import urllib.request
import zipfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from regulator import crypto
from regulator.validator import Report, validate_sealed


@dataclass(frozen=True)
class MinistrySide:
    base_url: str  # .../api/v1/regulator/ministry/
    client_cert: Path
    client_key: Path
    server_ca: Path
    seal_ca: Path
    decrypt_cert: Path
    decrypt_key: Path

    def _context(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=str(self.server_ca))
        ctx.load_cert_chain(str(self.client_cert), str(self.client_key))
        return ctx

    def _open(self, url: str, data: bytes | None = None) -> tuple[int, bytes]:
        req = urllib.request.Request(
            url,
            data=data,
            method="POST" if data is not None else "GET",
            headers={"Content-Type": "text/plain; charset=utf-8"} if data else {},
        )
        try:
            with urllib.request.urlopen(req, context=self._context(), timeout=60) as resp:
                return resp.status, resp.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()

    def download(self, package: str, into: Path) -> Path:
        status, body = self._open(f"{self.base_url}packages/{package}.zip.p7e.p7s")
        if status != 200:
            raise RuntimeError(f"download of {package}: HTTP {status} {body[:200]!r}")
        path = into / f"{package}.zip.p7e.p7s"
        path.write_bytes(body)
        return path

    def process(self, package: str) -> Report:
        """Download, check, and notify the operator; the validation report."""
        with tempfile.TemporaryDirectory() as tmp:
            path = self.download(package, Path(tmp))
            report = validate_sealed(
                path, trusted_seal=self.seal_ca, decrypt_cert=self.decrypt_cert, decrypt_key=self.decrypt_key
            )
        if report.ok:
            body = f"OK: {datetime.now(UTC):%Y%m%d-%H%M%S}"
            self._open(f"{self.base_url}notify/success?balicek={package}", body.encode())
        else:
            self._open(f"{self.base_url}notify/error?balicek={package}", "\r\n".join(report.errors).encode())
        return report


def confirmation_package(*, package: str, report: Report, out_dir: Path, seal: object, recipient: Path) -> Path:
    """The Ministry's answer as a package: the report (``OK: YYYYMMDD-HHMMSS`` or the error lines) zipped, encrypted
    for the operator's registered encryption certificate and sealed with the Ministry's seal:
    ``<name>.Ok.zip.p7e.p7s`` on success (the error variant's name is an open point: ``<name>.Err.zip.p7e.p7s``)."""
    assert isinstance(seal, crypto.Seal)
    name = f"{package}.{'Ok' if report.ok else 'Err'}"
    text = f"OK: {datetime.now(UTC):%Y%m%d-%H%M%S}" if report.ok else "\r\n".join(report.errors)
    with tempfile.TemporaryDirectory() as tmp:
        z, e = Path(tmp, f"{name}.zip"), Path(tmp, f"{name}.zip.p7e")
        with zipfile.ZipFile(z, "w") as zf:
            zf.writestr(f"{name}.txt", text)
        crypto.encrypt(z, e, [recipient])
        out = out_dir / f"{name}.zip.p7e.p7s"
        crypto.sign(e, out, seal)
    return out
