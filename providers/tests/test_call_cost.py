"""The cost of a provider's bet and win through the HTTP API, counted in SQL statements (as the engine round's in
games/tests/platform/test_round_cost.py): at most 12 each, signature check and exactly-once lookup and record
included, and the same after 10,000 transactions and rounds of history. Limits are on."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections
from django.test.utils import CaptureQueriesContext

from core.audit import Actor
from core.sql import readable
from games.models import Round
from limits.services import self_limit_set
from providers.models import ProviderTransaction
from providers.tests.test_api import bet, win
from wallet.models import LedgerTransaction
from wallet.selectors import balance

# transaction=True: the request's transaction is the outermost one, as in production (no test savepoints)
pytestmark = pytest.mark.django_db(transaction=True)

MAX_STATEMENTS = 12


@pytest.fixture(autouse=True)
def _snapshots(settings: Any) -> Any:
    """The jackpot levels and the published terms are read once per process per TTL (not per call)."""
    from accounts import terms
    from jackpots.levels import snapshot_clear

    settings.JACKPOTS_CONFIG_TTL_SECONDS = 3600
    settings.ACCOUNTS_TERMS_SNAPSHOT_SECONDS = 3600
    snapshot_clear()
    terms.snapshot_clear()
    yield
    snapshot_clear()
    terms.snapshot_clear()


def _counted(fn: Any) -> tuple[Any, list[str]]:
    with CaptureQueriesContext(connection) as ctx:
        r = fn()
    assert r.status_code == 200, r.content
    return r, [readable(q["sql"]) for q in ctx.captured_queries]


def _history(player: Any, provider: Any, n: int) -> None:
    """``n`` settled rounds and ``n`` answered provider calls of the player, written in bulk."""
    with connection.cursor() as cur:
        columns = [f.column for f in Round._meta.concrete_fields if not f.primary_key]
        values = [
            "'history-' || n"
            if c == "idempotency_key"
            else "'h' || n"
            if c == "provider_round_id"
            else f"r.{c} - n * interval '3 seconds'"
            if c in ("started_at", "last_activity_at", "settled_at")
            else f"r.{c}"
            for c in columns
        ]
        cur.execute(
            f"""INSERT INTO games_round ({", ".join(columns)}) SELECT {", ".join(values)}
                        FROM generate_series(1, %s) AS n,
                             (SELECT * FROM games_round WHERE player_id = %s AND status = 'finished' LIMIT 1) AS r""",
            [n, player.pk],
        )
        cur.execute(
            """INSERT INTO providers_providertransaction (provider_id, transaction_id, kind, player_id,
                           provider_round_id, bet_transaction_id, amount, credited, request_sha256, response_status,
                           response, created_at)
                       SELECT %s, 'hist-' || n, 'bet', %s, 'h' || n, '', 100, 100, '', 200, '{}', now()
                       FROM generate_series(1, %s) AS n""",
            [provider.pk, player.pk, n],
        )


def test_a_bet_costs_at_most_11_and_a_win_12_statements_also_after_10000_rounds_of_history(
    player, provider, signed, session, clock
):
    for limit_type, value in (("daily_stake", 5_000_000), ("daily_loss", 2_000_000)):
        self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))
    bet(signed, session, "b0", "r0", closed=True)  # the day's first stake creates its counter rows
    clock.shift(3)
    _, bet_sql = _counted(lambda: bet(signed, session, "b1", "r1"))
    _, win_sql = _counted(lambda: win(signed, session, "w1", "b1", "r1", closed=True))
    assert len(bet_sql) <= MAX_STATEMENTS - 1, "\n".join(bet_sql)  # the open bet written with the round's insert
    assert len(win_sql) <= MAX_STATEMENTS, "\n".join(win_sql)
    # the session, the provider (its secret) and the exactly-once lookup are ONE statement
    assert len([q for q in bet_sql if "providers_gamesession" in q]) == 1
    _history(player, provider, 10_000)
    clock.shift(3)
    _, bet_after = _counted(lambda: bet(signed, session, "b2", "r2"))
    _, win_after = _counted(lambda: win(signed, session, "w2", "b2", "r2", closed=True))
    assert (len(bet_after), len(win_after)) == (len(bet_sql), len(win_sql)), "\n".join(bet_after + win_after)
    print(f"statements: bet {len(bet_sql)}, win {len(win_sql)}")


def test_two_identical_bets_in_parallel_debit_once(player, signed, session, clock):
    answers: list[Any] = []

    def send() -> None:
        try:
            answers.append(bet(signed, session, "same", "r1"))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=send) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [a.status_code for a in answers] == [200, 200]
    assert answers[0].json() == answers[1].json()
    assert balance(player).amount == 99_000
    assert LedgerTransaction.objects.filter(reference__endswith=":stake", player_id=player.pk).count() == 1
    assert ProviderTransaction.objects.filter(transaction_id="same").count() == 1


def test_a_one_shot_studio_round_in_one_call_costs_no_more_than_an_engine_round(
    player, provider, signed, session, clock
):
    """The one round path: a studio's whole round in one ``play`` call costs at most the 9 statements of an engine
    round that settles at once (games/tests/platform/test_round_cost.py), BEGIN and COMMIT, the signature's call
    context and the exactly-once record included."""
    from providers.tests.test_api import play

    for limit_type, value in (("daily_stake", 5_000_000), ("daily_loss", 2_000_000)):
        self_limit_set(player=player, kind="technical", limit_type=limit_type, value=value, actor=Actor.player(player))
    assert play(signed, session, "p0", "r0", win=500, win_txn="pw0").status_code == 200  # the day's counters
    clock.shift(3)
    _, sql = _counted(lambda: play(signed, session, "p1", "r1", win=2_500, win_txn="pw1"))
    assert len(sql) <= 9, "\n".join(sql)
    clock.shift(3)
    _, lost = _counted(lambda: play(signed, session, "p2", "r2"))
    assert len(lost) <= 9, "\n".join(lost)
