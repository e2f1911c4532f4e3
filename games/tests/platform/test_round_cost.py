"""The cost of a real-money round through the HTTP API, counted in SQL statements.

A round that settles without a player action costs at most ``SETTLED_STATEMENTS`` statements, won or lost,
authentication (token) and idempotency (the round's own unique key) included, and the same number after 10,000
rounds of the player's history. Limits are on (a daily stake and a daily loss limit). Speed is measured by
`make bench`, never asserted by wall clock; this test pins the number of statements, which is what the database pays
per spin."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.rng import SeededRNG, use_rng
from core.sql import readable
from games.models import Round
from games.tests.platform.testgames import FixedRNG
from limits.services import self_limit_set
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import funded_player, key

# transaction=True: the request's own transaction is the outermost one, as in production (no test savepoints)
pytestmark = pytest.mark.django_db(transaction=True)

#: a round's start: its insert carries the limits' counters of its bet (games/sql.py), with one statement beside it
#: (the token's activity write, once a minute; a jackpot contribution of a game that feeds one)
MAX_STATEMENTS = 9
#: a round settled at its start, won or lost, in a game that feeds no jackpot: its insert carries its win posting too
#: (games/sql.py ROUND_INSERT_DECIDED_WIN)
SETTLED_STATEMENTS = 8
JACKPOT_STATEMENTS = 1  # a game that feeds jackpot levels: its contributions and their live values (one CTE)
ROULETTE_RED = {"bets": [{"type": "red", "amount": 100}]}
KOBUSHI_BET = {"lines": 30, "coins": 1, "coin_value": 1}
LOSS, WIN = FixedRNG(0), FixedRNG(1)  # roulette pocket 0 (red loses), pocket 1 (red wins)


@pytest.fixture(autouse=True)
def _jackpot_snapshot(settings: Any) -> Any:
    """The running jackpot levels are read once per process per JACKPOTS_CONFIG_TTL_SECONDS (1 s in production);
    a longer TTL here keeps that reload out of the counted requests (it is not per round). Likewise the published
    versions of the game plan / terms (accounts.terms, every ACCOUNTS_TERMS_SNAPSHOT_SECONDS)."""
    from accounts import terms
    from jackpots.levels import snapshot_clear

    settings.JACKPOTS_CONFIG_TTL_SECONDS = 3600
    settings.ACCOUNTS_TERMS_SNAPSHOT_SECONDS = 3600
    snapshot_clear()
    terms.snapshot_clear()
    yield
    snapshot_clear()
    terms.snapshot_clear()


def _limited_player() -> Any:
    """A funded player with a daily stake limit and a daily loss limit (limits on, as at the evening peak)."""
    player = funded_player(100_000_00)
    for limit_type, value in (("daily_stake", 50_000_00), ("daily_loss", 20_000_00)):
        self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))
    return player


def _round(c: Any, clock: Any, game: str, bet: dict[str, Any], rng: Any) -> tuple[dict[str, Any], list[str]]:
    clock.shift(3)  # GP §7(9): at least 2 s between rounds
    with use_rng(rng), CaptureQueriesContext(connection) as ctx:
        r = c.post(
            "/api/v1/games/rounds", {"game": game, "bet": api_bet(bet)}, format="json", HTTP_IDEMPOTENCY_KEY=key()
        )
    assert r.status_code == 201, r.content
    # the hot statements ran prepared (core/sql.py): the round context, the gate, the posting, the counters
    assert len([q for q in ctx.captured_queries if q["sql"].startswith("EXECUTE hot_")]) >= 4, ctx.captured_queries
    return r.json(), [readable(q["sql"]) for q in ctx.captured_queries]


def _history(player: Any, rounds: int) -> None:
    """``rounds`` settled roulette rounds of history, written in bulk the way a settled round leaves them: the
    round rows, limits' settled bets and the ledger's stake postings."""
    with connection.cursor() as cur:
        columns = [f.column for f in Round._meta.concrete_fields if not f.primary_key]
        shifted = {"started_at", "last_activity_at", "settled_at"}
        values = [
            "'history-' || n"
            if c == "idempotency_key"
            else f"r.{c} - n * interval '3 seconds'"
            if c in shifted
            else f"r.{c}"
            for c in columns
        ]
        cur.execute(
            f"""
            INSERT INTO games_round ({", ".join(columns)})
            SELECT {", ".join(values)}
            FROM generate_series(1, %s) AS n,
                 (SELECT * FROM games_round WHERE player_id = %s AND status = 'finished' LIMIT 1) AS r
        """,
            [rounds, player.pk],
        )
        cur.execute(
            """
            INSERT INTO limits_settledbet (player_id, kind, game_code, round_ref, stake, win, placed_at, started_at,
                settled_at, voided)
            SELECT %s, 'technical', 'european_roulette', 'history:' || n, 100, 0, now() - n * interval '3 seconds',
                now() - n * interval '3 seconds', now() - n * interval '3 seconds', false
            FROM generate_series(1, %s) AS n
        """,
            [player.pk, rounds],
        )


@pytest.mark.parametrize("outcome", ["loss", "win"])
def test_a_settled_roulette_round_costs_8_statements_won_or_lost_also_after_10000_rounds_of_history(clock, outcome):
    player = _limited_player()
    c = client_for(player)
    rng = LOSS if outcome == "loss" else WIN
    _round(c, clock, "european_roulette", ROULETTE_RED, rng)  # the day's first round creates its counter rows
    body, fresh = _round(c, clock, "european_roulette", ROULETTE_RED, rng)
    assert body["status"] == "finished" and (body["win"]["amount"] > 0) == (outcome == "win")
    assert len(fresh) <= SETTLED_STATEMENTS, "\n".join(fresh)
    # the game's switch and its approval in the game plan (GP §13(6)) come with the round context, no read of its own
    assert len([q for q in fresh if "games_game" in q]) == 1, "\n".join(fresh)
    # the AML restriction (a blocking compliance case, docs/aml.md) comes with the stake gate's one locking statement
    gate = [q for q in fresh if "FOR NO KEY UPDATE OF s" in q]
    assert len(gate) == 1 and "p.aml_restriction FROM accounts_player" in gate[0], "\n".join(fresh)
    _history(player, 10_000)
    assert Round.objects.filter(player=player).count() > 10_000
    _, after_history = _round(c, clock, "european_roulette", ROULETTE_RED, rng)
    assert len(after_history) == len(fresh), "\n".join(after_history)


def test_a_settled_kobushi_round_costs_at_most_10_statements_with_its_jackpot_contribution(clock):
    from jackpots.models import Jackpot
    from jackpots.services import jackpot_start

    for jp in Jackpot.objects.filter(family=Jackpot.Family.KOBUSHI):  # the operator offers Kobushi's jackpots
        jackpot_start(jackpot=jp, actor=Actor.system("tests"))
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)  # the day's first round creates its counter rows
    counted = 0
    for seed in range(40):
        body, sql = _round(c, clock, "kobushi", KOBUSHI_BET, SeededRNG(seed))
        if body["status"] != "finished":
            continue  # a feature that needs the player; not this test's subject
        counted += 1
        assert len(sql) <= MAX_STATEMENTS + JACKPOT_STATEMENTS, "\n".join(sql)  # Kobushi feeds its two pools
        assert len([q for q in sql if "jackpots_" in q]) == JACKPOT_STATEMENTS
    assert counted >= 10


@pytest.mark.parametrize("outcome", ["loss", "win"])
def test_with_a_central_jackpot_a_round_adds_one_statement_and_takes_no_lock_on_the_pool(clock, outcome):
    """A must-hit level over every game: the round's contribution and the live value it reads are ONE statement;
    nothing on a spin that wins no jackpot locks or updates the pool row (design.md "Shared hot rows"): it adds to
    its slot of the pool's counter (jackpots/models.py ``PendingTotal``)."""
    from jackpots.tests.helpers import central_level

    central_level("central-bronze", rate_ppm=10_000, reset_value=100_000, win_from=1_000_000, win_to=2_000_000)
    player = _limited_player()
    c = client_for(player)
    rng = LOSS if outcome == "loss" else WIN
    _round(c, clock, "european_roulette", ROULETTE_RED, rng)
    body, sql = _round(c, clock, "european_roulette", ROULETTE_RED, rng)
    assert body["status"] == "finished"
    assert len(sql) <= SETTLED_STATEMENTS + JACKPOT_STATEMENTS, "\n".join(sql)
    touching = [q for q in sql if "jackpots_" in q]
    assert len(touching) == 1 and touching[0].lstrip().startswith("WITH ins AS (")
    # the live value reads the pool's running counter (SLOTS rows), not its pending rows (as many as the fold left)
    assert "FROM jackpots_pending " not in touching[0] and "FROM jackpots_pendingtotal s" in touching[0]
    assert not [
        q
        for q in sql
        if "jackpots_jackpot" in q and ("FOR UPDATE" in q or "FOR NO KEY" in q or q.lstrip().startswith("UPDATE"))
    ]


