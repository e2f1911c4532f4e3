"""Ismael Beiro's vectorised simulator (numpy): the same rules as the engine, many rounds side by side.

The lower game runs through lookup tables over the 4,096 stops (the line's result, its marks, the automatic pair,
the near miss and AUTO-ADVANCE's stops for every number of nudges); the ladders (AUTO-RISK) as a vectorised walk;
the upper game as side-by-side sessions, one upper game per step for every round that still has bonuses to play.
The policy is the engine's ``default_action`` (the automatic holds and nudges, collect unless the bet's AUTO-RISK,
the highest upper bet the bonuses cover). It draws from numpy's generator, not the engine's stream: the tests
compare the distributions (``analysis.py`` and the engine's own rounds).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ...base import Bet, JsonDict, Progress

if TYPE_CHECKING:
    from .game import IsmaelBeiro

I64 = npt.NDArray[np.int64]
KINDS = {"none": 0, "cash": 1, "bonus": 2, "confessional": 3}
PAIR_CODE = {(0, 1): 0, (1, 2): 1, (0, 2): 2}
BATCH = 1_000_000
PLAYERS = 2_000  # version 2's side-by-side players (10 million rounds: 5,000 rounds each, the long run)


class FastTables:
    """numpy tables of one definition (built once per game instance, a few seconds)."""

    def __init__(self, game: IsmaelBeiro) -> None:
        lo, d = game.lower, game.d
        n = lo.n
        self.n = n
        stops = [(a, b, c) for a in range(n) for b in range(n) for c in range(n)]
        res = [lo.result(s) for s in stops]
        self.kind = np.array([KINDS[r["kind"]] for r in res], dtype=np.int64)
        self.value = np.array([r["prize"] if r["kind"] == "cash" else r["credits"] for r in res], dtype=np.int64)
        self.symbol_blue = np.array([r["kind"] == "cash" and r["symbol"] in d["ladder"]["blue"] for r in res])
        self.symbol_yellow = np.array([r["kind"] == "cash" and r["symbol"] in d["ladder"]["yellow"] for r in res])
        self.marks = np.array([lo.vertical_marks(s) for s in stops], dtype=np.int64)
        self.pair = np.array([PAIR_CODE[tuple(r["pair"])] if r["pair"] else -1 for r in res], dtype=np.int64)
        self.near = np.array([lo.near_miss(s) for s in stops])
        kmax = d["lower"]["max_nudges"]
        # best[useful][k][idx]: the stops (as an index) after AUTO-ADVANCE with k nudges
        self.best = np.zeros((2, kmax + 1, n**3), dtype=np.int64)
        for useful in (0, 1):
            for k in range(kmax + 1):
                for i, s in enumerate(stops):
                    if k == 0 or not self.near[i]:
                        self.best[useful, k, i] = i
                        continue
                    t = lo.nudged(s, lo.best_nudges(s, k, bool(useful)))
                    self.best[useful, k, i] = (t[0] * n + t[1]) * n + t[2]
        nc = d["lower"]["nudge_counts"]
        self.nudge_values = np.array([k for k, _ in nc], dtype=np.int64)
        self.nudge_cum = np.cumsum([w for _, w in nc])
        conf = d["confessional"]["prizes"]
        self.conf_kind = np.array([KINDS[k] for (k, _), _ in conf], dtype=np.int64)
        self.conf_value = np.array([v for (_, v), _ in conf], dtype=np.int64)
        self.conf_cum = np.cumsum([w for _, w in conf])
        lad = d["ladder"]
        self.scale = np.array(lad["scale"], dtype=np.int64)
        self.rn_up = np.array(lad["raise_nothing_up_per_mille"] + [0], dtype=np.int64)
        self.up = np.array(lad["up_per_mille"] + [0], dtype=np.int64)
        # upper game
        up = game.upper
        ucfg = d["upper"]
        ustops = up.all_stops
        self.u_pay = np.zeros((2, len(ustops)), dtype=np.int64)
        self.u_mixed = np.zeros((2, len(ustops)), dtype=np.int64)
        self.u_thr = np.zeros((2, len(ustops)), dtype=np.int64)
        self.u_camera = np.zeros(len(ustops), dtype=bool)
        self.u_clapper = np.zeros(len(ustops), dtype=bool)
        for vert in (0, 1):
            for i, s in enumerate(ustops):
                e = up.evaluate(s, bool(vert))
                self.u_pay[vert, i] = e["line_pay"]
                self.u_mixed[vert, i] = len(e["mixed_lines"])
                self.u_thr[vert, i] = max((ucfg["selector_per_mille"][t] for t in e["triggers"]), default=0)
                self.u_camera[i], self.u_clapper[i] = e["camera"], e["clapper"]
        self.u_win = [
            np.array([(a * n + b) * n + c for a, b, c in up.winning_stops(bool(v))], dtype=np.int64) for v in (0, 1)
        ]
        mg = d["minigames"]
        self.mg_values = np.array([v for v, _ in mg["prizes"]], dtype=np.int64)
        self.mg_cum = np.cumsum([w for _, w in mg["prizes"]])
        self.mix_values = np.array([v for v, _ in mg["mixed_prizes"]], dtype=np.int64)
        self.mix_cum = np.cumsum([w for _, w in mg["mixed_prizes"]])


def _weighted(rng: np.random.Generator, cum: I64, values: I64, size: int) -> I64:
    return values[np.searchsorted(cum, rng.integers(0, int(cum[-1]), size=size), side="right")]


def _to_bonuses(rng: np.random.Generator, amount: I64, bonus_value: int) -> I64:
    n, rem = np.divmod(amount, bonus_value)
    return n + (rng.integers(0, bonus_value, size=amount.shape[0]) < rem)


class _Batch:
    """The per-round arrays of one batch."""

    def __init__(self, size: int) -> None:
        z = np.zeros(size, dtype=np.int64)
        self.base, self.gamble, self.bonus = z.copy(), z.copy(), z.copy()
        self.bonuses, self.vl = z.copy(), z.copy()


class _Carry:
    """Version 2's machine state of ``players`` side-by-side players, carried from one batch (one round each) to
    the next: the vertical-line counter, the cumulative of each upper bet the round's bet may play, the bonuses."""

    def __init__(self, players: int, n_levels: int) -> None:
        self.vl = np.zeros(players, dtype=np.int64)
        self.acc = np.zeros((players, n_levels), dtype=np.int64)
        self.bonuses = np.zeros(players, dtype=np.int64)


