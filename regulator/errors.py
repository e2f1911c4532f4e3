"""Errors of the regulator app. Codes are stable; tests import these constants."""

from __future__ import annotations

from core.errors import ErrorDef

PERIOD_OPEN = ErrorDef(
    "regulator.period_open",
    409,
    "Období {period} ještě neskončilo; balíček lze vytvořit až po jeho konci.",
    "The period {period} has not ended yet; its package is made after it closes.",
)
NOT_REJECTED = ErrorDef(
    "regulator.not_rejected",
    409,
    "Balíček {name} nebyl zamítnut (stav {state}); novou verzi nelze vydat.",
    "The package {name} was not rejected (state {state}); no new version is issued.",
)
UNKNOWN_PACKAGE = ErrorDef(
    "regulator.unknown_package", 404, "Balíček {name} neexistuje.", "There is no package {name}."
)
CLIENT_REFUSED = ErrorDef(
    "regulator.client_refused",
    403,
    "Přístup je povolen jen klientským certifikátům Ministerstva financí.",
    "Only the Ministry of Finance's client certificates are admitted.",
)
PACKAGE_GONE = ErrorDef(
    "regulator.package_gone",
    410,
    "Balíček {name} už není k dispozici: jeho doba uchování skončila nebo jeho uložený soubor neodpovídá otisku.",
    "The package {name} is no longer available: its retention period ended or its stored file no longer matches its "
    "hash.",
)
