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
    WILD: ("Plasma Wild", "Plazmový divoký symbol"),
    "RUBY": ("Ruby", "Rubín"),
    "SAPPHIRE": ("Sapphire", "Safír"),
    "EMERALD": ("Emerald", "Smaragd"),
    "TOPAZ": ("Topaz", "Topaz"),
    "AMETHYST": ("Amethyst", "Ametyst"),
    "PEARL": ("Pearl", "Perla"),
    "ONYX": ("Onyx", "Onyx"),
    "OPAL": ("Opal", "Opál"),
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
GRIDS = {
    "5x5": {"cols": 5, "rows": 5, "diagonal": False, "min_size": 3},
    "5x5_diagonal": {"cols": 5, "rows": 5, "diagonal": True, "min_size": 3},
    "7x7_min5": {"cols": 7, "rows": 7, "diagonal": False, "min_size": 5},
}

RULES_EN = (
    "A grid of 5 columns and 5 rows; the player sets the total bet. Groups of 3 or more identical symbols touching "
    "horizontally or vertically pay by their size in tenths of the total bet (paytable); the WILD joins a group of "
    "any symbol, and a group of wilds alone pays the wild's own values. All winning groups are removed together, the "
    "symbols above fall down and new symbols fall in from above; the new grid pays again, and so on until no group "
    "is left. All cascades are one game and play by themselves. A game pays at most 2,500 x the total bet."
)
RULES_CS = (
    "Mřížka 5 sloupců a 5 řad; hráč volí celkovou sázku. Skupiny 3 a více stejných symbolů, které se dotýkají "
    "vodorovně nebo svisle, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); WILD se přidá "
    "ke skupině jakéhokoli symbolu a skupina samotných divokých symbolů vyplácí jejich vlastní hodnoty. Všechny "
    "výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu vyplácí, "
    "dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí nejvýše "
    "2 500násobek celkové sázky."
)

