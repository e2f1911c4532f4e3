"""Games platform selectors (reads): catalogue, open round, recall (game history), replay verification.

Recall (GP §11(5)): the data stored with a round decide disputes, so a recall shows the bet, every step with its
symbols and wins, the win credited (and whether the GP §8(3) cap cut it), the balance before and after, jackpot
events and the actions; :func:`round_replay_check` re-runs the round from its record with the engine's
``replay`` and says whether it reproduces the stored result.

What a player sees of a round **in progress** is limited to the engine state's public keys (status, win so far,
steps so far, what it waits for): the RNG draws and any other state keys stay hidden until the round ends,
because an interactive feature's outcome is drawn before the choice is offered (GP §7(3)).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.db.models import QuerySet

from core import clock
from core.db_router import PRIMARY, replica
from core.errors import DomainError
from core.home import QueueState, queue_of
from core.money import Money
from games import errors
from games.engine import JsonDict, ReplayMismatch, figures, max_hourly_loss, registry
from games.models import Game, Round
from games.validation import valid_game_code, valid_round_id
from jackpots.levels import progressive_offered
from limits.kinds import TECHNICAL, kind_rules

if TYPE_CHECKING:
    from accounts.models import Player

# carry_in / carry_out: the machine state a carry-over game started from and leaves (games.carry), on the player's
# screen anyway
# remote: a round of an outside studio's game: its provider, the provider's round id and transactions
PUBLIC_STATE_KEYS = ("status", "win", "steps", "pending", "breakdown", "carry_in", "carry_out", "remote")


def _money(amount: int | None, currency: str) -> JsonDict | None:
    return None if amount is None else Money(amount, currency).to_json()


# --- catalogue --------------------------------------------------------------------------------------------------------
def games_catalogue(*, include_unapproved: bool = False) -> QuerySet[Game]:
    """The games a player can start now: the current version of each registered, enabled game approved in the
    game plan (GP §1, §2, §13(6)). ``include_unapproved`` (staff only) lists the versions not approved too."""
    rows = Game.objects.filter(current=True, registered=True, enabled=True)
    if not include_unapproved:
        rows = rows.filter(approval_state=Game.Approval.APPROVED)
    return rows.order_by("code")


def game_current(code: str, *, include_unapproved: bool = False) -> Game:
    """The current catalogue row of a game (enabled or not; ``enabled`` tells the client). A version not approved
    in the game plan does not exist for players (``game.not_found``); staff see it (``include_unapproved``)."""
    row = Game.objects.filter(code=code, current=True, registered=True).first() if valid_game_code(code) else None
    if row is None or not (row.approved or include_unapproved):
        raise errors.GAME_NOT_FOUND()
    return row


def hourly_loss_figures(max_bet: int) -> tuple[int, int]:
    """(the game's maximum hourly loss, the most a player can lose in it in any 60 minutes on this platform).

    GP §7(2): each game states its maximum hourly loss: every round staked at ``max_bet`` (the bet this platform
    offers, GP §8(2)-(3)) and lost, at the fastest pace allowed, one start every 2 seconds (GP §7(9)):
    ``max_bet x 1,800`` (``games.engine.max_hourly_loss``). The platform refuses a stake that would take the
    player's net loss over any rolling 60 minutes past ``settings.GP["MAX_HOURLY_LOSS"]`` (GP §8(5), ZHH §53,
    limits), so what a player can really lose is the lower of the two."""
    at_pace = max_hourly_loss(max_bet)
    if not kind_rules(TECHNICAL).hourly_loss:
        return at_pace, at_pace
    return at_pace, min(at_pace, settings.GP["MAX_HOURLY_LOSS"])


def own_jackpots_offered(row: Game) -> bool | None:
    """Whether the game's own progressive jackpots are offered now (every one of its pools running, jackpots on);
    None for a game that has none (or a version the engine no longer knows)."""
    try:
        spec = registry.get_game(row.code, row.version).progressive()
    except KeyError:
        return None
    return None if spec is None else progressive_offered(row.code, spec["contribution_ppm"])


def _rules(d: JsonDict, offered: bool | None) -> tuple[str, str]:
    """(Czech, English) rules as they are now: a game's own jackpots not offered, the rules that promise none."""
    without = d.get("rules_without_jackpots") or {}
    if offered is False and without:
        return str(without.get("cs", "")), str(without.get("en", ""))
    return str(d.get("rules_cs", "")), str(d.get("rules_en", ""))


