"""PAR sheets and simulation statistics for any registered game: exact RTP parts plus a seeded simulation.

Used by the management commands ``par_sheet`` and ``simulate``, by ``scripts/par_sheets.py`` (which writes
``docs/par-sheets.md``, where the sheets and how to read them are) and by the all-games RTP test.
"""

from __future__ import annotations

import json
import math
import numbers
import time
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction
from typing import Protocol

from . import figures
from .base import RNG, STATUS_AWAITING_ACTION, Bet, EngineError, Game, JsonDict, Progress, RNGFactory
from .registry import get_game, list_games

BREAKDOWN_KEYS = ("base", "free_spins", "bonus", "gamble", "jackpot")
# The canonical simulation statistics, returned by ``Game.simulate_fast`` and by :func:`simulate_generic` for one
# fixed bet (every round has the same stake); money in integer minor units:
#   rounds, total_stake (rounds x stake), total_win (sum of every round's win), rtp (float, informative),
#   breakdown ({part: win summed}, parts as BREAKDOWN_KEYS; games may add more; "jackpot" is what the engine itself
#   paid: normally 0, the platform pays jackpots from ``jackpot_events``, counted in feature_counts),
#   hit_count (rounds with a win), hit_frequency, sum_sq (sum of win ** 2: the variance; Python ints never
#   overflow), max_win, feature_counts ({str: int}, free-form counters).
# Optional, for tighter confidence intervals: breakdown_sum_sq ({part: sum of that part's win squared}) and
# remainder_sum_sq (sum of (win - the parts computed exactly) ** 2, see par_sheet) with remainder_parts.
STATS_KEYS = (
    "rounds",
    "total_stake",
    "total_win",
    "rtp",
    "breakdown",
    "hit_count",
    "hit_frequency",
    "sum_sq",
    "max_win",
    "feature_counts",
)
MIN_RTP = Decimal("84.24")  # GP §8(4)
Z95 = 1.959963984540054  # two-sided normal quantiles
Z99 = 2.5758293035489004
DEFAULT_ROUNDS_FAST = 1_000_000
DEFAULT_ROUNDS_GENERIC = 100_000
MAX_ACTIONS_PER_ROUND = 10_000  # a round that needs more default actions than this is a game bug


# --- statistics dict -------------------------------------------------------------------------------------
def empty_stats() -> JsonDict:
    return {
        "rounds": 0,
        "total_stake": 0,
        "total_win": 0,
        "rtp": 0.0,
        "breakdown": {k: 0 for k in BREAKDOWN_KEYS},
        "hit_count": 0,
        "hit_frequency": 0.0,
        "sum_sq": 0,
        "max_win": 0,
        "feature_counts": {},
    }


def validate_stats(stats: object, *, rounds: int | None = None, stake: int | None = None) -> JsonDict:
    """Check a statistics dict has the canonical shape (STATS_KEYS; raises ValueError); fills missing breakdown
    keys and turns numpy integers into Python ints."""
    if not isinstance(stats, dict):
        raise ValueError("simulation statistics must be a dict")
    missing = [k for k in STATS_KEYS if k not in stats]
    if missing:
        raise ValueError(f"simulation statistics lack {missing}")
    for k in ("rounds", "total_stake", "total_win", "hit_count", "sum_sq", "max_win"):
        if not isinstance(stats[k], numbers.Integral) or isinstance(stats[k], bool):
            raise ValueError(f"simulation statistic {k!r} must be an int, got {type(stats[k]).__name__}")
        stats[k] = int(stats[k])  # numpy integers -> Python ints (exact, unbounded arithmetic from here on)
    for key in ("breakdown", "feature_counts", "breakdown_sum_sq"):
        if key in stats:
            stats[key] = {k: int(v) if isinstance(v, numbers.Integral) else v for k, v in stats[key].items()}
    if rounds is not None and stats["rounds"] != rounds:
        raise ValueError(f"simulation played {stats['rounds']} rounds, {rounds} asked")
    if stake is not None and stats["total_stake"] != stats["rounds"] * stake:
        raise ValueError("total_stake differs from rounds x stake")
    for k in BREAKDOWN_KEYS:
        stats["breakdown"].setdefault(k, 0)
    return stats


def finalise(stats: JsonDict) -> JsonDict:
    n = stats["rounds"]
    stats["rtp"] = stats["total_win"] / stats["total_stake"] if stats["total_stake"] else 0.0
    stats["hit_frequency"] = stats["hit_count"] / n if n else 0.0
    return stats


