"""Crystal Grid: a 5x5 grid of falling symbols, clusters of 3+ touching horizontally or vertically, cascades until
no cluster is left, a wild that joins any cluster (follows Energoonz).

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/crystal_grid.md``. The engine's
``cluster.py`` also plays grids with diagonal neighbours and 7x7 grids with clusters of 5+; ``GRIDS`` below holds
those layouts as data for the tests.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, cluster, mech, slots
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register

WILD = "WILD"
SYMBOLS = [WILD, "RUBY", "SAPPHIRE", "EMERALD", "TOPAZ", "AMETHYST", "PEARL", "ONYX", "OPAL"]
SYMBOL_NAMES = {
    WILD: ("Plasma Wild", "Plazmový divoký symbol"), "RUBY": ("Ruby", "Rubín"), "SAPPHIRE": ("Sapphire", "Safír"),
    "EMERALD": ("Emerald", "Smaragd"), "TOPAZ": ("Topaz", "Topaz"), "AMETHYST": ("Amethyst", "Ametyst"),
    "PEARL": ("Pearl", "Perla"), "ONYX": ("Onyx", "Onyx"), "OPAL": ("Opal", "Opál"),
}
# cluster size thresholds -> pay in tenths of the total bet (the largest threshold reached); designed
PAYS: dict[str, list[list[int]]] = {
    "RUBY": [[3, 9], [4, 14], [5, 22], [6, 45], [7, 68], [9, 135], [12, 450], [16, 1800], [20, 9000]],
    "SAPPHIRE": [[3, 4], [4, 9], [5, 18], [6, 36], [7, 54], [9, 112], [12, 338], [16, 1125], [20, 4500]],
    "EMERALD": [[3, 4], [4, 9], [5, 14], [6, 27], [7, 45], [9, 90], [12, 270], [16, 900], [20, 3600]],
    "TOPAZ": [[3, 4], [4, 5], [5, 10], [6, 22], [7, 36], [9, 68], [12, 225], [16, 675], [20, 2250]],
    "AMETHYST": [[3, 4], [4, 5], [5, 10], [6, 18], [7, 27], [9, 54], [12, 180], [16, 540], [20, 1800]],
    "PEARL": [[3, 4], [4, 5], [5, 10], [6, 14], [7, 22], [9, 45], [12, 135], [16, 450], [20, 1350]],
    "ONYX": [[3, 4], [4, 5], [5, 10], [6, 14], [7, 22], [9, 45], [12, 135], [16, 450], [20, 1350]],
    "OPAL": [[3, 4], [4, 5], [5, 10], [6, 14], [7, 22], [9, 45], [12, 135], [16, 450], [20, 1350]],
    WILD: [[3, 22], [5, 90], [8, 450]],
}
COLUMN_COUNTS: list[dict[str, int]] = [
    {WILD: 1, "RUBY": 4, "SAPPHIRE": 5, "EMERALD": 6, "TOPAZ": 7, "AMETHYST": 7, "PEARL": 8, "ONYX": 8, "OPAL": 8}
    for _ in range(5)
]
STRIP_SEEDS = [100, 101, 102, 103, 104]  # mech.shuffled_strip: the fixed order of each column strip
# the grid layouts of the catalogue's cluster games (cluster.py plays each; tests/engine/test_crystal_grid.py)
GRIDS = {"5x5": {"cols": 5, "rows": 5, "diagonal": False, "min_size": 3},
         "5x5_diagonal": {"cols": 5, "rows": 5, "diagonal": True, "min_size": 3},
         "7x7_min5": {"cols": 7, "rows": 7, "diagonal": False, "min_size": 5}}

RULES_EN = (
    "A grid of 5 columns and 5 rows; the player sets the total bet. Groups of 3 or more identical symbols touching "
    "horizontally or vertically pay by their size in tenths of the total bet (paytable); the WILD joins a group of "
    "any symbol, and a group of wilds alone pays the wild's own values. All winning groups are removed together, the "
    "symbols above fall down and new symbols fall in from above; the new grid pays again, and so on until no group "
    "is left. All cascades are one game and play by themselves. A game pays at most 2,500 x the total bet.")
RULES_CS = (
    "Mřížka 5 sloupců a 5 řad; hráč volí celkovou sázku. Skupiny 3 a více stejných symbolů, které se dotýkají "
    "vodorovně nebo svisle, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); WILD se přidá "
    "ke skupině jakéhokoli symbolu a skupina samotných divokých symbolů vyplácí jejich vlastní hodnoty. Všechny "
    "výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu vyplácí, "
    "dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí nejvýše "
    "2 500násobek celkové sázky.")

DEFINITION: dict[str, Any] = {
    "code": "crystal_grid", "version": 1, "name": "Crystal Grid", "name_cs": "Krystalová mřížka",
    "source": "in-house design on the mechanics of the approved plan (issue 25)",
    "follows": {"catalogue": "Tipsport Games, Part two", "entry": "7. Energoonz (also 14. Golden Ticket, "
                                                                   "37. Troll Hunters)",
                "figures": "RTP 96.73 %, max bet 20 CZK, total-bet selector, 90 days",
                "features": ["5x5 grid of falling symbols", "clusters of 3+ horizontal/vertical", "cascades",
                             "wild substitutes; 3+ wilds their own combination"],
                "not_built": ["the bonus game (free rounds when the Bonus column empties)"]},
    "cols": 5, "rows": 5, "diagonal": False, "min_size": 3,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 2_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.73", "unfinished_deadline_days": 90,
    "max_win_multiplier": 2500,
    "rules_en": RULES_EN, "rules_cs": RULES_CS,
}


class CrystalGrid(mech.MechSlot):
    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        d = definition
        self.strips: list[list[str]] = d["strips"]
        self.cols, self.rows, self.diagonal, self.min_size = d["cols"], d["rows"], d["diagonal"], d["min_size"]
        # the paytable and alphabet are data of the definition (another grid game reuses this class)
        self.pays: dict[str, list[list[int]]] = d.get("pays", PAYS)
        self.symbols: list[str] = d.get("symbols", SYMBOLS)
        self.wild: str = d.get("wild", WILD)
        self.symbol_names: dict[str, tuple[str, str]] = d.get("symbol_names", SYMBOL_NAMES)
        self.batch = 50_000  # rounds side by side in the fast simulator
    def clusters(self, window: list[list[str]]) -> list[list[Any]]:
        return cluster.find_clusters(window, self.pays, self.wild, self.diagonal)

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        unit = self.pay_unit(bet.params)
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, self.rows)
        pointers = list(stops)
        n = 0
        while True:
            found = self.clusters(window)
            step: JsonDict = {"type": "spin" if n == 0 else "cascade", "mode": "base", "cascade": n,
                              "window": window}
            if n == 0:
                step["stops"] = stops
            amount = sum(c[2] for c in found) * unit
            step["clusters"] = [[s, size, pay * unit, cells] for s, size, pay, cells in found]
            step["win"] = self.pay(state, "base", amount)
            state["steps"].append(step)
            if not found or state["capped"]:
                break
            removed = {tuple(c) for f in found for c in f[3]}
            window, pointers = cascade.refill(self.strips, pointers, window, removed)
            n += 1
        state["steps"][0]["features"] = ["cascade"] if n > 0 else []
        state["cascades"] = n
        return slots.finish(state)

    # --- fast simulator -----------------------------------------------------------------------------------------
    @functools.cached_property
    def _fast(self) -> JsonDict:
        # pairs: every paying symbol (growing through itself and the wilds), then the wilds alone
        syms = self.symbols
        pair_syms = [syms.index(s) for s in self.pays if s != self.wild] + [syms.index(self.wild)]
        tables = np.zeros((len(pair_syms), self.cols * self.rows + 1), dtype=np.int64)
        for i, code in enumerate(pair_syms):
            for size in range(tables.shape[1]):
                tables[i, size] = cluster.pay_for(self.pays[syms[code]], size)
        bits = cluster.BitGrid(self.cols, self.rows, self.diagonal)
        ct = cascade.ColumnTables(self.strips, syms, self.rows)
        return {"ct": ct, "tables": tables, "bits": bits, "pair_syms": pair_syms,
                "packed": cluster.PackedGrid(bits, ct.base, pair_syms)}

    def grid_pay(self, cols: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
        """(n,) summed cluster pays in tenths of the stake and (n,) the bit mask of the cells won, for grids given
        as column integers (``cascade.ColumnTables``)."""
        t = self._fast
        packed: cluster.PackedGrid = t["packed"]
        return packed.grid_clusters(cols, t["tables"], self.min_size)

    def grid_pay_unpacked(self, cols: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
        """The same as :meth:`grid_pay` through one mask per symbol (``BitGrid.clusters``; the tests compare)."""
        t = self._fast
        bg: cluster.BitGrid = t["bits"]
        sym = bg.masks_from_columns(cols, bg.column_masks(t["ct"].base, t["pair_syms"]))
        member = sym | sym[:, -1:]  # the last pair is the wilds
        return bg.clusters(sym, member, t["tables"], self.min_size)

    def win_units(self, stops: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(round win in tenths of the stake, capped; cascades) for each row of ``stops`` (n, cols): the same
        rounds as ``start`` plays from those stops."""
        t = self._fast
        ct: cascade.ColumnTables = t["ct"]
        cap_units = self.max_win_multiplier * 10
        bits: cluster.BitGrid = t["bits"]
        rows_mask = bits.dtype((1 << self.rows) - 1)
        n = stops.shape[0]
        units = np.zeros(n, dtype=np.int64)
        casc = np.zeros(n, dtype=np.int64)
        cols, ptr, act = ct.start(stops), stops.astype(np.int64), np.arange(n)
        while act.size:
            pay, won = self.grid_pay(cols)
            units[act] += pay
            hit = (pay > 0) & (units[act] < cap_units)
            act, cols, ptr, won = act[hit], cols[hit], ptr[hit], won[hit]
            if act.size:
                casc[act] += 1
                removed = np.stack([((won >> bits.dtype(j * self.rows)) & rows_mask).astype(np.int64)
                                    for j in range(self.cols)], axis=1)
                cols, ptr = ct.refill(cols, ptr, removed)
        return np.minimum(units, cap_units), casc

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's cascades side by side (columns as integers, flood fills on bitmasks)."""
        gen = np.random.Generator(np.random.PCG64(seed))
        unit = self.pay_unit(bet.params)
        tally = mech.FastTally(("base",))
        cascades = capped = 0
        for n in mech.batches(rounds, self.batch, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            units, casc = self.win_units(stops)
            cascades += int(casc.sum())
            capped += int(np.count_nonzero(units >= self.max_win_multiplier * 10))
            tally.add(base=units * unit)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake,
                           feature_counts={"cascades": cascades, "capped": capped})

    def describe_extra(self) -> JsonDict:
        return {"grid": {"cols": self.cols, "rows": self.rows, "neighbours": "diagonal" if self.diagonal else
                         "horizontal/vertical", "min_cluster": self.min_size},
                "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in self.symbol_names.items()},
                "paytable": {"unit": "tenth_of_total_bet", "cluster_size_thresholds": self.pays},
                "features": {"cascade": "winning clusters removed, symbols fall from the column strips"}}


CRYSTAL_GRID = register(CrystalGrid(DEFINITION))
