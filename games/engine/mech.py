"""Common plumbing of the catalogue-mechanics games: bet models, the round cap, the declared
figures and the catalogue description, so that each game module holds only its data and its round.

Pure Python. A game's definition is a dict with at least ``code``, ``version``, ``name``, ``name_cs``, ``source``,
``follows`` (the catalogue entry), ``rtp``, ``unfinished_deadline_days``, ``max_win_multiplier`` (the round cap in
stakes), ``bet`` (a bet model, below) and ``rules_en`` / ``rules_cs``.

Bet models: ``bet`` is the layout of ``definition.bet_model_from_dict`` (``"total"``, ``"level"``, ``"lines"``),
parsed once into its typed model (:mod:`games.engine.definition`), which validates every bet and gives the pay unit.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import numpy as np
import numpy.typing as npt

from . import definition as definition_
from . import slots
from .base import Bet, Declared, JsonDict, Progress


class MechSlot(slots.SlotGame):
    """A slot game of the mechanics wave: its definition parsed once (the bet model, the follows entry, the declared
    figures), the cap and its catalogue entry."""

    def __init__(self, definition: dict[str, Any]) -> None:
        d = self.d = definition
        self.code, self.version, self.name, self.name_cs = d["code"], d["version"], d["name"], d["name_cs"]
        self.bet_model = definition_.bet_model_from_dict(d["bet"])
        self.follows = definition_.Follows.from_dict(d["follows"])
        # the round cap in stakes: the definition's, or (0) the bound the game proves (``max_round_multiplier``)
        self.max_win_multiplier: int = d["max_win_multiplier"] or self.max_round_multiplier()
        m = self.bet_model
        self.declared = Declared(
            rtp=Decimal(d["rtp"]),
            min_bet=m.min_bet,
            max_bet=m.max_bet,
            max_win=self.max_win_multiplier * m.max_bet,
            unfinished_deadline_days=d["unfinished_deadline_days"],
        )
        self.default_bet_params: JsonDict = m.default
        self.par_bet_params: JsonDict = dict(d.get("par_bet", m.default))

    def max_round_multiplier(self) -> int:
        """A bound of a round's win in stakes, for a definition whose ``max_win_multiplier`` is 0 (the game's own
        proof; games that state their cap do not need one)."""
        raise NotImplementedError(f"{self.code}: max_win_multiplier is 0 and no max_round_multiplier is given")

    def pay_unit(self, params: JsonDict) -> int:
        """What one paytable unit is worth in haléř for this bet: the line bet (level / lines models) or
        ``stake / unit`` (total model)."""
        return self.bet_model.pay_unit(params)

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

    def catalogue_entry(self) -> definition_.CatalogueEntry:
        d = self.d
        return definition_.CatalogueEntry(
            code=self.code,
            version=self.version,
            name=self.name,
            name_cs=self.name_cs,
            kind=self.kind,
            source=d["source"],
            follows=self.follows,
            bet=self.bet_model,
            default_bet=self.default_bet_params,
            par_bet=self.par_bet_params,
            max_win_multiplier=self.max_win_multiplier,
            declared=self.declared,
            rules_en=d["rules_en"],
            rules_cs=d["rules_cs"],
            extra=self.describe_extra(),
        )


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

    def stats(self, *, rounds: int, total_stake: int, feature_counts: dict[str, int], **extra: Any) -> JsonDict:
        """The statistics dict (``extra``: e.g. ``remainder_sum_sq``, ``remainder_parts``)."""
        breakdown = {"base": 0, "free_spins": 0, "bonus": 0, "gamble": 0, "jackpot": 0}
        breakdown.update(self.by_part)
        return {
            "rounds": rounds,
            "total_stake": total_stake,
            "total_win": self.total,
            "rtp": 0.0,
            "breakdown": breakdown,
            "breakdown_sum_sq": dict(self.sq),
            "hit_count": self.hits,
            "hit_frequency": 0.0,
            "sum_sq": self.sum_sq,
            "max_win": self.max_win,
            "feature_counts": feature_counts,
            **extra,
        }
