"""Common plumbing of the catalogue-mechanics games: bet models, the round cap, the declared
figures and the catalogue description, so that each game module holds only its data and its round.

Pure Python. A game's definition is a dict with at least ``code``, ``version``, ``name``, ``name_cs``, ``source``,
``follows`` (the catalogue entry), ``rtp``, ``unfinished_deadline_days``, ``max_win_multiplier`` (the round cap in
stakes), ``bet`` (one of the bet models below) and ``rules_en`` / ``rules_cs``.

Bet models (the catalogue's, ``docs/games/<code>.md``):

* ``{"model": "total", "min": 10, "max": 30000, "step": 10, "default": 100}``: the player sets the total bet
  (``{"stake": n}``); pays are multiples of ``stake / unit`` (``unit`` divides the stake grid, e.g. 10).
* ``{"model": "level", "coins_per_level": 20, "levels": [1..10], "coin_values": [...], "default": {...}}``:
  total = coins per level x level x coin value (``{"level": l, "coin_value": c}``); pays are multiples of the
  *line bet* = level x coin value (a coin of every line).
* ``{"model": "lines", "max_lines": 10, "max_coins": 5, "coin_values": [...], "default": {...}}``: total =
  coin value x coins x lines (``{"lines": n, "coins": k, "coin_value": c}``); line bet = coins x coin value.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from . import slots
from .base import Bet, Declared, JsonDict, Progress


class MechSlot(slots.SlotGame):
    """A slot game of the mechanics wave: bet validation per model, the cap, ``describe``."""

    def __init__(self, definition: dict[str, Any]) -> None:
        d = self.d = definition
        self.code, self.version, self.name, self.name_cs = d["code"], d["version"], d["name"], d["name_cs"]
        b = d["bet"]
        if b["model"] == "total":
            min_bet, max_bet = b["min"], b["max"]
        elif b["model"] == "level":
            min_bet = b["coins_per_level"] * min(b["levels"]) * min(b["coin_values"])
            max_bet = b["coins_per_level"] * max(b["levels"]) * max(b["coin_values"])
        elif b["model"] == "lines":
            min_bet = min(b["coin_values"])
            max_bet = b["max_lines"] * b["max_coins"] * max(b["coin_values"])
        else:  # pragma: no cover - a definition error
            raise ValueError(f"unknown bet model {b['model']!r}")
        self.max_win_multiplier: int = d["max_win_multiplier"]
        self.declared = Declared(rtp=Decimal(d["rtp"]), min_bet=min_bet, max_bet=max_bet,
                                 max_win=self.max_win_multiplier * max_bet,
                                 unfinished_deadline_days=d["unfinished_deadline_days"])
        self.default_bet_params: JsonDict = dict(b["default"])
        self.par_bet_params: JsonDict = dict(d.get("par_bet", b["default"]))

    # --- bets -------------------------------------------------------------------------------------------------
    def validate_bet(self, params: JsonDict) -> Bet:
        b = self.d["bet"]
        model = b["model"]
        if model == "total":
            slots.check_keys(params, ("stake",))
            stake = params.get("stake", b["default"]["stake"])
            if not slots.is_int(stake):
                raise slots.bet_error("game.invalid_stake", "The stake must be a whole number of haléř.",
                                      "Sázka musí být celé číslo v haléřích.", stake=stake)
            slots.check_stake(stake, min_bet=b["min"], max_bet=b["max"], step=b["step"])
            return Bet(total_stake=stake, params={"stake": stake})
        if model == "level":
            slots.check_keys(params, ("level", "coin_value"))
            level = params.get("level", b["default"]["level"])
            coin = params.get("coin_value", b["default"]["coin_value"])
            if not slots.is_int(level) or level not in b["levels"]:
                raise slots.bet_error("game.invalid_level", f"The bet level must be one of {b['levels']}.",
                                      f"Úroveň sázky musí být jedna z {b['levels']}.", level=level)
            if not slots.is_int(coin) or coin not in b["coin_values"]:
                raise slots.bet_error("game.invalid_coin", "Unknown coin value.", "Neznámá hodnota mince.",
                                      coin_value=coin, allowed=b["coin_values"])
            total = b["coins_per_level"] * level * coin
            slots.check_stake(total, min_bet=self.declared.min_bet, max_bet=self.declared.max_bet, step=10)
            return Bet(total_stake=total, params={"level": level, "coin_value": coin})
        slots.check_keys(params, ("lines", "coins", "coin_value"))
        lines = params.get("lines", b["default"]["lines"])
        coins = params.get("coins", b["default"]["coins"])
        coin = params.get("coin_value", b["default"]["coin_value"])
        if not slots.is_int(lines) or not 1 <= lines <= b["max_lines"]:
            raise slots.bet_error("game.invalid_lines", f"Lines must be a whole number from 1 to {b['max_lines']}.",
                                  f"Počet linií musí být celé číslo od 1 do {b['max_lines']}.", lines=lines)
        if not slots.is_int(coins) or not 1 <= coins <= b["max_coins"]:
            raise slots.bet_error("game.invalid_coins", f"Coins per line must be 1 to {b['max_coins']}.",
                                  f"Počet mincí na linii musí být 1 až {b['max_coins']}.", coins=coins)
        if not slots.is_int(coin) or coin not in b["coin_values"]:
            raise slots.bet_error("game.invalid_coin", "Unknown coin value.", "Neznámá hodnota mince.",
                                  coin_value=coin, allowed=b["coin_values"])
        total = lines * coins * coin
        slots.check_stake(total, min_bet=self.declared.min_bet, max_bet=self.declared.max_bet, step=10)
        return Bet(total_stake=total, params={"lines": lines, "coins": coins, "coin_value": coin})

    def pay_unit(self, params: JsonDict) -> int:
        """What one paytable unit is worth in haléř for this bet: the line bet (level / lines models) or
        ``stake / unit`` (total model)."""
        b = self.d["bet"]
        if b["model"] == "total":
            return int(params["stake"]) // int(b["unit"])
        if b["model"] == "level":
            return int(params["level"]) * int(params["coin_value"])
        return int(params["coins"]) * int(params["coin_value"])

    # --- the round cap ----------------------------------------------------------------------------------------
    def new_round(self, bet: Bet) -> JsonDict:
        state = slots.new_state(self, bet)
        state["cap"] = self.max_win_multiplier * bet.total_stake
        state["capped"] = False
        return state

    @staticmethod
    def pay(state: JsonDict, part: str, amount: int) -> int:
        """Add a win within the round's cap; reaching the cap ends the round (GP §8(3) in the engine)."""
        paid: int = min(amount, state["cap"] - state["win"])
        slots.add_win(state, part, paid)
        if state["win"] >= state["cap"]:
            state["capped"] = True
        return paid

    # --- catalogue --------------------------------------------------------------------------------------------
    def describe_extra(self) -> JsonDict:
        """The game's own part of ``describe()`` (paytable, layout, features)."""
        return {}

    def describe(self) -> JsonDict:
        d, dec, b = self.d, self.declared, self.d["bet"]
        bet_options: JsonDict = {k: v for k, v in b.items() if k != "default"}
        bet_options["stake"] = {"min": dec.min_bet, "max": dec.max_bet, "step": b.get("step", 10)}
        out: JsonDict = {
            "code": self.code, "version": self.version, "name": self.name, "name_cs": self.name_cs, "kind": self.kind,
            "source": d["source"], "follows": d["follows"], "bet_options": bet_options,
            "default_bet": dict(self.default_bet_params), "par_bet": dict(self.par_bet_params),
            "max_win_multiplier": self.max_win_multiplier,
            "declared": {"rtp": str(dec.rtp), "min_bet": dec.min_bet, "max_bet": dec.max_bet, "max_win": dec.max_win,
                         "avg_hourly_loss": dec.avg_hourly_loss,
                         "unfinished_deadline_days": dec.unfinished_deadline_days},
            "rules_en": d["rules_en"], "rules_cs": d["rules_cs"],
        }
        out.update(self.describe_extra())
        return out


