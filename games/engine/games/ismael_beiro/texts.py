"""Ismael Beiro's texts for players: symbol and minigame names and the rules, in English and Czech (catalogue)."""

from __future__ import annotations

# symbol -> (English, Czech); the seed's symbols are pictures, the names are ours (docs/games/ismael_beiro.md)
SYMBOL_NAMES = {
    "SEVEN": ("Seven", "Sedmička"),
    "BAR": ("Bar", "Bar"),
    "BELL": ("Bell", "Zvonek"),
    "MELON": ("Melon", "Meloun"),
    "PLUM": ("Plum", "Švestka"),
    "LEMON": ("Lemon", "Citron"),
    "ORANGE": ("Orange", "Pomeranč"),
    "CHERRY": ("Cherry", "Třešně"),
    "BONUS": ("Bonus", "Bonus"),
    "CONFESSIONAL": ("Confessional (Winning Draw)", "Zpovědnice (výherní losování)"),
    "WILD": ("Wild", "Žolík"),
    "SEVEN_RED": ("Red seven", "Červená sedmička"),
    "SEVEN_BLUE": ("Blue seven", "Modrá sedmička"),
    "SEVEN_GREEN": ("Green seven", "Zelená sedmička"),
    "CAMEL": ("Camel", "Velbloud"),
    "COCONUT": ("Coconuts", "Kokosy"),
    "CHEF_HAT": ("Chef's hat", "Kuchařská čepice"),
    "CAMERA": ("Camera", "Kamera"),
    "CLAPPER": ("Clapperboard (cumulative)", "Filmová klapka (kumulace)"),
}
MINIGAME_NAMES = {
    "desert_expedition": {"en": "Desert Expedition", "cs": "Výprava do pouště"},
    "dinner": {"en": "Dinner", "cs": "Večeře"},
    "confessional": {"en": "Confessional", "cs": "Zpovědnice"},
    "island": {"en": "The Island", "cs": "Ostrov"},
    "monologue": {"en": "Monologue", "cs": "Monolog"},
}