def merge_stats(a: JsonDict, b: JsonDict) -> JsonDict:
    """Sum two statistics dicts of the same bet (e.g. batches or workers)."""
    out = empty_stats()
    for k in ("rounds", "total_stake", "total_win", "hit_count", "sum_sq"):
        out[k] = a[k] + b[k]
    out["max_win"] = max(a["max_win"], b["max_win"])
    for key in ("breakdown", "feature_counts", "breakdown_sum_sq"):
        if key in a or key in b:
            d: dict[str, int] = {}
            for src in (a.get(key, {}), b.get(key, {})):
                for k, v in src.items():
                    d[k] = d.get(k, 0) + v
            out[key] = d
    if "remainder_sum_sq" in a and "remainder_sum_sq" in b:
        out["remainder_sum_sq"] = a["remainder_sum_sq"] + b["remainder_sum_sq"]
    return finalise(out)


# --- simulation ------------------------------------------------------------------------------------------
def play_round(game: Game, bet: Bet, rng: RNG, carry: JsonDict | None = None) -> tuple[JsonDict, int]:
    """Play one round to the end, answering every pending action with ``game.default_action``; a carry-over
    game starts from ``carry`` (the state the player's previous round left)."""
    state = game.start_carried(bet, rng, carry) if game.carry_over else game.start(bet, rng)
    actions = 0
    while state["status"] == STATUS_AWAITING_ACTION:
        actions += 1
        if actions > MAX_ACTIONS_PER_ROUND:
            raise EngineError(
                "game.simulation_stuck",
                f"{game.code}: round still awaits an action after {MAX_ACTIONS_PER_ROUND} default actions",
            )
        state = game.act(state, game.default_action(state), rng)
    return state, actions


class _Tally:
    """The running sums of :func:`simulate_generic`."""

    def __init__(self, exact_parts: frozenset[str]) -> None:
        self.exact_parts = exact_parts
        self.total_win = self.hits = self.sum_sq = self.max_win = self.rem_sq = 0
        self.breakdown: dict[str, int] = {k: 0 for k in BREAKDOWN_KEYS}
        self.breakdown_sq: dict[str, int] = {k: 0 for k in BREAKDOWN_KEYS}
        self.features: dict[str, int] = {}

    def _count(self, key: str, n: int = 1) -> None:
        self.features[key] = self.features.get(key, 0) + n

    def add(self, state: JsonDict, actions: int) -> None:
        win = state["win"]
        self.total_win += win
        self.sum_sq += win * win
        if win > 0:
            self.hits += 1
        self.max_win = max(self.max_win, win)
        covered = 0
        for k, v in (state.get("breakdown") or {}).items():
            if not v:
                continue
            self.breakdown[k] = self.breakdown.get(k, 0) + v
            self.breakdown_sq[k] = self.breakdown_sq.get(k, 0) + v * v
            if k in self.exact_parts:
                covered += v
            if k in ("free_spins", "bonus", "gamble", "jackpot"):
                self._count(f"{k}_win_rounds")
        rem = win - covered
        self.rem_sq += rem * rem
        if actions:
            self._count("actions", actions)
        self._count_events(state)

    def _count_events(self, state: JsonDict) -> None:
        events = state.get("jackpot_events") or []
        if events:
            self._count("jackpot_events", len(events))
            for ev in events:
                tier = ev.get("tier") or ev.get("type") if isinstance(ev, dict) else None
                if tier:
                    self._count(f"jackpot:{tier}")
        for step in state.get("steps") or ():
            if isinstance(step, dict):
                feat = step.get("feature")
                if isinstance(feat, str):
                    self._count(f"feature:{feat}")


