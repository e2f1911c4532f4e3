"""Refusals of the aml app (codes are stable API; tests import these constants)."""

from __future__ import annotations

from accounts import errors as accounts_errors
from core.errors import ErrorDef

# Identification (GP §4(4)b) -----------------------------------------------------------------------------------------
IDENTIFICATION_NOT_ALLOWED = ErrorDef(
    "aml.identification_not_allowed",
    409,
    "Identifikaci nelze v tomto stavu účtu provést ({account_status}).",
    "Identification is not possible in this account state ({account_status}).",
)
ALREADY_IDENTIFIED = ErrorDef(
    "aml.already_identified",
    409,
    "Identifikace podle AML zákona již proběhla.",
    "The AML identification is already done.",
)
IDENTIFICATION_IN_PROGRESS = ErrorDef(
    "aml.identification_in_progress",
    409,
    "Identifikace již probíhá; počkejte prosím na její výsledek.",
    "An identification is already in progress; please wait for its result.",
)
IDENTIFICATION_ATTEMPTS_EXHAUSTED = ErrorDef(
    "aml.identification_attempts_exhausted",
    409,
    "Vyčerpali jste pokusy o identifikaci ({max_attempts} během 24 hodin). Další pokus bude možný, až je posoudí "
    "pracovník provozovatele; obraťte se prosím na zákaznickou podporu.",
    "You have used up your identification attempts ({max_attempts} within 24 hours). You can try again once our "
    "staff have reviewed them; please contact customer support.",
)
INVALID_DOCUMENT = ErrorDef(
    "aml.invalid_document",
    400,
    "Údaje o průkazu totožnosti nejsou v pořádku.",
    "The identity document's particulars are not valid.",
)
IMAGE_MISSING = ErrorDef("aml.image_missing", 400, "Chybí snímek: {side}.", "An image is missing: {side}.")
IMAGE_TYPE = ErrorDef("aml.image_type", 400, "Snímky musí být ve formátu JPEG nebo PNG.", "Images must be JPEG or PNG.")
IMAGE_TOO_LARGE = ErrorDef(
    "aml.image_too_large",
    400,
    "Snímek je příliš velký (nejvýše {max_bytes} bajtů).",
    "The image is too large (at most {max_bytes} bytes).",
)
IDENTIFICATION_STATE = ErrorDef(
    "aml.identification_state",
    409,
    "Tuto identifikaci nelze v jejím stavu ({state}) rozhodnout.",
    "This identification cannot be decided in its state ({state}).",
)
UNKNOWN_PROVIDER = ErrorDef(
    "aml.unknown_provider", 404, "Neznámý poskytovatel identifikace.", "Unknown identification provider."
)
SANDBOX_DISABLED = ErrorDef(
    "aml.sandbox_disabled",
    404,
    "Testovací poskytovatel AML služeb není zapnutý.",
    "The sandbox AML provider is not enabled.",
)
BAD_SIGNATURE = ErrorDef("aml.callback_bad_signature", 401, "Neplatný podpis zprávy.", "Invalid callback signature.")
BAD_CALLBACK = ErrorDef("aml.callback_invalid", 400, "Neplatná zpráva poskytovatele.", "Invalid provider callback.")
REPLAY_MISMATCH = ErrorDef(
    "aml.callback_replay_mismatch",
    409,
    "Zpráva s tímto identifikátorem již byla přijata s jiným obsahem.",
    "An event with this id was already received with a different body.",
)
NOTE_REQUIRED = ErrorDef("aml.note_required", 400, "Rozhodnutí musí mít odůvodnění.", "A decision needs a note.")
NO_PERSONAL_DATA = ErrorDef("aml.no_personal_data", 409, "Účet nemá osobní údaje.", "The account has no personal data.")

