"""Starfall Grid: a 5x5 grid of falling symbols, clusters of 3+ touching horizontally, vertically **or
diagonally**, cascades, a wild that joins any cluster (follows Cloud Quest's grid). The round is Crystal Grid's
(``crystal_grid.CrystalGrid``) with 8 neighbours, its own symbols, paytable and strips.

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/starfall_grid.md``.
"""
from __future__ import annotations

from typing import Any

from .. import mech
from ..registry import register
from .crystal_grid import CrystalGrid

WILD = "SHIELD"
SYMBOLS = [WILD, "WARRIOR", "MAGE", "ARCHER", "DRAGON_EGG", "CROWN", "HEART", "SPADE", "CLUB", "DIAMOND", "STAR",
           "MOON"]
SYMBOL_NAMES = {
    WILD: ("Golden Shield (wild)", "Zlatý štít (divoký)"), "WARRIOR": ("Warrior", "Bojovnice"),
    "MAGE": ("Mage", "Mág"), "ARCHER": ("Archer", "Lukostřelec"), "DRAGON_EGG": ("Dragon egg", "Dračí vejce"),
    "CROWN": ("Crown", "Koruna"), "HEART": ("Heart", "Srdce"), "SPADE": ("Spade", "Piky"), "CLUB": ("Club", "Kříže"),
    "DIAMOND": ("Diamond", "Káry"), "STAR": ("Star", "Hvězda"), "MOON": ("Moon", "Měsíc"),
}
# cluster size thresholds -> pay in tenths of the total bet (the largest threshold reached); designed
PAYS: dict[str, list[list[int]]] = {
    "WARRIOR": [[3, 8], [4, 12], [5, 300], [6, 375], [7, 450], [9, 750], [12, 1500], [16, 4500], [20, 15000]],
    "MAGE": [[3, 4], [4, 8], [5, 17], [6, 30], [7, 52], [9, 105], [12, 300], [16, 900], [20, 3750]],
    "ARCHER": [[3, 3], [4, 6], [5, 14], [6, 22], [7, 38], [9, 75], [12, 225], [16, 675], [20, 3000]],
    "DRAGON_EGG": [[3, 3], [4, 4], [5, 11], [6, 18], [7, 30], [9, 60], [12, 180], [16, 525], [20, 2250]],
    "CROWN": [[3, 1], [4, 3], [5, 9], [6, 15], [7, 22], [9, 45], [12, 135], [16, 375], [20, 1500]],
    "HEART": [[3, 1], [4, 3], [5, 6], [6, 12], [7, 18], [9, 38], [12, 105], [16, 300], [20, 1200]],
    "SPADE": [[3, 1], [4, 3], [5, 6], [6, 12], [7, 18], [9, 38], [12, 105], [16, 300], [20, 1200]],
    "CLUB": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "DIAMOND": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "STAR": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "MOON": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    WILD: [[3, 30], [5, 150], [8, 750]],
}
COLUMN_COUNTS: list[dict[str, int]] = [
    {WILD: 1, "WARRIOR": 3, "MAGE": 4, "ARCHER": 5, "DRAGON_EGG": 5, "CROWN": 6, "HEART": 7, "SPADE": 7, "CLUB": 8,
     "DIAMOND": 8, "STAR": 8, "MOON": 8} for _ in range(5)
]
STRIP_SEEDS = [300, 301, 302, 303, 304]

RULES_EN = (
    "A grid of 5 columns and 5 rows; the player sets the total bet. Groups of 3 or more identical symbols touching "
    "horizontally, vertically or diagonally pay by their size in tenths of the total bet (paytable); the GOLDEN "
    "SHIELD joins a group of any symbol, and a group of shields alone pays the shield's own values. All winning "
    "groups are removed together, the symbols above fall down and new symbols fall in from above; the new grid "
    "pays again, and so on until no group is left. All cascades are one game and play by themselves. A game pays "
    "at most 250 x the total bet.")
RULES_CS = (
    "Mřížka 5 sloupců a 5 řad; hráč volí celkovou sázku. Skupiny 3 a více stejných symbolů, které se dotýkají "
    "vodorovně, svisle nebo úhlopříčně, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); "
    "ZLATÝ ŠTÍT se přidá ke skupině jakéhokoli symbolu a skupina samotných štítů vyplácí jejich vlastní hodnoty. "
    "Všechny výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu "
    "vyplácí, dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí "
    "nejvýše 250násobek celkové sázky.")

DEFINITION: dict[str, Any] = {
    "code": "starfall_grid", "version": 1, "name": "Starfall Grid", "name_cs": "Hvězdná mřížka",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {"catalogue": "Tipsport Games, Part two", "entry": "5. Cloud Quest",
                "figures": "RTP 96.52 %, max bet 200 CZK, total-bet selector, 90 days",
                "features": ["5x5 grid of falling symbols", "clusters of 3+ horizontal, vertical or diagonal",
                             "cascades", "wild substitutes; 3+ wilds their own combination"],
                "not_built": ["the middle symbol of a 3-cluster turning wild", "the Power Stone re-spins",
                              "the bonus game on a 3-reel machine"]},
    "cols": 5, "rows": 5, "diagonal": True, "min_size": 3,
    "pays": PAYS, "symbols": SYMBOLS, "wild": WILD, "symbol_names": SYMBOL_NAMES,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 20_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.52", "unfinished_deadline_days": 90,
    "max_win_multiplier": 250,
    "rules_en": RULES_EN, "rules_cs": RULES_CS,
}

STARFALL_GRID = register(CrystalGrid(DEFINITION))
