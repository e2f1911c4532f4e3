"""ISO 20022 bank files of the operator's account: statements in (camt.053, camt.054), payment orders out (pain.001).

Pure functions on bytes and plain data; no database. ``services.bank`` imports, matches and posts; this module only
reads and writes the files.

* :func:`statement_parse` reads a camt.053 (end-of-day statement) or camt.054 (intraday notification), versions
  ``001.02`` and ``001.08``, with lxml's parser set up so that a file cannot reach the network or expand entities
  (a file with a DOCTYPE is refused outright). Only booked entries (``Sts`` ``BOOK``) are returned.
* :func:`variable_symbols` reads the reference the player was told (the variable symbol, our
  ``Deposit.payment_reference``) from where Czech banks put it: ``RmtInf/Strd/CdtrRefInf/Ref`` ("1234567890" or
  "VS:1234567890"), ``RmtInf/Ustrd`` ("VS:1234567890", "VS 1234567890", "/VS/1234567890", or the whole text being
  the number) and ``Refs/EndToEndId`` (the number alone, or "VS1234567890/SS.../KS...").
* :func:`payment_order_xml` writes a pain.001.001.03 credit-transfer initiation (what Czech banks take) and
  :func:`payment_order_validate` checks it against ``wallet/data/iso20022/pain.001.001.03-subset.xsd``: a schema
  written for this project that declares, with the official names, order and types, only the elements these files
  use (the official ISO 20022 XSD carries no licence that allows shipping it here).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from lxml import etree
from unidecode import unidecode

from wallet import errors

ISO = "urn:iso:std:iso:20022:tech:xsd:"
# namespace -> (kind, the message's element, the statement's element)
STATEMENT_SCHEMAS: dict[str, tuple[str, str, str]] = {
    ISO + "camt.053.001.02": ("camt.053", "BkToCstmrStmt", "Stmt"),
    ISO + "camt.053.001.08": ("camt.053", "BkToCstmrStmt", "Stmt"),
    ISO + "camt.054.001.02": ("camt.054", "BkToCstmrDbtCdtNtfctn", "Ntfctn"),
    ISO + "camt.054.001.08": ("camt.054", "BkToCstmrDbtCdtNtfctn", "Ntfctn"),
}
PAIN001 = ISO + "pain.001.001.03"
PAIN001_XSD = Path(__file__).with_name("data") / "iso20022" / "pain.001.001.03-subset.xsd"


def safe_parser() -> etree.XMLParser:
    """lxml without network access, DTD loading or entity expansion."""
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        remove_blank_text=True,
    )


def _invalid(reason: str, **details: Any) -> Exception:
    return errors.BANK_FILE_INVALID(reason=reason, **details)


def _parse_xml(raw: bytes) -> etree._Element:
    try:
        tree = etree.fromstring(raw, parser=safe_parser()).getroottree()
    except etree.XMLSyntaxError as exc:
        raise _invalid(f"not well-formed XML: {exc}")
    if tree.docinfo.doctype:
        raise _invalid("a DOCTYPE is not accepted in a bank file")
    return tree.getroot()


# Reading --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatementEntry:
    """One booked movement (one transaction of a ``Ntry``), amounts in minor units."""

    bank_reference: str
    direction: str  # "credit" | "debit"
    reversal: bool
    amount: int
    currency: str
    booked_on: date | None
    value_on: date | None
    end_to_end_id: str
    references: tuple[str, ...]
    remittance: str
    counterparty_name: str
    counterparty_account: str  # as given: an IBAN or another id
    counterparty_iban: str  # the IBAN when given (upper case, no spaces); a Czech account is converted by the caller
    counterparty_bank_code: str  # a Czech bank code when given (ClrSysMmbId / Othr), for a domestic account number
    counterparty_bic: str
    return_reason: str
    is_return: bool  # RtrInf present, or a reversal: the entry returns one of our payments


@dataclass(frozen=True)
class AccountStatement:
    statement_id: str
    account_iban: str  # the account's IBAN, or its other id when the bank gives no IBAN
    currency: str


@dataclass(frozen=True)
class Statement:
    kind: str  # "camt.053" | "camt.054"
    schema: str
    message_id: str
    created_at: datetime | None
    statements: tuple[AccountStatement, ...]
    entries: tuple[StatementEntry, ...]
    not_booked: int  # pending / information-only entries, skipped


class _Reader:
    """Namespace-qualified paths ("NtryDtls/TxDtls") for one message version."""

    def __init__(self, ns: str) -> None:
        self.ns = ns
        self._paths: dict[str, str] = {}

    def _path(self, path: str) -> str:
        found = self._paths.get(path)
        if found is None:
            found = self._paths[path] = "/".join(f"{{{self.ns}}}{step}" for step in path.split("/"))
        return found

    def find(self, el: etree._Element, path: str) -> etree._Element | None:
        return el.find(self._path(path))

    def all(self, el: etree._Element, path: str) -> list[etree._Element]:
        return list(el.findall(self._path(path)))

    def text(self, el: etree._Element | None, path: str) -> str:
        if el is None:
            return ""
        found = el.find(self._path(path))
        return (found.text or "").strip() if found is not None else ""

    def first(self, el: etree._Element | None, *paths: str) -> str:
        for path in paths:
            value = self.text(el, path)
            if value:
                return value
        return ""


_DECIMAL = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def _amount(text: str, where: str) -> int:
    """An ISO 20022 amount: xs:decimal's digits and point only (no exponent, sign, underscores or other scripts'
    digits, which Python's Decimal would take), positive, at most two decimals."""
    if not _DECIMAL.fullmatch((text or "").strip()):
        raise _invalid(f"amount {text[:40]!r} is not a decimal number", where=where)
    try:
        value = Decimal(text.strip())
    except (InvalidOperation, AttributeError):
        raise _invalid(f"amount {text!r} is not a number", where=where)
    if not value.is_finite() or value <= 0:
        raise _invalid(f"amount {text!r} must be positive", where=where)
    minor = value * 100
    if minor != minor.to_integral_value():
        raise _invalid(f"amount {text!r} has more than two decimals", where=where)
    return int(minor)


