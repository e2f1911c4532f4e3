"""Account states and transitions (one service per transition, each audited).

    applicant --checks ok--> temporary --completion--> active
        |                      |   \\--30 days--> expired            (GP §5(2)a, refund GP §5(2)e)
        |                      \\--cancel--> closed                  (GP §5(15): temporary-only -> GP §5(2)e)
        \\--checks failed / 30 days--> rejected
    active --cancel--> closing --balance settled--> closed          (GP §4(10), §5(15))
    active/temporary <--> suspended (staff)

Lock order: the Player row first (``player_lock``), then whatever the wallet and limits lock (they never lock
Player rows). Calls up into ``wallet`` and ``limits`` go through the checked hooks of ``accounts.hooks``.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from accounts import errors, hooks, rules
from accounts.models import Message, Player
from accounts.selectors import email_of, registration_steps
from accounts.services.locks import player_lock
from accounts.services.messages import message_send
from accounts.services.notify import email_link_issue, email_on_commit
from accounts.services.sessions import player_force_logout
from core import clock
from core.audit import Actor, audit_record
from core.errors import DomainError
from core.fsm import status_transition
from core.hooks import Hook

logger = logging.getLogger("accounts.lifecycle")
Status = Player.Status

ALLOWED: dict[str, set[str]] = {
    Status.APPLICANT: {Status.TEMPORARY, Status.REJECTED},
    Status.TEMPORARY: {Status.ACTIVE, Status.EXPIRED, Status.SUSPENDED, Status.CLOSED},
    Status.ACTIVE: {Status.SUSPENDED, Status.CLOSING},
    Status.SUSPENDED: {Status.ACTIVE, Status.TEMPORARY, Status.CLOSING, Status.CLOSED, Status.EXPIRED},
    Status.CLOSING: {Status.CLOSED},
}
TERMINAL_FORCE_LOGOUT = {Status.CLOSED, Status.EXPIRED, Status.REJECTED}


def player_transition(player: Player, to: str, *, reason: str, actor: Actor, action: str, **details: Any) -> None:
    """Move a locked player to ``to`` (checked against ALLOWED; refused with ``accounts.invalid_transition``,
    details ``current`` and ``target``) and audit it, all in the caller's transaction.

    A closed, expired or rejected account is logged out at once. When it closes or expires, ``limits`` freezes
    the self-limits in force (``account_closed`` hook, ZHH §14a) in the same transaction: the closure and the
    frozen limits commit together or not at all."""
    now = clock.now()
    status_transition(
        player,
        to=to,
        allowed=ALLOWED,
        refused=errors.INVALID_TRANSITION,
        actor=actor,
        action=action,
        extra_fields={"status_changed_at": now, "status_reason": (reason or "")[:200]},
        reason=reason,
        player_id=player.pk,
        **details,
    )
    if to in TERMINAL_FORCE_LOGOUT:
        player_force_logout(player=player, reason=f"account_{to}", actor=actor)
    if to in (Status.CLOSED, Status.EXPIRED):
        hooks.account_closed(player=player, actor=actor, closed_at=now)


def _sync(target: Player, source: Player) -> None:
    for f in source._meta.concrete_fields:
        setattr(target, f.attname, getattr(source, f.attname))


# Temporary account ------------------------------------------------------------------------------
def temporary_activate(*, player: Player, actor: Actor) -> Player:
    """GP §5(1): personal data entered and identity/age 18+ verified -> temporary account.

    It lives 30 days from activation (GP §5(2)a) but never past 30 days from the start of
    registration (GP §5(9), §6(2)); when the checks ran at once both are the same instant.
    """
    with transaction.atomic():
        p = player_lock(player)
        now = clock.now()
        lifetime = rules.temporary_lifetime()
        p.identity_verified_at = p.identity_verified_at or now
        p.temporary_activated_at = now
        p.temporary_expires_at = min(now, p.created_at) + lifetime
        p.checks_retry_at = None
        p.save(
            update_fields=["identity_verified_at", "temporary_activated_at", "temporary_expires_at", "checks_retry_at"]
        )
        player_transition(
            p,
            Status.TEMPORARY,
            reason="identity_and_age_verified",
            actor=actor,
            action="accounts.temporary.activated",
            expires_at=p.temporary_expires_at,
        )
        email_link_issue(player=p)
    _sync(player, p)
    return player


def registration_reject(*, player: Player, reason: str, actor: Actor, notify: bool = True) -> Player:
    """An applicant whose register checks failed (or never finished within 30 days) is refused."""
    with transaction.atomic():
        p = player_lock(player)
        p.checks_retry_at = None
        p.save(update_fields=["checks_retry_at"])
        player_transition(p, Status.REJECTED, reason=reason, actor=actor, action="accounts.registration.rejected")
        p.user.set_unusable_password()
        p.user.save(update_fields=["password"])
        if notify:
            support = settings.ACCOUNTS_SUPPORT_CONTACT
            email_on_commit(
                to=email_of(p),
                subject_cs="Registraci nelze dokončit",
                subject_en="Registration cannot be completed",
                body_cs=f"Vaši registraci nelze dokončit (důvod: {reason}). "
                f"S dotazy se obraťte na zákaznickou podporu: {support}.",
                body_en=f"Your registration cannot be completed (reason: {reason}). "
                f"Please contact customer support: {support}.",
            )
    _sync(player, p)
    return player


def registration_complete(*, player: Player, actor: Actor) -> Player:
    """GP §4(8), §5(3): every step done -> the temporary account becomes the player account and its
    balance moves over (``temporary_convert`` hook: ``wallet.services.wallet_convert_temporary``,
    GP §5(2)d, §5(5))."""
    with transaction.atomic():
        p = player_lock(player)
        now = clock.now()
        if p.status != Status.TEMPORARY:
            raise errors.NOT_TEMPORARY(account_status=p.status)
        if p.temporary_expires_at and p.temporary_expires_at <= now:
            raise errors.TEMPORARY_EXPIRED(expired_at=p.temporary_expires_at)
        steps = registration_steps(p, now=now)
        if steps["missing"]:
            raise errors.REGISTRATION_INCOMPLETE(missing=steps["missing"], deadline=p.temporary_expires_at)
        hooks.temporary_convert(player=p, actor=actor)  # while still temporary, in this transaction
        p.completed_at = now
        p.save(update_fields=["completed_at"])
        player_transition(
            p, Status.ACTIVE, reason="registration_complete", actor=actor, action="accounts.registration.completed"
        )
        email_on_commit(
            to=email_of(p),
            subject_cs="Registrace dokončena",
            subject_en="Registration complete",
            body_cs="Vaše registrace je dokončena a dočasné konto bylo převedeno na uživatelské konto.",
            body_en="Your registration is complete; the temporary account became your player account.",
        )
    _sync(player, p)
    return player


def registration_try_complete(*, player: Player, actor: Actor) -> bool:
    """Complete the registration if every step is done now (used by the sweeper; never raises a refusal)."""
    try:
        registration_complete(player=player, actor=actor)
        return True
    except DomainError as exc:
        logger.debug("registration of %s not completed: %s", player.pk, exc.code)
        return False


def _temporary_only(p: Player) -> bool:
    """A temporary account, or one suspended while temporary."""
    return p.status == Status.TEMPORARY or (p.status == Status.SUSPENDED and p.suspended_from == Status.TEMPORARY)


def temporary_expire(*, player: Player, actor: Actor) -> Player:
    """GP §5(2)a: a temporary account not completed within 30 days is cancelled; the balance goes to the
    wallet's refund process (GP §5(2)e) and the applicant is told by e-mail."""
    with transaction.atomic():
        p = player_lock(player)
        now = clock.now()
        if not _temporary_only(p):
            raise errors.NOT_TEMPORARY(account_status=p.status)
        if p.temporary_expires_at is None or p.temporary_expires_at > now:
            raise errors.INVALID_TRANSITION(
                account_status=p.status, to=Status.EXPIRED, expires_at=p.temporary_expires_at
            )
        p.closed_at = now
        p.balance_handoff = "refund"
        p.save(update_fields=["closed_at", "balance_handoff"])
        # The wallet sees the account still temporary (it keys its refund on that), same transaction.
        balance_handoff_attempt(player=p, actor=actor)
        player_transition(
            p,
            Status.EXPIRED,
            reason="temporary_account_30_days",
            actor=actor,
            action="accounts.temporary.expired",
            expires_at=p.temporary_expires_at,
        )
        message_send(  # a proven notice of the cancellation (inbox + e-mail, each delivery recorded)
            player=p,
            kind=Message.Kind.ACCOUNT_CANCELLATION,
            reference=f"accounts.temporary_expired:{p.pk}",
            subject_cs="Dočasné konto bylo zrušeno",
            subject_en="Your temporary account was cancelled",
            body_cs=(
                "Registrace nebyla dokončena do 30 dnů, proto bylo dočasné konto zrušeno (HP §5 odst. 2). "
                "Nevyužitý vklad vám vrátíme do 7 dnů na platební prostředek, případně vás vyzveme k vyzvednutí "
                "na pobočce."
            ),
            body_en=(
                "Your registration was not completed within 30 days, so the temporary account was cancelled "
                "(GP §5(2)). We return the unused deposit within 7 days to your payment method, or invite you "
                "to collect it at a branch."
            ),
        )
    _sync(player, p)
    return player


