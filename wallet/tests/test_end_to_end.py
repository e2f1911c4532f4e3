"""A new player's money, tried through the API alone (real commits, Celery tasks run after commit):

register a bank account -> deposit through the sandbox provider (its signed callback verifies the method,
GP §5(8)a) -> a 3,000.01 CZK total on the temporary account is refused (GP §5(2)b, §5(12)) -> a withdrawal
from it is refused (GP §5(2)c) -> registration completes (GP §5(2)d) and the balance moves -> withdrawal to
the verified method -> the deposit callback replayed changes nothing -> ledger_check is clean.
"""

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from core.audit import Actor
from tests.kit.accounts import make_player, token_for
from wallet.adapters import SIGNATURE_HEADER, hmac_signature
from wallet.errors import TEMPORARY_DEPOSIT_CAP, TEMPORARY_NO_WITHDRAWAL
from wallet.models import Deposit, LedgerTransaction, ProviderEvent

API = "/api/v1/wallet"


@pytest.mark.django_db(transaction=True)
def test_a_new_player_deposits_is_capped_converts_withdraws_and_the_ledger_stays_exact(settings):
    from wallet import rules
    from wallet.services import wallet_convert_temporary

    player = make_player(status="temporary")
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    key = iter(range(1, 100))

    def post(url, data=None):
        return c.post(f"{API}/{url}", data or {}, format="json", HTTP_IDEMPOTENCY_KEY=f"e2e-{next(key)}")

    def overview():
        return c.get(f"{API}/overview").json()

    # 1. register a bank account (GP §5(6), §5(7))
    r = post("payment-methods", {"kind": "bank_account", "account_number": "19-2000145399/0800"})
    assert r.status_code == 201, r.content
    method = r.json()
    assert method["status"] == "pending" and not method["registered"]
    assert overview()["payment_method"]["deadline"] is not None  # GP §5(9)

    # 2. deposit 2,000 CZK through the sandbox: payment instructions, then the provider's signed callback
    r = post("deposits", {"method_id": method["id"], "amount": {"amount": 200000, "currency": "CZK"}})
    assert r.status_code == 201, r.content
    dep = r.json()
    assert dep["status"] == "initiated" and dep["instructions"]["variable_symbol"] == dep["payment_reference"]
    assert overview()["balance"]["amount"] == 0
    r = post(f"sandbox/deposits/{dep['id']}/pay", {"outcome": "succeeded"})
    assert r.status_code == 202, r.content
    assert c.get(f"{API}/deposits/{dep['id']}").json()["status"] == "confirmed"
    ov = overview()
    assert ov["account"] == "temporary" and ov["balance"]["amount"] == 200000
    assert ov["payment_method"]["has_verified"] is True and ov["payment_method"]["deadline"] is None
    assert c.get(f"{API}/payment-methods/{method['id']}").json()["verified_by"] == "first_payment"

    # 3. a 3,000.01 CZK total is refused, clearly, and nothing changes; 3,000.00 passes
    before = (Deposit.objects.count(), LedgerTransaction.objects.count())
    r = post("deposits", {"method_id": method["id"], "amount": {"amount": 100001, "currency": "CZK"}})
    assert r.status_code == 409 and r.json()["error"]["code"] == TEMPORARY_DEPOSIT_CAP.code
    err = r.json()["error"]
    assert err["details"]["cap"]["amount"] == rules.temp_deposit_cap() == 300000
    assert err["details"]["remaining"]["amount"] == 100000 and err["details"]["requested"]["amount"] == 100001
    assert (Deposit.objects.count(), LedgerTransaction.objects.count()) == before
    dep2 = post("deposits", {"method_id": method["id"], "amount": {"amount": 100000, "currency": "CZK"}}).json()
    assert post(f"sandbox/deposits/{dep2['id']}/pay").status_code == 202
    ov = overview()
    assert ov["balance"]["amount"] == 300000 and ov["temporary_deposits"]["remaining"]["amount"] == 0

    # 4. nothing is withdrawn from a temporary account
    r = post("withdrawals", {"method_id": method["id"], "amount": {"amount": 50000, "currency": "CZK"}})
    assert r.status_code == 409 and r.json()["error"]["code"] == TEMPORARY_NO_WITHDRAWAL.code
    assert overview()["balance"]["amount"] == 300000 and not c.get(f"{API}/withdrawals").json()["count"]

    # 5. registration completes: the temporary balance moves to the player account (GP §5(2)d, §5(5))
    wallet_convert_temporary(player=player, actor=Actor.system("accounts.registration_complete"))
    player.status = "active"
    player.save(update_fields=["status"])
    ov = overview()
    assert ov["account"] == "full" and ov["balance"]["amount"] == 300000 and ov["temporary_deposits"] is None

    # 6. withdraw to the verified method: held at once, sent and confirmed by the sandbox after commit
    r = post("withdrawals", {"method_id": method["id"], "amount": {"amount": 120000, "currency": "CZK"}})
    assert r.status_code == 201, r.content
    w = c.get(f"{API}/withdrawals/{r.json()['id']}").json()
    assert w["status"] == "confirmed" and w["amount"]["amount"] == 120000
    ov = overview()
    assert ov["balance"]["amount"] == 180000 and ov["held"]["amount"] == 0

    # 7. the first deposit's callback replayed (same bytes, same signature): nothing changes
    event = ProviderEvent.objects.filter(event_type="payment.succeeded").order_by("pk").first()
    assert event is not None
    raw = event.raw_body.encode()
    counts = (LedgerTransaction.objects.count(), ProviderEvent.objects.count())
    anon = APIClient(raise_request_exception=False)
    r = anon.post(
        f"{API}/callbacks/sandbox",
        raw,
        content_type="application/json",
        headers={SIGNATURE_HEADER: hmac_signature(settings.WALLET_SANDBOX_SECRET, raw)},
    )
    assert r.status_code == 200 and r.json() == {
        "status": "duplicate",
        "event_id": event.provider_txn_id,
        "result": "confirmed",
    }
    assert (LedgerTransaction.objects.count(), ProviderEvent.objects.count()) == counts
    assert overview()["balance"]["amount"] == 180000

    # 8. the statement tells the story; the ledger proves it
    lines = c.get(f"{API}/statement").json()["results"]
    assert [(x["category"], x["account"], x["amount"]["amount"]) for x in lines] == [
        ("deposit", "temporary", 200000),
        ("deposit", "temporary", 100000),
        ("transfer", "temporary", -300000),
        ("transfer", "player", 300000),
        ("withdrawal", "player", -120000),
        ("withdrawal", "held", 120000),
        ("withdrawal", "held", -120000),
    ]
    call_command("ledger_check", verbosity=0)
