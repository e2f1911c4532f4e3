"""The wallet app's privacy contract (``accounts.privacy_contract``; registered by ``WalletConfig.ready``).

Every wallet record is an accounting record (zákon č. 563/1991 Sb. §31(2)b: 5 years from the end of the accounting
period) and a record of the client's transactions under the AML law (zákon č. 253/2008 Sb. §16(1): 10 years from the
end of the relationship), so it is kept until the later of the two.

* ``wallet.payment_methods``: payment methods and their ownership documents. At the end: the account number / IBAN /
  e-wallet id are masked to the last four characters (with the method's id), the holder's name, the card token and
  the names of accepted payers are erased, the reasons blanked; **the document files are deleted from storage** (at
  once, inside the job's transaction, as in aml) and their names erased.
* ``wallet.payments``: deposits (the payer the provider reported), withdrawals, payouts, the providers' raw callback
  bodies, win holds and deductions, the bank statement lines and payment orders. At the end the payer data, reasons,
  notes, the deduction notices' texts and the callbacks' raw bodies are erased; amounts, dates, states and
  references stay (accounting). The bank's lines of no player, and the statement and payment-order files, go by
  their own dates (:func:`sweep`).
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

from datetime import date, datetime, time, timedelta
from typing import Any

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Exists, F, OuterRef, Q, QuerySet, Value
from django.db.models.functions import Coalesce, Concat, Greatest, NullIf, Right, TruncDate

from accounts import privacy_contract, retention
from accounts.models import PersonalDataErasure, Player
from accounts.privacy_contract import Contract, Record
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import iso20022, selectors
from wallet.models import (
    BankEntry,
    BankStatement,
    BranchCash,
    Debt,
    Deposit,
    MethodDocument,
    PaymentMethod,
    PaymentOrder,
    PaymentOrderBatch,
    Payout,
    ProviderEvent,
    WinDeduction,
    WinHold,
    Withdrawal,
    mask_identifier,
)

PLACEHOLDER = "[anonymised]"
PERIODS = ("accounting", "aml")
PAYMENTS_RETENTION = "+".join(sorted(PERIODS))  # the retention group of ``wallet.payments`` (PersonalDataErasure)
ENTRY_BLANK = {"counterparty_name": "", "counterparty_iban": "", "counterparty_account": "", "remittance": ""}
MASK = "****"


def _order_blank() -> dict[str, Any]:
    """A payment order's creditor: the name erased, the account cut to its last 4 characters (``****7890``: an order
    always names an account, a database constraint; the same masking as a payment method's number)."""
    return {
        "creditor_name": PLACEHOLDER[:70],
        "creditor_iban": "",
        "creditor_account": Concat(
            Value(MASK), Right(Coalesce(NullIf("creditor_iban", Value("")), "creditor_account"), 4)
        ),
    }


ORDER_BLANKED = Q(creditor_name=PLACEHOLDER[:70], creditor_iban="", creditor_account__startswith=MASK)
# a credit still waiting for staff, or on its way back to its payer: its payer's account is still needed to return it
OPEN_CREDITS = (BankEntry.Status.UNMATCHED, BankEntry.Status.RETURNING)

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
        kept_cs="druh prostředku, stav a data (účetnictví)",
        kept_en="the kind of method, its status and dates (accounting)",
    ),
    Record(
        code="wallet.payments",
        models=(
            "wallet.Deposit",
            "wallet.Withdrawal",
            "wallet.Payout",
            "wallet.ProviderEvent",
            "wallet.WinHold",
            "wallet.WinDeduction",
            "wallet.BankStatement",
            "wallet.BankEntry",
            "wallet.PaymentOrderBatch",
            "wallet.PaymentOrder",
        ),
        periods=PERIODS,
        what_cs="vklady, výběry, výplaty, zadržené výhry a srážky, včetně údajů o plátci a odpovědí poskytovatelů",
        what_en="deposits, withdrawals, payouts, held wins and deductions, with the payer data and the providers' "
        "answers",
        erased_cs="údaje o plátci (i jméno, účet a zpráva z bankovního výpisu), důvody, poznámky, texty oznámení o "
        "srážce a těla odpovědí poskytovatelů vymazány; soubory výpisů a platebních příkazů smazány, až "
        "uplyne lhůta každého řádku v nich (řádek bez hráče: od data zaúčtování)",
        erased_en="the payer data (the bank statement's name, account and message too), reasons, notes, the deduction "
        "notices' texts and the providers' callback bodies erased; the statement and payment-order files "
        "deleted once every line in them is past its period (a line of no player: from its booking date)",
        kept_cs="částky, data, stavy a reference (účetnictví)",
        kept_en="amounts, dates, states and references (accounting)",
    ),
    Record(
        code="wallet.ledger",
        models=(
            "wallet.Wallet",
            "wallet.LedgerAccount",
            "wallet.LedgerTransaction",
            "wallet.Entry",
            "wallet.CarriedEntries",
            "wallet.BranchCash",
            "wallet.Debt",
        ),
        periods=PERIODS,
        what_cs="účetní kniha: účty, transakce a zápisy, hotovost na pobočce, dluhy",
        what_en="the ledger: accounts, transactions and entries, branch cash, debts",
        erased_cs="nic: kniha je neměnná a konto označuje jen číslem",
        erased_en="nothing: the ledger is append-only and names the account by its id only",
        kept_cs="všechny zápisy (účetnictví); po anonymizaci konta neoznačují osobu",
        kept_en="every posting (accounting); once the account is anonymised they name no person",
    ),
)

