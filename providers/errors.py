"""Errors of the providers' API and the ONE table mapping a platform error code to the provider's status
vocabulary (Hub88-style ``RS_*``; /work/briefs/providers-contract.md, docs/providers.md "Error mapping").

Every refusal leaves in the house error shape (``{"error": {...}}``) with the provider's word beside it
(``"status": "RS_ERROR_..."``). :data:`RS_STATUS` maps a platform code to that word; a code not in it gets
:data:`DEFAULT_RS_STATUS` for a 5xx and :data:`DEFAULT_RS_STATUS_4XX` for any other refusal (``RS_ERROR_UNKNOWN``
is never the answer to a bad request).
"""

from __future__ import annotations

from core import errors as core_errors
from core.errors import ErrorDef
from games import errors as games_errors
from limits import errors as limits_errors
from wallet import errors as wallet_errors

# Signature, source, partner ------------------------------------------------------------------------------------
INVALID_SIGNATURE = ErrorDef(
    "providers.invalid_signature", 401, "Neplatný podpis požadavku.", "The request's signature is missing or wrong."
)
TIMESTAMP_OUTSIDE_WINDOW = ErrorDef(
    "providers.timestamp_outside_window",
    401,
    "Čas požadavku je mimo povolené okno.",
    "The request's timestamp is outside the allowed window.",
)
SOURCE_NOT_ALLOWED = ErrorDef(
    "providers.source_not_allowed",
    403,
    "Požadavek přišel z adresy, která dodavateli není povolena.",
    "The request came from an address not allowed for this provider.",
)
PROVIDER_UNKNOWN = ErrorDef("providers.unknown", 404, "Neznámý dodavatel her.", "Unknown game provider.")
PROVIDER_DISABLED = ErrorDef("providers.disabled", 403, "Dodavatel her je vypnut.", "The game provider is disabled.")
PROVIDER_NOT_SECURED = ErrorDef(
    "providers.not_secured",
    403,
    "Dodavatel nemá v provozu bezpečné nastavení (tajemství, adresy).",
    "The provider is not securely configured for production (secret, addresses).",
)

# Tokens and sessions -------------------------------------------------------------------------------------------
INVALID_TOKEN = ErrorDef(
    "providers.invalid_token", 401, "Neplatný nebo již použitý token.", "The token is invalid or already used."
)
TOKEN_EXPIRED = ErrorDef("providers.token_expired", 401, "Platnost tokenu vypršela.", "The token has expired.")
SESSION_INVALID = ErrorDef("providers.session_invalid", 401, "Neplatná herní relace.", "Invalid game session.")
SESSION_EXPIRED = ErrorDef("providers.session_expired", 401, "Herní relace vypršela.", "The game session expired.")
STUDIO_OUTCOME_THROTTLED = ErrorDef(
    "providers.outcome_throttled",
    429,
    "Příliš mnoho stejně odmítnutých volání ({outcome}); zkuste to později.",
    "Too many calls refused the same way ({outcome}); try again later.",
)
ROUND_DETAIL_REQUIRED = ErrorDef(
    "providers.round_detail_required",
    400,
    "Volání, které kolo uzavírá, nese záznam studia o kole (round_detail: outcome, nebo history_url se sha256).",
    "The call that closes a round carries the studio's record of it (round_detail: outcome, or history_url with "
    "sha256).",
)
ROUND_DETAIL_INVALID = ErrorDef(
    "providers.round_detail_invalid", 400, "Neplatný záznam kola: {reason}.", "Invalid round detail: {reason}."
)
LOGIN_ENDED = ErrorDef(
    "providers.login_ended",
    401,
    "Přihlášení hráče skončilo a herní relace skončila s ním.",
    "The player's login ended and the game session ended with it.",
)
LOGIN_REQUIRED = ErrorDef(
    "providers.login_required",
    403,
    "Hru studia lze spustit jen z přihlášení hráče.",
    "A studio's game is launched only from the player's login.",
)

