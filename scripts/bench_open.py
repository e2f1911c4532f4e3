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

:func:`capacity_search` steps the offered rate up (x1.5, from ``start_rate``) until a step is not sustained, then
bisects between the highest sustained and the lowest failed rate until they are within ``precision``, and runs the
chosen rate once more: the capacity is the highest rate sustained every time it ran, below every rate that failed
(:func:`search_next`, :func:`search_result`: pure functions of the steps run so far). A step is sustained when the
answers that arrived within the step (plus :data:`SLACK_SECONDS`) are >= 98 % of the starts it offered, at most 2 % of
the answers are errors, and the latency does not grow across the step (the median of its last third is within
``max(10 ms, 1.5 x`` the median of its first third``)``): a queue that grows shows as all three. Before every step the
search waits until the server is idle again (:func:`wait_idle`: every start of the previous step answered, then a
cheap authenticated GET answering as fast as before the first step), so that no step starts with the queue an
overloaded step left. Only 127.0.0.1 is contacted; every step, wait and run is bounded in time.
"""

from __future__ import annotations

import asyncio
import heapq
import json
import math
import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from bench_load import MIN_ROUND_SECONDS, Connection, Driver, HttpError, Player, Stats, percentile

SUSTAINED_SHARE = 0.98  # achieved / offered
MAX_ERROR_SHARE = 0.02
SLACK_SECONDS = 0.25  # answers this long after a step's end still count as within it
GROWTH_FACTOR = 1.5  # the last third's median latency against the first third's
GROWTH_FLOOR_MS = 10.0
PLAYER_PERIOD = MIN_ROUND_SECONDS + 0.2  # the rate the players allow: len(players) / this
GROWTH_STEP = 1.5  # the search's step up while no step failed
MIN_RATE = 1.0  # below this the search gives up (no rate sustained)
IDLE_PATH = "/api/v1/games/rounds/open"  # the idle probe: a player's open round (the token statement and one read)
IDLE_FACTOR, IDLE_MARGIN_MS = 2.0, 5.0  # idle: each probe within max(2 x, + 5 ms) of the baseline probe
IDLE_PROBES = 3  # consecutive probes that must be idle
IDLE_TIMEOUT = 20.0  # seconds the search waits for idle before it goes on anyway (and says so)


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
    wall_t0: float = 0.0  # time.time() of the timetable's start (due offsets count from it)
    # (due offset s, latency ms, error) of every start answered (latency inf: failed without an answer)
    timeline: list[tuple[float, float, bool]] = field(default_factory=list, repr=False)
    idle_wait: float = 0.0  # seconds the search waited for the server to be idle before this step
    idle_reached: bool = True  # False: the wait timed out (the step may have started on a queue)

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
            + (
                f" (after {self.idle_wait:.1f} s waiting for idle{'' if self.idle_reached else ', NOT reached'})"
                if self.idle_wait
                else ""
            )
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
    step.wall_t0 = time.time()
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
    step.timeline = timeline
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
    confirmed: bool = False  # the chosen rate was sustained twice (the search ran out of steps before, if not)
    idle_ms: float = 0.0  # the idle probe's latency before the first step (what "idle" is measured against)


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9)


def search_result(steps: list[Step]) -> tuple[float, float]:
    """(the capacity so far, the lowest failed rate): the highest rate sustained every time it ran and lower than
    every rate that failed once (a rate that failed is never taken, nor anything above it; 0 if none), and the lowest
    rate that failed (inf if none)."""
    bad = min((s.rate for s in steps if not s.sustained), default=math.inf)
    good = max((s.rate for s in steps if s.rate < bad), default=0.0)
    return good, bad


def search_next(
    steps: list[Step], *, limit: float, start_rate: float, precision: float = 0.1, confirm: bool = True
) -> float | None:
    """The next rate the capacity search runs, from the steps run so far (None: the search is over). Up x1.5 from
    ``start_rate`` while every step was sustained (capped at ``limit``, the rate the players allow: reaching it ends
    the search); then bisection between the capacity so far and the lowest failed rate until they are within
    ``precision`` of the capacity; then, with ``confirm``, the capacity once more unless it already ran twice (a
    failed repeat makes it a failed rate: the search goes on below it)."""
    if not steps:
        return min(start_rate, limit)
    good, bad = search_result(steps)
    if bad == math.inf:
        return None if good >= limit * 0.999 else min(good * GROWTH_STEP, limit)
    if good == 0.0:
        return bad / 2 if bad / 2 >= MIN_RATE else None
    if bad - good <= precision * good:
        return good if confirm and not _confirmed(steps, good) else None
    return (good + bad) / 2


def _confirmed(steps: list[Step], rate: float) -> bool:
    return sum(1 for s in steps if _same(s.rate, rate)) >= 2


def is_idle(probes_ms: list[float], baseline_ms: float, *, need: int = IDLE_PROBES) -> bool:
    """Whether the last ``need`` probes all answered within ``max(IDLE_FACTOR x, + IDLE_MARGIN_MS)`` of the idle
    server's (``baseline_ms``)."""
    bound = max(IDLE_FACTOR * baseline_ms, baseline_ms + IDLE_MARGIN_MS)
    recent = probes_ms[-need:]
    return len(recent) == need and all(ms <= bound for ms in recent)


