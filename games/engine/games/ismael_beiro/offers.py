"""Ismael Beiro: what the player is offered at each stage of an open round (the pending offer with what is shown),
the restoration hints of seed 5 (where a player who comes back resumes) and the automatic choices (AUTO-PLAY, the
simulators' policy). Pure functions of the game and the round's state; ``game.IsmaelBeiro`` delegates to them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...base import ActionError, JsonDict
from .lower import HOLD_SETS

if TYPE_CHECKING:
    from .game import IsmaelBeiro


def pending(game: IsmaelBeiro, state: JsonDict) -> JsonDict:
    """The pending offer of the current stage: type, options and what the player is shown."""
    stage = state["stage"]
    info: JsonDict = {
        "stage": stage,
        "bonuses": state["bonuses"],
        "vertical_lines": state["vertical_lines"],
        "restore": restore(game, state),
    }
    lo = state["lower"]
    opts: list[JsonDict]
    if stage == "hold":
        opts = [{"type": "respin", "hold": list(h)} for h in HOLD_SETS]
        info.update(stops=list(lo["stops"]), line=game.lower.line(tuple(lo["stops"])), auto_hold=list(lo["auto_hold"]))
        return {"type": "hold", "options": opts, "info": info}
    if stage == "nudge":
        opts = [{"type": "nudge", "reel": j} for j in range(3)] + [{"type": "auto_nudge"}, {"type": "end_nudges"}]
        stops = tuple(lo["stops"])
        info.update(
            nudges_left=lo["nudges_left"],
            stops=list(stops),
            line=game.lower.line(stops),
            window=game.lower.window(stops),
            result=game._result_view(game.lower.result(stops)),
        )
        return {"type": "nudge", "options": opts, "info": info}
    if stage == "confessional":
        info.update(options_shown=state["confessional"]["options"])
        return {"type": "confessional", "options": [{"type": "stop"}], "info": info}
    if stage == "ladder":
        lad = state["ladder"]
        info.update(
            ladder=lad["mode"],
            prize=game.d["ladder"]["scale"][lad["rung"]] * state["stake"],
            rung=lad["rung"],
            scale=[x * state["stake"] for x in game.d["ladder"]["scale"]],
        )
        return {"type": "risk", "options": [{"type": "collect"}, {"type": "risk"}, {"type": "auto_risk"}], "info": info}
    up = state["upper"]
    if stage == "upper_game":
        if game.machine_choices:  # the machine plays the highest upper bet the bonuses cover
            opts = [{"type": "upper_spin"}, {"type": "auto_play"}]
        else:
            opts = [{"type": "upper_spin", "level": j} for j in game.affordable_levels(state)] + [{"type": "auto_play"}]
        info.update(
            cumulative=list(state["cumulative"]),
            upper_bets=[
                {"level": j, "stake": b["stake"], "bonus_price": b["bonus_price"]}
                for j, b in enumerate(game.bets)
                if j in game.upper_levels(state["level"])
            ],
        )
        return {"type": "upper_game", "options": opts, "info": info}
    if stage == "minigame_select":
        opts = [{"type": "select", "minigame": n} for n in game.d["minigames"]["names"]]
        return {"type": "minigame_select", "options": opts, "info": info}
    if stage == "minigame":
        mg = up["minigame"]
        name = mg["name"]
        info.update(minigame=name)
        if name == "desert_expedition":
            opts = [{"type": "pick", "character": i} for i in range(game.d["minigames"]["desert_characters"])]
        elif name == "dinner":
            opts = [
                {"type": "uncover", "dish": i}
                for i in range(game.d["minigames"]["dinner_dishes"])
                if i not in mg["picked"]
            ]
            info.update(uncovered=list(mg["picked"]))
        elif name == "monologue":
            opts = [{"type": "spin_wheel"}]
            info.update(wheel=game.d["minigames"]["monologue_wheel"])
        else:
            opts = [{"type": "stop"}]
            if name == "confessional":
                info.update(options_shown=up["spin"]["queue"][0]["confessional"]["options"])
        return {"type": "minigame", "options": opts, "info": info}
    if stage == "dob":
        dob = up["dob"]
        info.update(
            prize=dob["remaining"] + dob["banked"],
            remaining=dob["remaining"],
            banked=dob["banked"],
            fraction=dob["fraction"],
            max_prize=dob["max"],
        )
        return {
            "type": "double_or_bonuses",
            "options": [{"type": "collect"}, {"type": "risk"}, {"type": "auto_risk"}],
            "info": info,
        }
    raise ActionError("game.ismael_beiro.stuck", f"unknown stage {stage}", f"neznámá fáze {stage}")


def restore(game: IsmaelBeiro, state: JsonDict) -> JsonDict:
    """Seed 5 (restorations): what the client shows when the player comes back to this open round."""
    stage = state["stage"]
    if stage in ("hold", "nudge"):
        return {"screen": "lower", "replay_step": state["lower"]["spin_step"], "then": stage}
    if stage == "confessional":
        return {"screen": "lower", "replay_step": state["confessional"]["spin_step"], "then": "confessional"}
    if stage in ("ladder", "dob"):
        return {"screen": "risk", "then": "risk", "at": "the same point"}
    up = state.get("upper") or {}
    if stage == "minigame_select":
        return {"screen": "upper", "replay_step": up.get("spin_step"), "then": "minigame_selector"}
    if stage == "minigame":
        return {"screen": "minigame_selector", "selected": up["minigame"]["name"], "then": "minigame"}
    return {"screen": "upper", "then": "upper_game"}


def default_for(game: IsmaelBeiro, state: JsonDict, pending: JsonDict) -> JsonDict:
    stage = state["stage"]
    if stage == "hold":
        return {"type": "respin", "hold": list(state["lower"]["auto_hold"])}
    if stage == "nudge":
        return {"type": "auto_nudge"}
    if stage in ("ladder", "dob"):
        return {"type": "risk"} if state["auto_risk"] else {"type": "collect"}
    if stage == "upper_game":
        if game.machine_choices:
            return {"type": "upper_spin"}
        return {"type": "upper_spin", "level": max(game.affordable_levels(state))}
    return dict(pending["options"][0])