DEFINITION: dict[str, Any] = {
    "code": "crystal_grid",
    "version": 1,
    "name": "Crystal Grid",
    "name_cs": "Krystalová mřížka",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "7. Energoonz (also 14. Golden Ticket, 37. Troll Hunters)",
        "figures": "RTP 96.73 %, max bet 20 CZK, total-bet selector, 90 days",
        "features": [
            "5x5 grid of falling symbols",
            "clusters of 3+ horizontal/vertical",
            "cascades",
            "wild substitutes; 3+ wilds their own combination",
        ],
        "not_built": ["the bonus game (free rounds when the Bonus column empties): version 2"],
    },
    "cols": 5,
    "rows": 5,
    "diagonal": False,
    "min_size": 3,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 2_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.73",
    "unfinished_deadline_days": 90,
    "max_win_multiplier": 2500,
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
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
        # the bonus column and its free rounds (version 2: Energoonz's bonus game), or None
        self.bonus: JsonDict | None = d.get("bonus")

    def clusters(self, window: list[list[str]]) -> list[list[Any]]:
        return cluster.find_clusters(window, self.pays, self.wild, self.diagonal)

    def _play_grid(
        self,
        state: JsonDict,
        rng: RNG,
        unit: int,
        *,
        strips: list[list[str]],
        pays: dict[str, list[list[int]]],
        wild: str | None,
        mode: str,
        part: str,
    ) -> tuple[int, set[tuple[int, int]], int]:
        """One grid and its cascades (5 draws: the columns' stops): (cascades, the cells ever removed by a win,
        winning clusters of the bonus's ``extra_min_size`` symbols or more)."""
        stops = slots.draw_stops(strips, rng)
        window = slots.window_at(strips, stops, self.rows)
        pointers = list(stops)
        n, big = 0, 0
        emptied: set[tuple[int, int]] = set()
        big_min = self.bonus["extra_min_size"] if self.bonus else 0
        while True:
            found = cluster.find_clusters(window, pays, wild, self.diagonal)
            step: JsonDict = {"type": "spin" if n == 0 else "cascade", "mode": mode, "cascade": n, "window": window}
            if n == 0:
                step["stops"] = stops
            amount = sum(c[2] for c in found) * unit
            step["clusters"] = [[s, size, pay * unit, cells] for s, size, pay, cells in found]
            step["win"] = self.pay(state, part, amount)
            state["steps"].append(step)
            if not found or state["capped"]:
                break
            removed = {(int(c[0]), int(c[1])) for f in found for c in f[3]}
            emptied |= removed
            big += sum(1 for f in found if big_min and f[1] >= big_min)
            window, pointers = cascade.refill(strips, pointers, window, removed)
            n += 1
        return n, emptied, big

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        unit = self.pay_unit(bet.params)
        n, emptied, _ = self._play_grid(
            state, rng, unit, strips=self.strips, pays=self.pays, wild=self.wild, mode="base", part="base"
        )
        first = state["steps"][0]
        first["features"] = ["cascade"] if n > 0 else []
        state["cascades"] = n
        if self.bonus is not None:
            col = self.bonus["column"]
            rows = sorted(r for j, r in emptied if j == col)
            first["bonus_column"] = {"column": col, "emptied_rows": rows}
            if len(rows) == self.rows and not state["capped"]:
                first["features"].append("free_rounds")
                self._free_rounds(state, rng, unit)
        return slots.finish(state)

    def _free_rounds(self, state: JsonDict, rng: RNG, unit: int) -> None:
        """The bonus game (Energoonz): ``free_rounds`` rounds on the bonus symbol set (no wild), each with its
        cascades; every winning cluster of ``extra_min_size`` or more symbols adds a round, at most ``max_rounds``
        rounds in all. Free, at the round's bet, inside the round (it plays by itself)."""
        b = self.bonus
        assert b is not None
        left = awarded = b["free_rounds"]
        played = 0
        while left > 0 and not state["capped"]:
            at = len(state["steps"])
            _, _, big = self._play_grid(
                state, rng, unit, strips=b["strips"], pays=b["pays"], wild=None, mode="free_round", part="free_spins"
            )
            played += 1
            left -= 1
            more = min(big, b["max_rounds"] - awarded)
            left += more
            awarded += more
            state["steps"][at].update(free_round=played, rounds_added=more, rounds_left=left)
        state["free_rounds"] = played

    # --- fast simulator -----------------------------------------------------------------------------------------
    def _fast_tables(
        self, strips: list[list[str]], symbols: list[str], pays: dict[str, list[list[int]]], wild: str
    ) -> JsonDict:
        # pairs: every paying symbol (growing through itself and the wilds), then the wilds alone
        pair_syms = [symbols.index(s) for s in pays if s != wild] + [symbols.index(wild)]
        tables = np.zeros((len(pair_syms), self.cols * self.rows + 1), dtype=np.int64)
        for i, code in enumerate(pair_syms):
            for size in range(tables.shape[1]):
                tables[i, size] = cluster.pay_for(pays.get(symbols[code], []), size)
        bits = cluster.BitGrid(self.cols, self.rows, self.diagonal)
        ct = cascade.ColumnTables(strips, symbols, self.rows)
        return {
            "ct": ct,
            "tables": tables,
            "bits": bits,
            "pair_syms": pair_syms,
            "packed": cluster.PackedGrid(bits, ct.base, pair_syms),
        }

    @functools.cached_property
    def _fast(self) -> JsonDict:
        return self._fast_tables(self.strips, self.symbols, self.pays, self.wild)

    @functools.cached_property
    def _fast_bonus(self) -> JsonDict:
        """The bonus game's tables: its symbols and a wild that no strip shows (the packed search's last pair)."""
        assert self.bonus is not None
        return self._fast_tables(
            self.bonus["strips"], list(self.bonus["symbols"]) + [self.wild], self.bonus["pays"], self.wild
        )

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

    def win_units(
        self,
        stops: npt.NDArray[np.int64],
        t: JsonDict | None = None,
        *,
        cap_units: npt.NDArray[np.int64] | None = None,
        track_column: int | None = None,
        big_min: int = 0,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """For each row of ``stops`` (n, cols) the same grid and cascades as ``start`` plays from those stops (the
        base game's tables, or ``t``): (win in tenths of the stake within ``cap_units``, default the round cap;
        cascades; the rows of column ``track_column`` ever removed by a win, as a bit mask; winning clusters of
        ``big_min`` or more cells)."""
        t = t or self._fast
        ct: cascade.ColumnTables = t["ct"]
        packed: cluster.PackedGrid = t["packed"]
        n = stops.shape[0]
        cap = np.full(n, self.max_win_multiplier * 10, dtype=np.int64) if cap_units is None else cap_units
        bits: cluster.BitGrid = t["bits"]
        rows_mask = bits.dtype((1 << self.rows) - 1)
        units = np.zeros(n, dtype=np.int64)
        casc = np.zeros(n, dtype=np.int64)
        emptied = np.zeros(n, dtype=np.int64)
        big = np.zeros(n, dtype=np.int64)
        cols, ptr, act = ct.start(stops), stops.astype(np.int64), np.arange(n)
        while act.size:
            pay, won, nbig = packed.grid_clusters_counted(cols, t["tables"], self.min_size, big_min)
            units[act] += pay
            hit = (pay > 0) & (units[act] < cap[act])
            act, cols, ptr, won = act[hit], cols[hit], ptr[hit], won[hit]
            if act.size:
                casc[act] += 1
                big[act] += nbig[hit]
                removed = np.stack(
                    [((won >> bits.dtype(j * self.rows)) & rows_mask).astype(np.int64) for j in range(self.cols)],
                    axis=1,
                )
                if track_column is not None:
                    emptied[act] |= removed[:, track_column]
                cols, ptr = ct.refill(cols, ptr, removed)
        return np.minimum(units, cap), casc, emptied, big

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's cascades side by side (columns as integers, flood fills on bitmasks); version 2's
        free rounds as side-by-side sessions of the rounds whose bonus column emptied."""
        gen = np.random.Generator(np.random.PCG64(seed))
        unit = self.pay_unit(bet.params)
        b = self.bonus
        tally = mech.FastTally(("base",) if b is None else ("base", "free_spins"))
        counts = {"cascades": 0, "capped": 0}
        if b is not None:
            counts.update({"feature:free_rounds": 0, "free_rounds_played": 0})
        cap_units = self.max_win_multiplier * 10
        full = (1 << self.rows) - 1
        for n in mech.batches(rounds, self.batch, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            units, casc, emptied, _ = self.win_units(stops, track_column=None if b is None else b["column"])
            counts["cascades"] += int(casc.sum())
            free = np.zeros(n, dtype=np.int64)
            if b is not None:
                sess = np.nonzero((emptied == full) & (units < cap_units))[0]
                counts["feature:free_rounds"] += int(sess.size)
                left = np.full(sess.size, b["free_rounds"], dtype=np.int64)
                awarded = left.copy()
                while sess.size:
                    counts["free_rounds_played"] += int(sess.size)
                    st = np.stack([gen.integers(0, len(s), size=sess.size) for s in b["strips"]], axis=1)
                    u, _, _, big = self.win_units(
                        st,
                        self._fast_bonus,
                        cap_units=cap_units - units[sess] - free[sess],
                        big_min=b["extra_min_size"],
                    )
                    free[sess] += u
                    left -= 1
                    more = np.minimum(big, b["max_rounds"] - awarded)
                    left += more
                    awarded += more
                    keep = (left > 0) & (units[sess] + free[sess] < cap_units)
                    sess, left, awarded = sess[keep], left[keep], awarded[keep]
            counts["capped"] += int(np.count_nonzero(units + free >= cap_units))
            if b is None:
                tally.add(base=units * unit)
            else:
                tally.add(base=units * unit, free_spins=free * unit)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)

    def describe_extra(self) -> JsonDict:
        return {
            "grid": {
                "cols": self.cols,
                "rows": self.rows,
                "neighbours": "diagonal" if self.diagonal else "horizontal/vertical",
                "min_cluster": self.min_size,
            },
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in self.symbol_names.items()},
            "paytable": {"unit": "tenth_of_total_bet", "cluster_size_thresholds": self.pays},
            "features": {
                "cascade": "winning clusters removed, symbols fall from the column strips",
                **(
                    {
                        "bonus_game": {
                            "bonus_column": self.bonus["column"],
                            "free_rounds": self.bonus["free_rounds"],
                            "max_rounds": self.bonus["max_rounds"],
                            "extra_round_per_cluster_of": self.bonus["extra_min_size"],
                            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in self.bonus["symbol_names"].items()},
                            "paytable": self.bonus["pays"],
                            "strips": self.bonus["strips"],
                        }
                    }
                    if self.bonus
                    else {}
                ),
            },
        }


# --- version 2: the bonus column and the free rounds (Energoonz's bonus game) ---------------------------------------
BONUS_SYMBOLS = ["COMET", "NEBULA", "PULSAR", "QUASAR", "AURORA"]
BONUS_SYMBOL_NAMES = {
    "COMET": ("Comet", "Kometa"),
    "NEBULA": ("Nebula", "Mlhovina"),
    "PULSAR": ("Pulsar", "Pulsar"),
    "QUASAR": ("Quasar", "Kvasar"),
    "AURORA": ("Aurora", "Polární záře"),
}
# the bonus game's pays, tenths of the total bet by cluster size (no wild); designed (tuned by simulation, see
# docs/games/crystal_grid.md; the catalogue's example, 7 green figures pay 5 x the bet: NEBULA's 7-cluster 8.4 x)
BONUS_PAYS: dict[str, list[list[int]]] = {
    "COMET": [[3, 16], [4, 25], [5, 42], [6, 67], [7, 101], [9, 202], [12, 676], [16, 2535], [20, 10140]],
    "NEBULA": [[3, 10], [4, 16], [5, 30], [6, 50], [7, 84], [9, 152], [12, 507], [16, 1690], [20, 6760]],
    "PULSAR": [[3, 8], [4, 13], [5, 23], [6, 40], [7, 67], [9, 118], [12, 371], [16, 1267], [20, 5070]],
    "QUASAR": [[3, 6], [4, 10], [5, 16], [6, 30], [7, 50], [9, 92], [12, 304], [16, 1014], [20, 3380]],
    "AURORA": [[3, 5], [4, 8], [5, 13], [6, 23], [7, 40], [9, 76], [12, 253], [16, 845], [20, 2535]],
}
BONUS_COLUMN_COUNTS: list[dict[str, int]] = [
    {"COMET": 5, "NEBULA": 6, "PULSAR": 7, "QUASAR": 8, "AURORA": 9} for _ in range(5)
]
BONUS_STRIP_SEEDS = [200, 201, 202, 203, 204]
# the base pays of version 2: version 1's, with the four- and five-clusters of the five low symbols (TOPAZ ...
# OPAL) paying 4 and 9 tenths (version 1: 5 and 10), which makes room for the free rounds (designed)
LOW = ("TOPAZ", "AMETHYST", "PEARL", "ONYX", "OPAL")
PAYS_V2: dict[str, list[list[int]]] = {
    s: [[k, {4: 4, 5: 9}.get(k, v) if s in LOW else v] for k, v in br] for s, br in PAYS.items()
}

DEFINITION_V2: dict[str, Any] = {
    **DEFINITION,
    "version": 2,
    "pays": PAYS_V2,
    "follows": {
        **DEFINITION["follows"],
        "features": DEFINITION["follows"]["features"]
        + [
            "the Bonus column: emptied, it starts the free rounds on another symbol set without a wild",
            "a winning cluster of 5+ in a free round adds a round, at most 20 rounds",
        ],
        "not_built": [],
    },  # version 2 builds the bonus game version 1 lists as not built
    "bonus": {
        "column": 0,
        "free_rounds": 3,
        "max_rounds": 20,
        "extra_min_size": 5,
        "symbols": BONUS_SYMBOLS,
        "pays": BONUS_PAYS,
        "symbol_names": BONUS_SYMBOL_NAMES,
        "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(BONUS_COLUMN_COUNTS, BONUS_STRIP_SEEDS)],
    },
}


CRYSTAL_GRID_V1 = register(CrystalGrid(DEFINITION))
CRYSTAL_GRID = register(CrystalGrid(DEFINITION_V2))  # current: the bonus column and the free rounds
