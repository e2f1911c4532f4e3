import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client

from tests.kit.production import PRODUCTION_ENV, SETTINGS_EXPR, settings_started

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_health_reports_database_broker_and_migrations_green():
    r = Client().get("/health")
    body = r.json()
    assert r.status_code == 200, body
    assert body["status"] == "ok"
    assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    assert body["checks"]["migrations"] == {"ok": True, "pending": []}


@pytest.mark.django_db
def test_health_turns_red_without_a_worker_or_beat_and_green_with_a_recent_heartbeat(settings):
    """/health stayed green with no Celery worker, so the deadline jobs could stop silently."""
    import time_machine
    from django_celery_beat.models import IntervalSchedule, PeriodicTask

    from core import clock
    from core.tasks import heartbeat_beat

    settings.HEALTH_REQUIRE_JOBS = True
    settings.HEALTH_JOBS_MAX_AGE_SECONDS = 300
    body = Client().get("/health")
    assert body.status_code == 503
    assert body.json()["checks"]["worker"]["ok"] is False and body.json()["checks"]["beat"]["ok"] is False
    every = IntervalSchedule.objects.create(every=60, period=IntervalSchedule.SECONDS)
    with time_machine.travel(clock.now(), tick=False) as t:
        PeriodicTask.objects.update_or_create(
            name="core.heartbeat-every-minute",
            defaults={"task": "core.heartbeat_beat", "interval": every, "last_run_at": clock.now()},
        )
        heartbeat_beat()  # what the worker runs
        r = Client().get("/health")
        assert r.status_code == 200, r.json()
        t.shift(300)  # 5:00 old: still fresh
        assert Client().get("/health").status_code == 200
        t.shift(1)  # 5:01: stale
        r = Client().get("/health")
        assert r.status_code == 503 and r.json()["checks"]["worker"]["last_run_seconds_ago"] == 301.0
    settings.HEALTH_REQUIRE_JOBS = False  # development: reported, not counted
    assert Client().get("/health").status_code == 200


@pytest.mark.django_db
def test_health_is_503_when_the_broker_is_unreachable(settings):
    settings.CELERY_BROKER_URL = "amqp://guest:guest@127.0.0.1:1//"
    r = Client().get("/health")
    assert r.status_code == 503 and r.json()["checks"]["broker"]["ok"] is False