# --- reel strips from symbol counts ------------------------------------------------------------------------------
def spread_strip(counts: dict[str, int], stacks: dict[str, int] | None = None) -> list[str]:
    """A reel strip with ``counts[s]`` blocks of each symbol spread evenly (deterministic, the data of a game).

    A symbol in ``stacks`` comes in blocks of that many consecutive stops (a stacked symbol), so the strip holds
    ``counts[s] * stacks[s]`` of it. Block i of symbol s sits at the fraction ``(i + 0.5) / counts[s]`` of the
    strip; blocks are ordered by that fraction, ties by the order of ``counts``."""
    stacks = stacks or {}
    blocks: list[tuple[float, int, str]] = []
    for order, (s, c) in enumerate(counts.items()):
        for i in range(c):
            blocks.append(((i + 0.5) / c, order, s))
    blocks.sort()
    out: list[str] = []
    for _, _, s in blocks:
        out.extend([s] * stacks.get(s, 1))
    return out


def shuffled_strip(counts: dict[str, int], seed: int) -> list[str]:
    """A reel strip holding ``counts[s]`` of each symbol in a fixed pseudo-random order (the data of a game: a
    Fisher-Yates shuffle driven by a 64-bit linear congruential generator from ``seed``, so the strip never
    changes). Used where evenly spread strips would line up across columns (cluster grids)."""
    out = [s for s, c in counts.items() for _ in range(c)]
    x = seed & 0xFFFFFFFFFFFFFFFF
    for i in range(len(out) - 1, 0, -1):
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        j = (x >> 33) % (i + 1)
        out[i], out[j] = out[j], out[i]
    return out


