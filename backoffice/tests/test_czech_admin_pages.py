"""The whole back office in Czech for a Czech staff member: every admin list, record page and add form of every
registered model, walked with ``Accept-Language: cs``, shows no model name, list column, filter, fieldset or form
label, and no choice value (a status, a kind in a list cell, a filter, a select, a read-only field) or help text in its
English original; the same pages in English show the English texts. Every such text has its Czech in
``locale/cs/LC_MESSAGES/django.po`` or ``backoffice/locale/cs/LC_MESSAGES/django.po`` (``backoffice.admin_i18n``)."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from django.contrib import admin as django_admin
from django.test import Client
from django.utils import translation

from backoffice.admin_i18n import admin_messages
from complaints.models import Complaint
from core.admin_site import TECHNICAL_APPS
from tests.kit.accounts import make_staff
from tests.kit.platform import funded_player
from tests.test_authorization_matrix import records  # noqa: F401  (fixture)

pytestmark = pytest.mark.django_db

#: English texts that are the same word in Czech back-office usage, with the reason each may stay as it is
SAME_IN_CZECH = {
    "<IČO>-V-<YYYYMMDDHH>-<type>-<version>": "the regulator's file-name pattern, as the Ministry writes it",
    "Auditor": "the Czech word is 'auditor'",
    "Compliance / AML": "the role's name in Czech usage",
    "e-mail": "the Czech word is 'e-mail'",
    "GrpHdr/CreDtTm": "an ISO 20022 element path",
    "GrpHdr/MsgId": "an ISO 20022 element path",
    "haléře: WINRANGE_FROM": "Czech already, the game's parameter name",
    "ID": "an identifier's abbreviation, the same in Czech",
    "fold": "the audit chain's technical term (a folded hash), no Czech term in use",
    "jackpot": "the Czech word is 'jackpot'",
    "M": "the sex's letter: 'muž' is M in Czech too",
    "nonce": "a cryptographic term, used untranslated in Czech",
    "panic": "the name of the player's panic button (GP), as the client shows it",
    "PayU": "a payment provider's name",
    "paysafecard": "a payment provider's name",
    "reference": "the Czech word is 'reference'",
    "role": "the Czech word is 'role'",
    "RtrInf/Rsn, AddtlInf": "ISO 20022 element paths",
    "Skrill": "a payment provider's name",
    "text": "the Czech word is 'text'",
    "worker": "the Celery worker, a technical term used untranslated",
    "čeština": "the language's own name, Czech already",
}

#: the texts the admin shows as names: headers of list columns, labels of form fields, fieldset and page titles
_SHOWN = [
    re.compile(p, re.S)
    for p in (
        r'<th scope="col"[^>]*>.*?<div class="text">(?:<a [^>]*>|<span>)(.*?)</(?:a|span)>',
        r"<label[^>]*>(.*?):?</label>",
        r"<h2[^>]*>(.*?)</h2>",
        r"<h3>\s*(?:By|Podle)\s+(.*?)\s*</h3>",
        r"<title>(.*?)</title>",
        r'<option value="[a-z_]+">([^<]*)</option>',  # the actions' menu (searched in it only)
        # the values: choices' labels in list cells, filters, read-only fields and selects; help texts under fields
        r'<td class="field-[^"]*"[^>]*>(.*?)</td>',
        r"<details data-filter-title[^>]*>.*?</details>",
        r'<div class="readonly">(.*?)</div>',
        r'<select name="(?!action")[^"]*".*?</select>',
        r'<div class="help[^"]*"[^>]*>\s*<div>(.*?)</div>',
    )
]
_OPTION = re.compile(r"<option [^>]*>([^<]*)</option>")
_LINK = re.compile(r"<a [^>]*>([^<]*)</a>")


def _texts(pattern: re.Pattern[str], page: str) -> list[str]:
    """What ``pattern`` shows on ``page``: its group, or each option of a select, or each link of a filter."""
    if '<select name="(?!' in pattern.pattern:
        return [o for select in pattern.findall(page) for o in _OPTION.findall(select)]
    if "<details" in pattern.pattern:
        return [a for block in pattern.findall(page) for a in _LINK.findall(block)]
    return pattern.findall(page)


def _shown(page: str) -> set[str]:
    out: set[str] = set()
    actions = "".join(re.findall(r'<select name="action".*?</select>', page, re.S))
    title = re.search(r"<title>(.*?)</title>", page, re.S)
    parts = html.unescape(title.group(1)).split("|") if title else []
    record = parts[0].strip() if len(parts) > 2 else None  # "object | page | site": the record's name is data
    for pattern in _SHOWN:
        for match in _texts(pattern, actions if '<option value="[a-z_]+">' in pattern.pattern else page):
            text = html.unescape(re.sub(r"<[^>]+>", "", match)).strip().rstrip(":").strip()
            if not text:
                continue
            if pattern.pattern.startswith("<title>"):
                out.update(part.strip() for part in text.split("|"))
            else:
                out.add(text)
    out.discard(record)  # the title's and the page header's record name (a group "support"): data, not a text
    return out


def _pages(client: Client) -> dict[str, str]:
    """Every business model's list, first record's page and add form the superuser may open, by URL."""
    pages: dict[str, str] = {}
    for model in django_admin.site._registry:
        opts = model._meta
        if opts.app_label in TECHNICAL_APPS:
            continue
        base = f"/admin/{opts.app_label}/{opts.model_name}/"
        first = model._default_manager.order_by("pk").values_list("pk", flat=True).first()
        urls = [base, f"{base}add/"] + ([f"{base}{first}/change/"] if first is not None else [])
        for url in urls:
            r = client.get(url, follow=url == base)
            if r.status_code == 200:
                pages[url] = r.content.decode()
    return pages


def test_every_admin_page_shows_its_names_in_czech_to_a_czech_staff_member(records: dict[str, Any]) -> None:  # noqa: F811
    with translation.override("cs"):  # "iban" reads "IBAN" in Czech: not an untranslated name
        english = {m.lower() for m in admin_messages(django_admin.site) if translation.gettext(m).lower() != m.lower()}
    client = Client(headers={"accept-language": "cs-CZ,cs;q=0.9"})
    client.force_login(make_staff(role=None, superuser=True))
    pages = _pages(client)
    untranslated = sorted(
        {f"{text!r} on {url}" for url, page in pages.items() for text in _shown(page) if text.lower() in english}
    )
    assert len(pages) >= 100, len(pages)
    assert not untranslated, f"{len(untranslated)} English names on Czech pages:\n" + "\n".join(untranslated[:80])


def test_the_catalogue_translates_every_admin_name_and_english_pages_keep_the_english() -> None:
    messages = admin_messages(django_admin.site)
    assert len(messages) > 500
    with translation.override("cs"):
        same = {t.lower() for t in SAME_IN_CZECH}
        missing = sorted(m for m in messages if translation.gettext(m) == m and m.lower() not in same)
    assert not missing, missing
    client = Client(headers={"accept-language": "en"})
    client.force_login(make_staff(role=None, superuser=True))
    page = client.get("/admin/wallet/withdrawal/").content.decode()
    assert "Select withdrawal to view" in page and "Vyberte" not in page
    assert "requested (waiting for staff approval)" in page and "čeká na schválení" not in page  # the status filter
    cs = Client(headers={"accept-language": "cs"})
    cs.force_login(make_staff(role=None, superuser=True))
    page = cs.get("/admin/wallet/withdrawal/").content.decode()
    assert "výběr" in page and "Výběry" in page and "Select withdrawal" not in page
    assert "požádáno (čeká na schválení pracovníkem)" in page and "waiting for staff approval" not in page


def test_the_models_keep_their_english_names_for_the_migrations() -> None:
    """Only the displayed names are translated: what the migrations read stays plain English."""
    from wallet.models import Withdrawal

    opts = Withdrawal._meta
    assert "verbose_name" not in opts.original_attrs
    assert opts.get_field("amount")._verbose_name is None  # type: ignore[attr-defined]
    with translation.override("cs"):
        assert str(opts.verbose_name_plural) == "výběry" and str(opts.get_field("amount").verbose_name) == "částka"


#: English words a Czech staff member must not read on a hand-written page (whole words, any case); words Czech
#: shares (limit, jackpot, role, reference, e-mail, text) are left out
ENGLISH_WORDS = (
    "player",
    "players",
    "amount",
    "save",
    "search",
    "reason",
    "balance",
    "complaint",
    "complaints",
    "status",
    "round",
    "rounds",
    "withdrawal",
    "withdrawals",
    "deposit",
    "deposits",
    "received",
    "answer",
    "assign",
    "resolve",
    "submit",
    "approve",
    "reject",
    "decide",
    "timeline",
    "when",
    "who",
    "what",
    "registered",
    "history",
    "none",
    "available",
    "held",
    "debt",
    "stake",
    "win",
    "yes",
    "no",
    "not",
    "yet",
    "the",
    "and",
    "of",
    "by",
    "from",
    "until",
    "due",
    "open",
    "case",
    "event",
    "events",
    "page",
    "back",
    "cancel",
    "record",
    "show",
    "month",
    "report",
    "import",
    "home",
    "monthly",
    "workflow",
    "attachments",
    "notes",
    "note",
    "messages",
    "sent",
    "recall",
    "game",
    "at",
    "for",
    "with",
    "whose",
    "look",
    "lines",
    "notices",
    "error",
    "damaged",
    "file",
)
#: a word, not part of an identifier (an audit action "complaints.filed", an actor "player:7", a reference)
_ENGLISH = re.compile(r"(?<![\w.:/-])(" + "|".join(ENGLISH_WORDS) + r")(?![\w/-]|[.:]\w)", re.I)
_INVISIBLE = re.compile(r"<(style|script|code|pre|textarea)\b.*?</\1>|<!--.*?-->", re.S)
#: a stored record shown as it is stored (``class="record"``: a ledger memo and account code, the audit trail's field
#: names and values, a sealed file's element names, a text the player typed): data, in the language it was written in;
#: and a record's read-only fields on its admin page (their choice values are checked by the walk above)
_RECORD = re.compile(r'<(td|tr|span|p) class="record"[^>]*>.*?</\1>|<div class="readonly">.*?</div>', re.S)
_SEEN_ATTRIBUTE = re.compile(r"""<input[^>]*type="(?:submit|button)"[^>]*value="([^"]*)"|placeholder="([^"]*)\"""")


def visible_text(page: str) -> str:
    """What a person reads on ``page``: the text nodes of the content (not the admin's side menu, whose names the
    walk above checks), the buttons' labels and the placeholders; styles, scripts and code left out."""
    main = re.search(r'<div id="content"[^>]*>(.*)', page, re.S)
    body = _RECORD.sub(" ", _INVISIBLE.sub(" ", main.group(1) if main else page))
    panels = re.search(r'<div class="home-panels".*?</section>\s*</div>', body, re.S)
    if panels:  # the home page: its panels; the apps' list below holds the models' names the walk above checks
        body = panels.group(0)
    seen = [a or b for a, b in _SEEN_ATTRIBUTE.findall(body)]
    body = re.sub(r"<select\b.*?</select>", " ", body, flags=re.S)  # the options are data (usernames) or checked above
    return html.unescape(" ".join([re.sub(r"<[^>]+>", " ", body), *seen]))


def _staff_pages(made: dict[str, Any]) -> dict[str, str]:
    """The hand-written staff pages, each for a record of the ``records`` fixture."""
    b = made["player"]
    funded_player(100)  # a second player of the same e-mail domain: the search lists both
    complaint = Complaint.objects.get(reference=made["complaint"])
    confirm = f"/admin/accounts/player/{b.pk}/confirm"
    return {
        "home": "/admin/",
        "player": f"/admin/accounts/player/{b.pk}/change/",
        "search": "/admin/accounts/player/search/?q=nobody-is-called-this",
        "search results": "/admin/accounts/player/search/?q=" + b.user.email.split("@")[1],
        "audit search": f"/admin/core/auditevent/search/?player={b.user.username}",
        "confirm withdrawal": f"{confirm}/withdrawal_approve/{made['withdrawal']}/",
        "complaint": f"/admin/complaints/complaint/{complaint.pk}/change/",
        "complaint report": "/admin/complaints/complaint/report/",
        "complaint filed by staff": "/admin/complaints/complaint/file/",
        "account action": f"/admin/accounts/player/{b.pk}/act/suspend/",
        "statement": f"/admin/wallet/wallet/{b.wallet.pk}/statement/",
        "screening list import": "/admin/aml/screeninglistversion/import/",
        "record verification": "/admin/reports/dayreport/regulator-record/verify/?day=2026-01-05",
    }


def test_the_hand_written_staff_pages_read_czech_to_a_czech_staff_member(records: dict[str, Any]) -> None:  # noqa: F811
    """The pages written by hand (the player's page, the search, the audit search, a confirmation, the complaint, the
    action forms) show no common English word in their visible text to a staff member whose language is Czech; the
    same pages in English still read English (the check can fail)."""
    cs = Client(headers={"accept-language": "cs-CZ,cs;q=0.9"})
    en = Client(headers={"accept-language": "en"})
    staff = make_staff(role=None, superuser=True)
    cs.force_login(staff)
    en.force_login(staff)
    found: dict[str, list[str]] = {}
    english_pages = 0
    pages = _staff_pages(records)
    for name, url in pages.items():
        page = cs.get(url)
        assert page.status_code == 200, (name, url, page.status_code)
        text = visible_text(page.content.decode())
        text = " ".join(text.split())
        words = sorted({text[max(0, m.start() - 25) : m.end() + 25] for m in _ENGLISH.finditer(text)})
        if words:
            found[name] = words
        english_pages += bool(_ENGLISH.search(visible_text(en.get(url).content.decode())))
    assert not found, "English on Czech pages: " + "\n".join(f"{n}: {' | '.join(w)}" for n, w in found.items())
    assert english_pages == len(pages)
