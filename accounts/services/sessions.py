"""Login sessions, tokens, passwords and the exclusion-register check at every login."""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import transaction
from django.db.models import Q

from accounts import errors, hooks, rules
from accounts.adapters import (
    Identity,
    RegisterReviewNeeded,
    RegisterUnavailable,
    get_aisg_register,
    get_exclusion_register,
    uses_aisg,
)
from accounts.aisg import client as aisg_client
from accounts.aisg import types as aisg_types
from accounts.models import AuthToken, LoginSession, Player, RegisterCheck, RegisterReview, User
from accounts.services import registers
from accounts.services.locks import player_lock
from core import clock
from core.audit import Actor, audit_record

logger = logging.getLogger("accounts.sessions")
# last_seen_at is written at most once per this (a busy player costs no write per request); the idle timeout is
# measured to it (a session may end up to a minute before its idleness, never later)
ACTIVITY_RESOLUTION = timedelta(minutes=1)
LOGIN_STATUSES = (Player.Status.TEMPORARY, Player.Status.ACTIVE, Player.Status.SUSPENDED, Player.Status.CLOSING)


def session_start(
    *, player: Player, ip_address: str | None = None, user_agent: str = "", actor: Actor | None = None
) -> tuple[LoginSession, str]:
    """Open a login session and its token after the credentials were checked (view + axes).

    Refuses an account that cannot be used, a person listed in the exclusion register (checked
    now, at every login), and whatever the ``login_check`` hook (``limits.services.login_check``)
    refuses (logins per month, pause after logout, panic button ...). Returns (session, raw token key).
    """
    actor = actor or Actor.player(player)
    now = clock.now()
    if player.status not in LOGIN_STATUSES:
        raise errors.ACCOUNT_NOT_USABLE(account_status=player.status)
    if player.status == Player.Status.TEMPORARY and player.temporary_expires_at and player.temporary_expires_at <= now:
        raise errors.TEMPORARY_EXPIRED(expired_at=player.temporary_expires_at)
    try:
        listed = exclusion_check(player=player, actor=actor, context="login")
    except RegisterReviewNeeded:
        raise errors.REGISTER_REVIEW_PENDING()
    except RegisterUnavailable:
        raise errors.REGISTER_UNAVAILABLE(register="exclusion")
    login_check = hooks.login_check.implementation
    panic_ends = None
    if listed:
        # a panic-button press is reported to the register too (2024 amendment): while it runs, the listing is the
        # person's own 48 hours without gambling, and the login opens a session for the account only (balance,
        # withdrawals; stakes and deposits are refused); any other listing refuses the login
        with transaction.atomic():
            panic_ends = login_check(player=player, now=now)
        if panic_ends is None:
            raise errors.EXCLUDED_PERSON()
    with transaction.atomic():
        locked = player_lock(player)
        if locked.status not in LOGIN_STATUSES or (locked.exclusion_listed and panic_ends is None):
            raise errors.ACCOUNT_NOT_USABLE(account_status=locked.status)
        login_check(player=locked, now=now)
        session = LoginSession.objects.create(
            player=locked,
            started_at=now,
            last_seen_at=now,
            ip_address=ip_address or None,
            user_agent=(user_agent or "")[:300],
        )
        key = secrets.token_urlsafe(32)
        AuthToken.objects.create(user=locked.user, key_hash=AuthToken.hash_key(key), created_at=now, session=session)
        User.objects.filter(pk=locked.user_id).update(last_login=now)
        audit_record(actor=actor, action="accounts.login", obj=session, player_id=locked.pk, ip=ip_address or "")
    return session, key


def session_end(
    *, session: LoginSession, reason: str, at: datetime | None = None, detail: str = "", actor: Actor | None = None
) -> LoginSession:
    """End a login session (logout / timeout / forced) and revoke its tokens. Safe to call twice."""
    if reason not in LoginSession.EndReason.values:
        raise ValueError(f"unknown end reason {reason!r}")
    now = clock.now()
    with transaction.atomic():
        s = LoginSession.objects.select_for_update(no_key=True).get(pk=session.pk)
        if s.ended_at is not None:
            return s
        s.ended_at = at or now
        s.end_reason = reason
        s.end_detail = (detail or "")[:200]
        s.save(update_fields=["ended_at", "end_reason", "end_detail"])
        AuthToken.objects.filter(session=s, revoked_at__isnull=True).update(revoked_at=now, revoked_reason=reason)
        audit_record(
            actor=actor or Actor.system("sessions"),
            action="accounts.session.ended",
            obj=s,
            player_id=s.player_id,
            reason=reason,
            detail=detail,
            ended_at=s.ended_at,
        )
    session.ended_at, session.end_reason, session.end_detail = s.ended_at, s.end_reason, s.end_detail
    return s


