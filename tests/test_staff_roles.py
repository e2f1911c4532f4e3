"""Staff roles, generated from the URL configuration and the admin's registered actions.

Every staff API endpoint and every admin decision (custom view or action), as each role, a staff member with no
role and the superuser, answers as the role allows (``core/roles.py``), and a refusal changes nothing. A new staff
endpoint, admin view or action that names no permission fails ``test_every_staff_decision_names_its_permission``.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib import admin as django_admin
from django.contrib.auth.models import Group
from django.test import Client
from django.urls import get_resolver
from rest_framework.test import APIClient

from core import clock
from core.audit import Actor
from core.errors import STAFF_PERMISSION_REQUIRED
from core.permissions import IsStaff, _StaffPermission
from core.roles import ROLES, expand
from tests.kit.accounts import make_player, make_staff, token_for
from tests.test_authorization_matrix import _endpoints, _params, _walk, records  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

PLATFORM = ("core", "accounts", "wallet", "limits", "games", "jackpots", "aml", "complaints")
STANDARD_ADMIN = ("_changelist", "_add", "_change", "_delete", "_history")
WHO = [*ROLES, "no_role", "superuser"]


def _user(who: str) -> Any:
    if who == "superuser":
        return make_staff(superuser=True)
    return make_staff(role=None if who == "no_role" else who)


def _holds(who: str, perm: str) -> bool:
    if who == "superuser":
        return True
    if who == "no_role":
        return False
    app, _, codename = perm.partition(".")
    from django.contrib.auth.models import Permission

    have = {(p.content_type.app_label, p.codename) for p in Permission.objects.select_related("content_type")}
    return (app, codename) in expand(ROLES[who].permissions, have)


def _perm_of(view: Any, method: str = "get") -> str:
    return str(
        next(
            c.needed(method) for c in view.permission_classes if isinstance(c, type) and issubclass(c, _StaffPermission)
        )
    )


def _fill(path: str, values: dict[str, Any]) -> str:
    return "/" + re.sub(r"<(?:\w+:)?(\w+)>", lambda m: str(values[m.group(1)]), path)


def _state() -> dict[str, Any]:
    """What a refused staff call must not change."""
    from aml.models import CaseHold, ComplianceCase, IdentificationCheck, SourceOfFundsDeclaration
    from core.models import AuditEvent
    from wallet.models import BranchCash, LedgerTransaction

    return {
        "audit": AuditEvent.objects.count(),
        "ledger": LedgerTransaction.objects.count(),
        "branch_cash": BranchCash.objects.count(),
        "holds": CaseHold.objects.count(),
        "identifications": list(IdentificationCheck.objects.order_by("pk").values_list("pk", "status")),
        "cases": list(ComplianceCase.objects.order_by("pk").values_list("pk", "status")),
        "sof": list(SourceOfFundsDeclaration.objects.order_by("pk").values_list("pk", "status")),
    }


def test_roles_exist_after_migrate_with_exactly_their_declared_permissions():
    from django.contrib.auth.models import Permission

    have = {(p.content_type.app_label, p.codename) for p in Permission.objects.select_related("content_type")}
    for role in ROLES.values():
        group = Group.objects.get(name=role.name)
        got = {(p.content_type.app_label, p.codename) for p in group.permissions.select_related("content_type")}
        assert got == expand(role.permissions, have), role.name
    # the auditor changes nothing; support takes no money or AML decision and sees no identifier unmasked
    auditor = {c for _, c in expand(ROLES["auditor"].permissions, have)}
    assert all(c.startswith("view_") or c in ("export_audit", "export_regulator_record") for c in auditor)
    support = {f"{a}.{c}" for a, c in expand(ROLES["support"].permissions, have)}
    assert not support & {
        "wallet.approve_withdrawal",
        "wallet.record_branch_cash",
        "aml.decide_case",
        "complaints.credit_remedy",
        "aml.review_identification",
        "accounts.view_unmasked_identifiers",
        "aml.view_compliancecase",
    }


def test_a_permission_added_to_a_role_group_by_hand_is_taken_away_by_the_next_migrate():
    from django.contrib.auth.models import Permission

    from core.roles import roles_sync

    group = Group.objects.get(name="support")
    group.permissions.add(Permission.objects.get(codename="approve_withdrawal"))
    roles_sync()
    assert not group.permissions.filter(codename="approve_withdrawal").exists()


def test_every_staff_decision_names_its_permission():
    """The staff API's endpoints, the admin's custom views and every admin action of the platform's apps."""
    for path, view, _methods in _endpoints(IsStaff):
        classes: Any = view.permission_classes  # type: ignore[attr-defined]
        perms = [c for c in classes if isinstance(c, type) and issubclass(c, _StaffPermission)]
        assert perms, f"{path}: a staff endpoint must use core.permissions.staff_permission(...)"
    custom = 0
    for path, pattern in _walk(get_resolver().url_patterns):
        parts = path.split("/")
        if not path.startswith("admin/") or len(parts) < 3 or parts[1] not in PLATFORM:
            continue
        if not pattern.name or pattern.name.endswith(STANDARD_ADMIN):
            continue
        assert getattr(pattern.callback, "required_permission", None), (
            f"{path}: an admin view of its own must be built with core.admin.decision_path(...)"
        )
        custom += 1
    actions = 0
    for model, model_admin in django_admin.site._registry.items():
        if model._meta.app_label not in PLATFORM:
            continue
        for name in model_admin.actions or ():
            fn: Any = getattr(model_admin, name) if isinstance(name, str) else name
            assert getattr(fn, "required_permission", None), (
                f"{model._meta.label}.{name}: an admin action must be built with core.admin.decision_action(...)"
            )
            actions += 1
    assert custom >= 18 and actions >= 25, (custom, actions)


