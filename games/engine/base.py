"""The engine's contract: what every game implements and what the platform calls.

Pure Python: no Django, no money type, no players. Amounts are integers in the
platform's minor unit (haléř, 1 CZK = 100); the engine never sees a float on the
result path. A game maps (definition, bet, RNG draws, player actions) -> outcome.

A round is a JSON-serialisable ``dict`` (the *state*), so the platform can store it
in a JSONField and continue it through later API calls (GP §7(8)). The RNG used for a
round is wrapped in a :class:`RecordingRNG`, and every draw lands in the record, so a
stored round can be replayed with :class:`ReplayRNG` and verified (GP §11(5)).

Player choices never change a result (GP §7(3)): whenever a player "picks", the
outcome was already drawn before the choice was offered; see each game's module.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

if TYPE_CHECKING:
    from .definition import BetModel, CatalogueEntry

# A round's status values.
STATUS_FINISHED = "finished"
STATUS_AWAITING_ACTION = "awaiting_action"

# GP §7(9): a round never lasts less than 2 seconds -> 1,800 rounds an hour.
ROUNDS_PER_HOUR = 1800

# A JSON object: a round state, bet parameters, an action, a description, simulation statistics.
JsonDict: TypeAlias = dict[str, Any]
# A progress callback of a simulation: (rounds done, rounds asked).
Progress: TypeAlias = Callable[[int, int], None]


class EngineError(Exception):
    """Base of engine errors. ``code`` is stable; messages exist in Czech and English."""

    code = "game.error"

    def __init__(self, code: str | None = None, message_en: str = "", message_cs: str = "", **details: Any) -> None:
        self.code = code or self.code
        self.message_en = message_en or self.code
        self.message_cs = message_cs or self.message_en
        self.details = details
        super().__init__(f"{self.code}: {self.message_en}")


class BetError(EngineError):
    code = "game.invalid_bet"


class ActionError(EngineError):
    code = "game.invalid_action"


class ReplayMismatch(EngineError):
    code = "game.replay_mismatch"


class RNG(Protocol):
    """What the engine draws from: the platform's CSPRNG, a seeded generator (simulations, tests) or a replay."""

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n), unbiased."""
        ...


# Builds a seeded RNG for a simulation (the callers pass the platform's ``core.rng.SeededRNG``).
RNGFactory: TypeAlias = Callable[[int], RNG]


class RecordingRNG:
    """Wraps any RNG and records every draw as ``[n, value]``."""

    def __init__(self, inner: RNG) -> None:
        self.inner = inner
        self.draws: list[list[int]] = []

    def randbelow(self, n: int) -> int:
        value = self.inner.randbelow(n)
        if not 0 <= value < n:  # pragma: no cover - a broken RNG is a malfunction
            raise EngineError("game.rng_out_of_range", f"RNG returned {value} for range {n}")
        self.draws.append([n, value])
        return value


class ReplayRNG:
    """Feeds recorded draws back; any deviation in range or count is a mismatch.

    Also serves as the QA forced-outcome RNG (the platform allows it in play-money only).
    """

    def __init__(self, draws: list[list[int]]) -> None:
        self._draws = [(d[0], d[1]) for d in draws]
        self._pos = 0

    def randbelow(self, n: int) -> int:
        if self._pos >= len(self._draws):
            raise ReplayMismatch("game.replay_mismatch", "the record has fewer draws than the replay needs")
        rec_n, value = self._draws[self._pos]
        if rec_n != n or not 0 <= value < n:
            raise ReplayMismatch("game.replay_mismatch", f"draw {self._pos}: recorded range {rec_n}, replay asks {n}")
        self._pos += 1
        return value

    @property
    def exhausted(self) -> bool:
        return self._pos == len(self._draws)


@dataclass(frozen=True)
class Bet:
    """A validated bet: the total stake of the round and the normalised parameters."""

    total_stake: int  # minor units
    params: JsonDict = field(default_factory=dict)


@dataclass(frozen=True)
class Declared:
    """Figures a game declares (GP §7(2))."""

    rtp: Decimal  # e.g. Decimal("96.89") (percent)
    min_bet: int  # minor units
    max_bet: int  # minor units
    max_win: int  # minor units, the largest total win one round can pay
    unfinished_deadline_days: int  # GP §7(8)b: 90 or 180
    rtp_with_jackpots: Decimal | None = None  # e.g. Kobushi at max bet

    @property
    def avg_hourly_loss(self) -> int:
        """Statistical average hourly loss at max bet: max bet x (1 - RTP) x 1,800 rounds, floored."""
        return int(Decimal(self.max_bet) * (Decimal(100) - self.rtp) / Decimal(100) * ROUNDS_PER_HOUR)

    @property
    def max_hourly_loss(self) -> int:
        """The game's maximum hourly loss (GP §7(2)): see :func:`max_hourly_loss`."""
        return max_hourly_loss(self.max_bet)

    def as_json(self) -> JsonDict:
        """The catalogue's ``declared`` block (GP §7(2)), the same for every game."""
        out: JsonDict = {"rtp": str(self.rtp)}
        if self.rtp_with_jackpots is not None:
            out["rtp_with_jackpots"] = str(self.rtp_with_jackpots)
        out.update(
            {
                "min_bet": self.min_bet,
                "max_bet": self.max_bet,
                "max_win": self.max_win,
                "avg_hourly_loss": self.avg_hourly_loss,
                "unfinished_deadline_days": self.unfinished_deadline_days,
            }
        )
        return out


