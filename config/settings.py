"""Settings, read from the environment only (django-environ).

Development defaults just work (embedded PostgreSQL, filesystem Celery broker).
With DJANGO_ENV=production the platform refuses to start without SECRET_KEY,
DATABASE_URL and a broker URL, and turns on secure cookies, HSTS and host checks.
"""
from __future__ import annotations

from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from config.privacy_recipients import DEFAULT_PRIVACY_RECIPIENTS
from config.refusals import refusals_of
from core.retention_rules import RetentionTooShort, audit_retention, partition_retention

BASE_DIR = Path(__file__).resolve().parent.parent
env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env", overwrite=False) if (BASE_DIR / ".env").exists() else None

DJANGO_ENV = env.str("DJANGO_ENV", default="development")
PRODUCTION = DJANGO_ENV == "production"
TESTING = env.bool("TESTING", default=False)

if PRODUCTION:
    missing = [k for k in ("SECRET_KEY", "DATABASE_URL", "CELERY_BROKER_URL") if not env.str(k, default="")]
    if missing:
        raise ImproperlyConfigured(f"DJANGO_ENV=production requires: {', '.join(missing)}")

SECRET_KEY = env.str("SECRET_KEY", default="dev-insecure-key-do-not-use-in-production-0123456789abcdef")
DEBUG = env.bool("DEBUG", default=not PRODUCTION)
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=[] if PRODUCTION else ["127.0.0.1", "localhost", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "core.apps.PlatformAdminConfig",  # django.contrib.admin with the platform site (2FA)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, pinned, served as our own static files
    "django_celery_beat",
    "axes",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "core",
    "accounts",
    "wallet",
    "limits",
    "games",
    "jackpots",
    "aml",
    "complaints",
    "providers",  # outside studios' games through the seamless-wallet API (docs/providers.md)
    "playclient",  # the reference player web client at /play/ (uses only the public API)
    "reports",  # the regulator's record and the tax reports (reads every app)
    "regulator",  # the Ministry's remote access under decree 10/2019 Sb. (docs/regulator.md; reads every app)
    "backoffice",  # the top layer: a player's whole picture, the search, the work queues, the audit search
]

MIDDLEWARE = [
    "core.middleware.ClientAddressMiddleware",  # first: every later step sees the real client address
    "core.middleware.RequestIdMiddleware",
    "core.middleware.RejectNulMiddleware",  # a NUL in the path, query or a header never reaches a view (N-7)
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",  # the admin's static files, served by the app under gunicorn
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "core.middleware.BackOfficeTimeZoneMiddleware",  # the admin shows Prague time (BUSINESS_TIME_ZONE)
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "axes.middleware.AxesMiddleware",
    "core.middleware.CatchAllMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]

# Database: DATABASE_URL, else the embedded PostgreSQL (pgserver) listening on a Unix socket in .data/pg.
# Importing the settings starts nothing: `make run` (scripts/run.py), `make test` and conftest.py start the
# embedded server (config/embedded_db.py) and hand DATABASE_URL to their children.
EMBEDDED_PG_DIR = Path(env.str("EMBEDDED_PG_DIR", default=str(BASE_DIR / ".data" / "pg")))
if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.postgresql", "NAME": "postgres", "USER": "postgres",
                             "PASSWORD": "", "HOST": str(EMBEDDED_PG_DIR), "PORT": ""}}
if env.str("DATABASE_NAME", default=""):
    # Child processes of the test suite (a real Celery worker) point at the test database.
    DATABASES["default"]["NAME"] = env.str("DATABASE_NAME")
DATABASES["default"].setdefault("ATOMIC_REQUESTS", False)
# Connection pooling: DATABASE_POOLER=pgbouncer when DATABASE_URL (and DATABASE_REPLICA_URL) point at a PgBouncer in
# transaction mode: nothing outlives a transaction then (no server-side cursors, CONN_MAX_AGE=0, no prepared statement;
# the session state the platform never keeps is listed in docs/scaling.md "One primary, PgBouncer in front").
DATABASE_POOLER = env.str("DATABASE_POOLER", default="")
if DATABASE_POOLER not in ("", "pgbouncer"):
    raise ImproperlyConfigured(f"DATABASE_POOLER={DATABASE_POOLER!r}: the one pooler supported is 'pgbouncer'")
POOLED = DATABASE_POOLER == "pgbouncer"
# Persistent connections: a web worker keeps its connection (no connect per request, measured by `make bench`);
# health checks drop a connection the server closed before it is reused.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("CONN_MAX_AGE", default=0 if POOLED else 60)
DATABASES["default"]["CONN_HEALTH_CHECKS"] = env.bool("CONN_HEALTH_CHECKS", default=True)
DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = POOLED
# The hot statements (core/sql.py) as server-side prepared statements: prepared once per connection, planned once.
# SQL-level PREPARE is session state, which PgBouncer in transaction mode cannot carry: off (and refused) there.
DATABASE_PREPARED_STATEMENTS = env.bool("DATABASE_PREPARED_STATEMENTS", default=not POOLED)
if POOLED and DATABASE_PREPARED_STATEMENTS:
    raise ImproperlyConfigured("DATABASE_PREPARED_STATEMENTS=1 with DATABASE_POOLER=pgbouncer: a server connection in "
                               "transaction mode serves other clients, which do not have the statements prepared")
# The stake-refusal log (limits) writes on its own autocommit connection, so a refusal is kept although the caller's
# transaction rolls back. Behind PgBouncer DATABASE_SIDE_URL names a second PgBouncer entry for the same database: a
# pool of its own, opened while a request holds the primary pool's connection and a wallet lock (docs/scaling.md).
DATABASES["refusal_log"] = {**DATABASES["default"], "TEST": {"MIRROR": "default"}}
if env.str("DATABASE_SIDE_URL", default=""):
    DATABASES["refusal_log"].update({k: v for k, v in env.db("DATABASE_SIDE_URL").items()
                                     if k in ("NAME", "HOST", "PORT", "USER", "PASSWORD")})
# A streaming replica for reads that may lag (core/db_router.py, docs/scaling.md): DATABASE_REPLICA_URL, absent = no
# replica and every read on the primary. Only code that says so reads there (`core.db_router.replica_reads()` or
# `.using(core.db_router.replica())`); money and limit decisions, and everything inside a transaction on the primary,
# read the primary. Tests mirror it to the test database.
if env.str("DATABASE_REPLICA_URL", default=""):
    DATABASES["replica"] = {**env.db("DATABASE_REPLICA_URL"), "ATOMIC_REQUESTS": False,
                            "CONN_MAX_AGE": DATABASES["default"]["CONN_MAX_AGE"], "CONN_HEALTH_CHECKS": True,
                            "DISABLE_SERVER_SIDE_CURSORS": POOLED, "TEST": {"MIRROR": "default"}}
DATABASE_ROUTERS = ["core.db_router.ReplicaRouter"]
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "django.contrib.auth.backends.ModelBackend",
]
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
]
if TESTING:
    # Argon2 is deliberately slow; tests that are not about hashing use a fast hasher.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher", *PASSWORD_HASHERS]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator", "OPTIONS": {"min_length": 10}},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Staff sign in to the admin with a second factor (TOTP, django-otp): required in production, optional in
# development so the demo credentials work as printed. Enrol a device: `manage.py staff_totp_enrol USERNAME`.
ADMIN_REQUIRE_2FA = env.bool("ADMIN_REQUIRE_2FA", default=PRODUCTION)
OTP_TOTP_ISSUER = env.str("OTP_TOTP_ISSUER", default="Online games platform")