WITHHELD = (
    {
        "what_cs": "token platební karty u poskytovatele",
        "what_en": "the payment provider's card token",
        "why_cs": "bezpečnostní údaj poskytovatele, nikoli údaj o vás; karta je uvedena maskovaně",
        "why_en": "a security value of the provider, not data about you; the card is shown masked",
    },
    {
        "what_cs": "plátce vkladu, který zaplatila jiná osoba (HP §5 odst. 6)",
        "what_en": "the payer of a deposit paid by another person (GP §5(6))",
        "why_cs": "osobní údaje třetí osoby (čl. 15 odst. 4 GDPR)",
        "why_en": "a third person's data (GDPR art. 15(4))",
    },
    {
        "what_cs": "důvod zadržení výhry",
        "what_en": "the reason a win is held",
        "why_cs": "zákon č. 253/2008 Sb. §38 (mlčenlivost); částka a lhůta jsou uvedeny",
        "why_en": "AML Act 253/2008 Sb. §38 (confidentiality); the amount and the term are given",
    },
)


def export(player: Player) -> dict[str, Any]:
    """The wallet part of the player's export (GP §12(7)a)."""
    methods = []
    for m in PaymentMethod.objects.filter(player=player).prefetch_related("documents").order_by("created_at", "id"):
        methods.append(
            {
                "id": m.pk,
                "kind": m.kind,
                "display": m.display,
                "bank_code": m.bank_code,
                "iban": m.iban,
                "holder_name": m.holder_name,
                "card_masked": m.card_masked,
                "status": m.status,
                "verified_by": m.verified_by,
                "verified_at": m.verified_at,
                "status_reason": m.status_reason,
                "created_at": m.created_at,
                "documents": [
                    {
                        "name": d.original_name,
                        "content_type": d.content_type,
                        "size": d.size,
                        "uploaded_at": d.uploaded_at,
                        "status": d.status,
                        "reviewed_at": d.reviewed_at,
                        "file_kept": bool(d.file),
                    }
                    for d in m.documents.all()
                ],
            }
        )
    return {
        "balance": str(selectors.balance(player)),
        "held": str(selectors.held_balance(player)),
        "payment_methods": methods,
        "deposits": [
            {
                "id": d.pk,
                "method_id": d.method_id,
                "amount": str(Money(d.amount)),
                "fee": str(Money(d.fee)),
                "status": d.status,
                "payment_reference": d.payment_reference,
                "created_at": d.created_at,
                "confirmed_at": d.confirmed_at,
                "payer": None if d.status == Deposit.Status.REFUSED else d.payer,
            }
            for d in Deposit.objects.filter(player=player).order_by("created_at", "id")
        ],
        "withdrawals": [
            {
                "id": w.pk,
                "method_id": w.method_id,
                "amount": str(Money(w.amount)),
                "status": w.status,
                "requested_at": w.requested_at,
                "sent_at": w.sent_at,
                "finished_at": w.finished_at,
            }
            for w in Withdrawal.objects.filter(player=player).order_by("requested_at", "id")
        ],
        "payouts": [
            {
                "id": p.pk,
                "kind": p.kind,
                "amount": str(Money(p.amount)),
                "paid": str(Money(p.paid)),
                "channel": p.channel,
                "status": p.status,
                "started_at": p.started_at,
                "completed_at": p.completed_at,
            }
            for p in Payout.objects.filter(player=player).order_by("started_at", "id")
        ],
        "branch_cash": [
            {"direction": b.direction, "amount": str(Money(b.amount)), "branch": b.branch, "at": b.at}
            for b in BranchCash.objects.filter(player=player).order_by("at", "id")
        ],
        "win_holds": [
            {
                "amount": str(Money(h.amount)),
                "status": h.status,
                "held_at": h.held_at,
                "release_due_at": h.release_due_at,
                "decided_at": h.decided_at,
            }
            for h in WinHold.objects.filter(player=player).order_by("held_at", "id")
        ],
        "win_deductions": [
            {
                "amount": str(Money(d.amount)),
                "reason": d.reason,
                "notice_text": d.notice_text,
                "notice_sent_at": d.notice_sent_at,
            }
            for d in WinDeduction.objects.filter(player=player).order_by("notice_sent_at", "id")
        ],
        "debts": [
            {
                "amount": str(Money(d.amount)),
                "outstanding": str(Money(d.outstanding)),
                "status": d.status,
                "due_at": d.due_at,
                "paid_at": d.paid_at,
            }
            for d in Debt.objects.filter(player=player).order_by("created_at", "id")
        ],
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
            "methods": methods.update(
                iban="", holder_name="", card_token="", accepted_payers=[], status_reason="", deposits_blocked_reason=""
            ),
            "document_files_deleted": deleted,
            "documents": MethodDocument.objects.filter(pk__in=[d.pk for d in docs]).update(
                file="", original_name="", sha256="", review_note=""
            ),
        }
    if "wallet.payments" in records:
        out["wallet.payments"] = {
            "deposits": Deposit.objects.filter(player=player).update(payer=None, status_reason="", redirect_url=""),
            "withdrawals": Withdrawal.objects.filter(player=player).update(status_reason=""),
            "payouts": Payout.objects.filter(player=player).update(history=[]),
            "provider_events": ProviderEvent.objects.filter(player=player).update(raw_body="", detail=""),
            "win_holds": WinHold.objects.filter(player=player).update(note=""),
            "win_deductions": WinDeduction.objects.filter(player=player).update(notice_text=PLACEHOLDER),
            # the bank statement's lines of this player's money and our payment orders to them: the payer's name,
            # account and the free text go; amounts, dates and the bank's references stay (accounting, and the
            # references keep a re-imported statement from handling a line twice). The files go by ``sweep``.
            "bank_entries": BankEntry.objects.filter(player=player).update(**ENTRY_BLANK),
            "payment_orders": PaymentOrder.objects.filter(player=player)
            .exclude(ORDER_BLANKED)
            .update(**_order_blank()),
        }
    if "wallet.ledger" in records:
        out["wallet.ledger"] = {}
    return out


