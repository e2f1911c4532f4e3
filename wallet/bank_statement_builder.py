"""A bank statement written in the real format the bank import reads (ISO 20022 camt.053.001.02, the end-of-day
statement of the operator's account, as a Czech bank sends it: a CBA bank transaction code, the variable symbol in
the structured remittance). The development demo builds one and imports it through ``bank_statement_import``, the
service every statement goes through, so that finance has bank lines to practise on; nothing here books anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime

from lxml import etree

from wallet.iso20022 import compact_iban, minor_text

CAMT053 = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"
#: the Czech banks' (CBA) transaction codes of an incoming and an outgoing domestic transfer
CBA_CREDIT, CBA_DEBIT = "10000405000", "10000403000"


@dataclass(frozen=True)
class StatementLine:
    """One booked movement of the operator's account: ``amount`` in haléře (positive), ``bank_reference`` the bank's
    own id of the line (AcctSvcrRef, unique per account); the counterparty as the bank names it; ``reversal``: the
    bank takes back a credit it booked (RvslInd, on a debit)."""

    amount: int
    bank_reference: str
    credit: bool = True
    variable_symbol: str = ""
    message: str = ""
    counterparty_name: str = ""
    counterparty_iban: str = ""
    reversal: bool = False


def camt053(
    *,
    account_iban: str,
    message_id: str,
    created_at: datetime,
    booked: date,
    lines: Sequence[StatementLine],
    opening_balance: int = 0,
) -> bytes:
    """The camt.053.001.02 statement ``message_id`` of ``account_iban`` with ``lines`` booked on ``booked``."""
    if not lines:
        raise ValueError("a statement needs at least one line")
    sub = _sub
    doc = etree.Element(f"{{{CAMT053}}}Document", nsmap={None: CAMT053})
    msg = sub(doc, "BkToCstmrStmt")
    hdr = sub(msg, "GrpHdr")
    sub(hdr, "MsgId", message_id)
    sub(hdr, "CreDtTm", created_at.replace(microsecond=0).isoformat())
    stmt = sub(msg, "Stmt")
    sub(stmt, "Id", f"{message_id}-1")
    sub(stmt, "ElctrncSeqNb", "1")
    sub(stmt, "CreDtTm", created_at.replace(microsecond=0).isoformat())
    acct = sub(stmt, "Acct")
    sub(sub(acct, "Id"), "IBAN", compact_iban(account_iban))
    sub(acct, "Ccy", "CZK")
    bal = sub(stmt, "Bal")
    sub(sub(sub(bal, "Tp"), "CdOrPrtry"), "Cd", "OPBD")
    sub(bal, "Amt", minor_text(abs(opening_balance)), Ccy="CZK")
    sub(bal, "CdtDbtInd", "CRDT" if opening_balance >= 0 else "DBIT")
    sub(sub(bal, "Dt"), "Dt", booked.isoformat())
    for n, line in enumerate(lines, start=1):
        _entry(stmt, line, n, booked)
    return bytes(etree.tostring(doc, xml_declaration=True, encoding="UTF-8", pretty_print=True))


def _sub(parent: etree._Element, tag: str, text: str | None = None, **attrs: str) -> etree._Element:
    el = etree.SubElement(parent, f"{{{CAMT053}}}{tag}", **attrs)
    if text is not None:
        el.text = text
    return el


def _entry(stmt: etree._Element, line: StatementLine, n: int, booked: date) -> None:
    add = _sub
    if line.amount <= 0:
        raise ValueError("a statement line's amount is positive (the direction says which way it went)")
    ntry = add(stmt, "Ntry")
    add(ntry, "NtryRef", str(n))
    add(ntry, "Amt", minor_text(line.amount), Ccy="CZK")
    add(ntry, "CdtDbtInd", "CRDT" if line.credit else "DBIT")
    if line.reversal:
        add(ntry, "RvslInd", "true")
    add(ntry, "Sts", "BOOK")
    add(add(ntry, "BookgDt"), "Dt", booked.isoformat())
    add(add(ntry, "ValDt"), "Dt", booked.isoformat())
    add(ntry, "AcctSvcrRef", line.bank_reference)
    code = add(add(ntry, "BkTxCd"), "Prtry")
    add(code, "Cd", CBA_CREDIT if line.credit else CBA_DEBIT)
    add(code, "Issr", "CBA")
    tx = add(add(ntry, "NtryDtls"), "TxDtls")
    add(add(tx, "Refs"), "AcctSvcrRef", line.bank_reference)
    add(add(add(tx, "AmtDtls"), "TxAmt"), "Amt", minor_text(line.amount), Ccy="CZK")
    role = "Dbtr" if line.credit else "Cdtr"
    if line.counterparty_name or line.counterparty_iban:
        parties = add(tx, "RltdPties")
        if line.counterparty_name:
            add(add(parties, role), "Nm", line.counterparty_name)
        if line.counterparty_iban:
            add(add(add(parties, f"{role}Acct"), "Id"), "IBAN", compact_iban(line.counterparty_iban))
    if line.message or line.variable_symbol:
        rmt = add(tx, "RmtInf")
        if line.message:
            add(rmt, "Ustrd", line.message)
        if line.variable_symbol:
            add(add(add(rmt, "Strd"), "CdtrRefInf"), "Ref", line.variable_symbol)
