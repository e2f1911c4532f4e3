"""The Ministry's side of the AISG data interface, version 1.0, and the AISG sandbox for development (never production).

:class:`MinistrySide` does what the Ministry's server does with one SOAP request (``handle(action, body)``): it checks
the ``SOAPAction`` against the body and the request's WS-Security signature against the operator's certificate (a bad
or missing one is a fault, ``Kod`` 9001), and answers ``OveritOsobu``, ``OveritOsobyHromadne``,
``ZiskatVysledkyOveritOsobyHromadne``, ``ZmenitUdajeOsoby`` and ``Test`` signed with the Ministry's key, in the
interface's own elements (``Plnoleta`` from the birth date, ``HID`` only for a person found, ``NalezenaROB``,
``NalezenaRVO``). Who it knows is its subclasses' part. The test kit's local server (``tests.kit.aisg.LocalAisg``)
is one, with persons a test adds and the faults a test asks for; :class:`AisgSandbox` is the other.

:class:`AisgSandbox` answers by documented rules (docs/accounts.md "AISG sandbox"), as a bank's sandbox answers by
its published test values:

* the surname decides the unusual answers (compared without case and accents, either gender's form):
  ``Nenalezený``/``Nenalezená`` -> ``NENALEZENA`` (and ``NEOVERENO``), ``Zemřelý``/``Zemřelá`` -> ``MRTVA``,
  ``Duplicitní`` -> ``DUPLICITA``, ``Nezletilý``/``Nezletilá`` -> ``Plnoleta=NE`` (the register's birth date makes the
  person under 18 whatever birth date was sent), ``Vyloučený``/``Vyloučená`` -> ``NalezenaRVO=ANO``,
  ``Neověřený``/``Neověřená`` -> ``NalezenaRVO=NEOVERENO``, ``Nedostupný``/``Nedostupná`` -> ``NEODPOVEZENO``;
* the register of excluded persons is the sandbox exclusion register's table (``SandboxExclusionEntry``, which staff
  fill in the admin: a listed entry in force -> ``ANO``, an "unavailable" entry -> ``NEOVERENO``), matched by name and
  birth date as the interface asks (it has no birth number);
* everyone else is found (``NALEZENA``, ``NalezenaRVO=NE``), adult by the birth date sent, with a HID that stays the
  person's (a UUID of the name and birth date); the sandbox remembers the persons it identified and the batches it
  took in its folder, so a login by HID or a batch's collection works from any process.

The platform reaches the sandbox through its usual client: ``ACCOUNTS_AISG_URL=sandbox:<folder>`` (made with its keys
by ``accounts.aisg.sandbox_keys``; ``make run`` configures it) makes ``accounts.aisg.client.config`` hand the signed
request to :func:`transport` instead of the network; everything else (building and signing the request, checking the
Ministry's signature and the echo, the decision table, the staff queue) is the production code. Production refuses
an ``ACCOUNTS_AISG_URL`` that is not ``https://`` (config/refusals.py)."""

from __future__ import annotations

import datetime as dt
import json
import os
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lxml import etree

from accounts.aisg import types as t
from accounts.aisg import wsse
from accounts.aisg.sandbox_keys import AisgSandboxKeys
from accounts.aisg.v1 import NS, SOAP, q
from accounts.validation import fold, name_dob_key

OPERATIONS = ("OveritOsobu", "OveritOsobyHromadne", "ZiskatVysledkyOveritOsobyHromadne", "ZmenitUdajeOsoby", "Test")


@dataclass
class Known:
    """A person the Ministry's side knows, and the answer it gives about them (``adult`` None: from the birth date)."""

    hid: str
    rob: str = t.ROB_FOUND
    rvo: str = t.RVO_NOT_LISTED
    adult: str | None = None
    date_of_birth: dt.date | None = None


def age_on(dob: dt.date, today: dt.date) -> int:
    return today.year - dob.year - ((today.month, today.day) < (dob.month, dob.day))


