"""Every message staff read that the back office composes in Python is translated: the text of each
``message_user`` call, each form ``ValidationError`` and ``add_error``, and each result an admin's
``decide``/``_run`` step returns (shown as its message) in the admins and the back office is a
``gettext``/``ngettext`` call (counted texts through ``ngettext``), never English words written in the code
("N loosening(s) applied."). What such a message carries beside its text (a reference, a count, a player's
staff label, a refusal's ``domain_error_text``) is data; only English words written outside a translation call fail
here. A source scan, so a new message fails on its own."""

from __future__ import annotations

import ast
from pathlib import Path

from django.conf import settings

ROOT = Path(settings.BASE_DIR)
#: the calls whose result is a translated text (or a refusal's text in the staff member's language)
TRANSLATING = {
    "gettext",
    "ngettext",
    "pgettext",
    "npgettext",
    "gettext_lazy",
    "ngettext_lazy",
    "_",
    "domain_error_text",
}
#: the functions whose returned text staff read as a message (``aml.admin`` decisions, the player page's actions)
RETURNING_MESSAGES = {"decide", "_run"}


def _name(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def english_words(node: ast.AST) -> list[str]:
    """The string literals holding a letter in ``node`` outside a translating call (a format string's own
    literal parts included)."""
    if isinstance(node, ast.Call) and _name(node) in TRANSLATING:
        return []
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value] if any(c.isalpha() for c in node.value) else []
    if isinstance(node, ast.Call) and _name(node) == "format" and isinstance(node.func, ast.Attribute):
        return english_words(node.func.value) + [w for a in node.args for w in english_words(a)]
    if isinstance(node, ast.Call):  # a call's arguments are its data (a join's separator is checked)
        return english_words(node.func.value) if isinstance(node.func, ast.Attribute) else []
    if isinstance(node, ast.Subscript | ast.Attribute | ast.Name):
        return []
    if isinstance(node, ast.Dict):  # a format's mapping: its keys name the placeholders
        return [w for v in node.values for w in english_words(v)]
    return [w for child in ast.iter_child_nodes(node) for w in english_words(child)]


def messages_in(source: str) -> list[tuple[int, ast.AST]]:
    """Each message staff read that ``source`` composes: (line, the expression of its text)."""
    found: list[tuple[int, ast.AST]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call) and _name(node) == "message_user" and len(node.args) >= 2:
            found.append((node.lineno, node.args[1]))
        elif isinstance(node, ast.Call) and _name(node) == "ValidationError" and node.args:
            found.append((node.lineno, node.args[0]))
        elif isinstance(node, ast.Call) and _name(node) == "add_error" and len(node.args) >= 2:
            found.append((node.lineno, node.args[1]))
        elif isinstance(node, ast.FunctionDef) and node.name in RETURNING_MESSAGES:
            found += [(r.lineno, r.value) for r in ast.walk(node) if isinstance(r, ast.Return) and r.value]
    return found


def _sources() -> list[Path]:
    files = {*ROOT.glob("*/admin.py"), *ROOT.glob("core/admin*.py"), *ROOT.glob("backoffice/*.py")}
    return sorted(p for p in files if ".venv" not in p.parts)


def test_the_scan_finds_english_written_in_a_message() -> None:
    source = """
def act(self, request, done, exc, c):
    self.message_user(request, f"{done} loosening(s) applied.", messages.SUCCESS)
    self.message_user(request, ngettext("%(n)s applied.", "%(n)s applied.", done) % {"n": done}, messages.INFO)
    self.message_user(request, f"{c.reference}: {domain_error_text(exc)}", messages.ERROR)
    self.message_user(request, "; ".join(exc.messages), messages.ERROR)
    raise forms.ValidationError("a positive CZK amount")
def decide(self, obj, data, actor):
    return "Declaration accepted." if data["accept"] else gettext("Declaration rejected.")
"""
    found = {line: english_words(expr) for line, expr in messages_in(source)}
    assert found == {
        3: [" loosening(s) applied."],
        4: [],
        5: [],
        6: [],
        7: ["a positive CZK amount"],
        9: ["Declaration accepted."],
    }


def test_every_message_staff_read_is_translated() -> None:
    files = _sources()
    assert len(files) >= 15, files
    english: list[str] = []
    seen = 0
    for path in files:
        for line, expr in messages_in(path.read_text()):
            seen += 1
            english += [f"{path.relative_to(ROOT)}:{line}: {w!r}" for w in english_words(expr)]
    assert seen >= 45, seen
    assert not english, "English written in a staff message:\n" + "\n".join(english)
