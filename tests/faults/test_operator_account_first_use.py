"""Fault suite: found by the web-kill test (its first run answered a round with a 500), fixed in
``wallet.ledger.post_with_operator`` (nothing is written while the operator row is invisible; the statement runs
once more). What went wrong:

The lean round path posts a stake in ONE statement (``wallet.ledger.post_with_operator``) that also creates the
operator account (``house``) on first use: a ``SELECT`` of the row and, when it is missing, ``INSERT ... ON CONFLICT
(code) DO NOTHING``. When another transaction creates the same account and commits while the statement waits on the
conflict, ``ON CONFLICT`` sees that row but the ``SELECT`` (the statement's snapshot, taken before the commit)
does not: the posting writes one entry instead of two and raises ``RuntimeError`` -> the player gets a 500 (the
transaction rolls back, so no money moves). It happens to the first concurrent stakes on a fresh platform and to
the first wins paid from a new operator account (``jackpot:awards``), and in every test database flushed between
transactional tests.

The race is made deterministic here: this test's own transaction creates ``house`` (through the wallet's
``operator_account``) and holds it uncommitted until the round's statement waits on it (``pg_stat_activity``),
then commits.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, transaction

from tests.kit.games import api_bet

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]


def _waiting_on_a_lock() -> list[int]:
    """Backends of the test database waiting on a lock (a fresh view: inside a transaction PostgreSQL would
    otherwise answer from the snapshot of the transaction's first look)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")
        cur.execute("""SELECT pid FROM pg_stat_activity WHERE datname = current_database()
                       AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'""")
        return [row[0] for row in cur.fetchall()]


def test_a_stake_racing_the_creation_of_the_house_account_is_played_not_a_500():
    from games.services import games_sync
    from tests.kit.clients import client_for
    from tests.kit.platform import RED_100, ROULETTE, funded_player
    from wallet.ledger import operator_account
    from wallet.models import LedgerAccount, LedgerTransaction

    games_sync()
    player = funded_player(10_000)
    assert not LedgerAccount.objects.filter(code="house").exists()  # a fresh platform: no stake posted yet
    c = client_for(player)
    answer: dict = {}

    def play() -> None:
        try:
            answer["response"] = c.post(
                "/api/v1/games/rounds",
                {"game": ROULETTE, "bet": api_bet(RED_100)},
                format="json",
                HTTP_IDEMPOTENCY_KEY="first-stake",
            )
        finally:
            connection.close()

    thread = threading.Thread(target=play)
    with transaction.atomic():
        operator_account("house")  # another transaction creates the account first, not yet committed
        thread.start()
        deadline = time.monotonic() + 20
        while not _waiting_on_a_lock() and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _waiting_on_a_lock(), "the round never waited on the account's creation"
    thread.join(timeout=30)
    response = answer["response"]
    assert response.status_code == 201, response.json()
    assert LedgerTransaction.objects.filter(player=player, kind=LedgerTransaction.Kind.STAKE).count() == 1