# Failed logins are throttled and locked out (django-axes).
AXES_FAILURE_LIMIT = env.int("AXES_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", default=0.5)
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_RESET_ON_SUCCESS = True
AXES_ENABLED = env.bool("AXES_ENABLED", default=True)
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]  # set by core.middleware.ClientAddressMiddleware
AXES_LOCKOUT_CALLABLE = "core.admin_site.axes_lockout_response"  # the admin's 429 with Retry-After
# Forwarding headers (X-Forwarded-For) are read only from these proxies (addresses or networks, e.g. the load
# balancer's "10.0.0.0/8"); none by default, so a client cannot choose the address throttles and audit see.
TRUSTED_PROXIES = env.list("TRUSTED_PROXIES", default=[])

# I18N: players read Czech by default, English is available. Storage in UTC; the
# business calendar (day, calendar month) is Europe/Prague (core.clock).
LANGUAGE_CODE = "cs"
LANGUAGES = [("cs", "Čeština"), ("en", "English")]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"
BUSINESS_TIME_ZONE = "Europe/Prague"
# one date format and Czech numbers in the back office, in Czech and in English (config/formats/); the back office's
# own texts in Czech (locale/cs: the staff member's browser language chooses, Czech by default)
FORMAT_MODULE_PATH = ["config.formats"]
LOCALE_PATHS = [BASE_DIR / "locale"]

STATIC_URL = "static/"
STATIC_ROOT = Path(env.str("STATIC_ROOT", default=str(BASE_DIR / ".data" / "static")))  # `manage.py collectstatic`
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = Path(env.str("MEDIA_ROOT", default=str(BASE_DIR / ".data" / "media")))
MEDIA_URL = "media/"

# Cache: DRF throttles and login lockouts count here, so every web process must share it in production
# (CACHE_URL=redis://...); development and tests use a per-process memory cache.
CACHES = {"default": env.cache("CACHE_URL", default="locmemcache://")}

# API throttles (core/throttling.py): per client address when anonymous, per user when signed in, provider callbacks
# per source ("callback_refused": the refused ones), counted in the shared cache. Tests run without the anon, user and
# callback rates (core/tests/test_throttling.py puts them back and proves they apply); the login's rate stays on.
THROTTLE_RATES = {
    "anon": env.str("THROTTLE_RATE_ANON", default="60/min"),
    "user": env.str("THROTTLE_RATE_USER", default="600/min"),
    "login": env.str("THROTTLE_RATE_LOGIN", default="10/min"),
    "callback": env.str("THROTTLE_RATE_CALLBACK", default="600/min"),
    "callback_refused": env.str("THROTTLE_RATE_CALLBACK_REFUSED", default="10/min"),
}
TEST_THROTTLE_RATES: dict[str, str | None] = {"anon": None, "user": None, "callback": None, "callback_refused": None}
# Repeated security events from one source (forged callbacks, throttled logins): one audit event per window, the
# rest counted (core.audit.security_event, core.SecurityEventWindow).
SECURITY_EVENT_WINDOW_SECONDS = env.int("SECURITY_EVENT_WINDOW_SECONDS", default=3600)

# REST API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["accounts.auth.PlayerTokenAuthentication", "rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON nested too deep is a 400, not a RecursionError (core/parsers.py)
    "DEFAULT_PARSER_CLASSES": ["core.parsers.JSONParser", "rest_framework.parsers.FormParser",
                               "rest_framework.parsers.MultiPartParser"],
    "DEFAULT_PAGINATION_CLASS": "core.pagination.DefaultPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",  # optional response fields stay optional (N-10)
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.AnonRateThrottle", "core.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {**THROTTLE_RATES, **(TEST_THROTTLE_RATES if TESTING else {})},
    "NUM_PROXIES": 0,  # throttles key on REMOTE_ADDR, which core.middleware.ClientAddressMiddleware set
}
# the OpenAPI schema's settings (drf-spectacular): config/schema_settings.py
from config.schema_settings import SPECTACULAR_SETTINGS  # noqa: E402, F401 - a Django setting

# Celery: JSON only, time limits, tasks enqueued after commit (``task.delay_on_commit``).
# Without CELERY_BROKER_URL: kombu's filesystem transport (no server; works across processes
# on one machine; its folders are made when the Celery app is configured, config/celery.py).
# Production: amqp://... (RabbitMQ) or redis://...
CELERY_FS_BROKER_DIR = Path(env.str("CELERY_FS_BROKER_DIR", default=str(BASE_DIR / ".data" / "broker")))
CELERY_BROKER_URL = env.str("CELERY_BROKER_URL", default="filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {
        "data_folder_in": str(CELERY_FS_BROKER_DIR / "queue"),
        "data_folder_out": str(CELERY_FS_BROKER_DIR / "queue"),
        "processed_folder": str(CELERY_FS_BROKER_DIR / "processed"),
        "control_folder": str(CELERY_FS_BROKER_DIR / "control"),
        "store_processed": False,
    }
    if CELERY_BROKER_URL.startswith("filesystem")
    else {}
)
CELERY_RESULT_BACKEND = env.str("CELERY_RESULT_BACKEND", default="") or None
CELERY_TASK_IGNORE_RESULT = CELERY_RESULT_BACKEND is None
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=300)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=240)
CELERY_TASK_ACKS_LATE = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env.bool("CELERY_TASK_ALWAYS_EAGER", default=False)
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# E-mail (Django mail backend) and SMS (accounts adapter).
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    # outside production: written to the console and kept for the development mailbox (/dev/mailbox, core/mail.py)
    default="django.core.mail.backends.smtp.EmailBackend" if PRODUCTION else "core.mail.SandboxEmailBackend",
)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", default="noreply@platform.example")
# the SMTP server of the smtp backend (Django's names; default: a relay on this machine, localhost:25)
EMAIL_HOST = env.str("EMAIL_HOST", default="localhost")
EMAIL_PORT = env.int("EMAIL_PORT", default=25)
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", default="")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", default="")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", default=False)  # STARTTLS (port 587)
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", default=False)  # implicit TLS (port 465)
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", default=20)  # seconds; a hung server must not hold a Celery worker
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other")
PUBLIC_BASE_URL = env.str("PUBLIC_BASE_URL", default="http://127.0.0.1:8000")
# The development mailbox (/dev/mailbox, GET /api/v1/accounts/dev/mailbox): the e-mails and SMS the sandbox
# gateways would have sent. Off in production (and refused there, production_refusals).
DEV_MAILBOX_ENABLED = env.bool("DEV_MAILBOX_ENABLED", default=not PRODUCTION)

# Regulatory figures (GP "Defaults for blank figures"); amounts in minor units (haléře).
PLATFORM_CURRENCY = "CZK"
GP = {
    "TEMP_ACCOUNT_DEPOSIT_CAP": env.int("GP_TEMP_ACCOUNT_DEPOSIT_CAP", default=300_000),  # GP §5(2)b, §5(12)
    "TEMP_ACCOUNT_LIFETIME_DAYS": env.int("GP_TEMP_ACCOUNT_LIFETIME_DAYS", default=30),  # GP §5(2)a
    "BRANCH_CASH_PER_24H": env.int("GP_BRANCH_CASH_PER_24H", default=500_000),  # GP §5(12)
    "MIN_STAKE": env.int("GP_MIN_STAKE", default=10),  # GP §8(1)
    "STAKE_STEP": env.int("GP_STAKE_STEP", default=10),  # GP §8(1)
    "MAX_STAKE": env.int("GP_MAX_STAKE", default=100_000),  # GP §8(2)
    "MAX_WIN_PER_ROUND": env.int("GP_MAX_WIN_PER_ROUND", default=5_000_000),  # GP §8(3)
    "MAX_HOURLY_LOSS": env.int("GP_MAX_HOURLY_LOSS", default=5_000_000),  # GP §8(5), ZHH §53
    "MIN_RTP_PERCENT": "84.24",  # GP §8(4)
    "PLAY_BEFORE_BREAK_MINUTES": 120,  # GP §7(4)
    "BREAK_MINUTES": 15,  # GP §7(4)-(5)
    "MIN_ROUND_SECONDS": 2,  # GP §7(9)
}
if PRODUCTION and not env.str("GP_MAX_HOURLY_LOSS", default=""):
    raise ImproperlyConfigured("DJANGO_ENV=production requires GP_MAX_HOURLY_LOSS (ZHH §53: set by the licence)")