def simulate_generic(
    game: Game,
    bet: Bet,
    rounds: int,
    seed: int,
    progress: Progress | None = None,
    exact_parts: frozenset[str] = frozenset(),
    batch: int = 10_000,
    *,
    rng_factory: RNGFactory,
) -> JsonDict:
    """Play ``rounds`` rounds through start/act with one ``rng_factory(seed)``; canonical statistics. A
    carry-over game's rounds are one player's, each starting from the state the previous one left.

    The engine has no RNG of its own: the callers (management commands, scripts, tests) pass the platform's
    seeded generator, ``core.rng.SeededRNG``."""
    if rounds <= 0:
        raise ValueError("rounds must be positive")
    rng = rng_factory(seed)
    tally = _Tally(exact_parts)
    done = 0
    carry: JsonDict | None = None
    while done < rounds:
        n = min(batch, rounds - done)
        for _ in range(n):
            state, actions = play_round(game, bet, rng, carry)
            carry = state.get("carry_out") if game.carry_over else None
            tally.add(state, actions)
        done += n
        if progress:
            progress(done, rounds)
    stats = empty_stats()
    stats.update(
        rounds=rounds,
        total_stake=rounds * bet.total_stake,
        total_win=tally.total_win,
        hit_count=tally.hits,
        sum_sq=tally.sum_sq,
        max_win=tally.max_win,
        breakdown=tally.breakdown,
        feature_counts=tally.features,
        breakdown_sum_sq=tally.breakdown_sq,
        remainder_sum_sq=tally.rem_sq,
        remainder_parts=sorted(exact_parts),
    )
    return finalise(stats)


def has_fast_simulator(game: Game) -> bool:
    return type(game).simulate_fast is not Game.simulate_fast


def run_simulation(
    game: Game,
    bet: Bet,
    rounds: int,
    seed: int,
    progress: Progress | None = None,
    fast: bool = True,
    exact_parts: frozenset[str] = frozenset(),
    *,
    rng_factory: RNGFactory,
) -> tuple[JsonDict, str]:
    """The game's simulate_fast when it has one (and ``fast``), else the generic loop with ``rng_factory(seed)``.
    Returns (stats, engine)."""
    if fast:
        stats = game.simulate_fast(bet, rounds, seed, progress=progress)
        if stats is not None:
            validate_stats(stats, rounds=rounds, stake=bet.total_stake)
            return finalise(stats), "simulate_fast"
    return simulate_generic(
        game, bet, rounds, seed, progress=progress, exact_parts=exact_parts, rng_factory=rng_factory
    ), "generic"


def summarise(stats: JsonDict, stake: int) -> JsonDict:
    """Mean, volatility and normal-approximation confidence intervals of the RTP (win/stake per round)."""
    n = stats["rounds"]
    mean = Fraction(stats["total_win"], n * stake)
    var = Fraction(stats["sum_sq"], n * stake * stake) - mean * mean  # population variance of win/stake
    sd = math.sqrt(max(float(var), 0.0))
    se = sd / math.sqrt(n)
    m = float(mean)
    return {
        "rtp": m,
        "rtp_percent": 100 * m,
        "volatility": sd,
        "standard_error": se,
        "ci95": [100 * (m - Z95 * se), 100 * (m + Z95 * se)],
        "ci99": [100 * (m - Z99 * se), 100 * (m + Z99 * se)],
        "hit_frequency": stats["hit_count"] / n,
        "max_win": stats["max_win"],
    }


def simulate(
    game: Game,
    bet_params: JsonDict | None,
    rounds: int,
    seed: int,
    progress: Progress | None = None,
    fast: bool = True,
    *,
    rng_factory: RNGFactory,
) -> JsonDict:
    """Simulate ``rounds`` rounds of one bet; canonical statistics plus timing and a summary."""
    bet = game.validate_bet(representative_bet_params(game) if bet_params is None else bet_params)
    t0 = time.perf_counter()
    stats, engine = run_simulation(game, bet, rounds, seed, progress=progress, fast=fast, rng_factory=rng_factory)
    elapsed = time.perf_counter() - t0
    out = dict(stats)
    out.update(
        game=game.code,
        version=game.version,
        bet=bet.params,
        stake=bet.total_stake,
        seed=seed,
        engine=engine,
        elapsed_seconds=elapsed,
        rounds_per_second=rounds / elapsed if elapsed > 0 else float("inf"),
        summary=summarise(stats, bet.total_stake),
    )
    return out


# --- PAR sheet -------------------------------------------------------------------------------------------
def representative_bet_params(game: Game) -> JsonDict:
    """The bet a PAR sheet uses when none is given: ``game.par_bet_params`` or ``game.default_bet_params``
    (a dict attribute), else ``describe()["par_bet"]``/``["default_bet"]``/``["bet_example"]``, else ``{}``."""
    for attr in ("par_bet_params", "default_bet_params"):
        v = getattr(game, attr, None)
        if isinstance(v, dict):
            return v
    d = game.describe()
    for key in ("par_bet", "default_bet", "bet_example"):
        v = d.get(key)
        if isinstance(v, dict):
            return v
    return {}


