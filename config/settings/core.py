"""The Django core: keys, hosts, apps, middleware, sign-in, the cache, the API's throttles, e-mail, health, logging
and the HTTPS switches of production."""

from __future__ import annotations

import environ
from django.core.exceptions import ImproperlyConfigured

from config.settings.base import BASE_DIR, PRODUCTION, TESTING, env
from config.settings.schema import SPECTACULAR_SETTINGS  # noqa: F401 - a Django setting

env.area("Core")
DEV_SECRET_KEY = "dev-insecure-key-do-not-use-in-production-0123456789abcdef"
SECRET_KEY = env.str(
    "SECRET_KEY",
    DEV_SECRET_KEY,
    "Django's signing key (sessions, e-mail links); at least 32 bytes in production",
    required=True,
)
DEBUG = env.bool("DEBUG", True, "Django's debug pages; refused in production", production=False)
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS",
    ["127.0.0.1", "localhost", "testserver"],
    "the host names the platform answers to; * is refused in production",
    production=[],
)
CSRF_TRUSTED_ORIGINS = env.list(
    "CSRF_TRUSTED_ORIGINS", [], "origins (https://host) trusted for the admin's forms behind a proxy on another host"
)

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
    "core.middleware.RejectNulMiddleware",  # a NUL in the path, query or a header never reaches a view
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

# Staff sign in to the admin with a second factor (TOTP, django-otp). Enrol a device: `manage.py staff_totp_enrol`.
ADMIN_REQUIRE_2FA = env.bool(
    "ADMIN_REQUIRE_2FA",
    False,
    "staff sign in to the admin with a one-time password "
    "(TOTP); optional in development so the demo credentials work as printed, refused off "
    "in production",
    production=True,
)
OTP_TOTP_ISSUER = env.str(
    "OTP_TOTP_ISSUER", "Online games platform", "the issuer name staff see in their authenticator app"
)

# Failed logins are throttled and locked out (django-axes), per username; per-address pressure is handled by the
# login throttle.
AXES_FAILURE_LIMIT = env.int(
    "AXES_FAILURE_LIMIT", 5, "failed sign-ins before a username is locked out (production: 1-20)"
)
AXES_COOLOFF_TIME = env.float("AXES_COOLOFF_HOURS", 0.5, "hours a locked-out username stays locked")
AXES_LOCKOUT_PARAMETERS = ["username"]
AXES_RESET_ON_SUCCESS = True
AXES_ENABLED = env.bool("AXES_ENABLED", True, "the login lock-out; refused off in production")
AXES_IPWARE_META_PRECEDENCE_ORDER = ["REMOTE_ADDR"]  # set by core.middleware.ClientAddressMiddleware
AXES_LOCKOUT_CALLABLE = "core.admin_site.axes_lockout_response"  # the admin's 429 with Retry-After
TRUSTED_PROXIES = env.list(
    "TRUSTED_PROXIES",
    [],
    "proxies (addresses or networks, e.g. 10.0.0.0/8) whose "
    "X-Forwarded-For names the client; none by default, so a client cannot choose the address "
    "throttles and audit see (production refuses wider than /8 or /16)",
)

# I18N: players read Czech by default, English is available. Storage in UTC; the business calendar (day, calendar
# month) is Europe/Prague (core.clock).
LANGUAGE_CODE = "cs"
LANGUAGES = [("cs", "Čeština"), ("en", "English")]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"
BUSINESS_TIME_ZONE = "Europe/Prague"
# one date format and Czech numbers in the back office (config/formats/); its own texts in Czech (locale/cs)
FORMAT_MODULE_PATH = ["config.formats"]
LOCALE_PATHS = [BASE_DIR / "locale"]

STATIC_URL = "static/"
STATIC_ROOT = env.path(
    "STATIC_ROOT",
    BASE_DIR / ".data" / "static",
    "where `manage.py collectstatic` puts the static files whitenoise serves",
)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
MEDIA_ROOT = env.path(
    "MEDIA_ROOT",
    BASE_DIR / ".data" / "media",
    "where uploaded files are stored (documents, identification images, complaint attachments)",
)
MEDIA_URL = "media/"

# Cache: DRF throttles count here, so every web process must share it in production; development and tests use a
# per-process memory cache.
CACHE_URL = env.str(
    "CACHE_URL",
    "locmemcache://",
    "the cache (redis://host:6379/0 in production: the throttles "
    "count there and every web process must share it; production refuses a per-process cache)",
)
CACHES = {"default": environ.Env.cache_url_config(CACHE_URL)}

