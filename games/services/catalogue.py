"""The catalogue and its approval: the engine registry synced into rows, the operator switch, the Ministry's approval
(GP §13(6))."""

from __future__ import annotations

import logging
from datetime import datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db import IntegrityError, transaction

from core import clock
from core.audit import Actor, audit_record
from core.fsm import status_transition
from games import errors
from games.engine import (
    Declared,
    JsonDict,
    registry,
)
from games.engine import Game as EngineGame
from games.models import Game
from games.services.common import describe_exc, jsonable
from games.validation import valid_game_code
from jackpots import services as jackpots
from jackpots.levels import enabled as jackpots_enabled

if TYPE_CHECKING:
    pass

logger = logging.getLogger("games")


# --- catalogue --------------------------------------------------------------------------------------------------------
def offered_figures(declared: Declared) -> JsonDict:
    """The figures a game is offered with on this platform (GP §7(2), §8(2)-(3)).

    A slot's largest win grows with the stake. When the engine's declared max win is above the platform's
    max win per round (settings.GP["MAX_WIN_PER_ROUND"]), capping wins would cut the RTP below the declared
    figure (and below GP §8(4)'s 84.24 % for some games). Instead the game is offered with a lower max bet
    (GP §8(2): "some games lower it further to respect the max win"): the largest stake, on the stake grid,
    whose max win stays within the cap. So no win is ever capped and the declared RTP holds at every stake
    offered. The cap in round settlement stays as a safety net and records any capping on the round.
    """
    cap = settings.GP["MAX_WIN_PER_ROUND"]
    step = settings.GP["STAKE_STEP"]
    max_bet = min(declared.max_bet, settings.GP["MAX_STAKE"])
    lowered = False
    if declared.max_win * max_bet > cap * declared.max_bet:  # max win at this stake (linear in the stake) > cap
        max_bet = cap * declared.max_bet // declared.max_win
        max_bet -= max_bet % step
        lowered = True
    max_bet = max(max_bet, declared.min_bet)
    max_win = declared.max_win * max_bet // declared.max_bet
    offered = Declared(
        rtp=declared.rtp,
        min_bet=declared.min_bet,
        max_bet=max_bet,
        max_win=max_win,
        unfinished_deadline_days=declared.unfinished_deadline_days,
        rtp_with_jackpots=declared.rtp_with_jackpots,
    )
    return {
        "max_bet": max_bet,
        "max_win": max_win,
        "avg_hourly_loss": offered.avg_hourly_loss,
        "max_hourly_loss": offered.max_hourly_loss,
        "max_bet_lowered_for_max_win": lowered,
    }


def _row_data(g: EngineGame) -> JsonDict:
    d = g.declared
    offered = offered_figures(d)
    description = jsonable(g.describe())
    description["platform_limits"] = {
        "engine_max_bet": d.max_bet,
        "engine_max_win": d.max_win,
        "max_bet_lowered_for_max_win": offered["max_bet_lowered_for_max_win"],
        "platform_max_win_per_round": settings.GP["MAX_WIN_PER_ROUND"],
    }
    return {
        "name": g.name,
        "name_cs": getattr(g, "name_cs", "") or description.get("name_cs", "") or "",
        "kind": g.kind,
        "rtp": d.rtp,
        "rtp_with_jackpots": d.rtp_with_jackpots,
        "min_bet": d.min_bet,
        "max_bet": offered["max_bet"],
        "max_win": offered["max_win"],
        "avg_hourly_loss": offered["avg_hourly_loss"],
        "unfinished_deadline_days": d.unfinished_deadline_days,
        "description": description,
    }


def _upsert_current(g: EngineGame, now: datetime) -> tuple[Game, bool]:
    data = _row_data(g)
    Game.objects.filter(code=g.code, current=True).exclude(version=g.version).update(current=False)
    row, created = Game.objects.update_or_create(
        code=g.code, version=g.version, defaults={**data, "current": True, "registered": True, "synced_at": now}
    )
    return row, created


def games_sync(*, actor: Actor | None = None) -> JsonDict:
    """Sync the catalogue from the engine registry: a row per (code, version), the newest version current.

    New games start enabled (registered in the engine = shipped); the operator disables one in the admin.
    A game whose description cannot be built is reported and skipped, the others are synced."""
    actor = actor or Actor.system("games.sync")
    now = clock.now()
    report: JsonDict = {"created": [], "updated": [], "unregistered": [], "errors": {}}
    with transaction.atomic():
        for g in registry.list_games():
            try:
                with transaction.atomic():
                    row, created = _upsert_current(g, now)
            except Exception as exc:  # one broken game must not block the catalogue (logged, reported)
                logger.exception("games_sync: %s v%s failed", g.code, g.version)
                report["errors"][f"{g.code}@{g.version}"] = describe_exc(exc)
                continue
            report["created" if created else "updated"].append(f"{g.code}@{g.version}")
            _progressive_sync(g, actor)
        for row in Game.objects.filter(registered=True, provider=""):  # remote games are no engine's (providers)
            try:
                registry.get_game(row.code, row.version)
            except KeyError:
                Game.objects.filter(pk=row.pk).update(registered=False, current=False)
                report["unregistered"].append(f"{row.code}@{row.version}")
        if report["created"] or report["unregistered"]:
            audit_record(
                actor=actor,
                action="games.catalogue_synced",
                object_type="games.game",
                created=report["created"],
                unregistered=report["unregistered"],
            )
    return report


