"""Errors of the reports app. Codes are stable; tests import these constants."""

from __future__ import annotations

from core.errors import ErrorDef

SEAL_NOT_CONFIGURED = ErrorDef(
    "reports.seal_not_configured",
    503,
    "Pečeť záznamu pro dozorový orgán není nastavena (REPORTS_SEAL_KEY_FILE, REPORTS_SEAL_CERT_FILE).",
    "The seal of the regulator's record is not configured (REPORTS_SEAL_KEY_FILE, REPORTS_SEAL_CERT_FILE).",
)
BAD_PERIOD = ErrorDef(
    "reports.bad_period",
    400,
    "Neplatné období {value!r}: použijte RRRR-MM-DD, RRRR-MM nebo RRRR-Qn.",
    "Invalid period {value!r}: use YYYY-MM-DD, YYYY-MM or YYYY-Qn.",
)
DAY_ARCHIVED = ErrorDef(
    "reports.day_archived",
    409,
    "Den {day} nelze přepočítat: jeho kola nebo účetní záznamy jsou archivovány ({tables}); uložené údaje dne platí.",
    "The day {day} cannot be recomputed: its rounds or ledger records are archived ({tables}); its stored figures "
    "stand.",
)
