"""Shipped games. Each module registers its Game instance(s) on import."""
from . import fruit_king, kobushi, roulette, prism_respin, seven_lanterns, simply_the_best_27, triple_charm

__all__ = ["fruit_king", "kobushi", "prism_respin", "roulette", "seven_lanterns", "simply_the_best_27", "triple_charm"]
