"""Figures of the accounts app derived from the settings (``config/settings.py``); pure functions, no database.

Each reads ``django.conf.settings`` at call time, so a test that sets ``settings.ACCOUNTS_X = ...`` is seen at once.
"""
from __future__ import annotations

from datetime import timedelta

from django.conf import settings


def temporary_lifetime() -> timedelta:
    """GP §5(2)a: a temporary account lives this long from its activation (``GP_TEMP_ACCOUNT_LIFETIME_DAYS``)."""
    return timedelta(days=int(settings.GP["TEMP_ACCOUNT_LIFETIME_DAYS"]))


def session_idle() -> timedelta:
    """A login session ends after this long without a request (``ACCOUNTS_SESSION_IDLE_MINUTES``)."""
    return timedelta(minutes=int(settings.ACCOUNTS_SESSION_IDLE_MINUTES))


def session_max_age() -> timedelta:
    """A login session ends this long after it started, however active (``ACCOUNTS_SESSION_MAX_HOURS``)."""
    return timedelta(hours=float(settings.ACCOUNTS_SESSION_MAX_HOURS))


def document_versions() -> dict[str, str]:
    """The current versions of the documents an applicant accepts (GP §4(4)d), by consent kind."""
    return {
        "terms": settings.ACCOUNTS_TERMS_VERSION,
        "data_processing": settings.ACCOUNTS_DATA_PROCESSING_VERSION,
        "game_plan": settings.ACCOUNTS_GAME_PLAN_VERSION,
        "marketing": settings.ACCOUNTS_MARKETING_VERSION,
    }
