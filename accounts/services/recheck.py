"""The periodic re-check through the AISG interface by batch: ``OveritOsobyHromadne`` (up to
``ACCOUNTS_AISG_BATCH_SIZE`` <= 1,000 persons a batch, the row key is the player's id) and the collection of the
results by ``ZiskatVysledkyOveritOsobyHromadne`` (a job, ``limits.exclusion_batches_collect``).

Each result goes through the decision table (``accounts.aisg.client.decide``): a listed person is flagged and logged
out (``exclusion_record``), a confirmed one gets a fresh ``exclusion_checked_at``; a person the population register
no longer identifies, not adult, or without a usable answer gets a staff case and no fresh check (the age of the last
check then stops the play: ``ACCOUNTS_EXCLUSION_MAX_AGE_HOURS``). A batch still ``Prijata`` is asked again after a
growing delay; ``Ukoncena`` (the pick-up period over) returns its players to the next sweep."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction

from accounts.adapters import Identity
from accounts.aisg import client as aisg
from accounts.aisg import types as t
from accounts.models import AisgBatch, PersonalData, Player, RegisterCheck, RegisterReview
from accounts.services import registers
from accounts.services.sessions import exclusion_record
from core import clock
from core.audit import Actor

logger = logging.getLogger("accounts.recheck")
POLL_FIRST = timedelta(minutes=1)
POLL_MAX = timedelta(minutes=30)


@dataclass
class Collected:
    """What a collection did, by player id: listed, confirmed (not listed), failed (no fresh check)."""

    listed: list[int] = field(default_factory=list)
    confirmed: list[int] = field(default_factory=list)
    failed: dict[int, str] = field(default_factory=dict)
    expired: list[int] = field(default_factory=list)
    batches: int = 0


def recheck_submit(player_ids: list[int], *, context: str, now: datetime | None = None) -> list[AisgBatch]:
    """Submit the players in batches. Raises ``accounts.aisg.types.AisgError`` when the interface takes none (after
    an outage case for the staff); batches already taken stay submitted."""
    now = now or clock.now()
    size = settings.ACCOUNTS_AISG_BATCH_SIZE
    rows = {pd.player_id: pd for pd in PersonalData.objects.filter(player_id__in=player_ids)}
    persons = [(str(pid), aisg.person_of(Identity.from_personal(rows[pid]))) for pid in player_ids if pid in rows]
    out: list[AisgBatch] = []
    for start in range(0, len(persons), size):
        chunk = persons[start : start + size]
        try:
            batch_id = aisg.submit_batch(chunk)
        except t.AisgError as exc:
            registers.review_open(
                kind=RegisterReview.Kind.OUTAGE, player=None, context=f"periodic_{context}", reason=str(exc)
            )
            raise
        out.append(
            AisgBatch.objects.create(
                batch_id=batch_id,
                context=context,
                player_ids=[int(k) for k, _ in chunk],
                submitted_at=now,
                next_poll_at=now + POLL_FIRST,
            )
        )
    return out


def _apply(batch: AisgBatch, result: t.BatchResult, out: Collected, now: datetime) -> None:
    actor = Actor.system(f"accounts.aisg_recheck_{batch.context}")
    context = f"periodic_{batch.context}"
    players = {p.pk: p for p in Player.objects.filter(pk__in=batch.player_ids)}
    checks: list[RegisterCheck] = []
    confirmed_unchanged: list[int] = []
    for pid in batch.player_ids:
        answer = result.results.get(str(pid))
        player = players.get(pid)
        if player is None:
            continue
        if answer is None:
            out.failed[pid] = "no result in the batch"
            registers.review_open(
                kind=RegisterReview.Kind.OUTAGE,
                player=pid,
                context=context,
                reason="no result for the player in the batch",
            )
            continue
        decision = aisg.decide(answer)
        registers.hid_store(pid, answer.hid)
        if decision.outcome == aisg.EXCLUDED or (decision.outcome == aisg.OK and player.exclusion_listed):
            listed = decision.outcome == aisg.EXCLUDED
            exclusion_record(
                player=player, listed=listed, actor=actor, context=context, records=registers.records_of(answer)
            )
            (out.listed if listed else out.confirmed).append(pid)
            continue
        checks += [
            RegisterCheck(player_id=pid, context=context, checked_at=now, **r) for r in registers.records_of(answer)
        ]
        if decision.outcome == aisg.OK:
            confirmed_unchanged.append(pid)
            out.confirmed.append(pid)
        else:
            out.failed[pid] = decision.reason
            registers.outcome_review(decision, player=pid, context=context, details=registers.answer_details(answer))
    with transaction.atomic():
        RegisterCheck.objects.bulk_create(checks, batch_size=2000)
        Player.objects.filter(pk__in=confirmed_unchanged, exclusion_listed=False).update(exclusion_checked_at=now)


def recheck_collect_due(*, now: datetime | None = None, limit: int = 50) -> Collected:
    """Ask for the results of every submitted batch that is due; apply those processed."""
    now = now or clock.now()
    out = Collected()
    due = list(
        AisgBatch.objects.filter(state=AisgBatch.State.SUBMITTED, next_poll_at__lte=now).order_by("next_poll_at")[
            :limit
        ]
    )
    for batch in due:
        claimed = AisgBatch.objects.filter(
            pk=batch.pk, state=AisgBatch.State.SUBMITTED, next_poll_at=batch.next_poll_at
        ).update(next_poll_at=now + POLL_MAX)  # claimed: another worker skips it meanwhile
        if not claimed:
            continue
        try:
            result = aisg.batch_results(str(batch.batch_id))
        except t.AisgError as exc:
            registers.review_open(
                kind=RegisterReview.Kind.OUTAGE, player=None, context=f"periodic_{batch.context}", reason=str(exc)
            )
            AisgBatch.objects.filter(pk=batch.pk).update(
                polls=batch.polls + 1, last_error=str(exc)[:300], next_poll_at=now + _poll_delay(batch.polls + 1)
            )
            continue
        if result.state == t.BATCH_ACCEPTED:
            AisgBatch.objects.filter(pk=batch.pk).update(
                polls=batch.polls + 1, last_error="", next_poll_at=now + _poll_delay(batch.polls + 1)
            )
            continue
        if result.state == t.BATCH_EXPIRED:
            out.expired += list(batch.player_ids)
            AisgBatch.objects.filter(pk=batch.pk).update(
                state=AisgBatch.State.EXPIRED, collected_at=now, polls=batch.polls + 1
            )
            registers.review_open(
                kind=RegisterReview.Kind.OUTAGE,
                player=None,
                context=f"periodic_{batch.context}",
                reason=f"batch {batch.batch_id} expired before its results were collected",
            )
            continue
        before = (len(out.listed), len(out.confirmed), len(out.failed))
        _apply(batch, result, out, now)
        summary = {
            "listed": len(out.listed) - before[0],
            "confirmed": len(out.confirmed) - before[1],
            "failed": len(out.failed) - before[2],
        }
        AisgBatch.objects.filter(pk=batch.pk).update(
            state=AisgBatch.State.COLLECTED, collected_at=now, polls=batch.polls + 1, summary=summary, last_error=""
        )
        out.batches += 1
        logger.info("AISG batch collected", extra={"batch": str(batch.batch_id), **summary})
    return out


def _poll_delay(polls: int) -> timedelta:
    return min(POLL_MAX, POLL_FIRST * 2 ** max(0, polls - 1))


CHANGE_RETRY = timedelta(minutes=15)


def aisg_changes_send_due(*, now: datetime | None = None, limit: int = 200) -> int:
    """``ZmenitUdajeOsoby`` for every person whose data AISG knows changed (``PersonalData.aisg_change_due_at``,
    set by ``personal_data_update``), under the stored HID. A failure is an outage case for the staff and a retry
    15 minutes later. Returns how many the interface took."""
    now = now or clock.now()
    sent = 0
    for pd in list(
        PersonalData.objects.filter(aisg_change_due_at__lte=now, aisg_hid__isnull=False).order_by("aisg_change_due_at")[
            :limit
        ]
    ):
        due = pd.aisg_change_due_at
        try:
            ministry_id = aisg.change(Identity.from_personal(pd), hid=str(pd.aisg_hid))
        except t.AisgError as exc:
            registers.review_open(
                kind=RegisterReview.Kind.OUTAGE, player=pd.player_id, context="personal_data", reason=str(exc)
            )
            PersonalData.objects.filter(pk=pd.pk, aisg_change_due_at=due).update(aisg_change_due_at=now + CHANGE_RETRY)
            continue
        # a change made while this one was sent keeps its own due time
        PersonalData.objects.filter(pk=pd.pk, aisg_change_due_at=due).update(aisg_change_due_at=None)
        logger.info("AISG ZmenitUdajeOsoby sent", extra={"player": pd.player_id, "ministry_id": ministry_id})
        sent += 1
    return sent
