"""The AISG data interface, version 1.0 (namespace ``http://hazard.mfcr.cz/rovo/v1``), as published by the
Ministry of Finance in its WSDL ``aisg.wsdl`` / ``aisg.xsd`` / ``aisgTypes.xsd`` and its reference clients.

SOAP 1.1 document/literal over HTTPS, ``SOAPAction`` = the operation's name, UTF-8. Every request's Body is signed
(WS-Security, RSA-SHA256, the operator's certificate as a BinarySecurityToken: ``accounts.aisg.wsse``); every answer
must be signed by the Ministry's certificate and is refused otherwise. Operations: ``OveritOsobu`` (one person, by
personal data or by the person id HID), ``OveritOsobyHromadne`` (1-1,000 persons, answered with a batch number),
``ZiskatVysledkyOveritOsobyHromadne`` (the batch's results), ``ZmenitUdajeOsoby`` (a person's changed data, by HID)
and ``Test``.

Element order follows the schema (the sequences are ordered). Another version of the interface is another module
beside this one with the same public functions (``accounts.aisg.client`` picks one by ``ACCOUNTS_AISG_VERSION``)."""

from __future__ import annotations

import socket
import ssl
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date

from lxml import etree

from accounts.aisg import wsse
from accounts.aisg.types import (
    BATCH_ACCEPTED,
    BATCH_DONE,
    BATCH_EXPIRED,
    REASONS,
    ROB_VALUES,
    RVO_VALUES,
    Address,
    AisgBadSignature,
    AisgError,
    AisgFault,
    AisgMalformed,
    AisgTimeout,
    BatchResult,
    BirthPlaceAbroad,
    BirthPlaceCZ,
    Person,
    PlaceCode,
    Verification,
)

VERSION = "1.0"
NS = "http://hazard.mfcr.cz/rovo/v1"
SOAP = wsse.SOAP_NS
BATCH_MAX = 1000
MAX_ANSWER_BYTES = 16 * 1024 * 1024  # a batch of 1,000 results is about 400 kB


def q(name: str) -> str:
    return f"{{{NS}}}{name}"


@dataclass(frozen=True)
class Config:
    url: str
    key_pem: bytes  # the operator's private key (PEM)
    cert_pem: bytes  # the operator's certificate (PEM), sent as the BinarySecurityToken
    ministry_cert_pem: bytes  # the certificate the Ministry signs its answers with
    ico_vcp: str = ""  # ICO_VCP: the operator's IČO (a string: leading zeros matter)
    timeout: float = 10.0
    ca_file: str = ""  # trust for the HTTPS connection (empty: the system's)
    require_echo: bool = True  # the answer's CisloPozadavku must be the request's
    # instead of HTTP: (operation, signed request) -> (status, answer); the development sandbox's
    # (``accounts.aisg.sandbox.transport``, ``ACCOUNTS_AISG_URL=sandbox:<folder>``), never production's
    transport: Callable[[str, bytes], tuple[int, bytes]] | None = None


# Requests ----------------------------------------------------------------------------------------------
def _text(parent: etree._Element, name: str, value: object) -> etree._Element:
    el = etree.SubElement(parent, q(name))
    el.text = value.isoformat() if isinstance(value, date) else str(value)
    return el


def _clean(value: str, limit: int) -> str:
    """The schema's names: no leading / trailing white space, inner runs of white space single, at most ``limit``."""
    return " ".join((value or "").split())[:limit]


def _address(parent: etree._Element, address: Address) -> None:
    cz = address.country.upper() == "CZ"
    el = etree.SubElement(parent, q("TrvalyPobytCR" if cz else "TrvalyPobytSvet"))
    if address.street:
        _text(el, "Ulice", _clean(address.street, 48))
    if address.house_number:
        _text(el, "CisloPopisneEvidencni", address.house_number)
    if address.orientation_number:
        _text(el, "CisloOrientacni", address.orientation_number)
    if address.orientation_suffix:
        _text(el, "CisloOrientacniDodatek", address.orientation_suffix[:1])
    if cz and address.prague_district:
        _text(el, "CisloObvodMestaPrahy", address.prague_district)
    if address.municipality_part:
        _text(el, "ObecCast", _clean(address.municipality_part, 48))
    _text(el, "Obec", _clean(address.municipality, 48))
    postal = "".join(address.postal_code.split())
    if cz:
        if not postal.isdigit():
            raise ValueError("a Czech permanent residence needs a numeric PSČ")
        _text(el, "PSC", int(postal))
    else:
        if postal:
            _text(el, "PSC", postal[:50])
        _text(el, "Stat", address.country.upper())


