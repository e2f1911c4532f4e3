"""Shipped games. Each module registers its Game instance(s) on import."""

from . import (
    crystal_grid,
    falling_idols,
    fruit_king,
    geode_field,
    ismael_beiro,
    kobushi,
    prism_respin,
    rising_reels,
    roulette,
    seven_lanterns,
    simply_the_best_27,
    starfall_grid,
    sun_terraces,
    tome_of_sands,
    triple_charm,
)

__all__ = [
    "crystal_grid",
    "falling_idols",
    "fruit_king",
    "geode_field",
    "ismael_beiro",
    "kobushi",
    "prism_respin",
    "rising_reels",
    "roulette",
    "seven_lanterns",
    "simply_the_best_27",
    "starfall_grid",
    "sun_terraces",
    "tome_of_sands",
    "triple_charm",
]