# Accounts (docs/accounts.md). Adapters: "sandbox" (tables filled by staff and tests) or "http" (a JSON gateway).
ACCOUNTS_POPULATION_REGISTER = env.str("ACCOUNTS_POPULATION_REGISTER", default="sandbox")
ACCOUNTS_POPULATION_REGISTER_URL = env.str("ACCOUNTS_POPULATION_REGISTER_URL", default="")
ACCOUNTS_EXCLUSION_REGISTER = env.str("ACCOUNTS_EXCLUSION_REGISTER", default="sandbox")
ACCOUNTS_EXCLUSION_REGISTER_URL = env.str("ACCOUNTS_EXCLUSION_REGISTER_URL", default="")
ACCOUNTS_SMS_GATEWAY = env.str("ACCOUNTS_SMS_GATEWAY", default="sandbox")
ACCOUNTS_SMS_GATEWAY_URL = env.str("ACCOUNTS_SMS_GATEWAY_URL", default="")
ACCOUNTS_GATEWAY_TOKEN = env.str("ACCOUNTS_GATEWAY_TOKEN", default="")
ACCOUNTS_GATEWAY_TIMEOUT_SECONDS = env.float("ACCOUNTS_GATEWAY_TIMEOUT_SECONDS", default=5.0)
# The Ministry of Finance's AISG data interface (identity, age and the register of excluded persons in one answer;
# docs/accounts.md "AISG"): ACCOUNTS_POPULATION_REGISTER = ACCOUNTS_EXCLUSION_REGISTER = "aisg" (production: both).
ACCOUNTS_AISG_VERSION = env.str("ACCOUNTS_AISG_VERSION", default="1.0")  # the interface version module
ACCOUNTS_AISG_URL = env.str("ACCOUNTS_AISG_URL", default="https://api-pg.hazard.mfcr.cz/rovo/v1")  # playground
ACCOUNTS_AISG_KEY_FILE = env.str("ACCOUNTS_AISG_KEY_FILE", default="")  # the operator's signing key (PEM)
ACCOUNTS_AISG_CERT_FILE = env.str("ACCOUNTS_AISG_CERT_FILE", default="")  # the operator's certificate (PEM)
ACCOUNTS_AISG_MINISTRY_CERT_FILE = env.str("ACCOUNTS_AISG_MINISTRY_CERT_FILE", default="")  # signs the answers
ACCOUNTS_AISG_CA_FILE = env.str("ACCOUNTS_AISG_CA_FILE", default="")  # HTTPS trust (empty: the system's)
ACCOUNTS_AISG_ICO_VCP = env.str("ACCOUNTS_AISG_ICO_VCP", default="")  # the operator's IČO, sent as ICO_VCP
ACCOUNTS_AISG_TIMEOUT_SECONDS = env.float("ACCOUNTS_AISG_TIMEOUT_SECONDS", default=10.0)
ACCOUNTS_AISG_REQUIRE_ECHO = env.bool("ACCOUNTS_AISG_REQUIRE_ECHO", default=True)  # answer's CisloPozadavku
# No play when the last answer of the register of excluded persons is older than this (hours; 0: no such limit). The
# re-checks run every 10 minutes for logged-in players and daily for the rest: an older answer means the register
# could not confirm the player for that long (fail closed).
ACCOUNTS_EXCLUSION_MAX_AGE_HOURS = env.int("ACCOUNTS_EXCLUSION_MAX_AGE_HOURS", default=48 if PRODUCTION else 0)
ACCOUNTS_AISG_BATCH_SIZE = env.int("ACCOUNTS_AISG_BATCH_SIZE", default=1000)  # OveritOsobyHromadne, 1-1000
if not 1 <= ACCOUNTS_AISG_BATCH_SIZE <= 1000:
    raise ImproperlyConfigured("ACCOUNTS_AISG_BATCH_SIZE must be 1 to 1000 (OveritOsobyHromadne)")
# GP §4(7): the e-mail confirmation link that releases the first password by SMS.
ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS = env.int("ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS", default=48)
ACCOUNTS_EMAIL_CONFIRM_URL = env.str("ACCOUNTS_EMAIL_CONFIRM_URL",
                                     default="/api/v1/accounts/registration/confirm-email?token={token}")
# Login sessions: idle timeout (minutes, checked on each request and by a sweeper) and absolute lifetime (hours).
ACCOUNTS_SESSION_IDLE_MINUTES = env.int("ACCOUNTS_SESSION_IDLE_MINUTES", default=30)
ACCOUNTS_SESSION_MAX_HOURS = env.float("ACCOUNTS_SESSION_MAX_HOURS", default=24.0)
# Register checks that could not run (register unavailable): retry schedule.
ACCOUNTS_CHECK_RETRY_FIRST_MINUTES = env.int("ACCOUNTS_CHECK_RETRY_FIRST_MINUTES", default=15)
ACCOUNTS_CHECK_RETRY_MAX_MINUTES = env.int("ACCOUNTS_CHECK_RETRY_MAX_MINUTES", default=360)
ACCOUNTS_CHECK_LEASE_MINUTES = env.int("ACCOUNTS_CHECK_LEASE_MINUTES", default=10)
# GP §5(9): registration must finish within 30 days of its start.
ACCOUNTS_REGISTRATION_MAX_DAYS = env.int("ACCOUNTS_REGISTRATION_MAX_DAYS", default=30)
# Versions of the documents the applicant accepts (GP §4(4)d); bump to require re-acceptance.
ACCOUNTS_TERMS_VERSION = env.str("ACCOUNTS_TERMS_VERSION", default="2026-01")
ACCOUNTS_DATA_PROCESSING_VERSION = env.str("ACCOUNTS_DATA_PROCESSING_VERSION", default="2026-01")
ACCOUNTS_GAME_PLAN_VERSION = env.str("ACCOUNTS_GAME_PLAN_VERSION", default="2026-01")
ACCOUNTS_MARKETING_VERSION = env.str("ACCOUNTS_MARKETING_VERSION", default="2026-01")
# GP §5(15): close the account at the latest this many days after the balance is settled.
ACCOUNTS_CLOSE_AFTER_SETTLEMENT_DAYS = env.int("ACCOUNTS_CLOSE_AFTER_SETTLEMENT_DAYS", default=10)
# Versions of the game plan / terms (accounts/terms.py, docs/accounts.md): a version takes effect at the earliest this
# many days after publication (GP §8(1) names no period: the platform's decision); each process re-reads the
# published versions this often (a version never takes effect sooner than that after publication).
ACCOUNTS_TERMS_MIN_NOTICE_DAYS = env.int("ACCOUNTS_TERMS_MIN_NOTICE_DAYS", default=7)  # GP §8(1)
ACCOUNTS_TERMS_SNAPSHOT_SECONDS = env.float("ACCOUNTS_TERMS_SNAPSHOT_SECONDS", default=60.0)  # GP §3(5)
# No stake before a published version of the game plan and terms is in force (production refuses false; development
# and the tests keep staking without one unless they set it).
ACCOUNTS_TERMS_REQUIRED = env.bool("ACCOUNTS_TERMS_REQUIRED", default=PRODUCTION)  # GP §3(5)
# A notice's e-mail that failed is sent again after this many minutes (GP §7(7), §10(4): proven notices)
ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES = env.int("ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES", default=15)


ACCOUNTS_SUPPORT_CONTACT = env.str("ACCOUNTS_SUPPORT_CONTACT", default="podpora@platform.example / +420 800 000 000")

