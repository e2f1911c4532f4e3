"""The providers' privacy contract (``accounts.privacy_contract``; registered by ``ProvidersConfig.ready``).

One record, ``providers.calls``: the launch tokens and game sessions (hashes only) and each provider call with its
answer, kept as the stake transactions they are (accounting and the AML law's records of transactions), like the
rounds they moved money on. Nothing is changed at the end: they hold no personal value, only the account's id; the
provider knows the player by an opaque reference. The export counts them by provider.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Count

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from core.audit import Actor
from providers.models import Provider, ProviderTransaction

RECORDS = (
    Record(
        code="providers.calls",
        models=("providers.LaunchToken", "providers.GameSession", "providers.ProviderTransaction"),
        periods=("accounting", "aml"),
        what_cs="spuštění her externích dodavatelů, herní relace a jejich transakce (sázky, výhry, zrušení)",
        what_en="launches of outside studios' games, game sessions and their transactions (bets, wins, rollbacks)",
        erased_cs="nic: záznam neobsahuje osobní hodnotu, jen číslo konta",
        erased_en="nothing: a record holds no personal value, only the account's id",
        kept_cs="transakce dodavatelů (účetnictví)",
        kept_en="the providers' transactions (accounting)",
    ),
)


def export(player: Player) -> dict[str, Any]:
    rows = (
        ProviderTransaction.objects.filter(player=player)
        .values("provider__code", "kind")
        .annotate(n=Count("id"))
        .order_by("provider__code", "kind")
    )
    return {
        "provider_transactions": [{"provider": r["provider__code"], "kind": r["kind"], "count": r["n"]} for r in rows]
    }


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    return {"providers.calls": {}} if "providers.calls" in records else {}


def studio_recipients() -> list[dict[str, Any]]:
    """Every enabled studio receives data of the players who play its games (GP §12(4)): a pseudonymous reference
    of the player, the player's language, and the stakes, wins and balance of its rounds."""
    return [
        {
            "code": f"studio:{p.code}",
            "role": "recipient",
            "notify": False,
            "name": f"{p.name} (herní studio / game studio)",
            "purpose_cs": "provozování her studia: pseudonymní označení hráče, jazyk, sázky, výhry a zůstatek jeho kol",
            "purpose_en": "running the studio's games: the player's pseudonymous reference, language, and the stakes, "
            "wins and balance of the player's rounds",
            "records": ["providers.calls"],
            "contact": "",
        }
        for p in Provider.objects.filter(enabled=True).only("code", "name").order_by("code")
    ]


CONTRACT = Contract(app="providers", records=RECORDS, export=export, anonymise=anonymise, recipients=studio_recipients)


def register() -> None:
    privacy_contract.register(CONTRACT)