def _published_figures(row: Game) -> JsonDict:
    """Hit frequency, volatility, the RTP range and how the RTP is known (``games.engine.figures``, checked against
    the PAR sheets); null for a game no engine here runs (a provider's)."""
    none: JsonDict = {"rtp_basis": None, "rtp_range": None, "hit_frequency_percent": None, "volatility": None}
    if row.provider:
        return none
    try:
        g = registry.get_game(row.code, row.version)
    except KeyError:
        return none
    hit, vol = figures.PUBLISHED.get(g.code, (None, None))
    rng = figures.rtp_range(g)
    return {
        "rtp_basis": figures.THEORETICAL.get(g.code, (None, None))[1],
        "rtp_range": {"min": str(rng[0]), "max": str(rng[1])} if rng else None,
        "hit_frequency_percent": hit,
        "volatility": vol,
    }


def game_summary(row: Game) -> JsonDict:
    d = row.description or {}
    offered = own_jackpots_offered(row)
    rules_cs, rules_en = _rules(d, offered)
    at_pace, max_loss = hourly_loss_figures(row.max_bet)
    return {
        "code": row.code,
        "version": row.version,
        "name": row.name,
        "name_cs": row.name_cs,
        "kind": row.kind,
        "provider": row.provider or None,
        "enabled": row.enabled,
        "approval": {
            "state": row.approval_state,
            "plan_version": row.approval_plan_version,
            "reference": row.approval_reference,
        },
        "declared": {
            "rtp": str(row.rtp),
            # only while the game's own jackpots are offered (switched on, its pools running; docs/jackpots.md)
            "rtp_with_jackpots": str(row.rtp_with_jackpots) if row.rtp_with_jackpots is not None and offered else None,
            "min_bet": Money(row.min_bet).to_json(),
            "max_bet": Money(row.max_bet).to_json(),
            "max_win": Money(row.max_win).to_json(),
            "avg_hourly_loss": Money(row.avg_hourly_loss).to_json(),
            "max_hourly_loss": Money(max_loss).to_json(),
            "max_hourly_loss_at_max_pace": Money(at_pace).to_json(),
            "unfinished_deadline_days": row.unfinished_deadline_days,
            **_published_figures(row),
        },
        "rules_cs": rules_cs,
        "rules_en": rules_en,
    }


def game_detail(row: Game) -> JsonDict:
    """Summary plus the engine's full description (rules, paytable, bet options, layout), as the game is offered
    now: while its own jackpots are not offered, without them (their feature, the RTP with jackpots) and with the
    rules that promise none."""
    summary = game_summary(row)
    description = copy.deepcopy(row.description or {})
    without = description.pop("rules_without_jackpots", None)
    if without and own_jackpots_offered(row) is False:
        description["rules_cs"], description["rules_en"] = summary["rules_cs"], summary["rules_en"]
        (description.get("features") or {}).pop("jackpots", None)
        if isinstance(description.get("declared"), dict):
            description["declared"]["rtp_with_jackpots"] = None
    return {**summary, "description": description}


def player_bet_settings(player: Player, game_code: str) -> JsonDict | None:
    """The player's last bet parameters for a game (those of the newest round started on it), or None.
    One index lookup (``games_round_player_game``), so a round writes nothing extra to remember it."""
    return (
        Round.objects.filter(player=player, game_code=game_code)
        .order_by("-started_at", "-id")
        .values_list("bet_params", flat=True)
        .first()
    )


# --- rounds -----------------------------------------------------------------------------------------------------------
def round_open(player: Player, *, play_money: bool = False) -> Round | None:
    """GP §7(8)b: the player's round waiting for an action, to resume where it stopped (None when there is none
    or it is past its deadline and will be ended by the sweeper)."""
    return (
        Round.objects.select_related("game")
        .filter(player=player, play_money=play_money, status=Round.Status.IN_PROGRESS, deadline__gt=clock.now())
        .first()
    )


def rounds_history(player: Player, *, play_money: bool = False) -> QuerySet[Round]:
    """The player's rounds, newest first (paginate it). Recall may lag: read from the replica when there is one
    (core/db_router.py)."""
    return (
        Round.objects.using(replica())
        .select_related("game")
        .prefetch_related("action_log")
        .filter(player=player, play_money=play_money)
        .order_by("-started_at", "-id")
    )


def round_get(player: Player, round_id: Any) -> Round:
    """One of the player's own rounds; another player's round does not exist for them (404)."""
    round_id = valid_round_id(round_id)
    rounds = Round.objects.select_related("game").prefetch_related("action_log").filter(pk=round_id, player=player)
    # recall reads the replica when there is one; a round it has not replayed yet is read from the primary
    rnd = rounds.using(replica()).first()
    if rnd is None and replica() != PRIMARY:
        rnd = rounds.using(PRIMARY).first()
    if rnd is None:
        raise errors.ROUND_NOT_FOUND()
    return rnd


