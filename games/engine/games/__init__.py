"""Shipped games. Each module registers its Game instance(s) on import."""
from . import fruit_king, ismael_beiro, kobushi, roulette, simply_the_best_27

__all__ = ["fruit_king", "ismael_beiro", "kobushi", "roulette", "simply_the_best_27"]
