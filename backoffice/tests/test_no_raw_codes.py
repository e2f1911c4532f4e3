"""No stored code on a staff page in Czech: on the demo's data, every admin list and the first record pages of every
registered model, every player's page and statement, the home page of every role and the search show each choice
value (a status, a kind, how a payment method was verified, a statement's category) by its translated label, never
as the code the database stores ("first_payment", "withdrawal_hold", "requested"). A new column or page that shows a
raw code fails here."""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest
from django.apps import apps
from django.contrib import admin
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import translation

from core.roles import ROLES
from tests.kit.accounts import make_staff

pytestmark = pytest.mark.django_db

#: codes that are also a word or a name staff read as it is, each with the reason
SAME_AS_SHOWN = {
    "sandbox": "the outside party's sandbox: the adapter's name, shown as configured",
    "kobushi": "the name of a game and of its jackpot level (Kobushi), not a code",
}
#: pages whose values are an outside party's or a handler's own words, each with the reason
TECHNICAL_LOGS = {
    "/admin/wallet/providerevent/": "the payment providers' callback log: each callback's handling outcome as the "
    "handler wrote it (also returned to the provider), for a developer tracing a callback",
    "/admin/aml/identificationevent/": "the identification provider's callback log, the same",
}
#: a cell of a list or a table, a read-only field of a record page, a filter's link; a stored record
#: (``class="record"``: a ledger memo, the audit trail's fields) is data in the language it was written in
_CELL = re.compile(
    r'<td(?![^>]*class="record")[^>]*>(.*?)</td>|<th class="field-[^"]*"[^>]*>(.*?)</th>|'
    r'<div class="readonly">(.*?)</div>|<li[^>]*>\s*<a href="\?[^"]*"[^>]*>([^<]*)</a>',
    re.S,
)
#: a word of a cell; a key such as "deposit:8645833289" or "pep:14" (an idempotency key, a case's key) is one word,
#: an identifier, not a code
_TOKEN = re.compile(r"[^\s,;()·]+")


def stored_codes() -> set[str]:
    """Every choice value of every model field that differs from its English label (a code, not a word shown as it
    is), and the codes the statement composes (its categories and ledger accounts)."""
    from wallet.selectors import ACCOUNT_LABEL, CATEGORY

    codes: set[str] = {*CATEGORY.values(), *ACCOUNT_LABEL.values(), "other"}
    with translation.override("en"):
        for model in apps.get_models():
            for field in model._meta.get_fields():
                for value, label in getattr(field, "flatchoices", None) or ():
                    if isinstance(value, str) and re.fullmatch(r"[a-z][a-z0-9_]{2,}", value):
                        if value != str(label).strip().lower():
                            codes.add(value)
    # names that happen to equal a code: a staff account's or a player's username (the demo's "operator"), a
    # ledger account's code (the chart of accounts names the house accounts "house", "refunds_payable")
    from accounts.models import User
    from wallet.models import LedgerAccount

    names = {*User.objects.values_list("username", flat=True), *LedgerAccount.objects.values_list("code", flat=True)}
    return codes - set(SAME_AS_SHOWN) - names


