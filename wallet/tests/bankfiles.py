"""Bank files written for the tests in the real ISO 20022 formats: camt.053 (end-of-day statement) and camt.054
(intraday notification) of the operator's account, versions 001.02 and 001.08, as a Czech bank sends them (a CBA
bank transaction code, the variable symbol where the bank puts it), and a reader of the pain.001 the platform writes.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from xml.sax.saxutils import escape

from lxml import etree

from wallet.methods import czech_account_iban

OPERATOR_ACCOUNT = "2900123451/2010"
OPERATOR_IBAN = czech_account_iban(OPERATOR_ACCOUNT)
OPERATOR_NAME = "Herní Provozovatel s.r.o."
_seq = itertools.count(1)


@dataclass
class Tx:
    """One booked movement; ``amount`` as the bank writes it ("1500.50")."""

    amount: str
    direction: str = "CRDT"
    ref: str = field(default_factory=lambda: f"CZ{next(_seq):012d}")  # AcctSvcrRef, the bank's id of the entry
    vs: str = ""
    vs_in: str = "strd"  # strd | ustrd | e2e | ustrd_slash | none
    message: str = ""
    e2e: str = ""
    name: str = ""
    iban: str = ""
    other_id: str = ""  # a domestic account number without the bank code (the code goes to the agent)
    bank_code: str = ""
    bic: str = ""
    status: str = "BOOK"
    reversal: bool = False
    return_code: str = ""  # RtrInf/Rsn/Cd
    booked: str = "2026-12-03"


def _party(tx: Tx, version: str) -> str:
    role = "Dbtr" if tx.direction == "CRDT" else "Cdtr"
    name = f"<Nm>{escape(tx.name)}</Nm>" if tx.name else ""
    party = (f"<{role}><Pty>{name}</Pty></{role}>" if version == "08" else f"<{role}>{name}</{role}>") if name else ""
    acct = ""
    if tx.iban:
        acct = f"<{role}Acct><Id><IBAN>{tx.iban}</IBAN></Id></{role}Acct>"
    elif tx.other_id:
        acct = f"<{role}Acct><Id><Othr><Id>{tx.other_id}</Id></Othr></Id></{role}Acct>"
    agents = ""
    bic_tag = "BICFI" if version == "08" else "BIC"
    if tx.bic or tx.bank_code:
        inner = f"<{bic_tag}>{tx.bic}</{bic_tag}>" if tx.bic else ""
        if tx.bank_code:
            inner += f"<ClrSysMmbId><ClrSysId><Cd>CZCBA</Cd></ClrSysId><MmbId>{tx.bank_code}</MmbId></ClrSysMmbId>"
        agents = f"<RltdAgts><{role}Agt><FinInstnId>{inner}</FinInstnId></{role}Agt></RltdAgts>"
    parties = f"<RltdPties>{party}{acct}</RltdPties>" if party or acct else ""
    return parties + agents


def _remittance(tx: Tx) -> str:
    ustrd = [tx.message] if tx.message else []
    strd = ""
    if tx.vs and tx.vs_in == "strd":
        strd = f"<Strd><CdtrRefInf><Ref>{tx.vs}</Ref></CdtrRefInf></Strd>"
    elif tx.vs and tx.vs_in == "ustrd":
        ustrd.append(f"VS:{tx.vs}")
    elif tx.vs and tx.vs_in == "ustrd_slash":
        ustrd.append(f"/VS/{tx.vs}/SS//KS/0308")
    body = "".join(f"<Ustrd>{escape(u)}</Ustrd>" for u in ustrd) + strd
    return f"<RmtInf>{body}</RmtInf>" if body else ""


def _entry(tx: Tx, version: str, n: int) -> str:
    status = f"<Sts><Cd>{tx.status}</Cd></Sts>" if version == "08" else f"<Sts>{tx.status}</Sts>"
    e2e = tx.e2e or (f"VS{tx.vs}/SS/KS0308" if tx.vs and tx.vs_in == "e2e" else "")
    refs = f"<Refs><AcctSvcrRef>{tx.ref}</AcctSvcrRef>{f'<EndToEndId>{e2e}</EndToEndId>' if e2e else ''}</Refs>"
    amount = (
        f'<Amt Ccy="CZK">{tx.amount}</Amt>'
        if version == "08"
        else f'<AmtDtls><TxAmt><Amt Ccy="CZK">{tx.amount}</Amt></TxAmt></AmtDtls>'
    )
    rtr = (
        f"<RtrInf><Rsn><Cd>{tx.return_code}</Cd></Rsn><AddtlInf>Ucet zrusen</AddtlInf></RtrInf>"
        if tx.return_code
        else ""
    )
    code = "10000405000" if tx.direction == "CRDT" else "10000403000"
    return (
        f'<Ntry><NtryRef>{n}</NtryRef><Amt Ccy="CZK">{tx.amount}</Amt><CdtDbtInd>{tx.direction}</CdtDbtInd>'
        f"{'<RvslInd>true</RvslInd>' if tx.reversal else ''}{status}"
        f"<BookgDt><Dt>{tx.booked}</Dt></BookgDt><ValDt><Dt>{tx.booked}</Dt></ValDt>"
        f"<AcctSvcrRef>{tx.ref}</AcctSvcrRef>"
        f"<BkTxCd><Prtry><Cd>{code}</Cd><Issr>CBA</Issr></Prtry></BkTxCd>"
        f"<NtryDtls><TxDtls>{refs}{amount}{_party(tx, version)}{_remittance(tx)}{rtr}</TxDtls></NtryDtls>"
        f"</Ntry>"
    )


def camt(
    txs: list[Tx], *, kind: str = "053", version: str = "02", iban: str = OPERATOR_IBAN, msg_id: str | None = None
) -> bytes:
    """A camt.053 statement or camt.054 notification of ``iban`` with ``txs``."""
    msg_id = msg_id or f"MSG{next(_seq):08d}"
    ns = f"urn:iso:std:iso:20022:tech:xsd:camt.{kind}.001.{version}"
    entries = "".join(_entry(tx, version, n) for n, tx in enumerate(txs, start=1))
    acct = (
        f"<Acct><Id><IBAN>{iban}</IBAN></Id><Ccy>CZK</Ccy>"
        f"<Svcr><FinInstnId><{'BICFI' if version == '08' else 'BIC'}>FIOBCZPP"
        f"</{'BICFI' if version == '08' else 'BIC'}></FinInstnId></Svcr></Acct>"
    )
    if kind == "053":
        bal = (
            '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="CZK">100000.00</Amt>'
            "<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-12-03</Dt></Dt></Bal>"
        )
        body = (
            f"<BkToCstmrStmt><GrpHdr><MsgId>{msg_id}</MsgId><CreDtTm>2026-12-03T23:10:00+01:00</CreDtTm>"
            f"</GrpHdr><Stmt><Id>{msg_id}-1</Id><ElctrncSeqNb>1</ElctrncSeqNb>"
            f"<CreDtTm>2026-12-03T23:10:00+01:00</CreDtTm>{acct}{bal}{entries}</Stmt></BkToCstmrStmt>"
        )
    else:
        body = (
            f"<BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>{msg_id}</MsgId>"
            f"<CreDtTm>2026-12-03T10:15:00+01:00</CreDtTm></GrpHdr><Ntfctn><Id>{msg_id}-1</Id>"
            f"<CreDtTm>2026-12-03T10:15:00+01:00</CreDtTm>{acct}{entries}</Ntfctn></BkToCstmrDbtCdtNtfctn>"
        )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="{ns}" '
        f'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">{body}</Document>'
    ).encode()


PAIN = {"p": "urn:iso:std:iso:20022:tech:xsd:pain.001.001.03"}


def pain_transfers(xml: str | bytes) -> list[dict[str, str]]:
    """The credit transfers of a pain.001.001.03 file, read back."""
    raw = xml.encode() if isinstance(xml, str) else xml
    doc = etree.fromstring(raw)
    out = []
    for tx in doc.iterfind(".//p:CdtTrfTxInf", PAIN):
        amt = tx.find("p:Amt/p:InstdAmt", PAIN)
        assert amt is not None
        out.append(
            {
                "end_to_end_id": tx.findtext("p:PmtId/p:EndToEndId", namespaces=PAIN) or "",
                "amount": amt.text or "",
                "currency": amt.get("Ccy") or "",
                "name": tx.findtext("p:Cdtr/p:Nm", namespaces=PAIN) or "",
                "iban": tx.findtext("p:CdtrAcct/p:Id/p:IBAN", namespaces=PAIN) or "",
                "other": tx.findtext("p:CdtrAcct/p:Id/p:Othr/p:Id", namespaces=PAIN) or "",
                "bic": tx.findtext("p:CdtrAgt/p:FinInstnId/p:BIC", namespaces=PAIN) or "",
                "remittance": tx.findtext("p:RmtInf/p:Ustrd", namespaces=PAIN) or "",
            }
        )
    return out


def pain_header(xml: str | bytes) -> dict[str, str]:
    raw = xml.encode() if isinstance(xml, str) else xml
    doc = etree.fromstring(raw)
    return {
        k: doc.findtext(path, namespaces=PAIN) or ""
        for k, path in {
            "msg_id": "p:CstmrCdtTrfInitn/p:GrpHdr/p:MsgId",
            "count": "p:CstmrCdtTrfInitn/p:GrpHdr/p:NbOfTxs",
            "sum": "p:CstmrCdtTrfInitn/p:GrpHdr/p:CtrlSum",
            "debtor_iban": "p:CstmrCdtTrfInitn/p:PmtInf/p:DbtrAcct/p:Id/p:IBAN",
            "debtor_bic": "p:CstmrCdtTrfInitn/p:PmtInf/p:DbtrAgt/p:FinInstnId/p:BIC",
            "debtor_name": "p:CstmrCdtTrfInitn/p:PmtInf/p:Dbtr/p:Nm",
            "batch_booking": "p:CstmrCdtTrfInitn/p:PmtInf/p:BtchBookg",
            "execution_date": "p:CstmrCdtTrfInitn/p:PmtInf/p:ReqdExctnDt",
        }.items()
    }


def pain002(
    original_msg_id: str,
    txs: list[tuple[str, str, str]],
    *,
    group_status: str = "PART",
    group_reason: str = "",
    version: str = "03",
) -> bytes:
    """The bank's Customer Payment Status Report (pain.002.001.03 or .10) on our payment-order file
    ``original_msg_id``: ``txs`` = (EndToEndId, status ACSC / ACCP / RJCT, reason code)."""
    ns = f"urn:iso:std:iso:20022:tech:xsd:pain.002.001.{version}"
    group_rsn = f"<StsRsnInf><Rsn><Cd>{group_reason}</Cd></Rsn></StsRsnInf>" if group_reason else ""
    rows = "".join(
        f"<TxInfAndSts><StsId>{n}</StsId><OrgnlEndToEndId>{e2e}</OrgnlEndToEndId><TxSts>{sts}</TxSts>"
        + (f"<StsRsnInf><Rsn><Cd>{rsn}</Cd></Rsn><AddtlInf>Ucet neexistuje</AddtlInf></StsRsnInf>" if rsn else "")
        + "</TxInfAndSts>"
        for n, (e2e, sts, rsn) in enumerate(txs, start=1)
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="{ns}"><CstmrPmtStsRpt>'
        f"<GrpHdr><MsgId>STS{next(_seq):08d}</MsgId><CreDtTm>2026-12-04T08:00:00+01:00</CreDtTm></GrpHdr>"
        f"<OrgnlGrpInfAndSts><OrgnlMsgId>{original_msg_id}</OrgnlMsgId><OrgnlMsgNmId>pain.001.001.03"
        f"</OrgnlMsgNmId><GrpSts>{group_status}</GrpSts>{group_rsn}</OrgnlGrpInfAndSts>"
        f"<OrgnlPmtInfAndSts><OrgnlPmtInfId>P1</OrgnlPmtInfId>{rows}</OrgnlPmtInfAndSts>"
        f"</CstmrPmtStsRpt></Document>"
    ).encode()