# Personal data retention (GP §12(7)) -------------------------------------------------------------------------------
# GP §12(5): after the end of participation the data are kept only as far as the law requires; the daily job
# accounts.personal_data_anonymise then anonymises the account (docs/accounts.md, "Personal-data requests and
# retention"). Whole years, at least 1; counted from the end of the business relationship (the account closed, expired
# or refused) unless said otherwise; the account is anonymised after the longest of them.
# ZHH: the game plan (seed 004) names no period; 3 years is the platform's decision, the same as the project's digest
# (records kept 3 years) and the audit trail's minimum (docs/core.md). With these defaults the AML period decides.
ACCOUNTS_RETENTION_GAMBLING_YEARS = env.int("ACCOUNTS_RETENTION_GAMBLING_YEARS", default=3)
# GP §12(5); AML law 253/2008 Sb. §16(1): identification data kept 10 years from the end of the business relationship.
ACCOUNTS_RETENTION_AML_YEARS = env.int("ACCOUNTS_RETENTION_AML_YEARS", default=10)
# GP §12(5); accounting law 563/1991 Sb. §31(2)b: accounting documents 5 years from the end of the accounting period
# (taken as the calendar year); the 10 years of §31(2)a are for the financial statements and annual report, which name
# no player.
ACCOUNTS_RETENTION_ACCOUNTING_YEARS = env.int("ACCOUNTS_RETENTION_ACCOUNTING_YEARS", default=5)
# GDPR art. 12(3): a personal-data request (GP §12(7)) is answered within one month of its receipt.
ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS = env.int("ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS", default=1)
if min(ACCOUNTS_RETENTION_GAMBLING_YEARS, ACCOUNTS_RETENTION_AML_YEARS, ACCOUNTS_RETENTION_ACCOUNTING_YEARS,
       ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS) < 1:
    raise ImproperlyConfigured("ACCOUNTS_RETENTION_*_YEARS and ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS must be at least 1")
# The audit trail's retention (core/retention_rules.py): whole years, at least the legal periods (AML Act
# §16(1) 10 years for the AML events, 5 years for the rest); what the retention job may touch follows from them
# (core.selectors.audit_events_past_retention). The database refuses UPDATE and DELETE of audit events regardless.
try:
    AUDIT_RETENTION_YEARS, AUDIT_RETENTION_AML_YEARS = audit_retention(
        env.int("AUDIT_RETENTION_YEARS", default=5), env.int("AUDIT_RETENTION_AML_YEARS", default=10))
except RetentionTooShort as exc:
    raise ImproperlyConfigured(str(exc)) from exc
# How many months after its end a month of each monthly-partitioned table stays live before the daily job
# core.partitions_archive moves it to the archive schema (kept, not deleted; docs/scaling.md "Retention"): a JSON
# object {table: months}; a table left out keeps its legal period (core/retention_rules.py PARTITION_RULES: 120 months
# for rounds, ledger, jackpot contributions and the audit trail, 36 for settled bets); shorter is refused at start.
try:
    PARTITION_RETENTION_MONTHS = partition_retention(
        env.json("PARTITION_RETENTION_MONTHS", default={}), audit_years=AUDIT_RETENTION_YEARS,
        audit_aml_years=AUDIT_RETENTION_AML_YEARS)
except RetentionTooShort as exc:
    raise ImproperlyConfigured(str(exc)) from exc
# GP §12(4), §12(7), GDPR art. 13(1)e, art. 19: the recipients of the participants' data, published in the privacy
# notice (GET /api/v1/accounts/privacy) and in the export; those with "notify" are told of a correction or an erasure
# of the records they receive (accounts.RecipientNotice, e-mailed to "contact"). "records" are record codes of the
# privacy contract (accounts/privacy_contract.py; the system check accounts.E003 refuses an unknown one). The defaults
# name the platform's own integrations with development contacts: a deployment sets its processors' real names and
# privacy contacts (env PRIVACY_RECIPIENTS, a JSON list of the same shape).
PRIVACY_RECIPIENTS = env.json("PRIVACY_RECIPIENTS", default=DEFAULT_PRIVACY_RECIPIENTS)
PRIVACY_NOTICE_RETRY_MINUTES = env.int("PRIVACY_NOTICE_RETRY_MINUTES", default=30)

# Wallet (docs/wallet.md); amounts in minor units (haléře), None = no limit.
WALLET_SANDBOX_ENABLED = env.bool("WALLET_SANDBOX_ENABLED", default=not PRODUCTION)
WALLET_SANDBOX_SECRET = env.str("WALLET_SANDBOX_SECRET", default="sandbox-shared-secret-for-development-only")
WALLET_SANDBOX_CALLBACK_URL = env.str("WALLET_SANDBOX_CALLBACK_URL", default="")  # "" = deliver in-process
WALLET_SANDBOX_PAYOUT_OUTCOME = env.str("WALLET_SANDBOX_PAYOUT_OUTCOME", default="succeeded")  # |failed|refused|none
# method kind -> provider code; in production bank accounts go through the operator's bank account ("bank": statements
# in, payment orders out), elsewhere everything through the sandbox unless set
WALLET_PROVIDER_BY_KIND = env.json("WALLET_PROVIDER_BY_KIND", default={"bank_account": "bank"} if PRODUCTION else {})
WALLET_DEPOSIT_EXPIRY_HOURS = env.int("WALLET_DEPOSIT_EXPIRY_HOURS", default=24)
WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = env.int("WALLET_WITHDRAWAL_APPROVAL_THRESHOLD", default=1_000_000)
WALLET_SEND_RETRY_MINUTES = env.int("WALLET_SEND_RETRY_MINUTES", default=15)
WALLET_AML_HOLD_DAYS = env.int("WALLET_AML_HOLD_DAYS", default=10)  # GP §10(3): AML law (253/2008 Sb.)
WALLET_POSTAGE = env.int("WALLET_POSTAGE", default=5_000)  # GP §5(2)e, §5(13)
WALLET_BRANCH_CASH_COMBINED = env.bool("WALLET_BRANCH_CASH_COMBINED", default=False)  # GP §5(12)
# The most one operation may move (haléře): an amount above it is refused with a 400 before anything else, so no
# amount can overflow a column or a provider's field. The GP figures (deposit caps per method, the
# temporary account's cap, the withdrawal approval threshold) still apply below these.
WALLET_DEPOSIT_MAX_AMOUNT = env.int("WALLET_DEPOSIT_MAX_AMOUNT", default=100_000_000)  # 1,000,000 CZK
WALLET_WITHDRAWAL_MAX_AMOUNT = env.int("WALLET_WITHDRAWAL_MAX_AMOUNT", default=100_000_000)
WALLET_BRANCH_CASH_MAX_AMOUNT = env.int("WALLET_BRANCH_CASH_MAX_AMOUNT", default=100_000_000)
WALLET_DOCUMENT_MAX_BYTES = env.int("WALLET_DOCUMENT_MAX_BYTES", default=5 * 1024 * 1024)  # GP §5(8)b
# Bank transfers (docs/wallet.md "Bank transfers"): the operator's account. Its statements (camt.053 / camt.054) are
# imported (a statement of another account is refused) and payment orders (pain.001) are paid from it.
WALLET_BANK_IBAN = env.str("WALLET_BANK_IBAN", default="").replace(" ", "").upper()
WALLET_BANK_BIC = env.str("WALLET_BANK_BIC", default="")  # "" = the BIC of the IBAN's bank (wallet/data/cz_banks.csv)
WALLET_BANK_ACCOUNT_NAME = env.str("WALLET_BANK_ACCOUNT_NAME", default="")  # the payer named in payment orders
WALLET_BANK_STATEMENT_MAX_BYTES = env.int("WALLET_BANK_STATEMENT_MAX_BYTES", default=64 * 1024 * 1024)
# A statement line above this amount (haléře; default 1,000,000,000.00 CZK) is not booked: recorded as invalid, staff
# told, the rest of the file booked (a ledger amount is a 64-bit integer).
WALLET_BANK_ENTRY_MAX_AMOUNT = env.int("WALLET_BANK_ENTRY_MAX_AMOUNT", default=100_000_000_000)
if not 0 < WALLET_BANK_ENTRY_MAX_AMOUNT < 2**62:
    raise ImproperlyConfigured("WALLET_BANK_ENTRY_MAX_AMOUNT must be positive and below 2^62")