def max_hourly_loss(max_bet: int) -> int:
    """The most one player can lose in this game in an hour (GP §7(2)): every round staked at the max bet and lost,
    at the fastest pace the plan allows, one start every 2 seconds (GP §7(9)): max bet x 1,800 rounds.

    A round never loses more than its stake (a win is never negative and a bonus round or a gamble risks only
    what the round won, GP §7(3)); the 2 seconds run from one real-money start of the player to the next, whatever
    the game, and an interactive round cannot be shorter. The platform's cap on the hourly loss (GP §8(5),
    ``limits``) may lower what a player can really lose; the catalogue shows both."""
    return max_bet * ROUNDS_PER_HOUR


class Game(ABC):
    """One versioned game definition. Instances are immutable and shared.

    A game declares its bet as one typed model (``bet_model``, :mod:`games.engine.definition`), which is the only
    parser of its bets (:meth:`validate_bet`), and its catalogue entry as one typed
    :class:`~games.engine.definition.CatalogueEntry` (:meth:`catalogue_entry`), from which :meth:`describe` is made.
    """

    code: str
    version: int
    name: str
    kind: str  # "slot" | "roulette"
    declared: Declared
    bet_model: BetModel
    # A game that carries state from one round of a player to the next (a machine's counters, seed 001): the
    # platform reads the player's carried state at the round's start and gives it to :meth:`start_carried`; the
    # round records it (``state["carry_in"]``) and, once finished, the state it leaves (``state["carry_out"]``), so
    # a replay needs nothing but the round's record. Other games never pay for it (no read, no write).
    carry_over: bool = False

    def catalogue_entry(self) -> CatalogueEntry:
        """The game's typed catalogue entry: rules, bet model, declared figures and its own part (every shipped
        game has one; ``games/tests/engine/test_definition.py`` checks)."""
        raise NotImplementedError(f"{type(self).__name__} has no catalogue entry")

    def describe(self) -> JsonDict:
        """JSON-able rules, paytable, bet options and declared figures for the catalogue (the catalogue entry)."""
        return self.catalogue_entry().as_json()

    @property
    def money_bet_fields(self) -> tuple[str, ...]:
        """The keys of this game's bet (at any depth) whose values are amounts in haléř (the bet model's)."""
        return self.bet_model.money_fields

    def validate_bet(self, params: JsonDict) -> Bet:
        """Normalise and validate bet parameters with the game's bet model; raise BetError with a stable code."""
        return self.bet_model.validate(params)

    @abstractmethod
    def start(self, bet: Bet, rng: RNG) -> JsonDict:
        """Run the round from its start until it finishes or needs a player action.

        Returns the state dict with at least: ``status`` (finished/awaiting_action),
        ``win`` (int, total so far), ``steps`` (list of JSON-able step records: symbols,
        line wins, features), ``pending`` (None or {"type": ..., "options": ...}),
        ``jackpot_events`` (list; the platform's jackpot hook reads it), ``breakdown``
        ({"base": int, "free_spins": int, "bonus": int, "gamble": int} of the win).
        """

    def start_carried(self, bet: Bet, rng: RNG, carry: JsonDict | None) -> JsonDict:
        """:meth:`start` with the state the player's previous round of this game version left (``None``: a fresh
        player or version). A game with ``carry_over`` records ``carry`` (normalised) as ``state["carry_in"]`` and
        the state it leaves as ``state["carry_out"]`` when the round finishes; other games ignore it."""
        return self.start(bet, rng)

    def carry_value(self, carry: JsonDict) -> int:
        """The money (minor units) a carried state holds for the player (a carry-over game's credits): the
        platform keeps it in the ledger and pays it out when the state ends (a new version). 0 by default."""
        return 0

    @abstractmethod
    def act(self, state: JsonDict, action: JsonDict, rng: RNG) -> JsonDict:
        """Apply one player action to an awaiting round; raise ActionError if not allowed."""

    def default_action(self, state: JsonDict) -> JsonDict:
        """The action taken for the player by simulations (and by the platform where a rule says the
        round completes by itself). Must be one of ``state["pending"]["options"]``' legal actions."""
        raise ActionError("game.no_action", "this game has no interactive steps")

    def deadline_action(self, state: JsonDict) -> JsonDict | None:
        """The choice the platform makes for the player when the round reaches its deadline unfinished (GP §7(8)b),
        or None: only a choice that takes what the player already holds without a new draw (collect a gamble's or a
        ladder's prize). The platform applies it while it draws nothing; otherwise the stake is returned."""
        pending = state.get("pending") if isinstance(state, dict) else None
        if state.get("status") != STATUS_AWAITING_ACTION or not isinstance(pending, dict):
            return None
        collect = {"type": "collect"}
        return dict(collect) if collect in (pending.get("options") or []) else None

    def exact_rtp(self, bet: Bet) -> dict[str, Fraction] | None:
        """Exactly computable RTP parts as fractions of the stake, e.g. {"base_lines": F, "scatter": F};
        None when nothing is computed exactly. The PAR sheet simulates the remainder."""
        return None

    def jackpot_return(self, bet: Bet) -> dict[str, Fraction] | None:
        """The exact return of the progressive jackpots the platform pays for this game's events, as fractions of
        the stake of ``bet`` (e.g. {"sushi_seed": F, "sushi_contribution": F}); None when ``bet`` can win no
        jackpot (the game has none, or the bet is not eligible). The PAR sheet adds it to the game's RTP to state
        the RTP with jackpots (``Declared.rtp_with_jackpots``); the game's own RTP never includes it."""
        return None

    def progressive(self) -> JsonDict | None:
        """The game's own progressive jackpots as its rules define them, for the platform's jackpots app:
        {"contribution_ppm": {level: ppm of every stake}, "seed_per_coin": {level: coin values},
        "reference_coin": the coin value the pool is kept at, "eligible": {bet parameter: value a win needs},
        "names": {level: display name}}; None when the game has none."""
        return None

    def with_jackpots_offered(self, bet: Bet, offered: bool) -> Bet:
        """The bet as it runs when the platform does (``offered``) or does not offer the game's own progressive
        jackpots now: a game whose feature can end on a jackpot symbol records the answer in the bet's parameters
        (so the round replays the same) and draws no jackpot outcome when they are not offered. Default: unchanged."""
        return bet

    def simulate_fast(self, bet: Bet, rounds: int, seed: int, progress: Progress | None = None) -> JsonDict | None:
        """Optional vectorised simulator returning the same statistics as the generic one
        (see par.py); None means "use the generic loop over start/act"."""
        return None

    def replay(self, record: JsonDict) -> JsonDict:
        """Re-run a stored round from its bet, actions and draws; raise ReplayMismatch if it differs.

        ``record`` = {"bet": params, "actions": [...], "draws": [[n, v], ...], "state": final state}.
        """
        rng = ReplayRNG(record["draws"])
        bet = self.validate_bet(record["bet"])
        if self.carry_over:  # the carried state the round started from is part of its record
            state = self.start_carried(bet, rng, (record.get("state") or {}).get("carry_in"))
        else:
            state = self.start(bet, rng)
        for action in record.get("actions", []):
            state = self.act(state, action, rng)
        if not rng.exhausted:
            raise ReplayMismatch("game.replay_mismatch", "the record has more draws than the replay used")
        if state != record["state"]:
            raise ReplayMismatch("game.replay_mismatch", "the replayed result differs from the stored one")
        return state