def _django_check_expr(env_extra: dict, expr: str) -> subprocess.CompletedProcess:
    """Django started with ``env_extra`` printing ``expr``: the settings read in this process when ``expr`` reads
    settings only, else a fresh process (what ``django.setup()`` builds: the admin site, the URLs)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("SECRET_KEY", "CELERY_BROKER_URL", "GP_MAX_HOURLY_LOSS", "JACKPOTS_ENABLED", "JACKPOTS_SEAL_KEY")
    }
    env.update(env_extra)
    if SETTINGS_EXPR.match(expr):  # the settings' own rules: read in this process (tests.kit.production)
        return settings_started(env, expr)
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE',"
            "'config.settings');django.setup();from django.conf import settings;"
            f"print({expr})",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _django_check(env_extra: dict) -> subprocess.CompletedProcess:
    return _django_check_expr(env_extra, "settings.SESSION_COOKIE_SECURE, settings.SECURE_HSTS_SECONDS, settings.DEBUG")


def test_production_refuses_to_start_without_secret_key_database_and_broker():
    r = _django_check({"DJANGO_ENV": "production", "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"})
    assert r.returncode != 0
    assert "SECRET_KEY" in r.stderr and "CELERY_BROKER_URL" in r.stderr


@pytest.mark.process
def test_a_production_process_really_refuses_to_start_and_really_starts():
    """The one start-up in a process of its own (the other cases read the settings in this process): Django set
    up in a child with the production environment exits non-zero naming the refused variable, and starts without it."""
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "JACKPOTS_ENABLED", "JACKPOTS_SEAL_KEY")}
    code = (
        "import django,os;os.environ.setdefault('DJANGO_SETTINGS_MODULE','config.settings');django.setup();"
        "from django.conf import settings;print(settings.DEBUG)"
    )
    refused = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, **PRODUCTION_ENV, "SECRET_KEY": ""},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert refused.returncode != 0 and "SECRET_KEY" in refused.stderr, refused.stderr[-2000:]
    started = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env={**env, **PRODUCTION_ENV},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert started.returncode == 0 and started.stdout.strip() == "False", started.stderr[-2000:]


def test_production_with_its_settings_turns_on_secure_cookies_and_hsts():
    r = _django_check(PRODUCTION_ENV)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["True", "31536000", "False"]


PROD = {k: v for k, v in PRODUCTION_ENV.items() if k != "JACKPOTS_ENABLED"}


@pytest.mark.parametrize(
    ("switch", "named"),
    [
        ({"DEBUG": "true"}, "DEBUG=true"),
        ({"WALLET_SANDBOX_ENABLED": "true"}, "WALLET_SANDBOX_ENABLED=true"),
        ({"ADMIN_REQUIRE_2FA": "false"}, "ADMIN_REQUIRE_2FA=false"),
        ({"AXES_ENABLED": "false"}, "AXES_ENABLED=false"),
        ({"SECURE_SSL_REDIRECT": "false"}, "SECURE_SSL_REDIRECT=false"),
        ({"BENCH_FLOOR": "true"}, "BENCH_FLOOR"),
    ],
)
def test_production_refuses_a_development_switch_left_on(switch, named):
    """Each of these was silently accepted with DJANGO_ENV=production."""
    r = _django_check_expr({**PROD, "JACKPOTS_ENABLED": "false", **switch}, "settings.DEBUG")
    assert r.returncode != 0 and named in r.stderr, r.stderr[-500:]


def test_tls_terminated_at_the_proxy_is_the_documented_escape_hatch_for_the_ssl_redirect():
    r = _django_check_expr(
        {**PROD, "JACKPOTS_ENABLED": "false", "SECURE_SSL_REDIRECT": "false", "TLS_REDIRECT_AT_PROXY": "true"},
        "settings.SECURE_SSL_REDIRECT",
    )
    assert r.returncode == 0 and r.stdout.strip() == "False", r.stderr[-500:]


def test_production_must_say_whether_jackpots_are_offered_and_then_needs_a_seal_key():
    """Part one of the game plan has no jackpot provision: production states JACKPOTS_ENABLED explicitly; with
    jackpots on, the key sealing the must-hit values must be its own."""
    r = _django_check_expr(PROD, "settings.JACKPOTS_ENABLED")
    assert r.returncode != 0 and "JACKPOTS_ENABLED" in r.stderr
    r = _django_check_expr({**PROD, "JACKPOTS_ENABLED": "true"}, "settings.JACKPOTS_ENABLED")
    assert r.returncode != 0 and "JACKPOTS_SEAL_KEY" in r.stderr
    r = _django_check_expr(
        {**PROD, "JACKPOTS_ENABLED": "true", "JACKPOTS_SEAL_KEY": "s" * 40}, "settings.JACKPOTS_ENABLED"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "True"
    r = _django_check_expr({**PROD, "JACKPOTS_ENABLED": "false"}, "settings.JACKPOTS_ENABLED")
    assert r.returncode == 0 and r.stdout.strip() == "False"


DEV_SECRET_KEY = "dev-insecure-key-do-not-use-in-production-0123456789abcdef"
DEV_SEAL_KEY = "dev-jackpot-seal-key-do-not-use-in-production"


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"SECRET_KEY": DEV_SECRET_KEY}, "SECRET_KEY is the repository's public development value"),
        ({"SECRET_KEY": "s" * 31}, "SECRET_KEY is shorter than 32 bytes"),
        (
            {"JACKPOTS_ENABLED": "true", "JACKPOTS_SEAL_KEY": DEV_SEAL_KEY},
            "JACKPOTS_SEAL_KEY is the repository's public development value",
        ),
        ({"JACKPOTS_ENABLED": "true", "JACKPOTS_SEAL_KEY": "s3al-q"}, "JACKPOTS_SEAL_KEY is shorter than 32 bytes"),
        (
            {"WALLET_SANDBOX_SECRET": "sandbox-shared-secret-for-development-only"},
            "WALLET_SANDBOX_SECRET is the repository's public development value",
        ),
        (
            {"AML_SANDBOX_SECRET": "dev-aml-sandbox-secret-do-not-use-in-production"},
            "AML_SANDBOX_SECRET is the repository's public development value",
        ),
        ({"ACCOUNTS_GATEWAY_TOKEN": "t0k3n-9f"}, "ACCOUNTS_GATEWAY_TOKEN is missing or shorter than 32 bytes"),
    ],
)
def test_production_refuses_public_development_secrets_and_short_keys(extra, named):
    """Production started with the public seal key (the must-hit value was unsealed from the
    database alone), a one-character seal key and the public SECRET_KEY (e-mail links forgeable)."""
    r = _django_check_expr({**PROD, "JACKPOTS_ENABLED": "false", **extra}, "settings.DEBUG")
    assert r.returncode != 0 and named in r.stderr, r.stderr[-800:]
    assert not any(v in r.stderr for k, v in extra.items() if "SECRET" in k or "KEY" in k or "TOKEN" in k), (
        "a refusal must not print the secret"
    )


def test_a_32_byte_seal_key_and_secret_key_are_accepted():
    r = _django_check_expr(
        {**PROD, "JACKPOTS_ENABLED": "true", "JACKPOTS_SEAL_KEY": "q" * 32, "SECRET_KEY": "w" * 32},
        "settings.JACKPOTS_ENABLED",
    )
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr[-800:]


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"ACCOUNTS_POPULATION_REGISTER": "sandbox"}, "ACCOUNTS_POPULATION_REGISTER=sandbox"),
        ({"ACCOUNTS_EXCLUSION_REGISTER": "sandbox"}, "ACCOUNTS_EXCLUSION_REGISTER=sandbox"),
        ({"ACCOUNTS_SMS_GATEWAY": "sandbox"}, "ACCOUNTS_SMS_GATEWAY=sandbox"),
        (
            {"ACCOUNTS_EXCLUSION_REGISTER": "http"},
            "ACCOUNTS_EXCLUSION_REGISTER=http (production asks the Ministry's AISG",
        ),
        (
            {"ACCOUNTS_POPULATION_REGISTER": "http"},
            "ACCOUNTS_POPULATION_REGISTER=http (production asks the Ministry's AISG",
        ),
        (
            {"ACCOUNTS_AISG_URL": "https://api-pg.hazard.mfcr.cz/rovo/v1"},
            "ACCOUNTS_AISG_URL is the Ministry's playground",
        ),
        ({"ACCOUNTS_AISG_URL": "http://api.hazard.mfcr.cz/rovo/v1"}, "ACCOUNTS_AISG_URL is not an https:// address"),
        # the development AISG sandbox (accounts.aisg.sandbox, make run's ACCOUNTS_AISG_URL)
        ({"ACCOUNTS_AISG_URL": "sandbox:/srv/.data/aisg-sandbox"}, "ACCOUNTS_AISG_URL is not an https:// address"),
        ({"ACCOUNTS_AISG_MINISTRY_CERT_FILE": ""}, "ACCOUNTS_AISG_MINISTRY_CERT_FILE is not set"),
        ({"ACCOUNTS_AISG_REQUIRE_ECHO": "false"}, "ACCOUNTS_AISG_REQUIRE_ECHO=false"),
        ({"ALLOWED_HOSTS": "*"}, "ALLOWED_HOSTS=*"),
        ({"SECURE_HSTS_SECONDS": "0"}, "SECURE_HSTS_SECONDS=0"),
        ({"HEALTH_REQUIRE_JOBS": "false"}, "HEALTH_REQUIRE_JOBS=false"),
        ({"CELERY_TASK_ALWAYS_EAGER": "true"}, "CELERY_TASK_ALWAYS_EAGER=true"),
        (
            {"EMAIL_BACKEND": "django.core.mail.backends.console.EmailBackend"},
            "EMAIL_BACKEND writes e-mails to the log",
        ),
    ],
)
def test_production_refuses_sandbox_registers_and_unsafe_operations_settings(extra, named):
    """The registers and the SMS gateway defaulted to their sandbox in every environment, so in
    production a person on the Ministry's register of excluded persons was never found."""
    r = _django_check_expr({**PROD, "JACKPOTS_ENABLED": "false", **extra}, "settings.DEBUG")
    assert r.returncode != 0 and named in r.stderr, r.stderr[-800:]