# (system check wallet.E001: with the "bank" provider in use, both must be set; until then bank deposits and payment
# orders are refused with wallet.bank_not_configured)


def _optional_int(name: str, default: int | None) -> int | None:
    raw = env.str(name, default="" if default is None else str(default)).strip()
    return None if raw.lower() in ("", "none") else int(raw)


# GP §8(6) blanks
WALLET_BANK_DEPOSIT_MIN = _optional_int("WALLET_BANK_DEPOSIT_MIN", 300)
WALLET_PAYU_DEPOSIT_MIN = _optional_int("WALLET_PAYU_DEPOSIT_MIN", 300)
WALLET_PAYSAFECARD_DEPOSIT_MIN = _optional_int("WALLET_PAYSAFECARD_DEPOSIT_MIN", 300)
WALLET_PAYSAFECARD_DEPOSIT_MAX = _optional_int("WALLET_PAYSAFECARD_DEPOSIT_MAX", 1_000_000)
WALLET_SKRILL_DEPOSIT_MIN = _optional_int("WALLET_SKRILL_DEPOSIT_MIN", 10_000)
WALLET_SKRILL_DEPOSIT_MAX = _optional_int("WALLET_SKRILL_DEPOSIT_MAX", None)
WALLET_BANK_WITHDRAWAL_MIN = _optional_int("WALLET_BANK_WITHDRAWAL_MIN", 10_000)
WALLET_SKRILL_WITHDRAWAL_MIN = _optional_int("WALLET_SKRILL_WITHDRAWAL_MIN", 10_000)
WALLET_SKRILL_WITHDRAWAL_MAX = _optional_int("WALLET_SKRILL_WITHDRAWAL_MAX", None)
WALLET_BRANCH_DEPOSIT_MAX = _optional_int("WALLET_BRANCH_DEPOSIT_MAX", None)
WALLET_BRANCH_WITHDRAWAL_MAX = _optional_int("WALLET_BRANCH_WITHDRAWAL_MAX", None)

# Complaints (docs/complaints.md): attachments a player may add, and who hears of overdue complaints.
COMPLAINTS_ATTACHMENT_MAX_BYTES = env.int("COMPLAINTS_ATTACHMENT_MAX_BYTES", default=5 * 1024 * 1024)
COMPLAINTS_ATTACHMENTS_MAX = env.int("COMPLAINTS_ATTACHMENTS_MAX", default=10)
COMPLAINTS_SUPERVISOR_EMAILS = env.list("COMPLAINTS_SUPERVISOR_EMAILS", default=[])

# Jackpots (docs/jackpots.md). Part one of the game plan has no jackpot provision, so an operator may need a plan
# amendment before offering them: production must say JACKPOTS_ENABLED explicitly. Off: nothing is contributed,
# nothing is won, and the catalogue shows each game's RTP without jackpots.
if PRODUCTION and not env.str("JACKPOTS_ENABLED", default=""):
    raise ImproperlyConfigured("DJANGO_ENV=production requires JACKPOTS_ENABLED (true only with an approved plan)")
JACKPOTS_ENABLED = env.bool("JACKPOTS_ENABLED", default=True)
# Seals each must-hit value (WIN_AT) so that staff reading the database cannot learn it before it hits.
JACKPOTS_SEAL_KEY = env.str("JACKPOTS_SEAL_KEY", default="dev-jackpot-seal-key-do-not-use-in-production")
if PRODUCTION and JACKPOTS_ENABLED and not env.str("JACKPOTS_SEAL_KEY", default=""):
    raise ImproperlyConfigured("DJANGO_ENV=production with jackpots requires JACKPOTS_SEAL_KEY")
JACKPOTS_CONFIG_TTL_SECONDS = env.float("JACKPOTS_CONFIG_TTL_SECONDS", default=1.0)
JACKPOTS_FOLD_SECONDS = env.float("JACKPOTS_FOLD_SECONDS", default=1.0)

# /health: the worker and beat are stale when the scheduled heartbeat (every minute) is older than this; they
# turn /health red (503) where required (production by default).
HEALTH_JOBS_MAX_AGE_SECONDS = env.int("HEALTH_JOBS_MAX_AGE_SECONDS", default=300)
HEALTH_REQUIRE_JOBS = env.bool("HEALTH_REQUIRE_JOBS", default=PRODUCTION)

# QA only: forced outcomes in play-money rounds (docs/games-platform.md). Never in production.
GAMES_QA_FORCED_OUTCOMES = env.bool("GAMES_QA_FORCED_OUTCOMES", default=False)

# Remote games of outside studios (docs/providers.md). The development secret is the demo provider's (its
# simulator's); production refuses a provider using it or any secret shorter than MIN_SECRET_BYTES, and refuses
# PROVIDERS_ALLOW_ANY_SOURCE (a provider with no allowed source address is then refused every call).
# the demo studio's simulator (make run starts it, provider_simulator/): where the demo provider's launch and API
# URLs point (seed_demo); make run sets it from PROVIDER_SIM_PORT
PROVIDERS_DEMO_URL = env.str("PROVIDER_SIM_URL", default="http://127.0.0.1:8300")
# production refuses this variable set to anything but its public default (the check that refuses a provider row
# with the public development secret compares with this value: changing it would turn that check off)
PROVIDERS_DEV_SECRET_DEFAULT = "simstudio-development-secret-not-for-production"
PROVIDERS_DEV_SECRET = env.str("PROVIDERS_DEV_SECRET", default=PROVIDERS_DEV_SECRET_DEFAULT)
PROVIDERS_ALLOW_ANY_SOURCE = env.bool("PROVIDERS_ALLOW_ANY_SOURCE", default=False)
PROVIDERS_LAUNCH_TOKEN_SECONDS = env.int("PROVIDERS_LAUNCH_TOKEN_SECONDS", default=300)
PROVIDERS_SESSION_SECONDS = env.int("PROVIDERS_SESSION_SECONDS", default=12 * 3600)
PROVIDERS_SIGNATURE_WINDOW_SECONDS = env.int("PROVIDERS_SIGNATURE_WINDOW_SECONDS", default=300)
PROVIDERS_HTTP_TIMEOUT_SECONDS = env.int("PROVIDERS_HTTP_TIMEOUT_SECONDS", default=10)
if PRODUCTION and GAMES_QA_FORCED_OUTCOMES:
    raise ImproperlyConfigured("GAMES_QA_FORCED_OUTCOMES must be off in production")

# Bench only: the framework's floor (config/bench_floor.py, POST /bench/floor), a minimal DRF view doing a round's
# statement count in one transaction, served beside the platform by `make bench`. Never in production.
BENCH_FLOOR = env.bool("BENCH_FLOOR", default=False)
BENCH_FLOOR_STATEMENTS = env.int("BENCH_FLOOR_STATEMENTS", default=11)
if PRODUCTION and BENCH_FLOOR:
    raise ImproperlyConfigured("BENCH_FLOOR must be off in production")

# Security
SESSION_COOKIE_HTTPONLY = True
if PRODUCTION:
    SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True

