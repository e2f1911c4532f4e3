"""Starfall Grid: a 5x5 grid of falling symbols, clusters of 3+ touching horizontally, vertically **or
diagonally**, cascades, a wild that joins any cluster (follows Cloud Quest's grid). The round is Crystal Grid's
(``crystal_grid.CrystalGrid``) with 8 neighbours, its own symbols, paytable and strips.

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/starfall_grid.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, cluster, mech, slots
from ..base import RNG, Bet, JsonDict, Progress
from ..registry import register
from .crystal_grid import CrystalGrid

WILD = "SHIELD"
SYMBOLS = [
    WILD,
    "WARRIOR",
    "MAGE",
    "ARCHER",
    "DRAGON_EGG",
    "CROWN",
    "HEART",
    "SPADE",
    "CLUB",
    "DIAMOND",
    "STAR",
    "MOON",
]
SYMBOL_NAMES = {
    WILD: ("Golden Shield (wild)", "Zlatý štít (divoký)"),
    "WARRIOR": ("Warrior", "Bojovnice"),
    "MAGE": ("Mage", "Mág"),
    "ARCHER": ("Archer", "Lukostřelec"),
    "DRAGON_EGG": ("Dragon egg", "Dračí vejce"),
    "CROWN": ("Crown", "Koruna"),
    "HEART": ("Heart", "Srdce"),
    "SPADE": ("Spade", "Piky"),
    "CLUB": ("Club", "Kříže"),
    "DIAMOND": ("Diamond", "Káry"),
    "STAR": ("Star", "Hvězda"),
    "MOON": ("Moon", "Měsíc"),
}
# cluster size thresholds -> pay in tenths of the total bet (the largest threshold reached); designed
PAYS: dict[str, list[list[int]]] = {
    "WARRIOR": [[3, 8], [4, 12], [5, 300], [6, 375], [7, 450], [9, 750], [12, 1500], [16, 4500], [20, 15000]],
    "MAGE": [[3, 4], [4, 8], [5, 17], [6, 30], [7, 52], [9, 105], [12, 300], [16, 900], [20, 3750]],
    "ARCHER": [[3, 3], [4, 6], [5, 14], [6, 22], [7, 38], [9, 75], [12, 225], [16, 675], [20, 3000]],
    "DRAGON_EGG": [[3, 3], [4, 4], [5, 11], [6, 18], [7, 30], [9, 60], [12, 180], [16, 525], [20, 2250]],
    "CROWN": [[3, 1], [4, 3], [5, 9], [6, 15], [7, 22], [9, 45], [12, 135], [16, 375], [20, 1500]],
    "HEART": [[3, 1], [4, 3], [5, 6], [6, 12], [7, 18], [9, 38], [12, 105], [16, 300], [20, 1200]],
    "SPADE": [[3, 1], [4, 3], [5, 6], [6, 12], [7, 18], [9, 38], [12, 105], [16, 300], [20, 1200]],
    "CLUB": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "DIAMOND": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "STAR": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    "MOON": [[3, 1], [4, 3], [5, 4], [6, 9], [7, 15], [9, 30], [12, 90], [16, 225], [20, 900]],
    WILD: [[3, 30], [5, 150], [8, 750]],
}
COLUMN_COUNTS: list[dict[str, int]] = [
    {
        WILD: 1,
        "WARRIOR": 3,
        "MAGE": 4,
        "ARCHER": 5,
        "DRAGON_EGG": 5,
        "CROWN": 6,
        "HEART": 7,
        "SPADE": 7,
        "CLUB": 8,
        "DIAMOND": 8,
        "STAR": 8,
        "MOON": 8,
    }
    for _ in range(5)
]
STRIP_SEEDS = [300, 301, 302, 303, 304]

RULES_EN = (
    "A grid of 5 columns and 5 rows; the player sets the total bet. Groups of 3 or more identical symbols touching "
    "horizontally, vertically or diagonally pay by their size in tenths of the total bet (paytable); the GOLDEN "
    "SHIELD joins a group of any symbol, and a group of shields alone pays the shield's own values. All winning "
    "groups are removed together, the symbols above fall down and new symbols fall in from above; the new grid "
    "pays again, and so on until no group is left. All cascades are one game and play by themselves. A game pays "
    "at most 250 x the total bet."
)
RULES_CS = (
    "Mřížka 5 sloupců a 5 řad; hráč volí celkovou sázku. Skupiny 3 a více stejných symbolů, které se dotýkají "
    "vodorovně, svisle nebo úhlopříčně, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); "
    "ZLATÝ ŠTÍT se přidá ke skupině jakéhokoli symbolu a skupina samotných štítů vyplácí jejich vlastní hodnoty. "
    "Všechny výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu "
    "vyplácí, dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí "
    "nejvýše 250násobek celkové sázky."
)

DEFINITION: dict[str, Any] = {
    "code": "starfall_grid",
    "version": 1,
    "name": "Starfall Grid",
    "name_cs": "Hvězdná mřížka",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "5. Cloud Quest",
        "figures": "RTP 96.52 %, max bet 200 CZK, total-bet selector, 90 days",
        "features": [
            "5x5 grid of falling symbols",
            "clusters of 3+ horizontal, vertical or diagonal",
            "cascades",
            "wild substitutes; 3+ wilds their own combination",
        ],
        "not_built": [
            "the middle symbol of a 3-cluster turning wild",
            "the Power Stone re-spins",
            "the bonus game on a 3-reel machine",
        ],
    },
    "cols": 5,
    "rows": 5,
    "diagonal": True,
    "min_size": 3,
    "pays": PAYS,
    "symbols": SYMBOLS,
    "wild": WILD,
    "symbol_names": SYMBOL_NAMES,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 20_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.52",
    "unfinished_deadline_days": 90,
    "max_win_multiplier": 250,
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
}

STARFALL_GRID_V1 = register(CrystalGrid(DEFINITION))


# --- version 2: the 3-cluster's middle symbol turns wild, the Power Stone and its four re-spin powers ---------------
POWER_SYMBOLS = ("WARRIOR", "MAGE", "ARCHER", "DRAGON_EGG")  # the four super-power symbols (the paytable's first four)
POWERS = ("lucky_five", "wild_drop", "frequency", "scatter")  # clockwise; the power a re-spin plays
STONE_SECTIONS, MAX_LIT = 4, 3
LUCKY_FACTOR, DROPPED_WILDS, SCATTER_MAX = 5, 2, 5
# the cells (in column-then-row order) of a winning cluster of each size that turn wild instead of being removed: the
# base game's 3-clusters; in the "frequency" re-spin also the 4- and 5-clusters
MIDDLES: dict[int, tuple[int, ...]] = {3: (1,)}
MIDDLES_FREQUENCY: dict[int, tuple[int, ...]] = {3: (1,), 4: (1, 2), 5: (0, 2, 4)}
# version 2's pays in hundredths of the total bet: version 1's (tenths) x 10 x PAY_PERMILLE / 1000, rounded, at least 1,
# then PAY_ADJUST's values (the middle wilds and the re-spins raise what a grid pays; tuned by simulation with common
# random numbers, docs/games/starfall_grid.md)
PAY_PERMILLE = 162
PAY_ADJUST: dict[str, dict[int, int]] = {"MAGE": {3: 7}}
PAYS_V2: dict[str, list[list[int]]] = {
    s: [[k, PAY_ADJUST.get(s, {}).get(k, max(1, (v * 10 * PAY_PERMILLE + 500) // 1000))] for k, v in brackets]
    for s, brackets in PAYS.items()
}

RULES_V2_EN = RULES_EN[: RULES_EN.index(" All cascades")].replace("tenths", "hundredths") + (
    " When a group of exactly 3 symbols wins on the grid a spin shows (not on a cascade's grid), its middle symbol "
    "(the second of its three cells, counted by column from the left and within a column from the top) turns into a "
    "GOLDEN SHIELD and stays while the others are removed. Every winning group of 3, 4, or 5 or more WARRIORS, "
    "MAGES, ARCHERS or DRAGON EGGS (the super-power symbols) lights 1, 2 or 3 of the Power Stone's 4 sections, at "
    "most 3 in a game. When the cascades end with a section lit, the arrow stops on one of the 4 sections at "
    "random; on a lit section the player gets one free re-spin at the same bet (a new grid with its cascades) with "
    "one of 4 powers at random: LUCKY FIVE (the re-spin's wins x 5), SHIELD DROP (2 shields drop onto 2 random "
    "cells of the re-spin's grid), FREQUENCY (on the re-spin's grid also the middle 2 of a group of 4 and the 1st, "
    "3rd and 5th of a group of 5 turn into shields) or SCATTER (on the re-spin's grid every symbol also pays by its "
    "count anywhere, as a group of that size, at most as a group of 5). The re-spin lights no section. All cascades "
    "and the re-spin are one game and play by themselves. A game pays at most 250 x the total bet."
)
RULES_V2_CS = RULES_CS[: RULES_CS.index(" Všechny kaskády")].replace("desetinách", "setinách") + (
    " Když vyhraje skupina právě 3 symbolů na mřížce, kterou ukáže roztočení (ne na mřížce kaskády), její "
    "prostřední symbol (druhé ze tří políček, počítáno po sloupcích zleva a ve sloupci shora) se promění ve ZLATÝ "
    "ŠTÍT a zůstane, zatímco ostatní zmizí. Každá výherní skupina 3, 4, nebo 5 a více BOJOVNIC, MÁGŮ, LUKOSTŘELCŮ "
    "nebo DRAČÍCH VEJCÍ (symboly superschopností) rozsvítí 1, 2 nebo 3 ze 4 dílů Kamene síly, v jedné hře nejvýše "
    "3. Když kaskády skončí a některý díl svítí, šipka se náhodně zastaví na jednom ze 4 dílů; na rozsvíceném dílu "
    "hráč získá jedno bezplatné opakované roztočení se stejnou sázkou (nová mřížka s kaskádami) s jednou ze 4 "
    "schopností náhodně: ŠŤASTNÁ PĚTKA (výhry roztočení x 5), ODZNAK ODOLNOSTI (na 2 náhodná políčka mřížky "
    "roztočení dopadnou 2 štíty), ZNÁMKA ČETNOSTI (na mřížce roztočení se ve štíty promění i prostřední 2 symboly "
    "skupiny 4 a 1., 3. a 5. symbol skupiny 5) nebo SCATTER ÚSPĚCHU (na mřížce roztočení vyplácí každý symbol i "
    "podle svého počtu kdekoli jako skupina té velikosti, nejvýše jako skupina 5). Opakované roztočení nerozsvítí "
    "žádný díl. Všechny kaskády a opakované roztočení jsou jedna hra a hrají se samy. Jedna hra vyplatí nejvýše "
    "250násobek celkové sázky."
)


class _StarBits(cluster.BitGrid):
    """``BitGrid`` whose flood fill also keeps, per grid (flat pair index // pairs), the cells that turn wild
    (``middles``: cluster size -> the indexes, in bit order, of its cells that do) and the Power Stone sections
    lit (pairs below ``power_pairs``); :meth:`flood` leaves them in ``out`` (None when it did not run)."""

    middles: dict[int, tuple[int, ...]] = MIDDLES
    power_pairs = len(POWER_SYMBOLS)
    want_mid = want_light = True  # what the next flood keeps (the caller sets them)
    out: tuple[npt.NDArray[Any], npt.NDArray[np.int64]] | None = None

    def _nth_bits(self, c: npt.NDArray[Any], size: npt.NDArray[np.int64]) -> npt.NDArray[Any]:
        low = []
        rest = c.copy()
        for _ in range(5):
            b = rest & (~rest + self.one)
            low.append(b)
            rest ^= b
        out = np.zeros_like(c)
        for k, picks in self.middles.items():
            sel = np.zeros_like(c)
            for i in picks:
                sel |= low[i]
            out = np.where(size == k, sel, out)
        return out

    def flood(
        self,
        pr: npt.NDArray[np.int64],
        left: npt.NDArray[Any],
        mem: npt.NDArray[Any],
        sy: npt.NDArray[Any],
        tables: npt.NDArray[np.int64],
        min_size: int,
        slots: int,
        big_min: int = 0,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], npt.NDArray[np.int64]]:
        pairs, width = tables.shape
        pay = np.zeros(slots, dtype=np.int64)
        won = np.zeros(slots, dtype=self.dtype)
        grids = slots // pairs
        mid = np.zeros(grids if self.want_mid else 0, dtype=self.dtype)
        light = np.zeros(grids if self.want_light else 0, dtype=np.int64)
        flat_tables = tables.ravel()
        while pr.size:
            comp = left & (~left + self.one)
            while True:
                grown = (comp | self.nb(comp)) & mem
                if np.array_equal(grown, comp):
                    break
                comp = grown
            size = np.bitwise_count(comp).astype(np.int64)
            ok = (size >= min_size) & ((comp & sy) != 0)
            if ok.any():
                idx, c, sz = pr[ok], comp[ok], size[ok]
                pay[idx] += flat_tables[(idx % pairs) * width + sz]
                won[idx] |= c
                if self.want_mid:
                    np.bitwise_or.at(mid, idx // pairs, self._nth_bits(c, sz))
                if self.want_light:
                    lit = np.where(idx % pairs < self.power_pairs, np.minimum(sz - 2, MAX_LIT), 0)
                    np.add.at(light, idx // pairs, lit)
            left &= ~comp
            keep = left != 0
            pr, left, mem, sy = pr[keep], left[keep], mem[keep], sy[keep]
        self.out = (mid, light)
        return pay, won, np.zeros(slots, dtype=np.int64)


class StarfallGrid(CrystalGrid):
    """Version 2's round: Crystal Grid's cascades where a 3-cluster's middle cell turns wild, the Power Stone lit by
    the super-power symbols' clusters and one re-spin with one of four powers."""

    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        self.cells = self.cols * self.rows
        self.unit: int = definition["bet"]["unit"]  # paytable units per stake (hundredths)
        if self.symbols.index(self.wild) != 0:  # pragma: no cover - a definition error (_wildify writes code 0)
            raise ValueError("the wild must be the alphabet's first symbol")

    # --- the engine's round (pure Python) ---------------------------------------------------------------------
    def _middle_cells(self, found: list[list[Any]], middles: dict[int, tuple[int, ...]]) -> set[tuple[int, int]]:
        out: set[tuple[int, int]] = set()
        for _, size, _, cells in found:  # cells in column-then-row order (cluster.find_clusters)
            out |= {(int(cells[i][0]), int(cells[i][1])) for i in middles.get(size, ())}
        return out

    def _scatter(self, window: list[list[str]]) -> list[list[Any]]:
        """SCATTER's pays: every symbol (not the wild) by its count anywhere, as a cluster of that size, at most 5."""
        out = []
        for s, brackets in self.pays.items():
            n = slots.count_symbols(window, s)
            pay = cluster.pay_for(brackets, min(n, SCATTER_MAX)) if s != self.wild else 0
            if pay:
                out.append([s, n, pay])
        return out

    def _play_star(
        self, state: JsonDict, rng: RNG, unit: int, *, mode: str, part: str, power: str | None
    ) -> tuple[int, int]:
        """One grid and its cascades (5 draws, 2 more for WILD_DROP): (cascades, Power Stone sections lit)."""
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, self.rows)
        pointers = list(stops)
        first: JsonDict = {"stops": stops}
        if power == "wild_drop":
            a = rng.randbelow(self.cells)
            b = rng.randbelow(self.cells - 1)
            b += b >= a
            first["dropped_wilds"] = [[c // self.rows, c % self.rows] for c in (a, b)]
            for c in (a, b):
                window[c // self.rows][c % self.rows] = self.wild
        middles = MIDDLES_FREQUENCY if power == "frequency" else MIDDLES
        factor = LUCKY_FACTOR if power == "lucky_five" else 1
        n = lit = 0
        while True:
            found = self.clusters(window)
            step: JsonDict = {
                "type": "spin" if n == 0 else "cascade",
                "mode": mode,
                "cascade": n,
                "window": window,
                **(first if n == 0 else {}),
            }
            units = sum(c[2] for c in found)
            if power == "scatter" and n == 0:
                step["scatter"] = [[s, k, pay * unit * factor] for s, k, pay in self._scatter(window)]
                units += sum(x[2] for x in self._scatter(window))
            step["clusters"] = [[s, size, pay * unit * factor, cells] for s, size, pay, cells in found]
            step["win"] = self.pay(state, part, units * unit * factor)
            if power is None:
                lit = min(MAX_LIT, lit + sum(min(size - 2, MAX_LIT) for s, size, _, _ in found if s in POWER_SYMBOLS))
                step["stone_lit"] = lit
            mid = self._middle_cells(found, middles) if n == 0 else set()  # wilds appear only the first time
            step["turned_wild"] = [list(c) for c in sorted(mid)]
            state["steps"].append(step)
            if not found or state["capped"]:
                break
            removed = {(int(c[0]), int(c[1])) for f in found for c in f[3]}
            window = [list(col) for col in window]  # the step keeps the grid as it was shown
            for j, r in mid:
                window[j][r] = self.wild
            window, pointers = cascade.refill(self.strips, pointers, window, removed - mid)
            n += 1
        return n, lit

    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        state = self.new_round(bet)
        unit = self.pay_unit(bet.params)
        n, lit = self._play_star(state, rng, unit, mode="base", part="base", power=None)
        first = state["steps"][0]
        first["features"] = ["cascade"] if n > 0 else []
        state["cascades"] = n
        if lit and not state["capped"]:
            arrow = rng.randbelow(STONE_SECTIONS)
            stone: JsonDict = {"lit": lit, "arrow": arrow, "respin": arrow < lit}
            if arrow < lit:  # the lit sections are the first ``lit`` clockwise
                power = POWERS[rng.randbelow(len(POWERS))]
                stone["power"] = power
                first["features"].append("respin")
                at = len(state["steps"])
                state["respin_cascades"], _ = self._play_star(
                    state, rng, unit, mode="respin", part="free_spins", power=power
                )
                state["steps"][at]["power"] = power
            first["power_stone"] = stone
        return slots.finish(state)

    # --- the fast simulator (numpy) ---------------------------------------------------------------------------
    def _star_tables(self, middles: dict[int, tuple[int, ...]]) -> JsonDict:
        t = self._fast_tables(self.strips, self.symbols, self.pays, self.wild)
        bits = _StarBits(self.cols, self.rows, self.diagonal)
        bits.middles = middles
        ct: cascade.ColumnTables = t["ct"]
        counts = np.stack([(ct.codes == c).sum(axis=1) for c in range(ct.base)], axis=1)  # (columns, codes)
        scatter = np.zeros((ct.base, self.cells + 1), dtype=np.int64)
        for s, brackets in self.pays.items():
            if s != self.wild:
                scatter[self.symbols.index(s)] = [
                    cluster.pay_for(brackets, min(k, SCATTER_MAX)) for k in range(self.cells + 1)
                ]
        return {
            **t,
            "bits": bits,
            "packed": cluster.PackedGrid(bits, ct.base, t["pair_syms"]),
            "counts": counts,
            "scatter": scatter,
        }

    @functools.cached_property
    def _fast_star(self) -> dict[bool, JsonDict]:
        """The fast tables with the base game's middles (False) and FREQUENCY's (True)."""
        return {False: self._star_tables(MIDDLES), True: self._star_tables(MIDDLES_FREQUENCY)}

    @functools.cached_property
    def _wildify(self) -> npt.NDArray[np.int32]:
        """``[column integer, rows mask]``: the column with those rows turned into the wild (code 0)."""
        ct: cascade.ColumnTables = self._fast_star[False]["ct"]
        out = np.empty((ct.size, 1 << self.rows), dtype=np.int32)
        for m in range(1 << self.rows):
            keep = np.array([0 if (m >> r) & 1 else 1 for r in range(self.rows)], dtype=np.int64)
            out[:, m] = (ct.codes * keep[None, :] * ct.powers[None, :]).sum(axis=1)
        return out

    def grid_units(
        self,
        stops: npt.NDArray[np.int64],
        cap: npt.NDArray[np.int64],
        power: str | None,
        cells: npt.NDArray[np.int64] | None = None,
    ) -> tuple[npt.NDArray[np.int64], ...]:
        """For each row of ``stops`` the grid and cascades ``_play_star`` plays (``power``: None for the base game;
        ``cells`` (n, 2): ``wild_drop``'s two draws): (win in hundredths of the stake within ``cap``, cascades, sections
        lit)."""
        t = self._fast_star[power == "frequency"]
        ct: cascade.ColumnTables = t["ct"]
        packed: cluster.PackedGrid = t["packed"]
        bits: _StarBits = t["bits"]
        n, rows = stops.shape[0], self.rows
        rows_mask = (1 << rows) - 1
        cols, ptr, act = ct.start(stops), stops.astype(np.int64), np.arange(n)
        if power == "wild_drop":
            assert cells is not None
            a, b = cells[:, 0], cells[:, 1]
            b = b + (b >= a)
            for j in range(self.cols):
                drop = np.where(a // rows == j, 1 << (a % rows), 0) | np.where(b // rows == j, 1 << (b % rows), 0)
                cols[:, j] = self._wildify[cols[:, j], drop]
        factor = LUCKY_FACTOR if power == "lucky_five" else 1
        units, casc, lit = (np.zeros(n, dtype=np.int64) for _ in range(3))
        first = True
        while act.size:
            bits.out, bits.want_mid, bits.want_light = None, first, power is None
            pay, won, _ = packed.grid_clusters_counted(cols, t["tables"], self.min_size, 0)
            won_sym = won.astype(np.int64)
            mid = light = None
            if bits.out is not None:
                mids, lights = bits.out
                mid = mids.astype(np.int64) if first else None
                light = lights if power is None else None
            extra = 0
            if power == "scatter" and first:
                cnt = sum(t["counts"][cols[:, j]] for j in range(self.cols))
                extra = t["scatter"][np.arange(ct.base)[None, :], cnt].sum(axis=1)
            units[act] += (pay + extra) * factor
            if light is not None:
                lit[act] = np.minimum(MAX_LIT, lit[act] + light)
            hit = (pay > 0) & (units[act] < cap[act])
            act, cols, ptr, won_sym = act[hit], cols[hit], ptr[hit], won_sym[hit]
            wilds_now, first = mid is not None, False  # wilds appear only on the first grid
            if mid is not None:
                mid = mid[hit]
                won_sym &= ~mid
            if not act.size:
                break
            casc[act] += 1
            if wilds_now:
                for j in range(self.cols):
                    cols[:, j] = self._wildify[cols[:, j], (mid >> (j * rows)) & rows_mask]
            removed = np.stack([(won_sym >> (j * rows)) & rows_mask for j in range(self.cols)], axis=1)
            cols, ptr = ct.refill(cols, ptr, removed)
        return np.minimum(units, cap), casc, lit

    def round_units(
        self,
        stops: npt.NDArray[np.int64],
        arrow: npt.NDArray[np.int64],
        power: npt.NDArray[np.int64],
        respin_stops: npt.NDArray[np.int64],
        cells: npt.NDArray[np.int64],
    ) -> tuple[npt.NDArray[np.int64], ...]:
        """Whole rounds from their draws (``start``'s order: the stops, the arrow, the power, the re-spin's stops and
        ``wild_drop``'s two cells; a draw the round does not make is ignored): (base win, re-spin win in hundredths
        of the stake, cascades, sections lit, the power played or -1)."""
        n = stops.shape[0]
        cap_units = self.max_win_multiplier * self.unit
        base, casc, lit = self.grid_units(stops, np.full(n, cap_units, dtype=np.int64), None)
        played = np.where((lit > 0) & (base < cap_units) & (arrow < lit), power, -1)
        free = np.zeros(n, dtype=np.int64)
        for p, name in enumerate(POWERS):
            idx = np.nonzero(played == p)[0]
            if idx.size:
                free[idx] = self.grid_units(respin_stops[idx], cap_units - base[idx], name, cells[idx])[0]
        return base, free, casc, lit, played

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's cascades side by side (columns as integers, flood fills on bitmasks), then the
        re-spins of each power side by side."""
        gen = np.random.Generator(np.random.PCG64(seed))
        unit = self.pay_unit(bet.params)
        tally = mech.FastTally(("base", "free_spins"))
        counts = {"cascades": 0, "capped": 0, "stone_lit": 0, "feature:respin": 0, **{f"respin:{p}": 0 for p in POWERS}}
        cap_units = self.max_win_multiplier * self.unit
        for n in mech.batches(rounds, self.batch, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            arrow = gen.integers(0, STONE_SECTIONS, size=n)
            power = gen.integers(0, len(POWERS), size=n)
            respin = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            cells = np.stack([gen.integers(0, self.cells, size=n), gen.integers(0, self.cells - 1, size=n)], axis=1)
            base, free, casc, lit, played = self.round_units(stops, arrow, power, respin, cells)
            counts["cascades"] += int(casc.sum())
            counts["stone_lit"] += int(np.count_nonzero(lit))
            counts["feature:respin"] += int(np.count_nonzero(played >= 0))
            for p, name in enumerate(POWERS):
                counts[f"respin:{name}"] += int(np.count_nonzero(played == p))
            counts["capped"] += int(np.count_nonzero(base + free >= cap_units))
            tally.add(base=base * unit, free_spins=free * unit)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)

    def describe_extra(self) -> JsonDict:
        out = super().describe_extra()
        out["features"].update(
            {
                "middle_turns_wild": (
                    "a winning cluster of exactly 3: its second cell (column, then row order) turns wild"
                ),
                "bet": {
                    "model": "total",
                    "min": 100,
                    "max": 20_000,
                    "step": 100,
                    "unit": 100,
                    "default": {"stake": 100},
                },
                "power_stone": {
                    "symbols": list(POWER_SYMBOLS),
                    "sections": STONE_SECTIONS,
                    "max_lit": MAX_LIT,
                    "lit_by_cluster_of": {"3": 1, "4": 2, "5+": 3},
                    "powers": list(POWERS),
                    "lucky_five_factor": LUCKY_FACTOR,
                    "wild_drop_count": DROPPED_WILDS,
                    "frequency_middles": {str(k): list(v) for k, v in MIDDLES_FREQUENCY.items()},
                    "scatter_max_count": SCATTER_MAX,
                },
            }
        )
        return out


DEFINITION_V2: dict[str, Any] = {
    **DEFINITION,
    "version": 2,
    "pays": PAYS_V2,
    "rtp": "96.70",  # two 10^7-round runs: 96.6253 % and 96.8060 %
    "follows": {
        **DEFINITION["follows"],
        "features": DEFINITION["follows"]["features"]
        + [
            "the middle symbol of a 3-cluster turning wild",
            "the Power Stone re-spins (Lucky Five, two wilds dropped, more wilds, scatter)",
        ],
        "not_built": ["the bonus game on a 3-reel machine"],
    },
    "bet": {"model": "total", "min": 100, "max": 20_000, "step": 100, "unit": 100, "default": {"stake": 100}},
    "rules_en": RULES_V2_EN,
    "rules_cs": RULES_V2_CS,
}


STARFALL_GRID = register(StarfallGrid(DEFINITION_V2))  # current: the middle wilds and the Power Stone
