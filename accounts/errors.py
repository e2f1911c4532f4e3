"""Errors of the accounts app (code + Czech + English). Tests import these constants."""

from core.errors import ErrorDef

# Registration -------------------------------------------------------------------------
INVALID_PERSONAL_DATA = ErrorDef(
    "accounts.invalid_personal_data",
    400,
    "Osobní údaje nejsou úplné nebo správné.",
    "The personal data are incomplete or invalid.",
)
UNDERAGE = ErrorDef(
    "accounts.underage",
    403,
    "Registrovat se mohou jen osoby starší 18 let (HP §3 odst. 1).",
    "Only persons aged 18 or over may register (GP §3(1)).",
)
USERNAME_INVALID = ErrorDef(
    "accounts.username_invalid",
    400,
    "Uživatelské jméno musí mít 4–30 znaků: písmena bez diakritiky, číslice, tečka, pomlčka, podtržítko.",
    "The username must be 4-30 characters: letters, digits, dot, dash, underscore.",
)
USERNAME_TAKEN = ErrorDef(
    "accounts.username_taken", 409, "Toto uživatelské jméno je již obsazené.", "This username is already taken."
)
DUPLICATE_PERSONAL_DATA = ErrorDef(
    "accounts.duplicate_personal_data",
    409,
    "Registraci nelze dokončit: některý z údajů se shoduje s jiným účastníkem. Kontaktujte prosím zákaznickou podporu.",
    "Registration refused: some of your data match another participant. Please contact customer support.",
)
EXCLUDED_PERSON = ErrorDef(
    "accounts.excluded_person",
    403,
    "Osoba je zapsána v rejstříku fyzických osob vyloučených z účasti na hazardních hrách.",
    "The person is listed in the register of persons excluded from gambling.",
)
REGISTER_NOT_FOUND = ErrorDef(
    "accounts.register_not_found",
    422,
    "Totožnost se nepodařilo ověřit v registru obyvatel; registraci nelze dokončit.",
    "Your identity could not be found in the population register; registration cannot complete.",
)
REGISTER_MISMATCH = ErrorDef(
    "accounts.register_mismatch",
    422,
    "Zadané údaje se neshodují s registrem obyvatel; zkontrolujte je prosím.",
    "Your data do not match the population register; please check them.",
)
REGISTER_UNAVAILABLE = ErrorDef(
    "accounts.register_unavailable",
    503,
    "Státní registr je dočasně nedostupný. Zkuste to prosím později.",
    "A state register is temporarily unavailable. Please try again later.",
)
REGISTER_REVIEW_PENDING = ErrorDef(
    "accounts.register_review_pending",
    403,
    "Totožnost se nepodařilo ověřit v registru obyvatel; ověření nyní posoudí naše podpora.",
    "Your identity could not be verified in the population register; our support will now review it.",
)
EXCLUSION_CHECK_STALE = ErrorDef(
    "accounts.exclusion_check_stale",
    403,
    "Rejstřík vyloučených osob vás delší dobu nemohl potvrdit; hrát lze znovu po úspěšném ověření "
    "(přihlaste se znovu).",
    "The register of excluded persons has not confirmed you for too long; play resumes after a successful check "
    "(log in again).",
)
CONSENT_REQUIRED = ErrorDef(
    "accounts.consent_required",
    400,
    "Je třeba potvrdit seznámení s herním plánem, přijmout obchodní podmínky a udělit souhlas se zpracováním "
    "osobních údajů.",
    "You must acknowledge the game plan, accept the terms and consent to personal-data processing.",
)
CONSENT_VERSION_OUTDATED = ErrorDef(
    "accounts.consent_version_outdated",
    400,
    "Přijímáte jinou než aktuální verzi dokumentu.",
    "The document version you accept is not the current one.",
)
CONSENT_KIND_INVALID = ErrorDef("accounts.consent_kind_invalid", 400, "Neznámý druh souhlasu.", "Unknown consent kind.")
CONSENT_NOT_GIVEN = ErrorDef(
    "accounts.consent_not_given", 409, "Tento souhlas není udělen.", "This consent is not given."
)
EMAIL_LINK_INVALID = ErrorDef(
    "accounts.email_link_invalid",
    400,
    "Odkaz je neplatný nebo byl nahrazen novějším.",
    "The link is invalid or was replaced by a newer one.",
)
EMAIL_LINK_EXPIRED = ErrorDef(
    "accounts.email_link_expired",
    400,
    "Platnost odkazu vypršela. Požádejte o nový.",
    "The link has expired. Please ask for a new one.",
)
REGISTRATION_INCOMPLETE = ErrorDef(
    "accounts.registration_incomplete", 409, "Registrace ještě není úplná.", "Registration is not complete yet."
)
NOT_TEMPORARY = ErrorDef(
    "accounts.not_temporary", 409, "Účet není dočasným účtem.", "The account is not a temporary account."
)
DEPENDENCY_UNAVAILABLE = ErrorDef(
    "accounts.dependency_unavailable",
    503,
    "Služba je dočasně nedostupná. Zkuste to prosím později.",
    "The service is temporarily unavailable. Please try again later.",
)
INVALID_TRANSITION = ErrorDef(
    "accounts.invalid_transition",
    409,
    "V tomto stavu účtu tuto akci nelze provést.",
    "This action is not possible in the current account state.",
)
BRANCH_LIKENESS_REQUIRED = ErrorDef(
    "accounts.likeness_not_confirmed",
    400,
    "Pracovník musí potvrdit podobu osoby s dokladem (HP §4 odst. 4 písm. b).",
    "Staff must confirm the likeness of the person to the document (GP §4(4)b).",
)

