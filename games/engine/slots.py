"""Shared slot machinery: the small feature modules every slot game definition is assembled from.

Pure Python (numpy only in the optional lookup-table helpers used by fast simulators and exact tables).
Every game is *data* (reel strips as lists of symbol names, paytables as dicts, paylines as row lists, feature
parameters) plus the functions here; a game module wires them together (see ``games/kobushi/``,
``games/fruit_king.py``, ``games/simply_the_best_27.py``).

Conventions
-----------
* A **window** is ``window[reel][row]``: a list of reels (columns), each a list of the symbols shown from the top
  row down. A reel's **stop** is the strip index of its top row; row ``r`` shows ``strip[(stop + r) % len(strip)]``.
* All randomness goes through ``rng.randbelow(n)``: a stop is ``rng.randbelow(len(strip))``, a weighted draw is
  one ``randbelow(total weight)``, a range ``lo..hi`` is ``lo + randbelow(hi - lo + 1)``.
* **Player choices never change a result** (GP §7(3)): a pick bonus draws its whole prize sequence when it
  triggers (:func:`split_prize`), and the gamble draws win/lose first and derives the shown card from the guess
  (:func:`gamble_draw`).
* A line pays **the highest combination** on it (its symbol, the count of leading matching positions and the
  paytable multiplier); wins of different lines are added. Multipliers in paytables are integers; each game says
  what they multiply (the line bet, the total stake).
* States are plain JSON (dicts, lists, ints, strings): no tuples, so ``json.loads(json.dumps(state)) == state``.
"""

from __future__ import annotations

import copy
import itertools
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from .base import RNG, STATUS_AWAITING_ACTION, STATUS_FINISHED, ActionError, Bet, BetError, Game, JsonDict

Window: TypeAlias = list[list[str]]  # window[reel][row]
# One best combination of a line: (symbol, count, multiplier).
LineWin: TypeAlias = tuple[str, int, int]

BREAKDOWN_PARTS = ("base", "free_spins", "bonus", "gamble")
COLOURS = ("red", "black")
SUITS = {"red": ("hearts", "diamonds"), "black": ("spades", "clubs")}


# --- money and errors -------------------------------------------------------------------------------------------
def czk(minor: int, lang: str = "en") -> str:
    """A minor-unit amount as text: ``1 234.50 CZK`` / ``1 234,50 Kč``."""
    whole, part = divmod(abs(minor), 100)
    sign = "-" if minor < 0 else ""
    if lang == "cs":
        return f"{sign}{whole:,}".replace(",", "\u00a0") + f",{part:02d} Kč"
    return f"{sign}{whole:,}.{part:02d} CZK"


def bet_error(code: str, en: str, cs: str, **details: Any) -> BetError:
    return BetError(code, en, cs, **details)


def is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def check_stake(total: int, *, min_bet: int, max_bet: int, step: int = 10) -> None:
    """GP §8(1)-(2): the total stake lies within the game's limits and is a multiple of 0.10 CZK."""
    if total < min_bet:
        raise bet_error(
            "game.stake_below_min",
            f"The total stake must be at least {czk(min_bet)} (GP §8(1)).",
            f"Celková sázka musí být alespoň {czk(min_bet, 'cs')} (GP §8(1)).",
            total=total,
            min=min_bet,
        )
    if total > max_bet:
        raise bet_error(
            "game.stake_above_max",
            f"The total stake may not exceed {czk(max_bet)} (GP §8(2)).",
            f"Celková sázka nesmí překročit {czk(max_bet, 'cs')} (GP §8(2)).",
            total=total,
            max=max_bet,
        )
    if total % step:
        raise bet_error(
            "game.stake_step",
            f"The total stake must be a multiple of {czk(step)} (GP §8(1)).",
            f"Celková sázka musí být násobkem {czk(step, 'cs')} (GP §8(1)).",
            total=total,
            step=step,
        )


def check_keys(params: object, allowed: Iterable[str]) -> JsonDict:
    if not isinstance(params, dict):
        raise bet_error("game.invalid_bet", "The bet must be an object.", "Sázka musí být objekt.")
    extra = sorted(str(k) for k in set(params) - set(allowed))
    if extra:
        raise bet_error(
            "game.invalid_bet",
            f"Unexpected bet fields: {', '.join(extra)}.",
            f"Nepovolená pole sázky: {', '.join(extra)}.",
            fields=extra,
        )
    return params