# The bank's records that belong to no player, and the bank files (the retention job's ``sweep``) ------------------


def last_day_past(now: datetime) -> date:
    """The last booking day whose records are past both periods at ``now``: the accounting period (5 years from the
    end of the booking's year) and the AML period counted from the transaction (zákon č. 253/2008 Sb. §16(1): "od
    uskutečnění obchodu mimo obchodní vztah"; 10 years), the later of the two, each ending as
    :func:`accounts.retention.retention_ends_at` counts it (anonymised from 00:00 Prague after the last day)."""
    day = clock.business_date(retention.prefilter_ended_before(now, PERIODS)) + timedelta(days=1)
    while retention.retention_ends_at(datetime.combine(day, time(12), tzinfo=clock.PRAGUE), PERIODS) > now:
        day -= timedelta(days=1)
    return day


def _entry_day() -> Greatest:
    """A statement line's day: its booking date (else value date, else the day it was read), or the day staff decided
    it (a credit returned later) when that is later."""
    return Greatest(
        Coalesce("booked_on", "value_on", TruncDate("created_at", tzinfo=clock.PRAGUE)),
        TruncDate("decided_at", tzinfo=clock.PRAGUE),
    )


def _order_day() -> Greatest:
    return Greatest(F("batch__execution_date"), TruncDate("finished_at", tzinfo=clock.PRAGUE))


def _players_payments_erased() -> Exists:
    return Exists(PersonalDataErasure.objects.filter(player=OuterRef("player"), retention=PAYMENTS_RETENTION))


def _entries_kept(entries: QuerySet[BankEntry], last_day: date) -> QuerySet[BankEntry]:
    """The lines of ``entries`` still within their period: a player's until the player's payments are anonymised
    (counted from the end of the relationship), another until ``last_day`` has passed and while it is open."""
    return entries.annotate(day=_entry_day(), erased=_players_payments_erased()).exclude(
        (Q(player__isnull=True, day__lte=last_day) & ~Q(status__in=OPEN_CREDITS)) | Q(player__isnull=False, erased=True)
    )


