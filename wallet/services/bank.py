"""Bank transfers through the operator's own account (GP §5(6)-(9)): statements in, payment orders out.

* ``bank_statement_import`` / ``bank_statement_store`` + ``bank_statement_process``: a camt.053 or camt.054 file of
  the operator's account (``WALLET_BANK_IBAN``; another account's is refused) is stored once (unique SHA-256) and each
  booked entry is handled exactly once (unique account + bank reference), each in its own transaction, so a
  re-import, or a camt.054 followed by the camt.053 that repeats its entries, changes nothing, and an import cut off
  half-way finishes when the file is imported again.
* A credit is matched to its deposit by the variable symbol (``wallet.iso20022.variable_symbols``) and confirmed
  through ``deposits.deposit_confirm_locked`` with the payer the statement names (GP §5(6): money from another account
  than the registered method, or of another person, is refused and paid back to the account it came from; GP §5(8)a:
  a payment from the registered account by the player verifies it). A credit that matches no deposit (or a deposit
  already settled) waits in the staff queue (``BankEntry.Status.UNMATCHED``, money in the ``bank_unmatched``
  account) until staff assign it (``bank_credit_assign``) or return it (``bank_credit_return``).
* ``bank_payment_order_export``: every bank withdrawal and payout accepted since the last file (the ``bank``
  provider accepts them into the outbox), and every unmatched credit staff return, goes into one pain.001 file, each
  in exactly one file. The next statement's debit with its EndToEndId confirms it (``payout.succeeded``); a credit
  returning it (``RtrInf`` or a reversal) fails it (``payout.failed``: the withdrawal's money back to the player, a
  payout to a branch invitation or, for another person's money, stopped for staff).

Every money movement is a balanced ledger posting of the existing services; nothing here calls the network.
The staff queue is ``wallet.services.bank_queue``; the payment-order files out and the bank's rejections of them
(pain.002) are ``wallet.services.bank_orders``; both use this module's matching helpers.
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import DataError, IntegrityError, transaction
from django.db.models import Count

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import adapters, errors, iso20022, jobs, methods, rules
from wallet.adapters import CallbackEvent
from wallet.ledger import live_account, operator_account, post, set_debt, wallet_lock
from wallet.models import (
    BankEntry,
    BankStatement,
    Debt,
    Deposit,
    LedgerTransaction,
    PaymentOrder,
    PaymentOrderBatch,
    Payout,
    Wallet,
)
from wallet.services.deposits import deposit_confirm_locked
from wallet.services.notices import debt_notice, deposit_reversed_notice
from wallet.services.payouts import payout_event

logger = logging.getLogger("wallet.bank")
PROVIDER = adapters.BankTransferProvider.code  # "bank"
CLEARING = f"clearing:{PROVIDER}"
UNMATCHED = "bank_unmatched"
TxnKind = LedgerTransaction.Kind
Status = BankEntry.Status
SETTLED_DEPOSITS = (Deposit.Status.CONFIRMED, Deposit.Status.RETURNED, Deposit.Status.REFUSED)


# Statements in ----------------------------------------------------------------------------------------------------


def _account_iban(account: str) -> str:
    """An account as a statement names it (an IBAN, or a Czech ``number/bank``) as an IBAN ("" when not one)."""
    text = account.replace(" ", "").upper()
    if methods.valid_iban(text):
        return text
    return methods.czech_account_iban(text)


def _read(raw: bytes) -> iso20022.Statement:
    max_bytes = settings.WALLET_BANK_STATEMENT_MAX_BYTES
    if len(raw) > max_bytes:
        raise errors.BANK_FILE_TOO_LARGE(max_bytes=max_bytes, size=len(raw))
    operator = adapters.bank_account_iban()
    parsed = iso20022.statement_parse(raw)
    for stmt in parsed.statements:
        if (_account_iban(stmt.account_iban) or stmt.account_iban) != operator or stmt.currency not in ("", "CZK"):
            raise errors.BANK_STATEMENT_WRONG_ACCOUNT(
                account=stmt.account_iban, currency=stmt.currency, statement_id=stmt.statement_id
            )
    return parsed


def bank_statement_store(*, raw: bytes, name: str, actor: Actor) -> tuple[BankStatement, bool]:
    """Check a statement file (camt.053 / camt.054 of the operator's account) and store it; (the statement, whether it
    is new). The same file again returns the first row. Refuses ``wallet.bank_file_invalid`` /
    ``wallet.bank_file_unsupported`` / ``wallet.bank_file_too_large`` / ``wallet.bank_statement_wrong_account``."""
    parsed = _read(raw)
    sha = hashlib.sha256(raw).hexdigest()
    existing = BankStatement.objects.filter(sha256=sha).first()
    if existing is not None:
        return existing, False
    try:
        with transaction.atomic():
            stmt = BankStatement(
                kind=parsed.kind,
                schema=parsed.schema,
                message_id=parsed.message_id,
                statement_ids=[s.statement_id for s in parsed.statements],
                account_iban=adapters.bank_account_iban(),
                created_at_bank=parsed.created_at,
                original_name=(name or "")[:200],
                size=len(raw),
                sha256=sha,
                imported_at=clock.now(),
                imported_by=f"{actor.type}:{actor.label or actor.id}"[:160],
            )
            stmt.file.save(f"{parsed.kind}-{sha[:16]}.xml", ContentFile(raw), save=False)
            stmt.save()
            audit_record(
                actor=actor,
                action="wallet.bank_statement_stored",
                obj=stmt,
                kind=parsed.kind,
                message_id=parsed.message_id,
                entries=len(parsed.entries),
                sha256=sha,
            )
    except IntegrityError:  # the same file stored at the same moment by another import
        return BankStatement.objects.get(sha256=sha), False
    return stmt, True


def bank_statement_process(*, statement_id: int, actor: Actor, raw: bytes | None = None) -> dict[str, Any]:
    """Handle each booked entry of a stored statement once (its own transaction each); the statement's summary:
    its entries by outcome, and how many of them an earlier file had brought already. ``raw``: the file's bytes (the
    same SHA-256) when the caller has them; needed once the stored file is deleted at the end of its retention
    (``wallet.privacy.sweep``): its lines are all handled already, so processing it again changes nothing."""
    stmt = BankStatement.objects.get(pk=statement_id)
    if raw is None:
        with stmt.file.open("rb") as f:
            raw = f.read()
    parsed = iso20022.statement_parse(raw)
    run: Counter[str] = Counter()
    for entry in parsed.entries:
        run[_entry_handle(stmt, entry, actor)] += 1
    by_status = dict(BankEntry.objects.filter(statement=stmt).values_list("status").annotate(n=Count("pk")))
    summary: dict[str, Any] = {
        "entries": len(parsed.entries),
        "not_booked": parsed.not_booked,
        "credits": sum(1 for e in parsed.entries if e.direction == "credit"),
        "debits": sum(1 for e in parsed.entries if e.direction == "debit"),
        "by_status": by_status,
        "brought_by_earlier_file": len(parsed.entries) - sum(by_status.values()),
        "this_run": dict(run),
    }
    with transaction.atomic():
        BankStatement.objects.filter(pk=stmt.pk).update(
            status=BankStatement.Status.PROCESSED, processed_at=clock.now(), summary=summary
        )
        audit_record(actor=actor, action="wallet.bank_statement_processed", obj=stmt, **summary)
    return summary


def bank_statement_import(*, raw: bytes, name: str, actor: Actor) -> tuple[BankStatement, dict[str, Any]]:
    """Store and process a statement file now (``manage.py bank_statement_import``)."""
    stmt, _created = bank_statement_store(raw=raw, name=name, actor=actor)
    summary = bank_statement_process(statement_id=stmt.pk, actor=actor, raw=raw)
    stmt.refresh_from_db()
    return stmt, summary


def bank_statement_upload(*, raw: bytes, name: str, actor: Actor) -> tuple[BankStatement, bool]:
    """Staff upload: checked and stored now, processed by a Celery task after commit (again only when an earlier
    processing of the same file did not finish)."""
    with transaction.atomic():
        stmt, created = bank_statement_store(raw=raw, name=name, actor=actor)
        if created or stmt.status == BankStatement.Status.QUEUED:
            jobs.bank_statement_process(stmt.pk)
    return stmt, created


def _payer_iban(e: iso20022.StatementEntry) -> str:
    if e.counterparty_iban:
        return e.counterparty_iban
    account = e.counterparty_account.replace(" ", "")
    if "/" in account:
        return methods.czech_account_iban(account)
    code = e.counterparty_bank_code or methods.bank_code_for_bic(e.counterparty_bic)
    return methods.czech_account_iban(f"{account}/{code}") if account and code else ""


def _entry_create(stmt: BankStatement, e: iso20022.StatementEntry, status: str) -> BankEntry | None:
    """The entry's row, or None when it was handled already (by this file or another)."""
    try:
        with transaction.atomic():
            return BankEntry.objects.create(
                statement=stmt,
                account_iban=stmt.account_iban,
                bank_reference=e.bank_reference,
                direction=e.direction,
                reversal=e.reversal,
                amount=e.amount,
                currency=e.currency or "CZK",
                booked_on=e.booked_on,
                value_on=e.value_on,
                end_to_end_id=e.end_to_end_id,
                references=list(e.references),
                remittance=e.remittance,
                counterparty_name=e.counterparty_name,
                counterparty_iban=_payer_iban(e),
                counterparty_account=e.counterparty_account,
                counterparty_bic=e.counterparty_bic,
                return_reason=e.return_reason,
                status=status,
                created_at=clock.now(),
            )
    except IntegrityError:
        return None


