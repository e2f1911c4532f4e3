"""The staff roles: which permissions each role holds, declared once, here.

A role is a Django group with exactly the permissions listed below. The data migration
``core/migrations/0003_staff_roles.py`` creates the groups on ``migrate`` (also on an empty database), and
``roles_sync`` runs again after every ``migrate`` (``post_migrate``, ``core.apps``), so a permission added to a role
here reaches the group with the next deployment and a permission added to a group by hand is taken away again:
the code is the one record of who may do what. A staff user is given a role by adding them to its group
(``manage.py staff_role_grant USERNAME ROLE``); the superuser holds every permission.

Each decision has its own permission (``<app>.<codename>``, declared in the owning model's ``Meta.permissions``),
checked by the staff API (``core.permissions.staff_permission``) and by the admin's decision views and actions
(``core.admin.decision_path`` / ``decision_action``). Reading is Django's ``view_<model>`` permission.
Roles (the issue's words):

- **support**: reads players, handles complaints; no money or AML decisions (a complaint's money remedy is credited
  by finance or a complaint supervisor: ``complaints.credit_remedy``); birth numbers, document numbers and
  account numbers masked (it lacks ``accounts.view_unmasked_identifiers``).
- **complaint_supervisor**: what support does, plus the complaints' deadline reminders and overdue alerts
  (``complaints.supervise_complaint``) and crediting a money remedy.
- **compliance** (AML): identifications, screening cases, holds, source of funds, exclusions, duplicates,
  personal-data requests.
- **finance** (cashier): payment-method documents, withdrawals, branch cash, payouts, the game providers'
  transactions and their reconciliation cases.
- **game_manager**: game versions and approvals, jackpot configuration, the game plan's published versions, the
  game providers.
- **auditor**: reads everything (including the audit trail, unmasked), exports; changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import Group, Permission

#: the apps whose records staff work with (the auditor reads every model of these)
PLATFORM_APPS = (
    "core",
    "accounts",
    "wallet",
    "limits",
    "aml",
    "jackpots",
    "games",
    "complaints",
    "providers",
    "reports",
    "regulator",
)

SUPERUSER = "superuser"


@dataclass(frozen=True)
class Role:
    name: str
    label: str
    description: str
    permissions: frozenset[str]  # "app_label.codename"; "app_label.view_*" = every view permission of the app


def _views(app: str, *models: str) -> list[str]:
    return [f"{app}.view_{m}" for m in models]


_SUPPORT = [
    *_views(
        "accounts",
        "player",
        "personaldata",
        "consent",
        "identityverification",
        "registercheck",
        "loginsession",
        "message",
        "delivery",
        "termsversion",
        "termsacceptance",
        "datarequest",
    ),
    *_views("wallet", "wallet", "paymentmethod", "deposit", "withdrawal", "payout", "windeduction", "debt"),
    *_views("limits", "selflimit", "selflimitchange", "stakerefusal", "responsiblegamingtext", "helpcontact"),
    *_views("games", "game", "round"),
    *_views("jackpots", "jackpot", "award"),
    "complaints.view_*",
    "complaints.resolve_complaint",
    "accounts.resend_message",
    "accounts.force_logout_player",
]

_COMPLAINT_SUPERVISOR = [*_SUPPORT, "complaints.supervise_complaint", "complaints.credit_remedy"]

_COMPLIANCE = [
    "accounts.view_*",
    "aml.view_*",
    "limits.view_*",
    "complaints.view_*",
    "core.view_auditevent",
    "regulator.view_*",  # the remote-access packages and the Ministry's error notices (a staff task)
    "regulator.reissue_package",
    "regulator.handle_notice",
    *_views(
        "wallet",
        "wallet",
        "paymentmethod",
        "methoddocument",
        "deposit",
        "withdrawal",
        "payout",
        "winhold",
        "windeduction",
        "debt",
        "branchcash",
        "providerevent",
    ),
    *_views("games", "game", "round"),
    *_views("jackpots", "jackpot", "award"),
    "aml.review_identification",
    "aml.decide_case",
    "aml.place_hold",
    "aml.review_source_of_funds",
    "aml.screen_player",
    "aml.import_screening_list",
    "accounts.suspend_player",
    "accounts.close_player",
    "accounts.force_logout_player",
    "accounts.check_exclusion",
    "accounts.set_barred_insider",
    "accounts.register_at_branch",
    "accounts.resolve_duplicate",
    "accounts.decide_correction",
    "accounts.decide_data_request",
    "accounts.view_unmasked_identifiers",
    "accounts.add_barredperson",
    "accounts.change_barredperson",
    "limits.apply_loosening",
    "limits.send_register_report",
    "limits.add_responsiblegamingtext",
    "limits.change_responsiblegamingtext",
    "limits.add_helpcontact",
    "limits.change_helpcontact",
    "wallet.decide_win_hold",
    "games.void_round",
    "reports.view_dayreport",  # the daily report's AML, exclusions and limits figures
    "reports.change_dayreport",  # "recompute now" of a day's report (reports.admin, audited)
]

_FINANCE = [
    "wallet.view_*",
    *_views("accounts", "player", "personaldata", "identityverification", "message", "delivery"),
    *_views("games", "round"),
    "accounts.view_unmasked_identifiers",
    "wallet.review_method_document",
    "wallet.decide_payment_method",
    "wallet.approve_withdrawal",
    "wallet.record_branch_cash",
    "wallet.resend_payout",
    "wallet.deduct_win",
    "wallet.import_bank_statement",
    "wallet.match_bank_credit",
    "wallet.export_payment_orders",
    *_views("providers", "provider", "providertransaction", "reconciliationcase"),
    "providers.resolve_reconciliation",
    "complaints.view_*",
    "complaints.resolve_complaint",
    "complaints.credit_remedy",
]

_GAME_MANAGER = [
    "games.view_*",
    "jackpots.view_*",
    *_views("accounts", "termsversion", "termsacceptance"),
    "games.approve_version",
    "games.toggle_game",
    "games.refund_round",
    "jackpots.add_jackpot",
    "jackpots.change_jackpot",
    "jackpots.start_level",
    "jackpots.manage_level",
    "accounts.publish_terms",
    "providers.view_*",
    "providers.manage_provider",
    "providers.add_provider",
    "providers.change_provider",
    "reports.view_dayreport",  # actual against declared RTP per game
]

_AUDITOR = [
    *(f"{app}.view_*" for app in PLATFORM_APPS),
    "accounts.view_unmasked_identifiers",
    "core.export_audit",
    "reports.export_regulator_record",
]

ROLES: dict[str, Role] = {
    r.name: r
    for r in (
        Role(
            "support",
            "Support",
            "Reads players, handles complaints; no money or AML decisions; identifiers masked.",
            frozenset(_SUPPORT),
        ),
        Role(
            "complaint_supervisor",
            "Complaint supervisor",
            "Handles complaints as support does, receives their deadline alerts and credits money remedies.",
            frozenset(_COMPLAINT_SUPERVISOR),
        ),
        Role(
            "compliance",
            "Compliance / AML",
            "Identifications, screening cases, holds, source of funds, exclusions, duplicates, personal-data requests.",
            frozenset(_COMPLIANCE),
        ),
        Role(
            "finance",
            "Finance / cashier",
            "Payment-method documents, withdrawals, branch cash, payouts.",
            frozenset(_FINANCE),
        ),
        Role(
            "game_manager",
            "Game manager",
            "Game versions and approvals, jackpot configuration.",
            frozenset(_GAME_MANAGER),
        ),
        Role("auditor", "Auditor", "Reads everything, exports; changes nothing.", frozenset(_AUDITOR)),
    )
}


def expand(
    patterns: Iterable[str],
    available: Iterable[tuple[str, str]],
    *,
    strict: bool = True,
) -> set[tuple[str, str]]:
    """The (app_label, codename) pairs the patterns name, from the ``available`` permissions. A name that matches
    no permission raises (a typo must not leave a role silently without a permission), unless ``strict`` is off:
    the data migration runs before later migrations have created their models' permissions."""
    have = set(available)
    out: set[tuple[str, str]] = set()
    for pattern in patterns:
        app, _, codename = pattern.partition(".")
        if codename.endswith("*"):
            prefix = codename[:-1]
            matched = {(a, c) for a, c in have if a == app and c.startswith(prefix)}
        else:
            matched = {(app, codename)} & have
        if not matched and strict:
            raise LookupError(f"role permission {pattern!r} names no permission")
        out |= matched
    return out


