"""The jackpots app's privacy contract (``accounts.privacy_contract``; registered by ``JackpotsConfig.ready``).

One record, ``jackpots.awards`` (the awards, pending contributions and contributions: they keep the account id
without a foreign key),
kept with the rounds (accounting and the AML law's records of transactions). **Nothing is changed** at the end: an
award holds no personal value, only the account's id; the public wins list names no player.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from core.audit import Actor
from jackpots.selectors import wins_of_player

RECORDS = (
    Record(
        code="jackpots.awards",
        models=("jackpots.Award", "jackpots.Pending", "jackpots.Contribution"),
        periods=("accounting", "aml"),
        what_cs="výhry jackpotů a příspěvky sázek do nich",
        what_en="jackpot wins and the stakes' contributions",
        erased_cs="nic: výhra obsahuje jen číslo konta",
        erased_en="nothing: an award holds only the account's id",
        kept_cs="výhry (účetnictví)",
        kept_en="the wins (accounting)",
    ),
)


def export(player: Player) -> dict[str, Any]:
    return {"wins": wins_of_player(player_id=player.pk, limit=10_000)}


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    return {"jackpots.awards": {}} if "jackpots.awards" in records else {}


CONTRACT = Contract(app="jackpots", records=RECORDS, export=export, anonymise=anonymise)


def register() -> None:
    privacy_contract.register(CONTRACT)
