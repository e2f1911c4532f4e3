"""Bank transfers out (GP §5(6)-(9)): the payment-order files (pain.001) and the bank's rejections of them (pain.002).

``bank_payment_order_export`` puts every bank withdrawal and payout accepted since the last file, and every unmatched
credit staff return, into one pain.001 file, each in exactly one file; ``bank_payment_status_import`` returns what the
bank rejects. The statements in and their matching are ``wallet.services.bank``; the staff queue
``wallet.services.bank_queue``.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from datetime import date
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.sql import advisory_lock
from wallet import adapters, errors, iso20022, methods
from wallet.adapters import CallbackEvent
from wallet.ledger import wallet_lock
from wallet.models import (
    BankEntry,
    PaymentMethod,
    PaymentOrder,
    PaymentOrderBatch,
    Payout,
    Withdrawal,
)
from wallet.selectors import player_identity
from wallet.services.bank import PROVIDER, Status, _batch_refresh, _event, _order_player, _set
from wallet.services.payouts import payout_event

# The bank's rejection of our payment orders (pain.002) -------------------------------------------------------------


def bank_payment_status_import(*, raw: bytes, actor: Actor) -> dict[str, Any]:
    """The bank's status report on a payment-order file (pain.002): every order it rejects (``RJCT``, the whole file
    with a group status ``RJCT``) that is still waiting (``exported``) is returned: a withdrawal's money goes back to
    the player (``payout.failed``, as when the statement returns a payment), a payout fails for staff, a return of an
    unmatched credit goes back to the staff queue. Accepted statuses change nothing (the statement's debit settles
    the order). Each order once: a repeat of the report finds it ``returned``. Audited per order."""
    report = iso20022.payment_status_parse(raw)
    batch = PaymentOrderBatch.objects.filter(message_id=report.original_message_id).first()
    if batch is None:
        raise errors.BANK_FILE_INVALID(
            reason=f"the report answers {report.original_message_id!r}, not one of our payment-order files"
        )
    rejected: dict[str, str] = {}
    if report.group_status == iso20022.REJECTED:
        for e2e in batch.orders.exclude(end_to_end_id=None).values_list("end_to_end_id", flat=True):
            rejected[str(e2e)] = report.group_reason or "the bank rejected the payment-order file"
    for t in report.transactions:
        if t.status == iso20022.REJECTED:
            rejected[t.end_to_end_id.lstrip("0") or t.end_to_end_id] = t.reason or "rejected by the bank"
    out: Counter[str] = Counter()
    for e2e, reason in rejected.items():
        out[_order_rejected(batch, e2e, reason, report.message_id, actor)] += 1
    return {
        "report": report.message_id,
        "batch": batch.message_id,
        "transactions": len(report.transactions),
        "group_status": report.group_status,
        **dict(out),
    }


def _order_rejected(batch: PaymentOrderBatch, e2e: str, reason: str, report_id: str, actor: Actor) -> str:
    with transaction.atomic():
        order = (
            PaymentOrder.objects.select_for_update(of=("self",), no_key=True)
            .filter(batch=batch, end_to_end_id=e2e)
            .select_related("withdrawal", "payout", "credit")
            .first()
        )
        if order is None:
            return "unknown"
        if order.status != PaymentOrder.Status.EXPORTED:
            return "already_" + order.status
        player = _order_player(order)
        event_entry = BankEntry(
            bank_reference=f"pain002:{report_id}:{e2e}"[:120],
            amount=order.amount,
            currency=order.currency,
            booked_on=clock.business_date(),
            return_reason=f"rejected: {reason}"[:140],
        )
        if player is not None:
            wallet_lock(player=player)
            result, detail = payout_event(PROVIDER, _event(event_entry, order, "payout.failed"), actor)
            if result not in ("returned", "failed", "invited", "stopped"):
                return "not_returned"
        else:
            assert order.credit is not None
            credit = BankEntry.objects.select_for_update(no_key=True).get(pk=order.credit.pk)
            if credit.status == Status.RETURNING:
                _set(credit, Status.UNMATCHED, f"the return to the payer was rejected by the bank: {reason}"[:255])
        order.status, order.finished_at = PaymentOrder.Status.RETURNED, clock.now()
        order.save(update_fields=["status", "finished_at"])
        _batch_refresh(order.batch_id)
        audit_record(
            actor=actor,
            action="wallet.payment_order_rejected",
            obj=order,
            report=report_id,
            reason=reason,
            amount=Money(order.amount),
        )
    return "rejected"


# Payment orders out ----------------------------------------------------------------------------------------------


def _holder_name(method: PaymentMethod | None, player: Player) -> str:
    if method is not None and method.holder_name:
        return method.holder_name
    identity = player_identity(player)
    if identity is not None:
        return f"{identity.given_names} {identity.surname}"
    return f"{player.user.first_name} {player.user.last_name}".strip() or player.user.username


def _order_rows(batch: PaymentOrderBatch, actor: Actor) -> list[PaymentOrder]:
    rows: list[PaymentOrder] = []
    for w in (
        Withdrawal.objects.filter(provider=PROVIDER, status=Withdrawal.Status.SENT, payment_order__isnull=True)
        .select_related("method", "player__user")
        .order_by("pk")
    ):
        rows.append(
            PaymentOrder(
                batch=batch,
                kind=PaymentOrder.Kind.WITHDRAWAL,
                withdrawal=w,
                player=w.player,
                amount=w.amount,
                creditor_name=_holder_name(w.method, w.player)[:70],
                creditor_iban=w.method.iban,
                remittance=f"Vyber / withdrawal {w.pk}",
            )
        )
    sent_again = PaymentOrder.objects.filter(payout=OuterRef("pk"), payout_attempt=OuterRef("attempt"))
    for p in (
        Payout.objects.filter(provider=PROVIDER, status=Payout.Status.SENT)
        .exclude(Exists(sent_again))
        .select_related("method", "player__user")
        .order_by("pk")
    ):
        source = BankEntry.objects.filter(payout=p).order_by("pk").first()
        if source is not None:  # a refused or returned deposit goes back to the account it came from
            iban, account, name = source.counterparty_iban, source.counterparty_account, source.counterparty_name
            remittance = f"Vraceni platby / payment returned {source.bank_reference}"
        else:
            iban, account, name = (p.method.iban if p.method else ""), "", _holder_name(p.method, p.player)
            remittance = f"Vyplata / payout {p.pk}"
        if not (iban or account):
            wallet_lock(player=p.player)
            payout_event(
                PROVIDER,
                CallbackEvent(
                    event_id=f"bank:payout:{p.pk}",
                    type="payout.failed",
                    reference=p.send_reference,
                    amount=p.paid,
                    currency="CZK",
                    payer=None,
                    occurred_at="",
                    reason="no account to pay it to",
                ),
                actor,
            )
            continue
        rows.append(
            PaymentOrder(
                batch=batch,
                kind=PaymentOrder.Kind.PAYOUT,
                payout=p,
                payout_attempt=p.attempt,
                player=p.player,
                amount=p.paid,
                creditor_name=(name or "N/A")[:70],
                creditor_iban=iban if methods.valid_iban(iban) else "",
                creditor_account="" if methods.valid_iban(iban) else (account or iban)[:34],
                remittance=remittance,
            )
        )
    returned_again = PaymentOrder.objects.filter(credit=OuterRef("pk"), credit_attempt=OuterRef("return_attempts"))
    for c in BankEntry.objects.filter(status=Status.RETURNING).exclude(Exists(returned_again)).order_by("pk"):
        iban = c.counterparty_iban if methods.valid_iban(c.counterparty_iban) else ""
        rows.append(
            PaymentOrder(
                batch=batch,
                kind=PaymentOrder.Kind.CREDIT_RETURN,
                credit=c,
                credit_attempt=c.return_attempts,
                amount=c.amount,
                creditor_name=(c.counterparty_name or "N/A")[:70],
                creditor_iban=iban,
                creditor_account="" if iban else c.counterparty_account[:34],
                remittance=f"Vraceni platby / payment returned {c.bank_reference}",
            )
        )
    return [r for r in rows if r.amount > 0]


def bank_payment_order_export(*, actor: Actor, execution_date: date | None = None) -> PaymentOrderBatch | None:
    """One pain.001.001.03 file with every bank withdrawal and payout accepted since the last file and every
    unmatched credit staff return; each goes into exactly one file (a second export does not include it again).
    None when there is nothing to pay. Exports run one at a time (an advisory lock)."""
    iban, bic = adapters.bank_account_iban(), adapters.bank_account_bic()
    name = str(settings.WALLET_BANK_ACCOUNT_NAME or "")
    if not name or not bic:
        raise errors.BANK_NOT_CONFIGURED(setting="WALLET_BANK_ACCOUNT_NAME" if not name else "WALLET_BANK_BIC")
    now = clock.now()
    with transaction.atomic():
        advisory_lock("wallet.bank_export")
        batch = PaymentOrderBatch.objects.create(
            message_id=f"pending-{now.timestamp():.6f}",
            schema=iso20022.PAIN001,
            created_at=now,
            created_by=f"{actor.type}:{actor.label or actor.id}"[:160],
            execution_date=execution_date or clock.business_date(),
            count=0,
            control_sum=0,
            xml="",
            sha256="",
        )
        rows = _order_rows(batch, actor)
        if not rows:
            batch.delete()  # (a payout with no account to pay it to was failed above: that stays)
            return None
        for row in rows:
            if row.creditor_iban.startswith("CZ"):
                row.creditor_bic = methods.bic_for_bank_code(row.creditor_iban[4:8])
            row.save()
            row.end_to_end_id = str(row.pk)
            row.save(update_fields=["end_to_end_id"])
        batch.message_id = f"PO{clock.business_date():%Y%m%d}-{batch.pk}"
        transfers = [
            iso20022.CreditTransfer(
                end_to_end_id=str(r.end_to_end_id),
                amount=r.amount,
                creditor_name=r.creditor_name,
                creditor_iban=r.creditor_iban,
                creditor_account=r.creditor_account,
                creditor_bic=r.creditor_bic,
                remittance=r.remittance,
            )
            for r in rows
        ]
        xml = iso20022.payment_order_xml(
            message_id=batch.message_id,
            created_at=clock.local(now),
            execution_date=batch.execution_date,
            debtor_name=name,
            debtor_iban=iban,
            debtor_bic=bic,
            transfers=transfers,
        )
        iso20022.payment_order_validate(xml)
        batch.xml, batch.sha256 = xml.decode(), hashlib.sha256(xml).hexdigest()
        batch.count, batch.control_sum = len(rows), sum(r.amount for r in rows)
        batch.save()
        audit_record(
            actor=actor,
            action="wallet.payment_orders_exported",
            obj=batch,
            count=batch.count,
            control_sum=Money(batch.control_sum),
            message_id=batch.message_id,
            orders=[r.end_to_end_id for r in rows],
        )
        return batch