# Bodies ---------------------------------------------------------------------------------------------------------
WRONG_SYNTAX = ErrorDef("providers.wrong_syntax", 400, "Neplatný požadavek: {reason}.", "Invalid request: {reason}.")
WRONG_TYPES = ErrorDef(
    "providers.wrong_types", 400, "Pole {field} má nesprávný typ.", "The field {field} has the wrong type."
)
WRONG_CURRENCY = ErrorDef("providers.wrong_currency", 400, "Nepodporovaná měna.", "Unsupported currency.")
GAME_INVALID = ErrorDef(
    "providers.game_invalid", 404, "Tato hra u dodavatele neexistuje.", "This game is not one of this provider's games."
)
ROUND_MISMATCH = ErrorDef(
    "providers.round_mismatch", 400, "Transakce patří k jinému kolu.", "The transaction belongs to another round."
)

# Exactly once ---------------------------------------------------------------------------------------------------
DUPLICATE_TRANSACTION = ErrorDef(
    "providers.duplicate_transaction",
    409,
    "Transakce s tímto číslem už existuje s jiným obsahem.",
    "A transaction with this id exists with another content.",
)
TRANSACTION_UNKNOWN = ErrorDef(
    "providers.transaction_unknown", 404, "Transakce neexistuje.", "The transaction does not exist."
)
TRANSACTION_ROLLED_BACK = ErrorDef(
    "providers.transaction_rolled_back", 409, "Transakce byla zrušena.", "The transaction was rolled back."
)

# Staff ------------------------------------------------------------------------------------------------------------
PROVIDER_INVALID = ErrorDef(
    "providers.provider_invalid",
    422,
    "Nastavení dodavatele je neplatné: {reason}.",
    "The provider's settings are invalid: {reason}.",
)
CASE_NOT_OPEN = ErrorDef("providers.case_not_open", 409, "Případ už je vyřešen.", "The case is already resolved.")
RESOLUTION_REQUIRED = ErrorDef(
    "providers.resolution_required", 422, "Uveďte, jak byl rozdíl vyřešen.", "Say how the difference was resolved."
)

RS_OK = "RS_OK"
DEFAULT_RS_STATUS = "RS_ERROR_UNKNOWN"  # a 5xx: the platform's fault
DEFAULT_RS_STATUS_4XX = "RS_ERROR_WRONG_SYNTAX"  # any other refusal not named below

_USER_DISABLED = (
    "accounts.not_registered",
    "accounts.temporary_expired",
    "accounts.suspended",
    "accounts.closing",
    "accounts.closed",
    "accounts.barred_insider",
    "accounts.excluded_person",
    "accounts.account_not_usable",
    "accounts.terms_not_accepted",
    "accounts.duplicate_accounts_frozen",
    "aml.compliance_review",
    "aml.compliance_refused",
    "limits.panic_exclusion",
    "limits.self_listed",
    "limits.excluded",
)


def _limits_codes() -> dict[str, str]:
    """Every limits refusal is RS_ERROR_LIMIT_REACHED (self-limits, 120/15 break, hourly loss, stake range and grid
    and max bet), except the exclusions, which disable the user."""
    return {v.code: "RS_ERROR_LIMIT_REACHED" for v in vars(limits_errors).values() if isinstance(v, ErrorDef)}


