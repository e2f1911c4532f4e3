"""Every environment variable the platform reads is read once, typed, and listed in docs/settings.md
(config/env.py, config/settings/, config/process_env.py, scripts/settings_doc.py); the database URLs take libpq's
multi-host form. Reads files and parses text only: no database."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

import config.settings as project_settings
from config.database_url import parse_database_url
from config.env import Env
from config.process_env import PROCESS_VARIABLES

ROOT = Path(__file__).resolve().parent.parent
#: product code: the apps, config/ and the processes `make run` starts (tests and the developer scripts are not)
PRODUCT = [p for p in ROOT.glob("*/") if (p / "__init__.py").exists() and p.name != "tests"] + [
    ROOT / "scripts" / "run.py"
]
#: a read of the environment: os.environ.get("X"), os.getenv("X"), os.environ["X"] (not an assignment)
READS = re.compile(
    r"""os\.environ\.get\(\s*["']([A-Z][A-Z0-9_]*)["']|os\.getenv\(\s*["']([A-Z][A-Z0-9_]*)["']"""
    r"""|os\.environ\[["']([A-Z][A-Z0-9_]*)["']\](?!\s*=[^=])"""
)
#: the gunicorn configuration's own reader, _int("X", default)
GUNICORN_READS = re.compile(r"""\b_int\(\s*["']([A-Z][A-Z0-9_]*)["']""")
SETTINGS_READS = re.compile(
    r"""\benv\.(?:str|int|float|bool|list|json|path|optional_int|database)\(\s*["']"""
    r"""([A-Z][A-Z0-9_]*)["']"""
)


def _python_files() -> list[Path]:
    files: list[Path] = []
    for root in PRODUCT:
        found = [root] if root.is_file() else root.rglob("*.py")
        files += [f for f in found if "/tests/" not in f.as_posix() and "/migrations/" not in f.as_posix()]
    return files


def _registry() -> set[str]:
    return set(project_settings.env.registry) | {v.name for v in PROCESS_VARIABLES}


def test_every_variable_the_code_reads_is_registered_and_in_the_doc():
    registered = _registry()
    doc = (ROOT / "docs" / "settings.md").read_text(encoding="utf-8")
    read: dict[str, str] = {}
    for path in _python_files():
        text = path.read_text(encoding="utf-8")
        for match in READS.finditer(text):
            read.setdefault(next(g for g in match.groups() if g), str(path.relative_to(ROOT)))
        if path.name == "gunicorn.conf.py":
            read.update({m.group(1): "config/gunicorn.conf.py" for m in GUNICORN_READS.finditer(text)})
        for match in SETTINGS_READS.finditer(text):
            read.setdefault(match.group(1), str(path.relative_to(ROOT)))
    assert len(read) > 200  # the grep finds the settings' reads, so it can find a new one
    missing = {name: where for name, where in read.items() if name not in registered}
    assert not missing, f"read but not in the registry (config/settings/ or config/process_env.py): {missing}"
    undocumented = sorted(name for name in registered if f"| `{name}` |" not in doc)
    assert not undocumented, f"not in docs/settings.md (run scripts/settings_doc.py): {undocumented}"


def test_the_settings_doc_is_what_the_code_says():
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import settings_doc  # scripts/ is a folder of scripts, not a package
    finally:
        sys.path.remove(str(ROOT / "scripts"))
    assert settings_doc.DOC.read_text(encoding="utf-8") == settings_doc.render(settings_doc.variables()), (
        "docs/settings.md is stale: run .venv/bin/python scripts/settings_doc.py"
    )


def test_no_module_outside_the_settings_reads_the_environment_the_settings_read():
    """A setting is read once, in config/settings/: code reads ``settings.X``, not ``os.environ["X"]``."""
    settings_names = set(project_settings.env.registry)
    allowed = {
        "config/embedded_db.py": {"EMBEDDED_PG_DIR"},
        "config/pytest_env.py": {"DATABASE_URL"},
        "provider_simulator/__main__.py": {"PROVIDERS_DEV_SECRET"},
        "scripts/run.py": {
            "PROVIDERS_DEV_SECRET",
            "DATABASE_URL",
            "GAMES_QA_FORCED_OUTCOMES",
            "PUBLIC_BASE_URL",
            "PROVIDER_SIM_URL",
        },
    }
    twice = []
    for path in _python_files():
        rel = str(path.relative_to(ROOT))
        if rel.startswith("config/settings/"):
            continue
        for match in READS.finditer(path.read_text(encoding="utf-8")):
            name = next(g for g in match.groups() if g)
            if name in settings_names and name not in allowed.get(rel, set()):
                twice.append(f"{rel}: {name}")
    assert not twice, twice


# --- the reader ---------------------------------------------------------------------------------------------------
def test_each_reader_returns_its_type_and_refuses_a_bad_value():
    env = Env({"N": "1_000", "F": "2.5", "B": "yes", "L": " a, b ,,c", "J": '{"k": 1}', "O": "none", "S": "x"})
    assert env.int("N", 0, "n") == 1000
    assert env.float("F", 0.0, "f") == 2.5
    assert env.bool("B", False, "b") is True
    assert env.list("L", [], "l") == ["a", "b", "c"]
    assert env.json("J", {}, "j") == {"k": 1}
    assert env.optional_int("O", 5, "o") is None
    assert env.str("S", "", "s") == "x"
    assert env.int("UNSET", 7, "u") == 7
    for kind, value in (("int", "seven"), ("float", "x"), ("bool", "maybe"), ("json", "{")):
        with pytest.raises(ImproperlyConfigured, match="BAD"):
            getattr(Env({"BAD": value}), kind)("BAD", 0, "bad")


def test_a_bound_is_refused_at_its_edge_and_kept_inside():
    assert Env({"N": "1000"}).int("N", 1, "n", low=1, high=1000) == 1000
    assert Env({"N": "1"}).int("N", 5, "n", low=1, high=1000) == 1
    for value in ("0", "1001"):
        with pytest.raises(ImproperlyConfigured, match="N must be 1 to 1000"):
            Env({"N": value}).int("N", 5, "n", low=1, high=1000)


def test_a_variable_is_read_once_and_says_what_it_means():
    env = Env({})
    env.int("ONCE", 1, "once")
    with pytest.raises(ImproperlyConfigured, match="read twice"):
        env.int("ONCE", 1, "once")
    with pytest.raises(ImproperlyConfigured, match="what it means"):
        env.int("SILENT", 1, "")


def test_production_takes_the_production_default_and_lists_what_it_requires():
    env = Env({"SET": "v"}, production=True)
    assert env.bool("DEBUGGING", True, "d", production=False) is False
    env.str("SET", "", "s", required=True)
    env.str("NEEDED", "dev", "n", required=True)
    assert env.missing_required() == ["NEEDED"]
    assert Env({}, production=False).bool("DEBUGGING", True, "d", production=False) is True


def test_an_old_name_is_read_and_reported_and_both_names_with_two_values_are_refused():
    env = Env({"AML_IDENT_MIN_SCORE": "70"})
    assert env.int("AML_IDENTIFICATION_MIN_SCORE", 80, "m", old=("AML_IDENT_MIN_SCORE",)) == 70
    assert env.renamed == {"AML_IDENT_MIN_SCORE": "AML_IDENTIFICATION_MIN_SCORE"}
    both = Env({"AML_IDENT_MIN_SCORE": "70", "AML_IDENTIFICATION_MIN_SCORE": "90"})
    with pytest.raises(ImproperlyConfigured, match="old name"):
        both.int("AML_IDENTIFICATION_MIN_SCORE", 80, "m", old=("AML_IDENT_MIN_SCORE",))
    same = Env({"AML_IDENT_MIN_SCORE": "90", "AML_IDENTIFICATION_MIN_SCORE": "90"})
    assert same.int("AML_IDENTIFICATION_MIN_SCORE", 80, "m", old=("AML_IDENT_MIN_SCORE",)) == 90


def test_the_settings_hold_typed_values_the_call_sites_use_as_they_are(settings):
    assert type(settings.GP["MAX_STAKE"]) is int
    assert type(settings.AML_IDENTIFICATION_MIN_SCORE) is int
    assert type(settings.ACCOUNTS_SESSION_MAX_HOURS) is float
    assert type(settings.ACCOUNTS_TERMS_REQUIRED) is bool
    assert isinstance(settings.REGULATOR_PACKAGE_DIR, Path)
    assert settings.WALLET_SKRILL_DEPOSIT_MAX is None


# --- database URLs ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "postgres://postgres@127.0.0.1:5432/platform",
            {"NAME": "platform", "USER": "postgres", "PASSWORD": "", "HOST": "127.0.0.1", "PORT": "5432"},
        ),
        (
            "postgres://h1:5432,h2:5433/db?target_session_attrs=read-write",
            {
                "NAME": "db",
                "USER": "",
                "HOST": "h1,h2",
                "PORT": "5432,5433",
                "OPTIONS": {"target_session_attrs": "read-write"},
            },
        ),
        (
            "postgresql://app:p%40ss@pg-a:6432,pg-b:6432,pg-c:6432/platform?target_session_attrs=read-write"
            "&connect_timeout=3",
            {
                "NAME": "platform",
                "USER": "app",
                "PASSWORD": "p@ss",
                "HOST": "pg-a,pg-b,pg-c",
                "PORT": "6432,6432,6432",
                "OPTIONS": {"target_session_attrs": "read-write", "connect_timeout": "3"},
            },
        ),
        ("postgres://u@h1,h2:5433/db", {"HOST": "h1,h2", "PORT": ",5433"}),
        ("postgres://u@h1,h2/db", {"HOST": "h1,h2", "PORT": ""}),
        ("postgres://u@[::1]:5432,[fd00::2]:5433/db", {"HOST": "::1,fd00::2", "PORT": "5432,5433"}),
        ("postgres://postgres@/postgres?host=/srv/pg", {"NAME": "postgres", "HOST": "/srv/pg", "PORT": ""}),
        ("postgres://u@h/db?sslmode=require", {"HOST": "h", "OPTIONS": {"sslmode": "require"}}),
    ],
)
def test_a_database_url_becomes_django_s_entry_with_libpq_host_and_port_lists(url, expected):
    entry = parse_database_url(url)
    assert entry["ENGINE"] == "django.db.backends.postgresql"
    assert {k: entry.get(k) for k in expected} == expected


@pytest.mark.parametrize("url", ["mysql://u@h/db", "postgres://u@h:port/db", "h1:5432/db"])
def test_a_database_url_that_is_not_postgres_or_has_a_bad_port_is_refused(url):
    with pytest.raises(ImproperlyConfigured):
        parse_database_url(url)


def test_the_multi_host_url_reaches_libpq_as_a_host_and_port_list():
    """What psycopg hands libpq for the failover URL: the hosts and ports as lists and target_session_attrs."""
    from django.db.backends.postgresql.base import DatabaseWrapper

    entry = {
        **parse_database_url("postgres://app:pw@h1:5432,h2:5433/db?target_session_attrs=read-write"),
        "CONN_MAX_AGE": 0,
        "CONN_HEALTH_CHECKS": False,
        "AUTOCOMMIT": True,
        "ATOMIC_REQUESTS": False,
        "TIME_ZONE": None,
        "TEST": {},
    }
    params = DatabaseWrapper(entry, alias="failover").get_connection_params()
    assert (params["host"], params["port"], params["target_session_attrs"]) == ("h1,h2", "5432,5433", "read-write")
    assert (params["dbname"], params["user"], params["password"]) == ("db", "app", "pw")
