"""Benchmark: the import of one camt.053 statement with many credits (prints the figures; never asserts a time).

    BANK_BENCH_CREDITS=10000 .venv/bin/python -m pytest -q -s -p no:cacheprovider -m slow \
        wallet/tests/test_bank_bench.py

Of the credits, 80 % pay an open deposit from the player's registered account (credited), 10 % pay one from another
person's account (refused, returned to that account, GP §5(6)) and 10 % name no deposit (the staff queue). Without the
variable the test imports 300 credits, so CI proves that it runs. The same file is imported a second time (nothing
changes)."""

from __future__ import annotations

import os
import time
from datetime import timedelta

import pytest

from core import clock
from tests.kit.accounts import make_player
from tests.kit.wallet import SYSTEM, bank, bank_number, ledger_clean
from wallet import selectors
from wallet.models import BankEntry, Deposit, PaymentMethod, Payout
from wallet.services import bank_statement_import
from wallet.tests.bankfiles import OPERATOR_IBAN, OPERATOR_NAME, Tx, camt

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def test_import_of_a_statement_with_many_credits_prints_time_matched_returned_unmatched(
    settings, django_capture_on_commit_callbacks
):
    settings.WALLET_PROVIDER_BY_KIND = {"bank_account": "bank"}
    settings.WALLET_BANK_IBAN = OPERATOR_IBAN
    settings.WALLET_BANK_ACCOUNT_NAME = OPERATOR_NAME
    credits = int(os.environ.get("BANK_BENCH_CREDITS", "300"))
    players = max(2, credits // 50)
    setup_started = time.monotonic()
    people = []
    for _ in range(players):
        p = make_player()
        identity = selectors.player_identity(p)
        assert identity is not None
        people.append((p, bank(p), f"{identity.given_names} {identity.surname}"))
    from wallet.methods import czech_account_iban

    strangers = [czech_account_iban(bank_number("0100")) for _ in range(20)]
    now = clock.now()
    deposits, txs = [], []
    paying = set()  # the players who pay from their own account at least once: their method is verified
    for i in range(credits):
        p, method, name = people[i % players]
        amount = 10_000 + (i * 7919) % 99_999  # 100.00-1099.98 CZK, every haléř value
        kind = "own" if i % 10 < 8 else ("stranger" if i % 10 == 8 else "unmatched")
        vs = f"{1_000_000_000 + i}"
        if kind == "own":
            paying.add(p.pk)
        if kind != "unmatched":
            deposits.append(
                Deposit(
                    player=p,
                    method=method,
                    provider="bank",
                    amount=amount,
                    into_temporary=False,
                    payment_reference=vs,
                    idempotency_reference=f"bench:{i}",
                    created_at=now,
                    expires_at=now + timedelta(hours=24),
                )
            )
        txs.append(
            Tx(
                f"{amount // 100}.{amount % 100:02d}",
                vs=vs if kind != "unmatched" else f"{9_000_000_000 + i}",
                vs_in=("strd", "ustrd", "e2e")[i % 3],
                name=name if kind == "own" else "Petr Svoboda",
                iban=method.iban if kind == "own" else strangers[i % len(strangers)],
            )
        )
    Deposit.objects.bulk_create(deposits, batch_size=2000)
    raw = camt(txs)
    setup_seconds = time.monotonic() - setup_started

    started = time.monotonic()
    with django_capture_on_commit_callbacks() as after_commit:
        _stmt, summary = bank_statement_import(raw=raw, name="bench.xml", actor=SYSTEM)
    seconds = time.monotonic() - started
    sends_started = time.monotonic()  # the returns' payouts, which Celery workers send after the import commits
    for callback in after_commit:
        callback()
    sends_seconds = time.monotonic() - sends_started
    again_started = time.monotonic()
    _stmt2, again = bank_statement_import(raw=raw, name="bench.xml", actor=SYSTEM)
    again_seconds = time.monotonic() - again_started

    by = summary["by_status"]
    matched = by.get("confirmed", 0)
    returned = by.get("refused", 0) + by.get("returned", 0)
    unmatched = by.get("unmatched", 0)
    print(
        f"\nbank statement import: {credits} credits in one camt.053.001.02 file of {len(raw) / 1e6:.1f} MB "
        f"({players} players; setup {setup_seconds:.1f} s)"
    )
    print(
        f"  import: {seconds:.1f} s = {credits / seconds:.0f} credits/s; matched {matched}, "
        f"returned {returned} (refused {by.get('refused', 0)}, GP §5(6)), unmatched {unmatched}"
    )
    print(
        f"  then the {len(after_commit)} tasks queued after commit (the returns' payouts into the "
        f"payment-order outbox, the refusal notices' e-mails): {sends_seconds:.1f} s"
    )
    print(f"  re-import of the same file: {again_seconds:.1f} s, {again['this_run']}")
    assert summary["credits"] == credits and matched + returned + unmatched == credits
    assert again["this_run"] == {"duplicate": credits}
    assert Payout.objects.filter(kind=Payout.Kind.DEPOSIT_REFUSED).count() == by.get("refused", 0)
    assert BankEntry.objects.count() == credits
    assert PaymentMethod.objects.filter(status=PaymentMethod.Status.VERIFIED).count() == len(paying)
    ledger_clean()