def test_production_left_at_the_register_defaults_does_not_start():
    """The review's reproduction: the README's production variables and nothing else."""
    env = {k: v for k, v in PROD.items() if not k.startswith(("ACCOUNTS_", "AML_"))}
    r = _django_check_expr({**env, "JACKPOTS_ENABLED": "false"}, "settings.DEBUG")
    assert r.returncode != 0
    for name in (
        "ACCOUNTS_POPULATION_REGISTER=sandbox",
        "ACCOUNTS_EXCLUSION_REGISTER=sandbox",
        "ACCOUNTS_SMS_GATEWAY=sandbox",
        "AML_IDENTIFICATION_PROVIDER=sandbox",
    ):
        assert name in r.stderr, name
    assert "AML_SCREENING_LIST" not in r.stderr  # production screens against the imported lists by default


def test_production_says_at_start_which_implementation_each_outside_system_uses():
    r = _django_check_expr(
        {**PROD, "JACKPOTS_ENABLED": "false"}, "repr(settings.EXTERNAL_SYSTEMS)"
    )  # a process: its log
    assert r.returncode == 0, r.stderr[-800:]
    line = next(line for line in r.stderr.splitlines() if "external systems" in line)
    for part in (
        "population register=aisg",
        "register of excluded persons=aisg",
        "SMS gateway=http",
        "identification provider=none",
        "Bank iD=on",
        "screening list=imported",
    ):
        assert part in line, line


