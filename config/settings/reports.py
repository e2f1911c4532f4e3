"""The regulator's record and the tax reports (docs/reports.md), and the Ministry of Finance's remote access under
decree 10/2019 Sb. (docs/regulator.md "Settings")."""

from __future__ import annotations

from config.settings.base import BASE_DIR, env
from config.settings.core import PUBLIC_BASE_URL

env.area("Reports")
REPORTS_ENABLED = env.bool(
    "REPORTS_ENABLED", True, "the regulator's record is built (production then requires the seal key and certificate)"
)
REPORTS_SEAL_KEY_FILE = env.str(
    "REPORTS_SEAL_KEY_FILE", "", "the operator's seal key (PEM file) that seals the record (XAdES)"
)
REPORTS_SEAL_CERT_FILE = env.str("REPORTS_SEAL_CERT_FILE", "", "the certificate (chain) of that key (PEM file)")
REPORTS_DEV_SEAL_DIR = env.path(
    "REPORTS_DEV_SEAL_DIR",
    BASE_DIR / ".data" / "dev-seal",
    "outside production, without the two files: where a self-signed development seal is made once",
)
REPORTS_PLAYER_REFERENCE_KEY = env.str(
    "REPORTS_PLAYER_REFERENCE_KEY",
    "",
    "the key of the record's pseudonymous player reference (HMAC of the player id); empty: SECRET_KEY",
)
REPORTS_OPERATOR = env.str(
    "REPORTS_OPERATOR", "Development operator (not licensed)", "the operator's name in the reports"
)

env.area("Regulator (remote access)")
REGULATOR_ENABLED = env.bool(
    "REGULATOR_ENABLED",
    True,
    "the Ministry's packages are built (production then checks the seal, the encryption certificates and the clients)",
)
REGULATOR_OPERATOR_ID = env.str(
    "REGULATOR_OPERATOR_ID", "12345678", "the operator's IČO (the default is refused in production)"
)
REGULATOR_OPERATOR_NAME = env.str(
    "REGULATOR_OPERATOR_NAME", REPORTS_OPERATOR, "the operator's name in the packages (default: REPORTS_OPERATOR)"
)
REGULATOR_PERIOD_TIME_ZONE = env.str(
    "REGULATOR_PERIOD_TIME_ZONE", "Europe/Prague", "the time zone of the packages' periods"
)
REGULATOR_BUILD_DELAY_MINUTES = env.int(
    "REGULATOR_BUILD_DELAY_MINUTES", 15, "minutes after a period's end before its package is built"
)
REGULATOR_PACKAGE_DIR = env.path(
    "REGULATOR_PACKAGE_DIR", BASE_DIR / ".data" / "regulator", "where the packages are kept"
)
REGULATOR_SEAL_P12 = env.str(
    "REGULATOR_SEAL_P12", "", "the operator's qualified seal certificate with its key (PKCS#12 file)"
)
REGULATOR_SEAL_P12_PASSWORD = env.str("REGULATOR_SEAL_P12_PASSWORD", "", "its password")
REGULATOR_MINISTRY_ENCRYPTION_CERTS = env.list(
    "REGULATOR_MINISTRY_ENCRYPTION_CERTS", [], "the Ministry's encryption certificates (PEM files)"
)
REGULATOR_OWN_ENCRYPTION_CERT = env.str(
    "REGULATOR_OWN_ENCRYPTION_CERT", "", "the operator's own encryption certificate (PEM), to decrypt its archive"
)
REGULATOR_OWN_ENCRYPTION_KEY = env.str("REGULATOR_OWN_ENCRYPTION_KEY", "", "the key of that certificate (PEM)")
REGULATOR_SEAL_TRUST = env.str(
    "REGULATOR_SEAL_TRUST", "", "the CA of the seal certificate (PEM), to verify an issued package before opening it"
)
REGULATOR_MINISTRY_SEAL_TRUST = env.str(
    "REGULATOR_MINISTRY_SEAL_TRUST",
    "",
    "the CA (or certificate) of the Ministry's seal (PEM), to verify its confirmation packages",
)
REGULATOR_MINISTRY_CLIENTS = env.list(
    "REGULATOR_MINISTRY_CLIENTS",
    [],
    "the Ministry's client certificates admitted "
    "to the download and notification URLs: subject DNs (RFC 4514) or SHA-256 "
    "fingerprints (hex)",
)
REGULATOR_CLIENT_CERT_HEADER = env.str(
    "REGULATOR_CLIENT_CERT_HEADER",
    "HTTP_X_SSL_CLIENT_CERT",
    "the request header "
    "in which the TLS terminator passes the verified client certificate "
    "(URL-encoded PEM, nginx's $ssl_client_escaped_cert)",
)
REGULATOR_CLIENT_VERIFY_HEADER = env.str(
    "REGULATOR_CLIENT_VERIFY_HEADER",
    "HTTP_X_SSL_CLIENT_VERIFY",
    "the header with the verification result (must be SUCCESS)",
)
REGULATOR_OPENSSL = env.str(
    "REGULATOR_OPENSSL", "openssl", "the openssl command that encrypts and seals (OpenSSL 3: CMS with -cades)"
)
REGULATOR_PUBLIC_BASE_URL = env.str(
    "REGULATOR_PUBLIC_BASE_URL",
    PUBLIC_BASE_URL,
    "the public base of the download and notification URLs in the registration record (default: PUBLIC_BASE_URL)",
)
REGULATOR_NONCASH_CODE = env.int(
    "REGULATOR_NONCASH_CODE",
    1,
    "TransakceZpusob in ucet.csv for card and bank payments (an open point: the Ministry's sample data writes 1)",
)
REGULATOR_CASH_CODE = env.int("REGULATOR_CASH_CODE", 0, "TransakceZpusob for cash")
