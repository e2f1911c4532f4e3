"""Sim Fruits: the simulator's one game, a classic 3-reel fruit machine with one pay line (the middle row of a
3 x 3 window).

The outcome is drawn by the simulator (the studio's server), never by the platform: one stop per reel, uniformly,
from ``secrets.SystemRandom`` (the OS CSPRNG; ``randrange`` is unbiased) unless a seeded ``random.Random`` is
injected (tests, the bench). The stake is a number of haléře on the platform's stake grid (GP §8(1)-(2): at least
10, a multiple of 10); the win is the stake times an integer multiplier, so money stays in integer haléře.

Paytable (multiplier of the stake, the first rule that matches the middle row, reels left to right):

    7 7 7            100
    BAR BAR BAR       40
    BELL BELL BELL    20
    PLUM PLUM PLUM    10
    LEMON LEMON LEMON  8
    CHERRY x3          6
    CHERRY CHERRY -    3
    CHERRY - -         2

Return to player, exact from the strips (16 x 18 x 16 = 4,608 equally likely stop combinations; the test
``test_the_return_to_player_is_exactly_1459_in_1536_by_enumerating_every_stop`` enumerates them):
RTP = 1459/1536 = 94.987 %. The top multiplier is 100, so the offered stakes stop at 100 CZK (a win of 10,000 CZK
at most, within the platform's 50,000 CZK per round, GP §8(3)).
"""

from __future__ import annotations

import random
import secrets
from dataclasses import dataclass
from fractions import Fraction
from itertools import product

GAME_ID = "sim_fruits"
GAME_NAME = "Sim Fruits"
STRIPS: tuple[tuple[str, ...], ...] = (
    (
        "7",
        "PLUM",
        "CHERRY",
        "BELL",
        "PLUM",
        "BAR",
        "LEMON",
        "PLUM",
        "CHERRY",
        "BELL",
        "PLUM",
        "BAR",
        "CHERRY",
        "BELL",
        "PLUM",
        "LEMON",
    ),
    (
        "7",
        "CHERRY",
        "PLUM",
        "BELL",
        "CHERRY",
        "BAR",
        "PLUM",
        "LEMON",
        "CHERRY",
        "BELL",
        "PLUM",
        "CHERRY",
        "BAR",
        "PLUM",
        "BELL",
        "CHERRY",
        "LEMON",
        "PLUM",
    ),
    (
        "7",
        "BELL",
        "PLUM",
        "CHERRY",
        "LEMON",
        "PLUM",
        "BAR",
        "BELL",
        "PLUM",
        "CHERRY",
        "LEMON",
        "PLUM",
        "BAR",
        "BELL",
        "PLUM",
        "CHERRY",
    ),
)
ANY = None
PAYTABLE: tuple[tuple[tuple[str | None, str | None, str | None], int], ...] = (
    (("7", "7", "7"), 100),
    (("BAR", "BAR", "BAR"), 40),
    (("BELL", "BELL", "BELL"), 20),
    (("PLUM", "PLUM", "PLUM"), 10),
    (("LEMON", "LEMON", "LEMON"), 8),
    (("CHERRY", "CHERRY", "CHERRY"), 6),
    (("CHERRY", "CHERRY", ANY), 3),
    (("CHERRY", ANY, ANY), 2),
)
RTP = Fraction(1459, 1536)  # documented; proven by exact_rtp() in the tests
MIN_STAKE, STAKE_STEP = 10, 10  # haléře, the platform's grid (GP_MIN_STAKE / GP_STAKE_STEP)
STAKES: tuple[int, ...] = (10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)  # the stake selector (haléře)
MAX_STAKE = STAKES[-1]


class StakeError(ValueError):
    """A stake off the grid or outside what the game offers."""


def multiplier(line: tuple[str, ...]) -> int:
    """The pay of the middle row, as a multiple of the stake (0: no win)."""
    for pattern, pays in PAYTABLE:
        if all(want is ANY or want == got for want, got in zip(pattern, line, strict=True)):
            return pays
    return 0


def stake_check(stake: object) -> None:
    if isinstance(stake, bool) or not isinstance(stake, int):
        raise StakeError("the stake is an integer number of haléře")
    if stake < MIN_STAKE or stake % STAKE_STEP or stake > MAX_STAKE:
        raise StakeError(f"the stake must be {MIN_STAKE}-{MAX_STAKE} haléře in steps of {STAKE_STEP}")


@dataclass(frozen=True)
class Spin:
    stake: int  # haléře
    stops: tuple[int, ...]  # the drawn stop of each reel (the middle row's index in its strip)
    window: tuple[tuple[str, ...], ...]  # rows top to bottom, reels left to right
    multiplier: int

    @property
    def line(self) -> tuple[str, ...]:
        return self.window[1]

    @property
    def win(self) -> int:  # haléře
        return self.stake * self.multiplier

    def as_json(self) -> dict[str, object]:
        return {
            "stake": self.stake,
            "stops": list(self.stops),
            "window": [list(row) for row in self.window],
            "multiplier": self.multiplier,
            "win": self.win,
        }


def outcome(stake: int, stops: tuple[int, ...]) -> Spin:
    """The spin these stops make (pure: the draw is separate, so a spin can be replayed from its stops)."""
    window = tuple(
        tuple(strip[(stop + offset) % len(strip)] for strip, stop in zip(STRIPS, stops, strict=True))
        for offset in (-1, 0, 1)
    )
    return Spin(stake=stake, stops=stops, window=window, multiplier=multiplier(window[1]))


class Slot:
    """Draws spins. ``rng`` defaults to the OS CSPRNG; inject ``random.Random(seed)`` to repeat a sequence."""

    game_id = GAME_ID

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng: random.Random = rng if rng is not None else secrets.SystemRandom()

    def spin(self, stake: int) -> Spin:
        stake_check(stake)
        return outcome(stake, tuple(self.rng.randrange(len(strip)) for strip in STRIPS))


def exact_rtp() -> Fraction:
    """The return to player by enumerating every combination of stops (each equally likely)."""
    total = 0
    for stops in product(*(range(len(strip)) for strip in STRIPS)):
        total += multiplier(tuple(strip[stop] for strip, stop in zip(STRIPS, stops, strict=True)))
    combinations = 1
    for strip in STRIPS:
        combinations *= len(strip)
    return Fraction(total, combinations)