def test_admin_login_page_and_api_docs_are_served(db):
    c = Client()
    assert c.get("/admin/login/").status_code == 200
    assert c.get("/api/docs").status_code == 200
    r = c.get("/api/schema")
    assert r.status_code == 200 and b"openapi" in r.content


def test_manage_py_check_starts_no_database_and_makes_no_folders(tmp_path):
    """Importing the settings has no side effects: without DATABASE_URL, `manage.py check` neither starts the
    embedded PostgreSQL nor creates its data folder or the filesystem broker's folders (make run / make test
    start the server and hand DATABASE_URL to their children)."""
    pg_dir, broker_dir = tmp_path / "pg", tmp_path / "broker"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "CELERY_BROKER_URL", "DATABASE_NAME")}
    env.update({"EMBEDDED_PG_DIR": str(pg_dir), "CELERY_FS_BROKER_DIR": str(broker_dir)})
    r = subprocess.run(
        [sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr
    assert "System check identified no issues" in r.stdout
    assert not pg_dir.exists() and not broker_dir.exists()


def test_the_admin_site_is_the_one_time_password_site_when_2fa_is_required():
    """ADMIN_REQUIRE_2FA is wired through AdminConfig.default_site (core.admin_site), not by patching the site."""
    base = {"DATABASE_URL": "postgres://postgres@127.0.0.1:5432/x"}
    on = _django_check_expr(
        {**base, "ADMIN_REQUIRE_2FA": "1"}, "__import__('django.contrib.admin').contrib.admin.site.__class__.__name__"
    )
    off = _django_check_expr(
        {**base, "ADMIN_REQUIRE_2FA": "0"}, "__import__('django.contrib.admin').contrib.admin.site.__class__.__name__"
    )
    # off: the platform's site with the password sign-in only (its home page: core.home's panels)
    assert (on.stdout.strip(), off.stdout.strip()) == ("PlatformOTPAdminSite", "PlatformAdminSite"), (
        on.stderr + off.stderr
    )


def test_the_bench_floor_is_mounted_only_with_its_bench_setting():
    """``make bench``'s floor (config/bench_floor.py) exists only where BENCH_FLOOR=1 (refused in production,
    above); without it the URL is unknown."""
    off = _django_check_expr({}, "__import__('django.urls').urls.resolve('/bench/floor')")
    assert off.returncode != 0 and "Resolver404" in off.stderr
    on = _django_check_expr({"BENCH_FLOOR": "1"}, "__import__('django.urls').urls.resolve('/bench/floor').url_name")
    assert on.returncode == 0 and on.stdout.strip() == "bench-floor", on.stderr[-500:]
