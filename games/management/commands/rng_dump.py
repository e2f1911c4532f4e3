"""``manage.py rng_dump --bytes N --out FILE [--seed S]``: raw RNG output for external test batteries.

Writes 32-bit little-endian words drawn with ``randbelow(2**32)`` from the platform ``core.rng.SystemRNG``
(or ``SeededRNG(S)`` with ``--seed``). Use with ``dieharder -g 201 -f FILE -a`` or NIST STS (binary input).
N accepts K/M/G suffixes (powers of 1024). Thin: calls games.engine.rngtest.dump_words. Needs no database."""

from __future__ import annotations

import sys

from django.core.management.base import BaseCommand, CommandError

from core.rng import SeededRNG, SystemRNG
from games.engine import par, rngtest

_SUFFIX = {"K": 1024, "M": 1024**2, "G": 1024**3}


def parse_size(text: str) -> int:
    t = str(text).strip().upper().removesuffix("B")
    mult = _SUFFIX.get(t[-1:], 1)
    if t[-1:] in _SUFFIX:
        t = t[:-1]
    value = int(t) * mult
    if value <= 0:
        raise ValueError("size must be positive")
    return value


class Command(BaseCommand):
    help = "Write raw 32-bit little-endian RNG words (randbelow(2**32)) to a file for dieharder / NIST STS."
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument("--bytes", required=True, help="number of bytes, e.g. 1048576 or 100M")
        parser.add_argument("--out", required=True, help="output file ('-' for stdout)")
        parser.add_argument("--seed", type=int, default=None, help="use SeededRNG(seed) instead of SystemRNG")
        parser.add_argument("--no-progress", action="store_true")

    def handle(self, *args, **opts):
        try:
            nbytes = parse_size(opts["bytes"])
        except ValueError as exc:
            raise CommandError(f"--bytes: {exc}") from exc
        rng = SystemRNG() if opts["seed"] is None else SeededRNG(opts["seed"])
        progress = None if opts["no_progress"] else par.ProgressBar(getattr(self.stderr, "_out", self.stderr))
        if opts["out"] == "-":
            written = rngtest.dump_words(rng, nbytes, sys.stdout.buffer, progress=progress)
        else:
            with open(opts["out"], "wb") as fh:
                written = rngtest.dump_words(rng, nbytes, fh, progress=progress)
        self.stderr.write(f"wrote {written:,} bytes from {type(rng).__name__} ({rng.name}) to {opts['out']}")
