"""Kobushi's texts for players: symbol names and the rules, in English and Czech (shown in the catalogue)."""

from __future__ import annotations

from .definition import BIG_CAT, KOBUSHI, SCATTER, WILD

# symbol -> (English, Czech); the rules' symbols were pictures, the names are ours (docs/games/kobushi.md)
SYMBOL_NAMES = {
    WILD: ("Wild", "Wild (divoký symbol)"),
    "GEISHA": ("Geisha", "Gejša"),
    "SAMURAI": ("Samurai", "Samuraj"),
    "TEMPLE": ("Temple", "Chrám"),
    "LANTERN": ("Lantern", "Lampion"),
    "KOI": ("Koi", "Kapr koi"),
    "FAN": ("Fan", "Vějíř"),
    "A": ("A", "A"),
    "K": ("K", "K"),
    "Q": ("Q", "Q"),
    "J": ("J", "J"),
    SCATTER: ("Scatter", "Scatter"),
    KOBUSHI: ("Kobushi Bonus", "Bonus Kobushi"),
    BIG_CAT: ("Big Cat Bonus", "Bonus Velká kočka"),
}

RULES_EN = (
    "Kobushi is a 5-reel, 3-row video slot with 1-30 lines and 1-5 coins per line. Total bet = coin value x coins "
    "x lines. Line wins pay left to right (3, 4 or 5 of a kind from reel 1) in multiples of the line bet; only the "
    "highest win per line is paid and wins on different lines are added. Wild substitutes every symbol "
    "except Scatter, Kobushi Bonus and Big Cat. 3/4/5 Scatters anywhere pay 5/10/25 x the total bet. 3 or more "
    "Kobushi Bonus symbols start the Kobushi Bonus: a prize of 2 to 500 x the total bet is split into parts hidden "
    "behind the 15 'Pick Me!' symbols; the first two picks always win, the bonus ends when a Cat (or, at the "
    "maximum coins and lines, a Sushi or Kobushi jackpot symbol) is found, and the whole prize is paid. The prize "
    "sequence is drawn when the bonus starts; which symbol you pick does not change it. 3 or more Big Cat symbols "
    "award 5-20 free spins with a x2-x5 multiplier and an extra wild (one of the 10 normal symbols, substituting "
    "all but Scatter, Big Cat and Wild, paying as itself). A Wild in the middle row of a reel expands over the "
    "reel (not over Scatter or Big Cat) and stays for the rest of those free spins. 3 or more Big Cats during free "
    "spins award 5-20 more spins, played afterwards with a new extra wild and a higher multiplier (at most x5). At "
    "most 100 free spins per round; Kobushi Bonus symbols do not appear in free spins. A round pays at most 5,000 x "
    "the total bet; when that is reached the round ends. The progressive jackpots are paid by the jackpot system "
    "and only at the maximum coins and lines."
)
RULES_CS = (
    "Kobushi je video automat s 5 válci a 3 řadami, 1-30 liniemi a 1-5 mincemi na linii. Celková sázka = hodnota "
    "mince x počet mincí x počet linií. Výhry na liniích se počítají zleva doprava (3, 4 nebo 5 stejných symbolů "
    "od 1. válce) jako násobek sázky na linii; na každé linii se vyplácí jen nejvyšší výhra a výhry na různých "
    "liniích se sčítají. Wild nahrazuje všechny symboly kromě Scatteru, Bonusu Kobushi a Velké kočky. "
    "3/4/5 Scatterů kdekoli vyplácí 5/10/25násobek celkové sázky. 3 a více symbolů Bonus Kobushi spustí Bonus "
    "Kobushi: výhra 2 až 500násobku celkové sázky je rozdělena na části skryté pod 15 symboly 'Pick Me!'; první "
    "dva výběry vždy vyhrávají, bonus končí nalezením kočky (nebo při maximálním počtu mincí a linií symbolu "
    "jackpotu Sushi nebo Kobushi) a vyplatí se celá výhra. Pořadí výher se losuje při spuštění bonusu; volba "
    "symbolu hráčem je neovlivní. 3 a více symbolů Velké kočky přinese 5-20 volných otočení s násobitelem x2-x5 a "
    "extra wild symbolem (jeden z 10 běžných symbolů, nahrazuje vše kromě Scatteru, Velké kočky a Wild, vyplácí "
    "jako on sám). Wild ve prostřední řadě se roztáhne přes celý válec (kromě Scatteru a Velké kočky) a zůstane "
    "do konce těchto volných otočení. 3 a více Velkých koček během volných otočení přinese dalších 5-20 otočení, "
    "odehraných potom s novým extra wild a vyšším násobitelem (nejvýše x5). Nejvýše 100 volných otočení za hru; "
    "symboly Bonus Kobushi se ve volných otočeních neobjevují. Jedna hra vyplatí nejvýše 5 000násobek celkové "
    "sázky; po jeho dosažení hra končí. Progresivní jackpoty vyplácí systém jackpotů, a to jen při maximálním "
    "počtu mincí a linií."
)

# The rules while the platform does not offer the progressive jackpots (switched off, or the pools not running): the
# bonus ends on the Cat only and nothing is said of jackpots but that none is paid now.
RULES_EN_WITHOUT_JACKPOTS = RULES_EN.replace(
    "the bonus ends when a Cat (or, at the maximum coins and lines, a Sushi or Kobushi jackpot symbol) is found",
    "the bonus ends when the Cat is found",
).replace(
    "The progressive jackpots are paid by the jackpot system and only at the maximum coins and lines.",
    "No progressive jackpot is offered or paid at present.",
)
RULES_CS_WITHOUT_JACKPOTS = RULES_CS.replace(
    "bonus končí nalezením kočky (nebo při maximálním počtu mincí a linií symbolu jackpotu Sushi nebo Kobushi)",
    "bonus končí nalezením kočky",
).replace(
    "Progresivní jackpoty vyplácí systém jackpotů, a to jen při maximálním počtu mincí a linií.",
    "Progresivní jackpoty se nyní nenabízejí ani nevyplácejí.",
)
