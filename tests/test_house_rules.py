"""House rules checked on the source itself (no database): they keep the seams and the lock policy honest."""

from __future__ import annotations

import ast
import io
import re
import shutil
import subprocess
import sys
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APPS = (
    "config",
    "core",
    "accounts",
    "wallet",
    "limits",
    "games",
    "jackpots",
    "aml",
    "complaints",
    "reports",
    "regulator",
    "backoffice",
    "playclient",
    "providers",
    "provider_simulator",
    "scripts",
    "tests",
)
MAX_SOURCE_LINES = 800


def _sources() -> list[Path]:
    return [p for app in APPS for p in (ROOT / app).rglob("*.py") if "migrations" not in p.parts]


def test_no_source_file_holds_more_than_800_lines():
    """A room that holds more than one idea is split by responsibility (the house style): no source file
    of the platform over 800 lines. Tests and migrations aside (a test file is one scenario's set-up and checks)."""
    big = {}
    for path in _sources():
        rel = path.relative_to(ROOT)
        if "tests" in rel.parts or path.name.startswith("test_"):
            continue
        lines = len(path.read_text().splitlines())
        if lines > MAX_SOURCE_LINES:
            big[str(rel)] = lines
    assert big == {}, f"split these by responsibility: {big}"


def test_the_tree_is_formatted_by_ruff_format():
    """The layout is ``ruff format``'s (pyproject.toml ``[tool.ruff.format]``, line length 120): a file it would
    change fails here; ``.venv/bin/ruff format .`` fixes it."""
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    done = subprocess.run([ruff, "format", "--check", "."], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"run `ruff format .`: {done.stdout[-3000:]}{done.stderr[-1000:]}"


def test_every_select_for_update_states_no_key_explicitly():
    """FOR UPDATE blocks inserts of rows that point at the locked row; FOR NO KEY UPDATE does not. Each lock
    says which it means (``no_key=True`` or ``no_key=False``), so the choice is never a default (Zulip's rule).
    The lock order is in docs/contracts.md."""
    offenders = []
    for path in _sources():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "select_for_update"
                and not any(k.arg == "no_key" for k in node.keywords)
            ):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_no_app_looks_up_another_apps_function_by_name():
    """Cross-app calls are real imports (or the typed hooks of core/hooks.py), never a lookup by name that
    could silently skip a legal check when a function is renamed."""
    offenders = []
    # the quickstart test imports the client it generated from the schema into a temporary folder (not platform code)
    generated_client = {"test_house_rules.py", "test_quickstart.py"}
    # core finds each app's partitions.py by that convention, as Django's autodiscover does; a table left undeclared
    # fails tests/test_partition_declarations.py (the database's partitioned tables are exactly the declared ones)
    discovered = {"core/partition_tables.py"}
    for path in _sources():
        if path.name in generated_client or str(path.relative_to(ROOT)) in discovered:
            continue
        text = path.read_text()
        for needle in ("optional_function(", "importlib.import_module(", "accounts_bridge", "_attr("):
            if needle in text:
                offenders.append(f"{path.relative_to(ROOT)}: {needle}")
    assert offenders == []


def _pins(path: Path) -> dict[str, str]:
    pins = {}
    for line in path.read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==", 1)
            pins[name.strip().lower().replace("_", "-")] = version.split()[0].strip(" \\")
    return pins


def test_the_hashed_lock_pins_every_direct_requirement_at_the_same_version():
    """`make install` installs from requirements-dev.lock with --require-hashes; a pin changed in
    requirements*.txt without `make lock` would silently not take effect."""
    lock = _pins(ROOT / "requirements-dev.lock")
    direct = {**_pins(ROOT / "requirements.txt"), **_pins(ROOT / "requirements-dev.txt")}
    assert {name: version for name, version in direct.items() if lock.get(name) != version} == {}


ISSUE_REFERENCE = re.compile(r"\bissues? ?#?[0-9]+", re.IGNORECASE)


def _comments_and_docstrings(path: Path) -> list[tuple[int, str]]:
    text = path.read_text()
    found = [
        (tok.start[0], tok.string)
        for tok in tokenize.generate_tokens(io.StringIO(text).readline)
        if tok.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(text, str(path))):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node, clean=False)
            if doc is not None:
                found.append((node.body[0].lineno, doc))
    return found


def test_no_comment_or_docstring_names_an_issue():
    """Comments and docstrings say what the code does and why, not which issue added it: the issue number tells a
    reader nothing the code does not, and goes stale. Migrations included."""
    offenders = []
    for path in (p for app in APPS for p in (ROOT / app).rglob("*.py")):
        for lineno, text in _comments_and_docstrings(path):
            if ISSUE_REFERENCE.search(text):
                offenders.append(f"{path.relative_to(ROOT)}:{lineno}")
    assert offenders == []


#: function-level imports in files another change is reworking (move them to the top when it lands): the engine's
#: games (numpy deferred: an optional, heavy import for the simulations), the admin's i18n, the providers' services
FUNCTION_IMPORTS_KNOWN = {
    "backoffice/admin_i18n.py": 1,
    "games/engine/games/ismael_beiro/fast_sim.py": 1,
    "games/engine/games/ismael_beiro/features.py": 1,
    "games/engine/games/ismael_beiro/game.py": 3,
    "games/engine/games/ismael_beiro/lower.py": 1,
}


def _function_imports_without_reason(path: Path) -> list[int]:
    """The lines of imports inside a function that carry no comment (on the line, or the line above, saying why:
    a real import cycle, the app registry not ready yet, a heavy optional dependency)."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    found = set()
    for function in ast.walk(ast.parse(source)):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip() if node.lineno > 1 else ""
                    if "#" not in line and not above.startswith("#"):
                        found.add(node.lineno)
    return sorted(found)


def test_imports_inside_functions_say_why():
    """An import belongs at the top of its module. Inside a function only with a one-line reason (a comment on the
    line or above it); ``apps.py`` aside, where ``AppConfig.ready`` and the signal handlers import what needs the app
    registry."""
    offenders = {}
    for app in APPS:
        if app in ("scripts", "provider_simulator", "tests"):  # stand-alone programs set Django up first, then import
            continue
        for path in sorted((ROOT / app).rglob("*.py")):
            relative = path.relative_to(ROOT)
            if "tests" in relative.parts or "migrations" in relative.parts or path.name == "apps.py":
                continue
            lines = _function_imports_without_reason(path)
            if lines and len(lines) != FUNCTION_IMPORTS_KNOWN.get(str(relative)):
                offenders[str(relative)] = lines
    assert not offenders, offenders