def _person(parent: etree._Element, person: Person, tag: str = "Osoba") -> etree._Element:
    el = etree.SubElement(parent, q(tag))
    _text(el, "Jmeno", _clean(person.given_names, 100))
    _text(el, "Prijmeni", _clean(person.surname, 100))
    if person.birth_surname.strip():
        _text(el, "RodnePrijmeni", _clean(person.birth_surname, 100))
    _text(el, "DatumNarozeni", person.date_of_birth)
    _text(el, "StatniObcanstvi", person.citizenship.upper())
    place = person.birth_place
    if place is not None:
        mn = etree.SubElement(el, q("MistoNarozeni"))
        if isinstance(place, PlaceCode):
            _text(mn, "MistoNarozeniKod", place.code)
        elif isinstance(place, BirthPlaceCZ):
            cr = etree.SubElement(mn, q("MistoNarozeniCR"))
            _text(cr, "Obec", _clean(place.municipality, 48))
            _text(cr, "Okres", _clean(place.district, 32))
        elif isinstance(place, BirthPlaceAbroad):
            sv = etree.SubElement(mn, q("MistoNarozeniSvet"))
            _text(sv, "Misto", _clean(place.place, 100))
            _text(sv, "Stat", place.country.upper())
    if person.residence is not None:
        tp = etree.SubElement(el, q("TrvalyPobyt"))
        if isinstance(person.residence, PlaceCode):
            _text(tp, "TrvalyPobytKod", person.residence.code)
        else:
            _address(tp, person.residence)
    return el


def _request(operation: str, config: Config) -> tuple[etree._Element, etree._Element, str]:
    """(the envelope, the request element, its CisloPozadavku)."""
    env = etree.Element(f"{{{SOAP}}}Envelope", nsmap={"soapenv": SOAP, "r": NS, "wsu": wsse.WSU_NS})
    body = etree.SubElement(env, f"{{{SOAP}}}Body")
    req = etree.SubElement(body, q(f"{operation}Request"))
    request_id = str(uuid.uuid4())
    _text(req, "CisloPozadavku", request_id)
    if config.ico_vcp:
        _text(req, "ICO_VCP", config.ico_vcp[:50])
    return env, req, request_id


def build_verify(
    config: Config, *, reason: str, person: Person | None = None, hid: str | None = None
) -> tuple[etree._Element, str]:
    if reason not in REASONS:
        raise ValueError(f"unknown reason {reason!r}")
    if (person is None) == (hid is None):
        raise ValueError("OveritOsobu asks about a person either by HID or by personal data")
    env, req, request_id = _request("OveritOsobu", config)
    _text(req, "Duvod", reason)
    if hid is not None:
        _text(req, "HID", str(uuid.UUID(hid)))
    else:
        assert person is not None
        _person(req, person)
    return env, request_id


def build_batch(config: Config, persons: Sequence[tuple[str, Person]]) -> tuple[etree._Element, str]:
    if not 1 <= len(persons) <= BATCH_MAX:
        raise ValueError(f"a batch holds 1 to {BATCH_MAX} persons, not {len(persons)}")
    env, req, request_id = _request("OveritOsobyHromadne", config)
    osoby = etree.SubElement(req, q("Osoby"))
    for key, person in persons:
        row = etree.SubElement(osoby, q("OsobaKOvereni"))
        _text(row, "IdentifikaceZaznamu", key[:50])
        _person(row, person)
    return env, request_id


def build_batch_results(config: Config, batch_id: str) -> tuple[etree._Element, str]:
    env, req, request_id = _request("ZiskatVysledkyOveritOsobyHromadne", config)
    _text(req, "CisloDavky", str(uuid.UUID(batch_id)))
    return env, request_id