def _lower(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    size: int,
    stake: int,
    price: int,
    auto_risk: bool | str,
    counts: dict[str, int],
    carry: _Carry | None = None,
    grng: np.random.Generator | None = None,
) -> _Batch:
    d = game.d["lower"]
    n = t.n
    out = _Batch(size)
    s1 = rng.integers(0, n, size=(size, 3))
    s2 = rng.integers(0, n, size=(size, 3))
    u = rng.integers(0, 1000, size=(size, 6))  # hold, nudge, hold after nudge: spin 1 and 2
    k1 = _weighted(rng, t.nudge_cum, t.nudge_values, size)
    k2 = _weighted(rng, t.nudge_cum, t.nudge_values, size)
    idx1 = (s1[:, 0] * n + s1[:, 1]) * n + s1[:, 2]
    prize1 = t.kind[idx1] != 0
    hold = ~prize1 & (t.pair[idx1] >= 0) & (u[:, 0] < d["hold_per_mille"])
    nudge1 = ~prize1 & ~hold & t.near[idx1] & (u[:, 1] < d["nudge_per_mille"])
    idx1n = np.where(nudge1, t.best[1, k1, idx1], idx1)
    hold_after = nudge1 & (t.kind[idx1n] == 0) & (t.pair[idx1n] >= 0) & (u[:, 2] < d["hold_after_nudge_per_mille"])
    held_at = idx1n  # the stops the hold keeps (after nudges when the hold came after them)
    respin = hold | hold_after
    marks = t.marks[idx1n]
    # the respin: held reels keep their stops, the others take spin 2's stops
    a, b, c = held_at // (n * n), (held_at // n) % n, held_at % n
    pair = t.pair[held_at]
    r0 = np.where(pair == 1, s2[:, 0], a)
    r1 = np.where(pair == 2, s2[:, 1], b)
    r2 = np.where(pair == 0, s2[:, 2], c)
    idx2 = (r0 * n + r1) * n + r2
    nudge2 = respin & (t.kind[idx2] == 0) & t.near[idx2] & (u[:, 4] < d["nudge_per_mille"])
    idx2n = np.where(nudge2, t.best[0, k2, idx2], idx2)
    final = np.where(respin, idx2n, idx1n)
    marks = marks + np.where(respin, t.marks[idx2n], 0)
    out.vl = np.minimum(d["max_vertical_lines"], marks + (carry.vl[:size] if carry is not None else 0))
    kind, value = t.kind[final], t.value[final]
    counts["hold"] += int(respin.sum())
    counts["nudges"] += int(nudge1.sum() + nudge2.sum())
    cash = np.where(kind == 1, value, 0)
    out.bonuses = np.where(kind == 2, value * price, 0)
    conf = kind == 3
    counts["confessional"] += int(conf.sum())
    ci = np.searchsorted(t.conf_cum, rng.integers(0, int(t.conf_cum[-1]), size=size), side="right")
    conf_cash = conf & (t.conf_kind[ci] == KINDS["cash"])
    cash = np.where(conf_cash, t.conf_value[ci], cash)
    out.bonuses += np.where(conf & ~conf_cash, t.conf_value[ci] * price, 0)
    out.base = cash * stake
    if carry is not None:
        out.bonuses += carry.bonuses[:size]
    if auto_risk:
        blue = t.symbol_blue[final] | conf_cash
        yellow = t.symbol_yellow[final] & ~conf_cash
        if game.fair_gambles:
            _ladders_fair(game, t, grng or rng, out, cash, blue, yellow, stake, counts, auto_risk == "once")
        else:
            _ladders(game, t, rng, out, cash, blue, yellow, stake, counts)
    return out


