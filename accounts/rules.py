"""Figures of the accounts app derived from the settings (``config/settings/``); pure functions, no database.

Each reads ``django.conf.settings`` at call time, so a test that sets ``settings.ACCOUNTS_X = ...`` is seen at once.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings


def temporary_lifetime() -> timedelta:
    """GP §5(2)a: a temporary account lives this long from its activation (``GP_TEMP_ACCOUNT_LIFETIME_DAYS``)."""
    return timedelta(days=settings.GP["TEMP_ACCOUNT_LIFETIME_DAYS"])


def session_idle() -> timedelta:
    """A login session ends after this long without a request (``ACCOUNTS_SESSION_IDLE_MINUTES``)."""
    return timedelta(minutes=settings.ACCOUNTS_SESSION_IDLE_MINUTES)


def session_max_age() -> timedelta:
    """A login session ends this long after it started, however active (``ACCOUNTS_SESSION_MAX_HOURS``)."""
    return timedelta(hours=settings.ACCOUNTS_SESSION_MAX_HOURS)


def document_versions() -> dict[str, str]:
    """The current versions of the documents an applicant accepts (GP §4(4)d), by consent kind."""
    return {
        "terms": settings.ACCOUNTS_TERMS_VERSION,
        "data_processing": settings.ACCOUNTS_DATA_PROCESSING_VERSION,
        "game_plan": settings.ACCOUNTS_GAME_PLAN_VERSION,
        "marketing": settings.ACCOUNTS_MARKETING_VERSION,
    }


# Settings of the player's account rules (GP §3(5), §8(1), §7(7)), declared with their defaults in config/settings/.
MESSAGE_EMAIL_MAX_ATTEMPTS = 10


def terms_snapshot_seconds() -> float:
    """How long a process keeps its snapshot of the published versions of the game plan and terms
    (``ACCOUNTS_TERMS_SNAPSHOT_SECONDS``): a version published elsewhere is seen by every process within this time,
    which is why a version never takes effect sooner than this after its publication (``terms_min_notice``)."""
    return settings.ACCOUNTS_TERMS_SNAPSHOT_SECONDS


def terms_min_notice() -> timedelta:
    """GP §8(1): the operator may change the minimum stake or its step "after informing the participants"; the plan
    names no period, so the platform's decision is a setting (``ACCOUNTS_TERMS_MIN_NOTICE_DAYS``, default 7 days):
    a version takes effect at the earliest this long after its publication (and never sooner than the snapshot
    time, so every process knows it before it applies)."""
    days = settings.ACCOUNTS_TERMS_MIN_NOTICE_DAYS
    return max(timedelta(days=days), timedelta(seconds=terms_snapshot_seconds()))


def terms_required() -> bool:
    """GP §3(5): no stake before a version of the game plan and terms is published and in force
    (``ACCOUNTS_TERMS_REQUIRED``: production always; development and tests only when they set it)."""
    return settings.ACCOUNTS_TERMS_REQUIRED


def message_email_retry_after() -> timedelta:
    """A message's e-mail that failed is sent again this long after the last attempt
    (``ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES``), at most ``MESSAGE_EMAIL_MAX_ATTEMPTS`` times."""
    return timedelta(minutes=settings.ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES)
