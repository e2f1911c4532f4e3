"""The background jobs the wallet's services ask for, as typed hooks (core/hooks.py).

The tasks call the services (``wallet/tasks.py``), so a service never imports the tasks: it calls a job declared
here, and ``WalletConfig.ready`` registers each job as its task enqueued after the current transaction commits
(``task.delay_on_commit``, the ``*_on_commit`` functions of ``wallet/tasks.py``). A job not registered stops the
start (system check ``wallet.E010``); calling it raises ``core.hooks.HookMissing``, it never skips the work.
"""

from __future__ import annotations

from core.hooks import Hooks

JOBS = Hooks("wallet.jobs", check_id="wallet.E010")


@JOBS.declare
def payout_send(payout_id: int) -> None:
    """wallet.tasks: send the payout to its provider once the current transaction commits."""


@JOBS.declare
def withdrawal_send(withdrawal_id: int) -> None:
    """wallet.tasks: send the withdrawal to its provider once the current transaction commits."""


@JOBS.declare
def sandbox_callback_send(body_text: str, signature: str) -> None:
    """wallet.tasks: deliver the sandbox provider's signed callback once the current transaction commits."""


@JOBS.declare
def bank_statement_process(statement_id: int) -> None:
    """wallet.tasks: process the stored bank statement once the current transaction commits."""
