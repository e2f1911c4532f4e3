"""Open-loop load and the capacity search of ``make bench`` (the closed-loop runs are ``bench_load``).

A closed-loop client sends its next request when the previous answer arrived: when the server slows down, the
client slows down with it, and the time a request *would* have waited is never measured (coordinated omission).
Here round starts are sent on a fixed timetable instead: start ``k`` of a run at ``rate`` per second is due at
``t0 + k / rate``, whatever happened to the earlier ones, and its latency is measured from that due time. A start
waits for a free connection of the pool (at most ``connections`` in flight) and that wait is part of its latency.
A Kobushi round that waits for its player is finished through the actions endpoint on the same connection, as in
``bench_load`` (the actions are not on the timetable: a player answers when the round asks).

Each due start goes to the player who has waited longest and may start again (GP §7(9): a player's round starts are
at least 2 s apart, by the server's ``started_at``); a due start with no such player is not sent and is counted
(``schedule:no_player_due``): the run is then bounded by its players, not by the server.

:func:`capacity_search` steps the offered rate up (x1.5) until a step is not sustained, then bisects between the
last sustained and the first failed rate. A step is sustained when the answers that arrived within the step (plus
:data:`SLACK_SECONDS`) are >= 98 % of the starts it offered, at most 2 % of the answers are errors, and the latency
does not grow across the step (the median of its last third is within ``max(10 ms, 1.5 x`` the median of its first
third``)``): a queue that grows shows as all three. Only 127.0.0.1 is contacted; every step and run is bounded in time.
"""

from __future__ import annotations

import asyncio
import heapq
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from bench_load import MIN_ROUND_SECONDS, Driver, Player, Stats, percentile

SUSTAINED_SHARE = 0.98  # achieved / offered
MAX_ERROR_SHARE = 0.02
SLACK_SECONDS = 0.25  # answers this long after a step's end still count as within it
GROWTH_FACTOR = 1.5  # the last third's median latency against the first third's
GROWTH_FLOOR_MS = 10.0
PLAYER_PERIOD = MIN_ROUND_SECONDS + 0.2  # the rate the players allow: len(players) / this


@dataclass
class Step:
    """One open-loop step of the capacity search (or the run at a share of capacity)."""

    rate: float  # offered round starts per second (the timetable's)
    seconds: float
    due: int = 0  # starts on the timetable
    sent: int = 0
    no_player: int = 0  # due starts not sent: no player could start again yet (GP §7(9))
    answered_in_time: int = 0  # answers that arrived within the step (+ SLACK_SECONDS)
    errors: int = 0
    first_third_p50: float = 0.0
    last_third_p50: float = 0.0
    p50: float = 0.0
    p99: float = 0.0

    @property
    def achieved(self) -> float:
        return self.answered_in_time / self.seconds if self.seconds else 0.0

    @property
    def sustained(self) -> bool:
        return not self.reasons

    @property
    def reasons(self) -> list[str]:
        out = []
        if self.due == 0 or self.answered_in_time < SUSTAINED_SHARE * self.due:
            out.append(f"achieved {self.achieved:.0f}/s < {SUSTAINED_SHARE:.0%} of {self.rate:.0f}/s")
        if self.sent and self.errors > MAX_ERROR_SHARE * self.sent:
            out.append(f"{self.errors} errors")
        if self.last_third_p50 > max(GROWTH_FLOOR_MS, GROWTH_FACTOR * self.first_third_p50):
            out.append(f"latency grew {self.first_third_p50:.0f} -> {self.last_third_p50:.0f} ms")
        return out

    def describe(self) -> str:
        verdict = "sustained" if self.sustained else "NOT sustained (" + "; ".join(self.reasons) + ")"
        return (
            f"{self.rate:.0f}/s offered for {self.seconds:.0f} s: {self.achieved:.0f}/s answered in time, "
            f"p50 {self.p50:.0f} ms (first third {self.first_third_p50:.0f}, last third "
            f"{self.last_third_p50:.0f}), p99 {self.p99:.0f} ms, {self.errors} errors"
            + (f", {self.no_player} due starts without a player" if self.no_player else "")
            + f": {verdict}"
        )


class OpenDriver(Driver):
    """A :class:`Driver` whose round-start latency counts from the start's due time, not from its send."""

    due_at = 0.0  # perf_counter of the start's place in the timetable

    def _since(self) -> float | None:
        return self.due_at