def _progressive_sync(g: EngineGame, actor: Actor) -> None:
    """A game with its own progressive jackpots (Kobushi, seed 000 §9) gets its pools as drafts configured from its
    rules, when jackpots are offered (settings.JACKPOTS_ENABLED); staff start them (the seed is funded then)."""
    spec = g.progressive()
    if spec is not None and jackpots_enabled():
        jackpots.progressive_ensure(game_code=g.code, spec=spec, actor=actor)


def game_row_of(g: EngineGame) -> Game:
    """The catalogue row of an engine game version; created on first use when the sync has not run yet."""
    row = Game.objects.filter(code=g.code, version=g.version).first()
    if row is not None:
        return row
    try:
        with transaction.atomic():
            row, _ = _upsert_current(g, clock.now())
    except IntegrityError:
        row = Game.objects.get(code=g.code, version=g.version)
    return row


def game_set_enabled(*, game: Game, enabled: bool, actor: Actor) -> Game:
    """Operator switch: a disabled game starts no new round; rounds in progress can still be finished."""
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        if row.enabled != enabled:
            old = row.enabled
            row.enabled = enabled
            row.save(update_fields=["enabled"])
            audit_record(
                actor=actor,
                action="games.game_enabled" if enabled else "games.game_disabled",
                obj=row,
                old={"enabled": old},
                new={"enabled": enabled},
            )
    return row


# GP §13(6): the moves of a version's approval. Approved again while approved = the plan was changed and approved
# anew (a new plan version or decision); a withdrawn approval can be given again.
APPROVAL_MOVES: dict[str, set[str]] = {
    Game.Approval.UNAPPROVED: {Game.Approval.APPROVED},
    Game.Approval.APPROVED: {Game.Approval.APPROVED, Game.Approval.WITHDRAWN},
    Game.Approval.WITHDRAWN: {Game.Approval.APPROVED},
}
APPROVAL_FIELDS = ("approval_state", "approval_plan_version", "approval_reference", "approved_at", "approved_by_id")
PLAN_VERSION_MAX, REFERENCE_MAX = 40, 120


def _approval(row: Game) -> JsonDict:
    return {name: getattr(row, name) for name in APPROVAL_FIELDS}


def game_approve(*, game: Game, plan_version: str, reference: str, actor: Actor) -> Game:
    """Staff record that the Ministry of Finance approved this game version as part of the game plan (GP §1 and
    §2: Part two of the approved plan is the complete list of games; GP §13(6): a change needs the Ministry's
    approval). From then on the version is offered for real money. ``plan_version`` names the plan (e.g.
    "2026-01"), ``reference`` the Ministry's decision (číslo jednací). The same approval again changes nothing;
    an approved version approved under another plan version or decision is updated (audited with both)."""
    plan_version, reference = str(plan_version or "").strip(), str(reference or "").strip()
    if not plan_version or len(plan_version) > PLAN_VERSION_MAX:
        raise errors.APPROVAL_INVALID(field="plan_version", max_length=PLAN_VERSION_MAX)
    if not reference or len(reference) > REFERENCE_MAX:
        raise errors.APPROVAL_INVALID(field="reference", max_length=REFERENCE_MAX)
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        if row.approved and (row.approval_plan_version, row.approval_reference) == (plan_version, reference):
            return row
        old = _approval(row)
        status_transition(
            row,
            to=Game.Approval.APPROVED,
            allowed=APPROVAL_MOVES,
            refused=errors.APPROVAL_TRANSITION,
            actor=actor,
            action="games.game_approved",
            field="approval_state",
            audit=False,
            extra_fields={
                "approval_plan_version": plan_version,
                "approval_reference": reference,
                "approved_at": clock.now(),
                "approved_by_id": int(actor.id) if actor.type == "staff" and actor.id else None,
            },
        )
        audit_record(
            actor=actor,
            action="games.game_approved",
            obj=row,
            old=old,
            new=_approval(row),
            game=f"{row.code}@{row.version}",
        )
    return row


def game_approval_withdraw(*, game: Game, reason: str, actor: Actor) -> Game:
    """Staff: the version is no longer in the approved plan (GP §13(6)); it is not offered for real money any more.
    Rounds already in progress can still be finished (GP §7(6), §7(8)). The last approval's plan version and
    reference stay on the row for the record."""
    reason = str(reason or "").strip()
    if not reason:
        raise errors.APPROVAL_INVALID(field="reason")
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).get(pk=game.pk)
        status_transition(
            row,
            to=Game.Approval.WITHDRAWN,
            allowed=APPROVAL_MOVES,
            refused=errors.APPROVAL_TRANSITION,
            actor=actor,
            action="games.game_approval_withdrawn",
            field="approval_state",
            reason=reason[:500],
            game=f"{row.code}@{row.version}",
        )
    return row


