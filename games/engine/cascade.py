"""Cascades (avalanche, falling symbols): winning symbols are removed, the symbols above fall down and new ones fall
in from the reel strip, with no new random draw.

A column (reel) is a circular strip with a **pointer**: the strip index of its top cell. A spin draws one stop per
column (``pointer = stop``, the column shows ``strip[stop + r]`` from the top). When k cells of a column are
removed, the remaining cells keep their order and fall to the bottom, and the k cells on top become
``strip[pointer - k], ..., strip[pointer - 1]`` (the symbols that were above the window on the strip); the pointer
moves to ``pointer - k``. So the whole cascade sequence follows from the stops: it needs no further draw, it is in
the round's record as those stops, and it replays.

Pure Python (:func:`refill`) and the same on numpy arrays for the simulators (:func:`refill_np`), tested equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt


def refill(
    strips: Sequence[Sequence[str]], pointers: list[int], window: list[list[str]], removed: Iterable[Sequence[int]]
) -> tuple[list[list[str]], list[int]]:
    """The window after removing the cells ``removed`` ([reel, row] pairs) and the new pointers."""
    gone = {(int(j), int(r)) for j, r in removed}
    out, ptrs = [], []
    for j, col in enumerate(window):
        keep = [s for r, s in enumerate(col) if (j, r) not in gone]
        k = len(col) - len(keep)
        strip = strips[j]
        p = (pointers[j] - k) % len(strip)
        out.append([strip[(p + i) % len(strip)] for i in range(k)] + keep)
        ptrs.append(p)
    return out, ptrs


class StripCodes:
    """A game's strips as numpy codes for :func:`refill_np` (padded to the longest strip)."""

    def __init__(self, strips: Sequence[Sequence[str]], alphabet: Sequence[str]) -> None:
        self.lengths = np.array([len(s) for s in strips], dtype=np.int64)
        width = int(self.lengths.max())
        self.codes = np.zeros((len(strips), width), dtype=np.int8)
        for j, s in enumerate(strips):
            self.codes[j, : len(s)] = [alphabet.index(x) for x in s]

    def window(self, stops: npt.NDArray[np.int64], rows: int) -> npt.NDArray[np.int8]:
        """(n, reels, rows) codes of the windows at ``stops`` (n, reels)."""
        r = np.arange(rows)
        idx = (stops[:, :, None] + r[None, None, :]) % self.lengths[None, :, None]
        out: npt.NDArray[np.int8] = self.codes[np.arange(len(self.lengths))[None, :, None], idx]
        return out


def refill_np(
    sc: StripCodes, grid: npt.NDArray[np.int8], pointers: npt.NDArray[np.int64], removed: npt.NDArray[np.bool_]
) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int64]]:
    """:func:`refill` for many windows at once: ``grid`` (n, reels, rows) codes, ``pointers`` (n, reels),
    ``removed`` (n, reels, rows)."""
    rows = grid.shape[2]
    k = removed.sum(axis=2)
    # where each cell falls: a kept cell below the k new ones (in order), a removed one to the top (overwritten)
    kept = ~removed
    dest = np.where(removed, np.cumsum(removed, axis=2) - 1, k[:, :, None] + np.cumsum(kept, axis=2) - 1)
    fallen = np.empty_like(grid)
    np.put_along_axis(fallen, dest, grid, axis=2)
    ptr = (pointers - k) % sc.lengths[None, :]
    r = np.arange(rows)
    idx = (ptr[:, :, None] + r[None, None, :]) % sc.lengths[None, :, None]
    new = sc.codes[np.arange(grid.shape[1])[None, :, None], idx]
    out: Any = np.where(r[None, None, :] < k[:, :, None], new, fallen)
    return out, ptr


class ColumnTables:
    """Columns as single integers for fast cascades: a column of ``rows`` cells with codes c_0 (top) .. c_{rows-1}
    is ``sum(c_r * base ** r)`` (``base`` = the alphabet's size). Lookup tables give the column after removing the
    cells of a bit mask (the kept cells fall, the top cells are left 0) and the strip symbols that fall in on top,
    so a refill is two lookups per column. Used where ``base ** rows`` is small (5 rows of 9 symbols: 59,049)."""

    def __init__(self, strips: Sequence[Sequence[str]], alphabet: Sequence[str], rows: int) -> None:
        self.base, self.rows = len(alphabet), rows
        self.size = self.base**rows
        if self.size > 1 << 20:  # pragma: no cover - a definition error
            raise ValueError("column tables too large")
        self.powers = self.base ** np.arange(rows, dtype=np.int64)
        cols = np.arange(self.size, dtype=np.int64)
        self.codes = (cols[:, None] // self.powers[None, :]) % self.base  # (size, rows): the cells of a column
        masks = np.arange(1 << rows)
        self.fall = np.zeros((self.size, 1 << rows), dtype=np.int32)
        self.kept_count = np.array([rows - bin(m).count("1") for m in masks])
        for m in masks:
            keep = [r for r in range(rows) if not (m >> r) & 1]
            k = rows - len(keep)
            val = np.zeros(self.size, dtype=np.int64)
            for i, r in enumerate(keep):
                val += self.codes[:, r] * self.powers[k + i]
            self.fall[:, m] = val.astype(np.int32)
        self.lengths = np.array([len(s) for s in strips], dtype=np.int64)
        self.top: list[npt.NDArray[np.int64]] = []  # top[j][p, k]: the k strip symbols from p, as a column part
        self.start_col: list[npt.NDArray[np.int64]] = []  # start_col[j][stop]: the window column at a stop
        for s in strips:
            code = np.array([alphabet.index(x) for x in s], dtype=np.int64)
            n = len(s)
            top = np.zeros((n, rows + 1), dtype=np.int64)
            for k in range(1, rows + 1):
                top[:, k] = top[:, k - 1] + code[(np.arange(n) + k - 1) % n] * self.powers[k - 1]
            self.top.append(top)
            self.start_col.append(top[:, rows])

    def start(self, stops: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """(n, cols) column integers of the windows at ``stops`` (n, cols)."""
        return np.stack([self.start_col[j][stops[:, j]] for j in range(stops.shape[1])], axis=1)

    def refill(
        self, cols: npt.NDArray[np.int64], pointers: npt.NDArray[np.int64], removed: npt.NDArray[np.int64]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """:func:`refill` on column integers: ``removed`` (n, cols) is each column's bit mask of removed rows."""
        out = np.empty_like(cols)
        ptr = np.empty_like(pointers)
        for j in range(cols.shape[1]):
            m = removed[:, j]
            k = self.rows - self.kept_count[m]
            p = (pointers[:, j] - k) % self.lengths[j]
            out[:, j] = self.fall[cols[:, j], m] + self.top[j][p, k]
            ptr[:, j] = p
        return out, ptr

    def decode(self, cols: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """(n, cols, rows) codes of column integers."""
        out: npt.NDArray[np.int64] = self.codes[cols]
        return out
