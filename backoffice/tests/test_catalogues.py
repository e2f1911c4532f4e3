"""The Czech catalogues stay consistent with the code: every text the code marks for translation (``gettext``,
``gettext_lazy``, ``gettext_noop``, ``ngettext``, ``pgettext`` with a literal, and ``{% translate "..." %}`` in a
template) has its Czech; no entry is fuzzy or empty; and every committed ``.mo`` says what its ``.po`` says (a
``.po`` edited without ``manage.py compilemessages`` would leave the pages in English)."""

from __future__ import annotations

import ast
import gettext as gnu_gettext
import re
from pathlib import Path

from django.conf import settings
from django.utils import translation

from backoffice.tests.test_czech_admin_pages import SAME_IN_CZECH

ROOT = Path(settings.BASE_DIR)
APPS = (
    "accounts",
    "aml",
    "backoffice",
    "complaints",
    "core",
    "games",
    "jackpots",
    "limits",
    "providers",
    "reports",
    "regulator",
    "wallet",
)
#: the functions that mark a text, and the position of the context (pgettext) or None
MARKERS = {
    "gettext_noop": None,
    "N_": None,
    "gettext": None,
    "gettext_lazy": None,
    "_": None,
    "ngettext": None,
    "ngettext_lazy": None,
    "pgettext": 0,
    "pgettext_lazy": 0,
}
#: marked texts that read the same in Czech, each with the reason (besides the admin's ``SAME_IN_CZECH``)
SAME = {
    "Back office": "the admin site's title, said in English in Czech offices too",
    "Export CSV": "Czech staff say 'export CSV' as it is",
    "limit": "the Czech word is 'limit'",
    "maximum": "the Czech word is 'maximum'",
    "reference (VS)": "the Czech word is 'reference'; VS, variabilní symbol, is Czech already",
}
_TRANSLATE_TAG = re.compile(r"""{%\s*(?:translate|trans)\s+"([^"]+)"(?:\s+context\s+"([^"]+)")?""")


def _sources(suffix: str) -> list[Path]:
    return sorted(
        p
        for app in APPS
        for p in (ROOT / app).rglob(f"*{suffix}")
        if "tests" not in p.parts and "migrations" not in p.parts
    )


def python_messages() -> dict[tuple[str | None, str], str]:
    """Every literal text the apps' code marks for translation: (context, text) → where."""
    out: dict[tuple[str | None, str], str] = {}
    for path in _sources(".py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if name not in MARKERS:
                continue
            at = 0 if MARKERS[name] is None else 1
            args = node.args
            if len(args) <= at or not all(
                isinstance(a, ast.Constant) and isinstance(a.value, str) for a in args[: at + 1]
            ):
                continue  # a variable: its texts are checked where they are written
            context = args[0].value if MARKERS[name] is not None else None  # type: ignore[attr-defined]
            out.setdefault((context, args[at].value), f"{path.relative_to(ROOT)}:{node.lineno}")  # type: ignore[attr-defined]
    return out


def template_messages() -> dict[tuple[str | None, str], str]:
    out: dict[tuple[str | None, str], str] = {}
    for path in _sources(".html"):
        for match in _TRANSLATE_TAG.finditer(path.read_text()):
            out.setdefault((match.group(2), match.group(1)), str(path.relative_to(ROOT)))
    return out


def _untranslated(messages: dict[tuple[str | None, str], str]) -> list[str]:
    same = {t.lower() for t in (*SAME_IN_CZECH, *SAME)}
    missing = []
    with translation.override("cs"):
        for (context, text), where in messages.items():
            czech = translation.pgettext(context, text) if context else translation.gettext(text)
            if czech == text and text.lower() not in same and re.search(r"[A-Za-z]{2}", text):
                missing.append(f"{text!r} ({where})")
    return sorted(missing)


def test_every_text_the_code_marks_has_its_czech() -> None:
    messages = python_messages()
    assert len(messages) > 150, len(messages)
    missing = _untranslated(messages)
    assert not missing, f"{len(missing)} texts without Czech:\n" + "\n".join(missing)


def test_every_text_a_template_translates_has_its_czech() -> None:
    messages = template_messages()
    assert len(messages) > 200, len(messages)
    missing = _untranslated(messages)
    assert not missing, f"{len(missing)} texts without Czech:\n" + "\n".join(missing)


def parse_po(text: str) -> tuple[dict[str, str | tuple[str, ...]], list[str]]:
    """A ``.po`` file's entries (the ``.mo`` key: ``context\\x04msgid``, plurals by ``msgid``) and the fuzzy ones."""
    entries: dict[str, str | tuple[str, ...]] = {}
    fuzzy: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        fields: dict[str, str] = {}
        key = ""
        flags = ""
        for line in block.splitlines():
            if line.startswith("#,"):
                flags += line
            elif line.startswith("#"):
                continue
            elif line.startswith('"'):
                fields[key] += ast.literal_eval(line)
            else:
                key, _space, value = line.partition(" ")
                fields[key] = ast.literal_eval(value)
        if "msgid" not in fields or not fields["msgid"]:
            continue  # the header
        msgid = fields["msgid"]
        if "msgctxt" in fields:
            msgid = f"{fields['msgctxt']}\x04{msgid}"
        if "fuzzy" in flags:
            fuzzy.append(msgid)
        plural = sorted(k for k in fields if k.startswith("msgstr["))
        entries[msgid] = tuple(fields[k] for k in plural) if plural else fields["msgstr"]
    return entries, fuzzy


def test_no_entry_is_fuzzy_or_empty_and_every_mo_is_its_po_compiled() -> None:
    catalogues = sorted(ROOT.glob("locale/cs/LC_MESSAGES/django.po")) + sorted(
        p for app in APPS for p in (ROOT / app / "locale").glob("*/LC_MESSAGES/django.po")
    )
    assert len(catalogues) >= 10, catalogues
    problems: list[str] = []
    for po in catalogues:
        entries, fuzzy = parse_po(po.read_text())
        problems += [f"{po}: fuzzy {m!r}" for m in fuzzy]
        problems += [f"{po}: empty {m!r}" for m, s in entries.items() if not s or (isinstance(s, tuple) and not all(s))]
        with po.with_suffix(".mo").open("rb") as f:
            compiled = gnu_gettext.GNUTranslations(f)._catalog  # type: ignore[attr-defined]
        for msgid, msgstr in entries.items():
            if isinstance(msgstr, tuple):
                shown = tuple(compiled.get((msgid, n)) for n in range(len(msgstr)))
            else:
                shown = compiled.get(msgid)
            if shown != msgstr:
                problems.append(f"{po.with_suffix('.mo')}: {msgid!r} reads {shown!r}, the .po says {msgstr!r}")
    assert not problems, "\n".join(problems[:40])
