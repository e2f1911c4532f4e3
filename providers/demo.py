"""Demo data of the providers (idempotent): the demo studio ``simstudio`` (its simulator, ``provider_simulator/``,
listens where ``settings.PROVIDERS_DEMO_URL`` says: make run sets it from PROVIDER_SIM_PORT, default 8300) with the 41
games of Part two of the approved plan (providers/data/simstudio_games.py) as
catalogue entries, NOT approved: staff approve them in the admin (GP §13(6)). So that a new user can play one with
``make run``, the demo records the demo approval of the first slot, 5x Magic (``simstudio_5x_magic``)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from core import clock
from core.audit import Actor, audit_record
from core.management.commands.seed_demo import DEMO_ADMIN
from games.demo import DEMO_PLAN_VERSION, DEMO_REFERENCE
from games.services import game_approve, remote_game_upsert
from providers.data.simstudio_games import GAMES
from providers.models import Provider, ReconciliationCase
from providers.services import provider_save

CODE = "simstudio"
DEMO_DIFFERENCE = "demo-missing-win-1"
DEMO_APPROVED = "simstudio_5x_magic"


def seed(stdout: Any) -> None:
    actor = Actor.system("seed_demo")
    base = settings.PROVIDERS_DEMO_URL.rstrip("/")
    launch_url, api_url = f"{base}/play", f"{base}/api"
    provider = Provider.objects.filter(code=CODE).first()
    if provider is None:
        provider = provider_save(
            provider=Provider(
                code=CODE,
                name="SimStudio (demo simulator)",
                enabled=True,
                launch_url=launch_url,
                api_url=api_url,
                allowed_sources=["127.0.0.1/32", "::1/128"],
            ),
            new_secret=settings.PROVIDERS_DEV_SECRET,
            actor=actor,
        )
    elif (provider.launch_url, provider.api_url) != (launch_url, api_url):  # make run on another PROVIDER_SIM_PORT
        provider.launch_url, provider.api_url = launch_url, api_url
        provider = provider_save(provider=provider, actor=actor)
    cap = settings.GP["MAX_WIN_PER_ROUND"]
    for g in GAMES:
        row = remote_game_upsert(
            provider=CODE,
            provider_game_id=g.slug,
            name=g.name,
            kind=g.kind,
            rtp=g.rtp,
            min_bet=settings.GP["MIN_STAKE"],
            max_bet=g.max_bet,
            max_win=cap,
            avg_hourly_loss=g.hourly_loss,
            unfinished_deadline_days=g.unfinished_deadline_days,
            actor=actor,
            description={
                "remote": True,
                "provider": CODE,
                "plan_number": g.number,
                "hourly_loss_derived": g.hourly_loss_derived,
            },
        )
        if row.code == DEMO_APPROVED and not row.approved:
            game_approve(
                game=row,
                plan_version=DEMO_PLAN_VERSION,
                reference=DEMO_REFERENCE,
                actor=Actor.staff(get_user_model().objects.get(username=DEMO_ADMIN[0])),
            )
    stdout.write(
        f"provider: {provider.code} ({provider.launch_url}), {len(GAMES)} games, {DEMO_APPROVED} approved "
        "(demo); the others wait for staff approval\n"
    )
    _demo_difference(provider, actor, stdout)


def _demo_difference(provider: Provider, actor: Actor, stdout: Any) -> None:
    """One reconciliation difference for finance to practise on (the queue "reconciliation differences"): a win the
    provider reported that the platform never answered, as the daily reconciliation would record it (audited the
    same way). Idempotent: one case per (provider, day, transaction)."""
    day = clock.business_date() - timedelta(days=1)
    case, created = ReconciliationCase.objects.get_or_create(
        provider=provider,
        day=day,
        transaction_id=DEMO_DIFFERENCE,
        defaults={
            "difference": ReconciliationCase.Difference.MISSING_ON_PLATFORM,
            "platform_side": None,
            "provider_side": {"type": "win", "round_id": "demo-round-1", "amount": 12_50},
            "created_at": clock.now(),
        },
    )
    if created:
        audit_record(
            actor=actor,
            action="providers.reconciled",
            obj=provider,
            day=day.isoformat(),
            platform=0,
            provider=1,
            differences=1,
            opened=1,
            demo=True,
        )
        stdout.write(f"provider: a reconciliation difference to resolve ({case.transaction_id}, {day})\n")