def build_change(config: Config, *, hid: str, person: Person) -> tuple[etree._Element, str]:
    env, req, request_id = _request("ZmenitUdajeOsoby", config)
    _text(req, "HID", str(uuid.UUID(hid)))
    _person(req, person)
    return env, request_id


def build_test(config: Config) -> tuple[etree._Element, str]:
    env, _req, request_id = _request("Test", config)
    return env, request_id


# Transport and answers ------------------------------------------------------------------------------------
def _post(config: Config, operation: str, envelope: etree._Element) -> tuple[int, bytes]:
    data = wsse.sign_envelope(envelope, key_pem=config.key_pem, cert_pem=config.cert_pem)
    if config.transport is not None:
        return config.transport(operation, data)
    req = urllib.request.Request(
        config.url,
        data=data,
        method="POST",
        headers={"Content-Type": "text/xml;charset=UTF-8", "SOAPAction": f'"{operation}"', "Accept": "text/xml"},
    )
    context = None
    if config.url.startswith("https:"):
        context = ssl.create_default_context(cafile=config.ca_file or None)
    try:
        with urllib.request.urlopen(req, timeout=config.timeout, context=context) as resp:
            return resp.status, resp.read(MAX_ANSWER_BYTES + 1)
    except urllib.error.HTTPError as exc:  # a SOAP fault comes with HTTP 500
        return exc.code, exc.read(MAX_ANSWER_BYTES + 1)
    except TimeoutError as exc:
        raise AisgTimeout(f"{operation}: no answer within {config.timeout} s") from exc
    except urllib.error.URLError as exc:
        if isinstance(exc.reason, (TimeoutError, socket.timeout)):
            raise AisgTimeout(f"{operation}: no answer within {config.timeout} s") from exc
        raise AisgError(f"{operation}: {exc.reason}") from exc
    except OSError as exc:
        raise AisgError(f"{operation}: {exc.__class__.__name__}") from exc


def _fault(operation: str, data: bytes) -> AisgError:
    """A SOAP fault (signed or not: a fault only ever closes the door) with its ErrorMessage detail."""
    try:
        root = etree.fromstring(data, parser=wsse.PARSER)
    except etree.XMLSyntaxError:
        return AisgMalformed(f"{operation}: an error answer that is not XML")
    fault = root.find(f"{{{SOAP}}}Body/{{{SOAP}}}Fault")
    if fault is None:
        return AisgMalformed(f"{operation}: an error answer without a SOAP fault")
    kod = fault.findtext(f"detail/{q('ErrorMessage')}/{q('Kod')}")
    popis = fault.findtext(f"detail/{q('ErrorMessage')}/{q('Popis')}") or fault.findtext("faultstring") or ""
    try:
        code = int(kod) if kod is not None else None
    except ValueError:
        code = None
    return AisgFault(
        f"{operation}: fault {code if code is not None else '-'} {popis[:200]}", code=code, description=popis[:255]
    )


def _call(config: Config, operation: str, envelope: etree._Element, request_id: str) -> etree._Element:
    """Send, check the Ministry's signature, return the answer's element (``{operation}Response``)."""
    status, data = _post(config, operation, envelope)
    if len(data) > MAX_ANSWER_BYTES:
        raise AisgMalformed(f"{operation}: the answer exceeds {MAX_ANSWER_BYTES} bytes")
    if status != 200:
        raise _fault(operation, data) if status == 500 else AisgError(f"{operation}: HTTP {status}")
    try:
        parsed = etree.fromstring(data, parser=wsse.PARSER)
    except etree.XMLSyntaxError as exc:
        raise AisgMalformed(f"{operation}: the answer is not XML") from exc
    if parsed.find(f"{{{SOAP}}}Body/{{{SOAP}}}Fault") is not None:
        raise _fault(operation, data)
    try:
        body = wsse.verify_envelope(data, cert_pem=config.ministry_cert_pem)
    except wsse.SignatureError as exc:
        raise AisgBadSignature(f"{operation}: {exc}") from exc
    if len(body) != 1 or body[0].tag != q(f"{operation}Response"):
        raise AisgMalformed(f"{operation}: the answer is not {operation}Response")
    answer = body[0]
    echoed = answer.findtext(q("CisloPozadavku"))
    if config.require_echo and echoed != request_id:
        raise AisgMalformed(f"{operation}: the answer is for another request ({echoed!r})")
    return answer


