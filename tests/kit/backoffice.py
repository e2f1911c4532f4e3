"""The kit's helpers of the backoffice tests (moved from ``backoffice/tests/conftest.py``, which keeps the fixtures)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.core.management import call_command
from django.test import Client

from accounts.models import Player
from core.audit import Actor
from core.rng import SeededRNG, use_rng
from tests.kit.accounts import make_player, make_staff

SYSTEM = Actor.system("tests")


START = datetime(2026, 3, 2, 9, 0, 0, tzinfo=UTC)


ROULETTE = "european_roulette"


RED_100 = {"bets": [{"type": "red", "amount": 100}]}


@dataclass
class World:
    player: Player
    method: Any  # verified: the withdrawal goes to it
    pending_method: Any  # waiting for its ownership document
    document: Any
    withdrawal: Any
    case: Any
    rounds: list[Any]


def play_rounds(player: Player, n: int, clock) -> list[Any]:
    from games.services import round_play

    out = []
    with use_rng(SeededRNG(7)):
        for i in range(n):
            clock.shift(3)  # GP §7(9): two seconds between rounds
            out.append(
                round_play(
                    player=player,
                    game_code=ROULETTE,
                    bet=RED_100,
                    idempotency_key=f"bo-{i}",
                    actor=Actor.player(player),
                )
            )
    return out


def build_world(*, rounds: int, clock, settings, extra_history: int = 0) -> World:
    from aml.models import ComplianceCase
    from aml.services import case_open
    from tests.kit.money import czk
    from tests.kit.wallet import bank, fund, verified_bank
    from wallet.services import method_document_upload, withdrawal_request

    settings.WALLET_WITHDRAWAL_APPROVAL_THRESHOLD = 100_000  # 1 000 CZK and more waits for finance
    player = make_player()
    method = verified_bank(player)
    fund(player, czk(20000))
    for i in range(extra_history):
        fund(player, czk(1), reference=f"history-{player.pk}-{i}")
    pending = bank(player)
    document = method_document_upload(
        method=pending, name="statement.pdf", content=b"%PDF-1.4 statement", actor=Actor.player(player)
    )
    played = play_rounds(player, rounds, clock)
    withdrawal = withdrawal_request(
        player=player, method=method, amount=czk(1500), reference=f"wd-{player.pk}", actor=Actor.player(player)
    )
    case, _ = case_open(
        player_id=player.pk,
        kind=ComplianceCase.Kind.SCREENING_HIT,
        key=f"hit-{player.pk}",
        summary="name matches a sanctions list entry (score 92)",
        blocking=False,
        actor=SYSTEM,
    )
    return World(player, method, pending, document, withdrawal, case, played)


def demo_superuser_client(settings: Any) -> Any:
    """The demo's data seeded (``seed_demo``, its mail kept in memory) and a test client signed in as a superuser
    that gets error pages instead of exceptions: the admin's pages as the operator sees them."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    call_command("seed_demo", stdout=io.StringIO())
    client = Client(raise_request_exception=False)
    client.force_login(make_staff(superuser=True))
    return client
