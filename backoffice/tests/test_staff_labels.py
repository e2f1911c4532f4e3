"""Staff read a player, a statement's lines, a masked column's name and a round's recall in their language: every
admin list, read-only page and inline names a player by ``Player.staff_label`` ("demo_active (aktivní)") through one
column (``core.admin.player_column``), never by ``str()`` ("demo_active (active)", kept language-independent for the
admin's history); the statement's categories, kinds and accounts are labels, not codes."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import Player
from backoffice.tests.test_no_raw_codes import _seed_demo
from core.admin import PlatformAdminMixin, player_fields
from tests.kit.accounts import make_staff
from tests.test_authorization_matrix import records  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

_CELL = re.compile(
    r'<td class="field-[^"]*"[^>]*>(.*?)</td>|<th class="field-[^"]*"[^>]*>(.*?)</th>|'
    r'<div class="readonly">(.*?)</div>',
    re.S,
)


def _client(lang: str, role: str | None = None) -> Client:
    client = Client(headers={"accept-language": lang})
    client.force_login(make_staff(role=role, superuser=role is None))
    return client


def _cells(page: str) -> list[str]:
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", "".join(g))).split()) for g in _CELL.findall(page)]


def test_every_admin_of_a_model_with_a_player_shows_the_player_through_the_one_column() -> None:
    """The column is applied by ``PlatformAdminMixin``: an admin (or inline) outside it would show ``str()``."""
    admins = [(m, a) for m, a in admin.site._registry.items()]
    admins += [(i.model, i) for _m, a in admin.site._registry.items() for i in a.inlines]  # type: ignore[misc]
    with_player = [(m, a) for m, a in admins if player_fields(m)]
    assert len(with_player) >= 40, len(with_player)
    outside = sorted(
        f"{m._meta.label}: {getattr(a, '__name__', type(a).__name__)}"
        for m, a in with_player
        if not isinstance(a, PlatformAdminMixin) and not (isinstance(a, type) and issubclass(a, PlatformAdminMixin))
    )
    assert not outside, outside


def test_every_list_and_record_names_the_player_by_their_staff_label(settings: Any, tmp_path: Any) -> None:
    _seed_demo(settings, tmp_path)
    players = list(Player.objects.select_related("user"))
    client = _client("cs")
    with translation.override("cs"):
        labels = {p.pk: (str(p), p.staff_label) for p in players}
    assert all(plain != label for plain, label in labels.values())
    found: list[str] = []
    shown = 0
    for model, _admin in admin.site._registry.items():
        if not player_fields(model) or model is Player:
            continue
        prefix = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        urls = [reverse(f"{prefix}_changelist")]
        urls += [
            reverse(f"{prefix}_change", args=[pk])
            for pk in model._default_manager.order_by("-pk").values_list("pk", flat=True)[:2]
        ]
        for url in urls:
            r = client.get(url)
            assert r.status_code == 200, (url, r.status_code)
            for cell in _cells(r.content.decode()):
                for plain, label in labels.values():
                    if re.search(rf"(?<![\w.:]){re.escape(plain)}", cell):
                        found.append(f"{plain!r} in {cell[:60]!r} on {url}")
                    shown += label in cell
    assert shown >= 40, shown
    assert not found, f"{len(found)} players named by str():\n" + "\n".join(found[:30])


def test_the_statement_names_categories_kinds_and_accounts_in_the_staff_members_language(
    records: dict[str, Any],  # noqa: F811
) -> None:
    from wallet.models import Wallet

    wallet = Wallet.objects.get(player=records["player"])
    url = f"/admin/wallet/wallet/{wallet.pk}/statement/"
    cs = _cells_of_table(_client("cs").get(url).content.decode())
    en = _cells_of_table(_client("en").get(url).content.decode())
    # category, account (the held part of a withdrawal), the transaction's kind
    pairs = [("výběr", "withdrawal"), ("sázka", "stake"), ("hráčský účet", "player account"), ("zadrženo", "held")]
    pairs += [("výběr požádán (prostředky drženy)", "withdrawal requested (funds held)")]
    for czech, english in pairs:
        assert czech in cs and english not in cs, (czech, english)
        assert english in en and czech not in en, (czech, english)
    assert not {"withdrawal_hold", "withdrawal", "stake", "player", "held"} & set(cs), cs
    page = _client("cs").get(url).content.decode()
    amounts = [html.unescape(a) for a in re.findall(r'<td style="text-align:right">([^<]*)</td>', page)]
    # Czech numbers: a non-breaking space between thousands and before "Kč" ("1 736,00 Kč" never breaks)
    assert amounts and all(re.fullmatch(r"-?\d{1,3}(\xa0\d{3})*,\d{2}\xa0Kč", c) for c in amounts), amounts
    totals = re.search(r"<p>Součty: (.*?)</p>", page, re.S)
    assert totals and "výběr" in totals.group(1) and "withdrawal" not in totals.group(1), totals


def _cells_of_table(page: str) -> list[str]:
    """The statement's cells but its memos (stored records, in the language they were written in)."""
    cells = re.findall(r'<td(?! class="record")[^>]*>(.*?)</td>', page, re.S)
    return [" ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split()) for c in cells]


def test_a_masked_columns_name_follows_each_staff_members_language(records: dict[str, Any]) -> None:  # noqa: F811
    """The masked columns are made once and cached: their names must still be read per request."""
    url = "/admin/wallet/paymentmethod/"
    cs, en = _client("cs", "support"), _client("en", "support")
    for _ in range(2):  # the first request makes the column; the second reads it from the cache
        czech, english = cs.get(url).content.decode(), en.get(url).content.decode()
        assert "(maskováno)" in czech and "(masked)" not in czech
        assert "(masked)" in english and "(maskováno)" not in english


def test_a_rounds_recall_reads_in_the_staff_members_language(records: dict[str, Any]) -> None:  # noqa: F811
    url = f"/admin/games/round/{records['round']}/change/"
    cs = _client("cs").get(url).content.decode()
    en = _client("en").get(url).content.decode()
    with translation.override("cs"):
        label = records["player"].staff_label
    assert "vyplacená výhra" in cs and "Konečný stav" in cs and html.escape(label) in cs
    assert "win paid" not in cs and "Final state" not in cs and "(active)" not in cs
    assert "win paid" in en and "Final state" in en


def test_a_play_money_rounds_recall_shows_points_never_kc(records: dict[str, Any]) -> None:  # noqa: F811
    """GP: play money is not money: its stake, win and balances read in points on the round's page too."""
    from games.models import Round
    from tests.kit.clients import client_for as game_client
    from tests.kit.platform import play_money

    body = play_money(game_client(records["player"])).json()
    assert "id" in body, body
    assert Round.objects.get(pk=body["id"]).play_money
    page = _client("cs").get(f"/admin/games/round/{body['id']}/change/").content.decode()
    recall = page.split("vyplacená výhra")[0].rsplit("<table>", 1)[-1]  # the recall's table up to the win paid
    assert "bodů" in recall and "Kč" not in recall, recall[-600:]


def test_the_player_pages_ledger_lines_name_each_movement_by_its_kind_in_the_staff_members_language(
    records: dict[str, Any],  # noqa: F811
) -> None:
    """The player page's latest ledger lines say what moved by the transaction's kind in the staff member's
    language ("sázka"); the memo, a stored record in the language it was written in, stands beneath it."""
    url = f"/admin/accounts/player/{records['player'].pk}/change/"
    for lang, stake, hold in (("cs", "sázka", "výběr požádán"), ("en", "stake", "withdrawal requested")):
        page = _client(lang).get(url).content.decode()
        section = page[page.index("Latest ledger lines" if lang == "en" else "Poslední účetní záznamy") :]
        section = section[: section.index("</table>")]
        whats = [
            " ".join(html.unescape(re.sub(r"<[^>]+>", " ", c)).split())
            for c in re.findall(r"<tr><td>[^<]*</td><td>(.*?)</td>", section, re.S)
        ]
        assert whats and any(w.startswith(stake) for w in whats) and any(w.startswith(hold) for w in whats), whats