def exact_part_of(key: str, parts: tuple[str, ...] = BREAKDOWN_KEYS) -> str:
    """The breakdown part an exact_rtp key belongs to: the part itself (``"base"``) or the part followed by ``_``
    and any detail (``"base_lines"``); a key that names no part (``"lines"``, ``"scatter"``) is a base-game pay."""
    for p in parts:
        if key == p or key.startswith(p + "_"):
            return p
    return "base"


def _pct(f: Fraction | float) -> float:
    return float(f) * 100


def declared_tolerance(rtp: Decimal) -> float:
    """One unit of the declared RTP's last decimal, in percentage points (97.29 -> 0.01). A declared RTP is the
    theoretical figure rounded down, so the theoretical figure lies in [declared, declared + one unit): the declared
    figure counts as inside a CI when it is at most the CI's upper end and at least its lower end less one unit."""
    exp = rtp.as_tuple().exponent
    return float(10**exp) if isinstance(exp, int) else 0.0


def par_sheet(
    game: Game,
    bet_params: JsonDict | None = None,
    rounds: int | None = None,
    seed: int = 1,
    progress: Progress | None = None,
    fast: bool = True,
    *,
    rng_factory: RNGFactory,
) -> JsonDict:
    """Exact parts + simulation of one bet of ``game``. The result is JSON-able (fractions as "p/q" strings).

    ``Game.exact_rtp(bet)`` gives {key: Fraction of the stake}, each key naming the breakdown part it computes
    (:func:`exact_part_of`). **The exact keys of one part must together cover that whole part**: the sheet replaces
    the simulated value of every part named by an exact key with the exact sum and keeps the simulation only for the
    other parts, RTP = sum(exact parts) + simulated win of the other parts / total stake. The confidence interval
    comes from the per-round variance of the simulated remainder only (zero width when everything is exact). As a
    guard against a key that covers only part of a breakdown part, each exact part is also compared with its
    simulated value (``exact_vs_simulated``)."""
    bet = game.validate_bet(representative_bet_params(game) if bet_params is None else bet_params)
    if rounds is None:
        rounds = DEFAULT_ROUNDS_FAST if fast and has_fast_simulator(game) else DEFAULT_ROUNDS_GENERIC
    exact = game.exact_rtp(bet) or {}
    exact_parts = frozenset(exact_part_of(k) for k in exact)
    exact_total = sum(exact.values(), Fraction(0))
    stats, engine = run_simulation(
        game, bet, rounds, seed, progress=progress, fast=fast, exact_parts=exact_parts, rng_factory=rng_factory
    )
    n, stake = stats["rounds"], bet.total_stake
    total_stake = stats["total_stake"]
    sim = summarise(stats, stake)
    bd = stats["breakdown"]

    # Remainder: what the exact parts do not cover, estimated by simulation.
    covered_win = sum(bd.get(p, 0) for p in exact_parts)
    remainder_win = stats["total_win"] - covered_win
    rem_sd, method = _remainder_sd(stats, exact_parts, remainder_win, stake, sim["volatility"])
    combined = exact_total + Fraction(remainder_win, total_stake)
    se = rem_sd / math.sqrt(n)
    cm = float(combined)

    declared = game.declared
    # a game that declares a figure per player option (Ismael Beiro v2: AUTO-RISK) is checked against the figure
    # that applies to this bet (``declared_rtp_for``); every other game against its declared RTP
    rtp_for = getattr(game, "declared_rtp_for", None)
    declared_rtp: Decimal = rtp_for(bet.params) if callable(rtp_for) else declared.rtp
    tol = declared_tolerance(declared_rtp)

    def inside(lo_hi_center: float, z: float, se_: float, target: Decimal = declared_rtp) -> bool:
        t, half = float(target), 100 * z * se_
        return lo_hi_center - half - declared_tolerance(target) - 1e-12 <= t <= lo_hi_center + half + 1e-12

    parts = {
        p: _breakdown_row(p, stats, exact, exact_parts, stake, sim["volatility"])
        for p in dict.fromkeys(list(BREAKDOWN_KEYS) + list(bd))
    }

    return {
        "game": {"code": game.code, "version": game.version, "name": game.name, "kind": game.kind},
        "bet": bet.params,
        "stake": stake,
        "declared": {
            "rtp_percent": str(declared_rtp),
            "rtp_with_jackpots_percent": str(declared.rtp_with_jackpots) if declared.rtp_with_jackpots else None,
            "min_bet": declared.min_bet,
            "max_bet": declared.max_bet,
            "max_win": declared.max_win,
            "unfinished_deadline_days": declared.unfinished_deadline_days,
            "avg_hourly_loss": declared.avg_hourly_loss,
            # what the platform offers (its default limits; games.engine.figures): the maximum win a player can reach
            **_offered(game),
        },
        "exact": {
            "parts": {
                k: {"fraction": f"{v.numerator}/{v.denominator}", "percent": _pct(v), "part": exact_part_of(k)}
                for k, v in exact.items()
            },
            "total_fraction": f"{exact_total.numerator}/{exact_total.denominator}",
            "total_percent": _pct(exact_total),
            "covers": sorted(exact_parts),
        },
        "simulation": {
            "engine": engine,
            "rounds": n,
            "seed": seed,
            "total_stake": total_stake,
            "total_win": stats["total_win"],
            "rtp_percent": sim["rtp_percent"],
            "ci95": sim["ci95"],
            "ci99": sim["ci99"],
            "standard_error_percent": 100 * sim["standard_error"],
            "declared_inside_ci95": inside(sim["rtp_percent"], Z95, sim["standard_error"]),
            "declared_inside_ci99": inside(sim["rtp_percent"], Z99, sim["standard_error"]),
            "hit_count": stats["hit_count"],
            "hit_frequency": sim["hit_frequency"],
            "volatility": sim["volatility"],
            "max_win": stats["max_win"],
            "max_win_multiplier": stats["max_win"] / stake,
            "feature_counts": dict(sorted(stats["feature_counts"].items())),
        },
        "breakdown": parts,
        "rtp": {
            "percent": 100 * cm,
            "fraction": f"{combined.numerator}/{combined.denominator}" if not remainder_win else None,
            "ci95": [100 * (cm - Z95 * se), 100 * (cm + Z95 * se)],
            "ci99": [100 * (cm - Z99 * se), 100 * (cm + Z99 * se)],
            "standard_error_percent": 100 * se,
            "remainder_sd_method": method,
            "declared_tolerance_pp": tol,
            "declared_inside_ci95": inside(100 * cm, Z95, se),
            "declared_inside_ci99": inside(100 * cm, Z99, se),
            # exact: the value itself; otherwise not significantly below (99 % CI upper bound)
            "at_least_min_rtp": (100 * combined >= Fraction(MIN_RTP))
            if se == 0
            else 100 * (cm + Z99 * se) >= float(MIN_RTP),
            "declared_at_least_min_rtp": declared_rtp >= MIN_RTP,
        },
        "max_win": {
            "reached": stats["max_win"],
            "declared": declared.max_win,
            "within_declared": stats["max_win"] <= declared.max_win,
        },
        "with_jackpots": _with_jackpots(game, bet, combined, remainder_win, se, inside),
        # a game whose player has choices prints its RTP under each way of playing (Ismael Beiro version 3)
        "strategies": _strategies(game, bet, rounds, seed) if fast else None,
    }