# --- reels ------------------------------------------------------------------------------------------------------
def draw_stops(strips: Sequence[Sequence[str]], rng: RNG) -> list[int]:
    """One uniform stop per reel: ``rng.randbelow(len(strip))``."""
    return [rng.randbelow(len(s)) for s in strips]


def column(strip: Sequence[str], stop: int, rows: int) -> list[str]:
    n = len(strip)
    return [strip[(stop + r) % n] for r in range(rows)]


def window_at(strips: Sequence[Sequence[str]], stops: Sequence[int], rows: int) -> list[list[str]]:
    return [column(s, stop, rows) for s, stop in zip(strips, stops)]


def count_symbols(window: Sequence[Sequence[str]], symbols: str | Iterable[str]) -> int:
    """How many positions of the window show one of ``symbols`` (scatter counting: anywhere)."""
    wanted = {symbols} if isinstance(symbols, str) else set(symbols)
    return sum(1 for col in window for s in col if s in wanted)


# --- draws ------------------------------------------------------------------------------------------------------
def draw_range(rng: RNG, lo: int, hi: int) -> int:
    """Uniform integer in ``lo..hi`` (both included)."""
    return lo + rng.randbelow(hi - lo + 1)


def draw_weighted(rng: RNG, table: Sequence[Sequence[Any]]) -> Any:
    """``table`` = [[value, weight], ...] with positive integer weights; one ``randbelow(sum of weights)``."""
    total = sum(w for _, w in table)
    r = rng.randbelow(total)
    for value, w in table:
        if r < w:
            return value
        r -= w
    raise AssertionError("unreachable")  # pragma: no cover


def weighted_mean(table: Sequence[Sequence[int]]) -> Fraction:
    return Fraction(sum(v * w for v, w in table), sum(w for _, w in table))


# --- paylines ---------------------------------------------------------------------------------------------------
class LineEvaluator:
    """Pays one line: the highest combination read from the left (and from the right when ``both_ways``).

    ``paytable`` maps a symbol to ``{count: multiplier}``; symbols absent from it (scatters, bonus symbols) never
    pay on a line and are never substituted. ``wilds`` maps each wild symbol to the symbols it does **not**
    substitute (its exclusions). A wild may itself be in the paytable (it then pays as itself).

    Which combinations a line can pay: the run of leading wilds pays as each of those wild symbols, and the first
    non-wild symbol pays with every leading position that is that symbol or a wild substituting it. A line made
    only of substitutes never pays as a symbol that is not on it. The highest multiplier wins (ties: the longer
    combination, then paytable order). Results are cached per symbol sequence (evaluators are immutable).
    """

    def __init__(self, paytable: dict[str, dict[int, int]], wilds: dict[str, Iterable[str]] | None = None) -> None:
        self.paytable = {s: {int(k): int(v) for k, v in p.items()} for s, p in paytable.items()}
        self.wilds = {w: frozenset(ex) for w, ex in (wilds or {}).items()}
        self._order = {s: i for i, s in enumerate(self.paytable)}
        self._cache: dict[tuple[str, ...], LineWin | None] = {}

    def matches(self, position: str, candidate: str) -> bool:
        return position == candidate or (position in self.wilds and candidate not in self.wilds[position])

    def candidates(self, seq: Sequence[str]) -> list[str]:
        out: list[str] = []
        for p in seq:
            if p in self.wilds:
                if p in self.paytable and p not in out:
                    out.append(p)
                continue
            if p in self.paytable and p not in out:
                out.append(p)
            break
        return out

    def run_length(self, seq: Sequence[str], candidate: str) -> int:
        n = 0
        for p in seq:
            if not self.matches(p, candidate):
                break
            n += 1
        return n

    def evaluate(self, seq: Sequence[str]) -> LineWin | None:
        """(symbol, count, multiplier) of the best left-to-right combination of ``seq``, or None."""
        key = tuple(seq)
        if key in self._cache:
            return self._cache[key]
        best: LineWin | None = None
        for c in self.candidates(key):
            n = self.run_length(key, c)
            m = self.paytable[c].get(n, 0)
            if m and (best is None or (m, n, -self._order[c]) > (best[2], best[1], -self._order[best[0]])):
                best = (c, n, m)
        if len(self._cache) < 2_000_000:
            self._cache[key] = best
        return best

    def alive(self, prefix: Sequence[str]) -> bool:
        """Whether a longer line starting with ``prefix`` could still pay differently (some run is unbroken)."""
        if not prefix:
            return True
        cands = self.candidates(prefix)
        if not cands:
            # only wilds that do not pay as themselves so far (or nothing): still open while all are wilds
            return all(p in self.wilds for p in prefix)
        if all(p in self.wilds for p in prefix):
            return True  # the first non-wild symbol is still to come
        return any(self.run_length(prefix, c) == len(prefix) for c in cands)


