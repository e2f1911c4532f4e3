"""Everything limits needs from accounts, in one place, imported lazily.

accounts is being extended in parallel; each function here tolerates the piece it uses not
existing yet and says what it falls back to (listed in docs/limits.md). Reads of login sessions
go to the ``accounts.LoginSession`` model (player, started_at, ended_at, end_reason,
last_seen_at per docs/contracts.md) because limits needs exact interval semantics.
"""
from __future__ import annotations

import hashlib
import importlib
import logging
from datetime import datetime, timedelta

from django.apps import apps

logger = logging.getLogger("platform.limits")


def _attr(module: str, name: str):
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return None
        raise
    return getattr(mod, name, None)


def betting_refusal(player):
    """accounts.selectors.betting_refusal(player) -> DomainError | None; None while it does not exist."""
    fn = _attr("accounts.selectors", "betting_refusal")
    return fn(player) if fn is not None else None


def has_betting_refusal() -> bool:
    return _attr("accounts.selectors", "betting_refusal") is not None


def _session_model():
    try:
        return apps.get_model("accounts", "LoginSession")
    except LookupError:
        return None


# A session that started more than this before a window and ended inside it is not looked for: the lookups
# then stay index range scans on accounts' (player, started_at) index, whatever the player's login history.
# (Sessions end after ACCOUNTS_SESSION_IDLE_MINUTES without activity; 7 days of uninterrupted activity is
# taken as impossible.)
SESSION_LOOKBACK = timedelta(days=7)


def sessions_between(player, since: datetime, until: datetime) -> list[tuple[datetime, datetime | None]]:
    """(started_at, ended_at) of the player's login sessions overlapping [since, until]: the open ones (few,
    partial index of accounts) and the ended ones started within the lookback before ``since``."""
    model = _session_model()
    if model is None:
        return []
    open_rows = model.objects.filter(player=player, ended_at__isnull=True)
    ended_rows = model.objects.filter(player=player, started_at__gte=since - SESSION_LOOKBACK,
                                      started_at__lte=until, ended_at__gte=since)
    return list(open_rows.values_list("started_at", "ended_at")) + list(
        ended_rows.values_list("started_at", "ended_at"))


def logins_started(player, since: datetime, until: datetime) -> int:
    model = _session_model()
    if model is None:
        return 0
    return model.objects.filter(player=player, started_at__gte=since, started_at__lte=until).count()


def last_logout(player, since: datetime, until: datetime) -> datetime | None:
    """The latest end of a session of the player within [since, until]."""
    model = _session_model()
    if model is None:
        return None
    return (model.objects.filter(player=player, started_at__gte=since - SESSION_LOOKBACK, started_at__lte=until,
                                 ended_at__isnull=False, ended_at__gte=since, ended_at__lte=until)
            .order_by("-ended_at").values_list("ended_at", flat=True).first())


def logged_in_seconds(player, since: datetime, until: datetime) -> int:
    """Logged-in time within [since, until]: the union of the sessions' intervals (two devices count once)."""
    intervals = []
    for started, ended in sessions_between(player, since, until):
        a = max(started, since)
        b = min(ended or until, until)
        if b > a:
            intervals.append((a, b))
    intervals.sort()
    total = timedelta()
    cur_a = cur_b = None
    for a, b in intervals:
        if cur_b is None or a > cur_b:
            if cur_b is not None:
                total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    if cur_b is not None:
        total += cur_b - cur_a
    return int(total.total_seconds())


def active_session_player_ids() -> list[int]:
    model = _session_model()
    if model is None:
        return []
    return list(model.objects.filter(ended_at__isnull=True).values_list("player_id", flat=True).distinct())


def force_logout(*, player, reason: str, actor) -> bool:
    """accounts.services.player_force_logout; False (and a log line) while it does not exist."""
    fn = _attr("accounts.services", "player_force_logout")
    if fn is None:
        logger.warning("accounts.services.player_force_logout missing; player %s not logged out (%s)",
                       player.pk, reason)
        return False
    fn(player=player, reason=reason, actor=actor)
    return True


def exclusion_check(*, player, actor, context: str) -> bool:
    """accounts.services.exclusion_check -> listed? Raises LookupError while it does not exist."""
    fn = _attr("accounts.services", "exclusion_check")
    if fn is None:
        raise LookupError("accounts.services.exclusion_check is not available yet")
    return bool(fn(player=player, actor=actor, context=context))


def exclusion_register():
    fn = _attr("accounts.adapters", "get_exclusion_register")
    if fn is None:
        raise LookupError("accounts.adapters.get_exclusion_register is not available yet")
    return fn()


def register_identity(player):
    """What the register adapter identifies a person by: accounts.selectors.identity_for(player) when
    accounts offers it; else the Player itself (accounts' adapters accept a Player too)."""
    fn = _attr("accounts.selectors", "identity_for")
    return fn(player) if fn is not None else player


def person_key(player) -> str | None:
    """A stable key of the *person* (not the account) for ZHH §14a.

    accounts.selectors.person_key(player) when accounts offers it; else a SHA-256 of the birth number
    (rodné číslo) if the Player has one; else of (date of birth, surname, given names) if present;
    else None (no match possible, the floor cannot be applied)."""
    fn = _attr("accounts.selectors", "person_key")
    if fn is not None:
        return fn(player)
    birth_number = getattr(player, "birth_number", "") or ""
    if birth_number:
        norm = "".join(ch for ch in str(birth_number) if ch.isdigit())
        return hashlib.sha256(f"rc:{norm}".encode()).hexdigest()
    dob = getattr(player, "date_of_birth", None) or getattr(player, "birth_date", None)
    surname = (getattr(player, "surname", "") or getattr(player, "last_name", "") or "").strip().lower()
    given = (getattr(player, "given_names", "") or getattr(player, "first_name", "") or "").strip().lower()
    if dob and surname and given:
        return hashlib.sha256(f"id:{dob}:{surname}:{given}".encode()).hexdigest()
    return None


def closed_accounts_of_person(player, since: datetime, until: datetime) -> list[tuple[int, datetime]]:
    """(player id, closed_at) of the *other* accounts of the same person closed within [since, until]
    (ZHH §14a), matched by accounts' person key (PersonalData.person_key). Empty while accounts has no
    personal data model."""
    key = person_key(player)
    if not key:
        return []
    try:
        personal = apps.get_model("accounts", "PersonalData")
    except LookupError:
        return []
    from accounts.models import Player

    others = personal.objects.filter(person_key=key).exclude(player_id=player.pk).values_list("player_id", flat=True)
    return list(Player.objects.filter(pk__in=list(others), status="closed", closed_at__gte=since,
                                      closed_at__lte=until).values_list("pk", "closed_at"))