class MinistrySide:
    """The Ministry's server of interface 1.0 for one request at a time (see the module's docstring)."""

    #: how the IdentifikacePozadavku of its answers begins
    request_prefix = "SANDBOX"

    def __init__(self, *, ministry_key_pem: bytes, ministry_cert_pem: bytes, operator_cert_pem: bytes) -> None:
        self.ministry_key_pem = ministry_key_pem
        self.ministry_cert_pem = ministry_cert_pem
        self.operator_cert_pem = operator_cert_pem

    # who it knows (the subclasses') ----------------------------------------------------------------------------
    def person(self, given_names: str, surname: str, date_of_birth: dt.date) -> Known | None:
        raise NotImplementedError

    def person_by_hid(self, hid: str) -> Known | None:
        raise NotImplementedError

    def batch_submit(self, rows: list[tuple[str, str, str, dt.date]]) -> str:
        """Take a batch of (row key, given names, surname, birth date); its number."""
        raise NotImplementedError

    def batch_collect(self, batch_id: str) -> tuple[str, list[tuple[str, Known | None, dt.date]]] | None:
        """The batch's state and, once processed, its rows' answers; None for a batch it does not know."""
        raise NotImplementedError

    def change(self, hid: str, request: etree._Element) -> bool:
        """A person's changed data under their HID; False for a HID it does not know."""
        raise NotImplementedError

    def today(self) -> dt.date:
        from core import clock  # the platform's business date (a test travels in time with it)

        return clock.business_date()

    # hooks of the protocol ---------------------------------------------------------------------------------------
    def admit(self, action: str, request: etree._Element) -> tuple[int, bytes] | None:
        """A fault instead of the answer, or None to answer (the test kit validates the schema and injects faults)."""
        return None

    def echoed_request_id(self, request_id: str) -> str:
        """The CisloPozadavku the answer carries: the request's."""
        return request_id

    def sign(self, env: etree._Element) -> bytes:
        return wsse.sign_envelope(env, key_pem=self.ministry_key_pem, cert_pem=self.ministry_cert_pem)

    # answers -----------------------------------------------------------------------------------------------------
    @staticmethod
    def envelope() -> tuple[etree._Element, etree._Element]:
        env = etree.Element(f"{{{SOAP}}}Envelope", nsmap={"soapenv": SOAP, "r": NS, "wsu": wsse.WSU_NS})
        return env, etree.SubElement(env, f"{{{SOAP}}}Body")

    def fault_answer(self, kod: int, popis: str, *, faultcode: str = "soapenv:Server") -> tuple[int, bytes]:
        """A SOAP fault with the Ministry's ErrorMessage (HTTP 500, unsigned, as the Ministry's faults are)."""
        env, body = self.envelope()
        fault = etree.SubElement(body, f"{{{SOAP}}}Fault")
        etree.SubElement(fault, "faultcode").text = faultcode
        etree.SubElement(fault, "faultstring").text = popis
        detail = etree.SubElement(fault, "detail")
        msg = etree.SubElement(detail, q("ErrorMessage"))
        etree.SubElement(msg, q("Kod")).text = str(kod)
        etree.SubElement(msg, q("Popis")).text = popis
        return 500, etree.tostring(env, xml_declaration=True, encoding="UTF-8")

    def answer(self, operation: str, request_id: str) -> tuple[etree._Element, etree._Element]:
        env, body = self.envelope()
        answer = etree.SubElement(body, q(f"{operation}Response"))
        etree.SubElement(answer, q("CisloPozadavku")).text = self.echoed_request_id(request_id)
        etree.SubElement(answer, q("IdentifikacePozadavku")).text = f"{self.request_prefix}-{uuid.uuid4()}"
        return env, answer

    def adult(self, known: Known | None, dob: dt.date | None) -> str:
        if known is not None and known.adult:
            return known.adult
        dob = dob or (known.date_of_birth if known else None)
        if dob is None:
            return t.ADULT_NO
        return t.ADULT_YES if age_on(dob, self.today()) >= 18 else t.ADULT_NO

    def results(self, parent: etree._Element, known: Known | None, dob: dt.date | None) -> None:
        """VysledkyOvereniGroup: the HID of a person found (or dead), adult, ROB, RVO."""
        if known is not None and known.rob in (t.ROB_FOUND, t.ROB_DEAD):
            etree.SubElement(parent, q("HID")).text = known.hid
        etree.SubElement(parent, q("Plnoleta")).text = self.adult(known, dob)
        etree.SubElement(parent, q("NalezenaROB")).text = known.rob if known else t.ROB_NOT_FOUND
        etree.SubElement(parent, q("NalezenaRVO")).text = known.rvo if known else t.RVO_UNVERIFIED

    @staticmethod
    def osoba(osoba: etree._Element) -> tuple[str, str, dt.date]:
        """(given names, surname, birth date) of an OsobaType."""
        dob = dt.date.fromisoformat(osoba.findtext(q("DatumNarozeni")) or "")
        return osoba.findtext(q("Jmeno")) or "", osoba.findtext(q("Prijmeni")) or "", dob

    def handle(self, action: str, data: bytes) -> tuple[int, bytes]:
        """One request (its ``SOAPAction`` and body) -> (HTTP status, the answer's bytes)."""
        try:
            body = wsse.verify_envelope(data, cert_pem=self.operator_cert_pem)
        except wsse.SignatureError as exc:
            return self.fault_answer(9001, f"WS-Security: {exc}"[:255], faultcode="soapenv:Client")
        if len(body) != 1 or body[0].tag != q(f"{action}Request") or action not in OPERATIONS:
            return self.fault_answer(9002, f"SOAPAction {action!r} does not match the body")
        request = body[0]
        refused = self.admit(action, request)
        if refused is not None:
            return refused
        env, answer = self.answer(action, request.findtext(q("CisloPozadavku")) or "")
        if action == "OveritOsobu":
            hid = request.findtext(q("HID"))
            if hid is not None:
                known, dob = self.person_by_hid(hid), None
            else:
                osoba = request.find(q("Osoba"))
                assert osoba is not None
                given, surname, dob = self.osoba(osoba)
                known = self.person(given, surname, dob)
            self.results(answer, known, dob)
        elif action == "OveritOsobyHromadne":
            rows = []
            for row in request.iterfind(f"{q('Osoby')}/{q('OsobaKOvereni')}"):
                osoba = row.find(q("Osoba"))
                assert osoba is not None
                rows.append((row.findtext(q("IdentifikaceZaznamu")) or "", *self.osoba(osoba)))
            etree.SubElement(answer, q("CisloDavky")).text = self.batch_submit(rows)
        elif action == "ZiskatVysledkyOveritOsobyHromadne":
            collected = self.batch_collect(request.findtext(q("CisloDavky")) or "")
            if collected is None:
                return self.fault_answer(9010, "unknown batch")
            state, results = collected
            etree.SubElement(answer, q("Stav")).text = state
            osoby = etree.SubElement(answer, q("Osoby"))
            if state == t.BATCH_DONE:
                for key, known, dob in results:
                    res = etree.SubElement(osoby, q("OsobaKOvereniVysledek"))
                    etree.SubElement(res, q("IdentifikaceZaznamu")).text = key
                    self.results(res, known, dob)
        elif action == "ZmenitUdajeOsoby":
            if not self.change(request.findtext(q("HID")) or "", request):
                return self.fault_answer(9011, "unknown HID")
        return 200, self.sign(env)


