"""No English written straight into a staff template: every text of every admin template of the project's apps
(``<app>/templates/admin/**.html``) that a staff member reads goes through ``{% translate %}`` or
``{% blocktranslate %}``, so the back office follows the staff member's language.

The check reads each template's source: it removes the translate tags and blocks, the comments, ``<style>`` and
``<script>``, every other template tag and variable, the HTML tags and entities, and flags what is left if it holds
letters. It also reads the attributes a person sees (``placeholder``, ``title``, ``aria-label``, ``alt`` and a
button's ``value``) and the quoted texts a variable falls back to (``|default:"not yet"``, ``|yesno:"yes,no"``).
A few tokens are the same in both languages; each is listed in ``SAME_IN_BOTH`` with its reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings

#: tokens a Czech staff member reads as they are, with the reason each may stay
SAME_IN_BOTH = {
    "AML": "the anti-money-laundering abbreviation, used untranslated in Czech law and practice",
    "CSV": "a file format's name",
    "GGR": "gross gaming revenue, the regulator's abbreviation",
    "IBAN": "the bank account number's standard name",
    "PEP": "politically exposed person, the AML term used untranslated",
    "RTP": "return to player, the regulator's abbreviation",
    "sha": "the hash function sha256 (the words are letters only: sha)",
    "Kč": "the currency's unit, Czech already",
    "XAdES": "the electronic seal's standard name",
    "B": "bytes, the unit's symbol",
    "v": "a game version's prefix (v3)",
}

_REMOVED = [
    re.compile(p, re.S)
    for p in (
        r"{%\s*comment\s*%}.*?{%\s*endcomment\s*%}",
        r"{%\s*block\s+(?:coltype|bodyclass)\s*%}.*?{%\s*endblock\s*%}",  # a CSS class name, not a text
        r"<code\b.*?</code>",  # a command, a file or a reference as typed: code, the same in every language
        r"{#.*?#}",
        r"{%\s*blocktrans(?:late)?\b.*?{%\s*endblocktrans(?:late)?\s*%}",
        r"<style\b.*?</style>",
        r"<script\b.*?</script>",
        r"{%.*?%}",
        r"<!--.*?-->",
    )
]
_VARIABLE = re.compile(r"{{(.*?)}}", re.S)
_FALLBACK = re.compile(r"""\|\s*(\w+)\s*:\s*(?:"([^"]*)"|'([^']*)')""")
_FORMAT_FILTERS = {"date", "time", "join", "truncatechars", "stringformat", "floatformat", "cut"}
_TAG = re.compile(r"<[^>]*>", re.S)
_ATTRIBUTE = re.compile(r"""\b(placeholder|title|aria-label|alt|value)\s*=\s*"([^"]*)\"""")
_ENTITY = re.compile(r"&[a-zA-Z]+;|&#\d+;")
_WORD = re.compile(r"[^\W\d_]+")


def staff_templates() -> list[Path]:
    """Every admin template of the project's own apps (the libraries' templates are theirs)."""
    base = Path(settings.BASE_DIR).resolve()
    found: list[Path] = []
    for config in apps.get_app_configs():
        path = Path(config.path).resolve()
        if base not in path.parents or ".venv" in path.parts:
            continue
        found += sorted((path / "templates" / "admin").rglob("*.html"))
    return found


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(_ENTITY.sub(" ", text)) if w not in SAME_IN_BOTH]


def untranslated(source: str) -> list[str]:
    """The English a template shows outside the translate tags: text nodes, visible attributes, fallback texts."""
    found: list[str] = []
    for variable in _VARIABLE.findall(source):
        for flt, double, single in _FALLBACK.findall(variable):
            text = double or single
            if flt not in _FORMAT_FILTERS and _words(text):
                found.append(f'{{{{ ...|{flt}:"{text}" }}}}')
    for pattern in _REMOVED:
        source = pattern.sub(" ", source)
    source = _VARIABLE.sub(" ", source)
    for tag in _TAG.findall(source):
        for name, value in _ATTRIBUTE.findall(tag):
            if name == "value" and "submit" not in tag and "button" not in tag:
                continue
            if _words(value):
                found.append(f'{name}="{value.strip()}"')
    for text in _TAG.sub("\n", source).split("\n"):
        if _words(text):
            found.append(" ".join(text.split()))
    return found


def test_the_check_finds_english_in_each_place_a_template_can_hold_it() -> None:
    """The scanner itself: a text node, a button, a placeholder and a fallback text are each found; translated texts,
    variables, tags, entities, styles and the allowed tokens are not."""
    assert untranslated("<p>Player: <b>{{ name }}</b></p>") == ["Player:"]
    assert untranslated('<input type="submit" value="Search">') == ['value="Search"']
    assert untranslated('<input type="search" placeholder="find a player">') == ['placeholder="find a player"']
    assert untranslated('{{ d.name|default:"not yet" }}') == ['{{ ...|default:"not yet" }}']
    clean = (
        '{% load i18n %}<style>.a { color: red; }</style><p>{% translate "Player" %}: {{ x|date:"j. n. Y" }} &rarr;'
        " {% blocktranslate %}Credit {{ amount }}{% endblocktranslate %} (AML, IBAN, 12 Kč)</p>"
        '<input type="hidden" name="action" value="apply"><input type="submit" value="{% translate \'Save\' %}">'
    )
    assert untranslated(clean) == []


def test_the_project_has_staff_templates_to_check() -> None:
    names = {p.name for p in staff_templates()}
    assert {"player.html", "audit_search.html", "change_form.html", "index.html", "confirm_money.html"} <= names


@pytest.mark.parametrize("path", staff_templates(), ids=lambda p: str(p.relative_to(settings.BASE_DIR)))
def test_no_english_written_straight_into_a_staff_template(path: Path) -> None:
    found = untranslated(path.read_text(encoding="utf-8"))
    assert found == [], f"{path}: text outside translate tags (use translate/blocktranslate): {found}"