def _ladders_fair(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    out: _Batch,
    cash: I64,
    blue: I64,
    yellow: I64,
    stake: int,
    counts: dict[str, int],
    once: bool,
) -> None:
    """Version 3's ladders (``features.ladder_step_fair``): every eligible prize risked to the end, or ``once``
    (one step, then collected)."""
    from .features import fair_odds

    scale = [int(x) for x in t.scale]
    top = len(scale) - 1
    num = np.zeros((2, top + 1), dtype=np.int64)
    den = np.ones((2, top + 1), dtype=np.int64)
    for j in range(top):
        num[0, j], den[0, j] = fair_odds(scale, j, "seesaw")
        num[1, j], den[1, j] = fair_odds(scale, j, "raise_nothing")
    rung = np.searchsorted(t.scale, cash)
    active = (blue | yellow) & (cash > 0) & (cash < t.scale[-1])
    idx = np.nonzero(active)[0]
    counts["ladders"] += len(idx)
    r = rung[idx]
    rn = yellow[idx].astype(np.int64)
    lost = np.zeros(len(idx), dtype=bool)
    alive = np.ones(len(idx), dtype=bool)
    while alive.any():
        a = np.nonzero(alive)[0]
        rr, mode = r[a], rn[a]
        up = rng.integers(0, den[mode, rr]) < num[mode, rr]
        down = ~up & (mode == 0) & (rr > 0)
        gone = ~up & ~down
        r[a] = np.where(up, rr + 1, np.where(down, rr - 1, rr))
        lost[a[gone]] = True
        alive[a[gone | (r[a] == top)]] = False
        if once:
            alive[:] = False
    result = np.where(lost, 0, t.scale[r] * stake)
    out.gamble[idx] += result - cash[idx] * stake