def line_wins(
    window: Sequence[Sequence[str]],
    lines: Sequence[Sequence[int]],
    evaluator: LineEvaluator,
    active: int | None = None,
    both_ways: bool = False,
) -> list[list[Any]]:
    """``[[line number (1-based), symbol, count, multiplier, direction], ...]`` for the first ``active`` lines.

    ``direction`` is "ltr" or "rtl" (both-ways games); a full-length combination is paid once."""
    out: list[list[Any]] = []
    n_reels = len(window)
    for i, rows in enumerate(lines[: active if active is not None else len(lines)]):
        seq = tuple(window[j][rows[j]] for j in range(n_reels))
        w = evaluator.evaluate(seq)
        if w:
            out.append([i + 1, w[0], w[1], w[2], "ltr"])
        if both_ways and not (w and w[1] == n_reels):
            r = evaluator.evaluate(seq[::-1])
            if r:
                out.append([i + 1, r[0], r[1], r[2], "rtl"])
    return out


def criss_cross_lines(reels: int, rows: int, first: Sequence[Sequence[int]] = ()) -> list[list[int]]:
    """All rows**reels lines (one position per reel): ``first`` in the given order, then the rest in
    lexicographic order."""
    out = [list(x) for x in first]
    for combo in itertools.product(range(rows), repeat=reels):
        if list(combo) not in out:
            out.append(list(combo))
    return out


# --- exact expectations -----------------------------------------------------------------------------------------
def symbol_counts(strip: Sequence[str]) -> dict[str, int]:
    """How many stops show each symbol at a fixed row (the same for every row of a circular strip)."""
    return dict(Counter(strip))


def expected_line_multiplier(evaluator: LineEvaluator, dists: Sequence[dict[str, int]]) -> Fraction:
    """E[multiplier of one line] when position j independently shows symbol s with weight ``dists[j][s]``.

    Depth-first over the reels; a prefix whose every run is already broken is settled at once (its result
    cannot change), so the enumeration stays small. Exact (integer weights, one Fraction at the end)."""
    totals = [sum(d.values()) for d in dists]
    tail = [1] * (len(dists) + 1)
    for j in range(len(dists) - 1, -1, -1):
        tail[j] = tail[j + 1] * totals[j]
    items = [sorted(d.items()) for d in dists]

    def rec(depth: int, prefix: tuple[str, ...], weight: int) -> int:
        if depth == len(dists) or not evaluator.alive(prefix):
            w = evaluator.evaluate(prefix)
            return weight * tail[depth] * (w[2] if w else 0)
        return sum(rec(depth + 1, prefix + (s,), weight * c) for s, c in items[depth])

    return Fraction(rec(0, (), 1), tail[0])


def window_count_distribution(strip: Sequence[str], rows: int, symbols: str | Iterable[str]) -> dict[int, int]:
    """{k: number of stops whose window shows k of ``symbols``}."""
    wanted = {symbols} if isinstance(symbols, str) else set(symbols)
    c: Counter[int] = Counter()
    for stop in range(len(strip)):
        c[sum(1 for s in column(strip, stop, rows) if s in wanted)] += 1
    return dict(c)


def convolve_counts(dists: Sequence[dict[int, int]]) -> dict[int, int]:
    """Distribution of the sum of independent counts (integer weights: the product of the reels' stop counts)."""
    out = {0: 1}
    for d in dists:
        nxt: dict[int, int] = {}
        for a, wa in out.items():
            for b, wb in d.items():
                nxt[a + b] = nxt.get(a + b, 0) + wa * wb
        out = nxt
    return out