def test_the_token_activity_write_is_at_most_once_a_minute_and_keeps_a_round_within_the_limit(clock):
    """Authentication writes ``last_used_at`` at most once a minute; that round, too, stays within the limit."""
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, WIN)
    clock.shift(61)
    _, sql = _round(c, clock, "european_roulette", ROULETTE_RED, WIN)
    assert any(q.startswith('UPDATE "accounts_authtoken"') for q in sql)
    assert len(sql) <= MAX_STATEMENTS, "\n".join(sql)
    _, sql = _round(c, clock, "european_roulette", ROULETTE_RED, WIN)
    assert not any(q.startswith('UPDATE "accounts_authtoken"') for q in sql)


def test_an_idempotent_replay_of_a_round_costs_no_more_and_moves_nothing(clock):
    player = _limited_player()
    c = client_for(player)
    clock.shift(3)
    first = c.post(
        "/api/v1/games/rounds",
        {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
        format="json",
        HTTP_IDEMPOTENCY_KEY="same-key",
    )
    with CaptureQueriesContext(connection) as ctx:
        again = c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY="same-key",
        )
    assert again.status_code == 201 and again["Idempotent-Replayed"] == "true" and again.json() == first.json()
    assert len(ctx.captured_queries) <= MAX_STATEMENTS


