"""Ismael Beiro's definition as data (version 1): bets, both games' symbols, reel strips, paytables, ladders,
minigames, the fixed probabilities that replace the seed's "accelerations", and the declared figures.

Where each figure comes from (the seed's text or our design, because the seed's pictures are missing) is in
``docs/games/ismael_beiro.md``. Amounts: prizes are multiples of the stake of the bet they belong to (integers),
bonuses are counted one by one (a bonus is worth ``BONUS_VALUE`` haléř when a prize is converted into bonuses).
"""

from __future__ import annotations

from typing import Any

# --- lower game symbols -------------------------------------------------------------------------------------------
SEVEN, BAR, BELL, MELON, PLUM, LEMON, ORANGE, CHERRY = (
    "SEVEN",
    "BAR",
    "BELL",
    "MELON",
    "PLUM",
    "LEMON",
    "ORANGE",
    "CHERRY",
)
BONUS, CONFESSIONAL, WILD = "BONUS", "CONFESSIONAL", "WILD"
LOWER_SYMBOLS = [SEVEN, BAR, BELL, MELON, PLUM, LEMON, ORANGE, CHERRY, BONUS, CONFESSIONAL, WILD]

# 3 reels x 16 symbols; the centre line is the only prize line (seed 2.2). WILD only on the left and right reels
# (seed 2.3). A nudge moves a reel one symbol down: the symbol above the line lands on it.
# @@LOWER STRIPS@@ (design: docs/games/ismael_beiro.md)
LOWER_STRIPS: list[list[str]] = [
    [
        CHERRY,
        LEMON,
        SEVEN,
        ORANGE,
        BONUS,
        PLUM,
        CHERRY,
        BELL,
        WILD,
        LEMON,
        MELON,
        ORANGE,
        CONFESSIONAL,
        CHERRY,
        BAR,
        PLUM,
    ],
    [
        LEMON,
        CHERRY,
        BELL,
        ORANGE,
        PLUM,
        SEVEN,
        MELON,
        BONUS,
        LEMON,
        CHERRY,
        BELL,
        ORANGE,
        CONFESSIONAL,
        PLUM,
        MELON,
        BAR,
    ],
    [
        ORANGE,
        CHERRY,
        PLUM,
        BAR,
        LEMON,
        WILD,
        CHERRY,
        MELON,
        BONUS,
        ORANGE,
        SEVEN,
        CHERRY,
        PLUM,
        CONFESSIONAL,
        LEMON,
        BELL,
    ],
]
# Strip positions that carry the vertical-lines mark (seed 2.6): each marked symbol on the centre line adds 1.
LOWER_VL_MARKS: list[list[int]] = [[1, 10], [4, 14], [2, 9]]
# @@END LOWER STRIPS@@

# Three of a kind on the centre line (WILD substitutes on the left and right reels), x the stake.
LOWER_PAYS: dict[str, int] = {SEVEN: 50, BAR: 25, BELL: 15, MELON: 10, PLUM: 6, LEMON: 4, ORANGE: 3, CHERRY: 2}
# 1, 2 or 3 BONUS symbols on the centre line pay bonuses: upper games at the round's bet (x its bonus price).
BONUS_PAYS: dict[int, int] = {1: 1, 2: 3, 3: 10}

# --- the ladders of the lower game (seed 2.8) ---------------------------------------------------------------------
# The payout scale: every cash prize of the lower game and its Confessional, x the stake, ascending.
SCALE: list[int] = [2, 3, 4, 6, 10, 15, 25, 50, 100, 200, 500, 1000]
THREE_LEMONS = LOWER_PAYS[LEMON]  # above this prize the Bonus-Raise becomes the seesaw; direct prizes are collected
BLUE = (CHERRY, LEMON)  # their prizes may be risked in the Bonus-Raise (up or bonuses)
YELLOW = (ORANGE,)  # its prize may be risked in the Raise-Nothing (up or nothing)