@pytest.fixture
def staff_records(records):  # noqa: F811  (the fixture imported above)
    """B's identification waiting for review, an open case, a submitted source-of-funds declaration."""
    from aml.models import IdentificationCheck
    from aml.services import case_open, sof_declare

    b = records["player"]
    IdentificationCheck.objects.filter(pk=records["aml_identification"]).update(
        status=IdentificationCheck.Status.DOUBTFUL
    )
    case, _ = case_open(
        player_id=b.pk,
        kind="screening",
        key="staff-roles",
        summary="possible match",
        blocking=False,
        actor=Actor.system(),
    )
    sof = sof_declare(player=b, source="employment", description="salary", actor=Actor.player(b))
    return {**records, "case": case.pk, "sof": sof.pk}


def _api_values(path: str, recs: dict[str, Any]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for name in _params(path):
        if name == "player_id":
            values[name] = recs["player"].pk
        elif "identifications" in path:
            values[name] = recs["aml_identification"]
        elif "cases" in path:
            values[name] = recs["case"]
        elif "source-of-funds" in path:
            values[name] = recs["sof"]
        else:
            values[name] = 1
    return values


API_BODIES: dict[str, dict[str, Any]] = {
    "review": {"approve": True, "note": "checked", "accept": True},
    "decide": {"decision": "cleared", "note": "another person"},
    "holds": {"reason": "regularity", "win_reference": "none", "note": "x"},
    "branch-cash": {
        "player_id": 0,
        "direction": "in",
        "amount": {"amount": 10000, "currency": "CZK"},
        "branch": "Praha 1",
    },
}


@pytest.mark.parametrize("who", WHO)
def test_every_staff_endpoint_answers_as_the_role_allows_and_a_refusal_changes_nothing(staff_records, who):
    client = APIClient(raise_request_exception=False)
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(_user(who))}")
    tried = allowed = 0
    for path, view, methods in _endpoints(IsStaff):
        url = _fill(path, _api_values(path, staff_records))
        for method in methods:
            perm = _perm_of(view, method)
            body: dict[str, Any] = next((b for k, b in API_BODIES.items() if url.rstrip("/").endswith(k)), {})
            if "branch-cash" in url:
                body = {**body, "player_id": staff_records["player"].pk}
            before = _state()
            r = getattr(client, method)(url, body, format="json", HTTP_IDEMPOTENCY_KEY=f"{who}-{tried}")
            tried += 1
            if _holds(who, perm):
                allowed += 1
                assert r.status_code not in (401, 403), (who, method, url, r.status_code, r.content[:300])
            else:
                assert r.status_code == 403, (who, method, url, r.status_code)
                assert r.json()["error"]["code"] == STAFF_PERMISSION_REQUIRED.code, r.json()
                assert r.json()["error"]["details"]["permission"] == perm
                assert _state() == before, (who, method, url)
    assert tried >= 10
    print(f"staff API as {who}: {tried} calls, {allowed} allowed, {tried - allowed} refused")