def test_the_fast_round_answer_is_the_documented_serializer_answer(clock):
    """The round endpoints answer with ``round_json`` (no serializer tree per request); it must give exactly what
    ``RoundSerializer`` (the OpenAPI shape) gives, for finished, waiting, acted-on and refunded rounds."""
    import json

    from rest_framework.renderers import JSONRenderer

    from games.api import round_json
    from games.serializers import RoundSerializer
    from games.services import round_refund
    from games.tests.platform.testgames import PICK

    def same_answer(rnd: Round) -> None:
        fast, documented = (json.loads(JSONRenderer().render(x)) for x in (round_json(rnd), RoundSerializer(rnd).data))
        assert fast == documented, rnd.pk

    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, WIN)
    with use_rng(FixedRNG(1, 1)):
        picked, _ = _round(c, clock, PICK.code, {"stake": 100}, FixedRNG(1, 1))
        for pick in (1, 2):  # two picks finish the test pick game
            c.post(
                f"/api/v1/games/rounds/{picked['id']}/actions",
                {"action": {"pick": pick}},
                format="json",
                HTTP_IDEMPOTENCY_KEY=key(),
            )
        waiting, _ = _round(c, clock, PICK.code, {"stake": 100}, FixedRNG(1, 1))
    same_answer(Round.objects.get(pk=waiting["id"]))  # waiting for the player
    round_refund(round_id=waiting["id"], reason="test", actor=Actor.system("test"))
    rounds = list(Round.objects.filter(player=player))
    assert {r.status for r in rounds} == {"finished", "refunded"} and any(r.actions for r in rounds)
    for rnd in rounds:
        same_answer(rnd)
