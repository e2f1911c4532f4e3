"""Geode Field: a 7x7 grid of falling symbols, clusters of 5 or more touching horizontally or vertically, cascades
until no cluster is left, a wild that joins any cluster (follows Gemix's grid).

The round is Crystal Grid's (``crystal_grid.CrystalGrid``: ``cluster.find_clusters`` and ``cascade.refill``) on a
7x7 grid with clusters of 5+; the fast simulator differs, because a 7-row column of 9 symbols is too large for
``cascade.ColumnTables``: it keeps the grids as (n, 7, 7) codes (``cascade.StripCodes`` / ``refill_np``), builds one
49-bit mask per symbol with ``np.packbits`` and flood-fills them with ``cluster.BitGrid``.

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/geode_field.md``.
"""
from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, cluster, mech
from ..base import JsonDict
from ..registry import register
from .crystal_grid import CrystalGrid

WILD = "PRISM"
SYMBOLS = [WILD, "DIAMOND", "RUBY", "EMERALD", "SAPPHIRE", "HEART", "TOPAZ", "AMBER", "QUARTZ"]
SYMBOL_NAMES = {
    WILD: ("Prism (wild)", "Hranol (divoký symbol)"), "DIAMOND": ("Diamond", "Diamant"), "RUBY": ("Ruby", "Rubín"),
    "EMERALD": ("Emerald", "Smaragd"), "SAPPHIRE": ("Sapphire", "Safír"), "HEART": ("Heart stone", "Srdcový kámen"),
    "TOPAZ": ("Topaz", "Topaz"), "AMBER": ("Amber", "Jantar"), "QUARTZ": ("Quartz", "Křemen"),
}
# cluster size thresholds -> pay in tenths of the total bet (the largest threshold reached); designed. The
# catalogue's example, 7 hearts pay 5 x the bet: HEART's 7-cluster pays 50 tenths.
PAYS: dict[str, list[list[int]]] = {
    "DIAMOND": [[5, 54], [6, 82], [7, 163], [8, 245], [10, 436], [12, 817], [15, 2179], [20, 5448]],
    "RUBY": [[5, 33], [6, 54], [7, 109], [8, 163], [10, 272], [12, 545], [15, 1362], [20, 4086]],
    "EMERALD": [[5, 27], [6, 44], [7, 82], [8, 125], [10, 207], [12, 409], [15, 1090], [20, 2724]],
    "SAPPHIRE": [[5, 22], [6, 33], [7, 65], [8, 98], [10, 163], [12, 327], [15, 817], [20, 2179]],
    "HEART": [[5, 16], [6, 27], [7, 50], [8, 82], [10, 136], [12, 272], [15, 654], [20, 1634]],
    "TOPAZ": [[5, 11], [6, 16], [7, 33], [8, 54], [10, 98], [12, 191], [15, 490], [20, 1199]],
    "AMBER": [[5, 9], [6, 13], [7, 27], [8, 44], [10, 82], [12, 163], [15, 409], [20, 1090]],
    "QUARTZ": [[5, 5], [6, 12], [7, 22], [8, 33], [10, 65], [12, 136], [15, 327], [20, 817]],
    WILD: [[5, 50], [7, 200], [10, 1000]],
}
COLUMN_COUNTS: list[dict[str, int]] = [
    {WILD: 2, "DIAMOND": 5, "RUBY": 6, "EMERALD": 7, "SAPPHIRE": 8, "HEART": 8, "TOPAZ": 9, "AMBER": 10,
     "QUARTZ": 11} for _ in range(7)
]
STRIP_SEEDS = [700, 701, 702, 703, 704, 705, 706]

RULES_EN = (
    "A grid of 7 columns and 7 rows; the player sets the total bet. Groups of 5 or more identical symbols touching "
    "horizontally or vertically pay by their size in tenths of the total bet (paytable); the PRISM joins a group "
    "of any symbol, and a group of prisms alone pays the prism's own values. All winning groups are removed "
    "together, the symbols above fall down and new symbols fall in from above; the new grid pays again, and so on "
    "until no group is left. All cascades are one game and play by themselves. A game pays at most 500 x the total "
    "bet.")
RULES_CS = (
    "Mřížka 7 sloupců a 7 řad; hráč volí celkovou sázku. Skupiny 5 a více stejných symbolů, které se dotýkají "
    "vodorovně nebo svisle, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); HRANOL se "
    "přidá ke skupině jakéhokoli symbolu a skupina samotných hranolů vyplácí jejich vlastní hodnoty. Všechny "
    "výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu vyplácí, "
    "dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí nejvýše "
    "500násobek celkové sázky.")

