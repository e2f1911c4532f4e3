"""The games app's privacy contract (``accounts.privacy_contract``; registered by ``GamesConfig.ready``).

One record, ``games.rounds`` (the rounds and their actions: stakes, wins, every RNG draw), kept as the stake
transactions they are (accounting and the AML law's records of transactions). **Nothing is changed** at the end: a
round holds no personal value, only the account's id (once the account is anonymised it names no person), and its
draws must stay to re-verify it. The export gives a summary by game and where the rounds are (``GET
/api/v1/games/rounds``, ``rounds/<id>``): every round would make the export unbounded.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count, Max, Min, Sum

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from core.audit import Actor
from core.money import Money
from games.models import Round

RECORDS = (
    Record(
        code="games.rounds",
        models=("games.Round", "games.RoundAction", "games.PlayerGameState"),
        periods=("accounting", "aml"),
        what_cs="herní kola: sázky, výhry a tahy generátoru (HP §7, §8) a stav automatu, který hra přenáší mezi koly",
        what_en="game rounds: stakes, wins and the generator's draws (GP §7, §8), and "
        "the machine state a carry-over game keeps between them",
        erased_cs="nic: kolo neobsahuje osobní hodnotu, jen číslo konta",
        erased_en="nothing: a round holds no personal value, only the account's id",
        kept_cs="kola a jejich tahy (účetnictví, ověření kola)",
        kept_en="the rounds and their draws (accounting, re-verification)",
    ),
)


def export(player: Player) -> dict[str, Any]:
    """The games part of the player's export: totals by game (real money and play money apart) and the pointer."""
    rows = (
        Round.objects.filter(player=player)
        .values("game_code", "play_money")
        .annotate(
            rounds=Count("id"), staked=Sum("stake"), won=Sum("win"), first=Min("started_at"), last=Max("started_at")
        )
        .order_by("play_money", "game_code")
    )
    return {
        "rounds_by_game": [
            {
                "game": r["game_code"],
                "play_money": r["play_money"],
                "rounds": r["rounds"],
                "staked": str(Money(r["staked"] or 0)),
                "won": str(Money(r["won"] or 0)),
                "first": r["first"],
                "last": r["last"],
            }
            for r in rows
        ],
        "rounds_note_cs": "Jednotlivá kola s tahy: GET /api/v1/games/rounds a GET /api/v1/games/rounds/<id>.",
        "rounds_note_en": "Each round with its draws: GET /api/v1/games/rounds and GET /api/v1/games/rounds/<id>.",
    }


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    return {"games.rounds": {}} if "games.rounds" in records else {}


CONTRACT = Contract(app="games", records=RECORDS, export=export, anonymise=anonymise)


def register() -> None:
    privacy_contract.register(CONTRACT)