async def _probe(conn: Connection, token: str) -> float:
    started = time.perf_counter()
    try:
        await conn.request("GET", IDLE_PATH, token=token)
    except HttpError:
        return math.inf
    return (time.perf_counter() - started) * 1000


async def _idle_baseline(port: int, token: str, probes: int = 5) -> float:
    conn = Connection(port)
    try:
        await _probe(conn, token)  # the connection's opening is not the server's latency
        return statistics.median([await _probe(conn, token) for _ in range(probes)])
    finally:
        await conn.close()


async def _wait_idle(port: int, token: str, baseline_ms: float, *, timeout: float, every: float = 0.1) -> bool:
    conn = Connection(port)
    deadline = time.monotonic() + timeout
    probes: list[float] = []
    try:
        while time.monotonic() < deadline:
            probes.append(await _probe(conn, token))
            if is_idle(probes, baseline_ms):
                return True
            await asyncio.sleep(every)
        return False
    finally:
        await conn.close()


def idle_baseline(port: int, token: str) -> float:
    """The idle probe's median latency (ms) on the server as it is now (call it while nothing else is sent)."""
    return asyncio.run(_idle_baseline(port, token))


def wait_idle(port: int, token: str, baseline_ms: float, *, pause: float, timeout: float = IDLE_TIMEOUT) -> bool:
    """Wait ``pause`` seconds, then until the idle probe answers as an idle server does (:func:`is_idle`), at most
    ``timeout`` seconds more; False if it did not."""
    time.sleep(pause)
    return asyncio.run(_wait_idle(port, token, baseline_ms, timeout=timeout))


def capacity_search(
    port: int,
    players: list[Player],
    *,
    step_seconds: float,
    connections: int,
    mix: float,
    start_rate: float = 25.0,
    max_steps: int = 10,
    precision: float = 0.1,
    seed: int = 1,
    pause: float = MIN_ROUND_SECONDS,
    say: Callable[[str], None] = print,
) -> Capacity:
    """The highest offered rate sustained (see the module docstring and :func:`search_next`), at most ``max_steps``
    steps, each after ``pause`` seconds (the last step's players may start again, GP §7(9)) and the server idle
    again (:func:`wait_idle`)."""
    limit = len(players) / PLAYER_PERIOD
    token = players[0].token
    baseline = idle_baseline(port, token)
    say(f"   idle probe (GET {IDLE_PATH}): {baseline:.1f} ms")
    steps: list[Step] = []
    while len(steps) < max_steps:
        rate = search_next(steps, limit=limit, start_rate=start_rate, precision=precision)
        if rate is None:
            break
        waited, reached = 0.0, True
        if steps:  # the previous step's queue drained, its players free again (GP §7(9))
            began = time.monotonic()
            reached = wait_idle(port, token, baseline, pause=pause)
            waited = time.monotonic() - began
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
        step.idle_wait, step.idle_reached = waited, reached
        step.timeline = []  # the search keeps the verdicts only
        steps.append(step)
        say(f"   capacity step {len(steps)}: {step.describe()}")
    good, _ = search_result(steps)
    confirmed = good > 0 and _confirmed(steps, good)
    return Capacity(good, good >= limit * 0.999, steps, confirmed=confirmed, idle_ms=baseline)


# Worker recycling in a run ------------------------------------------------------------------------------------------
# gunicorn replaces a worker after GUNICORN_MAX_REQUESTS requests; the new worker opens new database connections. The
# access log (one JSON object per answer, with its worker's pid, its end time and its duration) tells when each
# worker answered first; the open-loop timeline tells which starts were slow.


@dataclass
class Recycle:
    pid: int
    first_at: float  # wall clock when the new worker began its first answer (its end minus its duration)
    first_ms: list[float]  # server-side durations of its first answers (ms)


def new_workers(lines: list[str], start: float, end: float, *, first: int = 20) -> list[Recycle]:
    """The workers whose first answer in the access log began within [start, end] (each replaced a recycled or
    lost worker), with the durations of their first ``first`` answers, in the order they began."""
    seen: dict[int, Recycle] = {}
    for line in lines:
        try:
            entry = json.loads(line)
            pid, ms = int(entry["pid"]), float(entry["duration_ms"])
            at = datetime.fromisoformat(str(entry["ts"]).replace("Z", "+00:00")).timestamp() - ms / 1000
        except (ValueError, KeyError, TypeError):
            continue
        worker = seen.setdefault(pid, Recycle(pid, at, []))
        worker.first_at = min(worker.first_at, at)
        if len(worker.first_ms) < first:
            worker.first_ms.append(ms)
    return sorted((w for w in seen.values() if start <= w.first_at <= end), key=lambda w: w.first_at)


def slow_near(step: Step, moments: list[float], threshold_ms: float, *, before: float = 0.5, after: float = 2.0) -> int:
    """How many of ``step``'s starts took ``threshold_ms`` or more and were waiting (from due time to answer) within
    ``before`` s before to ``after`` s after one of ``moments`` (wall clock)."""
    count = 0
    for at, ms, _ in step.timeline:
        if ms < threshold_ms:
            continue
        due = step.wall_t0 + at
        done = due + (ms / 1000 if ms != math.inf else 0.0)
        if any(due <= m + after and done >= m - before for m in moments):
            count += 1
    return count