def _offered(game: Game) -> JsonDict:
    f = figures.published(game)
    return {
        "offered_max_bet": f["max_bet"],
        "offered_max_win": f["max_win"],
        "rtp_range": f["rtp_range"],
        "hit_frequency_published": f["hit_frequency_percent"],
        "volatility_published": f["volatility"],
    }


def _strategies(game: Game, bet: Bet, rounds: int, seed: int) -> JsonDict | None:
    table = getattr(game, "strategy_table", None)
    return table(bet, rounds, seed) if callable(table) else None


def _with_jackpots(
    game: Game,
    bet: Bet,
    combined: Fraction,
    remainder_win: int,
    se: float,
    inside: Callable[[float, float, float, Decimal], bool],
) -> JsonDict | None:
    """The sheet's "with_jackpots" section: the combined RTP + ``Game.jackpot_return(bet)`` (exact, so the standard
    error is the sheet's), compared with the declared RTP with jackpots. None for a game without jackpots (no
    jackpot return and no declared RTP with jackpots). A bet that can win no jackpot (``jackpot_return`` None) gets
    the game RTP, compared with the declared game RTP, and ``eligible`` False."""
    declared = game.declared
    jr = game.jackpot_return(bet)
    if jr is None and declared.rtp_with_jackpots is None:
        return None
    eligible = jr is not None
    parts = jr or {}
    jackpot = sum(parts.values(), Fraction(0))
    total = combined + jackpot
    tm = float(total)
    target = declared.rtp_with_jackpots if eligible else declared.rtp
    return {
        "eligible": eligible,
        "note": "eligible: the RTP plus the jackpots' exact return"
        if eligible
        else "not eligible: this bet can never win a jackpot, its RTP with jackpots is the game RTP",
        "parts": {k: {"fraction": f"{v.numerator}/{v.denominator}", "percent": _pct(v)} for k, v in parts.items()},
        "jackpot_fraction": f"{jackpot.numerator}/{jackpot.denominator}",
        "jackpot_percent": _pct(jackpot),
        "percent": 100 * tm,
        "fraction": f"{total.numerator}/{total.denominator}" if not remainder_win else None,
        "ci95": [100 * (tm - Z95 * se), 100 * (tm + Z95 * se)],
        "ci99": [100 * (tm - Z99 * se), 100 * (tm + Z99 * se)],
        "standard_error_percent": 100 * se,
        "declared_percent": str(target) if target is not None else None,
        "declared_figure": ("rtp_with_jackpots" if eligible else "rtp") if target is not None else None,
        "declared_tolerance_pp": declared_tolerance(target) if target is not None else None,
        "declared_inside_ci95": inside(100 * tm, Z95, se, target) if target is not None else None,
        "declared_inside_ci99": inside(100 * tm, Z99, se, target) if target is not None else None,
    }


