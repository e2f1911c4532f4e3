"""The one game-definition layer: typed bet models (the only place a bet is parsed) and the typed catalogue entry
(the only place the catalogue's common block, the declared figures included, is written).

Every game, slot or table, declares one :class:`BetModel`; :class:`~games.engine.base.Game` validates bets with it
(``Game.validate_bet``), reads its limits from it and builds ``describe()`` from :meth:`Game.catalogue_entry`, a
:class:`CatalogueEntry` made of the definition's common fields, the bet model's options and money fields, the
:class:`~games.engine.base.Declared` figures and the game's own part (``CatalogueEntry.extra``: paytable, layout,
features).

Bet models (what the player sends; amounts in haléř):

* :class:`TotalStake`: ``{"stake": n}``, the player sets the total bet on a grid (pays: multiples of
  ``stake / unit`` where the game says so).
* :class:`LevelCoins`: ``{"level": l, "coin_value": c}``, total = coins per level x level x coin value.
* :class:`LinesCoins`: ``{"lines": n, "coins": k, "coin_value": c}``, total = lines x coins x coin value.
* :class:`LinesBetPerLine`: ``{"lines": n, "bet_per_line": b}``, total = lines x bet per line.
* :class:`StakeChoice`: ``{"stake": one of the listed bets, <flags>: bool}`` (a machine's fixed bets).
* :class:`TableBets`: a table game's list of placed bets (``{"bets": [{"type", ..., "amount"}]}``), parsed by the
  game's own rules of the table (the positions and their limits) given to the model as its parser.

Each model states ``money_fields``: the bet's keys (at any depth) that are amounts, so the API converts exactly those
to and from Money objects instead of guessing by name.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from . import slots
from .base import Bet, Declared, JsonDict


class BetModel(ABC):
    """How a game takes a bet: its fields, which of them are money, its limits, its default and its catalogue
    options. ``validate`` is the one parser of a bet (``extra``: further keys the game itself checks, e.g. a
    jackpot flag)."""

    #: the keys (at any depth of the bet) whose values are amounts in haléř
    money_fields: tuple[str, ...] = ()

    @property
    @abstractmethod
    def min_bet(self) -> int:
        """The smallest total stake the model allows (haléř)."""

    @property
    @abstractmethod
    def max_bet(self) -> int:
        """The largest total stake the model allows (haléř)."""

    @property
    @abstractmethod
    def default(self) -> JsonDict:
        """The bet played when the player sends nothing (and the bet's example in the API)."""

    @abstractmethod
    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        """Normalise and check ``params``; raise :class:`BetError` with a stable code (GP §8(1)-(2))."""

    @abstractmethod
    def options(self) -> JsonDict:
        """The catalogue's ``bet_options``: what the player may choose and the total stake's limits."""

    def pay_unit(self, params: JsonDict) -> int:
        """What one paytable unit is worth in haléř for a validated bet (the line bet, or the stake / unit)."""
        raise NotImplementedError(f"{type(self).__name__} has no pay unit")

    def stake_limits(self, step: int) -> JsonDict:
        return {"min": self.min_bet, "max": self.max_bet, "step": step}


def _int_in(value: object, allowed: Sequence[int]) -> bool:
    return slots.is_int(value) and value in allowed


@dataclass(frozen=True)
class TotalStake(BetModel):
    """``{"stake": n}``: the total bet, ``min``..``max`` on the ``step`` grid."""

    min: int
    max: int
    step: int = 10
    default_stake: int = 100
    unit: int | None = None  # pays are multiples of stake / unit (None: the game pays in stakes itself)
    suggested: tuple[int, ...] = ()
    money_fields: tuple[str, ...] = ("stake",)

    @property
    def min_bet(self) -> int:
        return self.min

    @property
    def max_bet(self) -> int:
        return self.max

    @property
    def default(self) -> JsonDict:
        return {"stake": self.default_stake}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        slots.check_keys(params, ("stake", *extra))
        stake = params.get("stake", self.default_stake)
        if not slots.is_int(stake):
            raise slots.bet_error(
                "game.invalid_stake",
                "The stake must be a whole number of haléř.",
                "Sázka musí být celé číslo v haléřích.",
                stake=stake,
            )
        slots.check_stake(stake, min_bet=self.min, max_bet=self.max, step=self.step)
        return Bet(total_stake=stake, params={"stake": stake})

    def options(self) -> JsonDict:
        out: JsonDict = {"model": "total", "min": self.min, "max": self.max, "step": self.step}
        if self.unit is not None:
            out["unit"] = self.unit
        if self.suggested:
            out["suggested"] = list(self.suggested)
        out["stake"] = self.stake_limits(self.step)
        return out

    def pay_unit(self, params: JsonDict) -> int:
        if self.unit is None:
            return super().pay_unit(params)
        return int(params["stake"]) // self.unit


@dataclass(frozen=True)
class LevelCoins(BetModel):
    """``{"level": l, "coin_value": c}``: total = ``coins_per_level`` x level x coin value; one paytable unit is
    the line bet, level x coin value."""

    coins_per_level: int
    levels: tuple[int, ...]
    coin_values: tuple[int, ...]
    default_level: int
    default_coin: int
    money_fields: tuple[str, ...] = ("coin_value",)

    @property
    def min_bet(self) -> int:
        return self.coins_per_level * min(self.levels) * min(self.coin_values)

    @property
    def max_bet(self) -> int:
        return self.coins_per_level * max(self.levels) * max(self.coin_values)

    @property
    def default(self) -> JsonDict:
        return {"level": self.default_level, "coin_value": self.default_coin}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        slots.check_keys(params, ("level", "coin_value", *extra))
        levels = list(self.levels)
        level = params.get("level", self.default_level)
        coin = params.get("coin_value", self.default_coin)
        if not _int_in(level, self.levels):
            raise slots.bet_error(
                "game.invalid_level",
                f"The bet level must be one of {levels}.",
                f"Úroveň sázky musí být jedna z {levels}.",
                level=level,
            )
        if not _int_in(coin, self.coin_values):
            raise slots.bet_error(
                "game.invalid_coin",
                "Unknown coin value.",
                "Neznámá hodnota mince.",
                coin_value=coin,
                allowed=list(self.coin_values),
            )
        total = self.coins_per_level * level * coin
        slots.check_stake(total, min_bet=self.min_bet, max_bet=self.max_bet, step=10)
        return Bet(total_stake=total, params={"level": level, "coin_value": coin})

    def options(self) -> JsonDict:
        return {
            "model": "level",
            "coins_per_level": self.coins_per_level,
            "levels": list(self.levels),
            "coin_values": list(self.coin_values),
            "stake": self.stake_limits(10),
            "formula": "coins_per_level x level x coin_value",
        }

    def pay_unit(self, params: JsonDict) -> int:
        return int(params["level"]) * int(params["coin_value"])


@dataclass(frozen=True)
class LinesCoins(BetModel):
    """``{"lines": n, "coins": k, "coin_value": c}``: total = lines x coins x coin value; one paytable unit is the
    line bet, coins x coin value. ``min_stake`` (default: the smallest coin) and ``step`` bound the total."""

    max_lines: int
    max_coins: int
    coin_values: tuple[int, ...]
    default_lines: int
    default_coins: int
    default_coin: int
    min_stake: int | None = None
    step: int = 10
    money_fields: tuple[str, ...] = ("coin_value",)

    @property
    def min_bet(self) -> int:
        return self.min_stake if self.min_stake is not None else min(self.coin_values)

    @property
    def max_bet(self) -> int:
        return self.max_lines * self.max_coins * max(self.coin_values)

    @property
    def default(self) -> JsonDict:
        return {"lines": self.default_lines, "coins": self.default_coins, "coin_value": self.default_coin}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        slots.check_keys(params, ("lines", "coins", "coin_value", *extra))
        lines = params.get("lines", self.default_lines)
        coins = params.get("coins", self.default_coins)
        coin = params.get("coin_value", self.default_coin)
        if not slots.is_int(lines) or not 1 <= lines <= self.max_lines:
            raise slots.bet_error(
                "game.invalid_lines",
                f"Lines must be a whole number from 1 to {self.max_lines}.",
                f"Počet linií musí být celé číslo od 1 do {self.max_lines}.",
                lines=lines,
            )
        if not slots.is_int(coins) or not 1 <= coins <= self.max_coins:
            raise slots.bet_error(
                "game.invalid_coins",
                f"Coins per line must be 1 to {self.max_coins}.",
                f"Počet mincí na linii musí být 1 až {self.max_coins}.",
                coins=coins,
            )
        if not _int_in(coin, self.coin_values):
            raise slots.bet_error(
                "game.invalid_coin",
                "Unknown coin value.",
                "Neznámá hodnota mince.",
                coin_value=coin,
                allowed=list(self.coin_values),
            )
        total = lines * coins * coin
        slots.check_stake(total, min_bet=self.min_bet, max_bet=self.max_bet, step=self.step)
        return Bet(total_stake=total, params={"lines": lines, "coins": coins, "coin_value": coin})

    def options(self) -> JsonDict:
        return {
            "model": "lines",
            "max_lines": self.max_lines,
            "max_coins": self.max_coins,
            "lines": [1, self.max_lines],
            "coins": [1, self.max_coins],
            "coin_values": list(self.coin_values),
            "stake": self.stake_limits(self.step),
            "formula": "coin_value x coins x lines",
        }

    def pay_unit(self, params: JsonDict) -> int:
        return int(params["coins"]) * int(params["coin_value"])


@dataclass(frozen=True)
class LinesBetPerLine(BetModel):
    """``{"lines": n, "bet_per_line": b}``: total = lines x bet per line, within ``min``..``max`` on ``step``."""

    line_options: tuple[int, ...]
    bet_per_line_options: tuple[int, ...]
    min: int
    max: int
    step: int
    default_lines: int
    default_bet_per_line: int
    money_fields: tuple[str, ...] = ("bet_per_line",)

    @property
    def min_bet(self) -> int:
        return self.min

    @property
    def max_bet(self) -> int:
        return self.max

    @property
    def default(self) -> JsonDict:
        return {"lines": self.default_lines, "bet_per_line": self.default_bet_per_line}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        slots.check_keys(params, ("lines", "bet_per_line", *extra))
        lines = params.get("lines", self.default_lines)
        bpl = params.get("bet_per_line", self.default_bet_per_line)
        if not _int_in(lines, self.line_options):
            opts = ", ".join(map(str, self.line_options))
            raise slots.bet_error("game.invalid_lines", f"Play {opts} lines.", f"Hrajte {opts} linií.", lines=lines)
        if not _int_in(bpl, self.bet_per_line_options):
            raise slots.bet_error(
                "game.invalid_bet_per_line",
                "Unknown bet per line.",
                "Neznámá sázka na linii.",
                bet_per_line=bpl,
                allowed=list(self.bet_per_line_options),
            )
        total = lines * bpl
        slots.check_stake(total, min_bet=self.min, max_bet=self.max, step=self.step)
        return Bet(total_stake=total, params={"lines": lines, "bet_per_line": bpl})

    def options(self) -> JsonDict:
        return {
            "model": "lines_bet_per_line",
            "lines": list(self.line_options),
            "bet_per_line": list(self.bet_per_line_options),
            "stake": self.stake_limits(self.step),
            "formula": "lines x bet_per_line",
        }

    def pay_unit(self, params: JsonDict) -> int:
        return int(params["bet_per_line"])


@dataclass(frozen=True)
class StakeChoice(BetModel):
    """``{"stake": one of ``stakes``, <flag>: bool, ...}``: a machine's fixed bets, some of which the operator may
    switch off (``enabled``); every flag is stored (default false). Error codes carry the game's ``code``."""

    code: str
    stakes: tuple[int, ...]
    enabled: tuple[bool, ...]
    default_stake: int
    flags: tuple[str, ...] = ()
    step: int = 10
    money_fields: tuple[str, ...] = ("stake",)

    @property
    def offered(self) -> list[int]:
        return [s for s, on in zip(self.stakes, self.enabled) if on]

    @property
    def min_bet(self) -> int:
        return min(self.offered)

    @property
    def max_bet(self) -> int:
        return max(self.offered)

    @property
    def default(self) -> JsonDict:
        return {"stake": self.default_stake, **dict.fromkeys(self.flags, False)}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        slots.check_keys(params, ("stake", *self.flags, *extra))
        stake = params.get("stake", self.default_stake)
        if not slots.is_int(stake) or stake not in self.stakes:
            allowed = ", ".join(slots.czk(s) for s in self.stakes)
            raise slots.bet_error(
                f"game.{self.code}.unknown_stake",
                f"The bet must be one of {allowed}.",
                f"Sázka musí být jedna z {', '.join(slots.czk(s, 'cs') for s in self.stakes)}.",
                stake=stake,
                allowed=list(self.stakes),
            )
        if not self.enabled[self.stakes.index(stake)]:
            raise slots.bet_error(
                f"game.{self.code}.bet_disabled",
                f"The bet {slots.czk(stake)} is switched off.",
                f"Sázka {slots.czk(stake, 'cs')} je vypnuta.",
                stake=stake,
            )
        flags = {}
        for key in self.flags:
            v = params.get(key, False)
            if not isinstance(v, bool):
                raise slots.bet_error(
                    f"game.{self.code}.invalid_flag",
                    f"{key} must be true or false.",
                    f"{key} musí být true nebo false.",
                    field=key,
                )
            flags[key] = v
        slots.check_stake(stake, min_bet=10, max_bet=100_000, step=self.step)
        return Bet(total_stake=stake, params={"stake": stake, **flags})

    def options(self) -> JsonDict:
        return {"model": "stake_choice", "flags": list(self.flags), "stake": self.stake_limits(self.step)}


@dataclass(frozen=True)
class TableBets(BetModel):
    """A table game's placed bets (``{"bets": [...]}``, each with its ``amount``): ``parser`` is the table's own
    rules (positions, per-position limits, merging chips on one position), the one place that bet is parsed."""

    parser: Callable[[JsonDict], Bet]
    total_min: int
    total_max: int
    default_bets: tuple[JsonDict, ...]
    step: int = 10
    money_fields: tuple[str, ...] = ("amount",)

    @property
    def min_bet(self) -> int:
        return self.total_min

    @property
    def max_bet(self) -> int:
        return self.total_max

    @property
    def default(self) -> JsonDict:
        return {"bets": [dict(b) for b in self.default_bets]}

    def validate(self, params: JsonDict, *, extra: Iterable[str] = ()) -> Bet:
        return self.parser(params)

    def options(self) -> JsonDict:
        return {"model": "table", "stake": self.stake_limits(self.step)}


def bet_model_from_dict(b: JsonDict) -> BetModel:
    """A definition's ``bet`` dict (``{"model": "total" | "level" | "lines" | "lines_bet_per_line", ...}``, the
    layout of ``docs/games/<code>.md``) as its typed model."""
    model = b["model"]
    default = b.get("default", {})
    if model == "total":
        return TotalStake(
            min=b["min"],
            max=b["max"],
            step=b.get("step", 10),
            default_stake=default.get("stake", b["min"]),
            unit=b.get("unit"),
            suggested=tuple(b.get("suggested", ())),
        )
    if model == "level":
        return LevelCoins(
            coins_per_level=b["coins_per_level"],
            levels=tuple(b["levels"]),
            coin_values=tuple(b["coin_values"]),
            default_level=default["level"],
            default_coin=default["coin_value"],
        )
    if model == "lines":
        return LinesCoins(
            max_lines=b["max_lines"],
            max_coins=b["max_coins"],
            coin_values=tuple(b["coin_values"]),
            default_lines=default["lines"],
            default_coins=default["coins"],
            default_coin=default["coin_value"],
            min_stake=b.get("min"),
            step=b.get("step", 10),
        )
    if model == "lines_bet_per_line":
        return LinesBetPerLine(
            line_options=tuple(b["lines"]),
            bet_per_line_options=tuple(b["bet_per_line"]),
            min=b["min"],
            max=b["max"],
            step=b.get("step", 10),
            default_lines=default["lines"],
            default_bet_per_line=default["bet_per_line"],
        )
    raise ValueError(f"unknown bet model {model!r}")  # a definition error


@dataclass(frozen=True)
class Follows:
    """The catalogue entry a game follows and how far (its features built and ``not_built``)."""

    catalogue: str
    entry: str
    figures: str = ""
    features: tuple[str, ...] = ()
    not_built: tuple[str, ...] = ()
    extra: JsonDict = field(default_factory=dict)

    @classmethod
    def from_dict(cls, f: JsonDict) -> Follows:
        known = {"catalogue", "entry", "figures", "features", "not_built"}
        return cls(
            catalogue=f["catalogue"],
            entry=f["entry"],
            figures=f.get("figures", ""),
            features=tuple(f.get("features", ())),
            not_built=tuple(f.get("not_built", ())),
            extra={k: v for k, v in f.items() if k not in known},
        )

    def as_json(self) -> JsonDict:
        out: JsonDict = {"catalogue": self.catalogue, "entry": self.entry}
        if self.figures:
            out["figures"] = self.figures
        out["features"] = list(self.features)
        if self.not_built:  # a game that builds every feature of its entry states none
            out["not_built"] = list(self.not_built)
        out.update(self.extra)
        return out


@dataclass(frozen=True)
class CatalogueEntry:
    """A game's catalogue entry (``Game.describe()``): the common block every game has, typed, and the game's own
    part (``extra``: paytable, layout, features). ``as_json`` is what the platform stores and the API shows."""

    code: str
    version: int
    name: str
    name_cs: str
    kind: str
    source: str
    bet: BetModel
    default_bet: JsonDict
    par_bet: JsonDict
    declared: Declared
    rules_en: str
    rules_cs: str
    follows: Follows | None = None
    max_win_multiplier: int | None = None
    bet_options: JsonDict | None = None  # the model's options with the game's additions (None: the model's)
    declared_extra: JsonDict = field(default_factory=dict)
    extra: JsonDict = field(default_factory=dict)

    def as_json(self) -> JsonDict:
        out: JsonDict = {
            "code": self.code,
            "version": self.version,
            "name": self.name,
            "name_cs": self.name_cs,
            "kind": self.kind,
            "source": self.source,
        }
        if self.follows is not None:
            out["follows"] = self.follows.as_json()
        out["bet_options"] = {
            **(self.bet_options if self.bet_options is not None else self.bet.options()),
            "money_fields": list(self.bet.money_fields),
        }
        out["default_bet"] = dict(self.default_bet)
        out["par_bet"] = dict(self.par_bet)
        out["bet_example"] = dict(self.default_bet)
        if self.max_win_multiplier is not None:
            out["max_win_multiplier"] = self.max_win_multiplier
        out["declared"] = {**self.declared.as_json(), **self.declared_extra}
        out["rules_en"], out["rules_cs"] = self.rules_en, self.rules_cs
        out.update(self.extra)
        return out