def _set(entry: BankEntry, status: str, reason: str = "", **fields: Any) -> str:
    entry.status, entry.status_reason = status, reason[:255]
    for k, v in fields.items():
        setattr(entry, k, v)
    entry.save(update_fields=["status", "status_reason", *fields])
    return status


def _minor_text(amount: int) -> str:
    return f"{amount // 100}.{amount % 100:02d}"


def _entry_invalid(stmt: BankStatement, e: iso20022.StatementEntry, why: str, actor: Actor) -> str:
    """A line that cannot be booked: recorded once (amount 0, the bank's amount in the reason), nothing moved, staff
    told (audited, logged at error level); the file's other lines go on."""
    reason = f"amount {_minor_text(e.amount)} {e.currency or 'CZK'} not booked: {why}"[:255]
    with transaction.atomic():
        try:
            with transaction.atomic():
                entry = BankEntry.objects.create(
                    statement=stmt,
                    account_iban=stmt.account_iban,
                    bank_reference=e.bank_reference,
                    direction=e.direction,
                    reversal=e.reversal,
                    amount=0,
                    currency=(e.currency or "CZK")[:3],
                    booked_on=e.booked_on,
                    value_on=e.value_on,
                    end_to_end_id=e.end_to_end_id,
                    references=list(e.references)[:20],
                    remittance=e.remittance[:500],
                    counterparty_name=e.counterparty_name[:140],
                    counterparty_account=e.counterparty_account[:60],
                    counterparty_bic=e.counterparty_bic[:11],
                    status=Status.INVALID,
                    status_reason=reason,
                    created_at=clock.now(),
                )
        except IntegrityError:
            return "duplicate"
        audit_record(actor=actor, action="wallet.bank_entry_invalid", obj=entry, reason=reason, statement=stmt.pk)
    logger.error("bank statement line not booked", extra={"entry": entry.pk, "reason": reason, "alert": "bank"})
    return Status.INVALID