def roles_sync(group_model: Any = None, permission_model: Any = None, *, strict: bool = True) -> dict[str, int]:
    """Make each role's group hold exactly its declared permissions (creating the group if needed). Takes the
    models so a migration can pass its historical ones (``strict=False`` there: a permission of a later migration
    does not exist yet; the ``post_migrate`` sync after the whole ``migrate`` is strict). Returns {role: count}."""
    if group_model is None or permission_model is None:
        group_model, permission_model = Group, Permission
    perms = {(p.content_type.app_label, p.codename): p for p in permission_model.objects.select_related("content_type")}
    counts: dict[str, int] = {}
    for role in ROLES.values():
        group, _ = group_model.objects.get_or_create(name=role.name)
        wanted = [perms[k] for k in sorted(expand(role.permissions, perms, strict=strict))]
        group.permissions.set(wanted)
        counts[role.name] = len(wanted)
    return counts


def user_roles(user: Any) -> list[str]:
    """The role names of a staff user ("superuser" for a superuser)."""
    if getattr(user, "is_superuser", False):
        return [SUPERUSER]
    if not getattr(user, "pk", None):
        return []
    return sorted(user.groups.filter(name__in=ROLES).values_list("name", flat=True))


def role_used(user: Any, perm: str | None) -> str:
    """The role through which ``user`` holds ``perm`` (what the audit records with a staff decision): "superuser",
    the role group(s) granting it, "direct" for a permission given to the user alone; without ``perm`` every role
    of the user."""
    if getattr(user, "is_superuser", False):
        return SUPERUSER
    if not getattr(user, "pk", None):
        return ""
    if not perm:
        return "+".join(user_roles(user))
    app, _, codename = perm.partition(".")
    names = sorted(
        user.groups.filter(permissions__content_type__app_label=app, permissions__codename=codename)
        .values_list("name", flat=True)
        .distinct()
    )
    if names:
        return "+".join(names)
    return "direct" if user.user_permissions.filter(content_type__app_label=app, codename=codename).exists() else ""
