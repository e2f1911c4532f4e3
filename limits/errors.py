"""Every refusal of the limits app, with a stable code (tests import these constants).

Details of a limit refusal always name: ``limit`` (which one), ``value`` (its value),
``used`` (what is used of it), and ``resets_at`` or ``break_ends_at`` (when it frees up),
plus ``max_stake_now`` where a game could lower the stake instead.
"""

from core.errors import ErrorDef

# Stake per round (GP §8(1)-(2)) -------------------------------------------------------
STAKE_BELOW_MINIMUM = ErrorDef(
    "limits.stake_below_minimum", 422, "Sázka je nižší než minimální sázka.", "The stake is below the minimum stake."
)
STAKE_NOT_IN_STEPS = ErrorDef(
    "limits.stake_not_in_steps",
    422,
    "Sázku lze zvyšovat jen po stanovených krocích.",
    "The stake must be a multiple of the stake step.",
)
STAKE_ABOVE_MAXIMUM = ErrorDef(
    "limits.stake_above_maximum",
    422,
    "Sázka překračuje maximální sázku na jednu hru.",
    "The stake exceeds the maximum stake per round.",
)
# GP §7(6) -----------------------------------------------------------------------------
ROUND_IN_PROGRESS = ErrorDef(
    "limits.round_in_progress",
    409,
    "Předchozí hra ještě nebyla vypořádána; další sázku nelze podat.",
    "The previous round is not settled yet; no other stake can be placed.",
)
# GP §7(4)-(5) -------------------------------------------------------------------------
BREAK_REQUIRED = ErrorDef(
    "limits.break_required",
    403,
    "Po 120 minutách hry je povinná přestávka nejméně 15 minut.",
    "After 120 minutes of play a break of at least 15 minutes is required.",
)
# GP §8(5), ZHH §53 --------------------------------------------------------------------
HOURLY_LOSS_EXCEEDED = ErrorDef(
    "limits.hourly_loss_exceeded",
    403,
    "Sázka by mohla překročit maximální hodinovou prohru.",
    "The stake could exceed the maximum hourly loss.",
)
# Self-limits GP §6(6) -----------------------------------------------------------------
DAILY_STAKE_EXCEEDED = ErrorDef(
    "limits.daily_stake_exceeded",
    403,
    "Sázka by překročila váš denní limit sázek.",
    "The stake would exceed your daily stake limit.",
)
MONTHLY_STAKE_EXCEEDED = ErrorDef(
    "limits.monthly_stake_exceeded",
    403,
    "Sázka by překročila váš měsíční limit sázek.",
    "The stake would exceed your monthly stake limit.",
)
DAILY_LOSS_EXCEEDED = ErrorDef(
    "limits.daily_loss_exceeded",
    403,
    "Sázka by mohla překročit váš denní limit čisté prohry.",
    "The stake could exceed your daily net loss limit.",
)
MONTHLY_LOSS_EXCEEDED = ErrorDef(
    "limits.monthly_loss_exceeded",
    403,
    "Sázka by mohla překročit váš měsíční limit čisté prohry.",
    "The stake could exceed your monthly net loss limit.",
)
MONTHLY_LOGINS_EXCEEDED = ErrorDef(
    "limits.monthly_logins_exceeded",
    403,
    "Vyčerpali jste svůj měsíční limit počtu přihlášení.",
    "You have used up your monthly login limit.",
)
DAILY_TIME_EXCEEDED = ErrorDef(
    "limits.daily_time_exceeded",
    403,
    "Vyčerpali jste svůj denní limit doby přihlášení.",
    "You have used up your daily logged-in time limit.",
)
PAUSE_AFTER_LOGOUT = ErrorDef(
    "limits.pause_after_logout",
    403,
    "Běží vámi nastavená přestávka po odhlášení.",
    "The pause after logout you set is still running.",
)
# Exclusion ----------------------------------------------------------------------------
PANIC_EXCLUSION = ErrorDef(
    "limits.panic_exclusion",
    403,
    "Jste vyloučeni ze hry na 48 hodin (panic button).",
    "You are excluded from gambling for 48 hours (panic button).",
)
SELF_LISTED = ErrorDef(
    "limits.self_listed",
    403,
    "Požádali jste o zápis do rejstříku vyloučených osob; hra není možná.",
    "You asked to be listed in the register of excluded persons; you cannot play.",
)
# Not raised any more (a listed person is refused by accounts' betting_refusal); kept so the code stays known.
EXCLUDED = ErrorDef(
    "limits.excluded",
    403,
    "Jste zapsáni v rejstříku fyzických osob vyloučených z účasti na hazardních hrách.",
    "You are listed in the register of persons excluded from gambling.",
)
# Setting self-limits ------------------------------------------------------------------
UNKNOWN_KIND = ErrorDef("limits.unknown_kind", 400, "Neznámý druh hazardní hry.", "Unknown kind of gambling.")
UNKNOWN_LIMIT = ErrorDef("limits.unknown_limit", 400, "Neznámý druh limitu.", "Unknown kind of limit.")
INVALID_LIMIT_VALUE = ErrorDef("limits.invalid_limit_value", 400, "Neplatná hodnota limitu.", "Invalid limit value.")
MILDER_THAN_AT_CLOSING = ErrorDef(
    "limits.milder_than_at_closing",
    422,
    "Do 7 dnů od zrušení předchozího konta nelze nastavit mírnější limit, než jaký platil při jeho zrušení.",
    "Within 7 days of closing your previous account you cannot set a milder limit than the one in force at closing.",
)
SELF_LISTING_TOO_SHORT = ErrorDef(
    "limits.self_listing_too_short",
    400,
    "Zápis do rejstříku vyloučených osob je nejméně na 1 rok.",
    "Listing in the register of excluded persons lasts at least 1 year.",
)
# Play statistics (GP §13(4)) ------------------------------------------------------------
INVALID_DATE = ErrorDef(
    "limits.invalid_date",
    400,
    "Datum musí mít tvar RRRR-MM-DD (například 2025-05-31).",
    "The date must be written as YYYY-MM-DD (for example 2025-05-31).",
)
INVALID_PERIOD = ErrorDef(
    "limits.invalid_period",
    400,
    "Období musí začínat nejpozději v den, kdy končí, a může mít nejvýše {max_days} dní.",
    "The period must not start after it ends and may be at most {max_days} days long.",
)
