"""The limits app's privacy contract (``accounts.privacy_contract``; registered by ``LimitsConfig.ready``).

Two records, kept for the Gambling Act period (``ACCOUNTS_RETENTION_GAMBLING_YEARS``): the self-limits and the
counters of play (``limits.self_limits``) and the panic button, self-listing and the register watch
(``limits.self_exclusion``). At the end the copies of the person key (ZHH §14a: ``ClosingSnapshot``,
``PanicExclusion``) are replaced by a per-account hash of nothing personal (as accounts does with its own), and the
notes and register errors are blanked; the figures stay (they name the account only by its id).
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any

from accounts import privacy_contract
from accounts.models import Player
from accounts.privacy_contract import Contract, Record
from core.audit import Actor
from limits.models import ClosingSnapshot, ExclusionWatch, PanicExclusion, SelfLimitChange, SelfListingRequest

GAMBLING = ("gambling",)

RECORDS = (
    Record(
        code="limits.self_limits",
        models=(
            "limits.SelfLimit",
            "limits.SelfLimitChange",
            "limits.ClosingSnapshot",
            "limits.PlayerKindState",
            "limits.OpenBet",
            "limits.PeriodTotal",
            "limits.MinuteBucket",
            "limits.SettledBet",
            "limits.CarriedBetTotals",
            "limits.StakeRefusal",
        ),
        periods=GAMBLING,
        what_cs="sebeomezující opatření, jejich změny a počitadla hry (HP §6, §7)",
        what_en="self-limits, their changes and the play counters (GP §6, §7)",
        erased_cs="klíč osoby nahrazen, poznámky vymazány",
        erased_en="the person key replaced, the notes erased",
        kept_cs="limity a součty (bez osobních hodnot)",
        kept_en="the limits and totals (no personal value)",
    ),
    Record(
        code="limits.self_exclusion",
        models=("limits.PanicExclusion", "limits.PanicReport", "limits.SelfListingRequest", "limits.ExclusionWatch"),
        periods=GAMBLING,
        what_cs="panické tlačítko, žádosti o zápis do rejstříku vyloučených osob, kontroly rejstříku",
        what_en="the panic button, requests to be listed in the register of excluded persons, register checks",
        erased_cs="klíč osoby nahrazen, chybová hlášení vymazána",
        erased_en="the person key replaced, the error messages erased",
        kept_cs="data a doby vyloučení",
        kept_en="the dates and terms of the exclusions",
    ),
)


def _anonymous_key(player_id: int) -> str:
    return hashlib.sha256(f"limits.person.anonymised|player:{player_id}".encode()).hexdigest()


def export(player: Player) -> dict[str, Any]:
    """The limits part of the player's export (GP §12(7)a)."""
    return {
        "self_limit_changes": [
            {
                "kind": c.kind,
                "limit_type": c.limit_type,
                "action": c.action,
                "old_value": c.old_value,
                "new_value": c.new_value,
                "requested_at": c.requested_at,
                "effective_from": c.effective_from,
            }
            for c in SelfLimitChange.objects.filter(player=player).order_by("requested_at", "id")
        ],
        "panic_presses": [
            {"started_at": p.started_at, "ends_at": p.ends_at}
            for p in PanicExclusion.objects.filter(player=player).order_by("started_at", "id")
        ],
        "self_listing_requests": [
            {"requested_at": r.requested_at, "listed_until": r.listed_until, "status": r.status, "sent_at": r.sent_at}
            for r in SelfListingRequest.objects.filter(player=player).order_by("requested_at", "id")
        ],
        "statistics_note_cs": "Přehled hry po dnech a měsících: GET /api/v1/limits/statistics.",
        "statistics_note_en": "Play by day and month: GET /api/v1/limits/statistics.",
    }


def anonymise(*, player: Player, records: frozenset[str], actor: Actor, now: datetime) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    key = _anonymous_key(player.pk)
    if "limits.self_limits" in records:
        out["limits.self_limits"] = {
            "closing_snapshots": ClosingSnapshot.objects.filter(player=player)
            .exclude(person_key=key)
            .update(person_key=key),
            "limit_changes": SelfLimitChange.objects.filter(player=player).exclude(note="").update(note=""),
        }
    if "limits.self_exclusion" in records:
        out["limits.self_exclusion"] = {
            "panic_exclusions": PanicExclusion.objects.filter(player=player)
            .exclude(person_key=key)
            .update(person_key=key),
            "exclusion_watch": ExclusionWatch.objects.filter(player=player)
            .exclude(last_error="")
            .update(last_error=""),
        }
    return out


CONTRACT = Contract(app="limits", records=RECORDS, export=export, anonymise=anonymise)


def register() -> None:
    privacy_contract.register(CONTRACT)