def _remainder_sd(
    stats: JsonDict, exact_parts: frozenset[str], remainder_win: int, stake: int, volatility: float
) -> tuple[float, str | None]:
    """SD per round of the simulated remainder (win minus the exact parts) in stakes, and how it was found."""
    n = stats["rounds"]
    bd = stats["breakdown"]
    bd_sq = stats.get("breakdown_sum_sq") or {}
    if not exact_parts:
        rem_sq, method = stats["sum_sq"], "total"
    elif "remainder_sum_sq" in stats and set(stats.get("remainder_parts", exact_parts)) == set(exact_parts):
        rem_sq, method = stats["remainder_sum_sq"], "remainder"
    else:
        rem_sq, method = None, None
    if rem_sq is not None:
        rem_mean = Fraction(remainder_win, n * stake)
        rem_var = Fraction(rem_sq, n * stake * stake) - rem_mean * rem_mean
        return math.sqrt(max(float(rem_var), 0.0)), method
    other = [p for p in bd if p not in exact_parts and bd.get(p)]
    if remainder_win == 0 and not other:
        return 0.0, "none"
    if all(p in bd_sq for p in other) and sum(bd.get(p, 0) for p in bd) == stats["total_win"]:
        # Cauchy-Schwarz: sd(sum of parts) <= sum of the parts' sd (an upper bound).
        rem_sd = 0.0
        for p in other:
            m = Fraction(bd[p], n * stake)
            rem_sd += math.sqrt(max(float(Fraction(bd_sq[p], n * stake * stake) - m * m), 0.0))
        return rem_sd, "sum_of_part_sd"
    return volatility, "total_sd_approximation"


def _breakdown_row(
    part: str, stats: JsonDict, exact: dict[str, Fraction], exact_parts: frozenset[str], stake: int, volatility: float
) -> JsonDict:
    """One part of the sheet's breakdown: simulated, and for an exact part its value and the consistency check."""
    n, total_stake = stats["rounds"], stats["total_stake"]
    bd_sq = stats.get("breakdown_sum_sq") or {}
    sim_part = Fraction(stats["breakdown"].get(part, 0), total_stake)
    row: JsonDict = {"simulated_percent": _pct(sim_part), "exact": part in exact_parts}
    if part in exact_parts:
        ex = sum((v for k, v in exact.items() if exact_part_of(k) == part), Fraction(0))
        row["exact_fraction"] = f"{ex.numerator}/{ex.denominator}"
        row["exact_percent"] = _pct(ex)
        if part in bd_sq:
            m = float(sim_part)
            sd_p = math.sqrt(max(bd_sq[part] / (n * stake * stake) - m * m, 0.0))
        else:
            sd_p = volatility
        se_p = sd_p / math.sqrt(n)
        diff = float(sim_part - ex)
        row["exact_vs_simulated_z"] = diff / se_p if se_p else (0.0 if diff == 0 else math.inf)
        row["exact_vs_simulated_consistent"] = abs(diff) <= Z99 * se_p + 1e-12
    return row