# --- the upper game -----------------------------------------------------------------------------------------------
SEVEN_RED, SEVEN_BLUE, SEVEN_GREEN = "SEVEN_RED", "SEVEN_BLUE", "SEVEN_GREEN"
CAMEL, COCONUT, CHEF_HAT = "CAMEL", "COCONUT", "CHEF_HAT"
U_BELL, U_LEMON, U_CHERRY = "BELL", "LEMON", "CHERRY"
CAMERA, CLAPPER = "CAMERA", "CLAPPER"
SEVENS = (SEVEN_RED, SEVEN_BLUE, SEVEN_GREEN)
MINIGAME_SYMBOLS = (CAMEL, COCONUT, CHEF_HAT)
UPPER_SYMBOLS = [
    SEVEN_RED,
    SEVEN_BLUE,
    SEVEN_GREEN,
    CAMEL,
    COCONUT,
    CHEF_HAT,
    U_BELL,
    U_LEMON,
    U_CHERRY,
    CAMERA,
    CLAPPER,
]

# 3 reels x 16 symbols, 3 rows shown (seed 3.1). Row r of reel j shows strip[(stop + r) % 16].
# @@UPPER STRIPS@@ (design: docs/games/ismael_beiro.md)
UPPER_STRIPS: list[list[str]] = [
    [
        U_CHERRY,
        U_CHERRY,
        U_CHERRY,
        SEVEN_RED,
        U_LEMON,
        CAMEL,
        U_BELL,
        CHEF_HAT,
        U_LEMON,
        U_LEMON,
        SEVEN_BLUE,
        COCONUT,
        U_BELL,
        CLAPPER,
        SEVEN_GREEN,
        CHEF_HAT,
    ],
    [
        U_LEMON,
        U_CHERRY,
        U_CHERRY,
        U_CHERRY,
        SEVEN_GREEN,
        CHEF_HAT,
        U_BELL,
        CAMEL,
        U_LEMON,
        CLAPPER,
        SEVEN_RED,
        U_BELL,
        COCONUT,
        CAMERA,
        SEVEN_BLUE,
        CHEF_HAT,
    ],
    [
        U_BELL,
        CHEF_HAT,
        U_CHERRY,
        U_CHERRY,
        U_CHERRY,
        SEVEN_BLUE,
        COCONUT,
        U_LEMON,
        U_LEMON,
        SEVEN_RED,
        CAMEL,
        U_BELL,
        CLAPPER,
        U_LEMON,
        SEVEN_GREEN,
        CHEF_HAT,
    ],
]
# @@END UPPER STRIPS@@

# The 5 fixed lines (rows per reel): middle, top, bottom and the two diagonals; with the vertical-line counter
# above zero the three reels' columns are lines 6-8 too (seed 3, 3.9).
UPPER_LINES: list[list[int]] = [[1, 1, 1], [0, 0, 0], [2, 2, 2], [0, 1, 2], [2, 1, 0]]
VERTICAL_LINES = 3
# Three of a kind on a line, x the upper game's stake.
UPPER_PAYS: dict[str, int] = {
    SEVEN_RED: 200,
    SEVEN_BLUE: 100,
    SEVEN_GREEN: 50,
    CAMEL: 40,
    COCONUT: 25,
    CHEF_HAT: 15,
    U_BELL: 10,
    U_LEMON: 5,
    U_CHERRY: 2,
}
# the Mixed prizes' mean, so that every bet returns the same  # three sevens of different colours where the Mixed
# minigame cannot be played
MIXED_SEVENS_FIXED = 18