# Bank iD (OpenID Connect identification by the player's bank) ------------------------------------------------------
BANKID_DISABLED = ErrorDef(
    "aml.bankid_disabled", 404, "Identifikace přes Bank iD není zapnutá.", "Identification with Bank iD is not enabled."
)
BANKID_REDIRECT_NOT_ALLOWED = ErrorDef(
    "aml.bankid_redirect_not_allowed",
    400,
    "Adresa pro návrat z Bank iD není povolená.",
    "The address to return to from Bank iD is not allowed.",
)
BANKID_STATE_INVALID = ErrorDef(
    "aml.bankid_state_invalid",
    409,
    "Toto přihlášení přes Bank iD neznáme nebo už bylo použito. Začněte prosím identifikaci znovu.",
    "This Bank iD sign-in is unknown or was already used. Please start the identification again.",
)
BANKID_SESSION_EXPIRED = ErrorDef(
    "aml.bankid_session_expired",
    409,
    "Přihlášení přes Bank iD vypršelo. Začněte prosím identifikaci znovu.",
    "The Bank iD sign-in has expired. Please start the identification again.",
)
BANKID_DENIED = ErrorDef(
    "aml.bankid_denied",
    409,
    "Identifikace v Bank iD nebyla dokončena ({error}).",
    "The identification at Bank iD was not completed ({error}).",
)
BANKID_CALLBACK_INVALID = ErrorDef(
    "aml.bankid_callback_invalid",
    400,
    "Odpověď z Bank iD je neúplná: {reason}.",
    "The answer from Bank iD is incomplete: {reason}.",
)
BANKID_UNAVAILABLE = ErrorDef(
    "aml.bankid_unavailable",
    503,
    "Bank iD teď neodpovídá; zkuste to prosím za chvíli.",
    "Bank iD is not answering now; please try again in a while.",
)
BANKID_TOKEN_REFUSED = ErrorDef(
    "aml.bankid_token_refused",
    409,
    "Bank iD odmítla vydat potvrzení identity ({provider_error}). Začněte prosím identifikaci znovu.",
    "Bank iD refused to issue the identity assertion ({provider_error}). Please start the identification again.",
)
BANKID_ID_TOKEN_INVALID = ErrorDef(
    "aml.bankid_id_token_invalid",
    409,
    "Potvrzení identity z Bank iD neprošlo kontrolou ({reason}); identifikace neproběhla.",
    "The identity assertion from Bank iD failed its check ({reason}); nobody was identified.",
)
BANKID_CLAIMS_INVALID = ErrorDef(
    "aml.bankid_claims_invalid",
    409,
    "Údaje z Bank iD nelze použít ({reason}); identifikace neproběhla.",
    "The data from Bank iD cannot be used ({reason}); nobody was identified.",
)
BANKID_NOT_AML_VERIFIED = ErrorDef(
    "aml.bankid_not_aml_verified",
    409,
    "Banka neposkytla údaje ověřené podle AML zákona; identifikujte se prosím jiným způsobem.",
    "The bank did not provide data verified under the AML law; please identify yourself another way.",
)
BANKID_NOT_ELIGIBLE = ErrorDef(
    "aml.bankid_not_eligible",
    403,
    "Podle vaší banky nemůžete hrát ({reason}): osoba s omezenou svéprávností nebo nezletilá se účastnit nesmí.",
    "According to your bank you may not play ({reason}): a person with limited legal capacity or under age may not "
    "take part.",
)
BANKID_CLAIMS_MISMATCH = ErrorDef(
    "aml.bankid_claims_mismatch",
    409,
    "Údaje ověřené vaší bankou se liší od údajů v registraci ({mismatches}); identifikaci posoudí oddělení compliance.",
    "The data your bank verified differ from your registration ({mismatches}); compliance staff will review the "
    "identification.",
)

# PEP declaration, screening, cases ----------------------------------------------------------------------------------
PEP_DECLARATION_INVALID = ErrorDef(
    "aml.pep_declaration_invalid",
    400,
    "Prohlášení o politicky exponované osobě není úplné: {reason}.",
    "The politically exposed person declaration is incomplete: {reason}.",
)
CASE_STATE = ErrorDef(
    "aml.case_state", 409, "Případ je již rozhodnut ({state}).", "The case is already decided ({state})."
)
CASE_DECISION_INVALID = ErrorDef(
    "aml.case_decision_invalid", 400, "Neplatné rozhodnutí: {decision}.", "Invalid decision: {decision}."
)

