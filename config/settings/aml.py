"""AML (docs/aml.md): online identification through a provider or Bank iD (GP §4(4)b), PEP / sanctions screening, the
client risk rating, the source-of-funds declaration and the suspicious-transaction rules (GP §12(1), §2; holds GP
§10(3)). Amounts in haléře. The sandbox provider and list are for development and tests only: production refuses them.

The identification settings are named ``AML_IDENTIFICATION_*``; their former ``AML_IDENT_*`` names are still read
(``old=``) and listed in docs/settings.md."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from config.settings.base import BASE_DIR, PRODUCTION, env

env.area("AML: identification")
# Online identification (GP §4(4)b) through a document provider; the sandbox for development and tests.
AML_SANDBOX_ENABLED = env.bool(
    "AML_SANDBOX_ENABLED", True, "the sandbox identification provider; refused in production", production=False
)
if PRODUCTION and AML_SANDBOX_ENABLED:
    raise ImproperlyConfigured("DJANGO_ENV=production refuses AML_SANDBOX_ENABLED=true (the sandbox AML provider)")
AML_IDENTIFICATION_PROVIDER = env.str(
    "AML_IDENTIFICATION_PROVIDER",
    "sandbox",
    "the document identification "
    "provider: sandbox, or none when players identify with Bank iD (production "
    "refuses sandbox)",
)
DEV_AML_SANDBOX_SECRET = "dev-aml-sandbox-secret-do-not-use-in-production"
AML_SANDBOX_SECRET = env.str("AML_SANDBOX_SECRET", DEV_AML_SANDBOX_SECRET, "the sandbox provider's callback secret")
AML_SANDBOX_CALLBACK_URL = env.str(
    "AML_SANDBOX_CALLBACK_URL", "", "where the sandbox provider posts its answers; empty: handed in-process"
)
AML_SANDBOX_IDENT_OUTCOME = env.str(
    "AML_SANDBOX_IDENT_OUTCOME", "auto", "the sandbox's answer: auto (by a marker in the name) or an outcome"
)
AML_SANDBOX_UNAVAILABLE = env.bool(
    "AML_SANDBOX_UNAVAILABLE", False, "the sandbox refuses submissions (to try the retries)"
)
AML_IDENTIFICATION_IMAGE_MAX_BYTES = env.int(
    "AML_IDENTIFICATION_IMAGE_MAX_BYTES",
    5 * 1024 * 1024,
    "bytes: the largest identification image",
    old=("AML_IDENT_IMAGE_MAX_BYTES",),
)
AML_IDENTIFICATION_MIN_SCORE = env.int(
    "AML_IDENTIFICATION_MIN_SCORE",
    80,
    "an approval scored below this goes to staff review",
    old=("AML_IDENT_MIN_SCORE",),
)
AML_IDENTIFICATION_RETRY_FIRST_MINUTES = env.int(
    "AML_IDENTIFICATION_RETRY_FIRST_MINUTES",
    5,
    "a submission the provider did not take is retried after this many minutes, doubling",
    old=("AML_IDENT_RETRY_FIRST_MINUTES",),
)
AML_IDENTIFICATION_RETRY_MAX_MINUTES = env.int(
    "AML_IDENTIFICATION_RETRY_MAX_MINUTES",
    240,
    "the longest wait between submission retries",
    old=("AML_IDENT_RETRY_MAX_MINUTES",),
)
AML_IDENTIFICATION_SUBMIT_MAX_ATTEMPTS = env.int(
    "AML_IDENTIFICATION_SUBMIT_MAX_ATTEMPTS",
    8,
    "submissions to the provider before an identification is given up as failed",
    old=("AML_IDENT_MAX_ATTEMPTS",),
)
AML_IDENTIFICATION_LEASE_MINUTES = env.int(
    "AML_IDENTIFICATION_LEASE_MINUTES",
    10,
    "minutes a worker holds a submission before another may take it",
    old=("AML_IDENT_LEASE_MINUTES",),
)
AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY = env.int(
    "AML_IDENTIFICATION_MAX_ATTEMPTS_PER_DAY",
    3,
    "identifications a "
    "player may start in any rolling 24 hours (each a paid check); "
    "then none until staff allow new ones",
)

env.area("AML: screening and risk")
# "imported" (the EU, UN and Czech sanctions lists and the operator's PEP list, manage.py aml_list_import or the staff
# upload) or "sandbox". The screening answers only once every required source has been imported (fail closed).
AML_SCREENING_LIST = env.str(
    "AML_SCREENING_LIST",
    "sandbox",
    "the PEP / sanctions list: imported or sandbox (refused in production)",
    production="imported",
)
if PRODUCTION and AML_SCREENING_LIST == "sandbox":
    raise ImproperlyConfigured("DJANGO_ENV=production refuses AML_SCREENING_LIST=sandbox (use the imported lists)")
AML_SCREENING_REQUIRED_SOURCES = env.list(
    "AML_SCREENING_REQUIRED_SOURCES",
    ["eu", "un", "cz"],
    "the list sources "
    "that must be imported before screening answers: eu, un, cz, pep "
    "(production requires eu, un and cz)",
)
if set(AML_SCREENING_REQUIRED_SOURCES) - {"eu", "un", "cz", "pep"}:
    raise ImproperlyConfigured("AML_SCREENING_REQUIRED_SOURCES: each of eu, un, cz, pep")
AML_SCREENING_MATCH_THRESHOLD = env.int(
    "AML_SCREENING_MATCH_THRESHOLD",
    85,
    "a list name scoring this (50-100, aml/matching.py) is a match",
    low=50,
    high=100,
)
AML_SCREENING_LIST_MAX_BYTES = env.int(
    "AML_SCREENING_LIST_MAX_BYTES", 100 * 1024 * 1024, "bytes: the largest list file imported"
)
AML_RISK_MEDIUM_SCORE = env.int(
    "AML_RISK_MEDIUM_SCORE",
    15,
    "the client risk score from which a player is medium risk (AML Act §9, §21a; aml/risk.py)",
)
AML_RISK_HIGH_SCORE = env.int("AML_RISK_HIGH_SCORE", 40, "the score from which a player is high risk")
AML_RISK_DEPOSITS_MEDIUM = env.int(
    "AML_RISK_DEPOSITS_MEDIUM", 10_000_000, "haléře deposited in 30 days that score as medium"
)
AML_RISK_DEPOSITS_HIGH = env.int("AML_RISK_DEPOSITS_HIGH", 50_000_000, "haléře deposited in 30 days that score as high")
AML_RISK_DEPOSIT_COUNT_30D = env.int("AML_RISK_DEPOSIT_COUNT_30D", 30, "deposits in 30 days that score")
AML_RISK_HIGH_RISK_COUNTRIES = env.list(
    "AML_RISK_HIGH_RISK_COUNTRIES",
    [
        "AF",
        "BF",
        "CD",
        "CM",
        "DZ",
        "HT",
        "IR",
        "KE",
        "KP",
        "LA",
        "LB",
        "MC",
        "ML",
        "MM",
        "MZ",
        "NA",
        "NG",
        "SS",
        "SY",
        "TZ",
        "VE",
        "VN",
        "YE",
    ],
    "high-risk third countries (the EU Commission's list, Delegated Regulation (EU) "
    "2016/1675 as amended), kept current by the compliance officer",
)
AML_RISK_REVIEW_DAYS = {
    "low": env.int("AML_RISK_REVIEW_DAYS_LOW", 1095, "days between reviews of a low-risk player"),
    "medium": env.int("AML_RISK_REVIEW_DAYS_MEDIUM", 365, "days between reviews of a medium-risk player"),
    "high": env.int("AML_RISK_REVIEW_DAYS_HIGH", 90, "days between reviews of a high-risk player"),
}
if not 0 < AML_RISK_MEDIUM_SCORE < AML_RISK_HIGH_SCORE or min(AML_RISK_REVIEW_DAYS.values()) < 1:
    raise ImproperlyConfigured("AML_RISK_*: 0 < MEDIUM_SCORE < HIGH_SCORE and review days of at least 1")
AML_LIST_CLOCK_SKEW_MINUTES = env.int(
    "AML_LIST_CLOCK_SKEW_MINUTES",
    10,
    "a list file's publication time may lie at most this far after now (0-1440); later is refused",
    low=0,
    high=24 * 60,
)
AML_SCREENING_RESCREEN_BATCH = env.int("AML_SCREENING_RESCREEN_BATCH", 200, "players re-screened per batch")
AML_SCREENING_RESCREEN_SECONDS = env.int(
    "AML_SCREENING_RESCREEN_SECONDS", 240, "seconds the re-screening task runs before it re-enqueues itself"
)
AML_SCREENING_SANDBOX_FILE = env.path(
    "AML_SCREENING_SANDBOX_FILE", BASE_DIR / "aml" / "data" / "sandbox_screening_list.json", "the sandbox list's file"
)
AML_SCREENING_INTERVAL_HOURS = env.int("AML_SCREENING_INTERVAL_HOURS", 24, "hours between re-screenings of a player")
AML_SCREENING_RETRY_MINUTES = env.int(
    "AML_SCREENING_RETRY_MINUTES", 30, "a screening that could not answer is retried after this many minutes"
)

env.area("AML: Bank iD")
# Bank iD (GP §4(4)b; docs/aml.md "Bank iD"): identification by the player's bank over OpenID Connect (authorization
# code + PKCE, the ID token checked against the issuer's JWKS, the verified claims read from its profile/userinfo).
AML_BANKID_ENABLED = env.bool(
    "AML_BANKID_ENABLED",
    False,
    "identification with Bank iD; on, the issuer, the client and the redirect URLs are required (https in production)",
)
AML_BANKID_ISSUER = env.str("AML_BANKID_ISSUER", "", "the issuer, e.g. https://oidc.bankid.cz/")
AML_BANKID_CLIENT_ID = env.str("AML_BANKID_CLIENT_ID", "", "our client id at Bank iD")
AML_BANKID_CLIENT_SECRET = env.str("AML_BANKID_CLIENT_SECRET", "", "our client secret (client_secret_* methods)")
AML_BANKID_TOKEN_AUTH_METHOD = env.str(
    "AML_BANKID_TOKEN_AUTH_METHOD", "client_secret_post", "client_secret_post, client_secret_basic or private_key_jwt"
)
AML_BANKID_CLIENT_PRIVATE_KEY = env.str(
    "AML_BANKID_CLIENT_PRIVATE_KEY", "", "private_key_jwt: the private JWK as JSON, or a PEM"
)
AML_BANKID_CLIENT_ASSERTION_ALG = env.str(
    "AML_BANKID_CLIENT_ASSERTION_ALG", "RS256", "private_key_jwt: the signature algorithm"
)
AML_BANKID_REDIRECT_URLS = env.list(
    "AML_BANKID_REDIRECT_URLS", [], "the player apps' exact redirect URIs (each also registered with Bank iD)"
)
AML_BANKID_SCOPES = env.str(
    "AML_BANKID_SCOPES",
    (
        "openid profile.name profile.birthdate profile.birthnumber profile.birthplaceNationality profile.addresses "
        "profile.idcards profile.legalstatus profile.verification"
    ),
    "the scopes asked for",
)
AML_BANKID_ACR_VALUES = env.str(
    "AML_BANKID_ACR_VALUES", "loa3", "sent and required of the ID token's acr (empty: neither)"
)
AML_BANKID_CLAIMS_ENDPOINT = env.str(
    "AML_BANKID_CLAIMS_ENDPOINT", "profile", "where the verified claims are read: profile or userinfo"
)
AML_BANKID_TRUST_FRAMEWORK = env.str(
    "AML_BANKID_TRUST_FRAMEWORK", "cz_aml", "the trust framework required of the claims (empty: not required)"
)
AML_BANKID_HTTP_TIMEOUT_SECONDS = env.float("AML_BANKID_HTTP_TIMEOUT_SECONDS", 10.0, "the timeout of calls to Bank iD")
AML_BANKID_CA_BUNDLE = env.str("AML_BANKID_CA_BUNDLE", "", "a CA file for the issuer's TLS; empty: the system's")
AML_BANKID_SESSION_MINUTES = env.int("AML_BANKID_SESSION_MINUTES", 10, "minutes a started Bank iD state is valid")
AML_BANKID_LEEWAY_SECONDS = env.int("AML_BANKID_LEEWAY_SECONDS", 60, "clock skew allowed for exp / iat")
AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS = env.int(
    "AML_BANKID_ID_TOKEN_MAX_AGE_SECONDS", 600, "an ID token's iat may be no older"
)
AML_BANKID_METADATA_CACHE_SECONDS = env.int(
    "AML_BANKID_METADATA_CACHE_SECONDS", 3600, "seconds the discovery document and JWKS are kept"
)
if AML_BANKID_ENABLED:
    _private_key = AML_BANKID_TOKEN_AUTH_METHOD == "private_key_jwt"
    _bankid_missing = [
        name
        for name, value in (
            ("AML_BANKID_ISSUER", AML_BANKID_ISSUER),
            ("AML_BANKID_CLIENT_ID", AML_BANKID_CLIENT_ID),
            ("AML_BANKID_REDIRECT_URLS", AML_BANKID_REDIRECT_URLS),
            (
                "AML_BANKID_CLIENT_PRIVATE_KEY" if _private_key else "AML_BANKID_CLIENT_SECRET",
                AML_BANKID_CLIENT_PRIVATE_KEY if _private_key else AML_BANKID_CLIENT_SECRET,
            ),
        )
        if not value
    ]
    if AML_BANKID_TOKEN_AUTH_METHOD not in ("client_secret_post", "client_secret_basic", "private_key_jwt"):
        _bankid_missing.append(
            "AML_BANKID_TOKEN_AUTH_METHOD (client_secret_post, client_secret_basic or private_key_jwt)"
        )
    if AML_BANKID_CLAIMS_ENDPOINT not in ("profile", "userinfo"):
        _bankid_missing.append("AML_BANKID_CLAIMS_ENDPOINT (profile or userinfo)")
    if PRODUCTION:
        _bankid_missing += [
            f"https for {name} ({url})"
            for name, urls in (
                ("AML_BANKID_ISSUER", [AML_BANKID_ISSUER]),
                ("AML_BANKID_REDIRECT_URLS", AML_BANKID_REDIRECT_URLS),
            )
            for url in urls
            if url and not url.startswith("https://")
        ]
    if _bankid_missing:
        raise ImproperlyConfigured("AML_BANKID_ENABLED=true requires: " + "; ".join(_bankid_missing))

env.area("AML: source of funds and rules")
# Source of funds: confirmed deposits over the last AML_SOF_WINDOW_DAYS reaching the threshold require a declaration
# (the plan and the AML law leave the figures to the operator's risk policy).
AML_SOF_THRESHOLD = env.int(
    "AML_SOF_THRESHOLD", 10_000_000, "haléře deposited in the window that require a source-of-funds declaration"
)
AML_SOF_WINDOW_DAYS = env.int("AML_SOF_WINDOW_DAYS", 30, "the source-of-funds window in days")
AML_SOF_VALID_DAYS = env.int("AML_SOF_VALID_DAYS", 365, "days a declaration stays valid")
# Suspicious-transaction rules (each hit opens a case; docs/aml.md explains each). A rule hit is an alert for
# compliance, not a finding: it blocks withdrawals only with AML_RULE_CASES_BLOCK=true.
AML_RULES_SCAN_HOURS = env.int("AML_RULES_SCAN_HOURS", 24, "hours between scans of the rules")
AML_RULE_CASES_BLOCK = env.bool("AML_RULE_CASES_BLOCK", False, "an open rule case blocks the player's withdrawals")
AML_RULES = {
    "deposit_little_play": {
        "enabled": env.bool("AML_RULE_LITTLE_PLAY_ENABLED", True, "rule: deposits, little play, withdrawn"),
        "lookback_days": env.int("AML_RULE_LITTLE_PLAY_LOOKBACK_DAYS", 7, "that rule's window in days"),
        "min_deposits": env.int(
            "AML_RULE_LITTLE_PLAY_MIN_DEPOSITS", 500_000, "haléře deposited in the window before the rule looks"
        ),
        "max_turnover_percent": env.int(
            "AML_RULE_LITTLE_PLAY_MAX_TURNOVER_PERCENT", 100, "staked at most this percentage of the deposits"
        ),
        "min_withdrawn_percent": env.int(
            "AML_RULE_LITTLE_PLAY_MIN_WITHDRAWN_PERCENT", 80, "and withdrew at least this percentage"
        ),
    },
    "many_methods": {
        "enabled": env.bool("AML_RULE_MANY_METHODS_ENABLED", True, "rule: many payment methods"),
        "window_days": env.int("AML_RULE_MANY_METHODS_WINDOW_DAYS", 30, "that rule's window in days"),
        "count": env.int("AML_RULE_MANY_METHODS_COUNT", 4, "methods in the window that hit"),
    },
    "rapid_cycles": {
        "enabled": env.bool("AML_RULE_RAPID_CYCLES_ENABLED", True, "rule: rapid deposit-withdrawal cycles"),
        "window_hours": env.int("AML_RULE_RAPID_CYCLES_WINDOW_HOURS", 24, "that rule's window in hours"),
        "gap_minutes": env.int(
            "AML_RULE_RAPID_CYCLES_GAP_MINUTES", 120, "a withdrawal within this many minutes of a deposit is a cycle"
        ),
        "count": env.int("AML_RULE_RAPID_CYCLES_COUNT", 3, "cycles in the window that hit"),
    },
    "large_win_withdrawn": {
        "enabled": env.bool("AML_RULE_LARGE_WIN_ENABLED", True, "rule: a large win withdrawn at once"),
        "min_win": env.int("AML_RULE_LARGE_WIN_MIN", 2_000_000, "haléře: the smallest win the rule looks at"),
        "within_hours": env.int("AML_RULE_LARGE_WIN_WITHIN_HOURS", 48, "withdrawn within this many hours"),
        "min_withdrawn_percent": env.int(
            "AML_RULE_LARGE_WIN_MIN_WITHDRAWN_PERCENT", 90, "at least this percentage of the win withdrawn"
        ),
    },
}