def session_activity(*, session: LoginSession, now: datetime) -> str:
    """Activity on a login session at ``now``, wherever it comes from (the player's API token, a studio's call on a
    game session the login launched): ``"live"`` (``last_seen_at`` moved to ``now`` at the resolution above),
    ``"ended"`` (logout, forced logout, panic, exclusion, a limit's logout) or ``"expired"`` (idle timeout or
    maximum age: the session is ended now, at the instant it expired)."""
    if session.ended_at is not None:
        return "ended"
    idle, max_age = rules.session_idle(), rules.session_max_age()
    ends_at = min(session.last_seen_at + idle, session.started_at + max_age)
    if ends_at <= now:
        session_end(
            session=session,
            reason=LoginSession.EndReason.TIMEOUT,
            at=ends_at,
            detail="idle" if ends_at == session.last_seen_at + idle else "max_age",
        )
        return "expired"
    if now - session.last_seen_at >= ACTIVITY_RESOLUTION:
        LoginSession.objects.filter(pk=session.pk, ended_at__isnull=True).update(last_seen_at=now)
        session.last_seen_at = now
    return "live"


def player_force_logout(*, player: Player, reason: str, actor: Actor) -> int:
    """End every open session of the player (reason "forced") and revoke all their tokens."""
    now = clock.now()
    with transaction.atomic():
        ended = 0
        for s in LoginSession.objects.select_for_update(no_key=True).filter(player_id=player.pk, ended_at__isnull=True):
            s.ended_at, s.end_reason, s.end_detail = now, LoginSession.EndReason.FORCED, (reason or "")[:200]
            s.save(update_fields=["ended_at", "end_reason", "end_detail"])
            ended += 1
        revoked = AuthToken.objects.filter(user_id=player.user_id, revoked_at__isnull=True).update(
            revoked_at=now, revoked_reason=f"forced:{reason}"[:50]
        )
        if ended or revoked:
            audit_record(
                actor=actor,
                action="accounts.force_logout",
                obj=player,
                player_id=player.pk,
                reason=reason,
                sessions_ended=ended,
                tokens_revoked=revoked,
            )
    return ended