def _entry_handle(stmt: BankStatement, e: iso20022.StatementEntry, actor: Actor) -> str:
    if BankEntry.objects.filter(account_iban=stmt.account_iban, bank_reference=e.bank_reference).exists():
        return "duplicate"
    maximum = settings.WALLET_BANK_ENTRY_MAX_AMOUNT
    if e.amount > maximum:
        return _entry_invalid(stmt, e, f"over the bookable maximum of {_minor_text(maximum)} CZK per line", actor)
    try:
        return _entry_book(stmt, e, actor)
    except DataError as exc:  # a value no column holds: this line only, never the rest of the file
        return _entry_invalid(stmt, e, f"not storable ({str(exc).splitlines()[0][:80]})", actor)


def _entry_book(stmt: BankStatement, e: iso20022.StatementEntry, actor: Actor) -> str:
    with transaction.atomic():
        entry = _entry_create(stmt, e, Status.OTHER)
        if entry is None:
            return "duplicate"
        if entry.currency != "CZK":
            return _set(entry, Status.IGNORED, f"currency {entry.currency}: the platform books CZK only")
        if e.is_return and e.direction == "credit":
            return _payment_returned(entry, actor)
        if e.direction == "debit":
            return _debit(entry, actor)
        return _credit(entry, actor)


