"""Hooks where other apps plug into a round. Today: the jackpots hook.

``jackpot_contribute_and_evaluate`` is the one place the ``jackpots`` app plugs into the round flow. It is
called by :func:`games.services.round_play` inside the round's transaction (after the wallet lock and the stake
debit, before the win is settled) and by :func:`games.services.round_act` after each action, for real-money
rounds only (play-money rounds never touch jackpots).

Contract for the jackpots app (it replaces the body, keeping the signature):

* ``stage="start"`` is called once per round, right after the engine's ``start``: contribute the stake share to
  the pools (``bet.total_stake`` minor units) and evaluate the engine's ``state["jackpot_events"]``.
* ``stage="act"`` is called after every player action (``bet`` is None then; the round carries ``stake`` and
  ``bet_params``): evaluate jackpot events that appeared since.
* It may add to the round's win (``round.win`` is settled later from the engine win plus whatever the
  jackpots app decides; today nothing is added) and must not take locks on shared pool rows that serialize
  every spin of every player (design.md, "Shared hot rows").
* It records what happened on ``round.jackpot_events`` (a JSON list); the caller saves the round.

Why after ``start`` and not before it: the hook needs the engine state to evaluate the jackpot events, and the
engine is pure (no database), so running it first changes nothing else in the transaction's order: the stake
is debited before, the win credited after.

Today it only copies the engine's jackpot events onto the round (the jackpots app has no implementation yet).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from games.engine import Bet, JsonDict

if TYPE_CHECKING:
    from accounts.models import Player
    from games.models import Round


def jackpot_contribute_and_evaluate(*, player: Player, round: Round, bet: Bet | None, state: JsonDict,
                                    stage: str = "start") -> list[JsonDict]:
    """Record the engine's jackpot events on the round; the jackpots app will contribute and award here."""
    events = list(state.get("jackpot_events") or [])
    round.jackpot_events = events
    return events
