"""A local AISG server for tests (importable without pytest): the Ministry of Finance's interface version 1.0 as
its WSDL describes it, on 127.0.0.1 (a thread, plain HTTP).

:class:`LocalAisg` answers ``POST /rovo/v1`` with SOAP 1.1 as the Ministry does: it checks the ``SOAPAction``, the
request's WS-Security signature against the operator's certificate (a bad or missing one is a fault), validates
the request against the Ministry's XSD when the specification's files are at hand (``../shared/spec/rvo-data``;
``schema`` says whether they were), and answers ``OveritOsobu``, ``OveritOsobyHromadne``,
``ZiskatVysledkyOveritOsobyHromadne``, ``ZmenitUdajeOsoby`` and ``Test`` signed with "the Ministry's" key
(:attr:`ministry_cert_pem` is what the platform verifies against).

Who it knows: :meth:`add` a person (given names, surname, birth date) with the answer to give (``rob``, ``rvo``,
``adult``; the HID is a stable UUID of the person). :func:`playground_persons` reads the persons of the Ministry's
playground requests (``rvo-data/requests/*.json``) for fixtures. A person it does not know is ``NENALEZENA`` /
``NEOVERENO``; the adult answer is computed from the birth date sent.

Faults a test can ask for: ``fault = (kod, popis)`` (a SOAP fault with ErrorMessage), ``delay`` (seconds before
answering), ``sign_with`` ("ministry" | "other": another key | "none": unsigned | "tamper": altered after signing),
``echo = False`` (the answer carries another CisloPozadavku), ``batch_polls`` (how many collections answer
``Prijata`` before ``Zpracovana``). ``requests`` lists (operation, request element) of what it was asked.
"""

from __future__ import annotations

import datetime as dt
import json
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID
from lxml import etree

from accounts.aisg import types as t
from accounts.aisg import wsse
from accounts.aisg.sandbox import OPERATIONS, Known, MinistrySide
from accounts.aisg.sandbox_keys import key_pair

__all__ = ["OPERATIONS", "Known", "LocalAisg", "key_pair", "spec_dir"]


def spec_dir(base: Path | None = None) -> Path:
    """``../shared/spec/rvo-data`` beside the repository (may be absent: callers skip with a reason)."""
    if base is None:
        from django.conf import settings

        base = settings.BASE_DIR
    return base.parent / "shared" / "spec" / "rvo-data"


def _fold(text: str) -> str:
    import unicodedata

    plain = "".join(c for c in unicodedata.normalize("NFKD", text or "") if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def person_from_reference_json(osoba: dict[str, Any]) -> t.Person:
    """A person as the Ministry's reference clients write one (lowerCamelCase JSON of OsobaType)."""
    place: t.PlaceCode | t.BirthPlaceCZ | t.BirthPlaceAbroad | None = None
    mn = osoba.get("mistoNarozeni") or {}
    if mn.get("mistoNarozeniKod") is not None:
        place = t.PlaceCode(int(mn["mistoNarozeniKod"]))
    elif mn.get("mistoNarozeniCR"):
        place = t.BirthPlaceCZ(mn["mistoNarozeniCR"]["obec"], mn["mistoNarozeniCR"]["okres"])
    elif mn.get("mistoNarozeniSvet"):
        place = t.BirthPlaceAbroad(mn["mistoNarozeniSvet"]["misto"], mn["mistoNarozeniSvet"]["stat"])
    residence: t.PlaceCode | t.Address | None = None
    tp = osoba.get("trvalyPobyt") or {}
    for key, country in (("trvalyPobytCR", "CZ"), ("trvalyPobytSvet", None)):
        a = tp.get(key)
        if a:
            residence = t.Address(
                municipality=a["obec"],
                country=country or a.get("stat") or "",
                street=a.get("ulice") or "",
                house_number=int(a["cisloPopisneEvidencni"]) if a.get("cisloPopisneEvidencni") else None,
                orientation_number=int(a["cisloOrientacni"]) if a.get("cisloOrientacni") else None,
                orientation_suffix=a.get("cisloOrientacniDodatek") or "",
                prague_district=a.get("cisloObvodMestaPrahy"),
                municipality_part=a.get("obecCast") or "",
                postal_code=str(a["psc"]) if a.get("psc") is not None else "",
            )
    if tp.get("trvalyPobytKod") is not None:
        residence = t.PlaceCode(int(tp["trvalyPobytKod"]))
    return t.Person(
        given_names=osoba["jmeno"],
        surname=osoba["prijmeni"],
        date_of_birth=dt.date.fromisoformat(osoba["datumNarozeni"]),
        citizenship=osoba["statniObcanstvi"],
        birth_surname=osoba.get("rodnePrijmeni") or "",
        birth_place=place,
        residence=residence,
    )


def _read_json(path: Path) -> dict[str, Any]:
    """The first JSON object of the file (some of the Ministry's request files carry a stray closing brace after it,
    which its Jackson-based client ignores)."""
    obj, _end = json.JSONDecoder().raw_decode(path.read_text(encoding="utf-8-sig").lstrip())
    return obj if isinstance(obj, dict) else {}


def playground_persons(folder: Path) -> dict[str, t.Person]:
    """The persons of the Ministry's playground requests, by file name (``overeni_NovakD``, ``hromadneOvereni/o1``)."""
    out: dict[str, t.Person] = {}
    for path in sorted((folder / "requests").glob("*.json")):
        data = _read_json(path)
        if data.get("osoba"):
            out[path.stem] = person_from_reference_json(data["osoba"])
        for row in (data.get("osoby") or {}).get("osobaKOvereni") or []:
            out[f"{path.stem}/{row['identifikaceZaznamu']}"] = person_from_reference_json(row["osoba"])
    return out


def playground_hids(folder: Path) -> dict[str, str]:
    """The HIDs of the Ministry's playground login requests (``overeni_prihlaseni_hid_<name>``)."""
    out = {}
    for path in sorted((folder / "requests").glob("*hid*.json")):
        data = _read_json(path)
        if data.get("hid"):
            out[path.stem] = data["hid"]
    return out


def tls_certificate(folder: Path) -> tuple[Path, Path]:
    """A server certificate for 127.0.0.1 that is its own CA (its file is the trust for ACCOUNTS_AISG_CA_FILE)."""
    import ipaddress

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "local AISG")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = folder / "aisg-tls-cert.pem", folder / "aisg-tls-key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