def raw_codes(page: str, codes: set[str]) -> dict[str, str]:
    """The codes ``page`` shows in a cell, a read-only field or a filter's link: a code written with an underscore
    anywhere in it ("first_payment 7. 12. 2026"), or a one-word code as the cell's only word ("requested"; a word in
    a sentence a player or a memo wrote is not a code)."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    found: dict[str, str] = {}
    for groups in _CELL.findall(page):
        text = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", "".join(groups))).split())
        tokens = [t.rstrip(":.") for t in _TOKEN.findall(text)]
        words = [t for t in tokens if re.search(r"[^\W\d]", t)]
        for code in [t for t in tokens if "_" in t and t in codes] + (words if len(words) == 1 else []):
            if code in codes:
                found.setdefault(code, text[:80])
    return found


def _pages() -> list[str]:
    from accounts.models import Player
    from wallet.models import Wallet

    urls = ["/admin/", "/admin/accounts/player/search/?q=demo"]
    for model in admin.site._registry:
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls.append(reverse(f"{prefix}_changelist"))
        for pk in model._default_manager.order_by("-pk").values_list("pk", flat=True)[:2]:
            urls.append(reverse(f"{prefix}_change", args=[pk]))
    urls += [f"/admin/accounts/player/{pk}/change/" for pk in Player.objects.values_list("pk", flat=True)]
    urls += [f"/admin/wallet/wallet/{pk}/statement/" for pk in Wallet.objects.values_list("pk", flat=True)]
    return urls


def _seed_demo(settings: Any, tmp_path: Any) -> None:
    from regulator.sandbox_pki import operator_settings, sandbox_pki

    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.REGULATOR_PACKAGE_DIR = tmp_path / "packages"
    for name, value in operator_settings(sandbox_pki(tmp_path / "regulator-sandbox")).items():
        setattr(settings, name, [value] if name == "REGULATOR_MINISTRY_ENCRYPTION_CERTS" else value)
    call_command("seed_demo", stdout=io.StringIO())


def test_the_check_finds_a_raw_code_in_a_cell_and_passes_its_label() -> None:
    codes = stored_codes()
    assert {"first_payment", "withdrawal_hold", "requested", "deposit", "held"} <= codes
    assert "sandbox" not in codes
    assert raw_codes(
        '<table><tr><td>first_payment 7. 12. 2026</td><td class="record">requested</td></tr>', codes
    ).keys() == {"first_payment"}
    assert raw_codes('<div class="readonly">withdrawal_hold</div>', codes).keys() == {"withdrawal_hold"}
    assert raw_codes('<th class="field-kind"><a href="x">deposit</a></th>', codes).keys() == {"deposit"}
    assert raw_codes("<td>requested</td><td> 7. 12. 2026 verified</td>", codes).keys() == {"requested", "verified"}
    assert not raw_codes("<td>deposit:8645833289</td><td>pep:14</td>", codes)  # keys: identifiers
    assert not raw_codes("<td>první platba (HP §5(8)a) 7. 12. 2026</td><td>demo_active</td>", codes)
    assert not raw_codes("<td>the deposit was refused</td>", codes)  # words of a sentence, not codes


def test_no_staff_page_shows_a_stored_code_to_a_czech_staff_member(settings: Any, tmp_path: Any) -> None:
    _seed_demo(settings, tmp_path)
    codes = stored_codes()
    staff = [make_staff(role=None, superuser=True)] + [make_staff(role=role) for role in ROLES]
    urls = _pages()
    found: dict[str, set[str]] = {}
    seen = 0
    for user in staff:
        client = Client(headers={"accept-language": "cs-CZ,cs;q=0.9"})
        client.force_login(user)
        for url in urls if user.is_superuser else ["/admin/", *[u for u in urls if "/player/" in u]]:
            if any(url.startswith(log) for log in TECHNICAL_LOGS):
                continue
            r = client.get(url)
            if r.status_code != 200:
                continue
            seen += 1
            for code, cell in raw_codes(r.content.decode(), codes).items():
                found.setdefault(code, set()).add(f"{cell!r} on {url} ({user.username})")
    assert seen >= 150, seen
    # a coded field's filter offers the labels and filters by the code (``core.admin.code_filter``)
    from aml.models import ScreeningRun

    client = Client(headers={"accept-language": "cs"})
    client.force_login(staff[0])
    page = client.get("/admin/aml/screeningrun/?trigger=registration").content.decode()
    rows = page.count('class="field-id"')
    assert rows == ScreeningRun.objects.filter(trigger="registration").count() > 0, rows
    assert "při registraci" in page and ">registration<" not in page
    assert not found, f"{len(found)} raw codes on Czech staff pages:\n" + "\n".join(
        f"{code}: {', '.join(sorted(where)[:2])}" for code, where in sorted(found.items())
    )