def _date(x: _Reader, el: etree._Element, path: str) -> date | None:
    text = x.first(el, f"{path}/Dt", f"{path}/DtTm")
    if not text:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        raise _invalid(f"{path} {text!r} is not a date")


def _datetime(text: str) -> datetime | None:
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise _invalid(f"GrpHdr/CreDtTm {text!r} is not a date and time")


def compact_iban(text: str) -> str:
    return re.sub(r"\s+", "", text).upper()


_VS_PREFIXED = re.compile(r"(?:^|[^A-Z0-9])VS[\s:/.\-]*0*(\d{1,10})(?!\d)", re.IGNORECASE)
_DIGITS = re.compile(r"^\s*(?:VS)?[\s:/]*0*(\d{1,10})\s*$", re.IGNORECASE)


def variable_symbols(*, structured: Iterable[str], unstructured: Iterable[str], end_to_end_id: str) -> tuple[str, ...]:
    """The variable symbols an entry carries, in this order: the structured creditor reference, the end-to-end id,
    the unstructured remittance text ("VS:..." anywhere, or the text being the number). Leading zeros are dropped
    (banks pad the symbol to 10 digits)."""
    found: list[str] = []

    def add(value: str | None) -> None:
        if value and value not in found:
            found.append(value)

    for ref in structured:
        m = _DIGITS.match(ref) or _VS_PREFIXED.search(ref)
        add(m.group(1) if m else None)
    if end_to_end_id:
        m = _DIGITS.match(end_to_end_id) or _VS_PREFIXED.search(end_to_end_id)
        add(m.group(1) if m else None)
    for text in unstructured:
        m = _DIGITS.match(text)
        add(m.group(1) if m else None)
        for m2 in _VS_PREFIXED.finditer(text):
            add(m2.group(1))
    return tuple(found)


def _party(x: _Reader, tx: etree._Element | None, role: str) -> tuple[str, str, str, str, str]:
    """(name, account as given, IBAN, Czech bank code, BIC) of ``role`` ("Dbtr" or "Cdtr") of a transaction."""
    if tx is None:
        return "", "", "", "", ""
    name = x.first(tx, f"RltdPties/{role}/Nm", f"RltdPties/{role}/Pty/Nm")
    iban = compact_iban(x.text(tx, f"RltdPties/{role}Acct/Id/IBAN"))
    other = x.text(tx, f"RltdPties/{role}Acct/Id/Othr/Id")
    agent = f"RltdAgts/{role}Agt/FinInstnId"
    bic = x.first(tx, f"{agent}/BIC", f"{agent}/BICFI").upper()
    code = x.first(tx, f"{agent}/ClrSysMmbId/MmbId", f"{agent}/Othr/Id")
    if not re.fullmatch(r"\d{4}", code):
        code = ""
    return name[:140], (iban or other)[:60], iban, code, bic[:11]