async def _open_loop(
    port: int,
    players: list[Player],
    *,
    rate: float,
    seconds: float,
    connections: int,
    mix: float,
    seed: int,
    grace: float,
) -> tuple[Stats, Step]:
    step = Step(rate=rate, seconds=seconds)
    pool: asyncio.Queue[OpenDriver] = asyncio.Queue()
    wall_start = time.time()
    hard_stop = wall_start + seconds + grace
    drivers = [
        OpenDriver(port, [], mix=mix, rng=random.Random(seed + i), stop_at=wall_start + seconds, hard_stop_at=hard_stop)
        for i in range(connections)
    ]
    for d in drivers:
        pool.put_nowait(d)
    ready = [(p.next_at, i) for i, p in enumerate(players)]  # who may start when (wall clock)
    heapq.heapify(ready)
    timeline: list[tuple[float, float, bool]] = []  # (due offset s, latency ms, error) of every start answered
    t0 = time.perf_counter()
    window_end = t0 + seconds + SLACK_SECONDS

    async def one(player_index: int, due_at: float) -> None:
        driver = await pool.get()
        try:
            driver.due_at = due_at
            before_errors, before = sum(driver.stats.errors.values()), len(driver.stats.round_ms)
            await driver.play(players[player_index])
            if len(driver.stats.round_ms) > before:  # the start was answered (a transport error records none)
                answered = due_at + driver.stats.round_ms[before] / 1000
                if answered <= window_end:
                    step.answered_in_time += 1
                failed = sum(driver.stats.errors.values()) > before_errors
                timeline.append((due_at - t0, driver.stats.round_ms[before], failed))
            elif sum(driver.stats.errors.values()) > before_errors:
                timeline.append((due_at - t0, math.inf, True))
        finally:
            pool.put_nowait(driver)
            heapq.heappush(ready, (players[player_index].next_at, player_index))

    tasks: list[asyncio.Task[None]] = []
    total = max(1, int(rate * seconds))
    for k in range(total):
        due_at = t0 + k / rate
        wait = due_at - time.perf_counter()
        if wait > 0:
            await asyncio.sleep(wait)
        step.due += 1
        now_wall = time.time()
        if not ready or ready[0][0] > now_wall:
            step.no_player += 1
            continue
        _, index = heapq.heappop(ready)
        players[index].next_at = math.inf  # in flight: the round's answer sets the next time
        step.sent += 1
        tasks.append(asyncio.create_task(one(index, due_at)))
    if tasks:
        await asyncio.wait(tasks, timeout=max(1.0, hard_stop - time.time()))
    for task in tasks:
        task.cancel()
    total_stats = Stats(first_start=wall_start)
    for d in drivers:
        d.stats.connections_opened = d.conn.opened
        total_stats.merge(d.stats)
        await d.conn.close()
    total_stats.first_start, total_stats.last_end = wall_start, wall_start + seconds
    for p in players:  # a start cancelled at the hard stop: the player may play again after the 2 s
        if p.next_at == math.inf:
            p.next_at = time.time() + MIN_ROUND_SECONDS
    step.errors = sum(1 for _, _, failed in timeline if failed)
    latencies = [ms for _, ms, _ in timeline if ms != math.inf]
    step.p50, step.p99 = percentile(latencies, 50), percentile(latencies, 99)
    thirds = [
        [ms for at, ms, _ in timeline if ms != math.inf and lo <= at < hi]
        for lo, hi in ((0, seconds / 3), (2 * seconds / 3, seconds + 1))
    ]
    step.first_third_p50 = statistics.median(thirds[0]) if thirds[0] else 0.0
    step.last_third_p50 = statistics.median(thirds[1]) if thirds[1] else math.inf
    return total_stats, step


def run_open_loop(
    port: int,
    players: list[Player],
    *,
    rate: float,
    seconds: float,
    connections: int = 32,
    mix: float = 0.5,
    seed: int = 1,
    grace: float = 30.0,
) -> tuple[Stats, Step]:
    """Round starts at ``rate`` per second for ``seconds`` on a fixed timetable; ``players`` keep their
    ``next_at`` across calls (pass the same objects to the next step). ``Stats.round_ms`` counts from due times."""
    return asyncio.run(
        _open_loop(port, players, rate=rate, seconds=seconds, connections=connections, mix=mix, seed=seed, grace=grace)
    )


@dataclass
class Capacity:
    rate: float  # the highest sustained offered rate (0: none)
    player_bound: bool  # the search stopped at the rate the players allow
    steps: list[Step]


def capacity_search(
    port: int,
    players: list[Player],
    *,
    step_seconds: float,
    connections: int,
    mix: float,
    start_rate: float = 25.0,
    max_steps: int = 8,
    precision: float = 0.1,
    seed: int = 1,
    say: Callable[[str], None] = print,
) -> Capacity:
    """The highest offered rate sustained (see the module docstring): up x1.5 from ``start_rate`` until a step
    fails, then bisection until the bracket is within ``precision`` of the sustained rate; at most ``max_steps``."""
    limit = len(players) / PLAYER_PERIOD
    rate = min(start_rate, limit)
    good, bad = 0.0, math.inf
    steps: list[Step] = []
    while len(steps) < max_steps:
        _, step = run_open_loop(
            port,
            players,
            rate=rate,
            seconds=step_seconds,
            connections=connections,
            mix=mix,
            seed=seed + len(steps),
            grace=10,
        )
        steps.append(step)
        say(f"   capacity step {len(steps)}: {step.describe()}")
        if step.sustained:
            good = rate
            if rate >= limit * 0.999:
                return Capacity(good, True, steps)
        else:
            bad = rate
        if bad - good <= precision * max(good, 1.0):
            break
        rate = min(rate * 1.5, limit) if bad == math.inf else (good + bad) / 2 if good else bad / 2
    return Capacity(good, False, steps)
