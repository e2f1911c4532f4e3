"""The back office's refusals (one error shape: core.errors)."""

from core.errors import ErrorDef

CONFIRM_NOT_PENDING = ErrorDef(
    "backoffice.not_pending",
    409,
    "Tento záznam už nečeká na rozhodnutí; stránka hráče ukazuje jeho současný stav.",
    "This record is no longer waiting for a decision; the player's page shows its current state.",
)
AUDIT_FILTER_INVALID = ErrorDef(
    "backoffice.audit_filter_invalid",
    400,
    "Filtr auditní stopy je neplatný: {problem}.",
    "The audit filter is invalid: {problem}.",
)