def _ladders(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    out: _Batch,
    cash: I64,
    blue: I64,
    yellow: I64,
    stake: int,
    counts: dict[str, int],
) -> None:
    """AUTO-RISK: every ladder-eligible prize risked to the end (features.ladder_step's rules)."""
    lad = game.d["ladder"]
    top = len(t.scale) - 1
    rung = np.searchsorted(t.scale, cash)
    active = (blue | yellow) & (cash > 0) & (cash < t.scale[-1])
    mode_rn = yellow.copy()  # raise-nothing, else bonus-raise / seesaw by the rung
    idx = np.nonzero(active)[0]
    counts["ladders"] += len(idx)
    entry = cash[idx] * stake
    r, rn = rung[idx], mode_rn[idx]
    result = np.zeros(len(idx), dtype=np.int64)
    bonus_out = np.zeros(len(idx), dtype=np.int64)
    alive = np.ones(len(idx), dtype=bool)
    while alive.any():
        a = np.nonzero(alive)[0]
        u = rng.integers(0, 1000, size=len(a))
        rr = r[a]
        is_rn = rn[a]
        seesaw = ~is_rn & (t.scale[rr] > lad["three_lemons"])
        p = np.where(is_rn, t.rn_up[rr], t.up[rr])
        up = u < p
        new = np.where(up, rr + 1, np.where(seesaw, rr - 1, rr))
        lost_rn = is_rn & ~up
        to_bonus = ~is_rn & ~seesaw & ~up
        r[a] = new
        ended_top = up & (new == top)
        result[a[ended_top]] = t.scale[top] * stake
        bonus_out[a[to_bonus]] = _to_bonuses(rng, t.scale[rr[to_bonus]] * stake, game.bonus_value)
        alive[a[lost_rn | to_bonus | ended_top]] = False
    out.gamble[idx] += result - entry
    out.bonuses[idx] += bonus_out