# --- formatting ------------------------------------------------------------------------------------------
def czk(minor: int) -> str:
    whole, part = divmod(abs(minor), 100)
    return f"{'-' if minor < 0 else ''}{whole:,}.{part:02d} CZK"


def _ci(ci: list[float], digits: int = 4) -> str:
    return f"[{ci[0]:.{digits}f} %, {ci[1]:.{digits}f} %]"


def format_par_sheet(sheet: JsonDict) -> str:
    g, d, ex, sim, rtp = sheet["game"], sheet["declared"], sheet["exact"], sheet["simulation"], sheet["rtp"]
    yes = {True: "yes", False: "NO"}
    lines = [
        f"PAR sheet: {g['name']} ({g['code']} v{g['version']}, {g['kind']})",
        f"Bet: {json.dumps(sheet['bet'], ensure_ascii=False, separators=(',', ':'))}",
        f"Stake per round: {czk(sheet['stake'])}",
        "",
        "Declared figures (GP §7(2))",
        f"  RTP                          {d['rtp_percent']} %"
        + (f" (with jackpots {d['rtp_with_jackpots_percent']} %)" if d["rtp_with_jackpots_percent"] else ""),
        f"  min / max bet offered        {czk(d['min_bet'])} / {czk(d['offered_max_bet'])}"
        f"  (engine: {czk(d['max_bet'])}; the platform's default limits)",
        f"  max win at max bet offered   {czk(d['offered_max_win'])}  (engine: {czk(d['max_win'])})",
        *(
            [f"  RTP range (ways of playing)  {d['rtp_range']['min']} % - {d['rtp_range']['max']} %"]
            if d.get("rtp_range")
            else []
        ),
        f"  hit frequency / volatility   {d['hit_frequency_published']} % / {d['volatility_published']}  "
        "(published, from this sheet's simulation)",
        f"  avg hourly loss at max bet   {czk(d['avg_hourly_loss'])}  (max bet x (1 - RTP) x 1,800 rounds)",
        f"  unfinished round deadline    {d['unfinished_deadline_days']} days",
        "",
        "Exact RTP parts (exact_rtp)",
    ]
    if ex["parts"]:
        for k, v in ex["parts"].items():
            lines.append(f"  {k:<28} {v['fraction']:>24} = {v['percent']:.6f} %  (part: {v['part']})")
        lines.append(
            f"  {'total':<28} {ex['total_fraction']:>24} = {ex['total_percent']:.6f} %  "
            f"(covers: {', '.join(ex['covers'])})"
        )
    else:
        lines.append("  none: everything below is simulated")
    lines += [
        "",
        f"Simulation ({sim['engine']}): {sim['rounds']:,} rounds, seed {sim['seed']}",
        f"  RTP simulated                {sim['rtp_percent']:.4f} %  (SE {sim['standard_error_percent']:.4f} pp)",
        f"  95 % CI                      {_ci(sim['ci95'])}  declared inside: {yes[sim['declared_inside_ci95']]}",
        f"  99 % CI                      {_ci(sim['ci99'])}  declared inside: {yes[sim['declared_inside_ci99']]}",
        f"  hit frequency                {100 * sim['hit_frequency']:.4f} %  (1 in {1 / sim['hit_frequency']:.2f})"
        if sim["hit_frequency"]
        else "  hit frequency                0 %",
        f"  volatility (SD of win/stake) {sim['volatility']:.4f}",
        f"  max win reached              {czk(sim['max_win'])}  ({sim['max_win_multiplier']:.2f}x stake)",
        "",
        "Breakdown (RTP contribution, % of stake)",
    ]
    for p, row in sheet["breakdown"].items():
        s = f"  {p:<28} simulated {row['simulated_percent']:9.4f} %"
        if row["exact"]:
            s += (
                f"   exact {row['exact_percent']:.6f} %  (z = {row['exact_vs_simulated_z']:+.2f}, "
                f"consistent: {yes[row['exact_vs_simulated_consistent']]})"
            )
        lines.append(s)
    if sim["feature_counts"]:
        lines.append("Feature counts")
        for k, v in sim["feature_counts"].items():
            lines.append(f"  {k:<28} {v:,}  ({v / sim['rounds']:.6f} per round)")
    frac = f" = {rtp['fraction']}" if rtp["fraction"] else ""
    lines += [
        "",
        "RTP (exact parts + simulated remainder)",
        f"  RTP                          {rtp['percent']:.4f} %{frac}",
        f"  95 % CI                      {_ci(rtp['ci95'])}",
        f"  99 % CI                      {_ci(rtp['ci99'])}  (remainder SD: {rtp['remainder_sd_method']})",
        f"  declared {d['rtp_percent']} % inside 99 % CI  {yes[rtp['declared_inside_ci99']]}"
        f"  (rounded down: up to {rtp['declared_tolerance_pp']} pp below the CI, never above)",
        f"  RTP >= {MIN_RTP} % (GP §8(4))     {yes[rtp['at_least_min_rtp'] and rtp['declared_at_least_min_rtp']]}",
        f"  max win reached <= declared  {yes[sheet['max_win']['within_declared']]}"
        f"  ({czk(sheet['max_win']['reached'])} <= {czk(sheet['max_win']['declared'])})",
    ]
    if sheet.get("with_jackpots"):
        lines += _format_with_jackpots(sheet["with_jackpots"])
    if sheet.get("strategies"):  # the game formats its own table (``lines``)
        lines += list(sheet["strategies"]["lines"])
    return "\n".join(lines) + "\n"


