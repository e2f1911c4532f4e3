"""Demo AML data (``manage.py seed_demo``): the active demo players declared they are not politically exposed and
were screened against the sandbox list; one of them declared a PEP relation, so the compliance queue has a case.
The demo player whose identification is not done yet presents a document the sandbox identification provider finds
doubtful (its number ends in ``DBT``), so the review queue has an identification to decide. The demo player whose
person is on the sandbox list (a fictitious minister) declares no PEP relation and is screened like any applicant:
the list's hit opens a blocking case in the screening-hits queue. Idempotent: a player with a declaration, an
identification check or a screening run is skipped. Nothing is seeded when the sandbox is off."""

from __future__ import annotations

import struct
import zlib
from datetime import timedelta
from typing import Any

from django.conf import settings

from accounts.models import Player
from aml import adapters, services
from aml.models import IdentificationCheck, PepDeclaration, ScreeningRun
from core import clock
from core.audit import Actor

#: the demo player without an AML identification (accounts' demo)
UNIDENTIFIED = "demo_identifying"
#: the demo player whose person is on the sandbox PEP list (accounts' demo)
LISTED_PEP = "demo_pep"


def seed(stdout: Any) -> None:
    if not settings.AML_SANDBOX_ENABLED:
        stdout.write("aml: the sandbox is off (AML_SANDBOX_ENABLED): no demo data")
        return
    players = list(
        Player.objects.select_related("user").filter(status="active", personal__isnull=False).order_by("pk")[:2]
    )
    for i, player in enumerate(players):
        if PepDeclaration.objects.filter(player=player).exists():
            continue
        actor = Actor.player(player)
        if i == 0:
            services.pep_declare(player=player, relation="none", actor=actor)
        else:
            services.pep_declare(
                player=player, relation="family", position="[demo] sister of a regional governor", actor=actor
            )
        run = services.screening_run(player=player, actor=Actor.system("aml.demo"), trigger="demo")
        stdout.write(f"aml: {player.user.username} declared ({'PEP' if i else 'not a PEP'}), screened: {run.result}")
    _doubtful_identification(stdout)
    _screening_hit(stdout)


def _screening_hit(stdout: Any) -> None:
    """The listed demo player declares no PEP relation and is screened against the list (``AML_SCREENING_LIST``,
    development's sandbox list): the list names the person, so the run is a hit and a blocking ``screening_hit`` case
    waits for compliance (``aml.decide_case``)."""
    player = Player.objects.select_related("user").filter(user__username=LISTED_PEP, personal__isnull=False).first()
    if player is None or ScreeningRun.objects.filter(player=player).exists():
        return
    if not PepDeclaration.objects.filter(player=player).exists():
        services.pep_declare(player=player, relation="none", actor=Actor.player(player))
    run = services.screening_run(player=player, actor=Actor.system("aml.demo"), trigger="registration")
    stdout.write(
        f"aml: {player.user.username} declared no PEP relation; the screening against the list {run.list_code} "
        f"({run.list_version}) answered {run.result}: the hit waits for compliance"
    )


def _png(width: int = 48, height: int = 32) -> bytes:
    """A small grey PNG standing for a scanned document or a selfie (the sandbox provider reads no pixels)."""

    def chunk(tag: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)

    rows = b"".join(b"\x00" + bytes([160 + (x + y) % 64 for x in range(width)]) for y in range(height))
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _doubtful_identification(stdout: Any) -> None:
    """The identification of the demo player without one: its document and selfie are presented, and the sandbox
    provider's signed answer (doubtful: the likeness uncertain) comes through the callback service; the check then
    waits in the review queue (``aml.review_identification``)."""
    player = Player.objects.select_related("user").filter(user__username=UNIDENTIFIED).first()
    if (
        player is None
        or player.aml_identified_at is not None
        or IdentificationCheck.objects.filter(player=player).exists()
    ):
        return
    document = {
        "document_type": "id_card",
        "document_number": "DM900501DBT",
        "document_issuing_state": "CZ",
        "document_issuing_authority": "MěÚ Praha 1",
        "document_valid_until": (clock.business_date() + timedelta(days=3 * 365)).isoformat(),
    }
    image = _png()
    check = services.identification_start(
        player=player,
        document=document,
        images={"front": image, "back": image, "selfie": image},
        actor=Actor.player(player),
    )
    body, signature = adapters.sandbox_identification_event(
        check.reference,
        "doubtful",
        score=61,
        reasons=["likeness_uncertain"],
        extracted={
            "given_names": player.user.first_name,
            "surname": player.user.last_name,
            "document_type": "id_card",
            "document_number": document["document_number"],
        },
    )
    result = services.identification_callback_handle(provider="sandbox", raw_body=body, signature=signature)
    stdout.write(
        f"aml: {player.user.username} presented a document the provider found doubtful "
        f"({result['result']}): it waits for compliance's review"
    )
