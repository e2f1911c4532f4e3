"""Geode Field: a 7x7 grid of falling symbols, clusters of 5 or more touching horizontally or vertically, cascades
until no cluster is left, a wild that joins any cluster (follows Gemix's grid).

The round is Crystal Grid's (``crystal_grid.CrystalGrid``: ``cluster.find_clusters`` and ``cascade.refill``) on a
7x7 grid with clusters of 5+; the fast simulator differs, because a 7-row column of 9 symbols is too large for
``cascade.ColumnTables``: it keeps the grids as (n, 7, 7) codes (``cascade.StripCodes`` / ``refill_np``), builds one
49-bit mask per symbol with ``np.packbits`` and flood-fills them with ``cluster.BitGrid``.

Version 2 (``GeodeFieldV2``, current) adds Gemix's Crystal Charge (four effects on the grid once the charge is full
and the cascades stop), the Super Charge (later wins x3) and the three worlds' patterns, whose progress the player
carries from round to round and which changes no draw and no pay.

Rules as implemented, the designed figures and the simulated RTP: ``docs/games/geode_field.md``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .. import cascade, cluster, mech, slots
from ..base import RNG, ActionError, Bet, JsonDict, Progress
from ..registry import register
from .crystal_grid import CrystalGrid

WILD = "PRISM"
SYMBOLS = [WILD, "DIAMOND", "RUBY", "EMERALD", "SAPPHIRE", "HEART", "TOPAZ", "AMBER", "QUARTZ"]
SYMBOL_NAMES = {
    WILD: ("Prism (wild)", "Hranol (divoký symbol)"),
    "DIAMOND": ("Diamond", "Diamant"),
    "RUBY": ("Ruby", "Rubín"),
    "EMERALD": ("Emerald", "Smaragd"),
    "SAPPHIRE": ("Sapphire", "Safír"),
    "HEART": ("Heart stone", "Srdcový kámen"),
    "TOPAZ": ("Topaz", "Topaz"),
    "AMBER": ("Amber", "Jantar"),
    "QUARTZ": ("Quartz", "Křemen"),
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
    {WILD: 2, "DIAMOND": 5, "RUBY": 6, "EMERALD": 7, "SAPPHIRE": 8, "HEART": 8, "TOPAZ": 9, "AMBER": 10, "QUARTZ": 11}
    for _ in range(7)
]
STRIP_SEEDS = [700, 701, 702, 703, 704, 705, 706]

RULES_EN = (
    "A grid of 7 columns and 7 rows; the player sets the total bet. Groups of 5 or more identical symbols touching "
    "horizontally or vertically pay by their size in tenths of the total bet (paytable); the PRISM joins a group "
    "of any symbol, and a group of prisms alone pays the prism's own values. All winning groups are removed "
    "together, the symbols above fall down and new symbols fall in from above; the new grid pays again, and so on "
    "until no group is left. All cascades are one game and play by themselves. A game pays at most 500 x the total "
    "bet."
)
RULES_CS = (
    "Mřížka 7 sloupců a 7 řad; hráč volí celkovou sázku. Skupiny 5 a více stejných symbolů, které se dotýkají "
    "vodorovně nebo svisle, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); HRANOL se "
    "přidá ke skupině jakéhokoli symbolu a skupina samotných hranolů vyplácí jejich vlastní hodnoty. Všechny "
    "výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu vyplácí, "
    "dokud nezůstane žádná skupina. Všechny kaskády jsou jedna hra a hrají se samy. Jedna hra vyplatí nejvýše "
    "500násobek celkové sázky."
)

DEFINITION: dict[str, Any] = {
    "code": "geode_field",
    "version": 1,
    "name": "Geode Field",
    "name_cs": "Pole geod",
    "source": "in-house design on the mechanics of the approved plan",
    "follows": {
        "catalogue": "Tipsport Games, Part two",
        "entry": "13. Gemix",
        "figures": "RTP 96.75 %, max bet 100 CZK, total-bet selector, 90 days, hourly loss 5,850 CZK",
        "features": [
            "7x7 grid of falling symbols",
            "clusters of 5+ horizontal/vertical",
            "cascades until no more wins",
            "a wild substituting for every symbol",
        ],
        "not_built": [
            "the three worlds and their patterns (light-green positions, stars)",
            "the worlds' own wilds (up to 10 lamps, lollipops, up to 8 sticky books)",
            "the Crystal Charge and its four effects (Chain Lightning, Light Beam, Crystal "
            "Transformation, Nova Explosion)",
            "the Super Charge bonus (wins x3)",
        ],
    },
    "cols": 7,
    "rows": 7,
    "diagonal": False,
    "min_size": 5,
    "pays": PAYS,
    "symbols": SYMBOLS,
    "wild": WILD,
    "symbol_names": SYMBOL_NAMES,
    "strips": [mech.shuffled_strip(c, seed) for c, seed in zip(COLUMN_COUNTS, STRIP_SEEDS)],
    "bet": {"model": "total", "min": 10, "max": 10_000, "step": 10, "unit": 10, "default": {"stake": 100}},
    "par_bet": {"stake": 100},
    "rtp": "96.75",
    "unfinished_deadline_days": 90,
    "max_win_multiplier": 500,
    "rules_en": RULES_EN,
    "rules_cs": RULES_CS,
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
        return {
            "sc": cascade.StripCodes(self.strips, self.symbols),
            "tables": tables,
            "pair_syms": pair_syms,
            "bits": cluster.BitGrid(self.cols, self.rows, self.diagonal),
        }

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

    def win_units(
        self,
        stops: npt.NDArray[np.int64],
        t: JsonDict | None = None,
        *,
        cap_units: npt.NDArray[np.int64] | None = None,
        track_column: int | None = None,
        big_min: int = 0,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
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


GEODE_FIELD_V1 = register(GeodeField(DEFINITION))


# --- version 2: the three worlds and their patterns, the Crystal Charge and the Super Charge -----------------------
# the worlds in order, each with its wild's look and its three patterns of light-green positions ([column, row]);
# the progress (world, pattern, the lit positions) stays with the player between rounds and changes no pay
WORLDS: list[JsonDict] = [
    {
        "key": "miners",
        "name": ("Miners' world", "Svět horníků"),
        "wild": ("Miner's lamp", "Hornická lampa"),
        "patterns": [
            [[3, 2], [2, 3], [3, 3], [4, 3], [3, 4]],
            [[1, 6], [2, 6], [3, 6], [4, 6], [5, 6]],
            [[3, 2], [3, 3], [3, 4], [3, 5], [3, 6]],
        ],
    },
    {
        "key": "princess",
        "name": ("Princess' world", "Svět princezny"),
        "wild": ("Lollipop", "Lízátko"),
        "patterns": [
            [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]],
            [[2, 2], [3, 2], [4, 2], [2, 3], [4, 3], [2, 4], [3, 4], [4, 4]],
            [[1, 0], [2, 0], [3, 0], [4, 0], [5, 0]],
        ],
    },
    {
        "key": "wizards",
        "name": ("Wizards' world", "Svět čarodějů"),
        "wild": ("Book", "Kniha"),
        "patterns": [
            [[0, 0], [6, 0], [0, 6], [6, 6]],
            [[3, 3], [2, 2], [4, 2], [2, 4], [4, 4]],
            [[j, r] for j in range(1, 6) for r in range(1, 6) if j in (1, 5) or r in (1, 5)],
        ],
    },
]
EFFECTS = ["chain_lightning", "light_beam", "crystal_transformation", "nova_explosion"]
EFFECT_NAMES = {
    "chain_lightning": ("Chain Lightning", "Řetězový blesk"),
    "light_beam": ("Light Beam", "Světelný paprsek"),
    "crystal_transformation": ("Crystal Transformation", "Krystalová proměna"),
    "nova_explosion": ("Nova Explosion", "Výbuch novy"),
}
CORNERS = [(0, 0), (6, 0), (0, 6), (6, 6)]  # [column, row] of the four corners, the lightning's draw 0-3
CHARGE_FULL = 20  # symbols of winning clusters that fill the Crystal Charge (designed)
SUPER_CHARGE_AT = 40  # symbols won in the round, with the charge full, that start the Super Charge
SUPER_MULTIPLIER = 3
PAY_SCALE_V2 = (923, 1000)  # version 2's pays: version 1's x num / den, rounded (tuned by simulation, see the page)
PAYS_V2: dict[str, list[list[int]]] = {
    s: [[k, (v * PAY_SCALE_V2[0] * 2 + PAY_SCALE_V2[1]) // (2 * PAY_SCALE_V2[1])] for k, v in br]
    for s, br in PAYS.items()
}
PAYS_V2["HEART"][2] = [7, 50]  # the catalogue's example stays: 7 hearts pay 5 x the total bet
PAYS_V2["QUARTZ"][3] = [8, 31]  # tuned by simulation with common random numbers (30 at the scale)


class GeodeFieldV2(GeodeField):
    """Version 2: version 1's grid and cascades with the Crystal Charge (its four effects), the Super Charge and the
    worlds' patterns, whose progress the player carries from round to round (``carry_over``; no draw and no pay
    depends on it, so every round has the same distribution of wins whatever the progress: GP §7(3))."""

    def __init__(self, definition: dict[str, Any]) -> None:
        super().__init__(definition)
        ch = definition["charge"]
        self.charge_full: int = ch["full"]
        self.super_at: int = ch["super_at"]
        self.super_multiplier: int = ch["super_multiplier"]
        self.worlds: list[JsonDict] = definition["worlds"]
        self.carry_over = True
        self.paying = [s for s in self.symbols if s != self.wild]

    # --- the worlds' progress (carried) ---------------------------------------------------------------------------
    @staticmethod
    def fresh_progress() -> JsonDict:
        return {"world": 0, "pattern": 0, "lit": []}

    def pattern_cells(self, world: int, pattern: int) -> set[tuple[int, int]]:
        return {(int(j), int(r)) for j, r in self.worlds[world]["patterns"][pattern]}

    def valid_progress(self, carry: JsonDict | None) -> JsonDict:
        """The carried progress as the platform stored it, checked and normalised (world, pattern, the active
        pattern's lit positions, sorted); None: the first pattern of the first world. A malformed one is a
        malfunction (the round is refused), never guessed."""
        if carry is None:
            return self.fresh_progress()
        ok = (
            isinstance(carry, dict)
            and set(carry) == {"world", "pattern", "lit"}
            and isinstance(carry["world"], int)
            and 0 <= carry["world"] < len(self.worlds)
            and isinstance(carry["pattern"], int)
            and 0 <= carry["pattern"] < len(self.worlds[carry["world"]]["patterns"])
            and isinstance(carry["lit"], list)
            and all(isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) for x in c) for c in carry["lit"])
        )
        lit = {(c[0], c[1]) for c in carry["lit"]} if ok else set()
        if not ok or len(lit) != len(carry["lit"]) or not lit < self.pattern_cells(carry["world"], carry["pattern"]):
            raise ActionError(
                "game.geode_field.bad_carry",
                "The carried worlds' progress is malformed.",
                "Přenesený postup světy je poškozený.",
                carry=carry,
            )
        return {"world": carry["world"], "pattern": carry["pattern"], "lit": [list(c) for c in sorted(lit)]}

    def advance(self, progress: JsonDict, removed: set[tuple[int, int]]) -> JsonDict | None:
        """Light the active pattern's positions among the cells a win removed; when every position is lit the
        pattern is complete (a star) and the next one is active (after a world's third pattern: the next world,
        after the last world: the first again). Returns the completed pattern, or None."""
        w, p = progress["world"], progress["pattern"]
        cells = self.pattern_cells(w, p)
        lit = {(int(j), int(r)) for j, r in progress["lit"]} | (removed & cells)
        if lit != cells:
            progress["lit"] = [list(c) for c in sorted(lit)]
            return None
        done = {"world": w, "pattern": p, "stars": p + 1}  # the stars of the world: its completed patterns
        p += 1
        if p == len(self.worlds[w]["patterns"]):
            w, p = (w + 1) % len(self.worlds), 0
        progress.update(world=w, pattern=p, lit=[])
        return done

    # --- the Crystal Charge's effects -------------------------------------------------------------------------------
    def charge_effect(self, window: list[list[str]], rng: RNG) -> tuple[list[list[str]], JsonDict]:
        """One random effect on the grid (the first draw picks it, equally likely; then its own draws): the new grid
        and the step's record (effect, draws, the symbol the hit cells become, the hit cells)."""
        cols, rows = self.cols, self.rows
        w = [list(c) for c in window]
        name = EFFECTS[rng.randbelow(len(EFFECTS))]
        if name == "chain_lightning":  # two opposite corners arc: the diagonal between them becomes a corner's symbol
            c = rng.randbelow(len(CORNERS))
            j0, r0 = CORNERS[c]
            draws = [c]
            main = (j0 == 0) == (r0 == 0)
            cells = [[k, k if main else rows - 1 - k] for k in range(cols)]
        elif name == "crystal_transformation":  # every instance of one symbol becomes another symbol
            a = rng.randbelow(len(self.paying))
            b = rng.randbelow(len(self.paying) - 1)
            draws = [a, b]
            src = self.paying[a]
            cells = [[j, r] for j in range(cols) for r in range(rows) if w[j][r] == src]
        else:  # light_beam: the row and column of a cell; nova_explosion: the cell's eight neighbours
            q = rng.randbelow(cols * rows)
            draws = [q]
            j0, r0 = divmod(q, rows)
            if name == "light_beam":
                cells = [[j0, r] for r in range(rows)] + [[j, r0] for j in range(cols) if j != j0]
            else:
                cells = [
                    [j, r]
                    for j in range(j0 - 1, j0 + 2)
                    for r in range(r0 - 1, r0 + 2)
                    if 0 <= j < cols and 0 <= r < rows
                ]
        if name == "crystal_transformation":
            others = [s for s in self.paying if s != src]
            symbol = others[draws[1]]
        else:
            symbol = w[j0][r0]
        for j, r in cells:
            w[j][r] = symbol
        return w, {"effect": name, "draws": draws, "symbol": symbol, "cells": cells}

    # --- the round --------------------------------------------------------------------------------------------------
    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        return self.start_carried(bet, rng, None)

    def start_carried(self, bet: Bet, rng: RNG, carry: JsonDict | None) -> JsonDict:
        """The grid and its cascades; each win fills the charge with the symbols it removes; when the grid has no
        more win and the charge is full, one effect fires (once a round) and the grid pays and cascades again;
        ``super_at`` symbols won with the charge full start the Super Charge (every later win x3). The worlds'
        progress (``carry``) is lit by the cells wins remove and left as ``carry_out``."""
        state = self.new_round(bet)
        unit = self.pay_unit(bet.params)
        progress = self.valid_progress(carry)
        state["carry_in"] = {
            "world": progress["world"],
            "pattern": progress["pattern"],
            "lit": [list(c) for c in progress["lit"]],
        }
        stops = slots.draw_stops(self.strips, rng)
        window = slots.window_at(self.strips, stops, self.rows)
        pointers = list(stops)
        n = charge = won = 0
        fired = False
        mult = 1
        features: list[str] = []
        while True:
            found = self.clusters(window)
            step: JsonDict = {
                "type": "spin" if not state["steps"] else "cascade",
                "mode": "base",
                "cascade": n,
                "window": window,
                "multiplier": mult,
            }
            if not state["steps"]:
                step["stops"] = stops
            step["clusters"] = [[s, size, pay * unit * mult, cells] for s, size, pay, cells in found]
            step["win"] = self.pay(state, "base", sum(c[2] for c in found) * unit * mult)
            removed = {(int(c[0]), int(c[1])) for f in found for c in f[3]}
            if found:
                won += len(removed)
                charge = min(self.charge_full, charge + len(removed))
                done = self.advance(progress, removed)
                if done is not None:
                    step["pattern_completed"] = done
                if mult == 1 and charge >= self.charge_full and won >= self.super_at:
                    mult = self.super_multiplier
                    step["super_charge"] = True
                    features.append("super_charge")
            step.update(charge=charge, symbols_won=won)
            state["steps"].append(step)
            if state["capped"]:
                break
            if found:
                window, pointers = cascade.refill(self.strips, pointers, window, removed)
                n += 1
            elif charge >= self.charge_full and not fired:
                fired = True
                window, effect = self.charge_effect(window, rng)
                state["steps"].append({"type": "crystal_charge", **effect, "window": window})
                features.append("crystal_charge")
            else:
                break
        state["steps"][0]["features"] = (["cascade"] if n > 0 else []) + features
        state["cascades"] = n
        state["carry_out"] = progress
        state["steps"][-1]["progress"] = {**progress, "lit": [list(c) for c in progress["lit"]]}
        return slots.finish(state)

    def describe_extra(self) -> JsonDict:
        out = super().describe_extra()
        out["features"].update(
            crystal_charge={
                "full_at_symbols": self.charge_full,
                "fires": "once a game, when full and no more wins",
                "effects": {e: {"en": en, "cs": cs} for e, (en, cs) in EFFECT_NAMES.items()},
            },
            super_charge={"symbols_won_with_full_charge": self.super_at, "multiplier": self.super_multiplier},
            worlds=[
                {
                    "key": w["key"],
                    "name": {"en": w["name"][0], "cs": w["name"][1]},
                    "wild": {"en": w["wild"][0], "cs": w["wild"][1]},
                    "patterns": w["patterns"],
                }
                for w in self.worlds
            ],
            carried={"progress": ["world", "pattern", "lit"], "changes_no_win": True},
        )
        return out

    # --- fast simulator ---------------------------------------------------------------------------------------------
    @functools.cached_property
    def _paying_codes(self) -> npt.NDArray[np.int64]:
        return np.array([self.symbols.index(s) for s in self.paying], dtype=np.int64)

    def effect_draws(self, gen: np.random.Generator, n: int) -> npt.NDArray[np.int64]:
        """(n, 5) every draw an effect may need, drawn for every round (the effect, the corner, the cell, the
        symbol transformed and its new symbol); a round uses those of the effect it fires, if any."""
        highs = [len(EFFECTS), len(CORNERS), self.cols * self.rows, len(self.paying), len(self.paying) - 1]
        return np.stack([gen.integers(0, h, size=n) for h in highs], axis=1)

    def effects_np(self, g: npt.NDArray[np.int8], d: npt.NDArray[np.int64]) -> npt.NDArray[np.int8]:
        """``charge_effect`` on (m, cols, rows) codes with the draws ``d`` (m, 5) of :meth:`effect_draws`."""
        g = g.copy()
        rows, k = self.rows, np.arange(self.cols)
        e = d[:, 0]
        sel = np.nonzero(e == EFFECTS.index("chain_lightning"))[0]
        if sel.size:
            cj = np.array([c[0] for c in CORNERS])[d[sel, 1]]
            cr = np.array([c[1] for c in CORNERS])[d[sel, 1]]
            s = g[sel, cj, cr]
            rr = np.where(((cj == 0) == (cr == 0))[:, None], k[None, :], rows - 1 - k[None, :])
            g[sel[:, None], k[None, :], rr] = s[:, None]
        sel = np.nonzero(e == EFFECTS.index("crystal_transformation"))[0]
        if sel.size:
            a, b = d[sel, 3], d[sel, 4]
            src = self._paying_codes[a].astype(np.int8)
            tgt = self._paying_codes[b + (b >= a)].astype(np.int8)
            sub = g[sel]
            g[sel] = np.where(sub == src[:, None, None], tgt[:, None, None], sub)
        for name in ("light_beam", "nova_explosion"):
            sel = np.nonzero(e == EFFECTS.index(name))[0]
            if not sel.size:
                continue
            j0, r0 = np.divmod(d[sel, 2], rows)
            s = g[sel, j0, r0]
            if name == "light_beam":
                g[sel, j0, :] = s[:, None]
                g[sel, :, r0] = s[:, None]
                continue
            for dj in (-1, 0, 1):
                for dr in (-1, 0, 1):
                    jj, rr2 = j0 + dj, r0 + dr
                    ok = (jj >= 0) & (jj < self.cols) & (rr2 >= 0) & (rr2 < rows)
                    g[sel[ok], jj[ok], rr2[ok]] = s[ok]
        return g

    def win_units_v2(
        self, stops: npt.NDArray[np.int64], draws: npt.NDArray[np.int64]
    ) -> tuple[
        npt.NDArray[np.int64],
        npt.NDArray[np.int64],
        npt.NDArray[np.bool_],
        npt.NDArray[np.bool_],
        npt.NDArray[np.int64],
    ]:
        """For each row of ``stops`` (n, cols) and ``draws`` (n, 5) the round ``start`` plays from those draws: (win
        in tenths of the stake within the cap, cascades, the charge fired, the Super Charge started, the symbols
        won)."""
        t = self._fast
        sc: cascade.StripCodes = t["sc"]
        bits: cluster.BitGrid = t["bits"]
        n = stops.shape[0]
        cap = self.max_win_multiplier * 10
        units = np.zeros(n, dtype=np.int64)
        casc = np.zeros(n, dtype=np.int64)
        charge = np.zeros(n, dtype=np.int64)
        won_total = np.zeros(n, dtype=np.int64)
        mult = np.ones(n, dtype=np.int64)
        fired = np.zeros(n, dtype=bool)
        grid, ptr, act = sc.window(stops, self.rows), stops.astype(np.int64), np.arange(n)
        while act.size:
            sym = self.masks(grid)
            pay, won = bits.clusters(sym, sym | sym[:, -1:], t["tables"], self.min_size)
            units[act] += pay * mult[act]
            cnt = np.bitwise_count(won).astype(np.int64)
            won_total[act] += cnt
            ch = np.minimum(self.charge_full, charge[act] + cnt)
            charge[act] = ch
            sup = (cnt > 0) & (mult[act] == 1) & (ch >= self.charge_full) & (won_total[act] >= self.super_at)
            mult[act[sup]] = self.super_multiplier
            hit = (cnt > 0) & (units[act] < cap)
            eff = (cnt == 0) & (ch >= self.charge_full) & ~fired[act]
            if eff.any():
                idx = act[eff]
                fired[idx] = True
                grid[eff] = self.effects_np(grid[eff], draws[idx])
            if hit.any():
                casc[act[hit]] += 1
                grid[hit], ptr[hit] = cascade.refill_np(sc, grid[hit], ptr[hit], bits.to_cells(won[hit]))
            keep = hit | eff
            act, grid, ptr = act[keep], grid[keep], ptr[keep]
        return np.minimum(units, cap), casc, fired, mult > 1, won_total

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict:
        """numpy: every round's cascades, charge effects and Super Charge side by side (:meth:`win_units_v2`); the
        worlds' progress changes no pay and is not simulated."""
        gen = np.random.Generator(np.random.PCG64(seed))
        unit = self.pay_unit(bet.params)
        tally = mech.FastTally(("base",))
        counts = {"cascades": 0, "capped": 0, "feature:crystal_charge": 0, "feature:super_charge": 0}
        cap_units = self.max_win_multiplier * 10
        for n in mech.batches(rounds, self.batch, progress):
            stops = np.stack([gen.integers(0, len(s), size=n) for s in self.strips], axis=1)
            units, casc, fired, sup, _ = self.win_units_v2(stops, self.effect_draws(gen, n))
            counts["cascades"] += int(casc.sum())
            counts["capped"] += int(np.count_nonzero(units >= cap_units))
            counts["feature:crystal_charge"] += int(fired.sum())
            counts["feature:super_charge"] += int(sup.sum())
            tally.add(base=units * unit)
        return tally.stats(rounds=rounds, total_stake=rounds * bet.total_stake, feature_counts=counts)


RULES_V2_EN = (
    "A grid of 7 columns and 7 rows; the player sets the total bet. Groups of 5 or more identical symbols touching "
    "horizontally or vertically pay by their size in tenths of the total bet (paytable); the wild joins a group "
    "of any symbol, and a group of wilds alone pays the wild's own values. All winning groups are removed "
    "together, the symbols above fall down and new symbols fall in from above; the new grid pays again, and so on "
    "until no group is left. Every symbol of a winning group charges the Crystal Charge; 20 symbols fill it. When "
    "it is full and the grid has no more win, one of four effects, each equally likely, changes the grid once in "
    "the game: Chain Lightning (the diagonal between two opposite corners becomes one corner's symbol), Light Beam "
    "(the row and column of a random symbol become that symbol), Crystal Transformation (every instance of a random "
    "symbol becomes another random symbol) or Nova Explosion (the eight neighbours of a random symbol become that "
    "symbol); the grid then pays and cascades again (the charge stays full). When 40 symbols of winning groups "
    "have been removed in the game while the charge is full, the Super Charge starts: every later win of the game "
    "pays 3 times. Three worlds (Miners, Princess, Wizards) of three patterns each: a win on the pattern's "
    "light-green positions lights them, and when all are lit the pattern is complete (a star) and the next one is "
    "active; the progress stays with the player from game to game and changes no win. All of it plays by itself "
    "and is one game. A game pays at most 500 x the total bet."
)
RULES_V2_CS = (
    "Mřížka 7 sloupců a 7 řad; hráč volí celkovou sázku. Skupiny 5 a více stejných symbolů, které se dotýkají "
    "vodorovně nebo svisle, vyplácí podle své velikosti v desetinách celkové sázky (výherní tabulka); divoký symbol "
    "se přidá ke skupině jakéhokoli symbolu a skupina samotných divokých symbolů vyplácí jejich vlastní hodnoty. "
    "Všechny výherní skupiny zmizí naráz, symboly nad nimi spadnou dolů a shora dopadnou nové; nová mřížka znovu "
    "vyplácí, dokud nezůstane žádná skupina. Každý symbol výherní skupiny nabíjí Krystalový náboj; 20 symbolů jej "
    "naplní. Když je plný a mřížka už nevyplácí, jeden ze čtyř efektů, každý se stejnou pravděpodobností, jednou za "
    "hru změní mřížku: Řetězový blesk (úhlopříčka mezi dvěma protilehlými rohy získá symbol jednoho z rohů), "
    "Světelný paprsek (řada a sloupec náhodného symbolu získají tento symbol), Krystalová proměna (všechny výskyty "
    "náhodného symbolu se změní na jiný náhodný symbol) nebo Výbuch novy (osm sousedů náhodného symbolu získá tento "
    "symbol); mřížka pak znovu vyplácí a padá (náboj zůstává plný). Když je ve hře při plném náboji odstraněno 40 "
    "symbolů výherních skupin, začne Super náboj: každá další výhra hry se vyplácí trojnásobně. Tři světy (horníků, "
    "princezny, čarodějů) po třech vzorech: výhra na světle zelených pozicích vzoru je rozsvítí, a když svítí "
    "všechny, vzor je dokončen (hvězda) a aktivuje se další; postup zůstává hráči ze hry do hry a nemění žádnou "
    "výhru. Vše se hraje samo a je to jedna hra. Jedna hra vyplatí nejvýše 500násobek celkové sázky."
)

DEFINITION_V2: dict[str, Any] = {
    **DEFINITION,
    "version": 2,
    "pays": PAYS_V2,
    "rules_en": RULES_V2_EN,
    "rules_cs": RULES_V2_CS,
    "follows": {
        **DEFINITION["follows"],
        "features": DEFINITION["follows"]["features"]
        + [
            "the three worlds of three patterns each: a win on the light-green positions lights them, a "
            "complete pattern lights a star and activates the next (the progress stays with the player)",
            "the Crystal Charge: every winning symbol charges it; full and without more wins, one random "
            "effect of four (Chain Lightning, Light Beam, Crystal Transformation, Nova Explosion)",
            "the Super Charge: 40 symbols won with the charge full, every later win x3, once a game",
        ],
        "not_built": [
            "the worlds' own wilds (up to 10 lamps, the lollipop, up to 8 sticky books): each "
            "world shows its wild's look on the same strips, see the page"
        ],
    },
    "charge": {"full": CHARGE_FULL, "super_at": SUPER_CHARGE_AT, "super_multiplier": SUPER_MULTIPLIER},
    "worlds": WORLDS,
}

GEODE_FIELD = register(GeodeFieldV2(DEFINITION_V2))  # current: the worlds, the Crystal Charge and the Super Charge