def remote_game_upsert(
    *,
    provider: str,
    provider_game_id: str,
    name: str,
    kind: str,
    rtp: Decimal,
    min_bet: int,
    max_bet: int,
    max_win: int,
    avg_hourly_loss: int,
    unfinished_deadline_days: int,
    actor: Actor,
    description: JsonDict | None = None,
) -> Game:
    """A remote game (an outside studio's) in the catalogue: code ``<provider>_<provider game id>``,
    version 1, with the figures the approved plan declares. A new row starts enabled and unapproved (staff record
    the approval, GP §13(6)); an existing row gets the figures again and keeps its switch and approval. Audited
    when created or changed."""
    code = f"{provider}_{provider_game_id}"
    if not valid_game_code(code) or not valid_game_code(provider) or not provider_game_id:
        raise errors.REMOTE_GAME_INVALID(game=code[:60])
    _refuse_outside_the_plan(
        rtp=rtp, min_bet=min_bet, max_bet=max_bet, max_win=max_win, unfinished_deadline_days=unfinished_deadline_days
    )
    figures = {
        "name": name[:120],
        "kind": kind[:20],
        "rtp": rtp,
        "min_bet": min_bet,
        "max_bet": max_bet,
        "max_win": max_win,
        "avg_hourly_loss": avg_hourly_loss,
        "unfinished_deadline_days": unfinished_deadline_days,
    }
    with transaction.atomic():
        row = Game.objects.select_for_update(no_key=True).filter(code=code, version=1).first()
        if row is not None and row.provider != provider:
            raise errors.REMOTE_GAME_INVALID(game=code)
        old = None if row is None else {k: getattr(row, k) for k in figures}
        if row is None:
            row = Game(
                code=code,
                version=1,
                provider=provider,
                provider_game_id=provider_game_id,
                current=True,
                registered=True,
                enabled=True,
                synced_at=clock.now(),
                description=description or {"remote": True, "provider": provider},
            )
        if old != figures:
            for k, v in figures.items():
                setattr(row, k, v)
            row.synced_at = clock.now()
            withdrawn = old is not None and row.approved and _declared(old) != _declared(figures)
            if withdrawn:
                # GP §13(6): the approval was of the declared figures; new figures need a new approval
                row.approval_state = Game.Approval.WITHDRAWN
            row.save()
            audit_record(
                actor=actor,
                action="games.remote_game_listed" if old is None else "games.remote_game_changed",
                obj=row,
                old=old,
                new=figures,
                provider=provider,
                approval_withdrawn=withdrawn,
            )
            if withdrawn:
                audit_record(
                    actor=actor,
                    action="games.game_approval_withdrawn",
                    obj=row,
                    old={"approval_state": Game.Approval.APPROVED},
                    new={"approval_state": Game.Approval.WITHDRAWN},
                    reason="the studio's declared figures changed",
                    game=f"{row.code}@{row.version}",
                )
    return row


DECLARED = ("rtp", "min_bet", "max_bet", "max_win", "avg_hourly_loss", "unfinished_deadline_days")


def _declared(figures: JsonDict) -> tuple[Any, ...]:
    return tuple(Decimal(str(figures[k])) if k == "rtp" else figures[k] for k in DECLARED)


def _refuse_outside_the_plan(
    *, rtp: Decimal, min_bet: int, max_bet: int, max_win: int, unfinished_deadline_days: int
) -> None:
    """A studio's game is offered only within the plan: an RTP of at least GP §8(4)'s minimum, stakes within
    GP §8(1)-(2) and a positive maximum win and deadline."""
    gp = settings.GP
    try:
        rtp = Decimal(str(rtp))
    except ArithmeticError:
        raise errors.REMOTE_GAME_FIGURES(reason="the RTP is not a number")
    if not rtp.is_finite() or rtp < Decimal(str(gp["MIN_RTP_PERCENT"])) or rtp > 100:
        raise errors.REMOTE_GAME_FIGURES(
            reason=f"an RTP of {rtp} % is outside {gp['MIN_RTP_PERCENT']}-100 % (GP §8(4))", field="rtp"
        )
    if not gp["MIN_STAKE"] <= min_bet <= max_bet <= gp["MAX_STAKE"]:
        raise errors.REMOTE_GAME_FIGURES(
            reason=f"stakes {min_bet}-{max_bet} haléřů are outside {gp['MIN_STAKE']}-{gp['MAX_STAKE']} (GP §8(1)-(2))",
            field="max_bet",
        )
    if max_win <= 0 or unfinished_deadline_days <= 0:
        raise errors.REMOTE_GAME_FIGURES(reason="the maximum win and the deadline must be positive", field="max_win")
