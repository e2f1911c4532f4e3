"""The game plan and general terms in force (GP §3(5), §8(1), §13(1), §13(6)).

Staff publish a new version (its text in Czech and English, or a reference to the document with its SHA-256, and
the instant it takes effect, at least ``rules.terms_min_notice()`` ahead); the players are told through their inbox
before it applies (``terms_announce_due``, GP §8(1): a change of the minimum stake or its step is published this
way); from ``effective_at`` a player who has not accepted it is refused the next stake (``betting_refusal``,
GP §3(5)) until they accept it (``terms_accept``). Registration records the acceptance of the version then in force.
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import re
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Exists, OuterRef

from accounts import errors, rules, terms
from accounts.models import Message, Player, TermsAcceptance, TermsVersion, User
from accounts.selectors import terms_in_force
from accounts.services.locks import player_lock
from accounts.services.messages import message_send
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from core.sql import advisory_lock

logger = logging.getLogger("accounts.terms")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
ANNOUNCED_STATUSES = (Player.Status.ACTIVE, Player.Status.TEMPORARY)


def texts_sha256(text_cs: str, text_en: str) -> str:
    """The fingerprint of a version given as texts (what a player accepted can be proven later)."""
    return hashlib.sha256(f"cs:{text_cs}\n\nen:{text_en}".encode()).hexdigest()


def _content(
    *, title: str, summary_cs: str, summary_en: str, text_cs: str, text_en: str, document_url: str, document_sha256: str
) -> str:
    """Check the content of a new version; returns its SHA-256. Texts in both languages, or a document reference
    with its hash (not both)."""
    problems: dict[str, str] = {}
    if not title.strip() or len(title) > 200:
        problems["title"] = "required"
    if not summary_cs.strip():
        problems["summary_cs"] = "required"
    if not summary_en.strip():
        problems["summary_en"] = "required"
    texts = bool(text_cs.strip() or text_en.strip())
    document = bool(document_url.strip() or document_sha256.strip())
    if texts == document:
        problems["content"] = "texts_or_document"
    elif texts and not (text_cs.strip() and text_en.strip()):
        problems["text_cs" if not text_cs.strip() else "text_en"] = "required"
    elif document:
        if not re.match(r"^https?://\S+$", document_url.strip()) or len(document_url) > 500:
            problems["document_url"] = "invalid_url"
        if not _SHA256.match(document_sha256.strip().lower()):
            problems["document_sha256"] = "invalid_sha256"
    if problems:
        raise errors.TERMS_INVALID(fields=problems)
    return texts_sha256(text_cs, text_en) if texts else document_sha256.strip().lower()


def _stake_figures(min_stake: int | None, stake_step: int | None, last: TermsVersion | None) -> tuple[int, int]:
    """GP §8(1): the minimum stake and step the new version publishes: as given, else those of the latest published
    version (unchanged), else the settings' (the first version). Whole haléře, at least 1; the minimum at most the
    maximum stake (GP §8(2))."""
    base = (
        (last.min_stake, last.stake_step)
        if last is not None
        else (terms.settings_stake_grid().min_stake, terms.settings_stake_grid().step)
    )
    lo = base[0] if min_stake is None else min_stake
    step = base[1] if stake_step is None else stake_step
    problems: dict[str, str] = {}
    for name, value in (("min_stake", lo), ("stake_step", step)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems[name] = "a whole number of haléře, at least 1"
    if not problems and lo > settings.GP["MAX_STAKE"]:
        problems["min_stake"] = "above the maximum stake (GP §8(2))"
    if problems:
        raise errors.TERMS_INVALID(fields=problems)
    return lo, step


def _earliest(now: datetime, last: TermsVersion | None) -> datetime:
    """The earliest ``effective_at`` of a new version. GP §8(1): players are told before a change applies, so
    ``rules.terms_min_notice()`` after now. The first version where stakes need one (``ACCOUNTS_TERMS_REQUIRED``,
    GP §3(5)) changes nothing anybody played under (nobody could stake before it): it needs only the snapshot time,
    so that every process knows it when it applies."""
    if last is None and rules.terms_required():
        return now + timedelta(seconds=rules.terms_snapshot_seconds())
    return now + rules.terms_min_notice()


def terms_publish(
    *,
    title: str,
    summary_cs: str,
    summary_en: str,
    effective_at: datetime,
    actor: Actor,
    text_cs: str = "",
    text_en: str = "",
    document_url: str = "",
    document_sha256: str = "",
    published_by: User | None = None,
    min_stake: int | None = None,
    stake_step: int | None = None,
) -> TermsVersion:
    """Publish the next version of the game plan and terms, in force from ``effective_at``.

    GP §8(1): players are told before it applies, so ``effective_at`` is at least ``rules.terms_min_notice()``
    after now (``accounts.terms_notice_too_short``; the first version where ``ACCOUNTS_TERMS_REQUIRED``: the
    snapshot time, see :func:`_earliest`), and after the previous version's (``accounts.terms_effective_order``).
    ``min_stake`` / ``stake_step`` (haléře): the stake grid the version sets (GP §8(1)); omitted, the latest
    version's figures carry on (the settings' for the first one). While the version is in force they are the grid
    the stake gate applies, so the operator changes the minimum stake or its step only through a version announced
    ahead. The announcement goes to the players' inboxes from the sweeper (``terms_announce_due``); from
    ``effective_at`` a player must accept it before the next stake (GP §3(5))."""
    sha256 = _content(
        title=title,
        summary_cs=summary_cs,
        summary_en=summary_en,
        text_cs=text_cs,
        text_en=text_en,
        document_url=document_url,
        document_sha256=document_sha256,
    )
    now = clock.now()
    with transaction.atomic():
        advisory_lock("accounts.terms")
        last = TermsVersion.objects.order_by("-version").first()
        lo, step = _stake_figures(min_stake, stake_step, last)
        earliest = _earliest(now, last)
        if effective_at < earliest:
            raise errors.TERMS_NOTICE_TOO_SHORT(earliest=earliest, effective_at=effective_at)
        if last is not None and effective_at <= last.effective_at:
            raise errors.TERMS_EFFECTIVE_ORDER(previous=last.version, previous_effective_at=last.effective_at)
        version = TermsVersion.objects.create(
            version=(last.version + 1) if last else 1,
            title=title.strip(),
            summary_cs=summary_cs.strip(),
            summary_en=summary_en.strip(),
            text_cs=text_cs,
            text_en=text_en,
            document_url=document_url.strip(),
            sha256=sha256,
            published_at=now,
            effective_at=effective_at,
            published_by=published_by,
            min_stake=lo,
            stake_step=step,
        )
        audit_record(
            actor=actor,
            action="accounts.terms.published",
            obj=version,
            version=version.version,
            effective_at=effective_at,
            sha256=sha256,
            title=version.title,
            min_stake=lo,
            stake_step=step,
            previous_grid=[last.min_stake, last.stake_step] if last else None,
        )
        terms.snapshot_clear()  # this process knows it at once; the others within the snapshot time
        transaction.on_commit(terms.snapshot_clear)
    return version


def _address(value: str | None) -> str | None:
    """The client address as stored (an address the database's inet type takes), else None."""
    try:
        return str(ipaddress.ip_address((value or "").strip()))
    except ValueError:
        return None


def _accept(
    player: Player, version: TermsVersion, *, source: str, source_address: str | None, actor: Actor
) -> TermsAcceptance:
    """Record the acceptance (the player is locked by the caller)."""
    source_address = _address(source_address)
    acceptance = TermsAcceptance.objects.create(
        player=player, version=version, accepted_at=clock.now(), source=source, source_address=source_address
    )
    old = player.terms_version_accepted
    player.terms_version_accepted = max(old or 0, version.version)
    player.save(update_fields=["terms_version_accepted"])
    audit_record(
        actor=actor,
        action="accounts.terms.accepted",
        obj=player,
        old={"terms_version": old},
        new={"terms_version": player.terms_version_accepted},
        player_id=player.pk,
        version=version.version,
        sha256=version.sha256,
        source=source,
        source_address=source_address,
    )
    return acceptance


def terms_accept(*, player: Player, version: int, actor: Actor, source_address: str | None = None) -> TermsAcceptance:
    """The player accepts a published version (GP §3(5)): the one in force or a newer one already announced.

    An unknown version is ``accounts.terms_version_unknown``; one older than the version in force or than the one
    the player accepted already is ``accounts.terms_version_outdated``. Accepting the same version again returns
    the first acceptance."""
    with transaction.atomic():
        p = player_lock(player)
        if p.status in Player.TERMINAL:
            raise errors.INVALID_TRANSITION(account_status=p.status, to="terms_accepted")
        chosen = TermsVersion.objects.filter(version=version).first()
        if chosen is None:
            raise errors.TERMS_VERSION_UNKNOWN(version=version)
        existing = TermsAcceptance.objects.filter(player=p, version=chosen).first()
        if existing is not None:
            return existing
        current = terms_in_force()
        floor = max(current.version if current else 0, p.terms_version_accepted or 0)
        if version < floor:
            raise errors.TERMS_VERSION_OUTDATED(current=floor, given=version)
        acceptance = _accept(p, chosen, source=TermsAcceptance.Source.API, source_address=source_address, actor=actor)
    player.terms_version_accepted = p.terms_version_accepted
    return acceptance


def terms_accept_at_registration(
    *, player: Player, actor: Actor, source_address: str | None = None
) -> TermsAcceptance | None:
    """Registration (GP §4(4)d, §3(5)): the applicant accepted the version in force now (None when none is
    published yet). Call inside the registration's transaction."""
    current = terms_in_force()
    if current is None:
        return None
    return _accept(
        player, current, source=TermsAcceptance.Source.REGISTRATION, source_address=source_address, actor=actor
    )


def _local(at: datetime) -> str:
    return clock.local(at).strftime("%d.%m.%Y %H:%M")


def _grid_lines(version: TermsVersion) -> tuple[str, str]:
    """GP §8(1): the minimum stake and step the version sets, and whether they change (Czech, English)."""
    before = TermsVersion.objects.filter(version__lt=version.version).order_by("-version").first()
    old = (
        (before.min_stake, before.stake_step)
        if before is not None
        else (terms.settings_stake_grid().min_stake, terms.settings_stake_grid().step)
    )
    lo, step = Money(version.min_stake), Money(version.stake_step)
    changed = (version.min_stake, version.stake_step) != old
    cs = f"Minimální sázka {lo.format('cs')}, krok sázek {step.format('cs')} (HP §8 odst. 1)" + (
        f"; dosud {Money(old[0]).format('cs')} a {Money(old[1]).format('cs')}." if changed else ", beze změny."
    )
    en = f"Minimum stake {lo.format('en')}, stake step {step.format('en')} (GP §8(1))" + (
        f"; until then {Money(old[0]).format('en')} and {Money(old[1]).format('en')}." if changed else ", unchanged."
    )
    return cs, en


def terms_announcement(version: TermsVersion) -> dict[str, str]:
    """The inbox message announcing a version before it applies (GP §8(1)), with the minimum stake and step it sets
    (and the figures until then, when they change)."""
    where_cs = (
        f"Plné znění: {version.document_url} (SHA-256 {version.sha256})"
        if version.document_url
        else "Plné znění najdete v aplikaci (Herní plán a podmínky)."
    )
    where_en = (
        f"Full text: {version.document_url} (SHA-256 {version.sha256})"
        if version.document_url
        else "The full text is in the application (Game plan and terms)."
    )
    grid_cs, grid_en = _grid_lines(version)
    return {
        "subject_cs": f"Nové znění herního plánu a podmínek (verze {version.version})"[:200],
        "subject_en": f"New game plan and terms (version {version.version})"[:200],
        "body_cs": (
            f"Od {_local(version.effective_at)} platí nové znění herního plánu a obchodních podmínek "
            f"(verze {version.version}: {version.title}).\n\nCo se mění:\n{version.summary_cs}\n\n"
            f"{grid_cs}\n\n{where_cs}\n\n"
            "Před první sázkou po tomto okamžiku je třeba nové znění přijmout (HP §3 odst. 5)."
        ),
        "body_en": (
            f"From {_local(version.effective_at)} (Prague time) a new game plan and terms apply "
            f"(version {version.version}: {version.title}).\n\nWhat changes:\n{version.summary_en}\n\n"
            f"{grid_en}\n\n{where_en}\n\n"
            "You will need to accept it before your first stake after that time (GP §3(5))."
        ),
    }


def terms_announce_due(*, now: datetime | None = None, limit: int = 500) -> int:
    """Sweeper (GP §8(1)): tell every active or temporary player of each published version not in force yet, through
    the inbox and by e-mail (``message_send``, reference ``accounts.terms:<version>``, so nobody is told twice and a
    player who registers before it applies is told too). A player who accepted it ahead is not told. Returns how
    many messages went out; the first pass that finds nobody left marks the version ``announced_at``."""
    now = now or clock.now()
    sent = 0
    for version in TermsVersion.objects.filter(effective_at__gt=now).order_by("version"):
        reference = f"accounts.terms:{version.version}"
        told = Message.objects.filter(player=OuterRef("pk"), reference=reference)
        due = list(
            Player.objects.filter(status__in=ANNOUNCED_STATUSES)
            .exclude(terms_version_accepted__gte=version.version)
            .exclude(Exists(told))
            .select_related("user", "personal")
            .order_by("pk")[: max(0, limit - sent)]
        )
        text = terms_announcement(version)
        for player in due:
            message_send(
                player=player,
                kind=Message.Kind.TERMS_VERSION,
                reference=reference,
                subject_cs=text["subject_cs"],
                subject_en=text["subject_en"],
                body_cs=text["body_cs"],
                body_en=text["body_en"],
            )
            sent += 1
        if sent >= limit:
            break
        if version.announced_at is None:
            TermsVersion.objects.filter(pk=version.pk, announced_at__isnull=True).update(announced_at=now)
            audit_record(
                actor=Actor.system("accounts.terms_announce"),
                action="accounts.terms.announced",
                obj=version,
                version=version.version,
            )
    return sent
