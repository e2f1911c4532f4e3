"""Errors of the games platform (rounds, catalogue, play money, QA hooks).

Engine errors (:class:`games.engine.BetError`, :class:`games.engine.ActionError`) keep their own stable codes
(``game.invalid_bet``, ``game.roulette.invalid_numbers`` ...) and messages; :func:`from_engine` turns one into a
:class:`core.errors.DomainError` with that code, the engine's Czech and English messages and its details.
"""

from __future__ import annotations

from core.errors import DomainError, ErrorDef
from core.idempotency import KEY_CONFLICT
from games.engine import ActionError, EngineError

# Catalogue ---------------------------------------------------------------------------------------------------------
GAME_NOT_FOUND = ErrorDef("game.not_found", 404, "Hra nebyla nalezena.", "Game not found.")
GAME_DISABLED = ErrorDef(
    "game.disabled", 409, "Tato hra je dočasně nedostupná.", "This game is temporarily unavailable."
)
# GP §1, §2 and §13(6): only the games of the plan the Ministry of Finance approved are offered for money.
GAME_NOT_APPROVED = ErrorDef(
    "game.not_approved",
    409,
    "Tato verze hry není schválena v herním plánu, proto ji nelze hrát (herní plán čl. 13 odst. 6).",
    "This game version is not approved in the game plan, so it cannot be played (game plan §13(6)).",
)
APPROVAL_INVALID = ErrorDef(
    "game.approval_invalid",
    422,
    "Schválení hry musí uvést verzi herního plánu a číslo jednací rozhodnutí MF.",
    "An approval must give the game plan version and the Ministry's reference.",
)
APPROVAL_TRANSITION = ErrorDef(
    "game.approval_transition",
    409,
    "Stav schválení verze hry nelze takto změnit ({current} -> {target}).",
    "The approval state of this game version cannot change so ({current} -> {target}).",
)
GAME_UNAVAILABLE = ErrorDef(
    "game.engine_unavailable",
    503,
    "Verze hry, na které kolo běží, není k dispozici. Kontaktujte podporu.",
    "The game version this round runs on is not available. Please contact support.",
)

# Rounds ------------------------------------------------------------------------------------------------------------
ROUND_NOT_FOUND = ErrorDef("game.round_not_found", 404, "Herní kolo nebylo nalezeno.", "Game round not found.")
# GP §10(1)-(2): carried bonuses are paid out with the balance, never while a round still holds them.
CARRIED_ROUND_OPEN = ErrorDef(
    "game.carried_round_open",
    409,
    "Rozehrané kolo ještě drží přenesené bonusy; vyplatíme je po jeho dokončení.",
    "A round in progress still holds the carried bonuses; they are paid out once it ends.",
)
ROUND_IN_PROGRESS = ErrorDef(
    "game.round_in_progress",
    409,
    "Máte rozehrané kolo. Dokončete ho, než vsadíte znovu (herní plán čl. 7 odst. 6).",
    "You have a round in progress. Finish it before placing another bet (game plan §7(6)).",
)
ROUND_TOO_SOON = ErrorDef(
    "game.round_too_soon",
    429,
    "Herní kolo nesmí trvat kratší dobu než 2 sekundy (herní plán čl. 7 odst. 9). Zkuste to za okamžik.",
    "A game round may not last less than 2 seconds (game plan §7(9)). Try again in a moment.",
)
ROUND_NOT_IN_PROGRESS = ErrorDef(
    "game.round_not_in_progress", 409, "Toto herní kolo již skončilo.", "This game round has already ended."
)
ROUND_NOT_REFUNDABLE = ErrorDef(
    "game.round_not_refundable",
    409,
    "Vrátit vklad lze jen u rozehraného kola.",
    "Only a round in progress can have its stake refunded.",
)
# GP §3(6): a settled bet placed on order or by proxy may be declared void (staff).
ROUND_NOT_SETTLED = ErrorDef(
    "game.round_not_settled",
    409,
    "Zrušit lze jen vyhodnocenou sázku (dokončené kolo o peníze).",
    "Only a settled bet (a finished real-money round) can be declared void.",
)
ROUND_ALREADY_VOIDED = ErrorDef(
    "game.round_already_voided",
    409,
    "Toto herní kolo již bylo zrušeno nebo vráceno.",
    "This game round has already been voided or refunded.",
)
VOID_REASON_REQUIRED = ErrorDef(
    "game.void_reason_required",
    422,
    "Uveďte důvod zrušení sázky (herní plán čl. 3 odst. 6).",
    "Give the reason for declaring the bet void (game plan §3(6)).",
)
IDEMPOTENCY_KEY_INVALID = ErrorDef(
    "game.idempotency_key_invalid",
    400,
    "Neplatný klíč Idempotency-Key (1–128 znaků).",
    "Invalid Idempotency-Key (1-128 printable characters).",
)
# One code for one meaning: the same as every other idempotent endpoint's conflict.
IDEMPOTENCY_CONFLICT = KEY_CONFLICT
INVALID_BET = ErrorDef("game.invalid_bet", 422, "Neplatná sázka.", "Invalid bet.")
INVALID_ACTION = ErrorDef(
    "game.invalid_action", 422, "Tuto akci nyní nelze provést.", "This action is not possible now."
)
PLAY_THROUGH_CHOICE = ErrorDef(
    "game.play_through_choice_pending",
    409,
    "Kolo čeká na vaši volbu: zvolte jednu z nabízených možností.",
    "The round waits for your choice: send one of the options it offers.",
)

