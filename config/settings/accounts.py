"""Accounts (docs/accounts.md): the registers and the SMS gateway, registration, sessions, terms; the retention of
personal data and of the audit trail; the declared recipients of the players' data."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import env
from config.settings.core import INSTALLED_APPS
from config.settings.privacy_recipients import DEFAULT_PRIVACY_RECIPIENTS
from core.retention_rules import RetentionTooShort, audit_retention, partition_retention

env.area("Accounts")
# Adapters: "sandbox" (tables filled by staff and tests), "http" (a JSON gateway) or "aisg" (the registers).
ACCOUNTS_POPULATION_REGISTER = env.str(
    "ACCOUNTS_POPULATION_REGISTER", "sandbox", "the population register: sandbox, http or aisg (production: aisg)"
)
ACCOUNTS_POPULATION_REGISTER_URL = env.str(
    "ACCOUNTS_POPULATION_REGISTER_URL", "", "the http adapter's URL of the population register"
)
ACCOUNTS_EXCLUSION_REGISTER = env.str(
    "ACCOUNTS_EXCLUSION_REGISTER",
    "sandbox",
    "the register of excluded persons: sandbox, http or aisg (production: aisg)",
)
ACCOUNTS_EXCLUSION_REGISTER_URL = env.str(
    "ACCOUNTS_EXCLUSION_REGISTER_URL", "", "the http adapter's URL of the register of excluded persons"
)
ACCOUNTS_SMS_GATEWAY = env.str(
    "ACCOUNTS_SMS_GATEWAY",
    "sandbox",
    "the SMS gateway: sandbox or http (production: http with ACCOUNTS_SMS_GATEWAY_URL)",
)
ACCOUNTS_SMS_GATEWAY_URL = env.str("ACCOUNTS_SMS_GATEWAY_URL", "", "the http SMS gateway's URL")
ACCOUNTS_GATEWAY_TOKEN = env.str(
    "ACCOUNTS_GATEWAY_TOKEN", "", "the bearer token of the http gateways (production: at least 32 bytes)"
)
ACCOUNTS_GATEWAY_TIMEOUT_SECONDS = env.float("ACCOUNTS_GATEWAY_TIMEOUT_SECONDS", 5.0, "the http gateways' timeout")
# The Ministry of Finance's AISG data interface (identity, age and the register of excluded persons in one signed
# answer; docs/accounts.md "AISG").
ACCOUNTS_AISG_VERSION = env.str("ACCOUNTS_AISG_VERSION", "1.0", "the AISG interface version module")
ACCOUNTS_AISG_URL = env.str(
    "ACCOUNTS_AISG_URL",
    "https://api-pg.hazard.mfcr.cz/rovo/v1",
    "the AISG endpoint (the default is the Ministry's playground, refused in production); sandbox:<folder> is the "
    "development AISG sandbox (make run)",
)
ACCOUNTS_AISG_KEY_FILE = env.str("ACCOUNTS_AISG_KEY_FILE", "", "the operator's signing key (PEM file)")
ACCOUNTS_AISG_CERT_FILE = env.str("ACCOUNTS_AISG_CERT_FILE", "", "the operator's certificate (PEM file)")
ACCOUNTS_AISG_MINISTRY_CERT_FILE = env.str(
    "ACCOUNTS_AISG_MINISTRY_CERT_FILE", "", "the Ministry's certificate that signs the answers (PEM file)"
)
ACCOUNTS_AISG_CA_FILE = env.str("ACCOUNTS_AISG_CA_FILE", "", "the CA file for AISG's HTTPS; empty: the system's")
ACCOUNTS_AISG_ICO_VCP = env.str("ACCOUNTS_AISG_ICO_VCP", "", "the operator's IČO, sent as ICO_VCP")
ACCOUNTS_AISG_TIMEOUT_SECONDS = env.float("ACCOUNTS_AISG_TIMEOUT_SECONDS", 10.0, "AISG's timeout")
ACCOUNTS_AISG_REQUIRE_ECHO = env.bool(
    "ACCOUNTS_AISG_REQUIRE_ECHO", True, "the answer must echo the request's CisloPozadavku; refused off in production"
)
ACCOUNTS_EXCLUSION_MAX_AGE_HOURS = env.int(
    "ACCOUNTS_EXCLUSION_MAX_AGE_HOURS",
    0,
    "no play when the last answer of "
    "the register of excluded persons is older than this many hours (0: no "
    "such limit); fail closed",
    production=48,
)
ACCOUNTS_AISG_BATCH_SIZE = env.int(
    "ACCOUNTS_AISG_BATCH_SIZE", 1000, "persons per OveritOsobyHromadne call, 1-1000", low=1, high=1000
)
# GP §4(7): the e-mail confirmation link that releases the first password by SMS.
ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS = env.int(
    "ACCOUNTS_EMAIL_LINK_MAX_AGE_HOURS", 48, "hours the e-mail confirmation link is valid (GP §4(7))"
)
ACCOUNTS_EMAIL_CONFIRM_URL = env.str(
    "ACCOUNTS_EMAIL_CONFIRM_URL",
    "/api/v1/accounts/registration/confirm-email?token={token}",
    "the confirmation link's path ({token} is replaced), after PUBLIC_BASE_URL",
)

ACCOUNTS_SESSION_IDLE_MINUTES = env.int(
    "ACCOUNTS_SESSION_IDLE_MINUTES", 30, "a login session's idle timeout (production: 1-240)"
)
ACCOUNTS_SESSION_MAX_HOURS = env.float("ACCOUNTS_SESSION_MAX_HOURS", 24.0, "a login session's absolute lifetime")
ACCOUNTS_CHECK_RETRY_FIRST_MINUTES = env.int(
    "ACCOUNTS_CHECK_RETRY_FIRST_MINUTES",
    15,
    "a register check that could not run is retried after this many minutes, doubling",
)
ACCOUNTS_CHECK_RETRY_MAX_MINUTES = env.int(
    "ACCOUNTS_CHECK_RETRY_MAX_MINUTES", 360, "the longest wait between register check retries"
)
ACCOUNTS_CHECK_LEASE_MINUTES = env.int(
    "ACCOUNTS_CHECK_LEASE_MINUTES", 10, "minutes a worker holds a register check before another may take it"
)
ACCOUNTS_REGISTRATION_MAX_DAYS = env.int(
    "ACCOUNTS_REGISTRATION_MAX_DAYS", 30, "days within which a registration must finish (GP §5(9))"
)
# Versions of the documents the applicant accepts (GP §4(4)d); bump to require re-acceptance.
ACCOUNTS_TERMS_VERSION = env.str("ACCOUNTS_TERMS_VERSION", "2026-01", "the terms' version an applicant accepts")
ACCOUNTS_DATA_PROCESSING_VERSION = env.str(
    "ACCOUNTS_DATA_PROCESSING_VERSION", "2026-01", "the data-processing notice's version an applicant accepts"
)
ACCOUNTS_GAME_PLAN_VERSION = env.str(
    "ACCOUNTS_GAME_PLAN_VERSION", "2026-01", "the game plan's version an applicant accepts"
)
ACCOUNTS_MARKETING_VERSION = env.str("ACCOUNTS_MARKETING_VERSION", "2026-01", "the marketing consent's version")

ACCOUNTS_CLOSE_AFTER_SETTLEMENT_DAYS = env.int(
    "ACCOUNTS_CLOSE_AFTER_SETTLEMENT_DAYS",
    10,
    "an account closes at the latest this many days after its balance is settled (GP §5(15))",
)
# Versions of the game plan / terms (accounts/terms.py): a version takes effect at the earliest this many days after
# publication (GP §8(1) names no period: the platform's decision).
ACCOUNTS_TERMS_MIN_NOTICE_DAYS = env.int(
    "ACCOUNTS_TERMS_MIN_NOTICE_DAYS",
    7,
    "days between publishing a game plan or terms version and its effect (GP §8(1))",
)
ACCOUNTS_TERMS_SNAPSHOT_SECONDS = env.float(
    "ACCOUNTS_TERMS_SNAPSHOT_SECONDS", 60.0, "how often each process re-reads the published versions (GP §3(5))"
)

ACCOUNTS_TERMS_REQUIRED = env.bool(
    "ACCOUNTS_TERMS_REQUIRED",
    False,
    "no stake before a published game plan and terms are in force (GP §3(5)); refused off in production",
    production=True,
)
ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES = env.int(
    "ACCOUNTS_MESSAGE_EMAIL_RETRY_MINUTES",
    15,
    "a notice's e-mail that failed is sent again after this many minutes (GP §7(7), §10(4))",
)

ACCOUNTS_SUPPORT_CONTACT = env.str(
    "ACCOUNTS_SUPPORT_CONTACT", "podpora@platform.example / +420 800 000 000", "the support contact shown to players"
)

env.area("Retention and privacy")
# GP §12(5): after the end of participation the data are kept only as far as the law requires; the daily job
# accounts.personal_data_anonymise then anonymises the account (docs/accounts.md). Whole years, at least 1, counted
# from the end of the business relationship; the account is anonymised after the longest of them.
ACCOUNTS_RETENTION_GAMBLING_YEARS = env.int(
    "ACCOUNTS_RETENTION_GAMBLING_YEARS",
    3,
    "years gambling records are kept after the account ends (the platform's decision; GP §12(5))",
    low=1,
)
ACCOUNTS_RETENTION_AML_YEARS = env.int(
    "ACCOUNTS_RETENTION_AML_YEARS", 10, "years identification data are kept (AML law 253/2008 Sb. §16(1))", low=1
)
ACCOUNTS_RETENTION_ACCOUNTING_YEARS = env.int(
    "ACCOUNTS_RETENTION_ACCOUNTING_YEARS", 5, "years accounting documents are kept (law 563/1991 Sb. §31(2)b)", low=1
)
ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS = env.int(
    "ACCOUNTS_DATA_REQUEST_ANSWER_MONTHS",
    1,
    "months to answer a personal-data request (GDPR art. 12(3), GP §12(7))",
    low=1,
)
# The audit trail's retention (core/retention_rules.py): at least the legal periods (AML Act §16(1) 10 years for the
# AML events, 5 years for the rest). The database refuses UPDATE and DELETE of audit events regardless.
try:
    AUDIT_RETENTION_YEARS, AUDIT_RETENTION_AML_YEARS = audit_retention(
        env.int("AUDIT_RETENTION_YEARS", 5, "years audit events are kept (at least 5)"),
        env.int("AUDIT_RETENTION_AML_YEARS", 10, "years the AML audit events are kept (at least 10)"),
    )
except RetentionTooShort as exc:
    raise ImproperlyConfigured(str(exc)) from exc
try:
    PARTITION_RETENTION_MONTHS: dict[str, int] = partition_retention(
        env.json(
            "PARTITION_RETENTION_MONTHS",
            {},
            "a JSON object {table: months}: how many months after its end a "
            "month of a monthly-partitioned table stays live before core.partitions_archive moves it to the "
            "archive schema; a table left out keeps its legal period; shorter is refused",
        ),
        audit_years=AUDIT_RETENTION_YEARS,
        audit_aml_years=AUDIT_RETENTION_AML_YEARS,
        app_names=INSTALLED_APPS,
    )
except RetentionTooShort as exc:
    raise ImproperlyConfigured(str(exc)) from exc
# GP §12(4), §12(7), GDPR art. 13(1)e, art. 19: the recipients of the participants' data, published in the privacy
# notice (GET /api/v1/accounts/privacy) and in the export; those with "notify" are told of a correction or an erasure
# (accounts.RecipientNotice). "records" are record codes of accounts/privacy_contract.py (system check accounts.E003).
PRIVACY_RECIPIENTS: list[dict[str, Any]] = env.json(
    "PRIVACY_RECIPIENTS",
    DEFAULT_PRIVACY_RECIPIENTS,
    "the declared recipients of the players' data, a JSON list "
    "(config/settings/privacy_recipients.py shows the shape); set the processors' real names and privacy contacts",
    shown="the platform's integrations (config/settings/privacy_recipients.py)",
)
PRIVACY_NOTICE_RETRY_MINUTES = env.int(
    "PRIVACY_NOTICE_RETRY_MINUTES", 30, "a recipient notice that failed is sent again after this many minutes"
)
