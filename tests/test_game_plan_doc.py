"""docs/game-plan.md defines every rule the code, the tests and the docs cite, and its generated "where" lists are
up to date (scripts/game_plan_doc.py). Reads files only: no database."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import game_plan_doc as gpd  # noqa: E402  (scripts/ is a folder of scripts, not a package)

REGENERATE = "run: .venv/bin/python scripts/game_plan_doc.py"


def _page() -> str:
    return (ROOT / gpd.DOC).read_text(encoding="utf-8")


def _listing(citations: list[gpd.Citation]) -> str:
    return "\n".join(f"  {c.path}:{c.line}: {c.rule.cite}" for c in citations)


def _ids(text: str) -> list[str]:
    return [str(rule) for rule, _ in gpd.parse_citations(text)]


# --- the real page -----------------------------------------------------------------------------------------------


def test_every_rule_cited_in_code_or_tests_is_defined_in_the_game_plan_page():
    code = gpd.scan(ROOT, gpd.source_files(ROOT))
    unknown = gpd.undefined(code, gpd.defined_rules(_page()))
    assert not unknown, f"cited, but not defined in {gpd.DOC} (add an entry there):\n{_listing(unknown)}"


def test_every_rule_cited_in_the_readme_and_the_docs_is_defined_too():
    docs = gpd.scan(ROOT, gpd.doc_files(ROOT))
    unknown = gpd.undefined(docs, gpd.defined_rules(_page()))
    assert not unknown, f"cited, but not defined in {gpd.DOC}:\n{_listing(unknown)}"


def test_the_generated_lists_of_the_game_plan_page_are_up_to_date(capsys):
    status = gpd.main(["--check"])
    assert status == 0, f"{capsys.readouterr().err}\n{REGENERATE}"


def test_the_scan_sees_the_code_and_the_tests_so_the_checks_above_are_not_vacuous():
    files = gpd.source_files(ROOT)
    code = gpd.scan(ROOT, files)
    cited_in = {c.path for c in code}
    assert "limits/models.py" in files and "tests/test_house_rules.py" in files
    assert not any("/migrations/" in f or f.startswith(".venv") for f in files)
    assert len(cited_in) > 50
    assert any(gpd._is_test(p) for p in cited_in) and any(not gpd._is_test(p) for p in cited_in)
    assert gpd.RuleId(7, 4) in {c.rule for c in code}


def test_every_rule_entry_has_a_hand_written_statement_outside_the_generated_block():
    lines = gpd._blocks_replaced(_page().splitlines(), {gpd.SUMMARY_KEY: [], gpd.SETTINGS_KEY: []})
    headings = [i for i, flag in enumerate(gpd._headings(lines)) if flag]
    empty = []
    for start, end in zip(headings, [*headings[1:], len(lines)]):
        heading = gpd._HEADING.match(lines[start])
        if heading and gpd.rule_id(heading[1]).paragraph:
            if not heading.string[heading.end() :].strip(" —-") or not any(x.strip() for x in lines[start + 1 : end]):
                empty.append(lines[start])
    assert empty == []


def test_the_page_defines_each_rule_once_and_every_paragraph_of_sections_3_to_13():
    defined = gpd.defined_rules(_page())
    assert len(defined) == len(set(defined))
    assert {gpd.RuleId(s) for s in range(1, 14)} <= set(defined)
    assert {gpd.RuleId(7, 4), gpd.RuleId(5, 2, "e"), gpd.RuleId(13, 6)} <= set(defined)


# --- reading citations -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("the break (GP §7(4)).", ["§7(4)"]),
        ("cap (GP §5(2)b)", ["§5(2)b"]),
        ("(GP §5(2)b, §5(12))", ["§5(2)b", "§5(12)"]),
        ("GP §8(2)-(4)", ["§8(2)", "§8(3)", "§8(4)"]),
        ("GP §7(4)-(5))", ["§7(4)", "§7(5)"]),
        ("GP §6(6)a-d and §6(7):", ["§6(6)a", "§6(6)b", "§6(6)c", "§6(6)d", "§6(7)"]),
        ("GP §6(1),(6)a:", ["§6(1)", "§6(6)a"]),
        ("GP §11(1)/(3), §10(2).", ["§11(1)", "§11(3)", "§10(2)"]),
        ("GP §5(2)e/§5(13)", ["§5(2)e", "§5(13)"]),
        ("GP §8(1)-(3),(5)", ["§8(1)", "§8(2)", "§8(3)", "§8(5)"]),
        ("Personal data (GP §12): export", ["§12"]),
        ("GP §4, §5(1)):", ["§4", "§5(1)"]),
        ("GP §7 and §8", ["§7", "§8"]),
        ("GP §6, 120/15", ["§6"]),
        ("(game plan §11(4)).", ["§11(4)"]),
        ("(HP §5 odst. 2 písm. a).", ["§5(2)a"]),
        ("(HP §4 odst. 7).", ["§4(7)"]),
        ("(ZHH §53: set by the licence)", []),
        ("rule IDs `GP §x(y)`", []),
        ('settings.GP["MAX_STAKE"] (rules §7)', []),
    ],
)
def test_a_citation_is_read_with_its_lists_ranges_and_letters(text, ids):
    assert _ids(text) == ids


def test_a_citation_knows_its_line():
    assert gpd.parse_citations("first\nsecond GP §7(9)\nthird GP §7(6)") == [
        (gpd.RuleId(7, 9), 2),
        (gpd.RuleId(7, 6), 3),
    ]


def test_a_letter_cites_its_own_entry_where_letters_are_defined_and_its_paragraph_elsewhere():
    defined = {gpd.RuleId(7, 8), gpd.RuleId(7, 8, "a"), gpd.RuleId(7, 8, "b"), gpd.RuleId(12, 7), gpd.RuleId(6)}
    assert gpd.resolve(gpd.RuleId(7, 8, "b"), defined) == gpd.RuleId(7, 8, "b")
    assert gpd.resolve(gpd.RuleId(7, 8, "c"), defined) is None
    assert gpd.resolve(gpd.RuleId(12, 7, "a"), defined) == gpd.RuleId(12, 7)
    assert gpd.resolve(gpd.RuleId(6), defined) == gpd.RuleId(6)
    assert gpd.resolve(gpd.RuleId(6, 1), defined) is None
    assert gpd.resolve(gpd.RuleId(99, 1), defined) is None


def test_settings_that_cite_a_rule_are_listed_with_their_variable_and_default():
    source = "\n".join(
        [
            "GP = {",
            '    "MAX_STAKE": env.int("GP_MAX_STAKE", default=100_000),  # GP §8(2)',
            '    "MIN_ROUND_SECONDS": 2,  # GP §7(9)',
            '    "OTHER": 1,',
            "}",
            "",
            "# GP §8(6) blanks",
            'A_MIN = _optional_int("A_MIN", 300)',
            'A_MAX = _optional_int("A_MAX", None)',
            "",
            'UNRELATED = env.int("UNRELATED", default=1)',
        ]
    )
    assert gpd.settings_rows(source) == [
        gpd.SettingRow('GP["MAX_STAKE"]', "GP_MAX_STAKE", "100_000", (gpd.RuleId(8, 2),)),
        gpd.SettingRow('GP["MIN_ROUND_SECONDS"]', "", "2", (gpd.RuleId(7, 9),)),
        gpd.SettingRow("A_MIN", "A_MIN", "300", (gpd.RuleId(8, 6),)),
        gpd.SettingRow("A_MAX", "A_MAX", "None", (gpd.RuleId(8, 6),)),
    ]


# --- the checks fail when they should (a throw-away project in tmp_path) -----------------------------------------


def _project(tmp_path: Path, code: dict[str, str]) -> Path:
    (tmp_path / "docs").mkdir()
    shutil.copy(ROOT / gpd.DOC, tmp_path / gpd.DOC)
    for name, text in code.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def test_the_check_fails_naming_a_cited_rule_the_page_does_not_define(tmp_path, capsys):
    root = _project(tmp_path, {"wallet/bogus.py": "# nothing here\n# GP §99(1) and GP §7(8)c\n"})
    assert gpd.main(["--check", "--root", str(root)]) == 1
    err = capsys.readouterr().err
    assert "wallet/bogus.py:2: GP §99(1) is not defined" in err
    assert "wallet/bogus.py:2: GP §7(8)c is not defined" in err


def test_the_check_fails_on_a_stale_page_and_passes_once_it_is_regenerated(tmp_path, capsys):
    root = _project(
        tmp_path,
        {"limits/breaks.py": '"""The 120/15 break (GP §7(4)-(5))."""\n', "limits/tests/test_breaks.py": "# GP §7(4)\n"},
    )
    assert gpd.main(["--check", "--root", str(root)]) == 1
    assert "is stale" in capsys.readouterr().err
    assert gpd.main(["--root", str(root)]) == 0
    assert gpd.main(["--check", "--root", str(root)]) == 0
    page = (root / gpd.DOC).read_text(encoding="utf-8")
    block = page[page.index("<!-- generated:start GP §7(4) -->") :]
    block = block[: block.index(gpd.END)]
    assert "- enforced in: `limits/breaks.py`" in block
    assert "- tested in: `limits/tests/test_breaks.py`" in block
    assert "play is interrupted after 120 minutes" in page  # the hand-written statement is kept


def test_rendering_twice_changes_nothing_and_a_missing_summary_block_is_an_error():
    code = [gpd.Citation(gpd.RuleId(7, 4), "limits/x.py", 1)]
    once = gpd.render(_page(), code, [], [])
    assert gpd.render(once, code, [], []) == once
    without_summary = once.replace(gpd.START.format(key=gpd.SUMMARY_KEY), "")
    with pytest.raises(ValueError, match="summary"):
        gpd.render(without_summary, code, [], [])