# Production refuses a development switch left on: each would open the platform to anyone. The one
# documented escape hatch: SECURE_SSL_REDIRECT=false when the proxy in front terminates TLS and redirects plain
# HTTP itself, stated with TLS_REDIRECT_AT_PROXY=true.
if PRODUCTION:
    unsafe = [name for name, bad in (
        ("DEBUG=true", DEBUG),
        ("WALLET_SANDBOX_ENABLED=true (the sandbox payment provider and its public secret)", WALLET_SANDBOX_ENABLED),
        ("ADMIN_REQUIRE_2FA=false", not ADMIN_REQUIRE_2FA),
        ("AXES_ENABLED=false (no login lock-out)", not AXES_ENABLED),
        ("SECURE_SSL_REDIRECT=false without TLS_REDIRECT_AT_PROXY=true",
         not SECURE_SSL_REDIRECT and not env.bool("TLS_REDIRECT_AT_PROXY", default=False)),
    ) if bad]
    if unsafe:
        raise ImproperlyConfigured("DJANGO_ENV=production refuses: " + "; ".join(unsafe))

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logging.RequestIdFilter"}},
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id"]}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    "loggers": {
        "django.request": {"level": "ERROR", "propagate": True},
        "django.server": {"level": "WARNING", "propagate": True},
    },
}

# Lockout is per username (protects the account whatever the IP); per-IP pressure is
# handled by DRF throttles on the login endpoint.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]

# AML (docs/aml.md) --------------------------------------------------------------------------------------------------
# Online AML identification through an identification provider (GP §4(4)b), PEP / sanctions screening, the
# source-of-funds declaration and the suspicious-transaction rules (GP §12(1), §2; holds GP §10(3)). Amounts in
# haléře. The sandbox provider and list are for development and tests only: production refuses them.
AML_SANDBOX_ENABLED = env.bool("AML_SANDBOX_ENABLED", default=not PRODUCTION)
if PRODUCTION and AML_SANDBOX_ENABLED:
    raise ImproperlyConfigured("DJANGO_ENV=production refuses AML_SANDBOX_ENABLED=true (the sandbox AML provider)")
AML_IDENTIFICATION_PROVIDER = env.str("AML_IDENTIFICATION_PROVIDER", default="sandbox")
AML_SANDBOX_SECRET = env.str("AML_SANDBOX_SECRET", default="dev-aml-sandbox-secret-do-not-use-in-production")
AML_SANDBOX_CALLBACK_URL = env.str("AML_SANDBOX_CALLBACK_URL", default="")  # empty: answers handed in-process
AML_SANDBOX_IDENT_OUTCOME = env.str("AML_SANDBOX_IDENT_OUTCOME", default="auto")  # auto (by marker) or an outcome
AML_SANDBOX_UNAVAILABLE = env.bool("AML_SANDBOX_UNAVAILABLE", default=False)  # the sandbox refuses submissions
AML_IDENT_IMAGE_MAX_BYTES = env.int("AML_IDENT_IMAGE_MAX_BYTES", default=5 * 1024 * 1024)
AML_IDENT_MIN_SCORE = env.int("AML_IDENT_MIN_SCORE", default=80)  # an approval below this goes to staff review
AML_IDENT_RETRY_FIRST_MINUTES = env.int("AML_IDENT_RETRY_FIRST_MINUTES", default=5)
AML_IDENT_RETRY_MAX_MINUTES = env.int("AML_IDENT_RETRY_MAX_MINUTES", default=240)
AML_IDENT_MAX_ATTEMPTS = env.int("AML_IDENT_MAX_ATTEMPTS", default=8)
AML_IDENT_LEASE_MINUTES = env.int("AML_IDENT_LEASE_MINUTES", default=10)
# Identification attempts a player may start in any rolling 24 hours; once used up, none until staff allow new ones
# (each is a paid provider check and up to three stored images)
AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY = env.int("AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY", default=3)
# Screening list: "imported" (the EU, UN and Czech national sanctions lists and the operator's PEP list imported with
# manage.py aml_list_import or the staff upload; production's default) or "sandbox" (development). A list name whose
# score (0-100, aml/matching.py) reaches the threshold is a name match; the screening answers only once every
# required source has been imported (otherwise it is "unavailable": completion waits, fail closed).
AML_SCREENING_LIST = env.str("AML_SCREENING_LIST", default="imported" if PRODUCTION else "sandbox")
if PRODUCTION and AML_SCREENING_LIST == "sandbox":
    raise ImproperlyConfigured("DJANGO_ENV=production refuses AML_SCREENING_LIST=sandbox (use the imported lists)")
AML_SCREENING_REQUIRED_SOURCES = env.list("AML_SCREENING_REQUIRED_SOURCES", default=["eu", "un", "cz"])
if set(AML_SCREENING_REQUIRED_SOURCES) - {"eu", "un", "cz", "pep"}:
    raise ImproperlyConfigured("AML_SCREENING_REQUIRED_SOURCES: each of eu, un, cz, pep")
AML_SCREENING_MATCH_THRESHOLD = env.int("AML_SCREENING_MATCH_THRESHOLD", default=85)
if not 50 <= AML_SCREENING_MATCH_THRESHOLD <= 100:
    raise ImproperlyConfigured("AML_SCREENING_MATCH_THRESHOLD must be 50-100 (a name score, aml/matching.py)")
AML_SCREENING_LIST_MAX_BYTES = env.int("AML_SCREENING_LIST_MAX_BYTES", default=100 * 1024 * 1024)
# The client risk rating (AML Act §9, §21a; aml/risk.py, docs/aml.md "Client risk rating").
AML_RISK_MEDIUM_SCORE = env.int("AML_RISK_MEDIUM_SCORE", default=15)
AML_RISK_HIGH_SCORE = env.int("AML_RISK_HIGH_SCORE", default=40)
AML_RISK_DEPOSITS_MEDIUM = env.int("AML_RISK_DEPOSITS_MEDIUM", default=10_000_000)  # haléře in 30 days
AML_RISK_DEPOSITS_HIGH = env.int("AML_RISK_DEPOSITS_HIGH", default=50_000_000)
AML_RISK_DEPOSIT_COUNT_30D = env.int("AML_RISK_DEPOSIT_COUNT_30D", default=30)
# high-risk third countries (the EU Commission's list, Delegated Regulation (EU) 2016/1675 as amended): the
# compliance officer keeps it current
AML_RISK_HIGH_RISK_COUNTRIES = env.list("AML_RISK_HIGH_RISK_COUNTRIES", default=[
    "AF", "BF", "CD", "CM", "DZ", "HT", "IR", "KE", "KP", "LA", "LB", "MC", "ML", "MM", "MZ", "NA", "NG", "SS",
    "SY", "TZ", "VE", "VN", "YE"])
AML_RISK_REVIEW_DAYS = {"low": env.int("AML_RISK_REVIEW_DAYS_LOW", default=1095),
                        "medium": env.int("AML_RISK_REVIEW_DAYS_MEDIUM", default=365),
                        "high": env.int("AML_RISK_REVIEW_DAYS_HIGH", default=90)}
if not 0 < AML_RISK_MEDIUM_SCORE < AML_RISK_HIGH_SCORE or min(AML_RISK_REVIEW_DAYS.values()) < 1:
    raise ImproperlyConfigured("AML_RISK_*: 0 < MEDIUM_SCORE < HIGH_SCORE and review days of at least 1")
# A list file's publication time may lie at most this far after now (clocks differ); later is refused as invalid.
AML_LIST_CLOCK_SKEW_MINUTES = env.int("AML_LIST_CLOCK_SKEW_MINUTES", default=10)
if not 0 <= AML_LIST_CLOCK_SKEW_MINUTES <= 24 * 60:
    raise ImproperlyConfigured("AML_LIST_CLOCK_SKEW_MINUTES must be 0 to 1440")
