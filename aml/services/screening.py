"""Politically exposed persons and sanctions (GP §12(1), §2: the AML law's due diligence).

The player declares whether they are a PEP (``pep_declare``); a "yes" opens a blocking compliance case (so does
another identification source's PEP claim, ``aml.services.lists.pep_claim_record``). The player is screened
against the list at registration (``screening_run``, called by accounts through a hook) and
periodically (``screening_due``: every ``AML_SCREENING_INTERVAL_HOURS``, at once when the list's version changes,
``AML_SCREENING_RETRY_MINUTES`` after a run the list did not answer). Each list entry a player matches opens one
blocking case (once per player and entry: a false positive cleared by staff is not reopened by the next run).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from accounts.models import PersonalData, Player
from accounts.selectors import identity_for
from aml import adapters, errors, jobs
from aml.models import AmlProfile, ComplianceCase, PepDeclaration, ScreeningRun
from aml.services.cases import case_open
from core import clock
from core.audit import Actor, audit_record

logger = logging.getLogger("aml.screening")

SCREENED_STATUSES = (Player.Status.TEMPORARY, Player.Status.ACTIVE, Player.Status.SUSPENDED, Player.Status.CLOSING)
Relation = PepDeclaration.Relation


def profile_ensure(player: Player) -> AmlProfile:
    """The player's AML profile row (created due for screening now)."""
    profile = AmlProfile.objects.filter(player=player).first()
    if profile is not None:
        return profile
    now = clock.now()
    try:
        with transaction.atomic():
            return AmlProfile.objects.create(player=player, created_at=now, next_screening_at=now)
    except IntegrityError:
        return AmlProfile.objects.get(player=player)


def pep_declare(*, player: Player, relation: str, position: str = "", actor: Actor) -> PepDeclaration:
    """The player's PEP declaration (the latest counts). ``relation``: ``none`` (not a PEP), ``self``, ``family``
    (a family member of a PEP) or ``associate`` (a close associate); any but ``none`` needs the ``position``
    (the public function) and opens a blocking compliance case. Audited."""
    if relation not in Relation.values:
        raise errors.PEP_DECLARATION_INVALID(reason="relation", allowed=Relation.values)
    position = (position or "").strip()
    is_pep = relation != Relation.NONE
    if is_pep and not position:
        raise errors.PEP_DECLARATION_INVALID(reason="position")
    if player.status in Player.TERMINAL:
        raise errors.IDENTIFICATION_NOT_ALLOWED(account_status=player.status)
    with transaction.atomic():
        decl = PepDeclaration.objects.create(
            player=player,
            is_pep=is_pep,
            relation=relation,
            position=position[:200] if is_pep else "",
            declared_at=clock.now(),
            declared_by=actor.label[:150],
        )
        audit_record(
            actor=actor,
            action="aml.pep_declared",
            obj=decl,
            player_id=player.pk,
            is_pep=is_pep,
            relation=relation,
            position=decl.position,
        )
        if is_pep:
            case_open(
                player_id=player.pk,
                kind=ComplianceCase.Kind.PEP_DECLARED,
                key=f"pep:{decl.pk}",
                summary=f"PEP declared ({relation}): {decl.position}",
                blocking=True,
                actor=actor,
                anchor=f"pep_declaration:{decl.pk}",
                details={"declaration_id": decl.pk, "relation": relation, "position": decl.position},
            )
        return decl


def screening_run(
    *, player: Player, actor: Actor, trigger: str = "registration", screening_list: adapters.ScreeningList | None = None
) -> ScreeningRun:
    """Screen the player against the PEP / sanctions list (the list is searched outside any transaction). A match
    opens a blocking case per list entry (and per content of the entry: :func:`_case_key`); a list that does not
    answer is recorded (``unavailable``) and retried by the periodic job. ``screening_list`` is the list to search
    (default ``adapters.get_screening_list()``; a batch passes one for all its players). Refuses a player without
    personal data (``aml.no_personal_data``)."""
    try:
        player.personal  # noqa: B018 - loads the personal data (or refuses); identity_for reads it
    except PersonalData.DoesNotExist:
        raise errors.NO_PERSONAL_DATA() from None
    identity = identity_for(player)
    subject = adapters.ScreeningSubject(
        given_names=identity.given_names,
        surname=identity.surname,
        date_of_birth=identity.date_of_birth,
        citizenship=identity.citizenship,
    )
    code = settings.AML_SCREENING_LIST
    version, error = "", ""
    matches: list[adapters.ScreeningMatch] = []
    try:
        screening_list = screening_list or adapters.get_screening_list()
        version = screening_list.version()
        matches = screening_list.search(subject)
        result = ScreeningRun.Result.HIT if matches else ScreeningRun.Result.CLEAR
    except adapters.ListUnavailable as exc:
        result, error = ScreeningRun.Result.UNAVAILABLE, str(exc)[:255]
        logger.warning("screening list unavailable", extra={"player": player.pk, "error": error})
    with transaction.atomic():
        now = clock.now()
        profile = AmlProfile.objects.select_for_update(no_key=True).filter(player=player).first()
        if profile is None:
            profile_ensure(player)
            profile = AmlProfile.objects.select_for_update(no_key=True).get(player=player)
        run = ScreeningRun.objects.create(
            player=player,
            trigger=trigger[:20],
            ran_at=now,
            list_code=code,
            list_version=version,
            result=result,
            matches=[m.to_json() for m in matches],
            error=error,
        )
        profile.next_screening_at = now + (
            timedelta(minutes=settings.AML_SCREENING_RETRY_MINUTES)
            if result == ScreeningRun.Result.UNAVAILABLE
            else timedelta(hours=settings.AML_SCREENING_INTERVAL_HOURS)
        )
        if result != ScreeningRun.Result.UNAVAILABLE:
            profile.last_screened_at, profile.list_version = now, version
        profile.last_screening_result = result
        profile.claimed_until = None  # a job that claimed the row is done with it
        profile.save(
            update_fields=[
                "next_screening_at",
                "last_screened_at",
                "list_version",
                "last_screening_result",
                "claimed_until",
            ]
        )
        audit_record(
            actor=actor,
            action="aml.screened",
            obj=run,
            player_id=player.pk,
            trigger=trigger,
            result=result,
            list_version=version,
            matches=[m.entry_id for m in matches],
            error=error,
        )
        for m in matches:
            case_open(
                player_id=player.pk,
                kind=ComplianceCase.Kind.SCREENING_HIT,
                key=_case_key(player, code, m),
                summary=_case_summary(m),
                blocking=True,
                actor=actor,
                anchor=f"screening_run:{run.pk}",
                details={"match": m.to_json(), "run_id": run.pk},
            )
        return run