def _queue(entry: BankEntry, reason: str, actor: Actor, reference: str = "") -> str:
    """The credit waits for staff: its money moves from the bank's clearing to ``bank_unmatched``."""
    post(
        kind=TxnKind.BANK_UNMATCHED,
        reference=reference or f"bank_entry:{entry.pk}",
        legs=[(operator_account(CLEARING), -entry.amount), (operator_account(UNMATCHED), entry.amount)],
        player_id=None,
        amount=entry.amount,
        actor=actor,
        memo=f"bank credit {entry.bank_reference}: {reason}",
    )
    audit_record(
        actor=actor,
        action="wallet.bank_credit_unmatched",
        obj=entry,
        reason=reason,
        amount=Money(entry.amount),
        references=entry.references,
    )
    return _set(entry, Status.UNMATCHED, reason)


def _credit(entry: BankEntry, actor: Actor) -> str:
    found = list(Deposit.objects.filter(provider=PROVIDER, payment_reference__in=entry.references)[:2])
    if not found:
        why = "no variable symbol" if not entry.references else "no deposit with this variable symbol"
        return _queue(entry, why, actor)
    if len(found) > 1:
        return _queue(entry, "variable symbols of more than one deposit", actor)
    return _credit_deposit(entry, found[0], actor)


def _credit_deposit(entry: BankEntry, deposit: Deposit, actor: Actor) -> str:
    """Credit, refuse or return ``deposit`` with the money of ``entry`` (GP §5(6))."""
    wallet = wallet_lock(player=deposit.player)
    d = (
        Deposit.objects.select_for_update(of=("self",), no_key=True)
        .select_related("method", "player")
        .get(pk=deposit.pk)
    )
    if d.status in SETTLED_DEPOSITS:
        return _queue(entry, f"deposit {d.payment_reference} is already {d.status}: another payment", actor)
    return _confirm(entry, d, wallet, actor)


def _confirm(entry: BankEntry, d: Deposit, wallet: Wallet, actor: Actor) -> str:
    result, detail = deposit_confirm_locked(
        deposit=d,
        wallet=wallet,
        received=entry.amount,
        payer=dict(entry.payer) or None,
        actor=actor,
        source_account=entry.counterparty_iban or entry.counterparty_account,
    )
    status = {"confirmed": Status.CONFIRMED, "refused": Status.REFUSED, "returned": Status.RETURNED}[result]
    payout = Payout.objects.filter(reference=f"deposit_{result}:{d.pk}").first() if result != "confirmed" else None
    return _set(entry, status, detail, deposit=d, player=d.player, payout=payout)


# Our payment orders on the statement ------------------------------------------------------------------------------


def _order_for(entry: BankEntry) -> PaymentOrder | None:
    e2e = entry.end_to_end_id.strip()
    if not e2e:
        return None
    return (
        PaymentOrder.objects.select_for_update(of=("self",), no_key=True)
        .filter(end_to_end_id=e2e.lstrip("0") or e2e)
        .select_related("withdrawal", "payout", "credit")
        .first()
    )


def _event(entry: BankEntry, order: PaymentOrder, type_: str) -> CallbackEvent:
    if order.withdrawal is not None:
        reference = order.withdrawal.reference
    else:
        assert order.payout is not None and order.payout_attempt is not None
        reference = (
            order.payout.reference if order.payout_attempt == 0 else f"{order.payout.reference}/a{order.payout_attempt}"
        )
    return CallbackEvent(
        event_id=f"bank:{entry.bank_reference}",
        type=type_,
        reference=reference,
        amount=entry.amount,
        currency=entry.currency,
        payer=None,
        occurred_at=entry.booked_on.isoformat() if entry.booked_on else "",
        reason=entry.return_reason or "returned by the bank",
    )


def _order_player(order: PaymentOrder) -> Player | None:
    if order.withdrawal is not None:
        return order.withdrawal.player
    if order.payout is not None:
        return order.payout.player
    return None


def _batch_refresh(batch_id: int) -> None:
    counts = dict(PaymentOrder.objects.filter(batch_id=batch_id).values_list("status").annotate(n=Count("pk")))
    settled, returned = counts.get(PaymentOrder.Status.SETTLED, 0), counts.get(PaymentOrder.Status.RETURNED, 0)
    open_ = counts.get(PaymentOrder.Status.EXPORTED, 0)
    PaymentOrderBatch.objects.filter(pk=batch_id).update(
        settled_count=settled,
        returned_count=returned,
        status=PaymentOrderBatch.Status.SETTLED if open_ == 0 else PaymentOrderBatch.Status.EXPORTED,
    )