def round_public(rnd: Round) -> JsonDict:
    """The player's view of a round (recall); an open round hides its draws and non-public state."""
    state = rnd.state or {}
    ended = rnd.status != Round.Status.IN_PROGRESS
    cur = rnd.currency
    log = {a.seq: a for a in rnd.action_log.all()} if rnd.actions else {}  # no query for a round without actions
    return {
        "id": rnd.pk,
        "game": {
            "code": rnd.game_code,
            "version": rnd.game_version,
            "name": rnd.game.name,
            "name_cs": rnd.game.name_cs,
            "kind": rnd.game.kind,
        },
        "play_money": rnd.play_money,
        "forced_outcome": rnd.forced_outcome,
        "status": rnd.status,
        "void_reason": rnd.void_reason,
        "started_at": rnd.started_at,
        "settled_at": rnd.settled_at,
        "deadline": rnd.deadline,
        "bet": rnd.bet_params,
        "stake": _money(rnd.stake, cur),
        "win": _money(rnd.win, cur),
        "win_engine": _money(rnd.win_engine, cur),
        "jackpot_win": _money(rnd.jackpot_win, cur),
        "win_capped": rnd.win_capped,
        "balance_before": _money(rnd.balance_before, cur),
        "balance_after": _money(rnd.balance_after, cur),
        "state": {k: state.get(k) for k in PUBLIC_STATE_KEYS if k in state},
        "steps": state.get("steps", []),
        "pending": state.get("pending") if not ended else None,
        "jackpot_events": rnd.jackpot_events,
        "actions": [
            {"seq": i, "action": a, "at": log[i].created_at if i in log else None} for i, a in enumerate(rnd.actions)
        ],
        "draws": rnd.draws if ended else None,
    }


def round_staff(rnd: Round) -> JsonDict:
    """Everything stored with a round (staff, complaints, disputes GP §11(5))."""
    data = round_public(rnd)
    data.update(
        {
            "player_id": rnd.player_id,
            "idempotency_key": rnd.idempotency_key,
            "bet_request": rnd.bet_request,
            "state": rnd.state,
            "draws": rnd.draws,
            "pending": (rnd.state or {}).get("pending"),
            "void_detail": rnd.void_detail,
            "forced_draws_left": rnd.forced_draws_left,
            "last_activity_at": rnd.last_activity_at,
        }
    )
    return data


def rounds_recent(player: Player, n: int = 10, *, play_money: bool = False) -> list[JsonDict]:
    """Game recall: the player's last ``n`` rounds (default 10), newest first, as recall records."""
    return [round_public(r) for r in rounds_history(player, play_money=play_money)[: max(0, int(n))]]


def round_recall(player: Player, round_id: Any) -> JsonDict:
    """Recall of one of the player's own rounds (404 for anyone else's)."""
    return round_public(round_get(player, round_id))


def round_recall_any(round_id: Any) -> JsonDict:
    """Staff/complaints: the full record of any round."""
    try:
        rnd = Round.objects.select_related("game").prefetch_related("action_log").get(pk=valid_round_id(round_id))
    except Round.DoesNotExist:
        raise errors.ROUND_NOT_FOUND()
    return round_staff(rnd)


def round_record(rnd: Round) -> JsonDict:
    """The engine replay record of a round: bet, actions, draws and the stored state."""
    return {
        "bet": copy.deepcopy(rnd.bet_params),
        "actions": copy.deepcopy(rnd.actions),
        "draws": copy.deepcopy(rnd.draws),
        "state": copy.deepcopy(rnd.state),
    }