# Credentials and sessions ---------------------------------------------------------------
STAFF_NOT_A_PLAYER = ErrorDef(
    "auth.staff_account",
    403,
    "Účty zaměstnanců se do hráčského API nepřihlašují: přihlaste se do administrace (/admin/), volání API pro "
    "zaměstnance používají její relaci.",
    "Staff accounts do not sign in to the player API: sign in to the admin (/admin/); the staff API calls use its "
    "session.",
)
INVALID_CREDENTIALS = ErrorDef(
    "auth.invalid_credentials", 401, "Nesprávné uživatelské jméno nebo heslo.", "Wrong username or password."
)
LOCKED_OUT = ErrorDef(
    "auth.locked_out",
    429,
    "Příliš mnoho neúspěšných pokusů o přihlášení. Účet je dočasně zablokován.",
    "Too many failed login attempts. The account is temporarily locked.",
)
PASSWORD_CHANGE_REQUIRED = ErrorDef(
    "auth.password_change_required",
    403,
    "Nejprve si změňte první heslo (HP §4 odst. 7).",
    "Change your first password first (GP §4(7)).",
)
SESSION_EXPIRED = ErrorDef(
    "auth.session_expired",
    401,
    "Přihlášení vypršelo pro nečinnost. Přihlaste se znovu.",
    "The session timed out after inactivity. Please log in again.",
)
ACCOUNT_NOT_USABLE = ErrorDef(
    "accounts.account_not_usable", 403, "Tento účet nelze používat.", "This account cannot be used."
)
OLD_PASSWORD_WRONG = ErrorDef(
    "auth.old_password_wrong", 400, "Současné heslo není správné.", "The current password is wrong."
)
PASSWORD_INVALID = ErrorDef(
    "auth.password_invalid", 400, "Nové heslo nesplňuje požadavky.", "The new password does not meet the requirements."
)

