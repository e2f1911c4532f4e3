"""The sandbox provider refuses payouts to its published test instruments (a card ending in 0002, the account
9999999999/0800), as card and bank sandboxes publish declining test cards and accounts, with the normal settings
(``WALLET_SANDBOX_PAYOUT_OUTCOME=succeeded``): a refund to such a card stops and waits for finance, one to any other
card is sent. The global switch stays for tests that want every payout refused."""

import pytest

from core.audit import Actor
from core.money import Money
from tests.kit.accounts import make_player
from tests.kit.money import czk
from tests.kit.wallet import bank, pay_deposit, ref
from wallet import adapters
from wallet.adapters import SandboxProvider
from wallet.models import Payout
from wallet.services import deposit_start, payment_method_register

pytestmark = pytest.mark.django_db

STRANGER = {"name": "Petr Svoboda", "birth_date": "1970-01-01"}


def card(player, last4: str, token: str):
    return payment_method_register(
        player=player,
        kind="card",
        actor=Actor.player(player),
        data={"card_token": token, "card_masked": f"**** **** **** {last4}"},
    )


@pytest.mark.parametrize(
    "kind, value, refused",
    [
        ("card", adapters.SANDBOX_REFUSING_CARD_LAST4, True),
        ("card", "0005", False),
        ("bank_account", adapters.SANDBOX_REFUSING_ACCOUNT, True),
        ("bank_account", "9999999980/0800", False),
    ],
)
def test_the_sandbox_refuses_a_payout_to_its_test_instruments_only(settings, kind, value, refused):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "succeeded"
    player = make_player()
    method = card(player, value, f"tok_{value}") if kind == "card" else bank(player, value)
    sent: list[tuple[bytes, str]] = []
    result = SandboxProvider(outbox=lambda body, sig: sent.append((body, sig))).send_payout(
        reference=ref("po"), method=method, amount=Money(100)
    )
    assert result.accepted is not refused and len(sent) == (0 if refused else 1)
    assert ("refuses payouts" in result.reason) is refused


def test_a_refund_to_the_declining_test_card_stops_for_finance_and_one_to_another_card_is_sent(
    settings, django_capture_on_commit_callbacks
):
    settings.WALLET_SANDBOX_PAYOUT_OUTCOME = "succeeded"  # the default: the rule alone refuses
    statuses = {}
    for last4 in (adapters.SANDBOX_REFUSING_CARD_LAST4, "4242"):
        player = make_player()
        method = card(player, last4, f"tok_refund_{last4}")
        deposit = deposit_start(
            player=player, method=method, amount=czk(250), reference=ref("dep"), actor=Actor.player(player)
        )
        with django_capture_on_commit_callbacks(execute=True):
            pay_deposit(deposit, payer=STRANGER)
        payout = Payout.objects.get(player=player, kind=Payout.Kind.DEPOSIT_REFUSED)
        statuses[last4] = payout.status
    assert statuses == {adapters.SANDBOX_REFUSING_CARD_LAST4: Payout.Status.STOPPED, "4242": Payout.Status.COMPLETED}