AML_SCREENING_RESCREEN_BATCH = env.int("AML_SCREENING_RESCREEN_BATCH", default=200)
AML_SCREENING_RESCREEN_SECONDS = env.int("AML_SCREENING_RESCREEN_SECONDS", default=240)  # then the task re-enqueues
AML_SCREENING_SANDBOX_FILE = env.str("AML_SCREENING_SANDBOX_FILE",
                                     default=str(BASE_DIR / "aml" / "data" / "sandbox_screening_list.json"))
AML_SCREENING_INTERVAL_HOURS = env.int("AML_SCREENING_INTERVAL_HOURS", default=24)
AML_SCREENING_RETRY_MINUTES = env.int("AML_SCREENING_RETRY_MINUTES", default=30)
# Bank iD (GP §4(4)b; docs/aml.md "Bank iD"): online AML identification by the player's bank over OpenID Connect
# (authorization code + PKCE, the ID token checked against the issuer's JWKS, the verified claims read from its
# profile/userinfo endpoint). Off unless AML_BANKID_ENABLED; when on, the issuer, the client and the player apps'
# redirect URLs are required, and production requires https for each of them.
AML_BANKID_ENABLED = env.bool("AML_BANKID_ENABLED", default=False)
AML_BANKID_ISSUER = env.str("AML_BANKID_ISSUER", default="")  # e.g. https://oidc.bankid.cz/ (sandbox: oidc.sandbox...)
AML_BANKID_CLIENT_ID = env.str("AML_BANKID_CLIENT_ID", default="")
AML_BANKID_CLIENT_SECRET = env.str("AML_BANKID_CLIENT_SECRET", default="")
# client_secret_post (as Bank iD's examples), client_secret_basic, or private_key_jwt (AML_BANKID_CLIENT_PRIVATE_KEY:
# the private JWK as JSON, or a PEM; signed with AML_BANKID_CLIENT_ASSERTION_ALG)
AML_BANKID_TOKEN_AUTH_METHOD = env.str("AML_BANKID_TOKEN_AUTH_METHOD", default="client_secret_post")
AML_BANKID_CLIENT_PRIVATE_KEY = env.str("AML_BANKID_CLIENT_PRIVATE_KEY", default="")
AML_BANKID_CLIENT_ASSERTION_ALG = env.str("AML_BANKID_CLIENT_ASSERTION_ALG", default="RS256")
# exact redirect URIs of the player apps (each also registered with Bank iD); a start names one of them
AML_BANKID_REDIRECT_URLS = env.list("AML_BANKID_REDIRECT_URLS", default=[])
AML_BANKID_SCOPES = env.str("AML_BANKID_SCOPES", default=(
    "openid profile.name profile.birthdate profile.birthnumber profile.birthplaceNationality profile.addresses "
    "profile.idcards profile.legalstatus profile.verification"))
# Bank iD knows one level, loa3 (two factors, since API 2.0.0): sent and required of the ID token's acr ("" = neither)
AML_BANKID_ACR_VALUES = env.str("AML_BANKID_ACR_VALUES", default="loa3")
AML_BANKID_CLAIMS_ENDPOINT = env.str("AML_BANKID_CLAIMS_ENDPOINT", default="profile")  # profile | userinfo
AML_BANKID_TRUST_FRAMEWORK = env.str("AML_BANKID_TRUST_FRAMEWORK", default="cz_aml")  # "" = not required
AML_BANKID_HTTP_TIMEOUT_SECONDS = env.float("AML_BANKID_HTTP_TIMEOUT_SECONDS", default=10.0)
AML_BANKID_CA_BUNDLE = env.str("AML_BANKID_CA_BUNDLE", default="")  # a CA file for the issuer's TLS; "" = system's
AML_BANKID_SESSION_MINUTES = env.int("AML_BANKID_SESSION_MINUTES", default=10)  # a state is valid this long
AML_BANKID_LEEWAY_SECONDS = env.int("AML_BANKID_LEEWAY_SECONDS", default=60)  # clock skew for exp / iat
AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS = env.int("AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS", default=600)  # iat no older
AML_BANKID_METADATA_CACHE_SECONDS = env.int("AML_BANKID_METADATA_CACHE_SECONDS", default=3600)  # discovery, JWKS
if AML_BANKID_ENABLED:
    _bankid_missing = [name for name, value in (
        ("AML_BANKID_ISSUER", AML_BANKID_ISSUER), ("AML_BANKID_CLIENT_ID", AML_BANKID_CLIENT_ID),
        ("AML_BANKID_REDIRECT_URLS", AML_BANKID_REDIRECT_URLS),
        ("AML_BANKID_CLIENT_PRIVATE_KEY" if AML_BANKID_TOKEN_AUTH_METHOD == "private_key_jwt"
         else "AML_BANKID_CLIENT_SECRET",
         AML_BANKID_CLIENT_PRIVATE_KEY if AML_BANKID_TOKEN_AUTH_METHOD == "private_key_jwt"
         else AML_BANKID_CLIENT_SECRET),
    ) if not value]
    if AML_BANKID_TOKEN_AUTH_METHOD not in ("client_secret_post", "client_secret_basic", "private_key_jwt"):
        _bankid_missing.append("AML_BANKID_TOKEN_AUTH_METHOD (client_secret_post, client_secret_basic or "
                               "private_key_jwt)")
    if AML_BANKID_CLAIMS_ENDPOINT not in ("profile", "userinfo"):
        _bankid_missing.append("AML_BANKID_CLAIMS_ENDPOINT (profile or userinfo)")
    if PRODUCTION:
        _bankid_missing += [f"https for {name} ({url})" for name, urls in (
            ("AML_BANKID_ISSUER", [AML_BANKID_ISSUER]), ("AML_BANKID_REDIRECT_URLS", AML_BANKID_REDIRECT_URLS))
            for url in urls if url and not url.startswith("https://")]
    if _bankid_missing:
        raise ImproperlyConfigured("AML_BANKID_ENABLED=true requires: " + "; ".join(_bankid_missing))
# Source of funds: confirmed deposits over the last AML_SOF_WINDOW_DAYS reaching the threshold require a declaration,
# valid AML_SOF_VALID_DAYS (our defaults: the plan and the AML law leave the figures to the operator's risk policy).
AML_SOF_THRESHOLD = env.int("AML_SOF_THRESHOLD", default=10_000_000)  # 100,000 CZK
AML_SOF_WINDOW_DAYS = env.int("AML_SOF_WINDOW_DAYS", default=30)
AML_SOF_VALID_DAYS = env.int("AML_SOF_VALID_DAYS", default=365)
# Suspicious-transaction rules (each hit opens a case; docs/aml.md explains each). A rule hit is an alert for
# compliance, not a finding: it blocks withdrawals only with AML_RULE_CASES_BLOCK=true.
AML_RULES_SCAN_HOURS = env.int("AML_RULES_SCAN_HOURS", default=24)
AML_RULE_CASES_BLOCK = env.bool("AML_RULE_CASES_BLOCK", default=False)
AML_RULES = {
    "deposit_little_play": {
        "enabled": env.bool("AML_RULE_LITTLE_PLAY_ENABLED", default=True),
        "lookback_days": env.int("AML_RULE_LITTLE_PLAY_LOOKBACK_DAYS", default=7),
        "min_deposits": env.int("AML_RULE_LITTLE_PLAY_MIN_DEPOSITS", default=500_000),  # 5,000 CZK
        "max_turnover_percent": env.int("AML_RULE_LITTLE_PLAY_MAX_TURNOVER_PERCENT", default=100),
        "min_withdrawn_percent": env.int("AML_RULE_LITTLE_PLAY_MIN_WITHDRAWN_PERCENT", default=80),
    },
    "many_methods": {
        "enabled": env.bool("AML_RULE_MANY_METHODS_ENABLED", default=True),
        "window_days": env.int("AML_RULE_MANY_METHODS_WINDOW_DAYS", default=30),
        "count": env.int("AML_RULE_MANY_METHODS_COUNT", default=4),
    },
    "rapid_cycles": {
        "enabled": env.bool("AML_RULE_RAPID_CYCLES_ENABLED", default=True),
        "window_hours": env.int("AML_RULE_RAPID_CYCLES_WINDOW_HOURS", default=24),
        "gap_minutes": env.int("AML_RULE_RAPID_CYCLES_GAP_MINUTES", default=120),
        "count": env.int("AML_RULE_RAPID_CYCLES_COUNT", default=3),
    },
    "large_win_withdrawn": {
        "enabled": env.bool("AML_RULE_LARGE_WIN_ENABLED", default=True),
        "min_win": env.int("AML_RULE_LARGE_WIN_MIN", default=2_000_000),  # 20,000 CZK
        "within_hours": env.int("AML_RULE_LARGE_WIN_WITHIN_HOURS", default=48),
        "min_withdrawn_percent": env.int("AML_RULE_LARGE_WIN_MIN_WITHDRAWN_PERCENT", default=90),
    },
}

