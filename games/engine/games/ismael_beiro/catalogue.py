"""Ismael Beiro: the catalogue entry (``describe()``): bets, both games' tables, minigames, the carried machine,
auto-play, the demo mode, the declared figures and the rules. ``game.IsmaelBeiro.catalogue_entry`` delegates here."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...definition import CatalogueEntry
from .texts import MINIGAME_NAMES, RULES_CS, RULES_EN, RULES_V2_CS, RULES_V2_EN, RULES_V3_CS, RULES_V3_EN, SYMBOL_NAMES

if TYPE_CHECKING:
    from .game import IsmaelBeiro


def catalogue_entry(game: IsmaelBeiro) -> CatalogueEntry:
    d = game.d
    lower, upper, mg = d["lower"], d["upper"], d["minigames"]
    rng = game.rtp_range()
    return CatalogueEntry(
        code=game.code,
        version=game.version,
        name=game.name,
        name_cs=game.name_cs,
        kind=game.kind,
        source=d["source"],
        bet=game.bet_model,
        default_bet=game.default_bet_params,
        par_bet=game.par_bet_params,
        declared=game.declared,
        bet_options={
            **game.bet_model.options(),
            "stakes": [
                {
                    "stake": b["stake"],
                    "enabled": b["enabled"],
                    "upper_bet": {"stake": b["stake"], "bonus_price": b["bonus_price"]},
                }
                for b in game.bets
                if not b.get("upper_only")
            ],
            "upper_only_bets": [
                {
                    "stake": b["stake"],
                    "bonus_price": b["bonus_price"],
                    "enabled": b["enabled"],
                    "offered_from_stake": game.bets[game.top_lower_level]["stake"],
                }
                for b in game.bets
                if b.get("upper_only")
            ],
        },
        # every option's declared RTP and the lowest (version 2: with AUTO-RISK), shown to players; version 3:
        # every way of playing returns within ``rtp_range`` (the PAR sheet's strategy table)
        declared_extra={
            **(
                {"rtp_by_option": game.rtp_by_option(), "rtp_lowest": str(game.lowest_declared_rtp())}
                if game.declared_options
                else {}
            ),
            **(
                {"rtp_range": {"min": str(rng[0]), "max": str(rng[1])}, "rtp_spread_bound_pp": d["rtp_spread_bound"]}
                if rng
                else {}
            ),
        },
        rules_en=_rules(game, "en") + rtp_sentence(game, "en"),
        rules_cs=_rules(game, "cs") + rtp_sentence(game, "cs"),
        extra={
            "symbols": {s: {"en": en, "cs": cs} for s, (en, cs) in SYMBOL_NAMES.items()},
            "lower_game": {
                "reels": 3,
                "symbols_per_reel": 16,
                "strips": lower["strips"],
                "vertical_line_marks": lower["vl_marks"],
                "wild_reels": lower["wild_reels"],
                "paytable": {"unit": "stake", "three_of_a_kind": dict(lower["pays"])},
                "bonus_pays": {
                    "unit": "upper games at the round's bet",
                    "pays": {str(k): v for k, v in lower["bonus_pays"].items()},
                },
                "confessional": d["confessional"],
                "probabilities_per_mille": {
                    "hold": lower["hold_per_mille"],
                    "nudges": lower["nudge_per_mille"],
                    "hold_after_nudges": lower["hold_after_nudge_per_mille"],
                },
                "nudge_counts": lower["nudge_counts"],
                "ladder": (
                    {
                        "scale": d["ladder"]["scale"],
                        "blue": d["ladder"]["blue"],
                        "yellow": d["ladder"]["yellow"],
                        "odds": "seesaw: up (here - below) / (next - below), else one prize down "
                        "(nothing below the lowest); raise-nothing: up here / next, else "
                        "nothing: each risk is worth exactly the prize risked",
                    }
                    if game.fair_gambles
                    else d["ladder"]
                ),
                "choices": (
                    "the machine holds, nudges and chooses the upper bet"
                    if game.machine_choices
                    else "the player holds, nudges and chooses the upper bet"
                ),
            },
            "upper_game": {
                "reels": 3,
                "rows": 3,
                "symbols_per_reel": 16,
                "strips": upper["strips"],
                "lines": upper["lines"],
                "vertical_lines": "reel columns, lines 6-8, while the counter > 0",
                "paytable": {
                    "unit": "upper stake",
                    "three_of_a_kind": dict(upper["pays"]),
                    "mixed_sevens_fixed": upper["mixed_sevens_fixed"],
                },
                "camera": upper["camera"],
                "clapper": upper["clapper"],
                "cumulative_pieces": upper["cumulative_pieces"],
                "selector_per_mille": upper["selector_per_mille"],
                "double_or_bonuses": (
                    {
                        "fraction_by_stake": {str(b["stake"]): game.fraction_x(j) for j, b in enumerate(game.bets)},
                        "odds": "twice the fraction or nothing, 1 in 2",
                        "offered": "while all it can win fits under the maximum prizes",
                        "max_bonuses": upper["max_bonuses_for_double"],
                    }
                    if game.fair_gambles
                    else {
                        "fraction": upper["fraction"],
                        "double_per_mille": upper["double_per_mille"],
                        "max_bonuses": upper["max_bonuses_for_double"],
                    }
                ),
                "auto_play_games": upper["auto_play_games"],
            },
            "minigames": {
                "names": {n: MINIGAME_NAMES[n] for n in mg["names"]},
                "prizes": mg["prizes"],
                "supplement_per_mille": mg["supplement_per_mille"],
                "monologue_wheel": mg["monologue_wheel"],
                "mixed_prizes": mg["mixed_prizes"],
            },
            "bonus_value": game.bonus_value,
            "max_prize_multiplier": game.max_prize,
            "carry_over": (
                {
                    "carried": ["vertical_lines", "cumulative", "bonuses"],
                    "how": "kept per player and game version from one round to the next; carried bonuses "
                    "are the player's money in the ledger, paid out when a new version starts",
                }
                if game.carry_over
                else None
            ),
            "auto_play": {
                "max_games": upper["auto_play_games"],
                "how": "the bet's auto_play flag plays every choice automatically; repeating rounds "
                "(up to 100) is the client's, one start each",
            },
            "demo_mode": {
                "how": "play money; QA forced draws choose the prize",
                "options": sorted(game.demo_options()),
            },
        },
    )


def _rules(game: IsmaelBeiro, lang: str) -> str:
    if game.fair_gambles:
        return RULES_V3_EN if lang == "en" else RULES_V3_CS
    if game.carry_over:
        return RULES_V2_EN if lang == "en" else RULES_V2_CS
    return RULES_EN if lang == "en" else RULES_CS


def rtp_sentence(game: IsmaelBeiro, lang: str) -> str:
    """The rules' sentence on the declared return of each option (empty without declared options)."""
    rng = game.rtp_range()
    if rng is not None:
        lo, hi = (str(x) for x in rng)
        rtp3 = str(game.declared.rtp)
        if lang == "en":
            return (
                f" Return to player: {rtp3} % (the long run of a player); every way of playing returns between "
                f"{lo} % and {hi} %, above the legal minimum of 84.24 %."
            )
        return (
            f" Výherní podíl: {rtp3.replace('.', ',')} % (dlouhodobě pro hráče); každý způsob hry vrací "
            f"{lo.replace('.', ',')} % až {hi.replace('.', ',')} %, nad zákonným minimem 84,24 %."
        )
    auto_risk = next((o["rtp"] for o in game.declared_options if o["option"] == "auto_risk"), None)
    if auto_risk is None:
        return ""
    rtp = str(game.declared.rtp)
    if lang == "en":
        return (
            f" Return to player: {rtp} % with the automatic choices (every prize collected), {auto_risk} % with "
            f"AUTO-RISK (every prize risked to the end), the lowest over the player's options; both above the "
            f"legal minimum of 84.24 %."
        )
    return (
        f" Výherní podíl: {rtp.replace('.', ',')} % při automatických volbách (každá výhra se vybere), "
        f"{auto_risk.replace('.', ',')} % s AUTO-RISKEM (každá výhra se riskuje do konce), nejnižší ze všech "
        f"možností hráče; obojí nad zákonným minimem 84,24 %."
    )