def _entries(x: _Reader, ntry: etree._Element, index: str) -> list[StatementEntry]:
    cdi = x.text(ntry, "CdtDbtInd")
    if cdi not in ("CRDT", "DBIT"):
        raise _invalid(f"entry {index}: CdtDbtInd {cdi!r}")
    amt_el = x.find(ntry, "Amt")
    if amt_el is None:
        raise _invalid(f"entry {index}: no Amt")
    currency = (amt_el.get("Ccy") or "").upper()
    total = _amount(amt_el.text or "", f"entry {index}")
    reversal = x.text(ntry, "RvslInd").lower() in ("true", "1")
    ntry_ref = x.first(ntry, "AcctSvcrRef", "NtryRef")
    booked_on, value_on = _date(x, ntry, "BookgDt"), _date(x, ntry, "ValDt")
    txs: list[etree._Element | None] = list(x.all(ntry, "NtryDtls/TxDtls")) or [None]
    out: list[StatementEntry] = []
    for n, tx in enumerate(txs, start=1):
        tx_ref = x.text(tx, "Refs/AcctSvcrRef")
        if len(txs) == 1:
            key = ntry_ref or tx_ref
            amount = total
        else:
            key = f"{ntry_ref or tx_ref}/{tx_ref or n}" if (ntry_ref or tx_ref) else ""
            tx_amount = x.first(tx, "Amt", "AmtDtls/TxAmt/Amt", "AmtDtls/InstdAmt/Amt")
            if not tx_amount:
                raise _invalid(f"entry {index}: a batch entry's transaction {n} has no amount")
            amount = _amount(tx_amount, f"entry {index}.{n}")
        if not key:
            raise _invalid(f"entry {index}: no bank reference (AcctSvcrRef / NtryRef): it could not be imported once")
        e2e = x.text(tx, "Refs/EndToEndId")
        if e2e.upper() == "NOTPROVIDED":
            e2e = ""
        structured = [x.text(s, "CdtrRefInf/Ref") for s in (x.all(tx, "RmtInf/Strd") if tx is not None else [])]
        structured = [s for s in structured if s]
        unstructured = [(u.text or "").strip() for u in (x.all(tx, "RmtInf/Ustrd") if tx is not None else [])]
        unstructured = [u for u in unstructured if u]
        rtr = x.find(tx, "RtrInf") if tx is not None else None
        return_reason = " ".join(v for v in (x.first(rtr, "Rsn/Cd", "Rsn/Prtry"), x.text(rtr, "AddtlInf")) if v)
        name, account, iban, code, bic = _party(x, tx, "Dbtr" if cdi == "CRDT" else "Cdtr")
        out.append(
            StatementEntry(
                bank_reference=key[:120],
                direction="credit" if cdi == "CRDT" else "debit",
                reversal=reversal,
                amount=amount,
                currency=currency,
                booked_on=booked_on,
                value_on=value_on,
                end_to_end_id=e2e[:35],
                references=variable_symbols(structured=structured, unstructured=unstructured, end_to_end_id=e2e),
                remittance=" | ".join([*structured, *unstructured])[:500],
                counterparty_name=name,
                counterparty_account=account,
                counterparty_iban=iban,
                counterparty_bank_code=code,
                counterparty_bic=bic,
                return_reason=(return_reason or ("reversal" if reversal else ""))[:140],
                is_return=reversal or rtr is not None,
            )
        )
    if len(txs) > 1 and sum(e.amount for e in out) != total:
        raise _invalid(f"entry {index}: its transactions do not add up to the entry's amount")
    return out