# Rounds of remote games (games/services/remote.py) -----------------------------------------------------
REMOTE_GAME_INVALID = ErrorDef(
    "game.remote_game_invalid",
    404,
    "Tato hra nepatří tomuto dodavateli her.",
    "This game is not one of this provider's games.",
)
VOID_BET_ARCHIVED = ErrorDef(
    "game.void_bet_archived",
    409,
    "Sázku kola {round_id} nelze prohlásit za neplatnou: záznamy jejího měsíce jsou archivovány a jejich součty "
    "převedeny; řešte ji opravnou platbou (reklamace).",
    "The bet of round {round_id} cannot be declared void: its month's records are archived and their totals carried "
    "forward; remedy it with a corrective payment (complaint).",
)
REMOTE_GAME_FIGURES = ErrorDef(
    "game.remote_game_figures",
    400,
    "Hru nelze nabídnout s těmito deklarovanými hodnotami: {reason}.",
    "The game cannot be offered with these declared figures: {reason}.",
)
REMOTE_BET_EXISTS = ErrorDef(
    "game.remote_bet_exists",
    409,
    "V tomto kole už sázka je; kolo vzdálené hry má jednu sázku.",
    "This round already has its bet; a round of a remote game takes one bet.",
)
REMOTE_ROUND_CLOSED = ErrorDef(
    "game.remote_round_closed", 409, "Toto herní kolo je již vyhodnoceno.", "This game round is already settled."
)
REMOTE_ROUND_VOIDED = ErrorDef(
    "game.remote_round_voided",
    409,
    "Sázka tohoto kola byla zrušena a vklad vrácen.",
    "The bet of this round was cancelled and its stake returned.",
)
REMOTE_ROLLBACK_AFTER_WIN = ErrorDef(
    "game.remote_rollback_after_win",
    409,
    "Sázku nelze zrušit: kolo už má výhru nebo je vyhodnoceno.",
    "The bet cannot be cancelled: its round has a win or is settled.",
)
REMOTE_INVALID_AMOUNT = ErrorDef("game.remote_invalid_amount", 400, "Neplatná částka.", "Invalid amount.")
REMOTE_INVALID_ROUND_ID = ErrorDef(
    "game.remote_invalid_round_id",
    400,
    "Neplatný identifikátor kola dodavatele: musí mít 1 až {max_length} znaků.",
    "Invalid provider round id: it must have 1 to {max_length} characters.",
)
REMOTE_ROUND_NO_ENGINE = ErrorDef(
    "game.remote_round_no_replay",
    409,
    "Kolo vzdálené hry nemá tahy generátoru této platformy; jeho záznamem jsou transakce dodavatele.",
    "A round of a remote game has no draws of this platform to replay; its record is the provider's transactions.",
)

# QA forced outcomes ------------------------------------------------------------------------------------------------
QA_FORCED_DISABLED = ErrorDef(
    "game.qa_forced_outcomes_disabled",
    403,
    "Vynucené výsledky (QA) nejsou na tomto prostředí povoleny.",
    "Forced outcomes (QA) are not enabled on this environment.",
)
QA_FORCED_REAL_MONEY = ErrorDef(
    "game.qa_forced_outcomes_real_money",
    403,
    "Vynucené výsledky (QA) jsou možné jen ve hře o herní peníze.",
    "Forced outcomes (QA) are only possible in play-money mode.",
)
QA_FORCED_INVALID = ErrorDef(
    "game.qa_forced_outcomes_invalid",
    422,
    "Vynucené tahy neodpovídají tomu, co hra potřebuje.",
    "The forced draws do not fit what the game draws.",
)


def from_engine(exc: EngineError) -> DomainError:
    """A DomainError carrying an engine BetError/ActionError's own code, messages and details (status 422)."""
    fallback = INVALID_ACTION if isinstance(exc, ActionError) else INVALID_BET
    code = exc.code or fallback.code
    message_en = exc.message_en or fallback.message_en
    message_cs = exc.message_cs or fallback.message_cs
    return DomainError(code, message_cs, message_en, status=422, details=dict(exc.details or {}))
