"""Exclusions: the panic button and self-listing (2024 amendment), and the scheduled register checks.

The register of excluded persons itself is accounts' (``accounts.adapters.get_exclusion_register``,
``accounts.services.exclusion_check``); limits asks it on a schedule and passes self-listing requests and
panic-button presses (an outbox, :class:`limits.models.PanicReport`) on.
"""

from __future__ import annotations

import logging
import uuid
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import F, Q

from accounts.adapters import get_exclusion_register, uses_aisg
from accounts.aisg.types import AisgError
from accounts.models import Player
from accounts.selectors import identity_for, person_key
from accounts.services import exclusion_check, player_force_logout, recheck_collect_due, recheck_submit
from core import clock
from core.audit import Actor, audit_record
from limits import errors, sql
from limits.models import ExclusionSweep, ExclusionWatch, PanicExclusion, PanicReport, SelfListingRequest
from limits.rules import PANIC_DURATION, PANIC_REPORT_CLAIM, add_years, panic_report_retry_delay
from limits.selectors import active_session_player_ids, person_player_ids

logger = logging.getLogger("platform.limits")

SESSION_RECHECK = timedelta(minutes=9)  # run every 5 minutes -> each logged-in player checked 10 (<= 15) min apart
DAILY_RECHECK = timedelta(hours=23)
CLAIM_FOR = timedelta(minutes=5)
ACTIVE_STATUSES = ("temporary", "active")


# ---------------------------------------------------------------------------------------
# Panic button and self-listing (2024 amendment)
# ---------------------------------------------------------------------------------------
def panic_press(*, player: Player, actor: Actor, now: datetime | None = None) -> PanicExclusion:
    """Exclude the person from all gambling for 48 hours from now (again and again: each press starts a new
    48 hours; 2024 amendment).

    Stakes and logins are refused at once on every account of the person (``person_key``; a new account opened
    during the 48 hours too, see ``limits.selectors.active_panic``) and each of them is logged out. The press is
    queued for the register of excluded persons (:class:`PanicReport`, due at once): the caller enqueues
    :func:`panic_report_send` after commit (``limits.tasks.panic_report_send_task``), and the
    ``limits.panic_reports_send_due`` sweeper (every minute) retries until the register acknowledges it."""
    now = now or clock.now()
    key = person_key(player)
    with transaction.atomic():
        panic = PanicExclusion.objects.create(
            player=player, person_key=key, started_at=now, ends_at=now + PANIC_DURATION
        )
        report = PanicReport.objects.create(
            panic=panic, reference=f"panic-{uuid.uuid4().hex}", created_at=now, next_attempt_at=now
        )
        accounts = person_player_ids(player)
        audit_record(
            actor=actor,
            action="limits.panic_button",
            obj=panic,
            new={"ends_at": panic.ends_at},
            player_id=player.pk,
            report=report.reference,
            accounts=accounts,
        )
        for account in Player.objects.filter(pk__in=accounts).order_by("pk"):
            player_force_logout(player=account, reason="panic_button", actor=actor)
    return panic


def _panic_report_claim(*, now: datetime, report_id: int | None, force: bool) -> PanicReport | None:
    """Claim one pending report that is due (the oldest due one, or ``report_id``): locked with
    ``SELECT ... FOR UPDATE SKIP LOCKED`` (a report another worker is claiming is skipped, never waited for), its
    attempt counted and its next attempt pushed on by the claim time, in one short transaction. The register is
    called after this commits, with no transaction open."""
    with transaction.atomic():
        qs = (
            PanicReport.objects.select_for_update(no_key=True, skip_locked=True, of=("self",))
            .select_related("panic__player")
            .filter(status=PanicReport.Status.PENDING)
        )
        if report_id is not None:
            qs = qs.filter(pk=report_id)
        if not force:
            qs = qs.filter(next_attempt_at__lte=now)
        report = qs.order_by("next_attempt_at", "id").first()
        if report is None:
            return None
        report.attempts += 1
        report.last_attempt_at = now
        report.next_attempt_at = now + PANIC_REPORT_CLAIM
        report.save(update_fields=["attempts", "last_attempt_at", "next_attempt_at"])
    return report