def statement_parse(raw: bytes) -> Statement:
    """A camt.053 or camt.054 file (versions 001.02, 001.08) as plain data; ``wallet.bank_file_invalid`` when it is
    not one, or names an entry without the bank's reference, an amount that is not positive or has more than two
    decimals."""
    root = _parse_xml(raw)
    ns = etree.QName(root).namespace or ""
    if etree.QName(root).localname != "Document" or ns not in STATEMENT_SCHEMAS:
        raise errors.BANK_FILE_UNSUPPORTED(namespace=ns, supported=sorted(STATEMENT_SCHEMAS))
    kind, message, stmt_tag = STATEMENT_SCHEMAS[ns]
    x = _Reader(ns)
    msg = x.find(root, message)
    if msg is None:
        raise _invalid(f"no {message} in a {kind} file")
    message_id = x.text(msg, "GrpHdr/MsgId")
    if not message_id:
        raise _invalid("no GrpHdr/MsgId")
    statements: list[AccountStatement] = []
    entries: list[StatementEntry] = []
    not_booked = 0
    for s_index, stmt in enumerate(x.all(msg, stmt_tag), start=1):
        account = compact_iban(x.first(stmt, "Acct/Id/IBAN", "Acct/Id/Othr/Id"))
        if not account:
            raise _invalid(f"{stmt_tag} {s_index}: no account")
        statements.append(AccountStatement(x.text(stmt, "Id"), account, x.text(stmt, "Acct/Ccy").upper()))
        for e_index, ntry in enumerate(x.all(stmt, "Ntry"), start=1):
            sts_el = x.find(ntry, "Sts")
            status = x.text(ntry, "Sts/Cd") or ((sts_el.text or "").strip() if sts_el is not None else "")
            if status != "BOOK":
                not_booked += 1
                continue
            entries.extend(_entries(x, ntry, f"{s_index}.{e_index}"))
    if not statements:
        raise _invalid(f"no {stmt_tag} in the file")
    keys = [e.bank_reference for e in entries]
    if len(set(keys)) != len(keys):
        raise _invalid("two entries of the file carry the same bank reference")
    return Statement(
        kind=kind,
        schema=ns,
        message_id=message_id[:35],
        created_at=_datetime(x.text(msg, "GrpHdr/CreDtTm")),
        statements=tuple(statements),
        entries=tuple(entries),
        not_booked=not_booked,
    )


# The bank's status report on our payment orders (pain.002) -----------------------------------------------------

PAYMENT_STATUS_SCHEMAS = (
    "urn:iso:std:iso:20022:tech:xsd:pain.002.001.03",
    "urn:iso:std:iso:20022:tech:xsd:pain.002.001.10",
)
REJECTED = "RJCT"


@dataclass(frozen=True)
class PaymentStatus:
    """One transaction's status in a pain.002: its EndToEndId, ``RJCT`` (rejected) or another code, the reason."""

    end_to_end_id: str
    status: str
    reason: str


@dataclass(frozen=True)
class PaymentStatusReport:
    message_id: str
    original_message_id: str
    group_status: str  # RJCT: the whole original file was rejected
    group_reason: str
    transactions: tuple[PaymentStatus, ...]


def _reason(x: _Reader, el: etree._Element | None) -> str:
    if el is None:
        return ""
    parts = [
        x.first(el, "StsRsnInf/Rsn/Cd", "StsRsnInf/Rsn/Prtry"),
        " ".join((a.text or "").strip() for a in x.all(el, "StsRsnInf/AddtlInf")),
    ]
    return " ".join(p for p in parts if p)[:140]


def payment_status_parse(raw: bytes) -> PaymentStatusReport:
    """A pain.002 (Customer Payment Status Report, versions 001.03 and 001.10) answering one of our pain.001 files:
    the original message id, the group status and each transaction's status by EndToEndId; ``wallet.bank_file_invalid``
    when it is not one."""
    root = _parse_xml(raw)
    ns = etree.QName(root).namespace or ""
    if etree.QName(root).localname != "Document" or ns not in PAYMENT_STATUS_SCHEMAS:
        raise errors.BANK_FILE_UNSUPPORTED(namespace=ns, supported=list(PAYMENT_STATUS_SCHEMAS))
    x = _Reader(ns)
    msg = x.find(root, "CstmrPmtStsRpt")
    if msg is None:
        raise _invalid("no CstmrPmtStsRpt in a pain.002 file")
    group = x.find(msg, "OrgnlGrpInfAndSts")
    original = x.text(group, "OrgnlMsgId") if group is not None else ""
    if not original:
        raise _invalid("no OrgnlGrpInfAndSts/OrgnlMsgId: the report names no payment order file")
    txs: list[PaymentStatus] = []
    for info in x.all(msg, "OrgnlPmtInfAndSts"):
        for tx in x.all(info, "TxInfAndSts"):
            e2e = x.text(tx, "OrgnlEndToEndId")
            status = x.text(tx, "TxSts") or x.text(info, "PmtInfSts")
            if not e2e or not status:
                raise _invalid("a TxInfAndSts without OrgnlEndToEndId or status")
            txs.append(PaymentStatus(e2e[:35], status.upper(), _reason(x, tx) or _reason(x, info)))
    return PaymentStatusReport(
        message_id=x.text(msg, "GrpHdr/MsgId")[:35],
        original_message_id=original[:35],
        group_status=x.text(group, "GrpSts").upper(),
        group_reason=_reason(x, group),
        transactions=tuple(txs),
    )


# Writing ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CreditTransfer:
    """One credit transfer of a payment order, amounts in minor units (CZK)."""

    end_to_end_id: str
    amount: int
    creditor_name: str
    creditor_iban: str
    creditor_account: str  # when there is no IBAN
    creditor_bic: str
    remittance: str


