"""The platform behind PgBouncer in transaction mode (docs/scaling.md, "Connection pooling").

A private PgBouncer (tests/kit/servers.py) is started in front of the test database (where Django's connection is:
a host and port, or the embedded server's Unix socket) with a primary pool smaller
than the number of threads, so server connections really are handed from one client to another between
transactions; Django connects to it with the settings of ``DATABASE_POOLER=pgbouncer`` (``CONN_MAX_AGE=0``, no
server-side cursors) and the side connection (the refusal log) on a pool of its own. Real rounds, a deposit through
the provider's callback and a race of threads on one wallet run through it, and the books reconcile.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, connections

from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from core.rng import use_rng
from games.services import round_play
from games.tests.platform.testgames import FixedRNG
from tests.kit.money import czk
from tests.kit.servers import SIDE_SUFFIX, PgBouncer, Upstream, pgbouncer_binary
from tests.kit.wallet import deposit, fund, verified_bank
from wallet.models import Entry
from wallet.selectors import balance

pytestmark = [
    pytest.mark.process,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(pgbouncer_binary() is None, reason="pgbouncer is not installed here (make pgbouncer-deps)"),
]

POOL = 2  # server connections of the primary pool: fewer than the racing threads
THREADS = 4
ROUNDS = 3
STAKE = 1_000  # 10 CZK on red
RED = {"bets": [{"type": "red", "amount": STAKE}]}


@pytest.fixture
def bouncer(settings: Any) -> Iterator[PgBouncer]:
    """Django's connections (the primary and the side connection) through a private PgBouncer, restored after."""
    settings.GP = {**settings.GP, "MIN_ROUND_SECONDS": 0}
    settings.DATABASE_PREPARED_STATEMENTS = False  # as DATABASE_POOLER=pgbouncer sets it: no session state
    primary = connections["default"].settings_dict
    dicts = {
        id(d): d
        for d in (
            primary,
            connections["refusal_log"].settings_dict,
            connections.settings["default"],
            connections.settings["refusal_log"],
        )
    }
    saved = {key: dict(d) for key, d in dicts.items()}
    upstream = Upstream.of(connections["default"])  # a host and port, or the embedded server's socket directory
    name = upstream.dbname
    connections.close_all()
    with PgBouncer(
        upstream_host=upstream.host,
        upstream_port=upstream.port,
        upstream_user=upstream.user,
        upstream_password=upstream.password,
        pool_size=POOL,
        side_pools=(name,),
        side_pool_size=2,
    ) as pgb:
        try:
            for d in dicts.values():
                d.update(
                    {"HOST": "127.0.0.1", "PORT": str(pgb.port), "CONN_MAX_AGE": 0, "DISABLE_SERVER_SIDE_CURSORS": True}
                )
            for side in (connections["refusal_log"].settings_dict, connections.settings["refusal_log"]):
                side["NAME"] = name + SIDE_SUFFIX
            yield pgb
        finally:
            connections.close_all()
            for key, d in dicts.items():
                d.clear()
                d.update(saved[key])
            connections.close_all()


def _through_bouncer(pgb: PgBouncer, database: str) -> int:
    """Transactions PgBouncer has passed to the server for ``database`` so far."""
    return sum(int(r["total_xact_count"]) for r in pgb.admin("SHOW STATS") if r["database"] == database)  # type: ignore[call-overload]


def _server_connections(pgb: PgBouncer, database: str) -> int:
    return sum(1 for r in pgb.admin("SHOW SERVERS") if r["database"] == database)


def test_rounds_and_a_deposit_through_pgbouncer_in_transaction_mode_post_balanced_books(bouncer):
    from tests.kit.accounts import make_player

    name = connection.settings_dict["NAME"]
    assert connection.settings_dict["PORT"] == str(bouncer.port)
    with connection.cursor() as cursor:  # the server behind PgBouncer is the test database's own
        cursor.execute("SELECT current_database(), current_setting('port')")
        assert cursor.fetchone()[0] == name
    before = _through_bouncer(bouncer, name)
    player = make_player()
    method = verified_bank(player)
    deposited = deposit(player, method, czk(500))  # start, the provider's signed callback, the credit
    assert deposited.status == "confirmed"
    with use_rng(FixedRNG(0)):  # every red bet loses
        for i in range(5):
            round_play(
                player=player,
                game_code="european_roulette",
                idempotency_key=f"pgb-{i}",
                bet=RED,
                actor=Actor.player(player),
            )
        replay = round_play(
            player=player, game_code="european_roulette", idempotency_key="pgb-0", bet=RED, actor=Actor.player(player)
        )  # a replay: the stored result, nothing moves
    assert replay is not None
    assert balance(player) == Money(50_000 - 5 * STAKE)
    assert Entry.objects.filter(account__player_id=player.pk, transaction__kind="stake").count() == 5
    assert _through_bouncer(bouncer, name) - before > 20  # every one of these transactions went through PgBouncer
    call_command("ledger_check", verbosity=0)
    call_command("limits_reconcile", verbosity=0)


def test_threads_racing_on_one_wallet_through_a_pool_smaller_than_the_threads_lose_and_create_nothing(bouncer):
    from tests.kit.accounts import make_player

    name = connection.settings_dict["NAME"]
    player = make_player()
    fund(player, czk(1000))
    outcomes: Counter[str] = Counter()
    failures: list[str] = []
    lock = threading.Lock()
    barrier = threading.Barrier(THREADS)

    def play(i: int) -> None:
        try:
            barrier.wait(timeout=20)
            for r in range(ROUNDS):
                try:
                    round_play(
                        player=player,
                        game_code="european_roulette",
                        idempotency_key=f"race-{i}-{r}",
                        bet=RED,
                        actor=Actor.player(player),
                    )
                    result = "settled"
                except DomainError as exc:
                    result = exc.code
                with lock:
                    outcomes[result] += 1
        except Exception as exc:  # noqa: BLE001 - a deadlock, a pool timeout or a lost session would land here
            with lock:
                failures.append(repr(exc))
        finally:
            connection.close()

    with use_rng(FixedRNG(0)):  # every red bet loses
        threads = [threading.Thread(target=play, args=(i,)) for i in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=180)
    from celery._state import _set_task_join_will_block  # type: ignore[attr-defined]  # not in the stubs

    _set_task_join_will_block(False)  # tests/test_races.py says why
    assert not failures, failures
    assert outcomes == Counter(settled=THREADS * ROUNDS), outcomes  # serialised on the wallet lock, none lost
    assert balance(player) == czk(1000) - Money(THREADS * ROUNDS * STAKE)
    assert _server_connections(bouncer, name) <= POOL  # the clients shared the pool's server connections
    call_command("ledger_check", verbosity=0)
    call_command("limits_reconcile", verbosity=0)
