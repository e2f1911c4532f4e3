"""The bench's floor: what the framework alone costs for a round's statement count (``make bench``).

``POST /bench/floor`` with ``{"player": <id>}``: a minimal DRF view (no authentication, no throttling, the default
renderer and parser) running ``BENCH_FLOOR_STATEMENTS`` statements in ONE transaction, counted as the platform's
round is counted (``BEGIN`` and ``COMMIT`` included): the player's wallet row locked (``FOR NO KEY UPDATE``, the
hot row a round locks), its live account read, and trivial statements up to the count. Mounted only when
``BENCH_FLOOR=1`` (config/urls.py); the settings refuse that in production. The bench drives it with the same
load as the rounds, on the same server, in the same minute, and prints the platform's rounds/s as a ratio to it.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connection, transaction
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from wallet.sql import LOCK_LIVE, live_params


class FloorView(APIView):
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes: list[Any] = []

    def post(self, request: Request) -> Response:
        player = int(request.data.get("player") or 0)
        count = max(3, settings.BENCH_FLOOR_STATEMENTS)
        with transaction.atomic(), connection.cursor() as cur:  # BEGIN ... COMMIT: 2 of the count
            cur.execute(LOCK_LIVE.sql, {**live_params(), "player": player})
            row = cur.fetchone()
            for n in range(count - 3):
                cur.execute("SELECT %s", [n])
                cur.fetchone()
        return Response({"player": player, "locked": row is not None, "statements": count}, status=201)
