"""House rules of the tests themselves: one test kit (``tests/kit/``), no test imports a ``conftest.py``, no test
support in (or imported by) production code, the tiers marked (browser files by name, process tests by mark), and a
refusal asserted with its ``ErrorDef`` constant, not a literal code string."""

from __future__ import annotations

import ast
import re
import subprocess
from pathlib import Path

import accounts.errors
import aml.errors
import backoffice.errors
import complaints.errors
import core.errors
import core.idempotency
import games.errors
import jackpots.errors
import limits.errors
import providers.errors
import regulator.errors
import reports.errors
import wallet.errors
from core.errors import ErrorDef

ROOT = Path(__file__).resolve().parents[1]
KIT = ROOT / "tests" / "kit"
APPS = (
    "core",
    "accounts",
    "wallet",
    "limits",
    "games",
    "jackpots",
    "aml",
    "complaints",
    "providers",
    "reports",
    "regulator",
    "backoffice",
    "playclient",
    "provider_simulator",
    "config",
)
# The kit's shared helpers: defined once, in tests/kit/, never again in a test file.
KIT_HELPERS = frozenset(
    {
        "client_for",
        "staff_client",
        "staff_api_client",
        "admin_session",  # tests/kit/clients.py, plugin.py
        "czk",
        "kc",
        "prague",
        "api_money",  # tests/kit/money.py
        "refused",
        "refusal_of",
        "refused_response",
        "refusal_code",  # tests/kit/refusals.py
        "fund",
        "funded_player",  # tests/kit/wallet.py, platform.py
    }
)
# Test files that start a short child process of their own without being in the process tier (why):
SHORT_CHILDREN = {
    "regulator/tests/test_sealed.py": "openssl prints a sealed package (a tool, milliseconds)",
    "tests/test_house_rules.py": "ruff format --check reads the tree (a tool, seconds)",
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
    found = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _files()
        for name in _imports(ast.parse(path.read_text()))
        if name.split(".")[-1] == "conftest"
    ]
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
        starts = (
            re.search(r"subprocess\.(run|Popen|call|check_call|check_output)\(", text)
            or "tests.faults.harness" in imports
            or "tests.kit.servers" in imports
        )
        marked = re.search(r"mark\.(process|worker|faults)\b", text) or path.name.endswith("_browser.py")
        if starts and not marked and rel not in SHORT_CHILDREN:
            found.append(f"{rel}: starts processes or servers: mark it pytest.mark.process")
    assert not found, "\n".join(found)


# The modules that declare the refusals (an app's errors.py, and the idempotency key's in core).
ERROR_MODULES = (
    core.errors,
    core.idempotency,
    accounts.errors,
    wallet.errors,
    limits.errors,
    games.errors,
    jackpots.errors,
    aml.errors,
    complaints.errors,
    providers.errors,
    reports.errors,
    regulator.errors,
    backoffice.errors,
)
# Functions whose argument is the refusal a test expects: the kit's (tests/kit/refusals.py) and the few test files'
# own assertion helpers.
REFUSAL_HELPERS = frozenset({"refused", "refused_response", "refused_with", "provider_refused", "_refused"})
# Test files where a literal code in an assertion is the point, with the reason (none today: a test that pins a
# constant's code string compares it with the constant itself, ``CONST.code == "app.code"``, which is allowed).
LITERAL_CODES_ALLOWED: dict[str, str] = {}


def _error_codes() -> frozenset[str]:
    return frozenset(v.code for module in ERROR_MODULES for v in vars(module).values() if isinstance(v, ErrorDef))


def _pins_a_constant(compare: ast.Compare) -> bool:
    """``CONST.code == "app.code"`` (or ``errors.CONST.code``): the code string of the constant itself is checked."""
    for node in ast.walk(compare):
        if isinstance(node, ast.Attribute) and node.attr == "code":
            owner = node.value
            name = owner.id if isinstance(owner, ast.Name) else owner.attr if isinstance(owner, ast.Attribute) else ""
            if name.isupper():
                return True
    return False


def _literal_codes(tree: ast.AST, codes: frozenset[str]) -> list[tuple[int, str]]:
    """The error codes written as string literals in an ``assert`` or as the expected refusal of a refusal helper."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
            where: list[ast.AST] = [*node.args, *(k.value for k in node.keywords)] if name in REFUSAL_HELPERS else []
            skip: set[int] = set()
        elif isinstance(node, ast.Assert):
            where = [node]
            skip = {
                id(c)
                for cmp in ast.walk(node)
                if isinstance(cmp, ast.Compare) and _pins_a_constant(cmp)
                for c in ast.walk(cmp)
            }
            skip |= {id(c) for f in ast.walk(node) if isinstance(f, ast.JoinedStr) for c in ast.walk(f)}
        else:
            continue
        for part in where:
            for c in ast.walk(part):
                if isinstance(c, ast.Constant) and c.value in codes and id(c) not in skip:
                    found.append((c.lineno, str(c.value)))
    return found


def test_a_refusal_is_asserted_with_its_error_constant_not_a_literal_code():
    """``assert r.json()["error"]["code"] == errors.INSUFFICIENT.code`` (or ``refused(call, errors.INSUFFICIENT)``),
    not ``== "wallet.insufficient_funds"``: go-to-definition finds the rule, and a renamed code fails at import
    instead of leaving a string that silently no longer matches."""
    codes = _error_codes()
    found = []
    for path in _files():
        rel = path.relative_to(ROOT).as_posix()
        if not _is_test_support(path) or rel in LITERAL_CODES_ALLOWED:
            continue
        found += [f"{rel}:{line} {code!r}" for line, code in _literal_codes(ast.parse(path.read_text()), codes)]
    assert not found, "use the ErrorDef constant (``CONST.code``):\n" + "\n".join(found)


def test_the_literal_code_check_sees_an_assertion_and_a_refusal_helper_and_lets_a_pinned_constant_be():
    codes = frozenset({"demo.not_a_real_code"})
    source = """
assert r.json()["error"]["code"] == "demo.not_a_real_code"
refused(lambda: pay(), "demo.not_a_real_code")
assert INSUFFICIENT.code == "demo.not_a_real_code"
assert r.json()["error"]["code"] == INSUFFICIENT.code
x = "demo.not_a_real_code"
"""
    assert _literal_codes(ast.parse(source), codes) == [(2, "demo.not_a_real_code"), (3, "demo.not_a_real_code")]