# Account state refusals (betting_refusal / money_movement_refusal) ------------------------
NOT_REGISTERED = ErrorDef(
    "accounts.not_registered",
    403,
    "Sázet lze jen na aktivním dočasném nebo uživatelském kontě (HP §4 odst. 1).",
    "Betting needs an active temporary or player account (GP §4(1)).",
)
TEMPORARY_EXPIRED = ErrorDef(
    "accounts.temporary_expired",
    403,
    "Dočasné konto zaniklo po 30 dnech (HP §5 odst. 2 písm. a).",
    "The temporary account ended after 30 days (GP §5(2)a).",
)
SUSPENDED = ErrorDef("accounts.suspended", 403, "Konto je pozastaveno.", "The account is suspended.")
CLOSING = ErrorDef(
    "accounts.closing", 403, "Konto se ruší (HP §5 odst. 15).", "The account is being closed (GP §5(15))."
)
CLOSED = ErrorDef("accounts.closed", 403, "Konto je zrušeno.", "The account is closed.")
BARRED_INSIDER = ErrorDef(
    "accounts.barred_insider",
    403,
    "Společníci, zaměstnanci a statutární orgány provozovatele se nesmí účastnit hry (HP §3 odst. 3).",
    "Shareholders, employees and officers of the operator may not play (GP §3(3)).",
)
DUPLICATE_ACCOUNTS_FROZEN = ErrorDef(
    "accounts.duplicate_accounts_frozen",
    403,
    "Vklady a výběry jsou pozastaveny do prošetření duplicitních kont (HP §5 odst. 3).",
    "Deposits and withdrawals are suspended until the duplicate accounts are investigated (GP §5(3)).",
)
# The AML duties' refusals (the codes belong to aml, which re-exports them: aml/errors.py). Declared here because the
# stake gate (limits) and betting_refusal read the player's ``aml_restriction`` below aml. The messages never say why
# (the AML law forbids telling the client about a suspicious-transaction report).
AML_COMPLIANCE_REVIEW = ErrorDef(
    "aml.compliance_review",
    409,
    "Váš účet posuzuje oddělení compliance; do jeho rozhodnutí tuto operaci nelze provést.",
    "Your account is being reviewed by compliance; this operation is not possible until they decide.",
)
AML_COMPLIANCE_REFUSED = ErrorDef(
    "aml.compliance_refused",
    403,
    "Tuto operaci nelze provést z důvodů stanovených AML zákonem. Kontaktujte zákaznickou podporu.",
    "This operation is not possible for reasons set by the AML law. Please contact customer support.",
)
TEMPORARY_NO_WITHDRAWAL = ErrorDef(
    "accounts.temporary_no_withdrawal",
    403,
    "Z dočasného konta nelze vybírat (HP §5 odst. 2 písm. c).",
    "No withdrawals from a temporary account (GP §5(2)c).",
)

# Closure and personal data ---------------------------------------------------------------
CLOSURE_METHOD_INVALID = ErrorDef(
    "accounts.closure_method_invalid",
    400,
    "Zvolte způsob vypořádání zůstatku: převod na registrovaný platební prostředek, nebo hotově na pobočce.",
    "Choose how to settle the balance: transfer to the registered payment method, or cash at a branch.",
)
CORRECTION_FIELD_INVALID = ErrorDef(
    "accounts.correction_field_invalid",
    400,
    "Tento údaj nelze touto cestou opravit.",
    "This item cannot be corrected this way.",
)
CORRECTION_NOT_PENDING = ErrorDef(
    "accounts.correction_not_pending",
    409,
    "Žádost o opravu již byla vyřízena.",
    "The correction request was already decided.",
)
DUPLICATE_CASE_NOT_OPEN = ErrorDef(
    "accounts.duplicate_case_not_open", 409, "Případ duplicity již byl uzavřen.", "The duplicate case is closed."
)

# Notices (GP §7(7), §10(4)) ---------------------------------------------------------------------------------------
MESSAGE_INVALID = ErrorDef(
    "accounts.message_invalid",
    400,
    "Zprávu nelze odeslat: chybí druh, předmět nebo text.",
    "The message cannot be sent: its kind, subject or text is missing or invalid.",
)
MESSAGE_REFERENCE_CONFLICT = ErrorDef(
    "accounts.message_reference_conflict",
    409,
    "Zpráva s tímto odkazem už byla odeslána s jiným obsahem.",
    "A message with this reference was already sent with another kind.",
)

