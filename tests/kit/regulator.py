"""Test certificates for the package's encryption and seal, and for the Ministry's client identity: a test CA, an
operator seal (PKCS#12), a "Ministry" encryption certificate with its key, all generated on the spot (never used
outside tests and the local Ministry)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import pkcs12

from regulator.sandbox_pki import cert_pem, certificate, key_pem


def _cert(
    subject: str,
    key: rsa.RSAPrivateKey,
    issuer: str,
    issuer_key: rsa.RSAPrivateKey,
    *,
    ca: bool = False,
    not_before: datetime | None = None,
    days: int = 365,
    server: bool = False,
) -> x509.Certificate:
    """``regulator.sandbox.certificate`` (the Ministry sandbox's certificates); ``server``: for localhost."""
    return certificate(
        subject,
        key,
        issuer,
        issuer_key,
        ca=ca,
        not_before=not_before,
        days=days,
        dns=("localhost",) if server else (),
        ips=("127.0.0.1",) if server else (),
    )


@dataclass(frozen=True)
class TestPki:
    folder: Path
    ca: Path  # PEM of the test CA (trust anchor of the seal)
    seal_p12: Path
    seal_password: str
    seal_cert: Path
    ministry_cert: Path  # the "Ministry's" encryption certificate
    ministry_key: Path
    operator_cert: Path  # the operator's own encryption certificate
    operator_key: Path
    server_cert: Path  # the operator's TLS server (localhost)
    server_key: Path
    client_cert: Path  # the "Ministry's" TLS client certificate
    client_key: Path


def make_pki(folder: Path, *, seal_days: int = 7300, seal_not_before: datetime | None = None) -> TestPki:
    folder.mkdir(parents=True, exist_ok=True)
    ca_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    ca = _cert("Test CA", ca_key, "Test CA", ca_key, ca=True, days=7300)
    out: dict[str, Path] = {"ca": folder / "ca.pem"}
    out["ca"].write_bytes(cert_pem(ca))
    seal_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    seal = _cert("Test operator seal", seal_key, "Test CA", ca_key, not_before=seal_not_before, days=seal_days)
    p12 = pkcs12.serialize_key_and_certificates(
        b"seal", seal_key, seal, [ca], serialization.BestAvailableEncryption(b"test-password")
    )
    (folder / "seal.p12").write_bytes(p12)
    (folder / "seal.pem").write_bytes(cert_pem(seal))
    for who, cn, server in (
        ("ministry", "Test ministry encryption", False),
        ("operator", "Test operator encryption", False),
        ("server", "localhost", True),
        ("client", "SPCSS Test AM AISG Autentizacni CGI", False),
    ):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        cert = _cert(cn, key, "Test CA", ca_key, days=7300, server=server)
        (folder / f"{who}.pem").write_bytes(cert_pem(cert))
        (folder / f"{who}.key").write_bytes(key_pem(key))
    return TestPki(
        folder,
        out["ca"],
        folder / "seal.p12",
        "test-password",
        folder / "seal.pem",
        folder / "ministry.pem",
        folder / "ministry.key",
        folder / "operator.pem",
        folder / "operator.key",
        folder / "server.pem",
        folder / "server.key",
        folder / "client.pem",
        folder / "client.key",
    )


class TlsTerminator:
    """The operator's TLS terminator for tests: HTTPS with client certificates required (verified against ``ca``),
    forwarding each request to ``upstream`` (the live Django server) with the client certificate in the headers the
    platform reads (URL-encoded PEM and SUCCESS), and removing any such headers the client sent."""

    def __init__(self, *, upstream: str, cert: Path, key: Path, ca: Path) -> None:
        import http.server
        import ssl
        import threading
        import urllib.error
        import urllib.request
        from urllib.parse import quote

        upstream_base = upstream.rstrip("/")

        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self) -> None:
                der = self.connection.getpeercert(binary_form=True)
                pem = x509.load_der_x509_certificate(der).public_bytes(serialization.Encoding.PEM).decode()
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in ("x-ssl-client-cert", "x-ssl-client-verify", "host", "connection")
                }
                headers.update({"X-SSL-Client-Cert": quote(pem), "X-SSL-Client-Verify": "SUCCESS"})
                req = urllib.request.Request(upstream_base + self.path, data=body, headers=headers, method=self.command)
                try:
                    with urllib.request.urlopen(req, timeout=60) as resp:
                        status, content, ctype = resp.status, resp.read(), resp.headers.get("Content-Type", "")
                except urllib.error.HTTPError as exc:
                    status, content, ctype = exc.code, exc.read(), exc.headers.get("Content-Type", "")
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = _forward
            do_POST = _forward

            def log_message(self, *args: object) -> None:
                pass

        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2
        ctx.load_cert_chain(str(cert), str(key))
        ctx.verify_mode = ssl.CERT_REQUIRED
        ctx.load_verify_locations(str(ca))
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.socket = ctx.wrap_socket(self.server.socket, server_side=True)
        self.url = f"https://localhost:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
