"""Helpers of the complaints tests: personas, real game rounds (games app), API calls, test files."""

from __future__ import annotations

import uuid
from datetime import datetime

from django.core.files.uploadedfile import SimpleUploadedFile

from core.audit import Actor

ROULETTE = "european_roulette"
RED_100 = {"bets": [{"type": "red", "amount": 100}]}

PDF = b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"
PNG = (
    b"\x89PNG\r\n\x1a\n"
    + b"\x00\x00\x00\rIHDR"
    + b"\x00\x00\x00\x01\x00\x00\x00\x01\x08\x02\x00\x00\x00"
    + b"\x00" * 16
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + b"\x00" * 32 + b"\xff\xd9"


def upload(name: str, data: bytes, content_type: str = "application/octet-stream") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


def play_round(player) -> int:
    """A real, settled roulette round of ``player`` through games.services.round_play; returns its id."""
    from games.services import round_play

    rnd = round_play(
        player=player,
        game_code=ROULETTE,
        bet=RED_100,
        idempotency_key=f"k-{uuid.uuid4().hex}",
        actor=Actor.player(player),
    )
    assert rnd.status == "finished", rnd.status
    return rnd.pk


def file_via_api(client, **body):
    body.setdefault("reason", "game_result")
    body.setdefault("description", "The round did not pay what the paytable says.")
    return client.post("/api/v1/complaints", body, format="json")


def iso(dt: datetime) -> str:
    return dt.isoformat()