def _orders_kept(orders: QuerySet[PaymentOrder], last_day: date) -> QuerySet[PaymentOrder]:
    return orders.annotate(day=_order_day(), erased=_players_payments_erased()).exclude(
        (Q(player__isnull=True, day__lte=last_day) & ~Q(status=PaymentOrder.Status.EXPORTED))
        | Q(player__isnull=False, erased=True)
    )


def _statement_lines_kept(stmt: BankStatement, last_day: date) -> bool:
    """Whether a line of the file is still within its period. The rows the file brought are its lines; a file that
    repeats lines an earlier file brought (a camt.053 after the camt.054 of the same day) is read for the rest."""
    if _entries_kept(BankEntry.objects.filter(statement=stmt), last_day).exists():
        return True
    if stmt.summary.get("brought_by_earlier_file", 1) == 0:
        return False
    with stmt.file.open("rb") as f:
        refs = [e.bank_reference for e in iso20022.statement_parse(f.read()).entries]
    return _entries_kept(
        BankEntry.objects.filter(account_iban=stmt.account_iban, bank_reference__in=refs), last_day
    ).exists()


def sweep(*, actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    """GP §12(5), the AML Act §16(1), the Accounting Act §31(2)b: the bank's records of people who are no player of
    ours (an unmatched credit, a third party's money returned, its return order) lose the payer's name, account and
    message once both periods, counted from the booking date, have passed (never while the credit is still waiting
    for staff or on its way back); a stored statement file is deleted from storage, and a payment-order file's XML
    blanked, once every line it holds is past its period (a player's line: once the player's payments are
    anonymised). The statement row keeps its SHA-256, so the same file imported again is still recognised, and the
    lines keep the bank's references, so no line is handled twice. Idempotent; audited when anything changed."""
    last_day = last_day_past(now)
    entries = (
        BankEntry.objects.filter(player__isnull=True)
        .exclude(status__in=OPEN_CREDITS)
        .annotate(day=_entry_day())
        .filter(day__lte=last_day)
        .exclude(**ENTRY_BLANK)
    )
    orders = (
        PaymentOrder.objects.filter(player__isnull=True)
        .exclude(status=PaymentOrder.Status.EXPORTED)
        .annotate(day=_order_day())
        .filter(day__lte=last_day)
        .exclude(ORDER_BLANKED)
    )
    with transaction.atomic():
        rows = {
            "bank_entries": BankEntry.objects.filter(pk__in=entries.values("pk")).update(**ENTRY_BLANK),
            "payment_orders": PaymentOrder.objects.filter(pk__in=orders.values("pk")).update(**_order_blank()),
        }
        batches = (
            PaymentOrderBatch.objects.filter(status=PaymentOrderBatch.Status.SETTLED, execution_date__lte=last_day)
            .exclude(xml="")
            .exclude(Exists(_orders_kept(PaymentOrder.objects.filter(batch=OuterRef("pk")), last_day)))
        )
        rows["payment_order_files"] = PaymentOrderBatch.objects.filter(pk__in=batches.values("pk")).update(xml="")
    files = 0
    due = (
        BankStatement.objects.filter(status=BankStatement.Status.PROCESSED)
        .exclude(file="")
        .annotate(day=TruncDate(Coalesce("created_at_bank", "imported_at"), tzinfo=clock.PRAGUE))
        .filter(day__lte=last_day)
        .order_by("pk")
    )
    for stmt in due.exclude(Exists(_entries_kept(BankEntry.objects.filter(statement=OuterRef("pk")), last_day))):
        if _statement_lines_kept(stmt, last_day):
            continue
        with transaction.atomic():
            locked = (
                BankStatement.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(pk=stmt.pk)
                .exclude(file="")
                .first()
            )
            if locked is None:
                continue
            name, storage = locked.file.name, locked.file.storage
            BankStatement.objects.filter(pk=stmt.pk).update(file="")
            storage.delete(name)
            files += 1
    rows["statement_files"] = files
    if any(rows.values()):
        with transaction.atomic():
            audit_record(
                actor=actor,
                action="wallet.bank_records_anonymised",
                object_type="wallet.bank",
                last_booking_day=last_day.isoformat(),
                rows=rows,
            )
    return {"wallet.payments": rows}


CONTRACT = Contract(app="wallet", records=RECORDS, export=export, anonymise=anonymise, withheld=WITHHELD, sweep=sweep)


def register() -> None:
    privacy_contract.register(CONTRACT)
