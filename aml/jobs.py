"""The background jobs the AML services ask for, as typed hooks (core/hooks.py).

The tasks call the services (``aml/tasks.py``), so a service never imports the tasks: it calls a job declared here,
and ``AmlConfig.ready`` registers each job as its task enqueued after the current transaction commits
(``task.delay_on_commit``, the ``*_on_commit`` functions of ``aml/tasks.py``). A job not registered stops the start
(system check ``aml.E010``); calling it raises ``core.hooks.HookMissing``, it never skips the work.
"""

from __future__ import annotations

from core.hooks import Hooks

JOBS = Hooks("aml.jobs", check_id="aml.E010")


@JOBS.declare
def identification_submit(check_id: int) -> None:
    """aml.tasks: submit the identification check to its provider once the current transaction commits."""


@JOBS.declare
def sandbox_callback_send(body_text: str, signature: str) -> None:
    """aml.tasks: deliver the sandbox identification provider's signed callback once the transaction commits."""


@JOBS.declare
def screening_rescreen() -> None:
    """aml.tasks: screen every live player again (a list version imported or withdrawn) once the transaction
    commits."""


@JOBS.declare
def screening_player(player_id: int, trigger: str) -> None:
    """aml.tasks: screen the player once the current transaction commits."""