# The sandbox ---------------------------------------------------------------------------------------------------
#: the documented surnames (folded) and the answer each gives (docs/accounts.md "AISG sandbox")
SURNAME_RULES: dict[str, dict[str, str]] = {
    **dict.fromkeys(("nenalezeny", "nenalezena"), {"rob": t.ROB_NOT_FOUND, "rvo": t.RVO_UNVERIFIED}),
    **dict.fromkeys(("zemrely", "zemrela"), {"rob": t.ROB_DEAD}),
    "duplicitni": {"rob": t.ROB_DUPLICATE, "rvo": t.RVO_UNVERIFIED},
    **dict.fromkeys(("nezletily", "nezletila"), {"adult": t.ADULT_NO}),
    **dict.fromkeys(("vylouceny", "vyloucena"), {"rvo": t.RVO_LISTED}),
    **dict.fromkeys(("neovereny", "neoverena"), {"rvo": t.RVO_UNVERIFIED}),
    **dict.fromkeys(("nedostupny", "nedostupna"), {"rob": t.ROB_NO_ANSWER, "rvo": t.RVO_UNVERIFIED}),
}


def _write(path: Path, data: object) -> None:
    """Write a file whole (another process never reads half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    with os.fdopen(fd, "w") as fh:
        json.dump(data, fh)
    os.replace(tmp, path)


class AisgSandbox(MinistrySide):
    """The AISG sandbox: answers by the documented rules (see the module's docstring); remembers in ``keys.folder``."""

    def __init__(self, keys: AisgSandboxKeys) -> None:
        super().__init__(
            ministry_key_pem=keys.ministry_key.read_bytes(),
            ministry_cert_pem=keys.ministry_cert.read_bytes(),
            operator_cert_pem=keys.operator_cert.read_bytes(),
        )
        self.folder = keys.folder

    @staticmethod
    def hid_of(given_names: str, surname: str, date_of_birth: dt.date) -> str:
        return str(uuid.uuid5(uuid.NAMESPACE_URL, "aisg-sandbox:" + name_dob_key(given_names, surname, date_of_birth)))

    def _excluded(self, given_names: str, surname: str, date_of_birth: dt.date) -> str:
        """NalezenaRVO from the sandbox register of excluded persons (the same table and matching as
        ``accounts.adapters.SandboxExclusionRegister``: by name and birth date, the interface has no birth number)."""
        # accounts.adapters imports the AISG client, which reaches this module: imported here, not at the top
        from accounts.adapters import Identity, RegisterUnavailable, SandboxExclusionRegister

        identity = Identity(given_names=given_names, surname=surname, date_of_birth=date_of_birth)
        try:
            listed = SandboxExclusionRegister().is_listed(identity)
        except RegisterUnavailable:
            return t.RVO_UNVERIFIED
        return t.RVO_LISTED if listed else t.RVO_NOT_LISTED

    def person(self, given_names: str, surname: str, date_of_birth: dt.date) -> Known | None:
        rule = SURNAME_RULES.get(fold(surname), {})
        known = Known(
            hid=self.hid_of(given_names, surname, date_of_birth),
            rob=rule.get("rob", t.ROB_FOUND),
            rvo=rule.get("rvo") or self._excluded(given_names, surname, date_of_birth),
            adult=rule.get("adult"),
            date_of_birth=date_of_birth,
        )
        if known.rob in (t.ROB_FOUND, t.ROB_DEAD):
            self._remember(known.hid, given_names, surname, date_of_birth)
        return known

    def _remember(self, hid: str, given_names: str, surname: str, date_of_birth: dt.date) -> None:
        path = self.folder / "persons" / f"{hid}.json"
        record = {"given_names": given_names, "surname": surname, "date_of_birth": date_of_birth.isoformat()}
        if not path.is_file() or json.loads(path.read_text()) != record:
            _write(path, record)

    def _remembered(self, hid: str) -> dict[str, str] | None:
        try:
            path = self.folder / "persons" / f"{uuid.UUID(hid)}.json"
        except ValueError:
            return None
        return json.loads(path.read_text()) if path.is_file() else None

    def person_by_hid(self, hid: str) -> Known | None:
        """The person identified under ``hid`` answered afresh (a listing made since shows); the HID stays theirs
        after a change of their data."""
        record = self._remembered(hid)
        if record is None:
            return None
        known = self.person(record["given_names"], record["surname"], dt.date.fromisoformat(record["date_of_birth"]))
        if known is not None:
            known.hid = hid
        return known

    def batch_submit(self, rows: list[tuple[str, str, str, dt.date]]) -> str:
        batch = str(uuid.uuid4())
        _write(self.folder / "batches" / f"{batch}.json", [[k, g, s, d.isoformat()] for k, g, s, d in rows])
        return batch

    def batch_collect(self, batch_id: str) -> tuple[str, list[tuple[str, Known | None, dt.date]]] | None:
        """Processed at once (``Zpracovana``): each row answered as a single request would be."""
        try:
            path = self.folder / "batches" / f"{uuid.UUID(batch_id)}.json"
        except ValueError:
            return None
        if not path.is_file():
            return None
        results = []
        for key, given, surname, dob in json.loads(path.read_text()):
            born = dt.date.fromisoformat(dob)
            results.append((key, self.person(given, surname, born), born))
        return t.BATCH_DONE, results

    def change(self, hid: str, request: etree._Element) -> bool:
        if self._remembered(hid) is None:
            return False
        osoba = request.find(q("Osoba"))
        if osoba is not None:
            self._remember(str(uuid.UUID(hid)), *self.osoba(osoba))
        return True


def transport(keys: AisgSandboxKeys) -> Callable[[str, bytes], tuple[int, bytes]]:
    """What the client sends its signed requests through instead of HTTP: (operation, body) -> (status, answer)."""
    sandbox = AisgSandbox(keys)
    return sandbox.handle
