"""Celery tasks of the aml app: thin wrappers around services (services enqueue them with ``delay_on_commit``)."""

from __future__ import annotations

from typing import Any

from django.db import DatabaseError

from accounts.models import Player
from aml import services
from core.audit import Actor
from core.tasks import platform_task


@platform_task(name="aml.identification_submit", time_limit=120, soft_time_limit=100)
def identification_submit(check_id: int) -> str:
    """Submit one identification check to its provider (failures are retried by ``aml.identification_sweep``)."""
    return services.identification_submit_one(check_id=check_id, actor=Actor.system("aml.identification_submit"))


@platform_task(
    name="aml.sandbox_deliver_callback",
    autoretry_for=(OSError, DatabaseError),
    retry_backoff=30,
    max_retries=5,
    time_limit=60,
    soft_time_limit=50,
)
def sandbox_deliver_callback(body_text: str, signature: str) -> dict[str, Any]:
    """The sandbox identification provider delivers its signed answer; like a real provider it tries again later
    when the delivery fails (network or database); a refusal of the answer itself (bad signature) is final."""
    return services.sandbox_callback_deliver(body_text=body_text, signature=signature)


@platform_task(name="aml.identification_sweep", time_limit=600, soft_time_limit=540)
def identification_sweep() -> dict[str, int]:
    """Pending identification checks whose (re)submission is due."""
    return services.identification_submit_due()


@platform_task(name="aml.screening_periodic", time_limit=1800, soft_time_limit=1700)
def screening_periodic() -> dict[str, Any]:
    """Screen every player whose screening is due (interval, list version change, retry)."""
    return services.screening_due()


@platform_task(name="aml.risk_review", time_limit=1800, soft_time_limit=1700)
def risk_review() -> dict[str, Any]:
    """The client risk rating (AML Act §9, §21a): unrated players and ratings due for their periodic review."""
    return services.risk_review_due()


@platform_task(name="aml.screening_rescreen", time_limit=900, soft_time_limit=840)
def screening_rescreen() -> dict[str, Any]:
    """Re-screen every live player after a new list version was imported (enqueued after the import commits):
    batches claimed with a lease for at most ``AML_SCREENING_RESCREEN_SECONDS``, then the task enqueues itself
    again while players are left (the periodic job would catch up too)."""
    out = services.screening_rescreen()
    if out["more"]:
        screening_rescreen.delay()
    return out


@platform_task(name="aml.screening_player", time_limit=120, soft_time_limit=100)
def screening_player(player_id: int, trigger: str = "registration") -> str:
    """Screen one player now (e.g. right after registration, enqueued after commit)."""
    run = services.screening_run(
        player=Player.objects.get(pk=player_id), actor=Actor.system("aml.screening"), trigger=trigger
    )
    return run.result


@platform_task(name="aml.rules_evaluate", time_limit=900, soft_time_limit=840)
def rules_evaluate() -> dict[str, Any]:
    """Suspicious-transaction rules over the recent activity; each hit opens a case (idempotent)."""
    return services.rules_evaluate()


@platform_task(name="aml.source_of_funds_scan", time_limit=900, soft_time_limit=840)
def source_of_funds_scan() -> dict[str, int]:
    """Record the source-of-funds requirement of every player whose deposits reached the threshold."""
    return services.sof_requirements_scan()


# The jobs the services ask for (aml/jobs.py), registered by AmlConfig.ready: each enqueues its task after the
# current transaction commits.


def identification_submit_on_commit(check_id: int) -> None:
    identification_submit.delay_on_commit(check_id)


def sandbox_callback_send_on_commit(body_text: str, signature: str) -> None:
    sandbox_deliver_callback.delay_on_commit(body_text, signature)


def screening_rescreen_on_commit() -> None:
    screening_rescreen.delay_on_commit()


def screening_player_on_commit(player_id: int, trigger: str) -> None:
    screening_player.delay_on_commit(player_id, trigger)
