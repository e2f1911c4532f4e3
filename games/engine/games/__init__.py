"""Shipped games. Each module registers its Game instance(s) on import."""
