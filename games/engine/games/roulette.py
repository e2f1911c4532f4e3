"""European Roulette: single zero, 37 pockets, one ``randbelow(37)`` draw per spin; every bet returns 36/37.

Bets, limits, figures and why "European Roulette (2)" is built but not registered: ``docs/games/roulette.md``.
A bet: ``{"bets": [{"type": "straight", "numbers": [17], "amount": 100}, {"type": "red", "amount": 500}]}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from .. import definition as definition_
from ..base import RNG, STATUS_FINISHED, ActionError, Bet, BetError, Declared, EngineError, Game, JsonDict, Progress
from ..registry import register

POCKETS = 37
ZERO = 0
# The standard European single-zero colouring.
RED = frozenset({1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36})
BLACK = frozenset(set(range(1, 37)) - RED)
# Table layout: 12 rows of 3 numbers (row r holds 3r+1, 3r+2, 3r+3); columns are the positions in a row.
ROWS = tuple(tuple(3 * r + c + 1 for c in range(3)) for r in range(12))

INSIDE = "inside"
OUTSIDE = "outside"

# type -> (category, multiplier including the stake, how many numbers it covers, names)
BET_TYPES: dict[str, dict[str, Any]] = {
    "straight": {"category": INSIDE, "multiplier": 36, "size": 1, "en": "Straight-up", "cs": "Jedno číslo"},
    "split": {"category": INSIDE, "multiplier": 18, "size": 2, "en": "Split", "cs": "Dvě čísla"},
    "street": {"category": INSIDE, "multiplier": 12, "size": 3, "en": "Street", "cs": "Tři čísla"},
    "corner": {"category": INSIDE, "multiplier": 9, "size": 4, "en": "Corner", "cs": "Čtyři čísla"},
    "six_line": {"category": INSIDE, "multiplier": 6, "size": 6, "en": "Line (six numbers)", "cs": "Šest čísel"},
    "dozen": {"category": OUTSIDE, "multiplier": 3, "size": 12, "en": "Dozen", "cs": "12 čísel (tucet)"},
    "column": {"category": OUTSIDE, "multiplier": 3, "size": 12, "en": "Column (2 to 1)", "cs": "Sloupec"},
    "red": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "Red", "cs": "Červená"},
    "black": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "Black", "cs": "Černá"},
    "even": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "Even", "cs": "Sudá"},
    "odd": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "Odd", "cs": "Lichá"},
    "low": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "Low (1-18)", "cs": "Nízká (1-18)"},
    "high": {"category": OUTSIDE, "multiplier": 2, "size": 18, "en": "High (19-36)", "cs": "Vysoká (19-36)"},
}
TYPE_ALIASES = {"line": "six_line"}
TYPE_ORDER = {t: i for i, t in enumerate(BET_TYPES)}
EVEN_MONEY = ("red", "black", "even", "odd", "low", "high")
SELECTOR_KEY = {"dozen": "dozen", "column": "column"}  # outside types that pick one of three fields


def _inside_sets() -> dict[str, tuple[tuple[int, ...], ...]]:
    straight = [(n,) for n in range(POCKETS)]
    split = [(0, 1), (0, 2), (0, 3)]
    split += [(row[c], row[c + 1]) for row in ROWS for c in range(2)]  # side by side in a row
    split += [(ROWS[r][c], ROWS[r + 1][c]) for r in range(11) for c in range(3)]  # one above the other
    street = [(0, 1, 2), (0, 2, 3)] + [row for row in ROWS]
    corner: list[tuple[int, ...]] = [(0, 1, 2, 3)]
    corner += [
        tuple(sorted((ROWS[r][c], ROWS[r][c + 1], ROWS[r + 1][c], ROWS[r + 1][c + 1])))
        for r in range(11)
        for c in range(2)
    ]
    six_line = [ROWS[r] + ROWS[r + 1] for r in range(11)]
    return {
        "straight": tuple(straight),
        "split": tuple(sorted(split)),
        "street": tuple(sorted(street)),
        "corner": tuple(sorted(corner)),
        "six_line": tuple(six_line),
    }


INSIDE_SETS = _inside_sets()
_INSIDE_LOOKUP = {t: frozenset(sets) for t, sets in INSIDE_SETS.items()}


def covered_numbers(bet: JsonDict) -> frozenset[int]:
    """The pockets a normalised bet position wins on."""
    t = bet["type"]
    if t in INSIDE_SETS:
        return frozenset(bet["numbers"])
    if t == "dozen":
        d = bet["dozen"]
        return frozenset(range(12 * (d - 1) + 1, 12 * d + 1))
    if t == "column":
        c = bet["column"]
        return frozenset(n for n in range(1, 37) if (n - 1) % 3 == c - 1)
    return {
        "red": RED,
        "black": BLACK,
        "even": frozenset(n for n in range(1, 37) if n % 2 == 0),
        "odd": frozenset(n for n in range(1, 37) if n % 2 == 1),
        "low": frozenset(range(1, 19)),
        "high": frozenset(range(19, 37)),
    }[t]


def colour(number: int) -> str:
    return "green" if number == ZERO else ("red" if number in RED else "black")


def all_positions() -> list[JsonDict]:
    """Every distinct bet position on the table (amount omitted), in canonical order."""
    out: list[JsonDict] = []
    for t in BET_TYPES:
        if t in INSIDE_SETS:
            out += [{"type": t, "numbers": list(s)} for s in INSIDE_SETS[t]]
        elif t in SELECTOR_KEY:
            out += [{"type": t, SELECTOR_KEY[t]: k} for k in (1, 2, 3)]
        else:
            out.append({"type": t})
    return out


# --- errors -----------------------------------------------------------------------------------------------
E_INVALID_BET = "game.roulette.invalid_bet"
E_NO_BETS = "game.roulette.no_bets"
E_TOO_MANY_BETS = "game.roulette.too_many_bets"
E_UNKNOWN_TYPE = "game.roulette.unknown_bet_type"
E_INVALID_NUMBERS = "game.roulette.invalid_numbers"
E_INVALID_SELECTION = "game.roulette.invalid_selection"
E_INVALID_AMOUNT = "game.roulette.invalid_amount"
E_BET_BELOW_MIN = "game.roulette.bet_below_min"
E_BET_ABOVE_MAX = "game.roulette.bet_above_max"
E_STAKE_STEP = "game.stake_step"
E_STAKE_BELOW_MIN = "game.stake_below_min"
E_STAKE_ABOVE_MAX = "game.stake_above_max"
ERROR_CODES = (
    E_INVALID_BET,
    E_NO_BETS,
    E_TOO_MANY_BETS,
    E_UNKNOWN_TYPE,
    E_INVALID_NUMBERS,
    E_INVALID_SELECTION,
    E_INVALID_AMOUNT,
    E_BET_BELOW_MIN,
    E_BET_ABOVE_MAX,
    E_STAKE_STEP,
    E_STAKE_BELOW_MIN,
    E_STAKE_ABOVE_MAX,
)


def _czk(minor: int, lang: str) -> str:
    whole, part = divmod(abs(minor), 100)
    sign = "-" if minor < 0 else ""
    if lang == "cs":
        return f"{sign}{whole:,}".replace(",", "\u00a0") + f",{part:02d} Kč"
    return f"{sign}{whole:,}.{part:02d} CZK"


def _err(code: str, en: str, cs: str, **details: Any) -> BetError:
    return BetError(code, en, cs, **details)


@dataclass(frozen=True)
class RouletteLimits:
    """Stake limits in minor units. Per-position limits apply to the merged amount on one bet position."""

    inside_min: int = 10
    inside_max: int = 100_000
    outside_min: int = 10
    outside_max: int = 100_000
    total_min: int = 10  # GP §8(1)
    total_max: int = 100_000  # GP §8(2), catalogue max bet 1,000.00 CZK (the stake range: GP §8(1)-(2))
    step: int = 10  # GP §8(1): 0.10 CZK
    max_entries: int = 500  # sanity bound on the request size (the table has 157 distinct positions)

    def for_category(self, category: str) -> tuple[int, int]:
        return (self.inside_min, self.inside_max) if category == INSIDE else (self.outside_min, self.outside_max)


class EuropeanRoulette(Game):
    kind = "roulette"

    def __init__(
        self,
        *,
        code: str,
        version: int,
        name: str,
        name_cs: str,
        limits: RouletteLimits,
        unfinished_deadline_days: int,
        source: str,
    ) -> None:
        self.code = code
        self.version = version
        self.name = name
        self.name_cs = name_cs
        self.limits = limits
        self.source = source
        self.declared = Declared(
            rtp=Decimal("97.29"),
            min_bet=limits.total_min,
            max_bet=limits.total_max,
            max_win=self.max_payable_win(),
            unfinished_deadline_days=unfinished_deadline_days,
        )
        # A representative bet for PAR sheets and the all-games RTP test (par.representative_bet_params).
        self.default_bet_params: JsonDict = {
            "bets": [
                {"type": "straight", "numbers": [17], "amount": max(100, limits.inside_min)},
                {"type": "red", "amount": max(500, limits.outside_min)},
            ]
        }
        # the table's placed bets, parsed by the table's rules (``_parse_table``): the game's one bet parser
        self.bet_model = definition_.TableBets(
            parser=self._parse_table,
            total_min=limits.total_min,
            total_max=limits.total_max,
            step=limits.step,
            default_bets=tuple(self.default_bet_params["bets"]),
        )

    # --- figures ------------------------------------------------------------------------------------------
    def max_payable_win(self) -> int:
        """Largest total one spin can pay under the limits (greedy over the positions covering each pocket:
        the highest multipliers first, each up to its position maximum, within the total maximum; exact here
        because every limit is a multiple of the step). The declared max win; 36,000 CZK for entry 8, below the
        platform's max win per round (GP §8(3))."""
        lim = self.limits
        best = 0
        positions = all_positions()
        for pocket in range(POCKETS):
            mults = sorted(
                (BET_TYPES[p["type"]]["multiplier"], lim.for_category(BET_TYPES[p["type"]]["category"]))
                for p in positions
                if pocket in covered_numbers(p)
            )[::-1]
            left, win = lim.total_max, 0
            for mult, (lo, hi) in mults:
                amount = min(hi, left) // lim.step * lim.step
                if amount < lo:
                    continue
                win += amount * mult
                left -= amount
            best = max(best, win)
        return best

    # --- catalogue ----------------------------------------------------------------------------------------
    def catalogue_entry(self) -> definition_.CatalogueEntry:
        lim = self.limits
        types = []
        for t, info in BET_TYPES.items():
            entry = {
                "type": t,
                "name_en": info["en"],
                "name_cs": info["cs"],
                "category": info["category"],
                "covers": info["size"],
                "multiplier": info["multiplier"],
                "payout": f"{info['multiplier'] - 1}:1",
            }
            if t in INSIDE_SETS:
                entry["fields"] = ["numbers", "amount"]
                entry["valid_numbers"] = [list(s) for s in INSIDE_SETS[t]]
            elif t in SELECTOR_KEY:
                entry["fields"] = [SELECTOR_KEY[t], "amount"]
                entry["choices"] = {k: sorted(covered_numbers({"type": t, SELECTOR_KEY[t]: k})) for k in (1, 2, 3)}
            else:
                entry["fields"] = ["amount"]
                entry["numbers"] = sorted(covered_numbers({"type": t}))
            types.append(entry)
        return definition_.CatalogueEntry(
            code=self.code,
            version=self.version,
            name=self.name,
            name_cs=self.name_cs,
            kind=self.kind,
            source=self.source,
            bet=self.bet_model,
            default_bet=self.default_bet_params,
            par_bet=self.default_bet_params,
            declared=self.declared,
            declared_extra={"rtp_exact": "36/37"},
            extra={
                "layout": {
                    "pockets": POCKETS,
                    "zero": ZERO,
                    "rows": [list(r) for r in ROWS],
                    "red": sorted(RED),
                    "black": sorted(BLACK),
                    "colours": {str(n): colour(n) for n in range(POCKETS)},
                },
                "bet_types": types,
                "type_aliases": dict(TYPE_ALIASES),
                "limits": {
                    "inside": {"min": lim.inside_min, "max": lim.inside_max},
                    "outside": {"min": lim.outside_min, "max": lim.outside_max},
                    "total": {"min": lim.total_min, "max": lim.total_max},
                    "step": lim.step,
                    "max_entries": lim.max_entries,
                    "note_en": "Limits apply per bet position; chips on the same position are added together.",
                    "note_cs": "Limity platí pro každé sázkové pole; žetony na stejném poli se sčítají.",
                },
            },
            rules_en=(
                "The ball lands in one of 37 pockets: 0 (green) and 1-36 (red or black). Place chips on the "
                "table; each winning bet pays its amount times its multiplier (the multiplier includes the "
                "stake). All outside bets lose on 0. Wins of all bets of a spin are added together."
            ),
            rules_cs=(
                "Kulička se ustálí na jednom z 37 políček: 0 (zelená) a 1-36 (červená nebo černá). Sázející "
                "rozmístí žetony na hrací pole; každá výherní sázka vyplácí vsazenou částku krát svůj "
                "multiplikátor (multiplikátor zahrnuje vklad). Všechny vnější sázky při 0 prohrávají. Dílčí "
                "výhry jedné hry se sčítají."
            ),
        )

    # --- bets ---------------------------------------------------------------------------------------------
    def _parse_one(self, i: int, raw: object) -> JsonDict:
        if not isinstance(raw, dict):
            raise _err(E_INVALID_BET, f"Bet #{i + 1} must be an object.", f"Sázka č. {i + 1} musí být objekt.", index=i)
        t = raw.get("type")
        t = TYPE_ALIASES.get(t, t) if isinstance(t, str) else None  # a list/dict type is unknown, not a crash
        if t not in BET_TYPES:
            raise _err(
                E_UNKNOWN_TYPE,
                f"Unknown bet type {raw.get('type')!r}.",
                f"Neznámý typ sázky {raw.get('type')!r}.",
                index=i,
                type=str(raw.get("type")),
            )
        if t in INSIDE_SETS:
            allowed = {"type", "numbers", "amount"}
        elif t in SELECTOR_KEY:
            allowed = {"type", SELECTOR_KEY[t], "amount"}
        else:
            allowed = {"type", "amount"}
        extra = sorted(str(k) for k in set(raw) - allowed)
        if extra:
            raise _err(
                E_INVALID_BET,
                f"Bet #{i + 1} ({t}) has unexpected fields: {', '.join(extra)}.",
                f"Sázka č. {i + 1} ({t}) obsahuje nepovolená pole: {', '.join(extra)}.",
                index=i,
                type=t,
                fields=extra,
            )
        bet: JsonDict = {"type": t}
        if t in INSIDE_SETS:
            nums = raw.get("numbers")
            ok = isinstance(nums, list) and all(isinstance(n, int) and not isinstance(n, bool) for n in nums)
            key = tuple(sorted(nums)) if ok and isinstance(nums, list) else None
            if key is None or key not in _INSIDE_LOOKUP[t]:
                raise _err(
                    E_INVALID_NUMBERS,
                    f"The numbers {nums!r} do not form a {BET_TYPES[t]['en'].lower()} bet on the table.",
                    f"Čísla {nums!r} netvoří na hracím poli sázku typu {BET_TYPES[t]['cs']}.",
                    index=i,
                    type=t,
                    numbers=nums if isinstance(nums, list) else None,
                )
            bet["numbers"] = list(key)
        elif t in SELECTOR_KEY:
            k = SELECTOR_KEY[t]
            v = raw.get(k)
            if not (isinstance(v, int) and not isinstance(v, bool) and v in (1, 2, 3)):
                raise _err(
                    E_INVALID_SELECTION,
                    f"{BET_TYPES[t]['en']}: '{k}' must be 1, 2 or 3.",
                    f"{BET_TYPES[t]['cs']}: '{k}' musí být 1, 2 nebo 3.",
                    index=i,
                    type=t,
                    value=v,
                )
            bet[k] = v
        amount = raw.get("amount")
        if not isinstance(amount, int) or isinstance(amount, bool):
            raise _err(
                E_INVALID_AMOUNT,
                f"Bet #{i + 1}: the amount must be a whole number of haléř.",
                f"Sázka č. {i + 1}: částka musí být celé číslo v haléřích.",
                index=i,
                type=t,
            )
        lo, _ = self.limits.for_category(BET_TYPES[t]["category"])
        if amount <= 0:
            raise _err(
                E_BET_BELOW_MIN,
                f"{BET_TYPES[t]['en']}: the minimum bet is {_czk(lo, 'en')}.",
                f"{BET_TYPES[t]['cs']}: minimální sázka je {_czk(lo, 'cs')}.",
                index=i,
                type=t,
                amount=amount,
                min=lo,
            )
        if amount % self.limits.step:
            step = self.limits.step
            raise _err(
                E_STAKE_STEP,
                f"Each bet must be a multiple of {_czk(step, 'en')} (GP §8(1)).",
                f"Každá sázka musí být násobkem {_czk(step, 'cs')} (GP §8(1)).",
                index=i,
                type=t,
                amount=amount,
                step=step,
            )
        bet["amount"] = amount
        return bet

    def _parse_table(self, params: JsonDict) -> Bet:
        """The table's bet (``bet_model``): each placed bet checked, chips on one position added, the limits of each
        position and of the total (GP §8(1)-(2))."""
        if not isinstance(params, dict) or set(params) - {"bets"}:
            raise BetError(
                "game.invalid_bet", 'A roulette bet is {"bets": [...]}.', 'Sázka rulety má tvar {"bets": [...]}.'
            )
        raw = params.get("bets")
        if not isinstance(raw, list) or not raw:
            raise _err(E_NO_BETS, "Place at least one bet.", "Umístěte alespoň jednu sázku.")
        if len(raw) > self.limits.max_entries:
            raise _err(
                E_TOO_MANY_BETS,
                f"At most {self.limits.max_entries} bets per spin.",
                f"Nejvýše {self.limits.max_entries} sázek na jednu hru.",
                max=self.limits.max_entries,
            )
        merged: dict[tuple[Any, ...], JsonDict] = {}
        for i, item in enumerate(raw):
            bet = self._parse_one(i, item)
            key = (TYPE_ORDER[bet["type"]], tuple(bet.get("numbers", ())), bet.get("dozen", 0), bet.get("column", 0))
            if key in merged:
                merged[key]["amount"] += bet["amount"]
            else:
                merged[key] = bet
        bets = [merged[k] for k in sorted(merged)]
        for b in bets:
            info = BET_TYPES[b["type"]]
            lo, hi = self.limits.for_category(info["category"])
            if b["amount"] < lo:
                raise _err(
                    E_BET_BELOW_MIN,
                    f"{info['en']}: the minimum bet is {_czk(lo, 'en')}.",
                    f"{info['cs']}: minimální sázka je {_czk(lo, 'cs')}.",
                    type=b["type"],
                    amount=b["amount"],
                    min=lo,
                )
            if b["amount"] > hi:
                raise _err(
                    E_BET_ABOVE_MAX,
                    f"{info['en']}: the maximum bet is {_czk(hi, 'en')}.",
                    f"{info['cs']}: maximální sázka je {_czk(hi, 'cs')}.",
                    type=b["type"],
                    amount=b["amount"],
                    max=hi,
                )
        total = sum(b["amount"] for b in bets)
        if total < self.limits.total_min:
            raise _err(
                E_STAKE_BELOW_MIN,
                f"The total stake must be at least {_czk(self.limits.total_min, 'en')}.",
                f"Celková sázka musí být alespoň {_czk(self.limits.total_min, 'cs')}.",
                total=total,
                min=self.limits.total_min,
            )
        if total > self.limits.total_max:
            raise _err(
                E_STAKE_ABOVE_MAX,
                f"The total stake may not exceed {_czk(self.limits.total_max, 'en')} (GP §8(2)).",
                f"Celková sázka nesmí překročit {_czk(self.limits.total_max, 'cs')} (GP §8(2)).",
                total=total,
                max=self.limits.total_max,
            )
        return Bet(total_stake=total, params={"bets": bets})

    # --- play ---------------------------------------------------------------------------------------------
    @staticmethod
    def bet_win(bet: JsonDict, number: int) -> int:
        return int(bet["amount"]) * BET_TYPES[bet["type"]]["multiplier"] if number in covered_numbers(bet) else 0

    def payout_by_pocket(self, bet: Bet) -> list[int]:
        """Total paid for each of the 37 pockets."""
        pays = [0] * POCKETS
        for b in bet.params["bets"]:
            mult = BET_TYPES[b["type"]]["multiplier"]
            for n in covered_numbers(b):
                pays[n] += b["amount"] * mult
        return pays

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        number = rng.randbelow(POCKETS)
        results = [dict(b, win=self.bet_win(b, number)) for b in bet.params["bets"]]
        win = sum(r["win"] for r in results)
        return {
            "status": STATUS_FINISHED,
            "win": win,
            "stake": bet.total_stake,
            "steps": [{"type": "spin", "number": number, "colour": colour(number), "bets": results, "win": win}],
            "pending": None,
            "jackpot_events": [],
            "breakdown": {"base": win, "free_spins": 0, "bonus": 0, "gamble": 0},
        }

    def act(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        raise ActionError(
            "game.no_action",
            "a roulette spin finishes at once; there is nothing to do",
            "hra rulety končí okamžitě; není co provést",
        )

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction]:
        """Exact RTP by enumerating the 37 equally likely pockets: 36/37 for every bet and every mix of bets."""
        return {"base": Fraction(sum(self.payout_by_pocket(bet)), POCKETS * bet.total_stake)}

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """Draw the pockets with numpy (PCG64 seeded with ``seed``) and settle through the payout table.

        Exact integer totals: outcomes are counted per pocket and the sums are formed in Python ints."""
        if rounds <= 0:
            raise EngineError("game.simulation_rounds", "rounds must be positive")
        gen = np.random.default_rng(seed)
        counts = [0] * POCKETS
        done, batch = 0, 1_000_000
        while done < rounds:
            n = min(batch, rounds - done)
            for pocket, c in enumerate(np.bincount(gen.integers(0, POCKETS, size=n), minlength=POCKETS).tolist()):
                counts[pocket] += c
            done += n
            if progress:
                progress(done, rounds)
        pays = self.payout_by_pocket(bet)
        total_win = sum(c * p for c, p in zip(counts, pays))
        sum_sq = sum(c * p * p for c, p in zip(counts, pays))
        hits = sum(c for c, p in zip(counts, pays) if p > 0)
        return {
            "rounds": rounds,
            "total_stake": rounds * bet.total_stake,
            "total_win": total_win,
            "rtp": total_win / (rounds * bet.total_stake),
            "breakdown": {"base": total_win, "free_spins": 0, "bonus": 0, "gamble": 0, "jackpot": 0},
            "breakdown_sum_sq": {"base": sum_sq},
            "hit_count": hits,
            "hit_frequency": hits / rounds,
            "sum_sq": sum_sq,
            "max_win": max((p for c, p in zip(counts, pays) if c), default=0),
            "feature_counts": {"zero": counts[ZERO]},
        }


EUROPEAN_ROULETTE = register(
    EuropeanRoulette(
        code="european_roulette",
        version=1,
        name="European Roulette",
        name_cs="Evropská ruleta",
        # a spin never waits for the player, so the 180-day deadline of GP §7(8)b never applies
        limits=RouletteLimits(),
        unfinished_deadline_days=180,
        source="Tipsport game plan, Part two, European Roulette (catalogue entry 8)",
    )
)

# Catalogue entry 9: built, not registered (docs/games/roulette.md says why).
EUROPEAN_ROULETTE_2 = EuropeanRoulette(
    code="european_roulette_2",
    version=1,
    name="European Roulette (2)",
    name_cs="Evropská ruleta (2)",
    limits=RouletteLimits(
        inside_min=1_000, inside_max=25_000, outside_min=5_000, outside_max=100_000, total_min=1_000, total_max=100_000
    ),
    unfinished_deadline_days=90,
    source="Tipsport game plan, Part two, European Roulette (2) (catalogue entry 9)",
)