# --- bets (seed 1, 3: 0.20 / 1 / 2 / 5 / 10 EUR and the upper bets "cash + bonuses") -----------------------------
BONUS_VALUE = 400  # haléř: a prize converted into bonuses gives one bonus per 4 CZK (seed: 1 bonus ~ 0.80 EUR)
# stake (haléř) of the lower game; bonus_price = bonuses one upper game costs at this bet (4 x the stake / 4 CZK);
# island_columns (seed 3, The Island); mixed: the Mixed minigame can be played (seed 3, Mixed); enabled: the
# operator's switch of this bet (seed 1: "they can disable bets").
BETS: list[dict[str, Any]] = [
    {"stake": 100, "bonus_price": 1, "island_columns": 1, "mixed": False, "enabled": True},
    {"stake": 500, "bonus_price": 5, "island_columns": 2, "mixed": False, "enabled": True},
    {"stake": 1000, "bonus_price": 10, "island_columns": 3, "mixed": False, "enabled": True},
    {"stake": 2500, "bonus_price": 25, "island_columns": 3, "mixed": True, "enabled": True},
    {"stake": 5000, "bonus_price": 50, "island_columns": 3, "mixed": True, "enabled": True},
]

DEFINITION: dict[str, Any] = {
    "code": "ismael_beiro",
    "version": 1,
    "name": "Ismael Beiro",
    "name_cs": "Ismael Beiro",
    "source": "Ismael Beiro game rules (seeds/001_12d85c0aaf260cd8.txt)",
    "bets": BETS,
    "default_stake": 100,
    "bonus_value": BONUS_VALUE,
    "max_prize": 1000,  # x the stake: the maximum prize of a bet (seed 2.7, 3) and the most a round pays
    "lower": {
        "strips": LOWER_STRIPS,
        "vl_marks": LOWER_VL_MARKS,
        "pays": LOWER_PAYS,
        "bonus_pays": BONUS_PAYS,
        "wild_reels": [0, 2],
        # Fixed probabilities (per mille) replacing the seed's "accelerations" (seed 2.10): a hold is offered after
        # a pair, nudges after a near miss, a hold after nudges that end on a pair.
        "hold_per_mille": 250,
        "nudge_per_mille": 100,
        "hold_after_nudge_per_mille": 200,
        "nudge_counts": [[1, 45], [2, 30], [3, 15], [4, 10]],  # [nudges, weight]
        "max_nudges": 4,
        "max_vertical_lines": 9,
    },
    "ladder": {
        "scale": SCALE,
        "three_lemons": THREE_LEMONS,
        "blue": list(BLUE),
        "yellow": list(YELLOW),
        # P(up) per mille by the rung the prize is on (index in SCALE; the top rung has none): the Bonus-Raise
        # (up to the 3-lemons prize: else the prize becomes bonuses) and the seesaw (above it: else one prize
        # down), and the Raise-Nothing (else nothing). Designed as 99 % of the fair odds of one step.
        "up_per_mille": [495, 594, 495, 330, 440, 330, 283, 330, 330, 248, 371],
        "raise_nothing_up_per_mille": [660, 743, 660, 594, 660, 594, 495, 495, 495, 396, 495],
    },
    "confessional": {
        # The lower game's Confessional (seed 2.7): six options, one prize: cash (x stake) or bonuses (upper games).
        "options": 6,
        "prizes": [
            [["cash", 2], 200],
            [["cash", 3], 150],
            [["cash", 4], 130],
            [["cash", 6], 110],
            [["cash", 10], 100],
            [["cash", 15], 70],
            [["cash", 25], 50],
            [["cash", 50], 25],
            [["cash", 100], 15],
            [["cash", 200], 6],
            [["cash", 500], 2],
            [["cash", 1000], 1],
            [["bonus", 1], 60],
            [["bonus", 2], 45],
            [["bonus", 3], 30],
            [["bonus", 4], 20],
            [["bonus", 5], 12],
            [["bonus", 6], 9],
        ],
    },
    "upper": {
        "strips": UPPER_STRIPS,
        "lines": UPPER_LINES,
        "pays": UPPER_PAYS,
        "mixed_sevens_fixed": MIXED_SEVENS_FIXED,
        "camera": [1, 5],  # the vertical-line counter grows by 1-5 when a CAMERA shows (seed 3.9)
        "clapper": [1, 3],  # the cumulative grows by 1-3 when a CLAPPER shows (seed 3.8)
        "cumulative_pieces": 8,
        # P(the minigame selector | a CAMEL / COCONUT / CHEF_HAT line win) per mille (seed: "sometimes")
        "selector_per_mille": {CAMEL: 600, COCONUT: 500, CHEF_HAT: 400},
        "fraction": 10,  # Double-or-Bonuses fraction, x the stake (seed 3.10)
        "double_per_mille": 240,  # P(double) of a risked fraction; otherwise it becomes bonuses
        "max_bonuses_for_double": 3000,  # seed 3.10: no Double-or-Bonuses above 3,000 bonuses
        "auto_play_games": 100,  # seed 3.2: auto-play up to 100 games
    },
    "minigames": {
        # The selector's prize (x the upper stake), drawn when the selector opens: every minigame pays it.
        "prizes": [
            [15, 300],
            [20, 260],
            [25, 200],
            [30, 160],
            [40, 120],
            [50, 90],
            [75, 55],
            [100, 40],
            [150, 20],
            [200, 12],
            [300, 6],
            [500, 3],
            [1000, 1],
        ],
        # Rarely the prize is the bet's maximum: the shown prize plus bonuses for the rest (seed 3, The Island).
        "supplement_per_mille": 5,
        "names": ["desert_expedition", "dinner", "confessional", "island", "monologue"],
        "desert_characters": 3,
        "dinner_dishes": 5,
        "confessional_options": 6,
        "island_parts": 9,  # 3 columns x 3 prizes
        # The Monologue wheel: segment element -> prize (x stake), each prize of the table on at least one segment.
        "monologue_wheel": [
            ["microphone", 15],
            ["spotlight", 20],
            ["curtain", 25],
            ["mask", 30],
            ["script", 40],
            ["rose", 50],
            ["hat", 75],
            ["cane", 100],
            ["star", 150],
            ["trophy", 200],
            ["crown", 300],
            ["diamond", 500],
            ["golden_mic", 1000],
            ["microphone", 15],
            ["spotlight", 20],
            ["curtain", 25],
        ],
        # The Mixed minigame (three sevens of different colours, on the bets that have it), x stake.
        "mixed_prizes": [[6, 300], [10, 245], [15, 190], [20, 115], [30, 70], [50, 50], [100, 20], [200, 10]],
    },
    "rtp": "86.07",
    "unfinished_deadline_days": 90,
}