# Production refuses what would open it up ----------------------------------------------------
# The repository's development secrets are public: production refuses each of them, and any key shorter than 32 bytes
# (with the public seal key the must-hit values can be unsealed from the database; with the public SECRET_KEY e-mail
# links can be forged). The outside systems must be named, never left at their sandbox: the sandbox register of
# excluded persons is a local table, so an excluded person would never be found (ZHH §15, GP §4).
DEV_SECRETS = {
    "SECRET_KEY": "dev-insecure-key-do-not-use-in-production-0123456789abcdef",
    "JACKPOTS_SEAL_KEY": "dev-jackpot-seal-key-do-not-use-in-production",
    "WALLET_SANDBOX_SECRET": "sandbox-shared-secret-for-development-only",
    "AML_SANDBOX_SECRET": "dev-aml-sandbox-secret-do-not-use-in-production",
}
MIN_SECRET_BYTES = 32
#: what production uses for each outside system (printed at start: core.apps)
EXTERNAL_SYSTEMS = {
    "population register": ACCOUNTS_POPULATION_REGISTER,
    "register of excluded persons": ACCOUNTS_EXCLUSION_REGISTER,
    "SMS gateway": ACCOUNTS_SMS_GATEWAY,
    "identification provider": AML_IDENTIFICATION_PROVIDER,
    "Bank iD": "on" if AML_BANKID_ENABLED else "off",
    "screening list": AML_SCREENING_LIST,
    "payment providers": ",".join(sorted(set(WALLET_PROVIDER_BY_KIND.values()))) or "sandbox",
}


# Reports (docs/reports.md): the regulator's record is sealed (XAdES) with the operator's certificate.
REPORTS_ENABLED = env.bool("REPORTS_ENABLED", default=True)
REPORTS_SEAL_KEY_FILE = env.str("REPORTS_SEAL_KEY_FILE", default="")  # PEM private key
REPORTS_SEAL_CERT_FILE = env.str("REPORTS_SEAL_CERT_FILE", default="")  # PEM certificate (chain) of that key
# outside production, without the two files, a self-signed development seal is made once under .data/ (never in
# production: production_refusals)
REPORTS_DEV_SEAL_DIR = Path(env.str("REPORTS_DEV_SEAL_DIR", default=str(BASE_DIR / ".data" / "dev-seal")))
# the pseudonymous player reference of the record (HMAC of the player id); defaults to SECRET_KEY
REPORTS_PLAYER_REFERENCE_KEY = env.str("REPORTS_PLAYER_REFERENCE_KEY", default="")
REPORTS_OPERATOR = env.str("REPORTS_OPERATOR", default="Development operator (not licensed)")

# Remote access for the Ministry of Finance (decree 10/2019 Sb.; docs/regulator.md "Settings": what each one means).
REGULATOR_ENABLED = env.bool("REGULATOR_ENABLED", default=True)  # the packages are built (and production checks them)
REGULATOR_OPERATOR_ID = env.str("REGULATOR_OPERATOR_ID", default="12345678")
REGULATOR_OPERATOR_NAME = env.str("REGULATOR_OPERATOR_NAME", default=REPORTS_OPERATOR)
REGULATOR_PERIOD_TIME_ZONE = env.str("REGULATOR_PERIOD_TIME_ZONE", default="Europe/Prague")
REGULATOR_BUILD_DELAY_MINUTES = env.int("REGULATOR_BUILD_DELAY_MINUTES", default=15)
REGULATOR_PACKAGE_DIR = Path(env.str("REGULATOR_PACKAGE_DIR", default=str(BASE_DIR / ".data" / "regulator")))
# the seal: the operator's qualified certificate for an electronic seal with its key (PKCS#12)
REGULATOR_SEAL_P12 = env.str("REGULATOR_SEAL_P12", default="")
REGULATOR_SEAL_P12_PASSWORD = env.str("REGULATOR_SEAL_P12_PASSWORD", default="")
# the Ministry's encryption certificates (PEM files), and optionally the operator's own (to decrypt its archive)
REGULATOR_MINISTRY_ENCRYPTION_CERTS = env.list("REGULATOR_MINISTRY_ENCRYPTION_CERTS", default=[])
REGULATOR_OWN_ENCRYPTION_CERT = env.str("REGULATOR_OWN_ENCRYPTION_CERT", default="")
REGULATOR_OWN_ENCRYPTION_KEY = env.str("REGULATOR_OWN_ENCRYPTION_KEY", default="")  # PEM key of that certificate
# PEM: the CA of the seal certificate (to verify an issued package before opening it: manage.py regulator_package)
REGULATOR_SEAL_TRUST = env.str("REGULATOR_SEAL_TRUST", default="")
# PEM: the CA (or the certificate) of the Ministry's seal, to verify its confirmation packages
REGULATOR_MINISTRY_SEAL_TRUST = env.str("REGULATOR_MINISTRY_SEAL_TRUST", default="")
# the Ministry's client certificates admitted to the download and notification URLs: subject DNs (RFC 4514, as the
# TLS terminator passes them) or SHA-256 fingerprints (hex) of the certificate
REGULATOR_MINISTRY_CLIENTS = env.list("REGULATOR_MINISTRY_CLIENTS", default=[])
# the request header in which the TLS terminator passes the verified client certificate (URL-encoded PEM, nginx's
# $ssl_client_escaped_cert) and the one with the verification result (must be SUCCESS)
REGULATOR_CLIENT_CERT_HEADER = env.str("REGULATOR_CLIENT_CERT_HEADER", default="HTTP_X_SSL_CLIENT_CERT")
REGULATOR_CLIENT_VERIFY_HEADER = env.str("REGULATOR_CLIENT_VERIFY_HEADER", default="HTTP_X_SSL_CLIENT_VERIFY")
# the openssl command line tool that encrypts and seals (OpenSSL 3: CMS with -cades)
REGULATOR_OPENSSL = env.str("REGULATOR_OPENSSL", default="openssl")
# TransakceZpusob in ucet.csv (open point: the Ministry's sample data writes 1 for card and bank payments)
# the public base of the download and notification URLs in the registration record (manage.py regulator_registration)
REGULATOR_PUBLIC_BASE_URL = env.str("REGULATOR_PUBLIC_BASE_URL", default=PUBLIC_BASE_URL)
REGULATOR_NONCASH_CODE = env.int("REGULATOR_NONCASH_CODE", default=1)
REGULATOR_CASH_CODE = env.int("REGULATOR_CASH_CODE", default=0)




def production_refusals() -> list[str]:
    """Why production must not start with these settings (empty: it may). Each names the variable, never a value
    (the rules: config/refusals.py)."""
    return refusals_of(globals())


if PRODUCTION and (_refused := production_refusals()):
    raise ImproperlyConfigured("DJANGO_ENV=production refuses: " + "; ".join(_refused))
