"""The cost of an interactive round through the HTTP API, counted in SQL statements.

Each player action (a free spin, a pick, a gamble: ``round_act``) costs at most ``MAX_ACTION_STATEMENTS``,
authentication (token) and idempotency (the action's own unique key) included, and the same whatever the round's
length: the 1st and the 20th free spin cost the same. An action that moves no money is the round-lock prelude (one
statement: wallet, live account and round) and one write (the action and the round); the action that finishes the
round adds only the win's posting, the limits' decided bet and the audit event, written with the round. Speed is
measured by ``make bench``, never asserted by wall clock."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.rng import SeededRNG, use_rng
from core.sql import readable
from games.models import Round
from games.tests.platform.test_round_cost import (  # noqa: F401 - the jackpot snapshot fixture
    KOBUSHI_BET,
    LOSS,
    MAX_STATEMENTS,
    ROULETTE_RED,
    _jackpot_snapshot,
    _limited_player,
    _round,
)
from tests.kit.clients import client_for
from tests.kit.platform import key

pytestmark = pytest.mark.django_db(transaction=True)

MAX_ACTION_STATEMENTS = 8
FREE_SPINS_SEED = 517  # Kobushi: 3 BIG_CAT at the start, 20 free spins (games/engine/games/kobushi)
PICK_SEED = 288  # Kobushi: the Kobushi bonus (a pick round) at the start


def _act(c: Any, clock: Any, round_id: int, action: dict[str, Any], rng: Any) -> tuple[dict[str, Any], list[str]]:
    clock.shift(1)
    with use_rng(rng), CaptureQueriesContext(connection) as ctx:
        r = c.post(
            f"/api/v1/games/rounds/{round_id}/actions", {"action": action}, format="json", HTTP_IDEMPOTENCY_KEY=key()
        )
    assert r.status_code == 200, r.content
    return r.json(), [readable(q["sql"]) for q in ctx.captured_queries]


def _kobushi_round(clock: Any, seed: int) -> tuple[Any, dict[str, Any], list[str]]:
    from jackpots.models import Jackpot
    from jackpots.services import jackpot_start

    for jp in Jackpot.objects.filter(family=Jackpot.Family.KOBUSHI):  # the operator offers Kobushi's jackpots
        jackpot_start(jackpot=jp, actor=Actor.system("tests"))
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)  # the day's first round creates its counter rows
    body, sql = _round(c, clock, "kobushi", KOBUSHI_BET, SeededRNG(seed))
    assert body["status"] == "in_progress", body["status"]
    return c, body, sql


def _play_out(c: Any, clock: Any, body: dict[str, Any], seed: int) -> list[tuple[str, list[str], dict[str, Any]]]:
    """Every action of the round until it settles: (the pending type, its statements, the answer)."""
    played = []
    n = 0
    while body["status"] == "in_progress":
        pending = body["pending"]
        body, sql = _act(c, clock, body["id"], pending["options"][0], SeededRNG(seed * 1000 + n))
        played.append((pending["type"], sql, body))
        n += 1
    return played


def test_every_free_spin_of_a_kobushi_round_costs_at_most_8_statements_the_1st_as_the_20th(clock):
    c, body, start = _kobushi_round(clock, FREE_SPINS_SEED)
    assert body["pending"]["type"] == "free_spin"
    played = _play_out(c, clock, body, FREE_SPINS_SEED)
    spins = [sql for kind, sql, _ in played if kind == "free_spin"]
    assert len(spins) >= 10, len(spins)
    for sql in spins:
        assert len(sql) <= MAX_ACTION_STATEMENTS, "\n".join(sql)
    waiting = [sql for _, sql, answer in played if answer["status"] == "in_progress"]
    assert len(waiting[0]) == len(waiting[-1]), "\n".join(waiting[-1])  # the first and a late spin cost the same
    # an action that moves no money: the lock prelude and one write (plus the token, BEGIN and COMMIT)
    assert len([q for q in waiting[-1] if not q.startswith(("BEGIN", "COMMIT"))]) <= 3, "\n".join(waiting[-1])
    assert played[-1][2]["status"] == "finished"
    rnd = Round.objects.get(pk=body["id"])
    assert rnd.status == Round.Status.FINISHED and len(rnd.actions) == len(played)


def test_a_whole_kobushi_free_spin_round_costs_its_start_plus_at_most_8_per_spin(clock):
    c, body, start = _kobushi_round(clock, FREE_SPINS_SEED)
    played = _play_out(c, clock, body, FREE_SPINS_SEED)
    total = len(start) + sum(len(sql) for _, sql, _ in played)
    assert len(start) <= MAX_STATEMENTS, "\n".join(start)  # the open bet comes with the round's insert
    assert total <= len(start) + MAX_ACTION_STATEMENTS * len(played), total
    print(
        f"Kobushi free-spin round: {len(played)} actions, {total} statements "
        f"(start {len(start)}, actions {[len(sql) for _, sql, _ in played]})"
    )


def test_each_pick_of_the_kobushi_bonus_costs_at_most_8_statements(clock):
    c, body, _ = _kobushi_round(clock, PICK_SEED)
    assert body["pending"]["type"] == "pick"
    played = _play_out(c, clock, body, PICK_SEED)
    assert played and all(kind == "pick" for kind, _, _ in played)
    for _, sql, _ in played:
        assert len(sql) <= MAX_ACTION_STATEMENTS, "\n".join(sql)


def test_a_replayed_action_costs_no_more_and_changes_nothing(clock):
    c, body, _ = _kobushi_round(clock, FREE_SPINS_SEED)
    clock.shift(1)
    with use_rng(SeededRNG(1)):
        first = c.post(
            f"/api/v1/games/rounds/{body['id']}/actions",
            {"action": {"type": "spin"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY="spin-once",
        )
    with CaptureQueriesContext(connection) as ctx:
        again = c.post(
            f"/api/v1/games/rounds/{body['id']}/actions",
            {"action": {"type": "spin"}},
            format="json",
            HTTP_IDEMPOTENCY_KEY="spin-once",
        )
    assert again.status_code == 200 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert len(ctx.captured_queries) <= MAX_ACTION_STATEMENTS
    assert len(Round.objects.get(pk=body["id"]).actions) == 1