# --- version 2: the machine's counters carried between rounds, and the sixth upper bet -----------------------------
# Seed 3: the sixth upper bet "10 EUR + 100 bonuses": twice the bonuses of the 10 EUR + 50 bet for twice its Mixed
# range (50-5,000 EUR) and its Double-or-Bonuses fraction (100 EUR), i.e. an upper game at twice the stake, 100 CZK
# here (100 bonuses = 4 x 100 CZK of bonuses, as every upper bet). It is an upper bet only (the lower game has the
# seed's five bets): a round at the top lower bet (50 CZK) plays it when its bonuses cover it. Its prizes are paid
# within the round's maximum prize (1,000 x 50 CZK = the platform's per-round cap).
SIXTH_UPPER_BET: dict[str, Any] = {
    "stake": 10000,
    "bonus_price": 100,
    "island_columns": 3,
    "mixed": True,
    "enabled": True,
    "upper_only": True,
    "max_prize": 500,
}

# The carried counters no longer lapse at the end of a round, so version 2 fills them more slowly (design): the
# CLAPPER only on the middle reel (reels 1 and 3 show a LEMON in its place), the CLAPPER and the CAMERA count on
# the centre row only, and one vertical-line mark (reel 1, position 1). See docs/games/ismael_beiro.md.
UPPER_STRIPS_V2: list[list[str]] = [
    [U_LEMON if s == CLAPPER else s for s in UPPER_STRIPS[0]],
    list(UPPER_STRIPS[1]),
    [U_LEMON if s == CLAPPER else s for s in UPPER_STRIPS[2]],
]
LOWER_VL_MARKS_V2: list[list[int]] = [[1], [], []]