def play(game: Game, bet: Bet, rng: RNG, actions: list[JsonDict] | None = None) -> JsonDict:
    """Convenience: start a round and apply actions, returning a full record (for tests/simulation)."""
    rec = RecordingRNG(rng)
    state = game.start(bet, rec)
    done: list[JsonDict] = []
    for action in actions or []:
        if state["status"] != STATUS_AWAITING_ACTION:
            break
        state = game.act(state, action, rec)
        done.append(action)
    return {"bet": bet.params, "actions": done, "draws": rec.draws, "state": state}


def auto_finish(game: Game, state: JsonDict, rng: RNG, max_actions: int = 100_000) -> tuple[JsonDict, list[JsonDict]]:
    """Finish an open round with the game's automatic choices (``Game.default_action``), as AUTO-PLAY would: the
    state it ends in and the actions taken (to be recorded with the draws ``rng`` made, so the round replays).
    For a round past its deadline (GP §7(8)b) this settles the value the round holds, prizes at risk and bonuses
    included, exactly as the automatic play would, instead of rewinding it."""
    actions: list[JsonDict] = []
    while state["status"] == STATUS_AWAITING_ACTION:
        if len(actions) >= max_actions:
            raise EngineError("game.auto_finish_runaway", f"no end after {max_actions} automatic actions")
        action = game.default_action(state)
        state = game.act(state, action, rng)
        actions.append(action)
    return state, actions