def _case_key(player: Player, code: str, m: adapters.ScreeningMatch) -> str:
    """One case per player and list entry: a false positive cleared by staff is not reopened by the next run nor
    by the next version of the list; an entry whose names or birth dates changed (another fingerprint) is a new
    match and opens a new case."""
    key = f"screening:{player.pk}:{code}:{m.entry_id}"
    return f"{key}:{m.fingerprint[:16]}" if m.fingerprint else key


def _case_summary(m: adapters.ScreeningMatch) -> str:
    where = " ".join(p for p in (m.source.upper(), m.reference, f"({m.programme})" if m.programme else "") if p)
    return (
        f"{m.list_name} list match {where or m.entry_id}, score {m.score:g}: "
        f"{m.matched_name or m.name} ({m.date_of_birth or 'no birth date'})"
    )


def screening_request(*, player: Player, actor: Actor, trigger: str = "registration") -> None:
    """Screen the player as soon as the current transaction commits (the list may be a network call, never made
    inside a transaction): the hook accounts calls at registration. Until a screening answered, completion of the
    registration is refused (``aml.screening_pending``), so a lost task fails closed; the periodic job catches up."""
    profile_ensure(player)
    audit_record(actor=actor, action="aml.screening_requested", obj=player, player_id=player.pk, trigger=trigger)
    jobs.screening_player(player.pk, trigger)


def _list_version() -> tuple[adapters.ScreeningList | None, str]:
    """The list (one instance for the whole batch: it answers for one version) and its version, or (None, "")."""
    try:
        screening_list = adapters.get_screening_list()
        return screening_list, screening_list.version()
    except adapters.ListUnavailable:
        return None, ""


def screening_due(*, now: datetime | None = None, batch: int = 200) -> dict[str, Any]:
    """The periodic screening: players of live accounts (with personal data) without a profile get one (due
    now); every profile due (its time came, or the list's version is not the one it was last screened against)
    is claimed with a lease
    (``next_screening_at`` and ``claimed_until``: a second job running meanwhile skips it) and screened, each on
    its own."""
    now = now or clock.now()
    live = Player.objects.filter(status__in=SCREENED_STATUSES, personal__isnull=False)
    missing = live.filter(aml_profile__isnull=True).values_list("pk", flat=True)[:batch]
    AmlProfile.objects.bulk_create(
        [AmlProfile(player_id=pk, created_at=now, next_screening_at=now) for pk in missing], ignore_conflicts=True
    )
    screening_list, version = _list_version()
    due = Q(next_screening_at__lte=now)
    if version:  # the list changed: due at once, unless a job holds the row (its lease)
        due |= ~Q(list_version=version) & (Q(claimed_until__isnull=True) | Q(claimed_until__lte=now))
    lease = now + timedelta(minutes=settings.AML_SCREENING_RETRY_MINUTES)
    with transaction.atomic():
        claimed = list(
            AmlProfile.objects.select_for_update(no_key=True, skip_locked=True, of=("self",))
            .filter(due, player__in=live)
            .select_related("player__personal")
            .order_by("next_screening_at", "pk")[:batch]
        )
        AmlProfile.objects.filter(pk__in=[p.pk for p in claimed]).update(next_screening_at=lease, claimed_until=lease)
    actor = Actor.system("aml.screening_periodic")
    out: dict[str, Any] = {"claimed": len(claimed)}
    for profile in claimed:
        run = screening_run(player=profile.player, actor=actor, trigger="periodic", screening_list=screening_list)
        out[run.result] = out.get(run.result, 0) + 1
    return out
