"""The 41 games of Part two of the approved game plan ("Tipsport Games"; the table of its quick reference), as the
demo provider ``simstudio``'s catalogue. Data, kept here: nothing is parsed at run time.

Amounts are haléře. ``hourly_loss`` is the plan's statistical average hourly loss where the plan states it; where it
is blank or only a fragment survives, it is derived as max bet x (1 - RTP) x 1 800 (one round every 2 s, GP §7(9);
every visible slot figure of the plan equals that) and ``hourly_loss_derived`` is True. European Roulette (2)
states 9 720 CZK (x 360: one round every 10 s) and is kept as stated. The plan states no max win for any game: the
platform's max win per round (GP §8(3)) applies. 5x Magic states 95.00 % (1 line) / 95.42 % (all lines): 95.42 % is
the declared figure here.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal


@dataclass(frozen=True)
class PlanGame:
    number: int  # the plan's order
    name: str
    slug: str  # the provider's game id; the platform's code is "simstudio_<slug>"
    kind: str  # slot | cluster | roulette
    rtp: Decimal  # percent
    max_bet: int  # haléře
    hourly_loss: int  # haléře
    hourly_loss_derived: bool
    unfinished_deadline_days: int  # GP §7(8)b


GAMES: tuple[PlanGame, ...] = (
    PlanGame(1, "5x Magic", "5x_magic", "slot", Decimal("95.42"), 25000, 2061000, True, 90),
    PlanGame(2, "7 Sins", "7_sins", "slot", Decimal("96.28"), 30000, 2008800, True, 90),
    PlanGame(3, "Blood Suckers", "blood_suckers", "slot", Decimal("98.00"), 100000, 3600000, True, 180),
    PlanGame(4, "Book of Dead", "book_of_dead", "slot", Decimal("96.21"), 10000, 682200, False, 90),
    PlanGame(5, "Cloud Quest", "cloud_quest", "cluster", Decimal("96.52"), 20000, 1252800, True, 90),
    PlanGame(6, "Dazzle Me", "dazzle_me", "slot", Decimal("96.90"), 100000, 5580000, True, 180),
    PlanGame(7, "Energoonz", "energoonz", "cluster", Decimal("96.73"), 2000, 117720, False, 90),
    PlanGame(8, "European Roulette", "european_roulette", "roulette", Decimal("97.30"), 100000, 4860000, True, 180),
    PlanGame(
        9, "European Roulette (2)", "european_roulette_2", "roulette", Decimal("97.30"), 100000, 972000, False, 90
    ),
    PlanGame(
        10,
        "Fairytale Legends: Red Riding Hood",
        "fairytale_legends_red_riding_hood",
        "slot",
        Decimal("96.30"),
        100000,
        6660000,
        True,
        180,
    ),
    PlanGame(11, "Fire Joker", "fire_joker", "slot", Decimal("96.15"), 50000, 3465000, True, 90),
    PlanGame(12, "Fruit Shop", "fruit_shop", "slot", Decimal("96.70"), 97500, 5791500, True, 180),
    PlanGame(13, "Gemix", "gemix", "cluster", Decimal("96.75"), 10000, 585000, False, 90),
    PlanGame(14, "Golden Ticket", "golden_ticket", "cluster", Decimal("96.73"), 2000, 117720, False, 90),
    PlanGame(15, "Gonzo's Quest", "gonzo_s_quest", "slot", Decimal("96.00"), 100000, 7200000, True, 180),
    PlanGame(16, "Grim Muerto", "grim_muerto", "slot", Decimal("96.51"), 20000, 1256400, True, 90),
    PlanGame(
        17,
        "Guns N' Roses Video Slots",
        "guns_n_roses_video_slots",
        "slot",
        Decimal("96.98"),
        100000,
        5436000,
        True,
        180,
    ),
    PlanGame(18, "Holiday Season", "holiday_season", "slot", Decimal("96.51"), 5000, 314100, False, 90),
    PlanGame(19, "Hugo", "hugo", "slot", Decimal("96.40"), 5000, 324000, False, 90),
    PlanGame(20, "Jack Hammer", "jack_hammer", "slot", Decimal("97.00"), 100000, 5400000, True, 180),
    PlanGame(21, "Jack Hammer 2", "jack_hammer_2", "slot", Decimal("97.07"), 100000, 5274000, True, 180),
    PlanGame(22, "Jewel Box", "jewel_box", "slot", Decimal("95.79"), 18750, 1420875, True, 90),
    PlanGame(
        23, "Jimi Hendrix Online Slot", "jimi_hendrix_online_slot", "slot", Decimal("96.90"), 100000, 5580000, True, 180
    ),
    PlanGame(24, "Koi Princess", "koi_princess", "slot", Decimal("96.00"), 80000, 5760000, True, 180),
    PlanGame(25, "Lady of Fortune", "lady_of_fortune", "slot", Decimal("95.79"), 18750, 1420875, True, 90),
    PlanGame(26, "Motörhead Video Slot", "motorhead_video_slot", "slot", Decimal("96.98"), 100000, 5436000, True, 180),
    PlanGame(27, "Mystery Joker", "mystery_joker", "slot", Decimal("96.98"), 7500, 407700, False, 90),
    PlanGame(28, "Pimped", "pimped", "slot", Decimal("96.51"), 5000, 314100, False, 90),
    PlanGame(
        29,
        "Pyramid: Quest for Immortality",
        "pyramid_quest_for_immortality",
        "slot",
        Decimal("96.48"),
        100000,
        6336000,
        True,
        180,
    ),
    PlanGame(30, "Reel Rush", "reel_rush", "slot", Decimal("97.00"), 100000, 5400000, True, 180),
    PlanGame(31, "Samba Carnival", "samba_carnival", "slot", Decimal("95.79"), 18750, 1420875, True, 90),
    PlanGame(32, "Secrets of Atlantis", "secrets_of_atlantis", "slot", Decimal("97.10"), 100000, 5220000, True, 180),
    PlanGame(33, "Spin Party", "spin_party", "slot", Decimal("96.50"), 10000, 630000, False, 90),
    PlanGame(34, "Starburst", "starburst", "slot", Decimal("96.10"), 100000, 7020000, True, 180),
    PlanGame(35, "Super Flip", "super_flip", "slot", Decimal("96.53"), 5000, 312300, False, 90),
    PlanGame(36, "Tower Quest", "tower_quest", "slot", Decimal("84.24"), 50000, 14184000, True, 90),
    PlanGame(37, "Troll Hunters", "troll_hunters", "cluster", Decimal("96.73"), 2000, 117720, False, 90),
    PlanGame(38, "Twin Spin", "twin_spin", "slot", Decimal("96.60"), 100000, 6120000, True, 180),
    PlanGame(39, "Victorious", "victorious", "slot", Decimal("96.90"), 100000, 5580000, True, 180),
    PlanGame(
        40,
        "Warlords: Crystals of Power",
        "warlords_crystals_of_power",
        "slot",
        Decimal("96.89"),
        97500,
        5458050,
        True,
        180,
    ),
    PlanGame(41, "Wizard of Gems", "wizard_of_gems", "slot", Decimal("96.66"), 4000, 240480, False, 90),
)
