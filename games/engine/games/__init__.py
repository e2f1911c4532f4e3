"""Shipped games. Each module registers its Game instance(s) on import."""
from . import roulette  # noqa: F401,E402