def _reversed_deposit(entry: BankEntry) -> Deposit | None:
    """The credited deposit a reversal takes back: by its variable symbol and amount, else the credited entry of
    the same payer account and amount (the latest)."""
    by_symbol = list(
        Deposit.objects.filter(
            provider=PROVIDER,
            payment_reference__in=entry.references,
            status=Deposit.Status.CONFIRMED,
            amount=entry.amount,
        )[:2]
    )
    if len(by_symbol) == 1:
        return by_symbol[0]
    if entry.counterparty_iban:
        credit = (
            BankEntry.objects.filter(
                direction=BankEntry.Direction.CREDIT,
                status=Status.CONFIRMED,
                amount=entry.amount,
                counterparty_iban=entry.counterparty_iban,
                deposit__status=Deposit.Status.CONFIRMED,
            )
            .order_by("-created_at", "-pk")
            .first()
        )
        if credit is not None:
            return credit.deposit
    return None


def _reversal(entry: BankEntry, actor: Actor) -> str:
    """A debit the bank marks as a reversal (``RvslInd``) of a credit it booked: the deposit that credit confirmed
    is taken back from the player's live account (``deposit_reversal``, back to the bank's clearing); what the
    balance cannot cover is a debt payable within 10 days (stakes and withdrawals refused until paid, GP §7(7)),
    with its notice. The player is told, staff see it (audited ``wallet.bank_deposit_reversed``). A reversal that
    names no credited deposit moves nothing and waits for staff (``reversal_unmatched``)."""
    found = _reversed_deposit(entry)
    if found is None:
        reason = "a reversal that names no credited deposit (symbol, amount, payer): staff check it with the bank"
        audit_record(
            actor=actor,
            action="wallet.bank_reversal_unmatched",
            obj=entry,
            amount=Money(entry.amount),
            references=entry.references,
        )
        logger.error("bank reversal not matched", extra={"entry": entry.pk, "alert": "bank"})
        return _set(entry, Status.REVERSAL_UNMATCHED, reason)
    wallet = wallet_lock(player=found.player)
    d = Deposit.objects.select_for_update(of=("self",), no_key=True).select_related("player").get(pk=found.pk)
    if d.status != Deposit.Status.CONFIRMED:
        return _set(entry, Status.REVERSAL_UNMATCHED, f"deposit {d.payment_reference} is {d.status}, not credited")
    acc = live_account(wallet)
    shortfall = max(0, entry.amount - acc.balance)
    if shortfall > acc.debt:
        set_debt(acc, shortfall)
    post(
        kind=TxnKind.DEPOSIT_REVERSAL,
        reference=f"bank_reversal:{entry.pk}",
        legs=[(acc, -entry.amount), (operator_account(CLEARING), entry.amount)],
        player_id=d.player_id,
        amount=entry.amount,
        actor=actor,
        memo=f"deposit {d.payment_reference} reversed by the bank",
    )
    d.status, d.status_reason = Deposit.Status.REVERSED, f"reversed by the bank: entry {entry.bank_reference}"[:255]
    d.save(update_fields=["status", "status_reason"])
    acc.refresh_from_db(fields=["balance", "debt"])
    new_debt = max(0, -acc.balance)
    already = sum(
        x.outstanding for x in Debt.objects.filter(account=acc, status__in=[Debt.Status.OPEN, Debt.Status.OVERDUE])
    )
    debt = None
    if new_debt > already:
        now = clock.now()
        debt = Debt.objects.create(
            player_id=d.player_id,
            account=acc,
            bank_entry=entry,
            amount=new_debt - already,
            outstanding=new_debt - already,
            created_at=now,
            due_at=now + timedelta(days=rules.DEBT_DAYS),
        )
        audit_record(
            actor=actor,
            action="wallet.debt_recorded",
            obj=debt,
            amount=Money(debt.amount),
            due_at=debt.due_at,
            bank_entry=entry.pk,
        )
    audit_record(
        actor=actor,
        action="wallet.bank_deposit_reversed",
        obj=entry,
        deposit=d.payment_reference,
        player_id=d.player_id,
        amount=Money(entry.amount),
        balance_after=Money(acc.balance),
        debt=None if debt is None else Money(debt.amount),
    )
    logger.warning("bank reversal of a credited deposit", extra={"entry": entry.pk, "deposit": d.pk, "alert": "bank"})
    deposit_reversed_notice(deposit=d, debt=debt)
    if debt is not None:
        debt_notice(debt=debt)
    return _set(
        entry,
        Status.REVERSED,
        f"deposit {d.payment_reference} reversed by the bank: taken back"
        + (f", debt {Money(debt.amount)}" if debt is not None else ""),
        deposit=d,
        player=d.player,
    )


