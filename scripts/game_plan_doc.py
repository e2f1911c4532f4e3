#!/usr/bin/env python
"""Keep the "where" lists of docs/game-plan.md in step with the code.

Scans the first-party Python files for game-plan citations and rewrites the generated blocks of
``docs/game-plan.md``: under each rule, the files that enforce it, test it and describe it; at the top, a
summary (rules nobody cites); and the table of settings that carry a rule (from the modules of ``config/settings/``).
The rule statements between the blocks are written by hand and left alone. No Django, no database.

    .venv/bin/python scripts/game_plan_doc.py            # rewrite the generated blocks
    .venv/bin/python scripts/game_plan_doc.py --check    # exit 1 if the file is stale or a cited rule is undefined

What counts as a citation (see "How to read this page" in docs/game-plan.md):

* ``GP`` or ``game plan`` followed by ``§``: ``§7(4)``, ``§5(2)b``, ``§6`` (a whole section), lists
  (``§4(8), §5(2)d``, ``§6(1),(3)``, ``§11(1)/(3)``, ``§7 and §8``) and ranges, which cite every ID inside them
  (``§8(1)-(3)`` cites (1), (2) and (3); ``§6(6)a-d`` cites letters a to d);
* the Czech form of the player texts, ``HP §5 odst. 2 písm. a)``.

A letter cites its own entry when the page defines letters for that paragraph, otherwise its paragraph's entry.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
DOC = "docs/game-plan.md"
CODE_DIRS = (
    "accounts",
    "core",
    "wallet",
    "limits",
    "games",
    "jackpots",
    "aml",
    "complaints",
    "config",
    "scripts",
    "tests",
)
SKIP_DIRS = frozenset({"migrations", "__pycache__", ".venv", "node_modules"})
# This script and its test talk about the citation syntax; they cite no rule.
NOT_CITING = frozenset({"scripts/game_plan_doc.py", "tests/test_game_plan_doc.py"})
#: the settings modules, in the order of config/settings/__init__.py
SETTINGS = [
    f"config/settings/{area}.py"
    for area in (
        "base",
        "core",
        "database",
        "broker",
        "limits",
        "accounts",
        "wallet",
        "games",
        "aml",
        "reports",
        "production",
    )
]

START = "<!-- generated:start {key} -->"
END = "<!-- generated:end -->"
_START_PREFIX = "<!-- generated:start "
SUMMARY_KEY = "summary"
SETTINGS_KEY = "settings"


class RuleId(NamedTuple):
    """``§5(2)b`` is RuleId(5, 2, "b"); a whole section is RuleId(6); paragraphs start at 1."""

    section: int
    paragraph: int = 0
    letter: str = ""

    def __str__(self) -> str:
        text = f"§{self.section}"
        if self.paragraph:
            text += f"({self.paragraph}){self.letter}"
        return text

    @property
    def cite(self) -> str:
        return f"GP {self}"


class Citation(NamedTuple):
    rule: RuleId
    path: str  # relative to the project root, with forward slashes
    line: int


# ---------------------------------------------------------------------------------------------------------------
# Reading citations

_PREFIX = re.compile(r"(?:\bGP|\b[Gg]ame plan)\s*(?=§\s?\d)")
_SECTION = re.compile(r"§\s?(\d+)")
_PARAGRAPH = re.compile(r"\((\d+)\)")
_PARAGRAPH_TO = re.compile(r"\s?[-–]\s?\((\d+)\)")
_LETTERS = re.compile(r"([a-z])(?:[-–]([a-z]))?(?![A-Za-z0-9])")
_SEPARATOR = re.compile(r"[ \t]*(?:,|/|\band\b|\bor\b)[ \t]*(?=§\s?\d|\(\d)")
_CZECH = re.compile(r"\bHP\s*§\s?(\d+)(?:\s+odst\.\s*(\d+)(?:\s+písm\.\s*([a-z])\))?)?")
_MAX_SPAN = 30  # a wider "range" is a typo, not a citation of 30 paragraphs


def _span(first: int, last: int) -> list[int]:
    if first <= last <= first + _MAX_SPAN:
        return list(range(first, last + 1))
    return [first, last]


def _paragraphs(text: str, section: int, pm: re.Match[str]) -> tuple[list[RuleId], int]:
    """``(4)``, ``(4)-(6)``, ``(4)a`` or ``(4)a-c`` at ``pm``: the rules and the position after them."""
    first, pos = int(pm[1]), pm.end()
    to = _PARAGRAPH_TO.match(text, pos)
    if to:
        return [RuleId(section, p) for p in _span(first, int(to[1]))], to.end()
    letters = _LETTERS.match(text, pos)
    if letters:
        low, high = letters[1], letters[2] or letters[1]
        return [RuleId(section, first, chr(c)) for c in _span(ord(low), ord(high))], letters.end()
    return [RuleId(section, first)], pos


def _chain(text: str, pos: int) -> list[RuleId]:
    """The rules of one citation starting at ``pos`` (just after ``GP ``): items joined by , / and or."""
    rules: list[RuleId] = []
    section = 0
    while True:
        sm = _SECTION.match(text, pos)
        if sm:
            section, pos = int(sm[1]), sm.end()
        pm = _PARAGRAPH.match(text, pos)
        if pm:
            found, pos = _paragraphs(text, section, pm)
            rules += found
        elif sm:
            rules.append(RuleId(section))
        else:
            break
        sep = _SEPARATOR.match(text, pos)
        if not sep:
            break
        pos = sep.end()
    return rules


def parse_citations(text: str) -> list[tuple[RuleId, int]]:
    """Every rule ``text`` cites, with the line it is cited on (1-based), in order of appearance."""
    found: list[tuple[int, RuleId]] = []
    for prefix in _PREFIX.finditer(text):
        found += [(prefix.start(), rule) for rule in _chain(text, prefix.end())]
    for czech in _CZECH.finditer(text):
        section, paragraph, letter = czech.groups()
        found.append((czech.start(), RuleId(int(section), int(paragraph or 0), letter or "")))
    found.sort(key=lambda item: item[0])
    return [(rule, text.count("\n", 0, offset) + 1) for offset, rule in found]


def _is_test(path: str) -> bool:
    parts = path.split("/")
    name = parts[-1]
    return "tests" in parts[:-1] or name.startswith("test_") or name in ("conftest.py", "testing.py")


def source_files(root: Path) -> list[str]:
    """First-party ``.py`` files (the apps, config, scripts, tests and the top-level files), migrations aside."""
    found = {p.relative_to(root) for p in root.glob("*.py")}
    for top in CODE_DIRS:
        found.update(p.relative_to(root) for p in (root / top).rglob("*.py"))
    paths = (p.as_posix() for p in found if not SKIP_DIRS.intersection(p.parts))
    return sorted(p for p in paths if p not in NOT_CITING)


def doc_files(root: Path) -> list[str]:
    """The prose that may cite rules: README.md and docs/**/*.md, this page aside."""
    found = [p.relative_to(root).as_posix() for p in (root / "docs").rglob("*.md")]
    if (root / "README.md").exists():
        found.append("README.md")
    return sorted(p for p in found if p != DOC)


def scan(root: Path, paths: Iterable[str]) -> list[Citation]:
    return [
        Citation(rule, path, line)
        for path in paths
        for rule, line in parse_citations((root / path).read_text(encoding="utf-8"))
    ]


# ---------------------------------------------------------------------------------------------------------------
# The page: entries (a heading "GP §x(y)z ...") and generated blocks

_HEADING = re.compile(r"^#{2,4} GP (§\d+(?:\(\d+\)[a-z]?)?)(?=\s|$)")
_ANY_HEADING = re.compile(r"^#{1,6} ")
_RULE_ID = re.compile(r"§(\d+)(?:\((\d+)\)([a-z]?))?")


def rule_id(text: str) -> RuleId:
    match = _RULE_ID.fullmatch(text)
    if not match:
        raise ValueError(f"not a rule ID: {text!r}")
    return RuleId(int(match[1]), int(match[2] or 0), match[3] or "")


def _headings(lines: Iterable[str]) -> list[bool]:
    """For each line: is it a Markdown heading (outside fenced code)?"""
    flags = []
    fenced = False
    for line in lines:
        if line.startswith("```"):
            fenced = not fenced
        flags.append(not fenced and bool(_ANY_HEADING.match(line)))
    return flags


def defined_rules(doc: str) -> list[RuleId]:
    """The IDs the page defines, in page order (a heading ``## GP §6 ...`` or ``### GP §6(4) ...``)."""
    lines = doc.splitlines()
    return [rule_id(m[1]) for line, heading in zip(lines, _headings(lines)) if heading and (m := _HEADING.match(line))]


def resolve(rule: RuleId, defined: set[RuleId]) -> RuleId | None:
    """The entry a cited rule belongs to, or None when the page does not define it."""
    if rule in defined:
        return rule
    paragraph = rule._replace(letter="")
    if (
        rule.letter
        and paragraph in defined
        and not any(d.letter and d._replace(letter="") == paragraph for d in defined)
    ):
        return paragraph
    return None


def undefined(citations: Iterable[Citation], defined: Iterable[RuleId]) -> list[Citation]:
    known = set(defined)
    return [c for c in citations if resolve(c.rule, known) is None]


def _files(paths: Iterable[str]) -> str:
    return ", ".join(f"`{p}`" for p in sorted(set(paths)))


def rule_block(rule: RuleId, code: Sequence[Citation], docs: Sequence[Citation], defined: set[RuleId]) -> list[str]:
    mine = [c for c in code if resolve(c.rule, defined) == rule]
    enforced = [c.path for c in mine if not _is_test(c.path)]
    tested = [c.path for c in mine if _is_test(c.path)]
    described = [c.path for c in docs if resolve(c.rule, defined) == rule]
    lines = [START.format(key=rule.cite)]
    if enforced:
        lines.append(f"- enforced in: {_files(enforced)}")
    if tested:
        lines.append(f"- tested in: {_files(tested)}")
    if not mine:
        lines.append(
            "- not cited in code or tests" if rule.paragraph else "- not cited as a whole (see its paragraphs)"
        )
    if described:
        lines.append(f"- described in: {_files(described)}")
    lines.append(END)
    return lines


def summary_block(code: Sequence[Citation], defined: Sequence[RuleId]) -> list[str]:
    known = set(defined)
    cited = {resolve(c.rule, known) for c in code}
    quiet = [r for r in defined if r not in cited and r.paragraph]
    files = {c.path for c in code}
    return [
        START.format(key=SUMMARY_KEY),
        f"{sum(1 for r in defined if r.paragraph)} rules in {sum(1 for r in defined if not r.paragraph)} sections; "
        f"cited in {len(files)} Python files "
        f"({sum(1 for f in files if not _is_test(f))} code, {sum(1 for f in files if _is_test(f))} test).",
        "",
        "Rules no code or test cites (obligations met outside the software, or not yet cited): "
        + (", ".join(str(r) for r in quiet) if quiet else "none")
        + ".",
        END,
    ]


class SettingRow(NamedTuple):
    setting: str
    variable: str
    default: str
    rules: tuple[RuleId, ...]


def _env_read(node: ast.expr, source: str) -> tuple[str, str]:
    """(environment variable, default) of ``env.int("NAME", default=X)`` / ``_optional_int("NAME", X)``."""
    if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
        name = str(node.args[0].value)
        default = next(
            (k.value for k in node.keywords if k.arg == "default"), node.args[1] if len(node.args) > 1 else None
        )
        return name, "" if default is None else ast.get_source_segment(source, default) or ""
    return "", ast.get_source_segment(source, node) or ""


def _comment_above(lines: Sequence[str], lineno: int) -> str:
    """The comment block that heads the run of statements containing ``lineno`` (1-based), up to a blank line."""
    index = lineno - 2
    while index >= 0 and lines[index].strip() and not lines[index].lstrip().startswith("#"):
        index -= 1
    block: list[str] = []
    while index >= 0 and lines[index].lstrip().startswith("#"):
        block.insert(0, lines[index])
        index -= 1
    return "\n".join(block)


def settings_rows(source: str) -> list[SettingRow]:
    """Module-level settings of a config/settings/ module (and the items of its ``GP`` dict) that cite a rule, in the
    comment on their line or in the comment heading their group."""
    lines = source.splitlines()
    rows = []

    def add(setting: str, value: ast.expr, first: int, last: int) -> None:
        cited = "\n".join(lines[first - 1 : last]) + "\n" + _comment_above(lines, first)
        rules = tuple(dict.fromkeys(rule for rule, _ in parse_citations(cited)))
        if rules:
            variable, default = _env_read(value, source)
            rows.append(SettingRow(setting, variable, default, rules))

    for node in ast.parse(source).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            target, value_node = node.target, node.value
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            target, value_node = node.targets[0], node.value
        else:
            continue
        name = target.id
        if isinstance(value_node, ast.Dict):
            for key, value in zip(value_node.keys, value_node.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    add(f'{name}["{key.value}"]', value, value.lineno, value.end_lineno or value.lineno)
        else:
            add(name, value_node, node.lineno, node.end_lineno or node.lineno)
    return rows


def settings_block(rows: Sequence[SettingRow]) -> list[str]:
    lines = [
        START.format(key=SETTINGS_KEY),
        "| setting | environment variable | default | rules |",
        "| --- | --- | --- | --- |",
    ]
    for row in rows:
        rules = ", ".join(str(r) for r in row.rules)
        variable = f"`{row.variable}`" if row.variable else "(fixed)"
        lines.append(f"| `{row.setting}` | {variable} | `{row.default}` | {rules} |")
    lines.append(END)
    return lines


def _blocks_replaced(lines: Sequence[str], keyed: dict[str, list[str]]) -> list[str]:
    """The page's lines with the keyed blocks (summary, settings) replaced and every rule block dropped."""
    out: list[str] = []
    seen = set()
    index = 0
    while index < len(lines):
        line = lines[index]
        if not line.startswith(_START_PREFIX):
            out.append(line)
            index += 1
            continue
        try:
            end = lines.index(END, index)
        except ValueError:
            raise ValueError(f"{DOC}:{index + 1}: a generated block is not closed with {END}") from None
        key = line.removeprefix(_START_PREFIX).removesuffix(" -->")
        if key in keyed:
            seen.add(key)
            out += keyed[key]
        index = end + 1
    missing = sorted(set(keyed) - seen)
    if missing:
        raise ValueError(
            f"{DOC}: the generated block(s) {missing} are missing "
            f"(add a line '{START.format(key=missing[0])}' and a line '{END}')"
        )
    return out


def render(doc: str, code: Sequence[Citation], docs: Sequence[Citation], settings: Sequence[SettingRow]) -> str:
    """The page with every generated block rewritten; the hand-written text is kept as it is."""
    defined = defined_rules(doc)
    dupes = sorted({str(r) for r in defined if defined.count(r) > 1})
    if dupes:
        raise ValueError(f"{DOC}: rules defined twice: {', '.join(dupes)}")
    known = set(defined)
    lines = _blocks_replaced(
        doc.splitlines(), {SUMMARY_KEY: summary_block(code, defined), SETTINGS_KEY: settings_block(settings)}
    )
    out: list[str] = []
    entry: RuleId | None = None

    def close_entry() -> None:
        """Put the entry's block after its hand-written text, before the next heading."""
        if entry is None:
            return
        while out and not out[-1].strip():
            out.pop()
        out.extend(["", *rule_block(entry, code, docs, known), ""])

    for line, is_heading in zip(lines, _headings(lines)):
        if is_heading:
            close_entry()
            heading = _HEADING.match(line)
            entry = rule_id(heading[1]) if heading else None
        out.append(line)
    close_entry()
    return "\n".join(out).rstrip("\n") + "\n"


# ---------------------------------------------------------------------------------------------------------------


def check(root: Path) -> tuple[str, str, list[Citation]]:
    """(current page, rendered page, citations of undefined rules in code, tests and docs)."""
    doc = (root / DOC).read_text(encoding="utf-8")
    code = scan(root, source_files(root))
    docs = scan(root, doc_files(root))
    rows = [
        row
        for path in (root / name for name in SETTINGS)
        if path.exists()
        for row in settings_rows(path.read_text(encoding="utf-8"))
    ]
    return doc, render(doc, code, docs, rows), undefined([*code, *docs], defined_rules(doc))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="exit 1 if docs/game-plan.md is stale")
    parser.add_argument("--root", type=Path, default=ROOT, help="project root (default: this checkout)")
    args = parser.parse_args(argv)
    root: Path = args.root
    current, rendered, unknown = check(root)
    status = 0
    for c in unknown:
        print(f"{c.path}:{c.line}: {c.rule.cite} is not defined in {DOC}", file=sys.stderr)
        status = 1
    if args.check:
        if rendered != current:
            print(f"{DOC} is stale: run .venv/bin/python scripts/game_plan_doc.py", file=sys.stderr)
            status = 1
    elif rendered != current:
        (root / DOC).write_text(rendered, encoding="utf-8")
        print(f"wrote {DOC}")
    return status


if __name__ == "__main__":
    sys.exit(main())