def _upper(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    out: _Batch,
    level: int,
    cap: int,
    auto_risk: bool | str,
    counts: dict[str, int],
    carry: _Carry | None = None,
    grng: np.random.Generator | None = None,
) -> None:
    """Side-by-side upper sessions: one game per step for every round with bonuses left (the highest bet the
    bonuses cover, among ``game.upper_levels``). With ``carry`` the sessions start from the carried cumulatives
    and leave the counters and bonuses in it for the next round."""
    d = game.d
    ucfg = d["upper"]
    bets = game.bets
    levels = game.upper_levels(level)
    prices = np.array([bets[j]["bonus_price"] for j in levels], dtype=np.int64)
    stakes = np.array([bets[j]["stake"] for j in levels], dtype=np.int64)
    max_x = np.array([game.bet_max_x(j) for j in levels], dtype=np.int64)
    mixed_ok = np.array([bets[j]["mixed"] for j in levels])
    fractions = np.array([game.fraction_x(j) * bets[j]["stake"] for j in levels], dtype=np.int64)
    n_levels = len(levels)
    idx = np.nonzero(out.bonuses >= prices.min())[0]
    counts["upper_sessions"] += len(idx)
    bon, vl = out.bonuses[idx].copy(), out.vl[idx].copy()
    win = out.base[idx] + out.gamble[idx]
    cash_total = np.zeros(len(idx), dtype=np.int64)
    gam = np.zeros(len(idx), dtype=np.int64)
    acc = carry.acc[idx].copy() if carry is not None else np.zeros((len(idx), n_levels), dtype=np.int64)
    pieces = ucfg["cumulative_pieces"]
    cam_lo, cam_hi = ucfg["camera"]
    cl_lo, cl_hi = ucfg["clapper"]
    alive = (bon >= prices.min()) & (win < cap)
    while alive.any():
        a = np.nonzero(alive)[0]
        m = len(a)
        counts["upper_games"] += m
        # the highest affordable bet
        afford = bon[a, None] >= prices[None, :]
        li = n_levels - 1 - np.argmax(afford[:, ::-1], axis=1)
        price, stake = prices[li], stakes[li]
        bon[a] -= price
        vert = (vl[a] > 0).astype(np.int64)
        vl[a] -= vert
        si = rng.integers(0, len(t.u_camera), size=m)
        cam = rng.integers(cam_lo, cam_hi + 1, size=m)
        clap = rng.integers(cl_lo, cl_hi + 1, size=m)
        sel = rng.integers(0, 1000, size=m)
        prize, extra_bonus = _upper_prize(game, t, rng, si, vert, sel, li, mixed_ok, stake, counts, max_x[li])
        camera = t.u_camera[si]
        vl[a] = np.where(camera, np.minimum(d["lower"]["max_vertical_lines"], vl[a] + cam), vl[a])
        clapper = t.u_clapper[si]
        acc[a, li] += np.where(clapper, clap, 0)
        done = acc[a, li] >= pieces
        if done.any():
            counts["winning_spins"] += int(done.sum())
            acc[a[done], li[done]] = 0
            dv = vert[done]
            wsi = np.empty(int(done.sum()), dtype=np.int64)
            for v in (0, 1):
                mask = dv == v
                wsi[mask] = t.u_win[v][rng.integers(0, len(t.u_win[v]), size=int(mask.sum()))]
            wp, wb = _upper_prize(
                game,
                t,
                rng,
                wsi,
                dv,
                rng.integers(0, 1000, size=len(wsi)),
                li[done],
                mixed_ok,
                stake[done],
                counts,
                max_x[li[done]],
            )
            prize[done] += wp
            extra_bonus[done] += wb
        top = max_x[li] * stake
        prize = np.minimum(prize, top)
        room = cap - win[a]
        paid = np.minimum(prize, room)
        counts["cap_loss"] += int((prize - paid).sum())
        cash_total[a] += paid
        win[a] += paid
        bon[a] += extra_bonus
        if auto_risk and game.fair_gambles:
            delta = _dob_fair(
                grng or rng, paid, fractions[li], top, cap - win[a] + paid, bon[a], game, counts, auto_risk == "once"
            )
            gam[a] += delta
            win[a] += delta
        elif auto_risk:
            delta, more = _dob(game, t, rng, paid, stake, top, bon[a], cap - win[a], counts)
            gam[a] += delta
            win[a] += delta
            bon[a] += more
        alive[a] = (bon[a] >= prices.min()) & (win[a] < cap)
    counts["bonuses_lapsed_rounds" if carry is None else "bonuses_carried_rounds"] += int((bon > 0).sum())
    if carry is not None:
        size = len(out.vl)
        carry.vl[:size] = out.vl
        carry.bonuses[:size] = out.bonuses
        carry.vl[idx], carry.acc[idx], carry.bonuses[idx] = vl, acc, bon
    out.bonus[idx] += cash_total
    out.gamble[idx] += gam


def _upper_prize(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    si: I64,
    vert: I64,
    sel: I64,
    li: I64,
    mixed_ok: npt.NDArray[np.bool_],
    stake: I64,
    counts: dict[str, int],
    max_x: I64,
) -> tuple[I64, I64]:
    """One upper spin's cash (lines, mixed sevens, minigame) and the supplement's bonuses, in haléř."""
    d = game.d
    mg = d["minigames"]
    m = len(si)
    pay = t.u_pay[vert, si] * stake
    nm = t.u_mixed[vert, si]
    mixed = np.zeros(m, dtype=np.int64)
    if nm.any():
        ok = mixed_ok[li]
        for k in range(1, int(nm.max()) + 1):
            has = nm >= k
            drawn = _weighted(rng, t.mix_cum, t.mix_values, m)
            mixed += np.where(has, np.where(ok, drawn, d["upper"]["mixed_sevens_fixed"]), 0)
        counts["mixed_sevens"] += int(nm.sum())
    cash = pay + mixed * stake
    opened = sel < t.u_thr[vert, si]
    bonus = np.zeros(m, dtype=np.int64)
    if opened.any():
        o = np.nonzero(opened)[0]
        counts["minigames"] += len(o)
        x = _weighted(rng, t.mg_cum, t.mg_values, len(o))
        top_x = max_x[o]
        if game.minigame_within_bet_max:
            x = np.minimum(x, top_x)
        cash[o] += x * stake[o]
        sup = (rng.integers(0, 1000, size=len(o)) < mg["supplement_per_mille"]) & (x < top_x)
        if sup.any():
            so = o[sup]
            counts["supplements"] += len(so)
            bonus[so] = _to_bonuses(rng, (top_x[sup] - x[sup]) * stake[so], game.bonus_value)
    return cash, bonus