# Refusals other apps ask for (compliance_refusal) -------------------------------------------------------------------
PEP_DECLARATION_REQUIRED = ErrorDef(
    "aml.pep_declaration_required",
    409,
    "Před dokončením registrace prohlaste, zda jste politicky exponovaná osoba.",
    "Before completing the registration, declare whether you are a politically exposed person.",
)
SCREENING_PENDING = ErrorDef(
    "aml.screening_pending",
    409,
    "Kontrola podle AML zákona ještě neproběhla; zkuste to prosím později.",
    "The AML screening has not been done yet; please try again later.",
)
# a blocking case open / confirmed (docs/aml.md): declared in accounts, which the stake gate reads below aml
COMPLIANCE_REVIEW = accounts_errors.AML_COMPLIANCE_REVIEW  # "aml.compliance_review", 409
COMPLIANCE_REFUSED = accounts_errors.AML_COMPLIANCE_REFUSED  # "aml.compliance_refused", 403
SOURCE_OF_FUNDS_REQUIRED = ErrorDef(
    "aml.source_of_funds_required",
    409,
    "Vaše vklady dosáhly {threshold}: před dalším vkladem vyplňte prohlášení o původu peněžních prostředků.",
    "Your deposits reached {threshold}: declare the source of your funds before the next deposit.",
)

# Source of funds ----------------------------------------------------------------------------------------------------
SOF_INVALID = ErrorDef(
    "aml.source_of_funds_invalid",
    400,
    "Prohlášení o původu prostředků není úplné: {reason}.",
    "The source-of-funds declaration is incomplete: {reason}.",
)
SOF_STATE = ErrorDef(
    "aml.source_of_funds_state",
    409,
    "Prohlášení je již posouzeno ({state}).",
    "The declaration is already reviewed ({state}).",
)

# Holds (GP §10(3)) --------------------------------------------------------------------------------------------------
WIN_NOT_FOUND = ErrorDef(
    "aml.win_not_found",
    404,
    "Výhra {win_reference} tohoto hráče nebyla nalezena.",
    "Win {win_reference} of this player was not found.",
)
HOLD_REASON_INVALID = ErrorDef(
    "aml.hold_reason_invalid",
    400,
    "Důvod pozdržení musí být regularity nebo aml.",
    "The hold reason must be regularity or aml.",
)
HOLD_TOO_LATE = ErrorDef(
    "aml.hold_too_late",
    409,
    "Výhru již nelze pozdržet: 60denní lhůta pro její výplatu uplynula {deadline} (HP §10 odst. 3).",
    "The win can no longer be held: the 60-day payout term ended {deadline} (GP §10(3)).",
)

# Imported screening lists -------------------------------------------------------------------------------------------
LIST_SOURCE_UNKNOWN = ErrorDef(
    "aml.list_source_unknown", 400, "Neznámý zdroj seznamu: {source}.", "Unknown list source: {source}."
)
LIST_INVALID = ErrorDef(
    "aml.list_invalid",
    400,
    "Soubor není seznam uvedeného formátu: {reason}.",
    "The file is not a list of the stated format: {reason}.",
)
LIST_EMPTY = ErrorDef(
    "aml.list_empty",
    400,
    "Seznam neobsahuje žádný záznam; nebyl importován.",
    "The list holds no entry; it was not imported.",
)
LIST_TOO_LARGE = ErrorDef(
    "aml.list_too_large",
    400,
    "Soubor je příliš velký (nejvýše {max_bytes} bajtů).",
    "The file is too large (at most {max_bytes} bytes).",
)
LIST_WITHDRAWN = ErrorDef(
    "aml.list_withdrawn",
    409,
    "Tato verze seznamu byla odvolána ({reason}); znovu ji nelze použít.",
    "This list version was withdrawn ({reason}); it cannot be used again.",
)
LIST_OUTDATED = ErrorDef(
    "aml.list_outdated",
    409,
    "Soubor je starší ({published_at}) než již importovaná verze seznamu ({current_published_at}).",
    "The file is older ({published_at}) than the list version already imported ({current_published_at}).",
)
PEP_CLAIM_INVALID = ErrorDef(
    "aml.pep_claim_invalid",
    400,
    "Údaj o politicky exponované osobě nemá zdroj.",
    "The politically exposed person claim names no source.",
)