def _panic_report_deliver(report: PanicReport, *, now: datetime, actor: Actor) -> PanicReport:
    """Call the register for a claimed report; record the acknowledgement, or the failure and the next attempt
    (exponential backoff, ``limits.rules.panic_report_retry_delay``)."""
    panic = report.panic
    try:
        ack = get_exclusion_register().report_panic(
            identity_for(panic.player), reference=report.reference, started_at=panic.started_at, ends_at=panic.ends_at
        )
    except Exception as exc:  # noqa: BLE001 - any failure (register down, no personal data ...) is recorded and retried
        error = f"{exc.__class__.__name__}: {exc}"[:300]
        PanicReport.objects.filter(pk=report.pk, status=PanicReport.Status.PENDING).update(
            last_error=error, next_attempt_at=now + panic_report_retry_delay(report.attempts)
        )
        logger.warning("panic report %s not acknowledged (attempt %s): %s", report.reference, report.attempts, error)
        report.refresh_from_db()
        return report
    with transaction.atomic():
        # A report delivered twice (a claim that outlived a slow call) is acknowledged once: the first answer wins.
        done = PanicReport.objects.filter(pk=report.pk, status=PanicReport.Status.PENDING).update(
            status=PanicReport.Status.ACKNOWLEDGED,
            acknowledged_at=now,
            register_reference=ack,
            next_attempt_at=None,
            last_error="",
        )
        report.refresh_from_db()
        if done:
            audit_record(
                actor=actor,
                action="limits.panic_reported",
                obj=report,
                player_id=panic.player_id,
                new={"register_reference": ack, "listed_until": panic.ends_at},
                attempts=report.attempts,
            )
    return report


def panic_report_send(
    *, report_id: int, now: datetime | None = None, force: bool = False, actor: Actor | None = None
) -> PanicReport | None:
    """Report one panic press to the register of excluded persons (accounts adapter ``report_panic``) if it is
    pending and due (``force``: staff "send now", due or not). Returns the report after the attempt, or None when
    there was nothing to send (acknowledged already, not due, or being sent by another worker)."""
    now = now or clock.now()
    report = _panic_report_claim(now=now, report_id=report_id, force=force)
    if report is None:
        return None
    return _panic_report_deliver(report, now=now, actor=actor or Actor.system("limits.panic_report_send"))


def panic_reports_send_due(*, now: datetime | None = None, batch: int = 100) -> dict[str, int]:
    """Sweeper: report every pending panic press that is due (new ones, and failed ones whose retry delay is
    over), claiming one at a time so that several workers share the work and a slow register cannot make a
    claim outlive its call. Returns {"acknowledged": n, "failed": n}."""
    now = now or clock.now()
    actor = Actor.system("limits.panic_reports_send_due")
    acknowledged = failed = 0
    for _ in range(batch):
        report = _panic_report_claim(now=now, report_id=None, force=False)
        if report is None:
            break
        report = _panic_report_deliver(report, now=now, actor=actor)
        if report.status == PanicReport.Status.ACKNOWLEDGED:
            acknowledged += 1
        else:
            failed += 1
    return {"acknowledged": acknowledged, "failed": failed}


def self_listing_request(
    *, player: Player, actor: Actor, years: int = 1, now: datetime | None = None
) -> SelfListingRequest:
    """The player asks to be listed in the register of excluded persons for ``years`` (at least 1 year before
    removal). Refused at once from now (stakes and logins) and logged out.

    The request is due at once (``next_attempt_at`` = now): :func:`self_listing_send` passes it to the
    register. The API enqueues that after commit (``limits.tasks.self_listing_send_task``); the
    ``limits.self_listing_send_due`` sweeper (every 5 minutes) sends whatever is still due and retries failures.
    """
    now = now or clock.now()
    if isinstance(years, bool) or not isinstance(years, int) or years < 1:
        raise errors.SELF_LISTING_TOO_SHORT(minimum_years=1, years=years)
    with transaction.atomic():
        req = SelfListingRequest.objects.create(
            player=player, requested_at=now, listed_until=add_years(now, years), next_attempt_at=now
        )
        audit_record(
            actor=actor,
            action="limits.self_listing_requested",
            obj=req,
            new={"listed_until": req.listed_until},
            player_id=player.pk,
        )
        player_force_logout(player=player, reason="self_listing", actor=actor)
    return req


