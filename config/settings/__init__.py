"""Settings, read from the environment only, by area (one module each; docs/settings.md lists every variable).

Each module reads its variables once, typed, through the reader of config/env.py (``env``); the Django settings are
the upper-case names of the modules imported here. Development defaults just work (embedded PostgreSQL, filesystem
Celery broker). With DJANGO_ENV=production the platform refuses to start without the variables production requires
(SECRET_KEY, DATABASE_URL, CELERY_BROKER_URL, GP_MAX_HOURLY_LOSS, JACKPOTS_ENABLED) and with any setting
config/refusals.py refuses, and turns on secure cookies, HSTS and host checks.

    base        the environment reader, BASE_DIR, DJANGO_ENV / PRODUCTION / TESTING
    core        keys, hosts, apps, middleware, sign-in, cache, throttles, e-mail, health, logging, HTTPS
    database    DATABASE_URL (multi-host included), the pooler, the refusal log's and the replica's connections
    broker      Celery
    limits      the game plan's figures (GP)
    accounts    the registers, registration, sessions, terms; retention and the privacy recipients
    wallet      payments, the bank account, the GP §8(6) amounts
    games       QA outcomes, jackpots, complaints, game providers
    aml         identification, Bank iD, screening, risk, source of funds, the rules
    reports     the regulator's record, the Ministry's remote access
    production  the development secrets, the outside systems, the development switches production refuses
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

# isort: off
# the order is the order of docs/settings.md; each area imports what it needs of the others
from config.refusals import refusals_of
from config.settings.base import *  # noqa: F403
from config.settings.base import PRODUCTION, env
from config.settings.core import *  # noqa: F403
from config.settings.database import *  # noqa: F403
from config.settings.broker import *  # noqa: F403

if PRODUCTION and (_missing := env.missing_required()):
    raise ImproperlyConfigured(f"DJANGO_ENV=production requires: {', '.join(_missing)}")

from config.settings.limits import *  # noqa: F403
from config.settings.accounts import *  # noqa: F403
from config.settings.wallet import *  # noqa: F403
from config.settings.games import *  # noqa: F403
from config.settings.aml import *  # noqa: F403
from config.settings.reports import *  # noqa: F403
from config.settings.production import *  # noqa: F403
# isort: on

if PRODUCTION and (_missing := env.missing_required()):
    raise ImproperlyConfigured(
        f"DJANGO_ENV=production requires: {', '.join(_missing)} (GP_MAX_HOURLY_LOSS: ZHH §53, set by the licence)"
    )


def production_refusals() -> list[str]:
    """Why production must not start with these settings (empty: it may). Each names the variable, never a value
    (the rules: config/refusals.py)."""
    return refusals_of(globals())


if PRODUCTION and (_refused := production_refusals()):
    raise ImproperlyConfigured("DJANGO_ENV=production refuses: " + "; ".join(_refused))