#: the platform's error code -> the provider's status (docs/providers.md "Error mapping"): the one table
RS_STATUS: dict[str, str] = {
    **_limits_codes(),
    **dict.fromkeys(_USER_DISABLED, "RS_ERROR_USER_DISABLED"),
    INVALID_SIGNATURE.code: "RS_ERROR_INVALID_SIGNATURE",
    TIMESTAMP_OUTSIDE_WINDOW.code: "RS_ERROR_INVALID_SIGNATURE",
    SOURCE_NOT_ALLOWED.code: "RS_ERROR_INVALID_PARTNER",
    PROVIDER_UNKNOWN.code: "RS_ERROR_INVALID_PARTNER",
    PROVIDER_DISABLED.code: "RS_ERROR_INVALID_PARTNER",
    PROVIDER_NOT_SECURED.code: "RS_ERROR_INVALID_PARTNER",
    INVALID_TOKEN.code: "RS_ERROR_INVALID_TOKEN",
    SESSION_INVALID.code: "RS_ERROR_INVALID_TOKEN",
    TOKEN_EXPIRED.code: "RS_ERROR_TOKEN_EXPIRED",
    SESSION_EXPIRED.code: "RS_ERROR_TOKEN_EXPIRED",
    LOGIN_ENDED.code: "RS_ERROR_TOKEN_EXPIRED",
    WRONG_SYNTAX.code: "RS_ERROR_WRONG_SYNTAX",
    ROUND_DETAIL_REQUIRED.code: "RS_ERROR_WRONG_SYNTAX",
    ROUND_DETAIL_INVALID.code: "RS_ERROR_WRONG_SYNTAX",
    core_errors.VALIDATION.code: "RS_ERROR_WRONG_SYNTAX",
    core_errors.TOO_LARGE.code: "RS_ERROR_WRONG_SYNTAX",
    WRONG_TYPES.code: "RS_ERROR_WRONG_TYPES",
    games_errors.REMOTE_INVALID_AMOUNT.code: "RS_ERROR_WRONG_TYPES",
    games_errors.REMOTE_INVALID_ROUND_ID.code: "RS_ERROR_WRONG_SYNTAX",
    WRONG_CURRENCY.code: "RS_ERROR_WRONG_CURRENCY",
    wallet_errors.CURRENCY_NOT_SUPPORTED.code: "RS_ERROR_WRONG_CURRENCY",
    GAME_INVALID.code: "RS_ERROR_INVALID_GAME",
    games_errors.REMOTE_GAME_INVALID.code: "RS_ERROR_INVALID_GAME",
    games_errors.GAME_DISABLED.code: "RS_ERROR_INVALID_GAME",
    games_errors.GAME_NOT_APPROVED.code: "RS_ERROR_INVALID_GAME",
    games_errors.GAME_NOT_FOUND.code: "RS_ERROR_INVALID_GAME",
    wallet_errors.INSUFFICIENT_FUNDS.code: "RS_ERROR_NOT_ENOUGH_MONEY",
    games_errors.ROUND_IN_PROGRESS.code: "RS_ERROR_LIMIT_REACHED",  # GP §7(6)
    games_errors.ROUND_TOO_SOON.code: "RS_ERROR_LIMIT_REACHED",  # GP §7(9)
    games_errors.REMOTE_BET_EXISTS.code: "RS_ERROR_LIMIT_REACHED",  # one bet per round
    games_errors.REMOTE_ROUND_CLOSED.code: "RS_ERROR_ROUND_CLOSED",
    games_errors.ROUND_NOT_FOUND.code: "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
    DUPLICATE_TRANSACTION.code: "RS_ERROR_DUPLICATE_TRANSACTION",
    TRANSACTION_UNKNOWN.code: "RS_ERROR_TRANSACTION_DOES_NOT_EXIST",
    TRANSACTION_ROLLED_BACK.code: "RS_ERROR_TRANSACTION_ROLLED_BACK",
    games_errors.REMOTE_ROUND_VOIDED.code: "RS_ERROR_TRANSACTION_ROLLED_BACK",
    games_errors.REMOTE_ROLLBACK_AFTER_WIN.code: "RS_ERROR_ROLLBACK_AFTER_WIN",
    ROUND_MISMATCH.code: "RS_ERROR_WRONG_SYNTAX",
}


def rs_status(code: str, http_status: int) -> str:
    """The provider's word for a platform error code (:data:`RS_STATUS`, else the default by the HTTP status)."""
    found = RS_STATUS.get(code)
    if found is not None:
        return found
    return DEFAULT_RS_STATUS if http_status >= 500 else DEFAULT_RS_STATUS_4XX
