"""Shipped games. Each module registers its Game instance(s) on import."""
from . import (
    fruit_king,  # noqa: F401,E402
    kobushi,  # noqa: F401,E402
    roulette,  # noqa: F401,E402
    simply_the_best_27,  # noqa: F401,E402
)
