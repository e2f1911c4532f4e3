"""Shipped games. Each module registers its Game instance(s) on import."""
from . import (
    crystal_grid,
    fruit_king,
    kobushi,
    prism_respin,
    roulette,
    seven_lanterns,
    simply_the_best_27,
    triple_charm,
)

__all__ = ["crystal_grid", "fruit_king", "kobushi", "prism_respin", "roulette", "seven_lanterns", "simply_the_best_27",
    "triple_charm"]