def _debit(entry: BankEntry, actor: Actor) -> str:
    """A debit with the EndToEndId of one of our payment orders: that payment is made (a reversal: above)."""
    if entry.reversal:
        return _reversal(entry, actor)
    order = _order_for(entry)
    if order is None:
        return _set(
            entry,
            Status.OTHER,
            "no payment order with this EndToEndId"
            if entry.end_to_end_id
            else "a debit without an EndToEndId (fees, interest, another payment)",
        )
    if order.status != PaymentOrder.Status.EXPORTED or order.amount != entry.amount:
        return _set(
            entry,
            Status.OTHER,
            f"payment order {order.end_to_end_id} is {order.status}, "
            f"amount {Money(order.amount)}: not settled by this debit",
            order=order,
        )
    player = _order_player(order)
    if player is not None:
        wallet_lock(player=player)
        result, detail = payout_event(PROVIDER, _event(entry, order, "payout.succeeded"), actor)
        if result not in ("confirmed", "completed"):
            return _set(entry, Status.OTHER, f"payment order {order.end_to_end_id}: {result} {detail}", order=order)
    else:
        assert order.credit is not None
        credit = BankEntry.objects.select_for_update(no_key=True).get(pk=order.credit.pk)
        if credit.status == Status.RETURNING:
            _set(credit, Status.RETURNED_TO_PAYER, f"returned by payment order {order.end_to_end_id}")
    order.status, order.finished_at = PaymentOrder.Status.SETTLED, clock.now()
    order.save(update_fields=["status", "finished_at"])
    _batch_refresh(order.batch_id)
    audit_record(
        actor=actor,
        action="wallet.payment_order_settled",
        obj=order,
        entry=entry.bank_reference,
        amount=Money(order.amount),
    )
    return _set(entry, Status.SETTLED, f"payment order {order.end_to_end_id} paid", order=order, player=player)


def _payment_returned(entry: BankEntry, actor: Actor) -> str:
    """A credit returning one of our payments (``RtrInf`` / reversal): that payment failed."""
    order = _order_for(entry)
    if order is None or order.status == PaymentOrder.Status.RETURNED or order.amount != entry.amount:
        why = (
            "a returned payment that names none of our open payment orders"
            if order is None
            else (
                f"a return of payment order {order.end_to_end_id} ({order.status}, {Money(order.amount)}) "
                "that does not fit"
            )
        )
        return _queue(entry, why, actor)
    player = _order_player(order)
    if player is not None:
        wallet_lock(player=player)
        result, detail = payout_event(PROVIDER, _event(entry, order, "payout.failed"), actor)
        if result not in ("returned", "failed", "invited", "stopped"):
            return _queue(entry, f"payment order {order.end_to_end_id}: {result} {detail}", actor)
    else:
        assert order.credit is not None
        credit = BankEntry.objects.select_for_update(no_key=True).get(pk=order.credit.pk)
        _queue(
            credit,
            f"the return to the payer came back: {entry.return_reason}",
            actor,
            reference=f"payment_order:{order.pk}:returned",
        )
    order.status, order.finished_at = PaymentOrder.Status.RETURNED, clock.now()
    order.save(update_fields=["status", "finished_at"])
    _batch_refresh(order.batch_id)
    audit_record(
        actor=actor,
        action="wallet.payment_order_returned",
        obj=order,
        entry=entry.bank_reference,
        reason=entry.return_reason,
    )
    return _set(
        entry,
        Status.PAYMENT_RETURNED,
        f"payment order {order.end_to_end_id} returned: {entry.return_reason}",
        order=order,
        player=player,
    )
