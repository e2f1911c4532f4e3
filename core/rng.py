"""The platform RNG.

Production draws come from the OS CSPRNG (``secrets``). ``randbelow(n)`` is unbiased:
``secrets.randbelow`` uses rejection sampling on ``getrandbits``, never modulo scaling.
Tests and simulations inject :class:`SeededRNG` for reproducible sequences; it uses
``random.Random.randrange`` which is also rejection-sampled (unbiased).

Pure Python (no Django). The game engine does not import it: simulations take an ``rng_factory`` (e.g. ``SeededRNG``).
"""

from __future__ import annotations

import random
import secrets


class SystemRNG:
    """OS CSPRNG. Stateless; one shared instance is fine across threads."""

    name = "system"

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        return secrets.randbelow(n)

    def randint(self, a: int, b: int) -> int:
        """Uniform integer in [a, b]."""
        return a + self.randbelow(b - a + 1)


class SeededRNG(SystemRNG):
    """Deterministic generator for tests and simulations (never for real-money rounds)."""

    name = "seeded"

    def __init__(self, seed: int):
        self.seed = seed
        self._random = random.Random(seed)

    def randbelow(self, n: int) -> int:
        if n <= 0:
            raise ValueError("n must be positive")
        return self._random.randrange(n)


_default = SystemRNG()
_override: SystemRNG | None = None


def get_rng() -> SystemRNG:
    """The RNG the platform uses now (tests may install a seeded one with ``use_rng``)."""
    return _override or _default


class use_rng:
    """Context manager for tests: ``with use_rng(SeededRNG(1)): ...``."""

    def __init__(self, rng: SystemRNG):
        self.rng = rng

    def __enter__(self) -> SystemRNG:
        global _override
        self._prev, _override = _override, self.rng
        return self.rng

    def __exit__(self, *exc: object) -> None:
        global _override
        _override = self._prev