RULES_EN = (
    "Ismael Beiro is a machine with a lower and an upper game, each on 3 reels of 16 symbols. Choose a bet of 1, 5, "
    "10, 25 or 50 CZK (the operator may switch bets off). One start plays the lower game and everything it leads "
    "to; the bonuses it wins are played in the upper game of the same start, and nothing more is staked. LOWER "
    "GAME: three of a kind on the centre line pay 2 (cherries) to 50 (sevens) times the bet; the Wild on the left "
    "and right reels stands for any symbol but Bonus; 1, 2 or 3 Bonus symbols give 1, 3 or 10 upper games; three "
    "Confessionals open the Confessional: six options light in turn and PLAY stops one, always a prize (2-1,000 x "
    "the bet) or 1-6 upper games. Two matching symbols may be offered a hold: the next game with up to two reels "
    "held is free. A near miss may be offered 1-4 nudges: each moves a reel one symbol down (AUTO picks the best). "
    "Marked symbols on the line add to the vertical-line counter (at most 9). The prizes of cherries and lemons "
    "and the Confessional's cash prizes may be risked in the Bonus-Raise: the next prize up, or the prize turned "
    "into bonuses (one bonus per 4 CZK, the rest rounded at random); above the 3-lemons prize it becomes a seesaw "
    "(next prize up or down). The oranges' prize may be risked in the Raise-Nothing (next prize up or nothing). "
    "Other prizes are collected at once. UPPER GAME: each game costs bonuses (1 per CZK of the bet, at the round's "
    "bet or a lower one) and pays three of a kind on 5 lines, and on 3 vertical lines while the counter is above "
    "zero (each game takes one). A Camera adds 1-5 to the counter; a Clapperboard adds 1-3 pieces to the bet's "
    "cumulative, whose 8th piece gives a WINNING SPIN. Camels, coconuts or chef's hats may open the minigame "
    "selector: choose Desert Expedition, Dinner, Confessional, The Island or Monologue; the prize (15-1,000 x the "
    "bet, rarely the maximum as cash plus bonuses) is drawn when the selector opens, so the choice and the picks "
    "do not change it. Three sevens of different colours play the Mixed minigame at the 25 and 50 CZK bets "
    "(6-200 x the bet) and pay 18 x the bet at the others. A prize of the upper game may be risked in fractions "
    "of 10 x the bet: twice the fraction or the fraction in bonuses (not above 3,000 bonuses). AUTO-PLAY plays "
    "every choice automatically, AUTO-RISK risks every prize to the end. Holds, nudges and the ladders' "
    "probabilities are fixed and do not depend on past results. A start pays at most 1,000 x its bet; reaching "
    "it ends the start. Bonuses that no switched-on upper bet can use are lost when the start ends."
)
RULES_CS = (
    "Ismael Beiro je automat s dolní a horní hrou, každá na 3 válcích po 16 symbolech. Zvolte sázku 1, 5, 10, 25 "
    "nebo 50 Kč (provozovatel může sázky vypnout). Jedno spuštění odehraje dolní hru a vše, co z ní vzejde; bonusy "
    "z ní se hrají v horní hře téhož spuštění a nic dalšího se nevsází. DOLNÍ HRA: tři stejné symboly na středové "
    "linii vyplácí 2 (třešně) až 50 (sedmičky) násobek sázky; žolík na levém a pravém válci nahrazuje vše kromě "
    "Bonusu; 1, 2 nebo 3 symboly Bonus dají 1, 3 nebo 10 horních her; tři Zpovědnice otevřou Zpovědnici: šest "
    "možností se rozsvěcuje a HRÁT jednu zastaví, vždy s výhrou (2-1 000násobek sázky) nebo 1-6 horních her. Dva "
    "stejné symboly mohou dostat nabídku podržení: další hra s nejvýše dvěma podrženými válci je zdarma. Téměř "
    "výhra může dostat 1-4 posuny: každý posune válec o symbol dolů (AUTO zvolí nejlepší). Označené symboly na "
    "linii přidávají svislé linie (nejvýše 9). Výhry třešní a citronů a peněžní výhry Zpovědnice lze riskovat ve "
    "hře Bonus-nahoru: další vyšší výhra, nebo výhra přeměněná na bonusy (jeden bonus za 4 Kč, zbytek se "
    "zaokrouhlí náhodně); nad výhrou tří citronů se mění v houpačku (další výhra nahoru nebo dolů). Výhru "
    "pomerančů lze riskovat ve hře Nahoru-nic (další výhra nahoru nebo nic). Ostatní výhry se vyplatí hned. HORNÍ "
    "HRA: každá hra stojí bonusy (1 za každou korunu sázky, při sázce spuštění nebo nižší) a vyplácí tři stejné na "
    "5 liniích a na 3 svislých liniích, dokud je počítadlo nad nulou (každá hra jednu spotřebuje). Kamera přidá "
    "1-5 svislých linií; filmová klapka přidá 1-3 dílky kumulace sázky, jejíž 8. dílek dá VÝHERNÍ OTOČENÍ. "
    "Velbloudi, kokosy nebo kuchařské čepice mohou otevřít výběr minihry: Výprava do pouště, Večeře, Zpovědnice, "
    "Ostrov nebo Monolog; výhra (15-1 000násobek sázky, vzácně maximum jako peníze a bonusy) se losuje při otevření "
    "výběru, volba ani výběry ji nezmění. Tři sedmičky různých barev hrají minihru Mix při sázkách 25 a 50 Kč "
    "(6-200násobek sázky), při ostatních vyplácí 18násobek sázky. Výhru horní hry lze riskovat po dílech 10násobku "
    "sázky: dvojnásobek dílu, nebo díl v bonusech (ne nad 3 000 bonusů). AUTO-HRA hraje všechny volby sama, "
    "AUTO-RISK riskuje každou výhru do konce. Pravděpodobnosti podržení, posunů a žebříčků jsou pevné a nezávisí "
    "na minulých výsledcích. Jedno spuštění vyplatí nejvýše 1 000násobek sázky; jeho dosažením končí. Bonusy, "
    "které žádná zapnutá horní sázka nevyužije, na konci spuštění propadají."
)