_SEPA_TEXT = re.compile(r"[^A-Za-z0-9/\-?:().,'+ ]")


def bank_text(text: str, max_length: int) -> str:
    """Text as every bank takes it: transliterated to ASCII (``unidecode``), only the SEPA Latin characters,
    at most ``max_length`` characters ("N/A" when nothing is left)."""
    cleaned = re.sub(r"\s+", " ", _SEPA_TEXT.sub(" ", unidecode(text or ""))).strip()
    return cleaned[:max_length].strip() or "N/A"


def minor_text(amount: int) -> str:
    return f"{amount // 100}.{amount % 100:02d}"


def payment_order_xml(
    *,
    message_id: str,
    created_at: datetime,
    execution_date: date,
    debtor_name: str,
    debtor_iban: str,
    debtor_bic: str,
    transfers: Sequence[CreditTransfer],
) -> bytes:
    """A pain.001.001.03 customer credit-transfer initiation: one payment information block (the operator's account),
    individual booking (``BtchBookg`` false, so the statement shows each transfer with its EndToEndId)."""
    if not transfers:
        raise ValueError("a payment order file needs at least one transfer")
    total = sum(t.amount for t in transfers)

    def sub(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
        el = etree.SubElement(parent, f"{{{PAIN001}}}{tag}", **attrs)
        if text is not None:
            el.text = text
        return el

    doc = etree.Element(f"{{{PAIN001}}}Document", nsmap={None: PAIN001})
    init = sub(doc, "CstmrCdtTrfInitn")
    hdr = sub(init, "GrpHdr")
    sub(hdr, "MsgId", message_id)
    sub(hdr, "CreDtTm", created_at.replace(microsecond=0, tzinfo=None).isoformat())
    sub(hdr, "NbOfTxs", str(len(transfers)))
    sub(hdr, "CtrlSum", minor_text(total))
    sub(sub(hdr, "InitgPty"), "Nm", bank_text(debtor_name, 70))
    pmt = sub(init, "PmtInf")
    sub(pmt, "PmtInfId", message_id)
    sub(pmt, "PmtMtd", "TRF")
    sub(pmt, "BtchBookg", "false")
    sub(pmt, "NbOfTxs", str(len(transfers)))
    sub(pmt, "CtrlSum", minor_text(total))
    sub(sub(pmt, "PmtTpInf"), "InstrPrty", "NORM")
    sub(pmt, "ReqdExctnDt", execution_date.isoformat())
    sub(sub(pmt, "Dbtr"), "Nm", bank_text(debtor_name, 70))
    dbtr_acct = sub(pmt, "DbtrAcct")
    sub(sub(dbtr_acct, "Id"), "IBAN", compact_iban(debtor_iban))
    sub(dbtr_acct, "Ccy", "CZK")
    sub(sub(sub(pmt, "DbtrAgt"), "FinInstnId"), "BIC", debtor_bic)
    for t in transfers:
        tx = sub(pmt, "CdtTrfTxInf")
        pmt_id = sub(tx, "PmtId")
        sub(pmt_id, "InstrId", t.end_to_end_id)
        sub(pmt_id, "EndToEndId", t.end_to_end_id)
        sub(sub(tx, "Amt"), "InstdAmt", minor_text(t.amount), Ccy="CZK")
        if t.creditor_bic:
            sub(sub(sub(tx, "CdtrAgt"), "FinInstnId"), "BIC", t.creditor_bic)
        sub(sub(tx, "Cdtr"), "Nm", bank_text(t.creditor_name, 70))
        acct_id = sub(sub(tx, "CdtrAcct"), "Id")
        if t.creditor_iban:
            sub(acct_id, "IBAN", compact_iban(t.creditor_iban))
        else:
            sub(sub(acct_id, "Othr"), "Id", t.creditor_account[:34])
        if t.remittance:
            sub(sub(tx, "RmtInf"), "Ustrd", bank_text(t.remittance, 140))
    return bytes(etree.tostring(doc, xml_declaration=True, encoding="UTF-8", pretty_print=True))


@functools.cache
def _pain001_schema() -> etree.XMLSchema:
    return etree.XMLSchema(etree.parse(str(PAIN001_XSD), parser=safe_parser()))


def payment_order_validate(raw: bytes) -> None:
    """Check a payment order file against the pain.001.001.03 subset schema (``ValueError`` naming the first
    problem)."""
    schema = _pain001_schema()
    doc = _parse_xml(raw)
    if not schema.validate(doc):
        raise ValueError(f"pain.001 does not validate: {schema.error_log.last_error}")