def _verification(el: etree._Element, answer: etree._Element) -> Verification:
    adult, rob, rvo = el.findtext(q("Plnoleta")), el.findtext(q("NalezenaROB")), el.findtext(q("NalezenaRVO"))
    if adult not in ("ANO", "NE") or rob not in ROB_VALUES or rvo not in RVO_VALUES:
        raise AisgMalformed(f"an answer outside the schema: Plnoleta={adult!r} NalezenaROB={rob!r} NalezenaRVO={rvo!r}")
    hid = el.findtext(q("HID"))
    if hid is not None:
        try:
            hid = str(uuid.UUID(hid))
        except ValueError as exc:
            raise AisgMalformed("an answer with a HID that is not a UUID") from exc
    return Verification(
        hid=hid,
        adult=adult,
        rob=rob,
        rvo=rvo,
        request_id=answer.findtext(q("CisloPozadavku")) or "",
        identification=(answer.findtext(q("IdentifikacePozadavku")) or "")[:1000],
    )


# Operations --------------------------------------------------------------------------------------------------
def verify_person(config: Config, *, reason: str, person: Person | None = None, hid: str | None = None) -> Verification:
    """OveritOsobu: identity, age and the register of excluded persons for one person."""
    env, request_id = build_verify(config, reason=reason, person=person, hid=hid)
    answer = _call(config, "OveritOsobu", env, request_id)
    result = _verification(answer, answer)
    if hid is not None and result.hid is not None and result.hid != str(uuid.UUID(hid)):
        raise AisgMalformed("OveritOsobu: the answer is about another person id")
    return result


def submit_batch(config: Config, persons: Sequence[tuple[str, Person]]) -> str:
    """OveritOsobyHromadne: 1-1,000 persons, each with the operator's row key; returns the batch number."""
    env, request_id = build_batch(config, persons)
    answer = _call(config, "OveritOsobyHromadne", env, request_id)
    batch = answer.findtext(q("CisloDavky"))
    try:
        return str(uuid.UUID(batch or ""))
    except ValueError as exc:
        raise AisgMalformed("OveritOsobyHromadne: no batch number in the answer") from exc


def batch_results(config: Config, batch_id: str) -> BatchResult:
    """ZiskatVysledkyOveritOsobyHromadne: the batch's state and, once processed, every person's answer."""
    env, request_id = build_batch_results(config, batch_id)
    answer = _call(config, "ZiskatVysledkyOveritOsobyHromadne", env, request_id)
    state = answer.findtext(q("Stav"))
    if state not in (BATCH_ACCEPTED, BATCH_DONE, BATCH_EXPIRED):
        raise AisgMalformed(f"ZiskatVysledkyOveritOsobyHromadne: unknown state {state!r}")
    results: dict[str, Verification] = {}
    for row in answer.iterfind(f"{q('Osoby')}/{q('OsobaKOvereniVysledek')}"):
        key = row.findtext(q("IdentifikaceZaznamu")) or ""
        results[key] = _verification(row, answer)
    return BatchResult(state=state, results=results)


def change_person(config: Config, *, hid: str, person: Person) -> str:
    """ZmenitUdajeOsoby: the person's changed data; returns the Ministry's IdentifikacePozadavku."""
    env, request_id = build_change(config, hid=hid, person=person)
    answer = _call(config, "ZmenitUdajeOsoby", env, request_id)
    return (answer.findtext(q("IdentifikacePozadavku")) or "")[:1000]


def test(config: Config) -> str:
    """Test: connectivity and the security settings; returns the Ministry's IdentifikacePozadavku."""
    env, request_id = build_test(config)
    answer = _call(config, "Test", env, request_id)
    return (answer.findtext(q("IdentifikacePozadavku")) or "")[:1000]


def chunks(items: Iterable[tuple[str, Person]], size: int = BATCH_MAX) -> Iterable[list[tuple[str, Person]]]:
    chunk: list[tuple[str, Person]] = []
    for item in items:
        chunk.append(item)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