def _dob(
    game: IsmaelBeiro,
    t: FastTables,
    rng: np.random.Generator,
    prize: I64,
    stake: I64,
    top: I64,
    bonuses: I64,
    room: I64,
    counts: dict[str, int],
) -> tuple[I64, I64]:
    """AUTO-RISK in Double-or-Bonuses: every fraction risked while allowed; returns (cash change, bonuses won)."""
    cfg = game.d["upper"]
    f = cfg["fraction"] * stake
    remaining, banked = prize.copy(), np.zeros_like(prize)
    won = np.zeros_like(prize)
    alive = (prize >= f) & (prize < top) & (bonuses <= cfg["max_bonuses_for_double"])
    counts["double_or_bonuses"] += int(alive.sum())
    while alive.any():
        a = np.nonzero(alive)[0]
        remaining[a] -= f[a]
        dbl = rng.integers(0, 1000, size=len(a)) < cfg["double_per_mille"]
        banked[a] += np.where(dbl, 2 * f[a], 0)
        nb = np.where(dbl, 0, _to_bonuses(rng, f[a], game.bonus_value))
        won[a] += nb
        alive[a] = (
            (remaining[a] >= f[a])
            & (banked[a] + remaining[a] < top[a])
            & (bonuses[a] + won[a] <= cfg["max_bonuses_for_double"])
        )
    cash = np.minimum(banked + remaining, prize + room)  # the round's cap
    return cash - prize, won


def _dob_fair(
    rng: np.random.Generator,
    prize: I64,
    f: I64,
    top: I64,
    limit: I64,
    bonuses: I64,
    game: IsmaelBeiro,
    counts: dict[str, int],
    once: bool,
) -> I64:
    """Version 3's Double-or-Bonuses risked (``features.dob_step_fair``): a fraction doubled or lost with even
    odds, offered while all it can win fits under ``min(top, limit)`` (``limit``: the prize plus the round's room);
    every fraction while allowed, or ``once``. Returns the cash change."""
    mx = np.minimum(top, limit)
    remaining, banked = prize.copy(), np.zeros_like(prize)
    ok = bonuses <= game.d["upper"]["max_bonuses_for_double"]
    alive = ok & (remaining >= f) & (banked + remaining + f <= mx)
    counts["double_or_bonuses"] += int(alive.sum())
    while alive.any():
        a = np.nonzero(alive)[0]
        remaining[a] -= f[a]
        banked[a] += np.where(rng.integers(0, 2, size=len(a)) == 0, 2 * f[a], 0)
        alive[a] = (remaining[a] >= f[a]) & (banked[a] + remaining[a] + f[a] <= mx[a])
        if once:
            alive[:] = False
    delta: I64 = banked + remaining - prize
    return delta


def _sum_sq(arr: I64) -> int:
    """The exact sum of squares (each square fits int64; partial sums of 10,000 of them too)."""
    sq = arr * arr
    return sum(int(sq[i : i + 10_000].sum()) for i in range(0, len(sq), 10_000))


@functools.cache
def tables(game: IsmaelBeiro) -> FastTables:
    return FastTables(game)


