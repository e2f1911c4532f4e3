"""The daily reconciliation: each enabled provider's ``round-report`` of the previous Prague operating
day against the platform's :class:`~providers.models.ProviderTransaction` rows of that day; one
:class:`~providers.models.ReconciliationCase` per difference (a transaction missing on either side, an amount or a
type that differs). Compared: the calls the platform answered RS_OK (bets, wins, rollbacks; a refused call moved
nothing and a provider does not report it); a rollback is compared by its presence only (the platform records the
stake it returned, 0 for a bet it never saw, while a provider reports the bet's amount). Safe to run twice: a case
is unique per (provider, day, transaction_id)."""

from __future__ import annotations

import logging
from datetime import date, datetime, time, timedelta
from typing import Any

from django.db import transaction

from core import clock
from core.audit import Actor, audit_record
from providers import adapters
from providers.models import Provider, ProviderTransaction, ReconciliationCase

logger = logging.getLogger("providers.reconciliation")

COMPARED: dict[str, str] = {
    ProviderTransaction.Kind.BET: "bet",
    ProviderTransaction.Kind.WIN: "win",
    ProviderTransaction.Kind.ROLLBACK: "rollback",
}


def _bounds(day: date) -> tuple[datetime, datetime]:
    start = datetime.combine(day, time(0), tzinfo=clock.PRAGUE)
    return start, datetime.combine(day + timedelta(days=1), time(0), tzinfo=clock.PRAGUE)


def platform_side(provider: Provider, day: date) -> dict[str, dict[str, Any]]:
    """The platform's answered calls of the day: transaction_id -> {type, round_id, amount}."""
    start, end = _bounds(day)
    rows = ProviderTransaction.objects.filter(
        provider=provider, created_at__gte=start, created_at__lt=end, kind__in=list(COMPARED), response_status=200
    ).values_list("transaction_id", "kind", "provider_round_id", "amount")
    return {t: {"type": COMPARED[k], "round_id": r, "amount": a} for t, k, r, a in rows}


def _provider_side(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for item in report.get("transactions") or []:
        if not isinstance(item, dict) or not isinstance(item.get("transaction_id"), str):
            continue
        money = item.get("amount")
        amount = money.get("amount") if isinstance(money, dict) and isinstance(money.get("amount"), int) else None
        out[item["transaction_id"][:100]] = {
            "type": str(item.get("type", ""))[:20],
            "round_id": str(item.get("round_id", ""))[:100],
            "amount": amount,
        }
    return out


def differences(ours: dict[str, dict[str, Any]], theirs: dict[str, dict[str, Any]]) -> list[tuple[str, str, Any, Any]]:
    """(transaction_id, difference, platform side, provider side) for every difference."""
    out: list[tuple[str, str, Any, Any]] = []
    for txn_id in sorted(set(ours) | set(theirs)):
        a, b = ours.get(txn_id), theirs.get(txn_id)
        if b is None:
            out.append((txn_id, ReconciliationCase.Difference.MISSING_AT_PROVIDER, a, None))
        elif a is None:
            out.append((txn_id, ReconciliationCase.Difference.MISSING_ON_PLATFORM, None, b))
        elif a["type"] != b["type"]:
            out.append((txn_id, ReconciliationCase.Difference.KIND_DIFFERS, a, b))
        elif a["type"] != "rollback" and a["amount"] != b["amount"]:
            out.append((txn_id, ReconciliationCase.Difference.AMOUNT_DIFFERS, a, b))
    return out


def reconciliation_run(*, provider: Provider, day: date, actor: Actor | None = None) -> dict[str, int]:
    """Fetch the provider's report of ``day`` (a network call, outside any transaction), compare, open a case per
    difference (one transaction, audited). Raises ``adapters.ProviderUnavailable`` when the report cannot be had."""
    actor = actor or Actor.system("providers.reconciliation")
    report = adapters.post(provider, "round-report", {"day": day.isoformat()})
    theirs = _provider_side(report)
    ours = platform_side(provider, day)
    found = differences(ours, theirs)
    opened = 0
    now = clock.now()
    with transaction.atomic():
        for txn_id, kind, a, b in found:
            _, created = ReconciliationCase.objects.get_or_create(
                provider=provider,
                day=day,
                transaction_id=txn_id,
                defaults={"difference": kind, "platform_side": a, "provider_side": b, "created_at": now},
            )
            opened += int(created)
        audit_record(
            actor=actor,
            action="providers.reconciled",
            obj=provider,
            day=day.isoformat(),
            platform=len(ours),
            provider=len(theirs),
            differences=len(found),
            opened=opened,
        )
    return {"platform": len(ours), "provider": len(theirs), "differences": len(found), "opened": opened}


def reconcile_previous_day(*, now: datetime | None = None) -> dict[str, Any]:
    """Every enabled provider, the previous Prague operating day; a provider that cannot be reached is logged and
    reported, the others still run."""
    day = clock.business_date(now or clock.now()) - timedelta(days=1)
    out: dict[str, Any] = {"day": day.isoformat()}
    for provider in Provider.objects.filter(enabled=True).order_by("code"):
        try:
            out[provider.code] = reconciliation_run(provider=provider, day=day)
        except adapters.ProviderUnavailable as exc:
            logger.warning("reconciliation of %s for %s failed: %s", provider.code, day, exc)
            out[provider.code] = {"error": str(exc)[:300]}
    return out
