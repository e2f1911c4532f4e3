"""The figures players are told (declared RTP, hit frequency, volatility, the maximum bet offered and the maximum
win at it, the RTP range) against the PAR sheets' computations (``docs/par-sheets.md``, which
``scripts/par_sheets.py --check`` reproduces exactly), on each game's page and as the platform offers them."""

from __future__ import annotations

import math
import re
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import pytest
from django.conf import settings

from games.engine import figures, list_games

ROOT = Path(__file__).resolve().parents[3]
PAR = ROOT / "docs" / "par-sheets.md"
PAGES = ROOT / "docs" / "games"
GAMES = {g.code: g for g in list_games()}


def _find(pattern: str, text: str) -> str:
    m = re.search(pattern, text)
    assert m, pattern
    return m.group(1)


def _sheets() -> dict[str, dict]:
    """Each game's main sheet in docs/par-sheets.md: hit frequency, volatility, RTP, its fraction, the 99 % CI."""
    out: dict[str, dict] = {}
    for sec in PAR.read_text(encoding="utf-8").split("\n## ")[1:]:
        m = re.search(r"PAR sheet: .* \((\w+) v(\d+)", sec)
        if not m or "," in sec.split("\n", 1)[0] or m.group(1) in out:  # an option's sheet: the main one only
            continue
        final = sec.split("RTP (exact parts + simulated remainder)", 1)[1]
        rtp = re.search(r"\n  RTP\s+([\d.]+) %(?: = (\d+)/(\d+))?", final)
        ci = re.search(r"99 % CI\s+\[([\d.]+) %, ([\d.]+) %\]", final)
        assert rtp and ci
        out[m.group(1)] = {
            "version": int(m.group(2)),
            "hit": Decimal(_find(r"hit frequency\s+([\d.]+) %", sec)),
            "vol": Decimal(_find(r"volatility \(SD of win/stake\) ([\d.]+)", sec)),
            "rtp": Decimal(rtp.group(1)),
            "fraction": Fraction(int(rtp.group(2)), int(rtp.group(3))) if rtp.group(2) else None,
            "ci99": (Decimal(ci.group(1)), Decimal(ci.group(2))),
        }
    return out


SHEETS = _sheets()


def _two(x: Decimal) -> str:
    return str(x.quantize(Decimal("0.01")))


def test_every_current_game_has_a_sheet_and_published_figures():
    assert set(SHEETS) == set(GAMES) == set(figures.PUBLISHED) == set(figures.THEORETICAL)
    assert all(SHEETS[c]["version"] == g.version for c, g in GAMES.items())


@pytest.mark.parametrize("code", sorted(GAMES))
def test_hit_frequency_and_volatility_are_the_par_sheets_rounded(code):
    hit, vol = figures.PUBLISHED[code]
    assert hit == _two(SHEETS[code]["hit"]) and vol == _two(SHEETS[code]["vol"])


@pytest.mark.parametrize("code", sorted(GAMES))
def test_the_declared_rtp_is_the_theoretical_figure_rounded_down(code):
    """Exact games: the declared RTP is the exact figure rounded down to two decimals. Tome of Sands: its exact base
    game plus the free spins' designed value, less the round cap's 0.002 pp, rounded down. Simulated games: the
    declared design figure lies inside the PAR sheet's 99 % CI (widened by half a unit of its last digit)."""
    g, sheet = GAMES[code], SHEETS[code]
    theo, how = figures.THEORETICAL[code]
    declared = g.declared.rtp
    if how == "exact":
        assert sheet["fraction"] is not None and theo == f"{float(100 * sheet['fraction']):.4f}"
        assert declared == Decimal(math.floor(100 * 100 * sheet["fraction"])) / 100
    elif how == "exact+design":
        assert declared == Decimal(math.floor((Decimal(theo) - Decimal("0.002")) * 100)) / 100
    else:
        assert theo == str(sheet["rtp"]) and sheet["fraction"] is None
        lo, hi = sheet["ci99"]
        assert lo - Decimal("0.005") <= declared <= hi + Decimal("0.005")
    assert declared >= Decimal("84.24")


def test_the_declared_range_of_a_game_with_choices_contains_its_rtp_above_the_legal_minimum():
    with_range = {c: figures.rtp_range(g) for c, g in GAMES.items() if figures.rtp_range(g)}
    assert set(with_range) == {"ismael_beiro"}
    rng = with_range["ismael_beiro"]
    assert rng is not None
    lo, hi = rng
    assert Decimal("84.24") <= lo <= GAMES["ismael_beiro"].declared.rtp <= hi


@pytest.mark.parametrize("code", sorted(GAMES))
def test_each_games_page_shows_its_figures(code):
    from games.engine.figures import BLOCK_END, BLOCK_START

    page = PAGES / f"{ {'european_roulette': 'roulette'}.get(code, code) }.md"
    text = page.read_text(encoding="utf-8")
    block = BLOCK_START + text.split(BLOCK_START, 1)[1].split(BLOCK_END, 1)[0] + BLOCK_END
    assert block == figures.docs_block(GAMES[code])


def test_the_maximum_bet_and_win_are_what_the_platform_offers():
    """The pure figures equal the catalogue's offered figures (games.services.catalogue) at the platform's settings,
    and no maximum win stated to a player is above the platform's maximum win per round."""
    from games.services.catalogue import offered_figures

    limits = {
        "max_win_per_round": settings.GP["MAX_WIN_PER_ROUND"],
        "max_stake": settings.GP["MAX_STAKE"],
        "stake_step": settings.GP["STAKE_STEP"],
    }
    for g in GAMES.values():
        f = figures.published(g, limits)
        off = offered_figures(g.declared)
        assert (f["max_bet"], f["max_win"]) == (off["max_bet"], off["max_win"]), g.code
        assert f["max_win"] <= limits["max_win_per_round"]
    falling = figures.published(GAMES["falling_idols"])
    assert (falling["max_bet"], falling["max_win"]) == (2_000, 5_000_000)  # engine: 1,000 CZK / 2,500,000 CZK
