"""The figures each game states to players (GP §7(2)): declared RTP, hit frequency, volatility, the maximum bet the
platform offers and the maximum win at that bet, and the RTP range where the player has choices.

* The declared RTP is the game's own (``Game.declared.rtp``): the theoretical figure rounded down (exact games: the
  exact fraction; simulated games: at most the PAR sheet's estimate, inside its 99 % CI).
* Hit frequency and volatility (the standard deviation of win / stake per round) are the PAR sheet's figures at the
  game's representative bet (``docs/par-sheets.md``), rounded to two decimals: :data:`PUBLISHED`. A test compares
  them with the PAR sheets (which ``scripts/par_sheets.py --check`` reproduces), so the catalogue never drifts from
  the computation.
* The maximum bet and win are what the platform offers (:func:`offered_max`, the same arithmetic as
  ``games.services.catalogue.offered_figures``): the engine's maximum bet lowered to the platform's maximum stake and
  until the maximum win fits the platform's maximum win per round. The docs state them at the default settings
  (:data:`DEFAULT_LIMITS`); the catalogue at the running configuration.

Pure Python (no Django).
"""

from __future__ import annotations

from decimal import Decimal

from .base import Declared, Game, JsonDict

# code -> (hit frequency %, volatility) of the PAR sheet (docs/par-sheets.md) of the current version, 2 decimals
PUBLISHED: dict[str, tuple[str, str]] = {
    "crystal_grid": ("75.77", "2.17"),
    "european_roulette": ("51.34", "1.17"),
    "falling_idols": ("38.32", "3.78"),
    "fruit_king": ("42.88", "7.79"),
    "geode_field": ("36.27", "3.63"),
    "ismael_beiro": ("9.86", "6.65"),
    "kobushi": ("42.01", "10.70"),
    "prism_respin": ("45.41", "3.48"),
    "rising_reels": ("27.48", "3.08"),
    "seven_lanterns": ("76.42", "2.05"),
    "simply_the_best_27": ("13.97", "4.03"),
    "starfall_grid": ("86.19", "2.12"),
    "sun_terraces": ("36.55", "3.10"),
    "tome_of_sands": ("36.34", "8.12"),
    "triple_charm": ("10.89", "9.41"),
}
# code -> the theoretical RTP of the PAR sheet (4 decimals) and how it is known: "exact" (every outcome enumerated:
# the declared RTP is it rounded down), "exact+design" (an exact part plus a designed expectation, Tome of Sands'
# free spins), or "simulated" (10^7 rounds; the declared figure is the design value, inside the 99 % CI)
THEORETICAL: dict[str, tuple[str, str]] = {
    "crystal_grid": ("96.6600", "simulated"),
    "european_roulette": ("97.2973", "exact"),
    "falling_idols": ("95.9080", "simulated"),
    "fruit_king": ("95.0148", "simulated"),
    "geode_field": ("96.8293", "simulated"),
    "ismael_beiro": ("93.5912", "simulated"),
    "kobushi": ("96.8282", "simulated"),
    "prism_respin": ("96.0998", "exact"),
    "rising_reels": ("97.0031", "exact"),
    "seven_lanterns": ("96.2767", "exact"),
    "simply_the_best_27": ("95.0002", "exact"),
    "starfall_grid": ("96.6253", "simulated"),
    "sun_terraces": ("96.3935", "simulated"),
    "tome_of_sands": ("96.2082", "exact+design"),
    "triple_charm": ("95.4231", "exact"),
}
# the platform's defaults (config/settings/ GP: MAX_WIN_PER_ROUND, MAX_STAKE, STAKE_STEP), haléř
DEFAULT_LIMITS = {"max_win_per_round": 5_000_000, "max_stake": 100_000, "stake_step": 10}


def offered_max(declared: Declared, max_win_per_round: int, max_stake: int, stake_step: int) -> tuple[int, int]:
    """(max bet, max win at it) as the platform offers the game: ``games.services.catalogue.offered_figures``."""
    max_bet = min(declared.max_bet, max_stake)
    if declared.max_win * max_bet > max_win_per_round * declared.max_bet:
        max_bet = max_win_per_round * declared.max_bet // declared.max_win
        max_bet -= max_bet % stake_step
    max_bet = max(max_bet, declared.min_bet)
    return max_bet, declared.max_win * max_bet // declared.max_bet


def rtp_range(game: Game) -> tuple[Decimal, Decimal] | None:
    """The declared RTP range over the player's ways of playing (a game with choices that declares one)."""
    fn = getattr(game, "rtp_range", None)
    return fn() if callable(fn) else None


def published(game: Game, limits: dict[str, int] | None = None) -> JsonDict:
    """The figures of ``game`` as players are told them (amounts in haléř; percentages as strings)."""
    lim = limits or DEFAULT_LIMITS
    max_bet, max_win = offered_max(game.declared, lim["max_win_per_round"], lim["max_stake"], lim["stake_step"])
    hit, vol = PUBLISHED.get(game.code, (None, None))
    rng = rtp_range(game)
    return {
        "rtp": str(game.declared.rtp),
        "rtp_range": {"min": str(rng[0]), "max": str(rng[1])} if rng else None,
        "hit_frequency_percent": hit,
        "volatility": vol,
        "max_bet": max_bet,
        "max_win": max_win,
        "min_bet": game.declared.min_bet,
    }


def _czk(minor: int) -> str:
    return f"{minor // 100:,}.{minor % 100:02d} CZK"


def docs_block(game: Game) -> str:
    """The figures block of the game's page (``docs/games/*.md``, between the figures markers), at the defaults."""
    f = published(game)
    theo, how = THEORETICAL.get(game.code, ("", "simulated"))
    basis = {
        "exact": f"the exact {theo} % rounded down",
        "exact+design": f"the exact base game plus the free spins' designed value, {theo} % before the round cap "
        "(about 0.002 pp), rounded down",
        "simulated": f"the design figure, inside the 99 % CI of the PAR sheet's simulation ({theo} %)",
    }[how]
    rows = [("Declared RTP", f"{f['rtp']} % ({basis}; [PAR sheet](../par-sheets.md))")]
    if f["rtp_range"]:
        rows.append(("RTP range over the ways of playing", f"{f['rtp_range']['min']} % - {f['rtp_range']['max']} %"))
    rows += [
        ("Hit frequency", f"{f['hit_frequency_percent']} % of rounds win (PAR sheet's bet)"),
        ("Volatility", f"{f['volatility']} (standard deviation of win / stake per round, PAR sheet's bet)"),
        ("Bets offered", f"{_czk(f['min_bet'])} - {_czk(f['max_bet'])}"),
        ("Maximum win at the maximum bet offered", _czk(f["max_win"])),
    ]
    lines = [
        BLOCK_START,
        f"Figures shown to players ({game.code}@{game.version}; the platform's default limits):",
        "",
        "| figure | value |",
        "|---|---|",
        *[f"| {k} | {v} |" for k, v in rows],
        BLOCK_END,
    ]
    return "\n".join(lines)


BLOCK_START, BLOCK_END = "<!-- figures -->", "<!-- /figures -->"