def count_probabilities(
    strips: Sequence[Sequence[str]], rows: int, symbols: str | Iterable[str]
) -> dict[int, Fraction]:
    """Exact P(the window shows k of ``symbols``) over uniform independent stops."""
    dists = [window_count_distribution(s, rows, symbols) for s in strips]
    total = 1
    for s in strips:
        total *= len(s)
    return {k: Fraction(w, total) for k, w in sorted(convolve_counts(dists).items())}


# --- numpy lookup tables (fast simulators, exact tables) --------------------------------------------------------
def build_line_lut(evaluator: LineEvaluator, alphabet: Sequence[str], reels: int) -> npt.NDArray[np.int32]:
    """numpy int32 array of shape (len(alphabet),) * reels: the line multiplier of every symbol sequence.

    Index a line by ``sum(code[j] * A ** (reels - 1 - j))`` on the flattened table (row-major order)."""
    a = len(alphabet)
    lut = np.zeros((a,) * reels, dtype=np.int32)
    for idx in itertools.product(range(a), repeat=reels):
        w = evaluator.evaluate(tuple(alphabet[i] for i in idx))
        if w:
            lut[idx] = w[2]
    return lut


def build_line_lut_np(evaluator: LineEvaluator, alphabet: Sequence[str], reels: int) -> npt.NDArray[np.int32]:
    """The same table as :func:`build_line_lut`, computed with numpy array logic (fast; tested equal)."""
    a = len(alphabet)
    idx = np.indices((a,) * reels).reshape(reels, -1).T  # every symbol sequence, as codes
    n = idx.shape[0]
    is_wild = np.array([s in evaluator.wilds for s in alphabet])
    nonwild = ~is_wild[idx]
    first_nw = np.where(nonwild.any(axis=1), nonwild.argmax(axis=1), reels)
    first_code = idx[np.arange(n), np.minimum(first_nw, reels - 1)]
    pos = np.arange(reels)[None, :]
    best = np.zeros(n, dtype=np.int32)
    for c, table in evaluator.paytable.items():
        if c not in alphabet:
            continue
        ci = list(alphabet).index(c)
        match = np.array([evaluator.matches(s, c) for s in alphabet])[idx]
        run = np.where(match.all(axis=1), reels, (~match).argmax(axis=1))
        if c in evaluator.wilds:
            allowed = ((idx == ci) & (pos < first_nw[:, None])).any(axis=1)
        else:
            allowed = (first_nw < reels) & (first_code == ci)
        pays = np.zeros(reels + 1, dtype=np.int32)
        for k, v in table.items():
            if k <= reels:
                pays[k] = v
        best = np.maximum(best, np.where(allowed, pays[run], 0).astype(np.int32))
    return best.reshape((a,) * reels)


def lut_expectation(lut: npt.NDArray[np.integer[Any]], dists: Sequence[npt.ArrayLike]) -> int:
    """Exact integer sum_{idx} lut[idx] * prod_j dists[j][idx_j] (int64 contraction, reel by reel from the last).

    The caller divides by the product of the weights' totals. Raises if an int64 overflow is possible."""
    bound = int(np.abs(lut).max())
    for d in dists:
        bound *= int(np.sum(d))
    if bound >= 2**62:
        raise OverflowError("lut_expectation would overflow int64")
    t = lut.astype(np.int64)
    for d in reversed(dists):
        t = t @ np.asarray(d, dtype=np.int64)
    return int(t)


# --- pick bonus -------------------------------------------------------------------------------------------------
def split_prize(rng: RNG, units: int, parts: int) -> list[int]:
    """Split ``units`` (>= ``parts``) into ``parts`` positive integers at ``parts - 1`` distinct random cuts.

    Draw i picks one of the ``units - 1 - i`` cut points still free (``randbelow``), so every composition is
    equally likely. The parts are returned in order along the cut line."""
    if not 1 <= parts <= units:
        raise ValueError("need 1 <= parts <= units")
    free = list(range(1, units))
    cuts = sorted(free.pop(rng.randbelow(len(free))) for _ in range(parts - 1))
    bounds = [0] + cuts + [units]
    return [bounds[i + 1] - bounds[i] for i in range(parts)]


# --- gamble -----------------------------------------------------------------------------------------------------
def other_colour(colour: str) -> str:
    return "black" if colour == "red" else "red"


