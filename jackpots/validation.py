"""The rules a level's configuration must meet before it starts (seed 002 pages 1 and 3-5, seed 000 §9)."""

from __future__ import annotations

from typing import Any

from jackpots import errors
from jackpots.models import PPB, PPM, Jackpot

# Seed 002 page 1: contributions 0.1-5 % of stakes; page 3: 1-40 % of net revenue (stakes minus wins).
RATE_RANGE_PPM = {Jackpot.Basis.STAKE: (1_000, 50_000), Jackpot.Basis.NET_REVENUE: (10_000, 400_000)}


def _refuse(reason: str, **details: Any) -> None:
    raise errors.INVALID_CONFIG(reason=reason, **details)


def validate_config(jp: Jackpot) -> None:
    """Refuse a configuration the descriptions do not allow. The contribution rate of a level is checked against
    the range of its basis (Kobushi's 0.25 % per pool is within 0.1-5 %)."""
    low, high = RATE_RANGE_PPM[Jackpot.Basis(jp.basis)]
    if not low <= jp.rate_ppm <= high and not (jp.family == Jackpot.Family.KOBUSHI and 0 < jp.rate_ppm <= high):
        _refuse("rate outside the range of its basis", rate_ppm=jp.rate_ppm, allowed_ppm=[low, high])
    if not isinstance(jp.games, list) or not all(isinstance(g, str) and g for g in jp.games):
        _refuse("games must be a list of game codes (empty = every game)")
    if jp.split == Jackpot.Split.FIXED and not 0 <= jp.background_ppm <= PPM:
        _refuse("background share must be 0-100 %")
    if jp.family == Jackpot.Family.KOBUSHI:
        if jp.trigger != Jackpot.Trigger.GAME_EVENT or jp.reseed != Jackpot.Reseed.SEED_PER_COIN:
            _refuse("a Kobushi progressive is won by the game's event and reseeded per coin")
        if jp.seed_per_coin <= 0 or jp.reference_coin <= 0 or not jp.eligible:
            _refuse("a Kobushi progressive needs seed_per_coin, reference_coin and the eligible bet")
        return
    if jp.trigger == Jackpot.Trigger.GAME_EVENT:
        _refuse("a central level is won by a draw or a must-hit value")
    if jp.reseed == Jackpot.Reseed.SEED_PER_COIN:
        _refuse("seed per coin is for the Kobushi progressive")
    # Seed 002 page 3: RESET_VALUE <= WINRANGE_FROM <= WIN_AT <= WINRANGE_TO; page 1: wins fall in 500-500,000 CZK.
    if not 0 <= jp.reset_value <= jp.win_from <= jp.win_to or jp.win_to <= 0:
        _refuse(
            "needs 0 <= RESET_VALUE <= WINRANGE_FROM <= WINRANGE_TO and WINRANGE_TO > 0",
            reset_value=jp.reset_value,
            win_from=jp.win_from,
            win_to=jp.win_to,
        )
    if jp.trigger == Jackpot.Trigger.DRAW and not 0 < jp.draw_ppb < PPB:
        _refuse("a draw level needs its chance per stake (parts per billion)")
    if jp.trigger == Jackpot.Trigger.DRAW and jp.basis == Jackpot.Basis.NET_REVENUE:
        _refuse("the draw description (page 1) contributes a share of stakes")


def validate_group(levels: list[Jackpot]) -> None:
    """The draw levels a game feeds share one draw per stake: their chances must add up to less than 1."""
    if sum(j.draw_ppb for j in levels if j.trigger == Jackpot.Trigger.DRAW) >= PPB:
        _refuse("the draw chances of the levels add up to 1 or more")
