"""House rules of the tests themselves: one test kit (``tests/kit/``), no test imports a ``conftest.py``, no test
support in (or imported by) production code, and the tiers marked (browser files by name, process tests by mark)."""
from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "tests" / "kit"
APPS = ("core", "accounts", "wallet", "limits", "games", "jackpots", "aml", "complaints", "providers", "reports",
        "regulator", "backoffice", "playclient", "provider_simulator", "config")
# The kit's shared helpers: defined once, in tests/kit/, never again in a test file.
KIT_HELPERS = frozenset({
    "client_for", "staff_client", "staff_api_client", "admin_session",  # tests/kit/clients.py, plugin.py
    "czk", "kc", "prague", "api_money",  # tests/kit/money.py
    "refused", "refusal_of", "refused_response", "refusal_code",  # tests/kit/refusals.py
    "fund", "funded_player",  # tests/kit/wallet.py, platform.py
})
# Test files that start a short child process of their own without being in the process tier (why):
SHORT_CHILDREN = {
    "regulator/tests/test_sealed.py": "openssl prints a sealed package (a tool, milliseconds)",
    "core/tests/test_health_and_settings.py": "Django set up in a child for what only django.setup() builds (the "
                                              "admin site, the URLs, the start-up log): four short children",
}


def _files() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [ROOT / p for p in out.split() if (ROOT / p).exists()]


def _is_test_support(path: Path) -> bool:
    rel = path.relative_to(ROOT).as_posix()
    return rel.startswith("tests/") or "/tests/" in rel or path.name == "conftest.py"


def _imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            found.append("." * node.level + (node.module or ""))
    return found


def test_no_test_file_defines_its_own_copy_of_a_kit_helper():
    copies = []
    for path in _files():
        if not _is_test_support(path) or KIT in path.parents:
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name in KIT_HELPERS:
                copies.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
    assert not copies, "use the kit's (tests/kit/) instead of a copy:\n" + "\n".join(copies)


def test_the_kit_defines_each_shared_helper_once():
    defined: dict[str, list[str]] = {}
    for path in KIT.glob("*.py"):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in KIT_HELPERS:
                defined.setdefault(node.name, []).append(path.name)
    assert {name: where for name, where in defined.items() if len(where) > 1} == {}
    assert set(defined) == KIT_HELPERS, KIT_HELPERS - set(defined)


def test_no_module_imports_a_conftest():
    found = [f"{path.relative_to(ROOT)}: {name}" for path in _files() for name in _imports(ast.parse(path.read_text()))
             if name.split(".")[-1] == "conftest"]
    assert not found, "move what is shared into tests/kit/:\n" + "\n".join(found)


def test_no_production_module_imports_test_support_or_holds_it():
    found = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if _is_test_support(path) or rel.split("/")[0] not in APPS:
            continue
        if re.fullmatch(r"testing\w*\.py", path.name):
            found.append(f"{rel}: test support in a production package (move it to tests/kit/)")
        for name in _imports(ast.parse(path.read_text())):
            if name == "tests" or name.startswith("tests.") or ".tests" in name:
                found.append(f"{rel}: imports {name}")
    assert not found, "\n".join(found)


def test_browser_tests_are_named_so_and_process_tests_are_marked():
    found = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if not path.name.startswith("test_"):
            continue
        text = path.read_text()
        imports = _imports(ast.parse(text))
        browser = any(n.startswith("selenium") or n.endswith("tests.harness") and "playclient" in rel for n in imports)
        if browser and not path.name.endswith("_browser.py"):
            found.append(f"{rel}: drives a browser: name it *_browser.py (the browser tier)")
        starts = (re.search(r"subprocess\.(run|Popen|call|check_call|check_output)\(", text)
                  or "tests.faults.harness" in imports or "tests.kit.servers" in imports)
        marked = re.search(r"mark\.(process|worker|faults)\b", text) or path.name.endswith("_browser.py")
        if starts and not marked and rel not in SHORT_CHILDREN:
            found.append(f"{rel}: starts processes or servers: mark it pytest.mark.process")
    assert not found, "\n".join(found)
