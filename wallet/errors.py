"""The wallet's refusals (code + Czech + English). Tests import these constants."""

from core.errors import ErrorDef

INVALID_AMOUNT = ErrorDef("wallet.invalid_amount", 400, "Neplatná částka.", "Invalid amount.")
CURRENCY_NOT_SUPPORTED = ErrorDef(
    "wallet.currency_not_supported",
    400,
    "Herní měnou je koruna česká (GP §7(1)).",
    "The game currency is CZK (GP §7(1)).",
)
INSUFFICIENT_FUNDS = ErrorDef(
    "wallet.insufficient_funds", 409, "Nedostatek prostředků na kontě.", "Insufficient funds in the account."
)
DEBT_OUTSTANDING = ErrorDef(
    "wallet.debt_outstanding",
    409,
    "Na kontě je neuhrazený dluh (GP §7(7)). Dokud jej neuhradíte, nelze sázet ani vybírat.",
    "The account has an unpaid debt (GP §7(7)). Until it is paid, bets and withdrawals are refused.",
)
REFERENCE_CONFLICT = ErrorDef(
    "wallet.reference_conflict",
    409,
    "Tato reference již byla použita pro jinou operaci.",
    "This reference was already used for a different operation.",
)
ACCOUNT_STATE = ErrorDef(
    "wallet.account_state",
    409,
    "Stav konta tuto operaci neumožňuje.",
    "The account's state does not allow this operation.",
)
TEMPORARY_DEPOSIT_CAP = ErrorDef(
    "wallet.temporary_deposit_cap",
    409,
    "Součet vkladů na dočasné konto nesmí překročit zákonný limit (GP §5(2)b, §5(12)).",
    "Total deposits into a temporary account may not exceed the statutory cap (GP §5(2)b, §5(12)).",
)
TEMPORARY_NO_WITHDRAWAL = ErrorDef(
    "wallet.temporary_no_withdrawal",
    409,
    "Z dočasného konta nelze vybírat vklady ani výhry (GP §5(2)c). Dokončete registraci.",
    "No withdrawal from a temporary account (GP §5(2)c). Complete your registration.",
)
WITHDRAWAL_NOT_FULL_ACCOUNT = ErrorDef(
    "wallet.withdrawal_requires_player_account",
    409,
    "Výběr je možný jen z plně registrovaného uživatelského konta.",
    "Withdrawals are possible only from a fully registered player account.",
)
METHOD_NOT_VERIFIED = ErrorDef(
    "wallet.method_not_verified",
    409,
    "Výběr je možný jen na registrovaný platební prostředek s ověřeným vlastnictvím (GP §5(6), §5(8)).",
    "Withdrawals go only to a registered payment method whose ownership is verified (GP §5(6), §5(8)).",
)
METHOD_NOT_USABLE = ErrorDef(
    "wallet.method_not_usable",
    409,
    "Tento platební prostředek nelze použít (odmítnut, zrušen nebo odebrán).",
    "This payment method cannot be used (refused, cancelled or removed).",
)
METHOD_NOT_FOR_WITHDRAWAL = ErrorDef(
    "wallet.method_not_for_withdrawal",
    409,
    "Na tento druh platebního prostředku nelze vybírat (GP §8(6)).",
    "Withdrawals to this kind of payment method are not offered (GP §8(6)).",
)
METHOD_NOT_FOR_DEPOSIT = ErrorDef(
    "wallet.method_not_for_deposit",
    409,
    "Tímto druhem platebního prostředku nelze vkládat (GP §8(6)).",
    "Deposits by this kind of payment method are not offered (GP §8(6)).",
)
METHOD_INVALID = ErrorDef(
    "wallet.method_invalid",
    400,
    "Údaje platebního prostředku nejsou platné.",
    "The payment method's details are not valid.",
)
BANK_NOT_CZECH = ErrorDef(
    "wallet.bank_not_czech",
    400,
    "Bankovní účet musí být vedený u banky se sídlem v České republice (GP §5(7)).",
    "The bank account must be held at a bank seated in the Czech Republic (GP §5(7)).",
)
METHOD_TAKEN = ErrorDef(
    "wallet.method_already_registered",
    409,
    "Tento platební prostředek je již registrován.",
    "This payment method is already registered.",
)
BELOW_METHOD_MIN = ErrorDef(
    "wallet.below_method_minimum",
    409,
    "Částka je nižší než minimum pro tento prostředek (GP §8(6)).",
    "The amount is below this method's minimum (GP §8(6)).",
)
ABOVE_METHOD_MAX = ErrorDef(
    "wallet.above_method_maximum",
    409,
    "Částka je vyšší než maximum pro tento prostředek (GP §8(6)).",
    "The amount is above this method's maximum (GP §8(6)).",
)
BRANCH_CASH_24H = ErrorDef(
    "wallet.branch_cash_24h_limit",
    409,
    "Hotovostní vklady a výběry na pobočce jsou omezeny na 5 000 Kč za 24 hodin (GP §5(12)).",
    "Cash deposits and withdrawals at a branch are limited per 24 hours (GP §5(12)).",
)
DEPOSIT_NOT_FOUND = ErrorDef("wallet.deposit_not_found", 404, "Vklad nebyl nalezen.", "Deposit not found.")
WITHDRAWAL_STATE = ErrorDef(
    "wallet.withdrawal_state", 409, "Výběr je v jiném stavu.", "The withdrawal is not in a state that allows this."
)
DEPOSIT_STATE = ErrorDef(
    "wallet.deposit_state", 409, "Vklad je v jiném stavu.", "The deposit is not in a state that allows this."
)
PAYOUT_STATE = ErrorDef(
    "wallet.payout_state", 409, "Výplata je v jiném stavu.", "The payout is not in a state that allows this."
)
HOLD_STATE = ErrorDef(
    "wallet.hold_state", 409, "Zadržená výhra je v jiném stavu.", "The held win is not in a state that allows this."
)
HOLD_INVALID = ErrorDef(
    "wallet.hold_invalid",
    400,
    "Zadržení výhry potřebuje důvod (regularity nebo aml) a poznámku (GP §10(3)).",
    "A win hold needs a reason (regularity or aml) and a note (GP §10(3)).",
)
WIN_NOT_FOUND = ErrorDef(
    "wallet.win_not_found",
    404,
    "Připsaná výhra s touto referencí u tohoto hráče není.",
    "This player has no credited win with this reference.",
)
HOLD_TOO_LATE = ErrorDef(
    "wallet.hold_too_late",
    409,
    "Pro pochybnost o řádnosti sázky lze výplatu výhry pozdržet nejdéle do konce 60denní lhůty od jejího připsání "
    "(GP §10(3)); ta uplynula.",
    "A doubt about a bet's regularity can hold a win's payout only until the 60-day term from its crediting ends "
    "(GP §10(3)); that term has passed.",
)
HOLD_EXISTS = ErrorDef(
    "wallet.hold_exists",
    409,
    "Tato výhra již byla zadržena z jiného důvodu.",
    "This win was already held for another reason.",
)
NOTHING_TO_HOLD = ErrorDef(
    "wallet.nothing_to_hold",
    409,
    "Z výhry již na kontě nic nezbývá (byla prosazena nebo vyplacena); není co zadržet.",
    "Nothing of the win is left in the account (staked or paid out); there is nothing to hold.",
)
DOCUMENT_STATE = ErrorDef(
    "wallet.document_state", 409, "Doklad již byl posouzen.", "The document was already reviewed."
)
DOCUMENT_TOO_LARGE = ErrorDef("wallet.document_too_large", 400, "Soubor je příliš velký.", "The file is too large.")
DOCUMENT_TYPE = ErrorDef(
    "wallet.document_type",
    400,
    "Povolené jsou jen soubory PDF, JPEG a PNG.",
    "Only PDF, JPEG and PNG files are accepted.",
)
BAD_SIGNATURE = ErrorDef("wallet.callback_bad_signature", 401, "Neplatný podpis zprávy.", "Invalid callback signature.")
BAD_CALLBACK = ErrorDef("wallet.callback_invalid", 400, "Neplatná zpráva poskytovatele.", "Invalid provider callback.")
REPLAY_MISMATCH = ErrorDef(
    "wallet.callback_replay_mismatch",
    409,
    "Zpráva s tímto identifikátorem již byla přijata s jiným obsahem.",
    "An event with this id was already received with a different body.",
)
UNKNOWN_PROVIDER = ErrorDef("wallet.unknown_provider", 404, "Neznámý poskytovatel plateb.", "Unknown payment provider.")
SANDBOX_DISABLED = ErrorDef(
    "wallet.sandbox_disabled",
    404,
    "Testovací platební brána není zapnutá.",
    "The sandbox payment provider is not enabled.",
)
CONVERSION_STATE = ErrorDef(
    "wallet.conversion_state",
    409,
    "Převod dočasného konta nelze provést.",
    "The temporary account cannot be converted.",
)
NOT_AN_OPERATOR_ACCOUNT = ErrorDef(
    "wallet.not_operator_account",
    400,
    "Převod je možný jen mezi účty provozovatele (GP §5(5)).",
    "Transfers are possible only between operator accounts (GP §5(5)).",
)
NOTHING_TO_PAY = ErrorDef("wallet.nothing_to_pay", 409, "Není co vyplatit.", "There is nothing to pay out.")
METHOD_DEPOSITS_BLOCKED = ErrorDef(
    "wallet.method_deposits_blocked",
    409,
    "Z tohoto platebního prostředku přišla platba od jiné osoby; byla vrácena a další vklady z něj nejsou možné, "
    "dokud vlastnictví neposoudí provozovatel (GP §5(6)).",
    "A payment from another person came through this payment method; it was returned, and no deposit from it is "
    "possible until the operator has decided on its ownership (GP §5(6)).",
)
METHOD_NOT_BLOCKED = ErrorDef(
    "wallet.method_not_blocked",
    409,
    "Platební prostředek není blokován pro vklady.",
    "The payment method is not blocked for deposits.",
)
METHOD_TERM_PASSED = ErrorDef(
    "wallet.payment_method_term_passed",
    409,
    "Lhůta 30 dnů k registraci nového platebního prostředku uplynula (GP §5(11)). Vklady jsou možné až po ověření "
    "platebního prostředku; vlastnictví doložte dokladem (GP §5(8)b).",
    "The 30-day term to register a new payment method has passed (GP §5(11)). Deposits are possible again once a "
    "payment method is verified; prove its ownership with a document (GP §5(8)b).",
)
BANK_FILE_INVALID = ErrorDef(
    "wallet.bank_file_invalid", 400, "Soubor banky není platný: {reason}", "The bank file is not valid: {reason}"
)
BANK_FILE_UNSUPPORTED = ErrorDef(
    "wallet.bank_file_unsupported",
    400,
    "Tento formát souboru banky nepodporujeme; podporované jsou výpisy camt.053 a avíza camt.054 ve verzích 001.02 "
    "a 001.08.",
    "This bank file format is not supported; supported are camt.053 statements and camt.054 notifications, "
    "versions 001.02 and 001.08.",
)
BANK_FILE_TOO_LARGE = ErrorDef(
    "wallet.bank_file_too_large", 400, "Soubor banky je příliš velký.", "The bank file is too large."
)
BANK_STATEMENT_WRONG_ACCOUNT = ErrorDef(
    "wallet.bank_statement_wrong_account",
    409,
    "Výpis není z účtu provozovatele (WALLET_BANK_IBAN); nic nebylo importováno.",
    "The statement is not of the operator's account (WALLET_BANK_IBAN); nothing was imported.",
)
BANK_NOT_CONFIGURED = ErrorDef(
    "wallet.bank_not_configured",
    409,
    "Bankovní účet provozovatele není nastaven (WALLET_BANK_IBAN, WALLET_BANK_ACCOUNT_NAME).",
    "The operator's bank account is not configured (WALLET_BANK_IBAN, WALLET_BANK_ACCOUNT_NAME).",
)
BANK_ENTRY_STATE = ErrorDef(
    "wallet.bank_entry_state",
    409,
    "Pohyb na účtu je v jiném stavu.",
    "The bank entry is not in a state that allows this.",
)
BANK_CREDIT_NOT_FROM_METHOD = ErrorDef(
    "wallet.bank_credit_not_from_method",
    409,
    "Účet plátce není registrovaným platebním prostředkem tohoto hráče (GP §5(6)); platbu vraťte plátci.",
    "The payer's account is not a registered payment method of this player (GP §5(6)); return the payment "
    "to the payer instead.",
)
BANK_CREDIT_NO_ACCOUNT = ErrorDef(
    "wallet.bank_credit_no_account",
    409,
    "Výpis neuvádí účet plátce; platbu nelze vrátit převodem.",
    "The statement names no payer account; the payment cannot be returned by transfer.",
)
BANK_DEPOSIT_NOT_ASSIGNABLE = ErrorDef(
    "wallet.bank_deposit_not_assignable",
    409,
    "K tomuto vkladu nelze platbu přiřadit (není to bankovní převod tohoto hráče, nebo je již vypořádán).",
    "The payment cannot be assigned to this deposit (not a bank transfer of this player, or already settled).",
)
PAYMENT_ORDER_FILE_ERASED = ErrorDef(
    "wallet.payment_order_file_erased",
    410,
    "Soubor platebních příkazů byl po uplynutí lhůty uchování vymazán; zůstaly jeho údaje (počet, součet, otisk).",
    "The payment-order file was erased after its retention period; its figures (count, sum, hash) remain.",
)