DEFINITION: dict[str, Any] = {
    "code": "geode_field", "version": 1, "name": "Geode Field", "name_cs": "Pole geod",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {"catalogue": "Tipsport Games, Part two", "entry": "13. Gemix",
                "figures": "RTP 96.75 %, max bet 100 CZK, total-bet selector, 90 days, hourly loss 5,850 CZK",
                "features": ["7x7 grid of falling symbols", "clusters of 5+ horizontal/vertical",
                             "cascades until no more wins", "a wild substituting for every symbol"],
                "not_built": ["the three worlds and their patterns (light-green positions, stars)",
                              "the worlds' own wilds (up to 10 lamps, lollipops, up to 8 sticky books)",
                              "the Crystal Charge and its four effects (Chain Lightning, Light Beam, Crystal "
                              "Transformation, Nova Explosion)", "the Super Charge bonus (wins x3)"]},
    "cols": 7, "rows": 7, "diagonal": False, "min_size": 5,
    "pays": PAYS, "symbols": SYMBOLS, "wild": WILD, "symbol_names": SYMBOL_NAMES,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 10_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.75", "unfinished_deadline_days": 90,
    "max_win_multiplier": 500,
    "rules_en": RULES_EN, "rules_cs": RULES_CS,
}


class GeodeField(CrystalGrid):
    """Crystal Grid's round on a 7x7 grid with clusters of 5+, and its own fast simulator."""

    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        self.batch = 20_000

    @functools.cached_property
    def _fast(self) -> JsonDict:
        # pairs: every paying symbol (growing through itself and the wilds), then the wilds alone
        pair_syms = [self.symbols.index(s) for s in self.pays if s != self.wild] + [self.symbols.index(self.wild)]
        tables = np.zeros((len(pair_syms), self.cols * self.rows + 1), dtype=np.int64)
        for i, code in enumerate(pair_syms):
            for size in range(tables.shape[1]):
                tables[i, size] = cluster.pay_for(self.pays.get(self.symbols[code], []), size)
        return {"sc": cascade.StripCodes(self.strips, self.symbols), "tables": tables, "pair_syms": pair_syms,
                "bits": cluster.BitGrid(self.cols, self.rows, self.diagonal)}

    def masks(self, grid: npt.NDArray[np.int8]) -> npt.NDArray[np.uint64]:
        """(n, pairs) 49-bit masks (``BitGrid`` layout: cell (j, r) is bit j * rows + r) of the cells showing each
        pair's symbol, from (n, cols, rows) codes."""
        n = grid.shape[0]
        flat = grid.reshape(n, -1)
        codes = self._fast["pair_syms"]
        out = np.empty((n, len(codes)), dtype=np.uint64)
        for i, c in enumerate(codes):
            packed = np.packbits(flat == c, axis=1, bitorder="little")  # (n, 7) bytes, cell k = bit k
            out[:, i] = np.pad(packed, ((0, 0), (0, 8 - packed.shape[1]))).view("<u8")[:, 0]
        return out

    def win_units(self, stops: npt.NDArray[np.int64], t: JsonDict | None = None, *,
                  cap_units: npt.NDArray[np.int64] | None = None, track_column: int | None = None,
                  big_min: int = 0) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64],
                                             npt.NDArray[np.int64]]:
        """For each row of ``stops`` (n, cols) the grid and cascades ``start`` plays from those stops: (win in
        tenths of the stake within the round's cap, cascades, zeros, zeros) as ``CrystalGrid.win_units`` returns
        them (this game has no bonus column)."""
        t = self._fast
        sc: cascade.StripCodes = t["sc"]
        bits: cluster.BitGrid = t["bits"]
        n = stops.shape[0]
        cap = np.full(n, self.max_win_multiplier * 10, dtype=np.int64) if cap_units is None else cap_units
        units = np.zeros(n, dtype=np.int64)
        casc = np.zeros(n, dtype=np.int64)
        grid, ptr, act = sc.window(stops, self.rows), stops.astype(np.int64), np.arange(n)
        while act.size:
            sym = self.masks(grid)
            pay, won = bits.clusters(sym, sym | sym[:, -1:], t["tables"], self.min_size)
            units[act] += pay
            hit = (pay > 0) & (units[act] < cap[act])
            act, grid, ptr, won = act[hit], grid[hit], ptr[hit], won[hit]
            if act.size:
                casc[act] += 1
                grid, ptr = cascade.refill_np(sc, grid, ptr, bits.to_cells(won))
        zeros = np.zeros(n, dtype=np.int64)
        return np.minimum(units, cap), casc, zeros, zeros


GEODE_FIELD = register(GeodeField(DEFINITION))