# --- the vectorised simulators' bookkeeping -------------------------------------------------------------------------
def batches(rounds: int, size: int, progress: Progress | None = None) -> Iterator[int]:
    """The batch sizes of a vectorised simulation of ``rounds`` rounds, ``size`` at most; ``progress(done,
    rounds)`` is told after each batch has been played."""
    done = 0
    while done < rounds:
        n = min(size, rounds - done)
        yield n
        done += n
        if progress:
            progress(done, rounds)


class FastTally:
    """The running sums every ``simulate_fast`` returns (``games.engine.par``'s statistics): the round wins of each
    batch given by part of the breakdown (numpy int64 arrays, haléř), summed with their squares, hits and the
    largest win. A game's simulator keeps its own rules; this keeps only the arithmetic they all repeat."""

    def __init__(self, parts: Sequence[str]) -> None:
        self.parts = tuple(parts)
        self.total = self.sum_sq = self.hits = self.max_win = 0
        self.by_part: dict[str, int] = dict.fromkeys(self.parts, 0)
        self.sq: dict[str, int] = dict.fromkeys(self.parts, 0)

    def add(self, **arrays: npt.NDArray[np.int64]) -> None:
        """One batch: ``arrays[part]`` is every round's win of that part (the round's win is their sum)."""
        win = np.zeros_like(arrays[self.parts[0]])
        for part in self.parts:
            arr = arrays[part]
            self.by_part[part] += int(arr.sum())
            self.sq[part] += int(np.dot(arr, arr))
            win = win + arr
        self.total += int(win.sum())
        self.sum_sq += int(np.dot(win, win))
        self.hits += int(np.count_nonzero(win))
        self.max_win = max(self.max_win, int(win.max()))

    def stats(self, *, rounds: int, total_stake: int, feature_counts: dict[str, int],
              **extra: Any) -> JsonDict:
        """The statistics dict (``extra``: e.g. ``remainder_sum_sq``, ``remainder_parts``)."""
        breakdown = {"base": 0, "free_spins": 0, "bonus": 0, "gamble": 0, "jackpot": 0}
        breakdown.update(self.by_part)
        return {"rounds": rounds, "total_stake": total_stake, "total_win": self.total, "rtp": 0.0,
                "breakdown": breakdown, "breakdown_sum_sq": dict(self.sq), "hit_count": self.hits,
                "hit_frequency": 0.0, "sum_sq": self.sum_sq, "max_win": self.max_win,
                "feature_counts": feature_counts, **extra}
