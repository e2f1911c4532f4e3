"""Many deposits, withdrawals, stakes, wins and callback replays on ONE player at once, on real transactions
(threads, each with its own connection): nothing overdraws, no money is lost or made, each callback and
reference counts once; then ``manage.py ledger_check`` proves every balance."""

import threading

import pytest
from django.core.management import call_command
from django.db import connection

from core.audit import Actor
from core.errors import DomainError
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, fund, verified_bank
from wallet import selectors
from wallet.adapters import sandbox_event
from wallet.errors import INSUFFICIENT_FUNDS
from wallet.ledger import operator_balance
from wallet.models import Deposit, LedgerTransaction, Withdrawal
from wallet.services import (
    deposit_start,
    provider_callback_handle,
    stake_debit,
    win_credit,
    withdrawal_request,
)
from wallet.services.sandbox import default_sandbox_payer

THREADS = 6
ROUNDS = 5


def run_threads(worker, n):
    barrier = threading.Barrier(n)
    errors: list[BaseException] = []

    def wrap(i):
        try:
            barrier.wait(timeout=10)
            worker(i)
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
def test_parallel_money_calls_on_one_player_never_overdraw_nor_lose_or_create_money():
    player = make_player()
    method = verified_bank(player)
    fund(player, czk(300), reference="start")
    deposits = [
        deposit_start(player=player, method=method, amount=czk(40), reference=f"dep-{i}", actor=Actor.player(player))
        for i in range(THREADS)
    ]
    payer = default_sandbox_payer(player)  # the player pays (another person's payment is refused, GP §5(6))
    outcome = {"stake_ok": 0, "stake_refused": 0, "withdrawal_ok": 0, "withdrawal_refused": 0, "win": 0}
    lock = threading.Lock()

    def count(key):
        with lock:
            outcome[key] += 1

    def worker(i):
        d = deposits[i]
        body, sig = sandbox_event("payment.succeeded", d.payment_reference, d.amount, event_id=f"evt-{i}", payer=payer)
        for r in range(ROUNDS):
            try:
                stake_debit(player=player, amount=czk(25), reference=f"stake-{i}-{r}", actor=SYSTEM)
                count("stake_ok")
            except DomainError as exc:
                assert exc.code == INSUFFICIENT_FUNDS.code, exc.code
                count("stake_refused")
            # the same stake reference from every thread: posted once
            try:
                stake_debit(player=player, amount=czk(1), reference="shared-ref", actor=SYSTEM)
            except DomainError as exc:
                assert exc.code == INSUFFICIENT_FUNDS.code, exc.code
            if r % 2 == 0:
                try:
                    withdrawal_request(
                        player=player,
                        method=method,
                        amount=czk(100),
                        reference=f"w-{i}-{r}",
                        actor=Actor.player(player),
                    )
                    count("withdrawal_ok")
                except DomainError as exc:
                    assert exc.code == INSUFFICIENT_FUNDS.code, exc.code
                    count("withdrawal_refused")
            if r == 1:
                win_credit(player=player, amount=czk(10), reference=f"win-{i}", actor=SYSTEM)
                count("win")
            if r in (2, 3):  # each deposit's callback arrives twice (and another thread replays it too)
                provider_callback_handle(provider="sandbox", raw_body=body, signature=sig)
                other = deposits[(i + 1) % THREADS]
                b2, s2 = sandbox_event(
                    "payment.succeeded",
                    other.payment_reference,
                    other.amount,
                    event_id=f"evt-{(i + 1) % THREADS}",
                    payer=payer,
                )
                provider_callback_handle(provider="sandbox", raw_body=b2, signature=s2)

    run_threads(worker, THREADS)

    player.refresh_from_db()
    shared = LedgerTransaction.objects.filter(kind="stake", reference="shared-ref").count()
    assert shared == 1
    assert Deposit.objects.filter(player=player, status="confirmed").count() == THREADS
    assert LedgerTransaction.objects.filter(kind="deposit").count() == THREADS
    sent = Withdrawal.objects.filter(player=player, status="confirmed").count()
    assert sent == outcome["withdrawal_ok"]
    expected = (
        30000
        + THREADS * 4000
        + outcome["win"] * 1000
        - outcome["stake_ok"] * 2500
        - 100 * shared
        - outcome["withdrawal_ok"] * 10000
    )
    assert selectors.balance(player).amount == expected >= 0
    assert selectors.held_balance(player).amount == 0
    assert outcome["stake_ok"] + outcome["stake_refused"] == THREADS * ROUNDS
    # money is neither lost nor made: the operator side mirrors the player side
    assert (
        operator_balance("house") + operator_balance("adjustments") + operator_balance("clearing:sandbox")
    ).amount == -expected
    call_command("ledger_check", verbosity=0)