def self_listing_send(
    *, request_id: int, now: datetime | None = None, force: bool = False, actor: Actor | None = None
) -> SelfListingRequest | None:
    """Pass one request to the register (accounts adapter). Claimed by a guarded update, the network call is
    made with no transaction open; a failure is recorded and retried later with a growing delay.
    ``force`` (staff "send now") ignores the retry delay. None when the request was not due (or not pending)."""
    now = now or clock.now()
    actor = actor or Actor.system("limits.self_listing_send")
    qs = SelfListingRequest.objects.filter(pk=request_id, status=SelfListingRequest.Status.PENDING)
    if not force:
        qs = qs.filter(next_attempt_at__lte=now)
    claimed = qs.update(next_attempt_at=now + timedelta(minutes=5), attempts=F("attempts") + 1)
    if not claimed:
        return None
    req = SelfListingRequest.objects.select_related("player").get(pk=request_id)
    try:
        get_exclusion_register().request_self_listing(identity_for(req.player), req.listed_until)
    except Exception as exc:  # noqa: BLE001 - any failure is recorded and retried with a growing delay
        delay = timedelta(minutes=min(60, 2 ** min(req.attempts, 6)))
        SelfListingRequest.objects.filter(pk=req.pk).update(
            last_error=f"{exc.__class__.__name__}: {exc}"[:300], next_attempt_at=now + delay
        )
        logger.warning("self-listing request %s not sent: %s", req.pk, exc)
        req.refresh_from_db()
        return req
    with transaction.atomic():
        SelfListingRequest.objects.filter(pk=req.pk).update(
            status=SelfListingRequest.Status.SENT, sent_at=now, next_attempt_at=None, last_error=""
        )
        req.refresh_from_db()
        audit_record(
            actor=actor,
            action="limits.self_listing_sent",
            obj=req,
            new={"listed_until": req.listed_until},
            attempts=req.attempts,
        )
    return req


def self_listing_send_due(*, now: datetime | None = None, batch: int = 100) -> int:
    """Sweeper: send every pending self-listing request that is due (new ones, and failed ones whose retry
    delay is over). Returns how many the register took."""
    now = now or clock.now()
    ids = list(
        SelfListingRequest.objects.filter(status=SelfListingRequest.Status.PENDING, next_attempt_at__lte=now)
        .order_by("next_attempt_at")
        .values_list("pk", flat=True)[:batch]
    )
    sent = 0
    for pk in ids:
        req = self_listing_send(request_id=pk, now=now)
        if req is not None and req.status == SelfListingRequest.Status.SENT:
            sent += 1
    return sent


# ---------------------------------------------------------------------------------------
# Scheduled exclusion checks
# ---------------------------------------------------------------------------------------
def _due_for_check(context: str, now: datetime, limit: int) -> tuple[list[int], datetime]:
    """(up to ``limit`` player ids due for a register check in this context, oldest check first; the recheck
    threshold)."""
    if context == "session":
        candidates = active_session_player_ids()
        threshold = now - SESSION_RECHECK
        ExclusionWatch.objects.bulk_create([ExclusionWatch(player_id=pk) for pk in candidates], ignore_conflicts=True)
        watched = ExclusionWatch.objects.filter(player_id__in=candidates)
    elif context == "daily":
        threshold = now - DAILY_RECHECK
        sql.watch_all(list(ACTIVE_STATUSES))  # a watch row for every active player who has none yet
        watched = ExclusionWatch.objects.filter(player__status__in=ACTIVE_STATUSES)
    else:
        raise ValueError(f"unknown context {context!r}")
    due = list(
        watched.filter(Q(last_checked_at__isnull=True) | Q(last_checked_at__lte=threshold))
        .order_by(F("last_checked_at").asc(nulls_first=True))
        .values_list("player_id", flat=True)[:limit]
    )
    return due, threshold