def sessions_timeout_due(*, now: datetime | None = None, limit: int = 1000) -> int:
    """Sweeper: end sessions idle longer than ACCOUNTS_SESSION_IDLE_MINUTES (ended at last activity + idle)
    or older than ACCOUNTS_SESSION_MAX_HOURS (ended at start + max)."""
    now = now or clock.now()
    idle, max_age = rules.session_idle(), rules.session_max_age()
    due = Q(last_seen_at__lte=now - idle) | Q(started_at__lte=now - max_age)
    ids = list(
        LoginSession.objects.filter(due, ended_at__isnull=True)
        .order_by("last_seen_at")
        .values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        with transaction.atomic():
            s = (
                LoginSession.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(due, pk=pk, ended_at__isnull=True)
                .first()
            )
            if s is None:
                continue
            ends_at = min(s.last_seen_at + idle, s.started_at + max_age)
            session_end(
                session=s,
                reason=LoginSession.EndReason.TIMEOUT,
                at=ends_at,
                detail="idle" if ends_at == s.last_seen_at + idle else "max_age",
                actor=Actor.system("sessions.timeout"),
            )
            done += 1
    return done


def password_change(
    *, user: User, old_password: str, new_password: str, keep_token: AuthToken | None = None, actor: Actor | None = None
) -> None:
    """Change the password (the first one must be changed at first login, GP §4(7)).

    Every other login session of the player ends (reason ``forced``, detail ``password_changed``, audited as any
    session end) and every other token of the user is revoked, so whoever knew the old password is signed out
    everywhere. The calling session keeps its token (``keep_token``): the player who changes the password
    stays signed in where they changed it, which the first-password change at first login needs (GP §4(7)). Without
    ``keep_token`` every session and token ends.
    """
    if not user.check_password(old_password or ""):
        raise errors.OLD_PASSWORD_WRONG()
    problems = []
    if new_password == old_password:
        problems.append("same_as_old")
    try:
        validate_password(new_password or "", user)
    except DjangoValidationError as exc:
        problems.extend(e.code or "invalid" for e in exc.error_list)
    if problems:
        raise errors.PASSWORD_INVALID(problems=problems)
    now = clock.now()
    with transaction.atomic():
        u = User.objects.select_for_update(no_key=True).get(pk=user.pk)
        was_first = u.must_change_password
        u.set_password(new_password)
        u.must_change_password = False
        u.save(update_fields=["password", "must_change_password"])
        actor = actor or Actor.from_user(u)
        sessions = LoginSession.objects.filter(player__user_id=u.pk, ended_at__isnull=True).order_by("pk")
        if keep_token is not None and keep_token.session_id is not None:
            sessions = sessions.exclude(pk=keep_token.session_id)
        ended = 0
        for other in sessions:  # each ends as any session does: its tokens revoked, audited
            session_end(session=other, reason=LoginSession.EndReason.FORCED, detail="password_changed", actor=actor)
            ended += 1
        others = AuthToken.objects.filter(user=u, revoked_at__isnull=True)
        if keep_token is not None:
            others = others.exclude(pk=keep_token.pk)
        revoked = others.update(revoked_at=now, revoked_reason="password_changed")
        player = getattr(u, "player", None) if hasattr(u, "player") else None
        audit_record(
            actor=actor,
            action="accounts.password.changed",
            obj=u,
            player_id=player.pk if player else None,
            first_password=was_first,
            sessions_ended=ended,
            other_tokens_revoked=revoked,
        )
    user.password, user.must_change_password = u.password, False


def exclusion_check(*, player: Player, actor: Actor, context: str) -> bool:
    """Ask the register of excluded persons about this player; record the answer.

    Returns True when listed: the player is flagged (``betting_refusal`` refuses, login refuses)
    and logged out at once. A later "not listed" answer clears the flag. Raises
    ``accounts.adapters.RegisterUnavailable`` (after recording it and opening the staff's outage case,
    ``RegisterReview``) when the register cannot answer.
    """
    try:
        identity = Identity.from_personal(player.personal)
    except Player.personal.RelatedObjectDoesNotExist:
        logger.warning("exclusion check skipped: player %s has no personal data", player.pk)
        return False
    now = clock.now()
    if uses_aisg():
        listed = _aisg_check(player=player, identity=identity, context=context)
        return exclusion_record(player=player, listed=listed, actor=actor, context=context, records=None)
    try:
        listed = get_exclusion_register().is_listed(identity)
    except RegisterUnavailable as exc:
        # the platform fails closed (no login, no play): staff are told as with the AISG interface (one open row per
        # player and context, repeats counted), whichever register did not answer
        registers.review_open(kind=RegisterReview.Kind.OUTAGE, player=player, context=context, reason=str(exc))
        with transaction.atomic():
            RegisterCheck.objects.create(
                player_id=player.pk,
                register=RegisterCheck.Register.EXCLUSION,
                context=context,
                result=RegisterCheck.Result.UNAVAILABLE,
                details={"error": str(exc)[:200]},
                checked_at=now,
            )
        raise
    return exclusion_record(
        player=player,
        listed=listed,
        actor=actor,
        context=context,
        records=[
            {
                "register": RegisterCheck.Register.EXCLUSION,
                "details": {},
                "result": RegisterCheck.Result.LISTED if listed else RegisterCheck.Result.NOT_LISTED,
            }
        ],
    )


def _aisg_check(*, player: Player, identity: Identity, context: str) -> bool:
    """``OveritOsobu`` with reason ``Prihlaseni``, by the stored HID (by the personal data while there is none);
    the decision table: listed -> True; adult, identified, not listed -> False; anything else fails closed
    (RegisterUnavailable; RegisterReviewNeeded when staff must review the person) with a staff case."""
    hid = str(player.personal.aisg_hid) if player.personal.aisg_hid else None
    now = clock.now()
    try:
        answer = get_aisg_register().check(identity, reason=aisg_types.LOGIN, hid=hid)
    except RegisterUnavailable as exc:
        registers.review_open(kind=RegisterReview.Kind.OUTAGE, player=player, context=context, reason=str(exc))
        with transaction.atomic():
            for r in registers.failure_records(str(exc)):
                RegisterCheck.objects.create(player_id=player.pk, context=context, checked_at=now, **r)
        raise
    decision = aisg_client.decide(answer)
    with transaction.atomic():
        for r in registers.records_of(answer):
            RegisterCheck.objects.create(player_id=player.pk, context=context, checked_at=now, **r)
        registers.hid_store(player.pk, answer.hid)
    if decision.outcome == aisg_client.EXCLUDED:
        return True
    if decision.outcome == aisg_client.OK:
        return False
    registers.outcome_review(decision, player=player, context=context, details=registers.answer_details(answer))
    if decision.outcome == aisg_client.UNAVAILABLE:
        raise RegisterUnavailable(f"AISG: {decision.reason}")
    raise RegisterReviewNeeded(f"AISG: {decision.reason}")


def exclusion_record(
    *, player: Player, listed: bool, actor: Actor, context: str, records: list[dict[str, Any]] | None
) -> bool:
    """Record a register answer on the player (the flag, the audit on a change, the logout of a listed player)."""
    now = clock.now()
    with transaction.atomic():
        p = player_lock(player)
        for r in records or []:
            RegisterCheck.objects.create(player=p, context=context, checked_at=now, **r)
        changed = p.exclusion_listed != listed
        p.exclusion_listed = listed
        p.exclusion_checked_at = now
        p.save(update_fields=["exclusion_listed", "exclusion_checked_at"])
        if changed:
            audit_record(
                actor=actor,
                action="accounts.exclusion.listed" if listed else "accounts.exclusion.cleared",
                obj=p,
                old={"exclusion_listed": not listed},
                new={"exclusion_listed": listed},
                player_id=p.pk,
                context=context,
            )
        if listed:
            player_force_logout(player=p, reason="excluded_person", actor=actor)
    player.exclusion_listed, player.exclusion_checked_at = listed, now
    return listed