# API throttles (core/throttling.py): per client address when anonymous, per user when signed in, provider callbacks
# per source ("callback_refused": the refused ones). Tests run without the anon, user and callback rates
# (core/tests/test_throttling.py puts them back); the login's rate stays on.
THROTTLE_RATES = {
    "anon": env.str("THROTTLE_RATE_ANON", "60/min", "API calls per anonymous client address (N/s|min|hour|day)"),
    "user": env.str("THROTTLE_RATE_USER", "600/min", "API calls per signed-in player"),
    "login": env.str(
        "THROTTLE_RATE_LOGIN", "10/min", "sign-in attempts per client address (production: at most 60 a minute)"
    ),
    "callback": env.str("THROTTLE_RATE_CALLBACK", "600/min", "payment and game-provider callbacks per source"),
    "callback_refused": env.str(
        "THROTTLE_RATE_CALLBACK_REFUSED", "10/min", "refused (forged) callbacks per source before it is throttled"
    ),
}
TEST_THROTTLE_RATES: dict[str, str | None] = {"anon": None, "user": None, "callback": None, "callback_refused": None}
SECURITY_EVENT_WINDOW_SECONDS = env.int(
    "SECURITY_EVENT_WINDOW_SECONDS",
    3600,
    "repeated security events from one "
    "source (forged callbacks, throttled logins): one audit event per this many "
    "seconds, the rest counted",
)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.PlayerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    # JSON nested too deep is a 400, not a RecursionError (core/parsers.py)
    "DEFAULT_PARSER_CLASSES": [
        "core.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "core.pagination.DefaultPagination",
    "PAGE_SIZE": 20,
    "DEFAULT_SCHEMA_CLASS": "core.schema.AutoSchema",  # optional response fields stay optional
    "EXCEPTION_HANDLER": "core.errors.exception_handler",
    "DEFAULT_THROTTLE_CLASSES": ["core.throttling.AnonRateThrottle", "core.throttling.UserRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {**THROTTLE_RATES, **(TEST_THROTTLE_RATES if TESTING else {})},
    "NUM_PROXIES": 0,  # throttles key on REMOTE_ADDR, which core.middleware.ClientAddressMiddleware set
}

# E-mail (Django's mail backends); SMS is the accounts area's gateway.
EMAIL_BACKEND = env.str(
    "EMAIL_BACKEND",
    "core.mail.SandboxEmailBackend",
    "Django's e-mail backend; outside "
    "production the e-mails go to the console and the development mailbox (core/mail.py); "
    "production refuses a backend that writes them to a log, a file or nowhere",
    production="django.core.mail.backends.smtp.EmailBackend",
)
DEFAULT_FROM_EMAIL = env.str("DEFAULT_FROM_EMAIL", "noreply@platform.example", "the sender of the platform's e-mails")
EMAIL_HOST = env.str("EMAIL_HOST", "localhost", "the SMTP server of the smtp backend")
EMAIL_PORT = env.int("EMAIL_PORT", 25, "its port")
EMAIL_HOST_USER = env.str("EMAIL_HOST_USER", "", "the SMTP user")
EMAIL_HOST_PASSWORD = env.str("EMAIL_HOST_PASSWORD", "", "the SMTP password")
EMAIL_USE_TLS = env.bool("EMAIL_USE_TLS", False, "STARTTLS (port 587); excludes EMAIL_USE_SSL")
EMAIL_USE_SSL = env.bool("EMAIL_USE_SSL", False, "implicit TLS (port 465); excludes EMAIL_USE_TLS")
EMAIL_TIMEOUT = env.int("EMAIL_TIMEOUT", 20, "seconds; a hung SMTP server must not hold a Celery worker")
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL exclude each other")
PUBLIC_BASE_URL = env.str(
    "PUBLIC_BASE_URL",
    "http://127.0.0.1:8000",
    "where players reach the platform: links in e-mails and payment instructions start with it (`make run` sets it)",
)
DEV_MAILBOX_ENABLED = env.bool(
    "DEV_MAILBOX_ENABLED",
    True,
    "the development mailbox (/dev/mailbox): the e-mails and "
    "SMS the sandbox gateways would have sent; refused in production",
    production=False,
)

HEALTH_JOBS_MAX_AGE_SECONDS = env.int(
    "HEALTH_JOBS_MAX_AGE_SECONDS",
    300,
    "/health: the worker and beat are stale when the scheduled heartbeat (every minute) is older than this",
)
HEALTH_REQUIRE_JOBS = env.bool(
    "HEALTH_REQUIRE_JOBS",
    False,
    "a stale worker or beat turns /health red (503); refused off in production",
    production=True,
)

# Bench only: the framework's floor (config/bench_floor.py, POST /bench/floor) served by `make bench`.
BENCH_FLOOR = env.bool(
    "BENCH_FLOOR",
    False,
    "bench only: mounts the framework's floor view /bench/floor (`make bench`); refused in production",
)
BENCH_FLOOR_STATEMENTS = env.int(
    "BENCH_FLOOR_STATEMENTS", 11, "bench only: the statements the floor view runs in one transaction (a round's count)"
)

# Security
SESSION_COOKIE_HTTPONLY = True
SECURE_SSL_REDIRECT = env.bool(
    "SECURE_SSL_REDIRECT",
    False,
    "redirect plain HTTP to HTTPS; off in production only with TLS_REDIRECT_AT_PROXY=true",
    production=True,
)
TLS_REDIRECT_AT_PROXY = env.bool(
    "TLS_REDIRECT_AT_PROXY",
    False,
    "the proxy in front terminates TLS and redirects "
    "plain HTTP itself (allows SECURE_SSL_REDIRECT=false in production)",
)
SECURE_HSTS_SECONDS = env.int(
    "SECURE_HSTS_SECONDS", 0, "the HSTS max-age; 0 is refused in production", production=31_536_000
)
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_CONTENT_TYPE_NOSNIFF = True

LOG_LEVEL = env.str("LOG_LEVEL", "INFO", "the root logger's level (JSON lines on standard error)")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "core.logging.RequestIdFilter"}},
    "formatters": {"json": {"()": "core.logging.JsonFormatter"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "json", "filters": ["request_id"]}},
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "django.request": {"level": "ERROR", "propagate": True},
        "django.server": {"level": "WARNING", "propagate": True},
    },
}

# Lockout is per username (protects the account whatever the address); per-address pressure is handled by DRF
# throttles on the login endpoint.
SILENCED_SYSTEM_CHECKS = ["axes.W006"]