def exclusion_sweep(*, context: str, now: datetime | None = None, limit: int = 5000) -> ExclusionSweep:
    """Check players in the register of excluded persons through ``accounts.services.exclusion_check`` (which
    records each result and logs a listed player out).

    ``context="session"``: every player with an active login session not checked in the last 9 minutes (the
    task runs every 5 minutes, so a logged-in player is checked every 10 minutes, never 15 apart).
    ``context="daily"``: every temporary or active player not checked in the last 23 hours (``limit`` a run;
    the task runs hourly). Players are claimed by a guarded
    update (``claimed_until``), so two workers never check one player twice; no transaction is held open
    during the call to the register."""
    now = now or clock.now()
    sweep = ExclusionSweep.objects.create(context=context, started_at=now)
    due, threshold = _due_for_check(context, now, limit)
    if uses_aisg():
        return _aisg_sweep(sweep, context=context, due=due, threshold=threshold, now=now)
    actor = Actor.system(f"limits.exclusion_sweep_{context}")
    checked = listed = failed = 0
    note = ""
    for pid in due:
        claimed = (
            ExclusionWatch.objects.filter(player_id=pid)
            .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
            .filter(Q(last_checked_at__isnull=True) | Q(last_checked_at__lte=threshold))
            .update(claimed_until=now + CLAIM_FOR)
        )
        if not claimed:
            continue
        player = Player.objects.get(pk=pid)
        try:
            result = exclusion_check(player=player, actor=actor, context=f"periodic_{context}")
        except Exception as exc:  # noqa: BLE001 - register down or any other failure: recorded, retried next run
            failed += 1
            note = f"{exc.__class__.__name__}: {exc}"[:300]
            ExclusionWatch.objects.filter(player_id=pid).update(
                claimed_until=None, failures=F("failures") + 1, last_error=note
            )
            continue
        checked += 1
        listed += int(result)
        ExclusionWatch.objects.filter(player_id=pid).update(
            last_checked_at=now, last_listed=result, last_context=context, last_error="", failures=0, claimed_until=None
        )
    ExclusionSweep.objects.filter(pk=sweep.pk).update(
        finished_at=clock.now(), checked=checked, listed=listed, failed=failed, note=note
    )
    sweep.refresh_from_db()
    return sweep


# With the Ministry's AISG interface the sweep submits batches (OveritOsobyHromadne) and a job collects them.
AISG_CLAIM_FOR = timedelta(minutes=60)  # a submitted player waits for the batch's results, not checked twice


def _aisg_sweep(
    sweep: ExclusionSweep, *, context: str, due: list[int], threshold: datetime, now: datetime
) -> ExclusionSweep:
    """Claim the due players and submit them by batch (``accounts.services.recheck_submit``); the results come with
    :func:`exclusion_batches_collect`. ``checked`` counts the players submitted."""
    claimed = list(
        ExclusionWatch.objects.filter(player_id__in=due)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .filter(Q(last_checked_at__isnull=True) | Q(last_checked_at__lte=threshold))
        .values_list("player_id", flat=True)
    )
    ExclusionWatch.objects.filter(player_id__in=claimed).update(claimed_until=now + AISG_CLAIM_FOR)
    submitted, failed, note = 0, 0, ""
    try:
        batches = recheck_submit(sorted(claimed), context=context, now=now)
        submitted = sum(len(b.player_ids) for b in batches)
    except AisgError as exc:  # recorded for the staff by accounts; the players are due again at the next run
        note = f"{exc.__class__.__name__}: {exc}"[:300]
        failed = len(claimed)
        ExclusionWatch.objects.filter(player_id__in=claimed).update(
            claimed_until=None, last_error=note, failures=F("failures") + 1
        )
    ExclusionSweep.objects.filter(pk=sweep.pk).update(
        finished_at=clock.now(), checked=submitted, failed=failed, note=note or f"submitted by batch: {submitted}"
    )
    sweep.refresh_from_db()
    return sweep


def exclusion_batches_collect(*, now: datetime | None = None) -> dict[str, int]:
    """Collect the results of the submitted AISG batches that are due (``accounts.services.recheck_collect_due``,
    which applies them: a listed player flagged and logged out) and note them on the watch rows."""
    now = now or clock.now()
    out = recheck_collect_due(now=now)
    if out.listed:
        ExclusionWatch.objects.filter(player_id__in=out.listed).update(
            last_checked_at=now, last_listed=True, last_error="", failures=0, claimed_until=None
        )
    if out.confirmed:
        ExclusionWatch.objects.filter(player_id__in=out.confirmed).update(
            last_checked_at=now, last_listed=False, last_error="", failures=0, claimed_until=None
        )
    for reason in set(out.failed.values()):
        ExclusionWatch.objects.filter(player_id__in=[p for p, r in out.failed.items() if r == reason]).update(
            last_error=reason[:300], failures=F("failures") + 1, claimed_until=None
        )
    if out.expired:
        ExclusionWatch.objects.filter(player_id__in=out.expired).update(claimed_until=None)
    return {
        "batches": out.batches,
        "listed": len(out.listed),
        "confirmed": len(out.confirmed),
        "failed": len(out.failed),
        "expired": len(out.expired),
    }
