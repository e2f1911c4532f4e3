"""The values the back office shows, in the staff member's language: the choices' labels (a status in a list, a
filter, a select) and the help texts under form fields, the jackpots' fieldsets, and the reports' own pages (their
navigation, tables and chart titles); English staff read the same pages in English."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from tests.kit.accounts import make_staff
from tests.test_authorization_matrix import records  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

#: (Czech, English) texts of the jackpot's add form: a fieldset, a help text, a choice of a select
JACKPOT_FORM = [
    ("Nastavení (koncept: zmrazí je akce spuštění)", "Configuration (draft: frozen by the start action)"),
    ("hodnota, od které začíná nový běh", "the value a new run starts at"),
    (
        "kódy her, které úroveň pokrývá; prázdné = všechny hry (síť)",
        "game codes this level covers; empty = every game (network)",
    ),
    ("podíl na sázkách (0,1-5 %)", "a share of stakes (0.1-5 %)"),
]
#: (Czech, English) texts of the reports' day page: navigation, a table's header, headings, a chart's title
DAY_PAGE = [
    ("Zdaňovací období", "Tax period"),
    ("deklarovaná RTP", "declared RTP"),
    ("Po hrách", "Per game"),
    ("Grafy", "Charts"),
    ("Spočtené dny", "Computed days"),
    ("Rozhodnutá kola po dnech", "Rounds decided per day"),
    ("Fronty: nejstarší otevřená položka na konci dne", "Queues: oldest open item at day end"),
]


def _page(lang: str, url: str) -> str:
    client = Client(headers={"accept-language": lang})
    client.force_login(make_staff(role=None, superuser=True))
    r = client.get(url)
    assert r.status_code == 200, (lang, url, r.status_code)
    return r.content.decode()


@pytest.mark.parametrize(
    ("url", "texts"),
    [("/admin/jackpots/jackpot/add/", JACKPOT_FORM), ("/admin/reports/dayreport/daily/?day=2026-11-20", DAY_PAGE)],
    ids=["jackpot form", "reports day page"],
)
def test_a_czech_staff_member_reads_values_help_texts_and_the_reports_page_in_czech(url, texts):
    cs, en = _page("cs", url), _page("en", url)
    for czech, english in texts:
        assert czech in cs and english not in cs, (url, english)
        assert english in en and czech not in en, (url, czech)


def test_a_status_reads_in_czech_in_the_list_its_filter_and_on_the_record_page(records):  # noqa: F811
    from wallet.models import Withdrawal

    withdrawal = Withdrawal.objects.order_by("pk").first()
    assert withdrawal is not None
    with translation.override("cs"):
        czech = withdrawal.get_status_display()
    with translation.override("en"):
        english = withdrawal.get_status_display()
    assert czech != english, english
    for url in ("/admin/wallet/withdrawal/", f"/admin/wallet/withdrawal/{withdrawal.pk}/change/"):
        cs, en = _page("cs", url), _page("en", url)
        assert czech in cs and english not in cs, url
        assert english in en and czech not in en, url
    rows = _page("cs", "/admin/wallet/withdrawal/").split("<tbody>")[1].split("</tbody>")[0]
    assert czech in rows  # the list's cell, not only its filter


def test_the_ledger_memo_keeps_the_english_kind_whatever_the_language(records):  # noqa: F811
    """A stored text never depends on who was signed in: the memo of a withdrawal's hold names the method's kind
    in English (the enumeration's label), though the admin shows the kind in Czech."""
    from wallet.models import LedgerTransaction, PaymentMethod

    with translation.override("cs"):
        assert str(dict(PaymentMethod._meta.get_field("kind").flatchoices)["bank_account"]).startswith("bankovní")
    memo = (
        LedgerTransaction.objects.filter(kind=LedgerTransaction.Kind.WITHDRAWAL_HOLD)
        .values_list("memo", flat=True)
        .first()
    )
    assert memo and memo.startswith("withdrawal to bank account (at a bank seated in CZ"), memo
