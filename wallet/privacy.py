"""The wallet app's privacy contract (``accounts.privacy_contract``; registered by ``WalletConfig.ready``).

Every wallet record is an accounting record (zákon č. 563/1991 Sb. §31(2)b: 5 years from the end of the accounting
period) and a record of the client's transactions under the AML law (zákon č. 253/2008 Sb. §16(1): 10 years from the
end of the relationship), so it is kept until the later of the two.

* ``wallet.payment_methods``: payment methods and their ownership documents. At the end: the account number / IBAN /
  e-wallet id are masked to the last four characters (with the method's id), the holder's name, the card token and
  the names of accepted payers are erased, the reasons blanked; **the document files are deleted from storage** (at
  once, inside the job's transaction, as in aml) and their names erased.
* ``wallet.payments``: deposits (the payer the provider reported), withdrawals, payouts, the providers' raw callback
  bodies, win holds and deductions. At the end the payer data, reasons, notes, the deduction notices' texts and the
  callbacks' raw bodies are erased; amounts, dates, states and references stay (accounting).
* ``wallet.ledger``: the wallet row, ledger accounts, transactions and entries, branch cash, debts. **Nothing is
  changed**: the ledger is append-only (a database trigger) and names the account only by its id; once the account is
  anonymised nothing in it names the person. Memos written since the privacy contract name a method masked
  (``PaymentMethod.masked``); memos written before it may still show a full account number (they cannot be
  rewritten: append-only).

Export: payment methods as the player's API shows them (the card only masked; the provider's card token withheld),
their documents (names, dates, status), deposits, withdrawals, payouts, branch cash, holds (amount and term, never the
reason: the AML law), deductions and debts, the totals of the ledger by category and where the full statement is
(``GET /api/v1/wallet/statement``, ``statement.csv``: every stake and win would make the export unbounded).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.files.storage import default_storage

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from core.audit import Actor
from core.money import Money
from wallet import selectors
from wallet.models import (
    BankEntry,
    BranchCash,
    Debt,
    Deposit,
    MethodDocument,
    PaymentMethod,
    PaymentOrder,
    Payout,
    ProviderEvent,
    WinDeduction,
    WinHold,
    Withdrawal,
    mask_identifier,
)

PLACEHOLDER = "[anonymised]"
PERIODS = ("accounting", "aml")

RECORDS = (
    Record(
        code="wallet.payment_methods",
        models=("wallet.PaymentMethod", "wallet.MethodDocument"),
        periods=PERIODS,
        what_cs="platební prostředky (číslo účtu, IBAN, majitel) a doklady o jejich vlastnictví (HP §5 odst. 6-11)",
        what_en="payment methods (account number, IBAN, holder) and the documents proving their ownership "
                "(GP §5(6)-(11))",
        erased_cs="čísla účtů a IBAN zkráceny na poslední 4 znaky, jméno majitele a token karty vymazány, soubory "
                  "dokladů smazány",
        erased_en="account numbers and IBANs cut to their last 4 characters, the holder's name and the card token "
                  "erased, the document files deleted",
        kept_cs="druh prostředku, stav a data (účetnictví)", kept_en="the kind of method, its status and dates "
                                                                    "(accounting)"),
    Record(
        code="wallet.payments",
        models=("wallet.Deposit", "wallet.Withdrawal", "wallet.Payout", "wallet.ProviderEvent", "wallet.WinHold",
                "wallet.WinDeduction", "wallet.BankStatement", "wallet.BankEntry", "wallet.PaymentOrderBatch",
                "wallet.PaymentOrder"),
        periods=PERIODS,
        what_cs="vklady, výběry, výplaty, zadržené výhry a srážky, včetně údajů o plátci a odpovědí poskytovatelů",
        what_en="deposits, withdrawals, payouts, held wins and deductions, with the payer data and the providers' "
                "answers",
        erased_cs="údaje o plátci, důvody, poznámky, texty oznámení o srážce a těla odpovědí poskytovatelů vymazány",
        erased_en="the payer data, reasons, notes, the deduction notices' texts and the providers' callback bodies "
                  "erased",
        kept_cs="částky, data, stavy a reference (účetnictví)", kept_en="amounts, dates, states and references "
                                                                       "(accounting)"),
    Record(
        code="wallet.ledger",
        models=("wallet.Wallet", "wallet.LedgerAccount", "wallet.LedgerTransaction", "wallet.Entry",
                "wallet.BranchCash", "wallet.Debt"),
        periods=PERIODS,
        what_cs="účetní kniha: účty, transakce a zápisy, hotovost na pobočce, dluhy",
        what_en="the ledger: accounts, transactions and entries, branch cash, debts",
        erased_cs="nic: kniha je neměnná a konto označuje jen číslem", erased_en="nothing: the ledger is append-only "
                  "and names the account by its id only",
        kept_cs="všechny zápisy (účetnictví); po anonymizaci konta neoznačují osobu",
        kept_en="every posting (accounting); once the account is anonymised they name no person"),
)

WITHHELD = (
    {"what_cs": "token platební karty u poskytovatele", "what_en": "the payment provider's card token",
     "why_cs": "bezpečnostní údaj poskytovatele, nikoli údaj o vás; karta je uvedena maskovaně",
     "why_en": "a security value of the provider, not data about you; the card is shown masked"},
    {"what_cs": "plátce vkladu, který zaplatila jiná osoba (HP §5 odst. 6)",
     "what_en": "the payer of a deposit paid by another person (GP §5(6))",
     "why_cs": "osobní údaje třetí osoby (čl. 15 odst. 4 GDPR)",
     "why_en": "a third person's data (GDPR art. 15(4))"},
    {"what_cs": "důvod zadržení výhry", "what_en": "the reason a win is held",
     "why_cs": "zákon č. 253/2008 Sb. §38 (mlčenlivost); částka a lhůta jsou uvedeny",
     "why_en": "AML Act 253/2008 Sb. §38 (confidentiality); the amount and the term are given"},
)


def export(player: Player) -> dict[str, Any]:
    """The wallet part of the player's export (GP §12(7)a)."""
    methods = []
    for m in PaymentMethod.objects.filter(player=player).prefetch_related("documents").order_by("created_at", "id"):
        methods.append({
            "id": m.pk, "kind": m.kind, "display": m.display, "bank_code": m.bank_code, "iban": m.iban,
            "holder_name": m.holder_name, "card_masked": m.card_masked, "status": m.status,
            "verified_by": m.verified_by, "verified_at": m.verified_at, "status_reason": m.status_reason,
            "created_at": m.created_at,
            "documents": [{"name": d.original_name, "content_type": d.content_type, "size": d.size,
                           "uploaded_at": d.uploaded_at, "status": d.status, "reviewed_at": d.reviewed_at,
                           "file_kept": bool(d.file)} for d in m.documents.all()],
        })
    return {
        "balance": str(selectors.balance(player)), "held": str(selectors.held_balance(player)),
        "payment_methods": methods,
        "deposits": [
            {"id": d.pk, "method_id": d.method_id, "amount": str(Money(d.amount)), "fee": str(Money(d.fee)),
             "status": d.status, "payment_reference": d.payment_reference, "created_at": d.created_at,
             "confirmed_at": d.confirmed_at,
             "payer": None if d.status == Deposit.Status.REFUSED else d.payer}
            for d in Deposit.objects.filter(player=player).order_by("created_at", "id")],
        "withdrawals": [
            {"id": w.pk, "method_id": w.method_id, "amount": str(Money(w.amount)), "status": w.status,
             "requested_at": w.requested_at, "sent_at": w.sent_at, "finished_at": w.finished_at}
            for w in Withdrawal.objects.filter(player=player).order_by("requested_at", "id")],
        "payouts": [
            {"id": p.pk, "kind": p.kind, "amount": str(Money(p.amount)), "paid": str(Money(p.paid)),
             "channel": p.channel, "status": p.status, "started_at": p.started_at, "completed_at": p.completed_at}
            for p in Payout.objects.filter(player=player).order_by("started_at", "id")],
        "branch_cash": [
            {"direction": b.direction, "amount": str(Money(b.amount)), "branch": b.branch, "at": b.at}
            for b in BranchCash.objects.filter(player=player).order_by("at", "id")],
        "win_holds": [
            {"amount": str(Money(h.amount)), "status": h.status, "held_at": h.held_at,
             "release_due_at": h.release_due_at, "decided_at": h.decided_at}
            for h in WinHold.objects.filter(player=player).order_by("held_at", "id")],
        "win_deductions": [
            {"amount": str(Money(d.amount)), "reason": d.reason, "notice_text": d.notice_text,
             "notice_sent_at": d.notice_sent_at}
            for d in WinDeduction.objects.filter(player=player).order_by("notice_sent_at", "id")],
        "debts": [
            {"amount": str(Money(d.amount)), "outstanding": str(Money(d.outstanding)), "status": d.status,
             "due_at": d.due_at, "paid_at": d.paid_at}
            for d in Debt.objects.filter(player=player).order_by("created_at", "id")],
        "statement_totals": {k: str(v) for k, v in selectors.statement_totals(player).items()},
        "statement_note_cs": "Všechny pohyby konta (každou sázku a výhru) obsahuje výpis GET /api/v1/wallet/statement "
                             "a GET /api/v1/wallet/statement.csv.",
        "statement_note_en": "Every movement of the account (each stake and win) is in the statement: "
                             "GET /api/v1/wallet/statement and GET /api/v1/wallet/statement.csv.",
    }


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    """Mask / blank / delete the given wallet records of one ended player (the retention job; idempotent)."""
    out: dict[str, dict[str, int]] = {}
    if "wallet.payment_methods" in records:
        methods = PaymentMethod.objects.filter(player=player)
        docs = list(MethodDocument.objects.filter(method__player=player))
        deleted = 0
        for doc in docs:
            if doc.file:
                default_storage.delete(doc.file.name)
                deleted += 1
        masked = 0
        for m in methods.exclude(identifier__startswith="#").only("pk", "identifier"):
            masked += PaymentMethod.objects.filter(pk=m.pk).update(identifier=mask_identifier(m.pk, m.identifier))
        out["wallet.payment_methods"] = {
            "identifiers_masked": masked,
            "methods": methods.update(iban="", holder_name="", card_token="", accepted_payers=[], status_reason="",
                                      deposits_blocked_reason=""),
            "document_files_deleted": deleted,
            "documents": MethodDocument.objects.filter(pk__in=[d.pk for d in docs]).update(
                file="", original_name="", sha256="", review_note=""),
        }
    if "wallet.payments" in records:
        out["wallet.payments"] = {
            "deposits": Deposit.objects.filter(player=player).update(payer=None, status_reason="", redirect_url=""),
            "withdrawals": Withdrawal.objects.filter(player=player).update(status_reason=""),
            "payouts": Payout.objects.filter(player=player).update(history=[]),
            "provider_events": ProviderEvent.objects.filter(player=player).update(raw_body="", detail=""),
            "win_holds": WinHold.objects.filter(player=player).update(note=""),
            "win_deductions": WinDeduction.objects.filter(player=player).update(notice_text=PLACEHOLDER),
            # the bank statement's lines of this player's money: the payer's name and the free text go; the
            # accounts, amounts and references stay (accounting); the statement files themselves are the
            # operator's bank records (every player's lines), kept for the accounting period
            "bank_entries": BankEntry.objects.filter(player=player).update(counterparty_name="", remittance=""),
            "payment_orders": PaymentOrder.objects.filter(player=player).update(creditor_name=PLACEHOLDER[:70]),
        }
    if "wallet.ledger" in records:
        out["wallet.ledger"] = {}
    return out


CONTRACT = Contract(app="wallet", records=RECORDS, export=export, anonymise=anonymise, withheld=WITHHELD)


def register() -> None:
    privacy_contract.register(CONTRACT)