def simulate_fast(
    game: IsmaelBeiro,
    bet: Bet,
    rounds: int,
    seed: int,
    progress: Progress | None = None,
    policy: bool | str | None = None,
) -> JsonDict:
    """``rounds`` rounds of ``bet`` in batches of a million; the canonical statistics (``games.engine.par``)."""
    t = tables(game)
    rng = np.random.default_rng(seed)
    stake = bet.total_stake
    level = game.stakes.index(stake)
    price = game.bets[level]["bonus_price"]
    cap = game.max_prize * stake
    # the gambles' policy: AUTO-RISK (every prize risked to the end), or a strategy of the PAR sheet's table
    # ("once": each prize risked once, then collected; version 3 only)
    auto_risk: bool | str = policy if policy is not None else bool(bet.params.get("auto_risk"))
    counts: dict[str, int] = {
        k: 0
        for k in (
            "hold",
            "nudges",
            "confessional",
            "ladders",
            "upper_sessions",
            "upper_games",
            "minigames",
            "supplements",
            "mixed_sevens",
            "winning_spins",
            "double_or_bonuses",
            "bonuses_lapsed_rounds",
            "bonuses_carried_rounds",
            "capped_rounds",
            "cap_loss",
            "bonuses_beyond_max_prize",
        )
    }
    tot: dict[str, Any] = {
        "win": 0,
        "sq": 0,
        "hits": 0,
        "max": 0,
        "rem_sq": 0,
        "bd": {"base": 0, "bonus": 0, "gamble": 0},
        "bd_sq": {"base": 0, "bonus": 0, "gamble": 0},
    }
    done = 0
    # Version 2 carries the machine from one round to the next: PLAYERS side-by-side players, each batch one round
    # of each (rounds / PLAYERS rounds a player; every player starts fresh, as a new player does).
    carry = _Carry(min(PLAYERS, rounds), len(game.upper_levels(level))) if game.carry_over else None
    batch = BATCH if carry is None else len(carry.vl)
    # version 3 draws its gambles from a stream of their own, so that the strategies of the PAR sheet play the same
    # lower and upper games (paired: their differences are the gambles' alone)
    grng = np.random.default_rng([seed, 1]) if game.fair_gambles else None
    while done < rounds:
        size = min(batch, rounds - done)
        bon_in = carry.bonuses[:size].copy() if carry is not None else None
        b = _lower(game, t, rng, size, stake, price, auto_risk, counts, carry, grng)
        _upper(game, t, rng, b, level, cap, auto_risk, counts, carry, grng)
        win = b.base + b.gamble + b.bonus
        counts["capped_rounds"] += int((win >= cap).sum())
        if carry is not None and bon_in is not None and game.carry_within_cap:
            allowed = bon_in + np.maximum(0, cap - win) // game.bonus_value
            over = carry.bonuses[:size] > allowed
            counts["bonuses_beyond_max_prize"] += int((carry.bonuses[:size] - allowed)[over].sum())
            counts["cap_loss"] += int((carry.bonuses[:size] - allowed)[over].sum()) * game.bonus_value
            carry.bonuses[:size] = np.minimum(carry.bonuses[:size], allowed)
        tot["win"] += int(win.sum())
        tot["sq"] += _sum_sq(win)
        tot["hits"] += int((win > 0).sum())
        tot["max"] = max(tot["max"], int(win.max()))
        tot["rem_sq"] += _sum_sq(win - b.base)
        for k, arr in (("base", b.base), ("bonus", b.bonus), ("gamble", b.gamble)):
            tot["bd"][k] += int(arr.sum())
            tot["bd_sq"][k] += _sum_sq(arr)
        done += size
        if progress:
            progress(done, rounds)
    breakdown = {
        "base": tot["bd"]["base"],
        "free_spins": 0,
        "bonus": tot["bd"]["bonus"],
        "gamble": tot["bd"]["gamble"],
        "jackpot": 0,
    }
    return {
        "rounds": rounds,
        "total_stake": rounds * stake,
        "total_win": tot["win"],
        "rtp": tot["win"] / (rounds * stake),
        "breakdown": breakdown,
        "hit_count": tot["hits"],
        "hit_frequency": tot["hits"] / rounds,
        "sum_sq": tot["sq"],
        "max_win": tot["max"],
        "feature_counts": counts,
        "breakdown_sum_sq": {**tot["bd_sq"], "free_spins": 0, "jackpot": 0},
        "remainder_sum_sq": tot["rem_sq"],
        "remainder_parts": ["base"],
    }