# The game plan and terms in force (GP §3(5), §8(1)) --------------------------------------------------------------
TERMS_NOT_ACCEPTED = ErrorDef(
    "accounts.terms_not_accepted",
    403,
    "Před další sázkou se seznamte s platným zněním herního plánu a obchodních podmínek (verze {version}) a přijměte "
    "je (HP §3 odst. 5).",
    "Before the next stake, read and accept the game plan and terms in force (version {version}) (GP §3(5)).",
)
TERMS_NOT_PUBLISHED = ErrorDef(
    "accounts.terms_not_published",
    403,
    "Sázky zatím nejsou možné: provozovatel ještě nezveřejnil platné znění herního plánu a podmínek (HP §3 odst. 5).",
    "Stakes are not possible yet: the operator has not published the game plan and terms in force (GP §3(5)).",
)
TERMS_VERSION_UNKNOWN = ErrorDef(
    "accounts.terms_version_unknown",
    400,
    "Tato verze herního plánu a podmínek nebyla zveřejněna.",
    "This version of the game plan and terms was not published.",
)
TERMS_VERSION_OUTDATED = ErrorDef(
    "accounts.terms_version_outdated",
    400,
    "Tuto verzi nelze přijmout: platí již novější (verze {current}).",
    "This version cannot be accepted: a newer one applies (version {current}).",
)
TERMS_INVALID = ErrorDef(
    "accounts.terms_invalid",
    400,
    "Nová verze potřebuje název, shrnutí změn a text v češtině i angličtině, nebo odkaz na dokument s jeho SHA-256.",
    "A new version needs a title, a summary of the changes and the text in Czech and English, or a document "
    "reference with its SHA-256.",
)
TERMS_NOTICE_TOO_SHORT = ErrorDef(
    "accounts.terms_notice_too_short",
    400,
    "Nová verze může platit nejdříve {earliest}: hráči musí být předem informováni (HP §8 odst. 1).",
    "A new version may apply at the earliest at {earliest}: players must be told in advance (GP §8(1)).",
)
TERMS_EFFECTIVE_ORDER = ErrorDef(
    "accounts.terms_effective_order",
    409,
    "Nová verze musí začít platit později než předchozí verze {previous} ({previous_effective_at}).",
    "A new version must take effect after the previous version {previous} ({previous_effective_at}).",
)

# Personal-data requests (GP §12(7)) -------------------------------------------------------------------------------
DATA_REQUEST_INVALID = ErrorDef(
    "accounts.data_request_invalid",
    400,
    "Žádost o osobní údaje je neúplná: zvolte druh (vysvětlení, blokování, likvidace) a u vysvětlení napište, "
    "co chcete vysvětlit (nejvýše 2000 znaků).",
    "The personal-data request is incomplete: choose its kind (explanation, blocking, deletion) and, for an "
    "explanation, say what to explain (at most 2,000 characters).",
)
DATA_REQUEST_ALREADY_OPEN = ErrorDef(
    "accounts.data_request_already_open",
    409,
    "Žádost tohoto druhu již vyřizujeme (nebo blokování již platí): č. {request_id}.",
    "A request of this kind is already being handled (or the blocking is already in force): no. {request_id}.",
)
DATA_REQUEST_NOT_PENDING = ErrorDef(
    "accounts.data_request_not_pending", 409, "Žádost již byla vyřízena.", "The request was already decided."
)
DATA_REQUEST_OUTCOME_INVALID = ErrorDef(
    "accounts.data_request_outcome_invalid",
    400,
    "Tento výsledek u žádosti tohoto druhu nelze zvolit.",
    "This outcome is not possible for a request of this kind.",
)
DATA_REQUEST_ANSWER_REQUIRED = ErrorDef(
    "accounts.data_request_answer_required",
    400,
    "Odpověď potřebuje text v češtině i angličtině, zamítnutí také právní důvod.",
    "The answer needs its text in Czech and English; a refusal also its legal basis.",
)
DATA_REQUEST_ANONYMISED = ErrorDef(
    "accounts.data_request_anonymised",
    409,
    "Údaje tohoto konta již byly anonymizovány; nic dalšího o osobě neuchováváme.",
    "This account's data were anonymised already; nothing more about the person is kept.",
)
