"""Errors of the complaints app (reklamace, win claims). Codes are stable; tests import these constants."""

from __future__ import annotations

from typing import Any

from core.errors import DomainError, ErrorDef


def error(err: ErrorDef, **details: Any) -> DomainError:
    """The DomainError of ``err`` with its messages filled from ``details`` (``{round_id}`` ...);
    core.errors.ErrorDef does the filling, this name stays for the callers."""
    return err(**details)


COMPLAINT_NOT_FOUND = ErrorDef("complaints.not_found", 404, "Reklamace nebyla nalezena.", "Complaint not found.")

# Filing (GP §11(4)) ------------------------------------------------------------------------------------------------
ROUND_NOT_YOURS = ErrorDef(
    "complaints.round_not_yours",
    422,
    "Herní kolo {round_id} nepatří k vašemu účtu nebo neexistuje. Reklamace nebyla uložena.",
    "Game round {round_id} does not belong to your account or does not exist. The complaint was not stored.",
)
TRANSACTION_NOT_YOURS = ErrorDef(
    "complaints.transaction_not_yours",
    422,
    "Transakce {transaction_id} nepatří k vašemu účtu nebo neexistuje. Reklamace nebyla uložena.",
    "Transaction {transaction_id} does not belong to your account or does not exist. The complaint was not stored.",
)
EVENT_TIME_REQUIRED = ErrorDef(
    "complaints.event_time_required",
    422,
    "Uveďte čas sázky nebo události, které se reklamace týká, nebo označte konkrétní herní kolo či transakci "
    "(herní plán čl. 11 odst. 4).",
    "State the time of the bet or event the complaint concerns, or point to a specific game round or transaction "
    "(game plan §11(4)).",
)
EVENT_IN_FUTURE = ErrorDef(
    "complaints.event_in_future",
    422,
    "Čas události nemůže být pozdější než datum přijetí reklamace.",
    "The time of the event cannot be later than the date the complaint was received.",
)
RECEIVED_IN_FUTURE = ErrorDef(
    "complaints.received_in_future",
    422,
    "Datum přijetí nemůže být v budoucnosti.",
    "The date received cannot be in the future.",
)
CHANNEL_INVALID = ErrorDef(
    "complaints.channel_invalid",
    422,
    "Reklamaci přijatou e-mailem, poštou nebo na pobočce zapisuje jen obsluha.",
    "Only staff can enter a complaint received by e-mail, by post or at a branch.",
)
REASON_INVALID = ErrorDef(
    "complaints.reason_invalid", 422, "Neplatný důvod reklamace: {reason}.", "Invalid complaint reason: {reason}."
)
WIN_CLAIM_NEEDS_SETTLED_ROUND = ErrorDef(
    "complaints.win_claim_round_not_settled",
    422,
    "Herní kolo {round_id} ještě nebylo vypořádáno; nárok na výhru lze uplatnit po jeho vypořádání.",
    "Game round {round_id} is not settled yet; a win can be claimed once it is settled.",
)
TOO_MANY_ITEMS = ErrorDef(
    "complaints.too_many_items",
    422,
    "Reklamace může označit nejvýše {limit} herních kol a transakcí.",
    "A complaint can point to at most {limit} game rounds and transactions.",
)

# Attachments -------------------------------------------------------------------------------------------------------
ATTACHMENT_TOO_LARGE = ErrorDef(
    "complaints.attachment_too_large",
    422,
    "Příloha {name} je větší než {limit_mb} MB.",
    "Attachment {name} is larger than {limit_mb} MB.",
)
ATTACHMENT_TYPE = ErrorDef(
    "complaints.attachment_type",
    422,
    "Příloha {name} není PDF, PNG ani JPEG (rozhoduje obsah souboru, ne jeho přípona).",
    "Attachment {name} is not a PDF, PNG or JPEG (the file's content decides, not its extension).",
)
ATTACHMENT_EXTENSION = ErrorDef(
    "complaints.attachment_extension",
    422,
    "Přípona přílohy {name} neodpovídá jejímu obsahu ({detected}).",
    "The extension of attachment {name} does not match its content ({detected}).",
)
ATTACHMENT_EMPTY = ErrorDef(
    "complaints.attachment_empty", 422, "Příloha {name} je prázdná.", "Attachment {name} is empty."
)
TOO_MANY_ATTACHMENTS = ErrorDef(
    "complaints.too_many_attachments",
    422,
    "K reklamaci lze připojit nejvýše {limit} příloh.",
    "At most {limit} attachments can be added to a complaint.",
)
COMPLAINT_CLOSED = ErrorDef(
    "complaints.closed",
    409,
    "Reklamace je již vyřízena; doplnění už nelze přidat. Můžete podat novou reklamaci.",
    "The complaint is already resolved; nothing more can be added. You can file a new one.",
)

# Workflow ----------------------------------------------------------------------------------------------------------
ILLEGAL_TRANSITION = ErrorDef(
    "complaints.illegal_transition",
    409,
    "Reklamaci ve stavu {current} nelze převést do stavu {target}.",
    "A complaint in status {current} cannot move to {target}.",
)
ALREADY_RESOLVED = ErrorDef(
    "complaints.already_resolved", 409, "Reklamace je již vyřízena.", "The complaint is already resolved."
)
ASSIGNEE_NOT_STAFF = ErrorDef(
    "complaints.assignee_not_staff",
    422,
    "Reklamaci lze přidělit jen aktivnímu pracovníkovi obsluhy.",
    "A complaint can only be assigned to an active staff member.",
)
OUTCOME_INVALID = ErrorDef(
    "complaints.outcome_invalid", 422, "Neplatný výsledek vyřízení: {outcome}.", "Invalid outcome: {outcome}."
)
ANSWER_REQUIRED = ErrorDef(
    "complaints.answer_required",
    422,
    "Vyřízení musí obsahovat odůvodnění pro hráče (česky nebo anglicky).",
    "A resolution must carry an explanation for the player (in Czech or English).",
)
REMEDY_NOT_ALLOWED = ErrorDef(
    "complaints.remedy_not_allowed",
    422,
    "Peněžní náprava je možná jen u uznané nebo částečně uznané reklamace.",
    "A money remedy is only possible for an upheld or partly upheld complaint.",
)
REMEDY_AMOUNT_INVALID = ErrorDef(
    "complaints.remedy_amount_invalid",
    422,
    "Částka nápravy musí být kladná a v měně účtu ({currency}).",
    "The remedy amount must be positive and in the account currency ({currency}).",
)
NOTE_EMPTY = ErrorDef("complaints.note_empty", 422, "Text nesmí být prázdný.", "The text must not be empty.")
REPORT_MONTH_INVALID = ErrorDef(
    "complaints.report_month_invalid", 400, "Měsíc zadejte ve tvaru RRRR-MM.", "Give the month as YYYY-MM."
)