def round_replay_check(rnd: Round) -> JsonDict:
    """Re-run the round from its record with the engine (``Game.replay``) on the version it pinned.

    ``outcome``: ``match`` (the draws and actions reproduce the stored state exactly), ``mismatch``,
    ``malfunction_reproduced`` (a round voided for malfunction fails the same way again), ``engine_unavailable``
    (the version is no longer registered) or ``error``."""
    if rnd.provider_round_id:  # a studio's round: the studio drew its outcome; its record is checked instead
        return studio_record_check(rnd)
    ended = rnd.status != Round.Status.IN_PROGRESS  # an open round does not tell how far its draws have gone
    result = {
        "round_id": rnd.pk,
        "game": rnd.game_code,
        "version": rnd.game_version,
        "draws": len(rnd.draws) if ended else None,
        "actions": len(rnd.actions) if ended else None,
        "checked_at": clock.now(),
    }
    try:
        engine_game = registry.get_game(rnd.game_code, rnd.game_version)
    except KeyError:
        return {**result, "verified": False, "outcome": "engine_unavailable", "detail": "version not registered"}
    try:
        engine_game.replay(round_record(rnd))
    except ReplayMismatch as exc:
        return {**result, "verified": False, "outcome": "mismatch", "detail": exc.message_en}
    except Exception as exc:  # noqa: BLE001 - reported, not raised
        detail = f"{exc.__class__.__name__}: {exc}"
        if rnd.void_reason == Round.VoidReason.MALFUNCTION and detail[:200] in rnd.void_detail:
            return {**result, "verified": True, "outcome": "malfunction_reproduced", "detail": detail[:500]}
        return {**result, "verified": False, "outcome": "error", "detail": detail[:500]}
    if rnd.void_reason == Round.VoidReason.MALFUNCTION:
        return {**result, "verified": False, "outcome": "mismatch", "detail": "the stored malfunction did not recur"}
    return {**result, "verified": True, "outcome": "match", "detail": ""}


def studio_record_check(rnd: Round) -> JsonDict:
    """A studio's round (GP §11(5)): the studio's record of it as it came with the round's end (its outcome and/or a
    reference to the studio's history with the hash of that record). ``outcome``: ``studio_record`` (kept; when the
    studio sent both the outcome and its hash, the hash of the kept outcome matches), ``studio_record_mismatch``
    (the kept outcome does not hash to what the studio stated), ``studio_record_missing`` (a round still open, or one
    ended by the platform at its deadline or by a rollback, before the studio sent its record)."""
    remote = (rnd.state or {}).get("remote") or {}
    detail = remote.get("detail")
    result = {
        "round_id": rnd.pk,
        "game": rnd.game_code,
        "version": rnd.game_version,
        "draws": None,
        "actions": None,
        "checked_at": clock.now(),
        "provider": str(remote.get("provider", "")),
        "provider_round_id": rnd.provider_round_id,
        "studio_record": detail,
    }
    if not detail:
        return {
            **result,
            "verified": False,
            "outcome": "studio_record_missing",
            "detail": "the studio has sent no record of this round",
        }
    if "outcome" in detail and detail.get("sha256"):
        if studio_outcome_sha256(detail["outcome"]) != detail["sha256"]:
            return {
                **result,
                "verified": False,
                "outcome": "studio_record_mismatch",
                "detail": "the kept outcome does not hash to the studio's stated sha256",
            }
    return {**result, "verified": True, "outcome": "studio_record", "detail": ""}


def studio_outcome_sha256(outcome: object) -> str:
    """The SHA-256 of a studio's outcome as canonical JSON (sorted keys, no spaces, UTF-8): how a studio states the
    hash of the outcome it sends (docs/providers.md)."""

    return hashlib.sha256(
        json.dumps(outcome, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    ).hexdigest()


def round_verify(player: Player, round_id: Any) -> JsonDict:
    """The replay check of one of the player's own rounds. While the round is open its draws are hidden, and so
    is how many there are (a count can depend on values drawn ahead of the player's choices): ``draws`` is null
    until the round ends."""
    rnd = round_get(player, round_id)
    result = round_replay_check(rnd)
    if rnd.status == Round.Status.IN_PROGRESS:
        result = {**result, "draws": None}
    return result


# The back office ------------------------------------------------------------------------------------


def rounds_latest(player: Player, *, limit: int = 10) -> list[Round]:
    """The player's latest rounds (real money and play money), newest first."""
    return list(Round.objects.filter(player_id=player.pk).order_by("-started_at", "-pk")[:limit])


def round_player_id(round_id: str) -> int | None:
    """The player of the round with this id (None when there is none or the text is no round id)."""
    try:
        pk = valid_round_id(round_id)
    except DomainError:  # not a round id: simply not a round
        return None
    found = Round.objects.filter(pk=pk).values_list("player_id", flat=True).first()
    return int(found) if found is not None else None


def rounds_past_deadline_queue() -> QueueState:
    """Rounds still in progress past their game's unfinished-round deadline: the sweeper should have ended them."""
    return queue_of(Round.objects.filter(status=Round.Status.IN_PROGRESS, deadline__lte=clock.now()), "deadline")


def versions_awaiting_approval_queue() -> QueueState:
    """Current game versions not approved for real money (a studio's new games, a new version after a sync): the
    game manager's approvals to enter (GP §13(6)); the oldest by the time the registry first saw it."""
    return queue_of(Game.objects.filter(current=True, approval_state=Game.Approval.UNAPPROVED), "synced_at")