DEFINITION_V2: dict[str, Any] = {
    **DEFINITION,
    "version": 2,
    "lower": {**DEFINITION["lower"], "vl_marks": LOWER_VL_MARKS_V2},
    "upper": {**DEFINITION["upper"], "strips": UPPER_STRIPS_V2, "camera_rows": [1], "clapper_rows": [1]},
    "bets": [dict(b) for b in BETS] + [dict(SIXTH_UPPER_BET)],
    # Seed 1-3, 5: the vertical-line counter, the cumulative of every upper bet and the bonuses stay on the machine
    # from one start to the next (per player and game version; the platform stores them, see games/carry.py).
    "carry_over": True,
    # the long run of a player (5,000 rounds each); a new player's first rounds return less (counters empty)
    "rtp": "93.25",
    # The declared return of the player's other option (GP §7(2), docs/games/ismael_beiro.md "Declared RTP of each
    # option"): AUTO-RISK, every prize risked to the end of its ladder and of Double-or-Bonuses, returns less than
    # the automatic choices (collect); its figure is the lowest over the player's options, proven by the PAR
    # sheet's AUTO-RISK simulation at the bet where it was measured lowest (50 CZK), inside its 99 % CI.
    "declared_options": [{"option": "auto_risk", "bet": {"stake": 5000, "auto_risk": True}, "rtp": "85.50"}],
}

# --- version 3: no player choice decides the return (GP §7(3)) ----------------------------------------------------
# The machine makes every choice that changes what a round is worth: the holds, the nudges (AUTO-ADVANCE) and the
# upper bet each upper game is played at (the highest the bonuses cover). The player's remaining choices either
# reveal an outcome drawn before the choice (the Confessional's PLAY, the minigame chosen and its picks, the pace of
# the upper games) or risk a prize in a fair gamble: every ladder step and every Double-or-Bonuses fraction has an
# expected value equal to what is risked, exactly (the draws are randbelow of the exact odds), and a gamble is only
# offered when all it can win fits under the bet's and the round's maximum prize. Seed figure restored: the
# Double-or-Bonuses fraction of each bet (seed 3.10). A minigame never shows more than the bet's maximum prize; bonuses
# that would carry the round's
# value (cash + the change of the carried bonuses at face value) over its maximum prize lapse. Deviations from the
# seed and their reasons: docs/games/ismael_beiro.md.
# x each bet's upper stake: 4/10/20/30/50/100 EUR (seed 3.10), 1 CZK = 0.20 EUR
DOB_FRACTIONS_V3 = [20, 10, 10, 6, 5, 5]

DEFINITION_V3: dict[str, Any] = {
    **DEFINITION_V2,
    "version": 3,
    "bets": [{**b, "fraction": f} for b, f in zip(DEFINITION_V2["bets"], DOB_FRACTIONS_V3, strict=True)],
    "machine_choices": True,  # holds, nudges and the upper bet are the machine's
    "fair_gambles": True,  # ladders and Double-or-Bonuses: expected value = the amount risked
    "minigame_within_bet_max": True,  # M-8: the minigame's prize (and every picture) at most the bet's maximum
    "carry_within_cap": True,  # the carried bonuses a round adds count in its maximum prize
    # the declared RTP is the simulated figure (10^7 rounds, the long run of 2,000 players) rounded down; every way
    # of playing returns the same expected value up to the stated bound (docs/games/ismael_beiro.md)
    "rtp": "93.25",
    "rtp_spread_bound": "0.10",  # percentage points: the most any two ways of playing can differ (the round's cap)
    "declared_options": [],
}
