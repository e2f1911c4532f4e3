"""Exactly once per (provider, transaction_id): a repeat with the same body gets the stored answer and moves nothing,
another body is 409 and a security event; wins before their bet, rollbacks of bets never seen (tombstones) and
rollbacks after a win; forged, stale and foreign calls refused."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from core.models import AuditEvent
from games.errors import REMOTE_ROLLBACK_AFTER_WIN, REMOTE_ROUND_VOIDED
from games.models import Round
from providers.errors import (
    DUPLICATE_TRANSACTION,
    INVALID_SIGNATURE,
    PROVIDER_DISABLED,
    PROVIDER_UNKNOWN,
    SOURCE_NOT_ALLOWED,
    TIMESTAMP_OUTSIDE_WINDOW,
    TRANSACTION_ROLLED_BACK,
    TRANSACTION_UNKNOWN,
)
from providers.models import ProviderTransaction
from providers.tests.test_api import bet, win
from providers.tests.test_rules import provider_refused
from tests.kit.providers import SignedClient
from wallet.models import LedgerTransaction
from wallet.selectors import balance

pytestmark = pytest.mark.django_db(databases=["default", "refusal_log"])  # security events: the side log


def test_a_repeated_bet_with_the_same_body_gets_the_same_answer_and_moves_nothing(player, signed, session, clock):
    first = bet(signed, session)
    postings = LedgerTransaction.objects.count()
    clock.shift(5)
    again = bet(signed, session)
    assert again.status_code == first.status_code == 200
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"
    assert LedgerTransaction.objects.count() == postings and balance(player).amount == 99_000


def test_the_same_transaction_id_with_another_body_is_refused_and_recorded_as_a_security_event(
    player, signed, session, clock
):
    assert bet(signed, session).status_code == 200
    r = bet(signed, session, amount=2_000)
    assert r.status_code == 409
    provider_refused(r, "RS_ERROR_DUPLICATE_TRANSACTION", DUPLICATE_TRANSACTION.code)
    assert AuditEvent.objects.using("refusal_log").filter(action="security.provider_duplicate_transaction").exists()
    assert balance(player).amount == 99_000


def test_a_refused_bet_repeated_gets_the_same_refusal(signed, session, clock):
    first = bet(signed, session, amount=1_000_000)
    assert first.status_code == 422 and first.json()["status"] == "RS_ERROR_LIMIT_REACHED"
    again = bet(signed, session, amount=1_000_000)
    assert again.json() == first.json() and again["Idempotent-Replayed"] == "true"


def test_a_win_before_its_bet_is_an_unknown_transaction_and_credited_when_retried_after_the_bet(
    player, signed, session, clock
):
    provider_refused(win(signed, session), "RS_ERROR_TRANSACTION_DOES_NOT_EXIST", TRANSACTION_UNKNOWN.code)
    assert not ProviderTransaction.objects.filter(kind="win").exists()  # nothing moved, nothing recorded
    assert bet(signed, session).status_code == 200
    again = win(signed, session)  # the provider retries the same win, same id and body, after the bet arrived
    assert again.status_code == 200 and again.json()["status"] == "RS_OK", again.json()
    assert ProviderTransaction.objects.filter(kind="win").count() == 1
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_a_rollback_of_a_bet_never_seen_answers_ok_and_the_late_bet_is_refused(player, signed, session, clock):
    r = signed.call(
        "rollback", {"session": session, "transaction_id": "rb1", "bet_transaction_id": "b1", "round_id": "r1"}
    )
    assert r.status_code == 200 and r.json()["status"] == "RS_OK" and r.json()["balance"]["amount"] == 100_000
    assert ProviderTransaction.objects.filter(transaction_id="b1", kind="tombstone").exists()
    late = bet(signed, session)
    assert late.status_code == 409
    provider_refused(late, "RS_ERROR_TRANSACTION_ROLLED_BACK", TRANSACTION_ROLLED_BACK.code)
    assert balance(player).amount == 100_000 and not Round.objects.filter(provider_round_id="r1").exists()


def test_a_rollback_returns_the_stake_and_voids_the_round(player, signed, session, clock):
    assert bet(signed, session).status_code == 200
    r = signed.call(
        "rollback", {"session": session, "transaction_id": "rb1", "bet_transaction_id": "b1", "round_id": "r1"}
    )
    assert r.status_code == 200 and r.json()["balance"]["amount"] == 100_000
    rnd = Round.objects.get(provider_round_id="r1")
    assert (rnd.status, rnd.void_reason) == (Round.Status.VOIDED, Round.VoidReason.PROVIDER)
    provider_refused(win(signed, session), "RS_ERROR_TRANSACTION_ROLLED_BACK", REMOTE_ROUND_VOIDED.code)
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_a_rollback_after_a_win_is_refused(player, signed, session, clock):
    assert bet(signed, session).status_code == 200
    assert win(signed, session, closed=False).status_code == 200
    r = signed.call(
        "rollback", {"session": session, "transaction_id": "rb1", "bet_transaction_id": "b1", "round_id": "r1"}
    )
    assert r.status_code == 409
    provider_refused(r, "RS_ERROR_ROLLBACK_AFTER_WIN", REMOTE_ROLLBACK_AFTER_WIN.code)
    assert balance(player).amount == 101_500


def test_a_forged_signature_is_refused_and_recorded(player, signed, session, clock):
    r = signed.call(
        "bet",
        {
            "session": session,
            "transaction_id": "b1",
            "round_id": "r1",
            "game": "wild",
            "amount": {"amount": 100, "currency": "CZK"},
        },
        secret="x" * 40,
    )
    assert r.status_code == 401
    provider_refused(r, "RS_ERROR_INVALID_SIGNATURE", INVALID_SIGNATURE.code)
    assert AuditEvent.objects.using("refusal_log").filter(action="security.provider_call_refused").exists()
    unsigned = signed.call("balance", {"session": session}, signed=False)
    assert unsigned.status_code == 401
    assert balance(player).amount == 100_000 and not ProviderTransaction.objects.filter(transaction_id="b1").exists()


def test_a_timestamp_outside_the_window_is_refused(signed, session, clock):
    from core import clock as platform_clock

    stale = int(platform_clock.now().timestamp()) - 301
    r = signed.call("balance", {"session": session}, timestamp=stale)
    assert r.status_code == 401
    provider_refused(r, "RS_ERROR_INVALID_SIGNATURE", TIMESTAMP_OUTSIDE_WINDOW.code)


def test_a_call_from_an_address_not_allowed_is_refused(signed, session, clock):
    foreign = SignedClient(signed.client, signed.provider, signed.secret, remote_addr="203.0.113.9")
    r = foreign.call("balance", {"session": session})
    assert r.status_code == 403
    provider_refused(r, "RS_ERROR_INVALID_PARTNER", SOURCE_NOT_ALLOWED.code)


def test_an_unknown_or_disabled_provider_is_refused(signed, session, provider, clock):
    other = SignedClient(signed.client, "nobody", signed.secret)
    provider_refused(other.call("balance", {"session": session}), "RS_ERROR_INVALID_PARTNER", PROVIDER_UNKNOWN.code)
    provider.enabled = False
    provider.save(update_fields=["enabled"])
    provider_refused(signed.call("balance", {"session": session}), "RS_ERROR_INVALID_PARTNER", PROVIDER_DISABLED.code)


@pytest.mark.parametrize("body", [b"", b"[]", b"{not json", b'{"session": 5}', b'{"session": "\\u0000"}'])
def test_bad_bodies_are_clear_refusals(signed, body, clock):
    r = signed.raw("balance", body)
    assert 400 <= r.status_code < 500 and r.json()["status"].startswith("RS_ERROR_"), r.content


def test_bad_amounts_are_refused_before_anything_moves(player, signed, session, clock):
    for amount, status in (
        ({"amount": 100, "currency": "EUR"}, "RS_ERROR_WRONG_CURRENCY"),
        ({"amount": "100", "currency": "CZK"}, "RS_ERROR_WRONG_TYPES"),
        ({"amount": -5, "currency": "CZK"}, "RS_ERROR_WRONG_SYNTAX"),
    ):
        r = signed.call(
            "bet",
            {"session": session, "transaction_id": f"t{status}", "round_id": "r1", "game": "wild", "amount": amount},
        )
        assert r.status_code == 400 and r.json()["status"] == status, r.content
    assert balance(player).amount == 100_000


def test_a_studios_accepted_calls_are_not_rate_limited_and_its_refused_ones_are(signed, session, clock, settings):
    """One studio's calls come from its listed addresses and carry all its players' rounds: accepted calls are not
    counted against a per-address rate (2,000 players make 120,000 calls a minute); refused calls from a source are
    throttled at ``callback_refused`` with Retry-After, as the wallet's callbacks are."""
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "callback": "3/min",
            "callback_refused": "2/min",
        },
    }
    for _ in range(10):  # more than any per-address rate would let through
        assert signed.call("balance", {"session": session}).status_code == 200
    forged = [signed.call("balance", {"session": session}, secret="x" * 40).status_code for _ in range(3)]
    assert forged == [401, 401, 429]
    throttled = signed.call("balance", {"session": session}, secret="x" * 40)
    assert throttled.status_code == 429 and int(throttled["Retry-After"]) >= 1
    cache.clear()


def test_a_studios_duplicate_retries_are_throttled_by_studio_and_outcome_never_its_other_calls(
    player, signed, session, clock, settings
):
    """Security review I-2: a studio retrying one transaction id with another body (e.g. a request id inside it) gets
    409, beyond the rate 429 for those retries only; its players' other calls go on (they are not counted per
    source)."""
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "callback_refused": "3/min"},
    }
    assert bet(signed, session).status_code == 200
    answers = [bet(signed, session, amount=1_000, request_id=f"attempt-{i}").status_code for i in range(6)]
    assert answers[:3] == [409, 409, 409] and set(answers[3:]) == {429}
    clock.shift(3)
    assert win(signed, session).status_code == 200  # the studio's other calls are not blocked
    clock.shift(3)
    assert bet(signed, session, txn="b2", rnd="r2").status_code == 200
    cache.clear()
