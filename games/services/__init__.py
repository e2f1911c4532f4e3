"""Games platform services (writes); this package is their public face.

* :mod:`.path`: THE round path every game uses, the platform's engine and an outside studio alike: the round lock,
  the opening of a round with every rule of its start in one order, the settlement (the GP §8(3) cap, the win, the
  jackpots' awards, the limits' decided bet), the void, and the one way a round ends at its deadline (GP §7(8)b);
* :mod:`.rounds`: the engine's adapter: a round's start (:func:`round_play`, real and play money) and the player's
  actions (:func:`round_act`);
* :mod:`.remote`: the studio's adapter (the seamless wallet): :func:`remote_bet`, :func:`remote_play`,
  :func:`remote_win`,
  :func:`remote_rollback`, :func:`remote_round_end`;
* :mod:`.deadlines`: the GP §7(8)b sweeper (:func:`round_expire`, :func:`rounds_expire_due`);
* :mod:`.remedies`: staff remedies (:func:`round_refund`, :func:`round_void_settled` GP §3(6));
* :mod:`.catalogue`: the catalogue synced from the engine registry, the operator switch, the approval of a version
  in the game plan (GP §13(6)), studio games' declared figures;
* :mod:`.qa`: QA forced outcomes (play money only); :mod:`.common`: references, JSON, the engine lookup and the
  engine state's contract.

The flow of one round is described once, in docs/games-platform.md ("Flow of one round"). Other apps are called
through their contract functions (docs/contracts.md). A malfunction (the engine raising or returning a broken
state) voids the round and returns the stake inside the same transaction, so the voided round, the debit and the
refund commit together and the record shows what happened.
"""

from __future__ import annotations

from games.services.catalogue import (
    APPROVAL_MOVES,
    PLAN_VERSION_MAX,
    REFERENCE_MAX,
    game_approval_withdraw,
    game_approve,
    game_set_enabled,
    games_sync,
    offered_figures,
    remote_game_upsert,
)
from games.services.common import LIMITS_KIND, min_round_seconds, qa_forced_outcomes_enabled
from games.services.deadlines import round_expire, rounds_expire_due
from games.services.remedies import round_refund, round_void_settled
from games.services.remote import (
    RemoteResult,
    remote_bet,
    remote_key,
    remote_play,
    remote_rollback,
    remote_round_end,
    remote_win,
)
from games.services.rounds import own_jackpots_offered, round_act, round_play

__all__ = [
    "APPROVAL_MOVES",
    "LIMITS_KIND",
    "PLAN_VERSION_MAX",
    "REFERENCE_MAX",
    "game_approval_withdraw",
    "game_approve",
    "game_set_enabled",
    "games_sync",
    "min_round_seconds",
    "offered_figures",
    "own_jackpots_offered",
    "RemoteResult",
    "qa_forced_outcomes_enabled",
    "remote_bet",
    "remote_game_upsert",
    "remote_key",
    "remote_play",
    "remote_rollback",
    "remote_round_end",
    "remote_win",
    "round_act",
    "round_expire",
    "round_play",
    "round_refund",
    "round_void_settled",
    "rounds_expire_due",
]
