"""Celery tasks: thin wrappers around services. Sweepers claim due rows (skip locked), one transaction each,
safe to run twice or on two workers. Services enqueue these with ``task.delay_on_commit(...)``."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Q

from core import clock
from core.audit import Actor
from core.tasks import platform_task
from wallet import rules, services
from wallet.models import Debt, Deposit, Payout, Wallet, WinHold, Withdrawal
from wallet.services.callbacks import sandbox_callback_deliver


@platform_task(name="wallet.sandbox_deliver_callback", time_limit=60, soft_time_limit=50)
def sandbox_deliver_callback(body_text: str, signature: str) -> dict[str, Any]:
    """The sandbox provider sends its signed callback (HTTP or in-process, ``sandbox_callback_deliver``)."""
    return sandbox_callback_deliver(body_text=body_text, signature=signature)


@platform_task(name="wallet.withdrawal_send", time_limit=120, soft_time_limit=100)
def withdrawal_send(withdrawal_id: int) -> str:
    return services.withdrawal_dispatch(withdrawal_id=withdrawal_id, actor=Actor.system("wallet.withdrawal_send"))


@platform_task(name="wallet.payout_send", time_limit=120, soft_time_limit=100)
def payout_send(payout_id: int) -> str:
    return services.payout_dispatch(payout_id=payout_id, actor=Actor.system("wallet.payout_send"))


@platform_task(name="wallet.bank_statement_process", time_limit=3600, soft_time_limit=3500)
def bank_statement_process_task(statement_id: int) -> dict[str, Any]:
    """Handle the entries of an uploaded bank statement (each once; safe to run twice)."""
    return services.bank_statement_process(statement_id=statement_id, actor=Actor.system("wallet.bank_statement"))


def sweep(limit: int = 500) -> dict[str, int]:
    """Every due wallet deadline, each row in its own transaction (also ``manage.py wallet_sweep``)."""
    now = clock.now()
    actor = Actor.system("wallet.sweep")
    stale = now - timedelta(minutes=settings.WALLET_SEND_RETRY_MINUTES)
    out: dict[str, int] = {}

    def count(key: str, result: str) -> None:
        if result != "skipped":
            out[f"{key}.{result}"] = out.get(f"{key}.{result}", 0) + 1

    for pk in Deposit.objects.filter(status=Deposit.Status.INITIATED, expires_at__lte=now).values_list("pk", flat=True)[
        :limit
    ]:
        count("deposit", services.deposit_expire_one(deposit_id=pk, actor=actor))
    for pk in Withdrawal.objects.filter(
        Q(status=Withdrawal.Status.APPROVED) | Q(status=Withdrawal.Status.SENDING, sending_since__lte=stale)
    ).values_list("pk", flat=True)[:limit]:
        count("withdrawal", services.withdrawal_dispatch(withdrawal_id=pk, actor=actor))
    for pk in Payout.objects.filter(
        Q(status=Payout.Status.PENDING) | Q(status=Payout.Status.SENDING, sending_since__lte=stale)
    ).values_list("pk", flat=True)[:limit]:
        count("payout", services.payout_dispatch(payout_id=pk, actor=actor))
    for pk in Payout.objects.filter(status=Payout.Status.INVITED, collect_by__lte=now).values_list("pk", flat=True)[
        :limit
    ]:
        count("payout", services.payout_post_one(payout_id=pk, actor=actor))
    for pk in WinHold.objects.filter(status=WinHold.Status.HELD, release_due_at__lte=now).values_list("pk", flat=True)[
        :limit
    ]:
        count("win_hold", services.win_hold_sweep_one(hold_id=pk, actor=actor))
    for pk in Debt.objects.filter(status=Debt.Status.OPEN, due_at__lte=now).values_list("pk", flat=True)[:limit]:
        count("debt", services.debt_sweep_one(debt_id=pk, actor=actor))
    term_start = now - timedelta(days=rules.NEW_METHOD_DAYS)  # GP §5(11): 30 days to register another method
    for pk in Wallet.objects.filter(
        mode=Wallet.Mode.FULL, method_missing_since__lte=term_start, method_term_flagged_at__isnull=True
    ).values_list("pk", flat=True)[:limit]:
        count("method_term", services.method_term_sweep_one(wallet_id=pk, actor=actor))
    return out


@platform_task(name="wallet.sweep", time_limit=600, soft_time_limit=540)
def wallet_sweep() -> dict[str, int]:
    return sweep()


# The jobs the services ask for (wallet/jobs.py), registered by WalletConfig.ready: each enqueues its task after the
# current transaction commits.


def payout_send_on_commit(payout_id: int) -> None:
    payout_send.delay_on_commit(payout_id)


def withdrawal_send_on_commit(withdrawal_id: int) -> None:
    withdrawal_send.delay_on_commit(withdrawal_id)


def sandbox_callback_send_on_commit(body_text: str, signature: str) -> None:
    sandbox_deliver_callback.delay_on_commit(body_text, signature)


def bank_statement_process_on_commit(statement_id: int) -> None:
    bank_statement_process_task.delay_on_commit(statement_id)
