"""A player's whole picture: the sections of the player's admin page, each read through the owning app's
selectors and shown only to the staff whose role holds its permission (``Section.permission``; not role names).

Every section costs a fixed number of statements whatever the player's history (each list is the latest N rows, with
a link to the full list); ``backoffice/tests/test_player_page.py`` counts them. Identifiers (birth number, document
numbers, account numbers) are masked (``core.masking.mask``) for roles without ``accounts.view_unmasked_identifiers``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.db import models
from django.urls import reverse
from django.utils.translation import gettext, ngettext

from accounts import selectors as accounts_selectors
from accounts.admin import REGISTER_CONTEXTS, STAFF_ACTION_PERMISSIONS, STAFF_ACTIONS  # the player's decision paths
from accounts.forms import DOCUMENT_NAMES
from accounts.models import Consent, Player
from aml import selectors as aml_selectors
from aml.admin import AML_TRIGGERS
from complaints import selectors as complaints_selectors
from core import clock
from core.admin import code_label, may_see_identifiers
from core.audit_actions import action_label
from core.masking import mask, mask_accounts_in
from core.money import Money, points_text
from core.selectors import readable_changes
from games import selectors as games_selectors
from jackpots import selectors as jackpots_selectors
from limits import selectors as limits_selectors
from limits.admin import change_value_text
from limits.models import LimitType
from wallet import selectors as wallet_selectors
from wallet.admin import staff_statement_line
from wallet.models import Wallet

LATEST = 10  # rows of each list on the page; the rest is one click away


@dataclass(frozen=True)
class Action:
    """A decision offered in a section: it opens a page saying what it will do, and does it only on a POST there."""

    label: str
    url: str
    permission: str


@dataclass
class Section:
    key: str
    title: str
    permission: str
    data: dict[str, Any] = field(default_factory=dict)
    actions: list[Action] = field(default_factory=list)
    more: str = ""  # the full list


@dataclass(frozen=True)
class SectionDef:
    key: str
    title: str
    permission: str  # who reads the section
    build: Callable[[Player, Any, bool], Section]


def _url(name: str, *args: Any, **query: Any) -> str:
    url = reverse(f"admin:{name}", args=args)
    return f"{url}?{urlencode(query)}" if query else url


def _confirm(player: Player, action: str, obj_id: int) -> str:
    return reverse("admin:backoffice_player_confirm", args=[player.pk, action, obj_id])


def _identity(player: Player, user: Any, unmasked: bool) -> Section:
    pd = getattr(player, "personal", None)
    show = (lambda v: v or "") if unmasked else mask
    ids = accounts_selectors.identity_verifications(player, limit=LATEST)
    # the document provider's identifications are AML records: shown to the roles that read them
    checks = (
        aml_selectors.identifications_of(player, limit=LATEST) if user.has_perm("aml.view_identificationcheck") else []
    )
    consents = accounts_selectors.live_consents(player)
    how = [f"{v.get_method_display()} ({v.verified_at:%Y-%m-%d})" for v in ids]
    how += [
        gettext("document provider %(provider)s: %(status)s (%(at)s)")
        % {"provider": c.provider, "status": c.get_status_display(), "at": f"{c.created_at:%Y-%m-%d}"}
        for c in checks
    ]
    population = accounts_selectors.population_check_latest(player)
    if population is not None:
        how.append(
            gettext("population register: %(result)s (%(at)s)")
            % {"result": population.get_result_display(), "at": f"{population.checked_at:%Y-%m-%d}"}
        )
    return Section(
        "identity",
        "Identity and verification",
        "accounts.view_personaldata",
        data={
            "name": f"{pd.given_names} {pd.surname}".strip() if pd else "",
            "date_of_birth": pd.date_of_birth if pd else None,
            "birth_number": show(pd.birth_number) if pd else "",
            "document": f"{_document_name(pd.document_type)} {show(pd.document_number)}".strip() if pd else "",
            "email": pd.email if pd else player.user.email,
            "phone": pd.phone if pd else "",
            "address": ", ".join(x for x in (pd.residence_street, pd.residence_city, pd.residence_postal_code) if x)
            if pd
            else "",
            "masked": not unmasked,
            "identity_verified_at": player.identity_verified_at,
            "aml_identified_at": player.aml_identified_at,
            "how": how,
            "verifications": [
                {
                    "at": v.verified_at,
                    "method": v.get_method_display(),
                    "document": f"{_document_name(v.document_type)} {show(v.document_number)}",
                    "by": str(v.verified_by or ""),
                }
                for v in ids
            ],
            "checks": [
                {
                    "at": c.created_at,
                    "provider": c.provider,
                    "status": c.get_status_display(),
                    "score": c.score,
                    "decided_by": c.decided_by,
                    "id": c.pk,
                    "review": _url("aml_identificationcheck_decide", c.pk)
                    if c.status == c.Status.DOUBTFUL and user.has_perm("aml.review_identification")
                    else "",
                }
                for c in checks
            ],
            "consents": sorted((_consent_name(k), c.version, c.given_at) for k, c in consents.items()),
        },
    )


def _state(player: Player, user: Any, unmasked: bool) -> Section:
    events = accounts_selectors.status_timeline(player, limit=20)

    actions = [
        Action(str(label), _url("accounts_player_act", player.pk, name), STAFF_ACTION_PERMISSIONS[name])
        for name, (label, _form, _help) in STAFF_ACTIONS.items()
        if user.has_perm(STAFF_ACTION_PERMISSIONS[name])
    ]
    return Section(
        "state",
        "Account state",
        "accounts.view_player",
        actions=actions,
        data={
            "status": player.get_status_display(),
            "status_code": player.status,
            "since": player.status_changed_at,
            "reason": player.status_reason,
            "channel": player.get_channel_display(),
            "created_at": player.created_at,
            "temporary_expires_at": player.temporary_expires_at,
            "closed_at": player.closed_at,
            "barred_insider": player.barred_insider,
            "exclusion_listed": player.exclusion_listed,
            "exclusion_checked_at": player.exclusion_checked_at,
            "aml_restriction": player.get_aml_restriction_display() if player.aml_restriction else "",
            "timeline": [
                {
                    "at": e.occurred_at,
                    "action": e.action,
                    "action_label": action_label(e.action),
                    "who": f"{e.actor_type}:{e.actor_label}",
                    "role": e.actor_role,
                    "changes": readable_changes(e.old_values, e.new_values),
                }
                for e in events
            ],
        },
    )


def _limits(player: Player, user: Any, unmasked: bool) -> Section:
    now = clock.now()
    views = limits_selectors.self_limits(player, now=now)
    history = list(limits_selectors.limit_history(player)[:LATEST])
    play = limits_selectors.play_status(player, now=now)
    panic = limits_selectors.active_panic(player, now)
    return Section(
        "limits",
        "Limits, play time and breaks",
        "limits.view_selflimit",
        more=_url("limits_selflimitchange_changelist", player__id__exact=player.pk),
        data={
            "limits": [
                {
                    "type": gettext(LimitType(v.limit_type).label),
                    "unit": v.unit,
                    "value": _limit_value(v.unit, v.value, v.declined),
                    "used": _limit_value(v.unit, v.used, False) if v.used is not None else "",
                    "pending": _limit_value(v.unit, v.pending_value, False) if v.pending else "",
                    "pending_effective_at": v.pending_effective_at,
                }
                for v in views
            ],
            "history": [
                {
                    "requested_at": h.requested_at,
                    "limit_type": h.get_limit_type_display(),
                    "action": h.get_action_display(),
                    "old": change_value_text(h, h.old_value, old=True),
                    "new": change_value_text(h, h.new_value, old=False),
                    "effective_at": h.effective_from,
                }
                for h in history
            ],
            "play": play,
            "panic": panic,
            "play_minutes_used": play["play_seconds_used"] // 60,
            "play_minutes_left": play["play_seconds_left"] // 60 if play["play_seconds_left"] is not None else None,
        },
    )


def _choice_label(choices: type[models.TextChoices], value: str) -> str:
    """A stored value by its label in the staff member's language (the enumerations keep English labels, their
    Czech is in the catalogues), or the value itself if it is not one of the choices."""
    return gettext(choices(value).label) if value in choices.values else value


def _document_name(document_type: str) -> str:
    return gettext(DOCUMENT_NAMES.get(document_type, document_type)) if document_type else ""


def _consent_name(kind: str) -> str:
    return _choice_label(Consent.Kind, kind)


def _limit_value(unit: str, value: int | None, declined: bool) -> str:
    if declined:
        return gettext("declined")
    if value is None:
        return gettext("no limit")
    if unit.endswith("_minor"):
        return str(Money(value))
    return ngettext("%(n)s minute", "%(n)s minutes", value) % {"n": value} if unit == "minutes" else str(value)


def _money(player: Player, user: Any, unmasked: bool) -> Section:
    b = wallet_selectors.balances(player)
    lines = [staff_statement_line(line) for line in wallet_selectors.ledger_recent(player, limit=LATEST)]
    if not unmasked:  # a posting's memo may name an account (a refused deposit's return)
        lines = [dataclasses.replace(line, description=mask_accounts_in(line.description)) for line in lines]
    statement = _url("wallet_wallet_statement", b.wallet_id) if b.wallet_id else ""
    return Section(
        "money",
        "Balances and ledger",
        "wallet.view_wallet",
        more=statement,
        data={
            "available": b.available,
            "held": b.held,
            "debt": b.debt,
            "mode": _choice_label(Wallet.Mode, b.mode),
            "lines": lines,
        },
    )


def _methods(player: Player, user: Any, unmasked: bool) -> Section:
    methods = wallet_selectors.payment_methods_with_documents(player)
    docs_visible = user.has_perm("wallet.view_methoddocument")
    review = user.has_perm("wallet.review_method_document")
    rows: list[dict[str, Any]] = []
    actions: list[Action] = []
    for m in methods:
        docs = []
        for d in m.documents.all() if docs_visible else ():
            docs.append(
                {
                    "name": d.original_name,
                    "status": d.get_status_display(),
                    "uploaded_at": d.uploaded_at,
                    "reviewed_by": d.reviewed_by,
                    "id": d.pk,
                    "url": _url("wallet_methoddocument_change", d.pk),
                    "approve": _confirm(player, "document_approve", d.pk)
                    if review and d.status == d.Status.PENDING
                    else "",
                    "reject": _confirm(player, "document_reject", d.pk)
                    if review and d.status == d.Status.PENDING
                    else "",
                }
            )
        rows.append(
            {
                "kind": m.get_kind_display().split(" (")[0],
                "account": m.display if unmasked else mask(m.display),
                "status": m.get_status_display(),
                "verified_by": m.get_verified_by_display(),
                "verified_at": m.verified_at,
                "verify_by": m.verify_by,
                "blocked": m.deposits_blocked_at,
                "documents": docs,
                "url": _url("wallet_paymentmethod_change", m.pk),
            }
        )
    return Section(
        "methods",
        "Payment methods and their documents",
        "wallet.view_paymentmethod",
        actions=actions,
        more=_url("wallet_paymentmethod_changelist", player__id__exact=player.pk),
        data={"methods": rows, "masked": not unmasked, "documents_visible": docs_visible},
    )


def _payments(player: Player, user: Any, unmasked: bool) -> Section:
    approve = user.has_perm("wallet.approve_withdrawal")
    deposits = wallet_selectors.deposits_of(player, limit=LATEST) if user.has_perm("wallet.view_deposit") else []
    withdrawals = (
        wallet_selectors.withdrawals_of(player, limit=LATEST) if user.has_perm("wallet.view_withdrawal") else []
    )
    return Section(
        "payments",
        "Deposits and withdrawals",
        "wallet.view_deposit",
        more=_url("wallet_deposit_changelist", player__id__exact=player.pk),
        data={
            "deposits": [
                {
                    "at": d.created_at,
                    "amount": Money(d.amount),
                    "status": d.get_status_display(),
                    "reference": d.payment_reference,
                    "provider": d.provider,
                    "reason": d.status_reason if unmasked else mask_accounts_in(d.status_reason),
                }
                for d in deposits
            ],
            "withdrawals": [
                {
                    "at": w.requested_at,
                    "amount": Money(w.amount),
                    "status": w.get_status_display(),
                    "reference": w.reference,
                    "needs_approval": w.needs_approval,
                    "reasons": w.approval_reasons_text,
                    "approve": _confirm(player, "withdrawal_approve", w.pk)
                    if approve and w.status == w.Status.REQUESTED and w.needs_approval
                    else "",
                    "reject": _confirm(player, "withdrawal_reject", w.pk)
                    if approve and w.status == w.Status.REQUESTED and w.needs_approval
                    else "",
                }
                for w in withdrawals
            ],
            "withdrawals_url": _url("wallet_withdrawal_changelist", player__id__exact=player.pk),
        },
    )


def _rounds(player: Player, user: Any, unmasked: bool) -> Section:
    rounds = games_selectors.rounds_latest(player, limit=LATEST)
    return Section(
        "rounds",
        "Rounds",
        "games.view_round",
        more=_url("games_round_changelist", player__id__exact=player.pk),
        data={
            "rounds": [
                {
                    "id": r.pk,
                    "at": r.started_at,
                    "game": f"{r.game_code} v{r.game_version}",
                    "play_money": r.play_money,
                    "stake": points_text(r.stake) if r.play_money else Money(r.stake),
                    "win": points_text(r.win) if r.play_money else Money(r.win),
                    "jackpot": Money(r.jackpot_win),
                    "status": r.get_status_display(),
                    "recall": _url("games_round_change", r.pk),
                }
                for r in rounds
            ]
        },
    )


def _jackpots(player: Player, user: Any, unmasked: bool) -> Section:
    wins = jackpots_selectors.wins_of_player(player_id=player.pk, limit=LATEST)
    return Section(
        "jackpots",
        "Jackpot wins",
        "jackpots.view_award",
        more=_url("jackpots_award_changelist", player__id__exact=player.pk),
        data={
            "wins": [
                {**w, "amount_text": str(Money(w["amount"])), "url": _url("jackpots_award_change", w["id"])}
                for w in wins
            ]
        },
    )


def _holds(player: Player, user: Any, unmasked: bool) -> Section:
    holds = wallet_selectors.win_holds_of(player, limit=LATEST)
    decide = user.has_perm("wallet.decide_win_hold")
    return Section(
        "holds",
        "Holds",
        "wallet.view_winhold",
        more=_url("wallet_winhold_changelist", player__id__exact=player.pk),
        data={
            "holds": [
                {
                    "at": h.held_at,
                    "amount": Money(h.amount),
                    "reason": h.get_reason_display(),
                    "status": h.get_status_display(),
                    "release_due_at": h.release_due_at,
                    "url": _url("wallet_winhold_change", h.pk),
                    "decide": decide and h.status == h.Status.HELD,
                }
                for h in holds
            ]
        },
    )


def _complaints(player: Player, user: Any, unmasked: bool) -> Section:
    rows = complaints_selectors.complaints_recent(player, limit=LATEST)
    return Section(
        "complaints",
        "Complaints",
        "complaints.view_complaint",
        more=_url("complaints_complaint_changelist", player__id__exact=player.pk),
        data={
            "complaints": [
                {
                    "reference": c.reference,
                    "received_at": c.received_at,
                    "reason": c.get_reason_display(),
                    "status": c.get_status_display(),
                    "respond_by": c.respond_by,
                    "outcome": c.get_outcome_display(),
                    "overdue": c.status in c.OPEN_STATUSES and c.respond_by is not None and c.respond_by <= clock.now(),
                    "url": _url("complaints_complaint_change", c.pk),
                }
                for c in rows
            ]
        },
    )


def _aml(player: Player, user: Any, unmasked: bool) -> Section:
    cases = aml_selectors.cases_of(player)
    runs = aml_selectors.screening_runs_of(player)
    decide = user.has_perm("aml.decide_case")
    return Section(
        "aml",
        "AML cases and screening",
        "aml.view_compliancecase",
        more=_url("aml_compliancecase_changelist", player__id__exact=player.pk),
        data={
            "cases": [
                {
                    "id": c.pk,
                    "kind": c.get_kind_display(),
                    "status": c.get_status_display(),
                    "opened_at": c.opened_at,
                    "summary": c.summary,
                    "blocking": c.blocking,
                    "decided_by": c.decided_by,
                    "url": _url("aml_compliancecase_change", c.pk),
                    "decide": _url("aml_compliancecase_decide", c.pk) if decide and c.status == c.Status.OPEN else "",
                }
                for c in cases
            ],
            "runs": [
                {
                    "at": r.ran_at,
                    "trigger": code_label(AML_TRIGGERS, r.trigger),
                    "list": f"{r.list_code} {r.list_version}",
                    "result": r.get_result_display(),
                    "matches": len(r.matches or []),
                }
                for r in runs
            ],
        },
    )


def _registers(player: Player, user: Any, unmasked: bool) -> Section:
    rows = accounts_selectors.register_checks(player, limit=LATEST)
    return Section(
        "registers",
        "Register checks",
        "accounts.view_registercheck",
        more=_url("accounts_registercheck_changelist", player__id__exact=player.pk),
        data={
            "checks": [
                {
                    "checked_at": c.checked_at,
                    "register": c.get_register_display(),
                    "context": code_label(REGISTER_CONTEXTS, c.context),
                    "result": c.get_result_display(),
                }
                for c in rows
            ]
        },
    )


def _notices(player: Player, user: Any, unmasked: bool) -> Section:
    rows = accounts_selectors.messages_recent(player, limit=LATEST)
    return Section(
        "notices",
        "Notices sent and read",
        "accounts.view_message",
        more=_url("accounts_message_changelist", player__id__exact=player.pk),
        data={"messages": rows},
    )


def _data_requests(player: Player, user: Any, unmasked: bool) -> Section:
    rows = accounts_selectors.data_requests_recent(player, limit=LATEST)
    decide = user.has_perm("accounts.decide_data_request")
    return Section(
        "data_requests",
        "Personal-data requests",
        "accounts.view_datarequest",
        more=_url("accounts_datarequest_changelist", player__id__exact=player.pk),
        data={
            "requests": [
                {
                    "kind": r.get_kind_display(),
                    "state": r.get_state_display(),
                    "received_at": r.received_at,
                    "due_at": r.due_at,
                    "url": _url("accounts_datarequest_change", r.pk),
                    "decide": _url("accounts_datarequest_decide", r.pk)
                    if decide and r.state == r.State.PENDING
                    else "",
                }
                for r in rows
            ]
        },
    )


def _audit(player: Player, user: Any, unmasked: bool) -> Section:
    events = accounts_selectors.history_recent(player, limit=50)
    return Section(
        "audit",
        "Audit trail: everything done to the account, and by whom",
        "core.view_auditevent",
        more=_url("backoffice_audit_search", player=player.user.username),
        data={
            "events": [
                {
                    "at": e.occurred_at,
                    "who": f"{e.actor_type}:{e.actor_label}",
                    "role": e.actor_role,
                    "action": e.action,
                    "action_label": action_label(e.action),
                    "object": f"{e.object_type} {e.object_id}".strip(),
                    "changes": readable_changes(e.old_values, e.new_values),
                }
                for e in events
            ]
        },
    )


SECTIONS: tuple[SectionDef, ...] = (
    SectionDef("state", "Account state", "accounts.view_player", _state),
    SectionDef("identity", "Identity and verification", "accounts.view_personaldata", _identity),
    SectionDef("money", "Balances and ledger", "wallet.view_wallet", _money),
    SectionDef("limits", "Limits, play time and breaks", "limits.view_selflimit", _limits),
    SectionDef("methods", "Payment methods", "wallet.view_paymentmethod", _methods),
    SectionDef("payments", "Deposits and withdrawals", "wallet.view_deposit", _payments),
    SectionDef("rounds", "Rounds", "games.view_round", _rounds),
    SectionDef("jackpots", "Jackpot wins", "jackpots.view_award", _jackpots),
    SectionDef("holds", "Holds", "wallet.view_winhold", _holds),
    SectionDef("complaints", "Complaints", "complaints.view_complaint", _complaints),
    SectionDef("aml", "AML cases and screening", "aml.view_compliancecase", _aml),
    SectionDef("registers", "Register checks", "accounts.view_registercheck", _registers),
    SectionDef("notices", "Notices", "accounts.view_message", _notices),
    SectionDef("data_requests", "Personal-data requests", "accounts.view_datarequest", _data_requests),
    SectionDef("audit", "Audit trail", "core.view_auditevent", _audit),
)


def player_picture(player_id: int, user: Any) -> tuple[Player, list[Section]]:
    """The player and the sections ``user`` may read, built in the page's order."""
    player = accounts_selectors.staff_player(player_id)
    unmasked = may_see_identifiers(user)
    return player, [d.build(player, user, unmasked) for d in SECTIONS if user.has_perm(d.permission)]