def _admin_client(who: str) -> Client:
    c = Client(raise_request_exception=False)
    c.force_login(_user(who))
    return c


def _admin_values(path: str, recs: dict[str, Any]) -> dict[str, Any]:
    from accounts.models import CorrectionRequest, DuplicateCase
    from complaints.models import Complaint
    from wallet.models import Wallet

    b = recs["player"]
    table = {
        "accounts/player/": b.pk,
        "aml/identificationcheck/": recs["aml_identification"],
        "aml/compliancecase/": recs["case"],
        "aml/sourceoffundsdeclaration/": recs["sof"],
        "accounts/datarequest/": recs["data_request"],
        "wallet/wallet/": Wallet.objects.get(player=b).pk,
        "complaints/complaint/": Complaint.objects.get(reference=recs["complaint"]).pk,
        "accounts/duplicatecase/": getattr(DuplicateCase.objects.first(), "pk", 1),
        "accounts/correctionrequest/": getattr(CorrectionRequest.objects.first(), "pk", 1),
    }
    out: dict[str, Any] = {}
    for name in _params(path):
        if name == "pk":
            out[name] = next((v for k, v in table.items() if k in path), 1)
        elif name == "action":
            out[name] = "note" if "complaint" in path else "suspend"
        elif name == "side":
            out[name] = "front"
        elif name == "attachment_id":
            out[name] = recs["attachment"]
        else:
            out[name] = 1
    return out


@pytest.mark.parametrize("who", WHO)
def test_every_admin_decision_view_answers_as_the_role_allows_and_a_refusal_changes_nothing(staff_records, who):
    client = _admin_client(who)
    tried = 0
    for path, pattern in _walk(get_resolver().url_patterns):
        perm = getattr(pattern.callback, "required_permission", None)
        if not path.startswith("admin/") or perm is None:
            continue
        values = _admin_values(path, staff_records)
        url = _fill(path, values)
        cases = [(k, p) for k, p in perm.items()] if isinstance(perm, dict) else [(None, perm)]
        for action, needed in cases:
            # a view that maps the value of its URL argument to the permission: that argument takes each value
            kwarg = getattr(pattern.callback, "required_permission_kwarg", "")
            target = _fill(path, {**values, kwarg: action}) if action else url
            for method in ("get", "post"):
                before = _state()
                r = getattr(client, method)(
                    target,
                    {"reason": "x", "note": "x", "approve": "1", "decision": "cleared", "accept": "1", "text": "x"},
                )
                tried += 1
                if _holds(who, needed):
                    assert r.status_code != 403, (who, method, target, r.status_code)
                else:
                    assert r.status_code == 403, (who, method, target, r.status_code)
                    assert _state() == before, (who, method, target)
    assert tried >= 40
    print(f"admin decision views as {who}: {tried} requests")


@pytest.mark.parametrize("who", WHO)
def test_admin_actions_are_offered_only_to_roles_holding_them_and_a_refused_post_changes_nothing(staff_records, who):
    from django.test import RequestFactory

    user = _user(who)
    client = _admin_client(who)
    checked = 0
    for model, model_admin in django_admin.site._registry.items():
        if model._meta.app_label not in PLATFORM or not model_admin.actions:
            continue
        request = RequestFactory().get("/admin/")
        request.user = user
        offered = model_admin.get_actions(request)
        url = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        pks = [str(pk) for pk in model._default_manager.values_list("pk", flat=True)[:5]] or ["1"]
        for name in model_admin.actions:
            fn = getattr(model_admin, str(name))
            perm = fn.required_permission
            assert (name in offered) == _holds(who, perm), (who, model._meta.label, name)
            if not _holds(who, perm):
                before = _state()
                r = client.post(url, {"action": name, "_selected_action": pks, "index": "0"})
                assert r.status_code == 403, (who, model._meta.label, name, r.status_code)
                assert _state() == before, (who, model._meta.label, name)
            checked += 1
    assert checked >= 25