class LocalAisg(MinistrySide):
    """The Ministry's side of the interface (``accounts.aisg.sandbox.MinistrySide``, shared with the product's
    sandbox) on a local HTTP(S) server, knowing the persons a test adds, with the faults a test asks for."""

    request_prefix = "LOCAL"

    def __init__(
        self, *, operator_cert_pem: bytes, schema_dir: Path | None = None, tls_folder: Path | None = None
    ) -> None:
        ministry_key_pem, ministry_cert_pem = key_pair("MF - Dozorová část AISG - local test")
        super().__init__(
            ministry_key_pem=ministry_key_pem, ministry_cert_pem=ministry_cert_pem, operator_cert_pem=operator_cert_pem
        )
        self.tls_folder = tls_folder  # HTTPS with a certificate written there (``tls_ca_file``)
        self.tls_ca_file = ""
        self.operator_key_pem = b""  # for tests that sign a request themselves
        self._other_key_pem, self._other_cert_pem = key_pair("somebody else")
        self.persons: dict[str, Known] = {}
        self.by_hid: dict[str, Known] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.changes: list[tuple[str, etree._Element]] = []
        self.requests: list[tuple[str, etree._Element]] = []
        self.fault: tuple[int, str] | None = None
        self.delay = 0.0
        self.sign_with = "ministry"
        self.echo = True
        self.batch_polls = 0
        self.today_is: dt.date | None = None  # None: the platform's business date (core.clock)
        self.schema: etree.XMLSchema | None = None
        if schema_dir is not None and (schema_dir / "aisg.xsd").is_file():
            self.schema = etree.XMLSchema(etree.parse(str(schema_dir / "aisg.xsd")))
        self.schema_errors: list[str] = []
        self._lock = threading.Lock()
        self.server: ThreadingHTTPServer | None = None

    # who it knows ------------------------------------------------------------------------------------------
    @staticmethod
    def key(given_names: str, surname: str, date_of_birth: dt.date) -> str:
        return f"{_fold(given_names)}|{_fold(surname)}|{date_of_birth.isoformat()}"

    def add(
        self,
        given_names: str,
        surname: str,
        date_of_birth: dt.date,
        *,
        rob: str = t.ROB_FOUND,
        rvo: str = t.RVO_NOT_LISTED,
        adult: str | None = None,
        hid: str | None = None,
    ) -> Known:
        k = self.key(given_names, surname, date_of_birth)
        known = Known(
            hid=hid or str(uuid.uuid5(uuid.NAMESPACE_URL, "aisg:" + k)),
            rob=rob,
            rvo=rvo,
            adult=adult,
            date_of_birth=date_of_birth,
        )
        self.persons[k] = known
        self.by_hid[known.hid] = known
        return known

    def add_person(self, person: t.Person, **answer: Any) -> Known:
        return self.add(person.given_names, person.surname, person.date_of_birth, **answer)

    def person(self, given_names: str, surname: str, date_of_birth: dt.date) -> Known | None:
        """A person a test added; anybody else is unknown (``NENALEZENA`` / ``NEOVERENO``)."""
        return self.persons.get(self.key(given_names, surname, date_of_birth))

    def person_by_hid(self, hid: str) -> Known | None:
        return self.by_hid.get(hid)

    def today(self) -> dt.date:
        return self.today_is or super().today()

    def batch_submit(self, rows: list[tuple[str, str, str, dt.date]]) -> str:
        """The answers are taken when the batch comes in; ``batch_polls`` collections answer ``Prijata`` first,
        ``batches[id]["expired"] = True`` makes it ``Ukoncena``."""
        batch = str(uuid.uuid4())
        answers = [(key, self.person(given, surname, dob), dob) for key, given, surname, dob in rows]
        with self._lock:
            self.batches[batch] = {"rows": answers, "polls": 0}
        return batch

    def batch_collect(self, batch_id: str) -> tuple[str, list[tuple[str, Known | None, dt.date]]] | None:
        with self._lock:
            batch_state = self.batches.get(batch_id)
            if batch_state is None:
                return None
            batch_state["polls"] += 1
        state = t.BATCH_ACCEPTED if batch_state["polls"] <= self.batch_polls else t.BATCH_DONE
        if batch_state.get("expired"):
            state = t.BATCH_EXPIRED
        return state, batch_state["rows"]

    def change(self, hid: str, request: etree._Element) -> bool:
        if hid not in self.by_hid:
            return False
        self.changes.append((hid, request))
        return True

    # the faults a test asks for ------------------------------------------------------------------------------
    def admit(self, action: str, request: etree._Element) -> tuple[int, bytes] | None:
        if self.schema is not None and not self.schema.validate(request):
            self.schema_errors.append(str(self.schema.error_log.last_error))
            return self.fault_answer(
                9003, f"schema: {self.schema.error_log.last_error}"[:255], faultcode="soapenv:Client"
            )
        with self._lock:
            self.requests.append((action, request))
        if self.fault is not None:
            return self.fault_answer(*self.fault)
        return None

    def echoed_request_id(self, request_id: str) -> str:
        return request_id if self.echo else str(uuid.uuid4())

    def sign(self, env: etree._Element) -> bytes:
        if self.sign_with == "none":
            return etree.tostring(env, xml_declaration=True, encoding="UTF-8")
        if self.sign_with == "other":
            return wsse.sign_envelope(env, key_pem=self._other_key_pem, cert_pem=self._other_cert_pem)
        data = super().sign(env)
        if self.sign_with == "tamper":
            data = data.replace(b">NE<", b">AN<", 1).replace(b">ANO<", b">NE<", 1)
        return data

    # the server --------------------------------------------------------------------------------------------
    def start(self) -> LocalAisg:
        aisg = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                data = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, body = aisg.handle(self.headers.get("SOAPAction", "").strip('"'), data)
                if aisg.delay:
                    time.sleep(aisg.delay)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "text/xml;charset=UTF-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        if self.tls_folder is not None:
            import ssl

            cert, key = tls_certificate(self.tls_folder)
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(str(cert), str(key))
            self.server.socket = context.wrap_socket(self.server.socket, server_side=True)
            self.tls_ca_file = str(cert)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    @property
    def url(self) -> str:
        assert self.server is not None
        scheme = "https" if self.tls_folder is not None else "http"
        return f"{scheme}://127.0.0.1:{self.server.server_address[1]}/rovo/v1"

    def environment(self, folder: Path, operator_key_pem: bytes) -> dict[str, str]:
        """The platform's AISG variables for this server (the key and certificates written to ``folder``)."""
        (folder / "aisg-operator-key.pem").write_bytes(operator_key_pem)
        (folder / "aisg-operator-cert.pem").write_bytes(self.operator_cert_pem)
        (folder / "aisg-ministry.pem").write_bytes(self.ministry_cert_pem)
        return {
            "ACCOUNTS_POPULATION_REGISTER": "aisg",
            "ACCOUNTS_EXCLUSION_REGISTER": "aisg",
            "ACCOUNTS_AISG_URL": self.url,
            "ACCOUNTS_AISG_CA_FILE": self.tls_ca_file,
            "ACCOUNTS_AISG_KEY_FILE": str(folder / "aisg-operator-key.pem"),
            "ACCOUNTS_AISG_CERT_FILE": str(folder / "aisg-operator-cert.pem"),
            "ACCOUNTS_AISG_MINISTRY_CERT_FILE": str(folder / "aisg-ministry.pem"),
            "ACCOUNTS_AISG_ICO_VCP": "01234567",
        }

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def __enter__(self) -> LocalAisg:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
