"""Cluster pays on a grid (5x5 or 7x7, neighbours horizontal/vertical or also diagonal, clusters of 3+ or 5+),
played with cascades (``cascade.py``).

A **cluster** of symbol s is a connected group (4 or 8 neighbours) of cells showing s or a wild, with at least one
s; it pays ``pays[s]`` for its size: the value of the largest size threshold it reaches (``[[3, 2], [5, 10], ...]``
= 3-4 cells pay 2, 5+ pay 10, in the game's unit). Every symbol is searched on its own, so one wild may belong to
clusters of several symbols. A group of wild cells only (connected wilds) pays the wild's own entry, when it has
one. Every winning cluster's cells are removed together, then the grid cascades.

Pure Python (:func:`find_clusters`, breadth-first) and a numpy bitmask version for the simulators
(:class:`BitGrid`: a grid as one integer per symbol, flood fills by shifts), tested equal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

U64 = np.uint64


def pay_for(brackets: Sequence[Sequence[int]], size: int) -> int:
    """The pay of a cluster of ``size``: the value of the largest threshold <= size (0 below the first)."""
    out = 0
    for threshold, value in brackets:
        if size >= threshold:
            out = value
    return out


def neighbours(j: int, r: int, cols: int, rows: int, diagonal: bool) -> list[tuple[int, int]]:
    steps = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    if diagonal:
        steps += [(-1, -1), (-1, 1), (1, -1), (1, 1)]
    return [(j + dj, r + dr) for dj, dr in steps if 0 <= j + dj < cols and 0 <= r + dr < rows]


def _component(
    window: Sequence[Sequence[str]], start: tuple[int, int], members: set[str], diagonal: bool
) -> set[tuple[int, int]]:
    cols, rows = len(window), len(window[0])
    seen = {start}
    todo = [start]
    while todo:
        j, r = todo.pop()
        for nj, nr in neighbours(j, r, cols, rows, diagonal):
            if (nj, nr) not in seen and window[nj][nr] in members:
                seen.add((nj, nr))
                todo.append((nj, nr))
    return seen


def find_clusters(
    window: Sequence[Sequence[str]], pays: Mapping[str, Sequence[Sequence[int]]], wild: str | None, diagonal: bool
) -> list[list[Any]]:
    """``[[symbol, size, pay, [[reel, row], ...]], ...]`` of every paying cluster, symbols in paytable order."""
    out: list[list[Any]] = []
    cols, rows = len(window), len(window[0])
    for s, brackets in pays.items():
        members = {s} if s == wild or wild is None else {s, wild}
        done: set[tuple[int, int]] = set()
        for j in range(cols):
            for r in range(rows):
                if window[j][r] != s or (j, r) in done:
                    continue
                comp = _component(window, (j, r), members, diagonal)
                done |= {c for c in comp if window[c[0]][c[1]] == s}
                pay = pay_for(brackets, len(comp))
                if pay:
                    out.append([s, len(comp), pay, [list(c) for c in sorted(comp)]])
    return out


class BitGrid:
    """Bit layout of a ``cols`` x ``rows`` grid for the numpy flood fills: cell (reel j, row r) is bit
    ``j * rows + r`` of an unsigned integer (uint32 up to 32 cells, uint64 up to 64)."""

    def __init__(self, cols: int, rows: int, diagonal: bool) -> None:
        if cols * rows > 64:  # pragma: no cover - a definition error
            raise ValueError("at most 64 cells")
        self.cols, self.rows, self.diagonal = cols, rows, diagonal
        cells = cols * rows
        self.dtype: Any = np.uint32 if cells <= 32 else np.uint64
        t = self.dtype
        self.all = t((1 << cells) - 1)
        self.first = t(sum(1 << (j * rows) for j in range(cols)))
        self.last = t(sum(1 << (j * rows + rows - 1) for j in range(cols)))
        self.not_first, self.not_last = t(~int(self.first) & int(self.all)), t(~int(self.last) & int(self.all))
        self.weights: npt.NDArray[Any] = np.array([1 << c for c in range(cells)], dtype=t)
        self.one = t(1)
        self.rshift = t(rows)

    def masks(self, grid: npt.NDArray[Any], codes: Sequence[int]) -> npt.NDArray[np.uint64]:
        """(n, len(codes)) masks of the cells showing each code in ``grid`` (n, cols, rows); a code not listed
        sets no bit."""
        n = grid.shape[0]
        flat = grid.reshape(n, -1)
        slot = np.full(int(flat.max(initial=0)) + 1 if n else 1, len(codes), dtype=np.int64)
        slot[list(codes)] = np.arange(len(codes))  # symbol code -> column of the result (len(codes): dropped)
        slot = np.concatenate([slot, [len(codes)] * 256])[:256] if slot.size < 256 else slot
        out = np.zeros((n, len(codes) + 1), dtype=self.dtype)
        rows = np.arange(n)
        for c in range(flat.shape[1]):
            out[rows, slot[flat[:, c]]] |= self.weights[c]
        res: npt.NDArray[np.uint64] = out[:, : len(codes)]
        return res

    def column_masks(self, base: int, codes: Sequence[int]) -> list[npt.NDArray[Any]]:
        """Per column j a table (base ** rows, len(codes)): for every column integer (``cascade.ColumnTables``) the
        bits of its rows showing each code, already at column j's place in the mask."""
        size = base**self.rows
        cells = (np.arange(size)[:, None] // (base ** np.arange(self.rows))[None, :]) % base
        col0 = np.zeros((size, len(codes)), dtype=np.int64)
        for i, c in enumerate(codes):
            col0[:, i] = ((cells == c) * (1 << np.arange(self.rows))[None, :]).sum(axis=1)
        return [(col0 << (j * self.rows)).astype(self.dtype) for j in range(self.cols)]

    def masks_from_columns(self, cols: npt.NDArray[np.int64], tables: list[npt.NDArray[Any]]) -> npt.NDArray[Any]:
        """(n, K) masks of a grid given as column integers (n, cols), with ``tables`` from :meth:`column_masks`."""
        out = tables[0][cols[:, 0]]  # a fresh array (fancy indexing copies)
        for j in range(1, cols.shape[1]):
            out |= tables[j][cols[:, j]]
        return out

    def directions(self, x: npt.NDArray[Any]) -> list[npt.NDArray[Any]]:
        """The cells in ``x`` moved one step in each neighbour direction (4 or 8)."""
        down = (x & self.not_last) << self.one
        up = (x & self.not_first) >> self.one
        out = [up, down, (x << self.rshift) & self.all, x >> self.rshift]
        if self.diagonal:
            out += [
                (up << self.rshift) & self.all,
                up >> self.rshift,
                (down << self.rshift) & self.all,
                down >> self.rshift,
            ]
        return out

    def nb(self, x: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """The neighbour cells of the cells in ``x``."""
        d = self.directions(x)
        out = d[0]
        for y in d[1:]:
            out |= y
        return out

    def two_neighbours(self, m: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """The cells of ``m`` with at least two neighbours in ``m``: every connected group of 3+ cells has one."""
        d = self.directions(m)
        ones = d[0].copy()
        twos = np.zeros_like(m)
        for y in d[1:]:
            twos |= ones & y
            ones |= y
        twos &= m
        return twos

    def to_cells(self, bits: npt.NDArray[Any]) -> npt.NDArray[np.bool_]:
        """(n, cols, rows) booleans of the bits."""
        flat = (bits[:, None] & self.weights[None, :]) != 0
        out: npt.NDArray[np.bool_] = flat.reshape(bits.shape[0], self.cols, self.rows)
        return out

    def clusters(
        self, sym: npt.NDArray[np.uint64], member: npt.NDArray[np.uint64], tables: npt.NDArray[np.int64], min_size: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]:
        """Clusters of many (round, symbol) pairs at once. ``sym`` and ``member`` are (n, P): for pair p the cells of
        its symbol and the cells it may grow through (the symbol and the wilds); ``tables`` (P, cells + 1) the pay of
        each size. A cluster is a connected group of member cells of ``min_size`` (>= 3) or more holding at least
        one cell of the symbol. Returns each round's summed pay and the union of its clusters' cells."""
        n, pairs = sym.shape
        seeds = self.two_neighbours(member).ravel()
        pr = np.nonzero(seeds)[0]
        pay, won, _ = self.flood(pr, seeds[pr], member.ravel()[pr], sym.ravel()[pr], tables, min_size, n * pairs)
        return pay.reshape(n, pairs).sum(axis=1), np.bitwise_or.reduce(won.reshape(n, pairs), axis=1)

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
        """Grow a cluster from each seed cell of ``left`` through ``mem`` for the flat pair indices ``pr`` (pair =
        index % number of table rows); the pays, the cells won and (with ``big_min``) how many winning clusters of
        ``big_min`` cells or more, per flat pair index (``slots`` of them)."""
        pairs, width = tables.shape
        pay = np.zeros(slots, dtype=np.int64)
        won = np.zeros(slots, dtype=self.dtype)
        big = np.zeros(slots, dtype=np.int64)
        flat_tables = tables.ravel()
        while pr.size:
            comp = left & (~left + self.one)  # lowest set bit
            while True:
                grown = (comp | self.nb(comp)) & mem
                if np.array_equal(grown, comp):
                    break
                comp = grown
            size = np.bitwise_count(comp).astype(np.int64)
            ok = (size >= min_size) & ((comp & sy) != 0)
            if ok.any():
                idx = pr[ok]
                pay[idx] += flat_tables[(idx % pairs) * width + size[ok]]
                won[idx] |= comp[ok]
                if big_min:
                    big[idx] += size[ok] >= big_min
            left &= ~comp
            keep = left != 0
            pr, left, mem, sy = pr[keep], left[keep], mem[keep], sy[keep]
        return pay, won, big


class PackedGrid:
    """Every symbol of a grid at once in one word per column: bits ``p * rows + r`` of column j's word are the rows
    of pair p (a symbol, the last pair the wild). The test "some cell has two neighbours in its symbol-or-wild set"
    (every cluster of 3+ has such a cell) then runs on all symbols together with shifts, and only the few pairs that
    pass are flood-filled (:meth:`BitGrid.flood`). Needs ``rows x pairs <= 64``."""

    def __init__(self, bg: BitGrid, base: int, codes: Sequence[int]) -> None:
        rows, pairs = bg.rows, len(codes)
        if rows * pairs > 64:  # pragma: no cover - a definition error
            raise ValueError("rows x pairs must be at most 64")
        self.bg, self.rows, self.pairs = bg, rows, pairs
        size = base**rows
        cells = (np.arange(size)[:, None] // (base ** np.arange(rows))[None, :]) % base
        table = np.zeros(size, dtype=np.uint64)
        for p, c in enumerate(codes):
            for r in range(rows):
                table |= np.where(cells[:, r] == c, U64(1 << (p * rows + r)), U64(0))
        self.table = table
        self.rowmask = U64((1 << rows) - 1)
        self.rep = U64(sum(1 << (p * rows) for p in range(pairs)))
        self.not_low = U64(~int(self.rep) & ((1 << 64) - 1))
        self.not_high = U64(~int(self.rep << U64(rows - 1)) & ((1 << 64) - 1))
        self.wild_shift = U64((pairs - 1) * rows)

    def grid_clusters(
        self, cols: npt.NDArray[np.int64], tables: npt.NDArray[np.int64], min_size: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any]]:
        """For grids given as column integers (n, cols): each grid's summed cluster pay and the bits won
        (``BitGrid`` layout), as :meth:`BitGrid.clusters` computes them."""
        pay, won, _ = self.grid_clusters_counted(cols, tables, min_size, 0)
        return pay, won

    def grid_clusters_counted(
        self, cols: npt.NDArray[np.int64], tables: npt.NDArray[np.int64], min_size: int, big_min: int
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[Any], npt.NDArray[np.int64]]:
        """:meth:`grid_clusters` and each grid's number of winning clusters of ``big_min`` cells or more."""
        bg = self.bg
        n, ncols = cols.shape
        one = U64(1)
        sym = [self.table[cols[:, j]] for j in range(ncols)]
        mem = [w | (((w >> self.wild_shift) & self.rowmask) * self.rep) for w in sym]
        up = [(m << one) & self.not_low for m in mem]  # a member neighbour above (row - 1)
        down = [(m >> one) & self.not_high for m in mem]  # ... below (row + 1)
        seeds_any = np.zeros(n, dtype=np.uint64)
        seeds = []
        for j in range(ncols):
            dirs = [up[j], down[j]]
            for k in (j - 1, j + 1):
                if 0 <= k < ncols:
                    dirs.append(mem[k])
                    if bg.diagonal:
                        dirs += [up[k], down[k]]
            ones = dirs[0].copy()
            twos = np.zeros(n, dtype=np.uint64)
            for y in dirs[1:]:
                twos |= ones & y
                ones |= y
            twos &= mem[j]
            seeds.append(twos)
            seeds_any |= twos
        shifts = np.arange(self.pairs, dtype=np.uint64) * U64(self.rows)
        r_all, p_all = np.nonzero((seeds_any[:, None] >> shifts[None, :]) & self.rowmask)
        if not r_all.size:
            return np.zeros(n, dtype=np.int64), np.zeros(n, dtype=bg.dtype), np.zeros(n, dtype=np.int64)
        sh = shifts[p_all]
        s25 = np.zeros(r_all.size, dtype=np.uint64)
        m25 = np.zeros(r_all.size, dtype=np.uint64)
        y25 = np.zeros(r_all.size, dtype=np.uint64)
        for j in range(ncols):
            place = U64(j * self.rows)
            s25 |= ((seeds[j][r_all] >> sh) & self.rowmask) << place
            m25 |= ((mem[j][r_all] >> sh) & self.rowmask) << place
            y25 |= ((sym[j][r_all] >> sh) & self.rowmask) << place
        flat = r_all * self.pairs + p_all
        pay, won, big = bg.flood(
            flat,
            s25.astype(bg.dtype),
            m25.astype(bg.dtype),
            y25.astype(bg.dtype),
            tables,
            min_size,
            n * self.pairs,
            big_min,
        )
        return (
            pay.reshape(n, self.pairs).sum(axis=1),
            np.bitwise_or.reduce(won.reshape(n, self.pairs), axis=1),
            big.reshape(n, self.pairs).sum(axis=1),
        )