# Version 2: the machine's counters and bonuses stay for the player's next start; the sixth upper bet.
RULES_V2_EN = RULES_EN.replace(
    " Bonuses that no switched-on upper bet can use are lost when the start ends.",
    " The vertical-line counter, each bet's cumulative and the bonuses left stay on your machine for your next "
    "start of this game (real money and play money apart); bonuses are worth 4 CZK each and are paid to your "
    "balance if a new version of the game replaces this one. Cameras and Clapperboards count on the centre row; "
    "the Clapperboard is on the middle reel only. At the 50 CZK bet the upper game also offers a 100 CZK game for "
    "100 bonuses (its prizes x 100 CZK, at most 50,000 CZK).",
)
RULES_V2_CS = RULES_CS.replace(
    " Bonusy, které žádná zapnutá horní sázka nevyužije, na konci spuštění propadají.",
    " Počítadlo svislých linií, kumulace každé sázky a zbylé bonusy zůstávají na vašem automatu pro příští "
    "spuštění této hry (skutečné peníze a hra bez peněz zvlášť); bonus má hodnotu 4 Kč a vyplatí se na váš zůstatek, "
    "pokud hru nahradí nová verze. Kamera a klapka se počítají ve středové řadě; klapka je jen na prostředním válci. "
    "Při sázce 50 Kč nabízí horní hra také hru za 100 Kč za 100 bonusů (výhry x 100 Kč, nejvýše 50 000 Kč).",
)