def _temporary_due(now: datetime) -> Q:
    return (Q(status=Status.TEMPORARY) | Q(status=Status.SUSPENDED, suspended_from=Status.TEMPORARY)) & Q(
        temporary_expires_at__lte=now
    )


def temporary_expire_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Sweeper (GP §5(2)a): expire every temporary account past its deadline; each in its own transaction."""
    now = now or clock.now()
    ids = list(
        Player.objects.filter(_temporary_due(now)).order_by("temporary_expires_at").values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        with transaction.atomic():
            p = (
                Player.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(_temporary_due(now), pk=pk)
                .first()
            )
            if p is None:
                continue
            temporary_expire(player=p, actor=Actor.system("accounts.temporary_expire"))
            done += 1
    return done


# Suspension (staff) -------------------------------------------------------------------------------
def player_suspend(*, player: Player, reason: str, actor: Actor) -> Player:
    with transaction.atomic():
        p = player_lock(player)
        if p.status not in (Status.ACTIVE, Status.TEMPORARY):
            raise errors.INVALID_TRANSITION(account_status=p.status, to=Status.SUSPENDED)
        p.suspended_from = p.status
        p.save(update_fields=["suspended_from"])
        player_transition(p, Status.SUSPENDED, reason=reason, actor=actor, action="accounts.player.suspended")
    _sync(player, p)
    return player


def player_reinstate(*, player: Player, reason: str, actor: Actor) -> Player:
    with transaction.atomic():
        p = player_lock(player)
        if p.status != Status.SUSPENDED:
            raise errors.INVALID_TRANSITION(account_status=p.status, to=p.suspended_from or Status.ACTIVE)
        to = p.suspended_from or Status.ACTIVE
        p.suspended_from = ""
        p.save(update_fields=["suspended_from"])
        player_transition(p, to, reason=reason, actor=actor, action="accounts.player.reinstated")
    _sync(player, p)
    return player


def player_set_barred_insider(*, player: Player, barred: bool, note: str, actor: Actor) -> Player:
    """GP §3(3): shareholders, employees and officers of the operator are flagged and may not bet."""
    with transaction.atomic():
        p = player_lock(player)
        if p.barred_insider != barred or p.barred_insider_note != note[:200]:
            old = {"barred_insider": p.barred_insider, "note": p.barred_insider_note}
            p.barred_insider, p.barred_insider_note = barred, note[:200]
            p.save(update_fields=["barred_insider", "barred_insider_note"])
            audit_record(
                actor=actor,
                action="accounts.player.barred_insider",
                obj=p,
                old=old,
                new={"barred_insider": barred, "note": p.barred_insider_note},
                player_id=p.pk,
            )
    _sync(player, p)
    return player


def aml_restriction_record(*, player: Player, restriction: str, actor: Actor, reason: str = "") -> bool:
    """The AML duties decided what the player's blocking compliance cases refuse (``Player.AmlRestriction``:
    ``""``, ``review`` or ``refused``; docs/aml.md). ``aml`` calls this in the transaction that opens or decides a
    case, so the row the stake gate reads (limits' one locking statement) changes together with the case. The
    Player row is locked first (the house lock order). Audited when it changes; True if it changed."""
    if restriction not in Player.AmlRestriction.values:
        raise ValueError(f"unknown AML restriction {restriction!r}")
    with transaction.atomic():
        p = player_lock(player)
        changed = p.aml_restriction != restriction
        if changed:
            old = p.aml_restriction
            p.aml_restriction = restriction
            p.save(update_fields=["aml_restriction"])
            audit_record(
                actor=actor,
                action="accounts.player.aml_restriction",
                obj=p,
                old={"aml_restriction": old},
                new={"aml_restriction": restriction},
                player_id=p.pk,
                reason=reason[:200],
            )
    player.aml_restriction = p.aml_restriction
    return changed


# Closure (GP §4(10), §5(13), §5(15), §12(6)) -------------------------------------------------------
def closure_request(*, player: Player, method: str, actor: Actor, reason: str = "player_request") -> Player:
    """Cancel the registration at any time. The player chooses the settlement (transfer to the
    registered payment method, or cash at a branch, max 5,000 CZK / 24 h); the wallet settles
    the balance (``closure_settlement_start``) and the account closes once it is settled (within
    10 days, GP §5(15)). A temporary-only account closes now and is paid out per GP §5(2)e.
    The player is notified provably (inbox + e-mail, ``message_send``, as GP §7(7) wants for a notice the operator
    must be able to prove)."""
    if method not in Player.ClosureMethod.values:
        raise errors.CLOSURE_METHOD_INVALID(allowed=Player.ClosureMethod.values)
    with transaction.atomic():
        p = player_lock(player)
        now = clock.now()
        if p.status == Status.APPLICANT:
            player_transition(
                p, Status.REJECTED, reason=f"cancelled:{reason}", actor=actor, action="accounts.registration.cancelled"
            )
        elif _temporary_only(p):
            p.closure_requested_at, p.closure_method, p.closed_at = now, method, now
            p.balance_handoff = "refund"
            p.save(update_fields=["closure_requested_at", "closure_method", "closed_at", "balance_handoff"])
            balance_handoff_attempt(player=p, actor=actor)  # GP §5(2)e refund, while still temporary
            player_transition(
                p,
                Status.CLOSED,
                reason=reason,
                actor=actor,
                action="accounts.closure.temporary_cancelled",
                method=method,
            )
        elif p.status in (Status.ACTIVE, Status.SUSPENDED):
            p.closure_requested_at, p.closure_method = now, method
            # GP §5(13): an account closed for evident misuse is paid to its last registered method (else
            # branch, then post), whatever settlement was named; any other closure is settled per GP §5(15).
            p.balance_handoff = "misuse" if reason == "misuse" else "settlement"
            p.save(update_fields=["closure_requested_at", "closure_method", "balance_handoff"])
            player_transition(
                p, Status.CLOSING, reason=reason, actor=actor, action="accounts.closure.requested", method=method
            )
            balance_handoff_attempt(player=p, actor=actor)
        else:
            raise errors.INVALID_TRANSITION(account_status=p.status, to=Status.CLOSING)
        message_send(  # a proven notice of the cancellation (inbox + e-mail, each delivery recorded)
            player=p,
            kind=Message.Kind.ACCOUNT_CANCELLATION,
            reference=f"accounts.closure_request:{p.pk}",
            subject_cs="Žádost o zrušení registrace přijata",
            subject_en="Cancellation request received",
            body_cs=(
                "Přijali jsme vaši žádost o zrušení registrace. Zůstatek vypořádáme zvoleným způsobem "
                f"({method}); konto zrušíme nejpozději do 10 dnů od vypořádání zůstatku."
            ),
            body_en=(
                "We received your request to cancel the registration. The balance is settled as you chose "
                f"({method}); the account closes within 10 days of the settlement."
            ),
        )
    _sync(player, p)
    return player


HANDOFF_HOOKS: dict[str, Hook[Any, object]] = {
    "refund": hooks.temporary_refund_start,  # wallet.services.temporary_refund_start (GP §5(2)e)
    "settlement": hooks.closure_settlement_start,  # wallet.services.closure_settlement_start (GP §5(15))
    "misuse": hooks.misuse_payout_start,  # wallet.services.misuse_payout_start (GP §5(13))
}


def balance_handoff_attempt(*, player: Player, actor: Actor) -> bool:
    """Start the wallet process named in ``player.balance_handoff`` (call with the player locked).

    First the ``carried_money_release`` hook credits what the games carry for the player to the balance (GP
    §10(1)-(2)). "refund": the ``temporary_refund_start`` hook (GP §5(2)e); "settlement": the
    ``closure_settlement_start`` hook (GP §5(15)); "misuse": the ``misuse_payout_start`` hook (GP §5(13)). Runs
    in a savepoint: when the wallet refuses (a ``DomainError``), the account change stands, the refusal's code is
    kept in ``balance_handoff_error`` and a sweeper retries the hand-off. Any other failure (a missing hook included)
    rolls the whole account change back.
    """
    if not player.balance_handoff or player.balance_handoff_at is not None:
        return True
    handoff = HANDOFF_HOOKS[player.balance_handoff]
    handoff.implementation  # noqa: B018  (raises HookMissing here, outside the savepoint: never read as a refusal)
    hooks.carried_money_release.implementation  # noqa: B018  (the same)
    try:
        with transaction.atomic():
            # GP §10(1)-(2): money the games hold for the player (carried bonuses) joins the balance first
            hooks.carried_money_release(player=player, actor=actor)
            if handoff is hooks.closure_settlement_start:
                hooks.closure_settlement_start(player=player, method=player.closure_method, actor=actor)
            elif handoff is hooks.temporary_refund_start:
                hooks.temporary_refund_start(player=player, actor=actor)
            else:
                hooks.misuse_payout_start(player=player, actor=actor)
    except DomainError as exc:
        player.balance_handoff_error = exc.code[:200]
        player.save(update_fields=["balance_handoff_error"])
        return False
    player.balance_handoff_at, player.balance_handoff_error = clock.now(), ""
    player.save(update_fields=["balance_handoff_at", "balance_handoff_error"])
    audit_record(
        actor=actor,
        action=f"accounts.balance.{player.balance_handoff}_started",
        obj=player,
        player_id=player.pk,
        wallet_function=handoff.name,
    )
    return True


def balance_handoffs_retry_due(*, limit: int = 500) -> int:
    """Sweeper: retry wallet hand-offs the wallet refused."""
    ids = list(
        Player.objects.exclude(balance_handoff="")
        .filter(balance_handoff_at__isnull=True)
        .values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        with transaction.atomic():
            p = (
                Player.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(pk=pk, balance_handoff_at__isnull=True)
                .exclude(balance_handoff="")
                .first()
            )
            if p is not None and balance_handoff_attempt(player=p, actor=Actor.system("accounts.balance_handoff")):
                done += 1
    return done


def player_close(*, player: Player, actor: Actor, reason: str = "balance_settled") -> Player:
    """closing -> closed once the wallet reports the balance settled (``closure_settled_at`` hook, GP §5(15))."""
    settled_at_of = hooks.closure_settled_at.implementation
    with transaction.atomic():
        p = player_lock(player)
        if p.status != Status.CLOSING:
            raise errors.INVALID_TRANSITION(account_status=p.status, to=Status.CLOSED)
        settled_at = settled_at_of(p)
        if settled_at is None:
            raise errors.INVALID_TRANSITION(account_status=p.status, to=Status.CLOSED, reason="balance not settled yet")
        p.closed_at = clock.now()
        p.save(update_fields=["closed_at"])
        player_transition(
            p, Status.CLOSED, reason=reason, actor=actor, action="accounts.closure.closed", settled_at=settled_at
        )
        message_send(
            player=p,
            kind=Message.Kind.ACCOUNT_CANCELLATION,
            reference=f"accounts.closed:{p.pk}",
            subject_cs="Konto zrušeno",
            subject_en="Account closed",
            body_cs="Zůstatek byl vypořádán a vaše konto je zrušeno.",
            body_en="The balance was settled and your account is closed.",
        )
    _sync(player, p)
    return player


def closures_finalize_due(*, limit: int = 500) -> int:
    """Sweeper (GP §5(15)): close every closing account whose balance the wallet has settled."""
    settled_at_of = hooks.closure_settled_at.implementation
    ids = list(Player.objects.filter(status=Status.CLOSING).values_list("pk", flat=True)[:limit])
    done = 0
    for pk in ids:
        with transaction.atomic():
            p = (
                Player.objects.select_for_update(no_key=True, skip_locked=True)
                .filter(pk=pk, status=Status.CLOSING)
                .first()
            )
            if p is None or settled_at_of(p) is None:
                continue
            player_close(player=p, actor=Actor.system("accounts.closure_finalize"))
            done += 1
    return done


def registrations_autocomplete_due(*, limit: int = 500) -> int:
    """Sweeper: complete temporary registrations whose last step (often the wallet's payment-method
    verification) was done elsewhere."""
    ids = list(
        Player.objects.filter(
            status=Status.TEMPORARY,
            temporary_expires_at__gt=clock.now(),
            email_confirmed_at__isnull=False,
            user__must_change_password=False,
        ).values_list("pk", flat=True)[:limit]
    )
    done = 0
    for pk in ids:
        p = Player.objects.select_related("user").get(pk=pk)
        if registration_try_complete(player=p, actor=Actor.system("accounts.autocomplete")):
            done += 1
    return done