def _format_with_jackpots(wj: JsonDict) -> list[str]:
    yes = {True: "yes", False: "NO"}
    lines = ["", "RTP with jackpots (RTP above + exact jackpot return, Game.jackpot_return)"]
    if wj["eligible"]:
        for k, v in wj["parts"].items():
            lines.append(f"  {k:<28} {v['fraction']:>24} = {v['percent']:.6f} %")
        lines.append(f"  {'jackpot return':<28} {wj['jackpot_fraction']:>24} = {wj['jackpot_percent']:.6f} %")
    else:
        lines.append(f"  {wj['note']}")
    lines += [
        f"  RTP with jackpots            {wj['percent']:.4f} %" + (f" = {wj['fraction']}" if wj["fraction"] else ""),
        f"  95 % CI                      {_ci(wj['ci95'])}",
        f"  99 % CI                      {_ci(wj['ci99'])}",
    ]
    if wj["declared_percent"] is not None:
        figure = "with jackpots" if wj["declared_figure"] == "rtp_with_jackpots" else "game RTP"
        lines.append(
            f"  declared {wj['declared_percent']} % ({figure}) inside 95 % CI {yes[wj['declared_inside_ci95']]}"
            f", 99 % CI {yes[wj['declared_inside_ci99']]}"
            f"  (rounded down: up to {wj['declared_tolerance_pp']} pp below the CI, never above)"
        )
    return lines


# --- helpers for the management commands and scripts -----------------------------------------------------
def resolve_game(code: str, version: int | None = None) -> Game:
    """A registered game by code (``code`` or ``code@version``); KeyError lists what exists."""
    if version is None and "@" in code:
        code, _, v = code.partition("@")
        version = int(v)
    try:
        return get_game(code, version)
    except KeyError:
        known = ", ".join(f"{g.code}@{g.version}" for g in list_games())
        raise KeyError(
            f"unknown game {code!r}{f' version {version}' if version is not None else ''}; registered: {known}"
        ) from None


def parse_bet_json(text: str | None) -> JsonDict | None:
    """``--bet`` argument: a JSON object, or None for the game's representative bet."""
    if text is None:
        return None
    value = json.loads(text)
    if not isinstance(value, dict):
        raise ValueError("the bet must be a JSON object")
    return value


class TextStream(Protocol):
    def write(self, text: str, /) -> object: ...

    def flush(self) -> object: ...


class ProgressBar:
    """A plain-text progress bar for a stream (stderr): ``[#####.....]  50.0 %  500,000/1,000,000``."""

    def __init__(self, stream: TextStream, width: int = 40, label: str = "") -> None:
        self.stream, self.width, self.label = stream, width, label
        self.t0 = time.perf_counter()

    def __call__(self, done: int, total: int) -> None:
        frac = done / total if total else 1.0
        filled = int(round(self.width * frac))
        rate = done / max(time.perf_counter() - self.t0, 1e-9)
        self.stream.write(
            f"\r{self.label}[{'#' * filled}{'.' * (self.width - filled)}] {100 * frac:5.1f} %  "
            f"{done:,}/{total:,}  {rate:,.0f}/s"
        )
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()