def test_support_sees_birth_document_and_account_numbers_masked_and_compliance_sees_them(staff_records):
    from accounts.models import IdentityVerification
    from wallet.models import PaymentMethod

    b = staff_records["player"]
    birth_number = b.personal.birth_number
    IdentityVerification.objects.filter(player=b).update(document_number="ZX9876543")
    method = PaymentMethod.objects.get(pk=staff_records["method"])
    support, compliance, finance = _admin_client("support"), _admin_client("compliance"), _admin_client("finance")
    page = support.get(f"/admin/accounts/player/{b.pk}/change/").content.decode()
    # the staff page in Czech, the default language
    assert birth_number not in page and birth_number[-3:] in page and "(maskováno)" in page
    assert "ZX9876543" not in page and b.personal.document_number not in page
    assert birth_number in compliance.get(f"/admin/accounts/player/{b.pk}/change/").content.decode()
    page = support.get(f"/admin/wallet/paymentmethod/{method.pk}/change/").content.decode()
    assert method.identifier not in page and method.identifier[-3:] in page
    assert method.identifier not in support.get("/admin/wallet/paymentmethod/").content.decode()
    assert method.identifier in finance.get(f"/admin/wallet/paymentmethod/{method.pk}/change/").content.decode()
    # a search by a part of the birth number finds nothing for support (exact match only); the whole one does
    assert b.user.username not in support.get("/admin/accounts/player/", {"q": birth_number[:6]}).content.decode()
    assert b.user.username in support.get("/admin/accounts/player/", {"q": birth_number}).content.decode()
    # the support role has no money action on the player's page
    page = support.get(f"/admin/accounts/player/{b.pk}/change/").content.decode()
    assert "/act/suspend/" not in page and "/act/close/" not in page and "/act/force_logout/" in page


def test_a_staff_decision_records_the_staff_member_and_the_role_used(staff_records):
    from core.models import AuditEvent

    officer = make_staff(role="compliance")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token_for(officer)}")
    r = api.post(
        f"/api/v1/aml/staff/cases/{staff_records['case']}/decide",
        {"decision": "cleared", "note": "another person"},
        format="json",
    )
    assert r.status_code == 200, r.content
    event = AuditEvent.objects.filter(action__startswith="aml.case").latest("id")
    assert (event.actor_type, event.actor_label, event.actor_role) == ("staff", officer.username, "compliance")
    cashier = make_staff(role="finance")
    admin = Client()
    admin.force_login(cashier)
    from wallet.models import Withdrawal

    w = Withdrawal.objects.get(pk=staff_records["withdrawal"])
    admin.post(
        "/admin/wallet/withdrawal/",
        {"action": "reject", "_selected_action": [str(w.pk)], "index": "0", "confirmed": "1"},
    )
    event = AuditEvent.objects.filter(actor_label=cashier.username).latest("id")
    assert event.actor_role == "finance", (event.action, event.actor_role)


def test_a_staff_endpoint_naming_an_undeclared_permission_stops_the_platform_from_starting():
    from core.apps import check_staff_permissions
    from core.permissions import REQUIRED_PERMISSIONS, staff_permission

    assert check_staff_permissions() == []
    staff_permission("aml.decide_everything")
    try:
        errors = check_staff_permissions()
        assert [e.id for e in errors] == ["core.E010"] and "aml.decide_everything" in errors[0].msg
    finally:
        REQUIRED_PERMISSIONS.discard("aml.decide_everything")


def test_the_hold_notice_reads_the_same_for_an_aml_hold_and_a_regularity_hold():
    """Tipping-off (AML law §38): the player must not learn from the notice that the hold is an AML one."""
    from wallet.models import WinHold
    from wallet.services.notices import hold_notice

    now = clock.now()
    bodies = []
    for reason, days in ((WinHold.Reason.REGULARITY, 60), (WinHold.Reason.AML, 10)):
        hold = WinHold(
            player=make_player(),
            amount=50_000,
            reason=reason,
            held_at=now,
            release_due_at=now + timedelta(days=days),
            reference=f"h-{reason}",
        )
        message = hold_notice(hold=hold, win_amount=50_000, win_reference="T-1")
        bodies.append((message.subject_cs, message.body_cs, message.subject_en, message.body_en))
    assert bodies[0] == bodies[1]


def _model_perms(who: str, model: Any) -> set[str]:
    """Which of the model's four standard permissions the identity holds (by the roles' declaration)."""
    opts = model._meta
    return {a for a in ("view", "change", "add", "delete") if _holds(who, f"{opts.app_label}.{a}_{opts.model_name}")}