def gamble_draw(rng: RNG, guess: str) -> JsonDict:
    """One red/black double-or-nothing, p = 1/2, whatever the guess (GP §7(3)).

    The outcome is drawn first, ``won = rng.randbelow(2) == 1``; the card shown is **derived from the guess**:
    the guessed colour when won, the other colour when lost, its suit one more (cosmetic) ``randbelow(2)``. The
    same draws with another guess give the same won/lost result, only a different card picture."""
    if guess not in COLOURS:
        raise ActionError("game.invalid_colour", "Guess red or black.", "Zvolte červenou nebo černou.")
    won = rng.randbelow(2) == 1
    colour = guess if won else other_colour(guess)
    suit = SUITS[colour][rng.randbelow(2)]
    return {"guess": guess, "won": won, "colour": colour, "suit": suit}


def gamble_options(win: int, played: int, max_gambles: int, cap: int) -> list[JsonDict]:
    """Legal gamble actions: red/black while gambles remain and doubling stays within the cap; collect always."""
    opts: list[JsonDict] = []
    if win > 0 and played < max_gambles and 2 * win <= cap:
        opts = [{"type": "gamble", "colour": c} for c in COLOURS]
    return opts + [{"type": "collect"}]


# --- round states -----------------------------------------------------------------------------------------------
def new_state(game: Game, bet: Bet) -> JsonDict:
    return {
        "game": game.code,
        "version": game.version,
        "status": STATUS_FINISHED,
        "win": 0,
        "stake": bet.total_stake,
        "bet": copy.deepcopy(bet.params),
        "steps": [],
        "pending": None,
        "jackpot_events": [],
        "breakdown": {k: 0 for k in BREAKDOWN_PARTS},
    }


def add_win(state: JsonDict, part: str, amount: int) -> None:
    state["win"] += amount
    state["breakdown"][part] += amount


def await_action(state: JsonDict, kind: str, options: list[JsonDict], **info: Any) -> JsonDict:
    state["status"] = STATUS_AWAITING_ACTION
    state["pending"] = {"type": kind, "options": options, **info}
    return state


def finish(state: JsonDict) -> JsonDict:
    state["status"] = STATUS_FINISHED
    state["pending"] = None
    return state


def same_action(action: object, option: JsonDict) -> bool:
    """Literal equality with an offered option, types included (``True`` or ``1.0`` is not the index 1)."""
    return (
        isinstance(action, dict)
        and action.keys() == option.keys()
        and all(type(action[k]) is type(v) and action[k] == v for k, v in option.items())
    )


class SlotGame(Game):
    """Common plumbing of the slot games: action checking and the simulator's default policy.

    ``act`` refuses anything that is not literally one of ``state["pending"]["options"]`` and never mutates the
    state it is given; the game's handler ``_act_<type>(state, action, rng)`` gets a deep copy."""

    kind = "slot"

    def act(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        if not isinstance(state, dict) or state.get("status") != STATUS_AWAITING_ACTION or not state.get("pending"):
            raise ActionError("game.round_finished", "The round awaits no action.", "Hra nečeká na žádnou akci.")
        if state.get("game") != self.code or state.get("version") != self.version:
            raise ActionError(
                "game.wrong_game", "The round belongs to another game or version.", "Hra patří jiné hře nebo verzi."
            )
        if not any(same_action(action, o) for o in state["pending"]["options"]):
            raise ActionError(
                "game.invalid_action",
                "This action is not allowed now.",
                "Tuto akci nyní nelze provést.",
                allowed=state["pending"]["options"],
            )
        handler: Callable[[JsonDict, JsonDict, RNG], JsonDict] | None = getattr(self, f"_act_{action['type']}", None)
        if handler is None:  # pragma: no cover - options come from the game itself
            raise ActionError("game.invalid_action", "Unknown action.", "Neznámá akce.")
        return handler(copy.deepcopy(state), dict(action), rng)

    def default_action(self, state: JsonDict) -> JsonDict:
        """The simulator's policy: pick the first item offered (the lowest index), spin, collect (never gamble)."""
        pending = state.get("pending") if isinstance(state, dict) else None
        if state.get("status") != STATUS_AWAITING_ACTION or not pending:
            raise ActionError("game.no_action", "The round awaits no action.", "Hra nečeká na žádnou akci.")
        if pending["type"] == "gamble":
            return {"type": "collect"}
        return dict(pending["options"][0])
