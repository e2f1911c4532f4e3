"""Refusals of the aml app (codes are stable API; tests import these constants)."""
from __future__ import annotations

from accounts import errors as accounts_errors
from core.errors import ErrorDef

# Identification (GP §4(4)b) -----------------------------------------------------------------------------------------
IDENTIFICATION_NOT_ALLOWED = ErrorDef(
    "aml.identification_not_allowed", 409,
    "Identifikaci nelze v tomto stavu účtu provést ({account_status}).",
    "Identification is not possible in this account state ({account_status}).")
ALREADY_IDENTIFIED = ErrorDef("aml.already_identified", 409, "Identifikace podle AML zákona již proběhla.",
                              "The AML identification is already done.")
IDENTIFICATION_IN_PROGRESS = ErrorDef(
    "aml.identification_in_progress", 409,
    "Identifikace již probíhá; počkejte prosím na její výsledek.",
    "An identification is already in progress; please wait for its result.")
INVALID_DOCUMENT = ErrorDef("aml.invalid_document", 400, "Údaje o průkazu totožnosti nejsou v pořádku.",
                            "The identity document's particulars are not valid.")
IMAGE_MISSING = ErrorDef("aml.image_missing", 400, "Chybí snímek: {side}.", "An image is missing: {side}.")
IMAGE_TYPE = ErrorDef("aml.image_type", 400, "Snímky musí být ve formátu JPEG nebo PNG.",
                      "Images must be JPEG or PNG.")
IMAGE_TOO_LARGE = ErrorDef("aml.image_too_large", 400, "Snímek je příliš velký (nejvýše {max_bytes} bajtů).",
                           "The image is too large (at most {max_bytes} bytes).")
IDENTIFICATION_STATE = ErrorDef("aml.identification_state", 409,
                                "Tuto identifikaci nelze v jejím stavu ({state}) rozhodnout.",
                                "This identification cannot be decided in its state ({state}).")
UNKNOWN_PROVIDER = ErrorDef("aml.unknown_provider", 404, "Neznámý poskytovatel identifikace.",
                            "Unknown identification provider.")
SANDBOX_DISABLED = ErrorDef("aml.sandbox_disabled", 404, "Testovací poskytovatel AML služeb není zapnutý.",
                            "The sandbox AML provider is not enabled.")
BAD_SIGNATURE = ErrorDef("aml.callback_bad_signature", 401, "Neplatný podpis zprávy.", "Invalid callback signature.")
BAD_CALLBACK = ErrorDef("aml.callback_invalid", 400, "Neplatná zpráva poskytovatele.", "Invalid provider callback.")
REPLAY_MISMATCH = ErrorDef("aml.callback_replay_mismatch", 409,
                           "Zpráva s tímto identifikátorem již byla přijata s jiným obsahem.",
                           "An event with this id was already received with a different body.")
NOTE_REQUIRED = ErrorDef("aml.note_required", 400, "Rozhodnutí musí mít odůvodnění.", "A decision needs a note.")
NO_PERSONAL_DATA = ErrorDef("aml.no_personal_data", 409, "Účet nemá osobní údaje.", "The account has no personal data.")

# PEP declaration, screening, cases ----------------------------------------------------------------------------------
PEP_DECLARATION_INVALID = ErrorDef(
    "aml.pep_declaration_invalid", 400,
    "Prohlášení o politicky exponované osobě není úplné: {reason}.",
    "The politically exposed person declaration is incomplete: {reason}.")
CASE_STATE = ErrorDef("aml.case_state", 409, "Případ je již rozhodnut ({state}).",
                      "The case is already decided ({state}).")
CASE_DECISION_INVALID = ErrorDef("aml.case_decision_invalid", 400, "Neplatné rozhodnutí: {decision}.",
                                 "Invalid decision: {decision}.")

# Refusals other apps ask for (compliance_refusal) -------------------------------------------------------------------
PEP_DECLARATION_REQUIRED = ErrorDef(
    "aml.pep_declaration_required", 409,
    "Před dokončením registrace prohlaste, zda jste politicky exponovaná osoba.",
    "Before completing the registration, declare whether you are a politically exposed person.")
SCREENING_PENDING = ErrorDef(
    "aml.screening_pending", 409,
    "Kontrola podle AML zákona ještě neproběhla; zkuste to prosím později.",
    "The AML screening has not been done yet; please try again later.")
# a blocking case open / confirmed (docs/aml.md): declared in accounts, which the stake gate reads below aml
COMPLIANCE_REVIEW = accounts_errors.AML_COMPLIANCE_REVIEW  # "aml.compliance_review", 409
COMPLIANCE_REFUSED = accounts_errors.AML_COMPLIANCE_REFUSED  # "aml.compliance_refused", 403
SOURCE_OF_FUNDS_REQUIRED = ErrorDef(
    "aml.source_of_funds_required", 409,
    "Vaše vklady dosáhly {threshold}: před dalším vkladem vyplňte prohlášení o původu peněžních prostředků.",
    "Your deposits reached {threshold}: declare the source of your funds before the next deposit.")

# Source of funds ----------------------------------------------------------------------------------------------------
SOF_INVALID = ErrorDef("aml.source_of_funds_invalid", 400, "Prohlášení o původu prostředků není úplné: {reason}.",
                       "The source-of-funds declaration is incomplete: {reason}.")
SOF_STATE = ErrorDef("aml.source_of_funds_state", 409, "Prohlášení je již posouzeno ({state}).",
                     "The declaration is already reviewed ({state}).")

# Holds (GP §10(3)) --------------------------------------------------------------------------------------------------
WIN_NOT_FOUND = ErrorDef("aml.win_not_found", 404, "Výhra {win_reference} tohoto hráče nebyla nalezena.",
                         "Win {win_reference} of this player was not found.")
HOLD_REASON_INVALID = ErrorDef("aml.hold_reason_invalid", 400, "Důvod pozdržení musí být regularity nebo aml.",
                               "The hold reason must be regularity or aml.")
HOLD_TOO_LATE = ErrorDef(
    "aml.hold_too_late", 409,
    "Výhru již nelze pozdržet: 60denní lhůta pro její výplatu uplynula {deadline} (HP §10 odst. 3).",
    "The win can no longer be held: the 60-day payout term ended {deadline} (GP §10(3)).")