#: admins that show a list only (their records have no page of their own, for any role)
LIST_ONLY = {"jackpots.contribution"}


@pytest.mark.parametrize("who", WHO)
def test_every_admin_page_of_every_registered_model_answers_as_the_role_allows(staff_records, who):
    """Reading is the model's view permission: the list, a record's page, its history, the add and delete pages of
    every registered model. A role without the model's view (or change) permission gets 403 on each; a role with it
    reads the list and the record; nobody reads a record through a change permission the role does not hold."""
    client = _admin_client(who)
    checked = 0
    leaks: list[str] = []
    missing: list[str] = []
    for model, _model_admin in django_admin.site._registry.items():
        opts = model._meta
        base = f"/admin/{opts.app_label}/{opts.model_name}/"
        first = model._default_manager.order_by("pk").values_list("pk", flat=True).first()
        pk = first if first is not None else 1
        perms = {"view", "change", "add", "delete"} if who == "superuser" else _model_perms(who, model)
        reads = bool(perms & {"view", "change"})
        pages = {
            "list": base,
            "change": f"{base}{pk}/change/",
            "history": f"{base}{pk}/history/",
            "add": f"{base}add/",
            "delete": f"{base}{pk}/delete/",
        }
        for kind, url in pages.items():
            r = client.get(url)
            if kind == "list" and r.status_code == 302:  # a list that leads to a page of its own (the daily report)
                r = client.get(r["Location"])
            checked += 1
            if kind in ("list", "change", "history"):
                if not reads:
                    # a record that does not exist is a redirect to the index (Django looks it up first)
                    if r.status_code != 403 and not (first is None and kind != "list" and r.status_code == 302):
                        leaks.append(f"{kind} {url} {r.status_code}")
                elif r.status_code == 403 and not (kind != "list" and opts.label_lower in LIST_ONLY):
                    missing.append(f"{kind} {url}")
                elif kind == "list" and reads:
                    assert r.status_code in (200, 302), (who, url, r.status_code)
            elif kind == "add" and not perms and r.status_code == 200:
                leaks.append(f"{kind} {url} {r.status_code}")
            elif kind == "delete" and "delete" not in perms and r.status_code == 200:
                leaks.append(f"{kind} {url} {r.status_code}")
    assert not leaks, f"{who} reads pages its role does not allow:\n" + "\n".join(leaks)
    assert not missing, f"{who} is refused pages its role allows:\n" + "\n".join(missing)
    assert checked >= 5 * 60
    print(f"admin pages as {who}: {checked} requests")


@pytest.mark.parametrize("who", ["support", "game_manager", "auditor", "no_role"])
def test_a_decision_action_posted_by_a_role_lacking_it_is_refused_with_403(staff_records, who):
    from wallet.models import Withdrawal

    client = _admin_client(who)
    w = Withdrawal.objects.get(pk=staff_records["withdrawal"])
    before, status = _state(), w.status
    r = client.post("/admin/wallet/withdrawal/", {"action": "approve", "_selected_action": [str(w.pk)], "index": "0"})
    assert r.status_code == 403, (who, r.status_code)
    w.refresh_from_db()
    assert _state() == before and w.status == status


def test_the_auditor_reads_the_bank_statement_lists_and_decides_nothing_there(staff_records):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(_user('auditor'))}")
    for url in (
        "/api/v1/wallet/staff/bank/statements",
        "/api/v1/wallet/staff/bank/entries",
        "/api/v1/wallet/staff/bank/payment-orders",
    ):
        assert client.get(url).status_code == 200, url
    r = client.post("/api/v1/wallet/staff/bank/payment-orders", {}, format="json", HTTP_IDEMPOTENCY_KEY="aud-1")
    assert r.status_code == 403 and r.json()["error"]["details"]["permission"] == "wallet.export_payment_orders"


@pytest.mark.parametrize("role", ["compliance", "game_manager", "auditor"])
def test_the_roles_that_need_the_daily_report_read_it_and_support_does_not(role):
    assert _admin_client(role).get("/admin/reports/dayreport/daily/").status_code == 200
    assert _admin_client("support").get("/admin/reports/dayreport/daily/").status_code == 403
