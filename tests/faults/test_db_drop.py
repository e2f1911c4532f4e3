"""Fault suite: the database connection of a money-moving request dropped in the middle of its
transaction. The request is made to wait inside its transaction (this test holds the row lock of the player's
account that its posting needs, from another connection), its backend is found in ``pg_stat_activity`` (the one
blocked by this test's) and ended with ``pg_terminate_backend``, then the lock is released.

It proves, for a withdrawal (``@idempotent``: the idempotency record, the withdrawal row and the wallet lock are
already written or held when the connection drops) and for a real-money round (a round is its own idempotency
record: the wallet lock, the limits decision and the round's id are taken when it drops):
- the request fails cleanly: 503 ``server.unavailable`` with ``Retry-After``, the error shape, no traceback;
- nothing is half-done: no withdrawal or round, no posting, no idempotency record, no audit event, the balance
  unchanged;
- the retry with the same Idempotency-Key succeeds, once; a second retry is a replay that moves nothing;
- ``ledger_check`` and ``limits_reconcile`` are clean.
"""

from __future__ import annotations

import io
import threading
import time
from datetime import UTC, datetime

import pytest
import time_machine
from django.core.management import call_command
from django.db import connection, transaction

from core.errors import UNAVAILABLE
from core.sql import readable
from wallet import sql as wallet_sql

pytestmark = [pytest.mark.faults, pytest.mark.django_db(transaction=True)]

KEY = "drop-mid-transaction-1"
REQUESTS = {
    "withdrawal": ("/api/v1/wallet/withdrawals", "withdrawal_hold"),
    "round": ("/api/v1/games/rounds", "stake"),
}


def _blocked_by_me() -> list[tuple[int, bool, str]]:
    """(pid, inside a transaction, query) of the backends waiting for a lock this connection holds."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_stat_clear_snapshot()")  # a fresh view inside this transaction
        cur.execute("""SELECT pid, xact_start IS NOT NULL, LEFT(query, 120) FROM pg_stat_activity
                       WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))""")
        return list(cur.fetchall())


def _books_clean() -> None:
    out = io.StringIO()
    call_command("ledger_check", stdout=out)
    call_command("limits_reconcile", stdout=out)
    assert "ledger_check: OK" in out.getvalue() and "reconcile with the ledger" in out.getvalue(), out.getvalue()


@pytest.mark.parametrize("what", list(REQUESTS))
def test_a_connection_dropped_mid_transaction_fails_the_request_cleanly_and_its_retry_succeeds_once(what, settings):
    from rest_framework.test import APIClient

    from core.models import AuditEvent, IdempotencyRecord
    from games.models import Round
    from games.services import games_sync
    from tests.kit.accounts import make_player, token_for
    from tests.kit.money import czk
    from tests.kit.wallet import fund, verified_bank
    from wallet.ledger import operator_account, player_account
    from wallet.models import LedgerAccount, LedgerTransaction, Withdrawal
    from wallet.selectors import balance

    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # a test user: no Argon2
    path, posting = REQUESTS[what]
    with time_machine.travel(datetime(2026, 3, 10, 12, 0, tzinfo=UTC), tick=False):
        games_sync()
        operator_account("house")  # as after any first round (its first-use race: test_operator_account_first_use)
        player = make_player()
        fund(player, czk(1000))
        body = (
            {"method_id": verified_bank(player).pk, "amount": {"amount": 10000, "currency": "CZK"}}
            if what == "withdrawal"
            else {
                "game": "european_roulette",
                "bet": {"bets": [{"type": "red", "amount": {"amount": 100, "currency": "CZK"}}]},
            }
        )
        main = player_account(player.pk, LedgerAccount.Kind.PLAYER_MAIN)
        client = APIClient(raise_request_exception=False)
        client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
        audit_before = AuditEvent.objects.count()
        answers: list = []
        retry = threading.Event()

        def worker() -> None:
            """One web worker's thread and its database connection: the request, then (told to) its retries."""
            try:
                answers.append(client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY))
                if retry.wait(timeout=60):
                    for _ in range(2):  # the retry, and one more
                        answers.append(client.post(path, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY))
            finally:
                connection.close()

        request = threading.Thread(target=worker, daemon=True)
        with transaction.atomic():
            # Hold the lock of the player's live account: the request stops inside its transaction, in the one
            # statement that locks its wallet and live account (wallet.sql.LOCK_LIVE, ``OF w, a``).
            LedgerAccount.objects.select_for_update(no_key=True).get(pk=main.pk)
            request.start()
            deadline = time.monotonic() + 30
            while not _blocked_by_me() and time.monotonic() < deadline:
                time.sleep(0.02)
            blocked = _blocked_by_me()
            assert len(blocked) == 1, blocked
            pid, in_transaction, query = blocked[0]
            # (pg_stat_activity cuts a long statement; its start is enough to know it)
            # (or, prepared, its PREPARE text: core.sql.readable)
            assert in_transaction and readable(query)[:100] == wallet_sql.LOCK_LIVE.sql[:100], query
            with connection.cursor() as cur:
                cur.execute("SELECT pg_terminate_backend(%s)", [pid])
                assert cur.fetchone()[0] is True
        deadline = time.monotonic() + 30
        while not answers and time.monotonic() < deadline:
            time.sleep(0.02)

        # A clean failure: the platform's 503, retryable, in the error shape, no traceback.
        failed = answers[0]
        assert failed.status_code == 503, failed.content
        assert failed.json()["error"]["code"] == UNAVAILABLE.code and failed["Retry-After"].isdigit()
        assert b"Traceback" not in failed.content and b"psycopg" not in failed.content
        # Nothing half-done.
        assert (
            not Withdrawal.objects.filter(player=player).exists() and not Round.objects.filter(player=player).exists()
        )
        assert not LedgerTransaction.objects.filter(player=player, kind=posting).exists()
        assert not IdempotencyRecord.objects.filter(key=KEY).exists()
        assert AuditEvent.objects.count() == audit_before
        assert balance(player).amount == 100_000
        _books_clean()

        # The retry with the same key, on the same thread (the worker's connection is opened again), succeeds once;
        # one more is a replay that moves nothing.
        retry.set()
        request.join(timeout=60)
        assert not request.is_alive()
        retried, again = answers[1:]
        assert retried.status_code == 201, retried.json()
        assert again.status_code == 201 and again["Idempotent-Replayed"] == "true"
        assert again.json()["id"] == retried.json()["id"]
    made = Withdrawal.objects.filter(player=player) if what == "withdrawal" else Round.objects.filter(player=player)
    assert made.count() == 1
    assert LedgerTransaction.objects.filter(player=player, kind=posting).count() == 1
    moved = 10_000 if what == "withdrawal" else 100 - Round.objects.get(player=player).win
    assert balance(player).amount == 100_000 - moved
    _books_clean()
    print(
        f"\ndb drop ({what}): its backend terminated inside its transaction (waiting to post to the player's "
        f"account); answer 503 server.unavailable, Retry-After {failed['Retry-After']} s, nothing written; "
        f"the retry 201, a second retry replayed"
    )