# Version 3: the machine makes the choices that change the return; every gamble is fair (GP §7(3)).
_V3_EN = [
    (
        "Two matching symbols may be offered a hold: the next game with up to two reels held is free. A near miss may "
        "be offered 1-4 nudges: each moves a reel one symbol down (AUTO picks the best).",
        "Two matching symbols may win a hold: the machine holds the pair and plays the next game free. A near miss may "
        "win 1-4 nudges: the machine moves the reels (each nudge one symbol down) by its fixed rule.",
    ),
    (
        "may be risked in the Bonus-Raise: the next prize up, or the prize turned into bonuses (one bonus per 4 CZK, "
        "the rest rounded at random); above the 3-lemons prize it becomes a seesaw (next prize up or down). The "
        "oranges' prize may be risked in the Raise-Nothing (next prize up or nothing).",
        "may be risked on the seesaw: the next prize up or the one below (nothing below the lowest). The oranges' "
        "prize may be risked in the Raise-Nothing (next prize up or nothing). The odds of every risk make it worth "
        "exactly the prize risked.",
    ),
    (
        "(1 per CZK of the bet, at the round's bet or a lower one)",
        "(1 per CZK of the bet; the machine plays the highest bet the bonuses cover, up to the start's bet)",
    ),
    (
        "rarely the maximum as cash plus bonuses)",
        "rarely the maximum as cash plus bonuses; never above the bet's maximum prize)",
    ),
    (
        "A prize of the upper game may be risked in fractions of 10 x the bet: twice the fraction or the fraction in "
        "bonuses (not above 3,000 bonuses).",
        "A prize of the upper game may be risked in fractions (20 x the bet at 1 CZK, 10 x at 5 and 10 CZK, 6 x at "
        "25 CZK, 5 x at 50 and 100 CZK): twice the fraction or nothing at even odds, while all it can win fits under "
        "the maximum prize (not above 3,000 bonuses).",
    ),
    (
        "AUTO-PLAY plays every choice automatically, AUTO-RISK risks every prize to the end.",
        "AUTO-PLAY plays every choice automatically, AUTO-RISK risks every prize to the end. Whether you risk or "
        "collect, and what you choose in a minigame, does not change what a start returns on average.",
    ),
    (
        "reaching it ends the start.",
        "reaching it ends the start, and bonuses that would take a start's value "
        "(its cash plus the bonuses it adds to your machine, 4 CZK each) over it lapse.",
    ),
]
_V3_CS = [
    (
        "Dva stejné symboly mohou dostat nabídku podržení: další hra s nejvýše dvěma podrženými válci je zdarma. Téměř "
        "výhra může dostat 1-4 posuny: každý posune válec o symbol dolů (AUTO zvolí nejlepší).",
        "Dva stejné symboly mohou vyhrát podržení: automat podrží dvojici a další hru odehraje zdarma. Téměř výhra "
        "může vyhrát 1-4 posuny: automat posune válce (každý posun o symbol dolů) podle svého pevného pravidla.",
    ),
    (
        "lze riskovat ve hře Bonus-nahoru: další vyšší výhra, nebo výhra přeměněná na bonusy (jeden bonus za 4 Kč, "
        "zbytek se zaokrouhlí náhodně); nad výhrou tří citronů se mění v houpačku (další výhra nahoru nebo dolů). "
        "Výhru pomerančů lze riskovat ve hře Nahoru-nic (další výhra nahoru nebo nic).",
        "lze riskovat na houpačce: další výhra nahoru, nebo o jednu dolů (pod nejnižší nic). Výhru pomerančů lze "
        "riskovat ve hře Nahoru-nic (další výhra nahoru nebo nic). Šance každého riskování jsou takové, že má přesně "
        "hodnotu riskované výhry.",
    ),
    (
        "(1 za každou korunu sázky, při sázce spuštění nebo nižší)",
        "(1 za každou korunu sázky; automat hraje nejvyšší sázku, kterou bonusy pokryjí, nejvýše sázku spuštění)",
    ),
    ("vzácně maximum jako peníze a bonusy)", "vzácně maximum jako peníze a bonusy; nikdy nad maximální výhru sázky)"),
    (
        "Výhru horní hry lze riskovat po dílech 10násobku sázky: dvojnásobek dílu, nebo díl v bonusech (ne nad 3 000 "
        "bonusů).",
        "Výhru horní hry lze riskovat po dílech (20násobek sázky při 1 Kč, 10násobek při 5 a 10 Kč, 6násobek při "
        "25 Kč, 5násobek při 50 a 100 Kč): dvojnásobek dílu, nebo nic, se stejnou šancí, dokud vše, co lze vyhrát, "
        "nepřesáhne maximální výhru (ne nad 3 000 bonusů).",
    ),
    (
        "AUTO-HRA hraje všechny volby sama, AUTO-RISK riskuje každou výhru do konce.",
        "AUTO-HRA hraje všechny volby sama, AUTO-RISK riskuje každou výhru do konce. Zda riskujete, nebo vybíráte, a "
        "co zvolíte v minihře, nemění průměrnou výhru spuštění.",
    ),
    (
        "jeho dosažením končí.",
        "jeho dosažením končí a bonusy, které by hodnotu spuštění (jeho peníze a bonusy, "
        "které přidá na váš automat, po 4 Kč) zvýšily nad ni, propadají.",
    ),
]


def _replaced(text: str, pairs: list[tuple[str, str]]) -> str:
    for old, new in pairs:
        if old not in text:  # a rules sentence changed without its version-3 counterpart
            raise ValueError(f"rules text not found: {old[:60]}")
        text = text.replace(old, new)
    return text


RULES_V3_EN = _replaced(RULES_V2_EN, _V3_EN)
RULES_V3_CS = _replaced(RULES_V2_CS, _V3_CS)
