"""GP §5(13): staff close an account for evident misuse; the closure hands the balance to
``wallet.services.misuse_payout_start`` (the accounts hook ``misuse_payout_start``, fail-closed): paid to the last
registered method, or, with none, the person is invited to collect it at a branch within 15 days and then it is
sent by post. Once settled, the account closes (GP §5(15)). End to end through the staff admin."""

from datetime import timedelta

import pytest
import time_machine

from accounts import hooks
from accounts.models import Player
from accounts.services import closure_request, closures_finalize_due
from core.audit import Actor
from tests.kit.accounts import make_player, make_staff
from tests.kit.money import czk
from tests.kit.wallet import fund, ledger_clean, verified_bank
from wallet import selectors, services
from wallet.ledger import operator_balance
from wallet.models import Payout
from wallet.tasks import sweep

pytestmark = pytest.mark.django_db


def close_for_misuse(staff_client, player, settlement="branch_cash"):
    r = staff_client.post(
        f"/admin/accounts/player/{player.pk}/act/close/", {"settlement": settlement, "reason": "misuse"}
    )
    assert r.status_code == 302, r.content.decode()[:2000]
    return Player.objects.get(pk=player.pk)


def test_the_misuse_hook_is_declared_and_is_the_wallets_misuse_payout():
    assert hooks.misuse_payout_start in hooks.HOOKS
    assert hooks.misuse_payout_start.implementation is services.misuse_payout_start


def test_staff_close_for_misuse_and_the_balance_goes_to_the_last_registered_method(
    staff_client, django_capture_on_commit_callbacks
):
    p = make_player()
    verified_bank(p)
    last = verified_bank(p)  # the last registered method
    fund(p, czk(1234))
    with django_capture_on_commit_callbacks(execute=True):
        # the settlement staff pick does not matter: GP §5(13) names the last registered method
        closed = close_for_misuse(staff_client, p, settlement="branch_cash")
    assert closed.status == "closing" and closed.balance_handoff == "misuse"
    assert closed.balance_handoff_at is not None and closed.balance_handoff_error == ""
    payout = Payout.objects.get(player=p)
    assert (payout.kind, payout.method, payout.amount) == ("misuse", last, 123400)
    assert payout.status == "completed" and payout.paid == 123400  # the provider's callback confirmed it
    assert selectors.balance(p) == czk(0) and operator_balance("refunds_payable") == czk(0)
    assert selectors.closure_settled_at(p) is not None
    assert closures_finalize_due() == 1
    assert Player.objects.get(pk=p.pk).status == "closed"
    ledger_clean()


def test_without_a_registered_method_the_person_collects_at_a_branch_within_15_days_then_it_is_posted(
    staff_client, settings
):
    settings.WALLET_POSTAGE = 5000
    p = make_player()
    fund(p, czk(300))
    closed = close_for_misuse(staff_client, p, settlement="transfer")
    assert closed.status == "closing" and closed.balance_handoff_at is not None
    payout = Payout.objects.get(player=p)
    assert payout.kind == "misuse" and payout.method is None and payout.status == "invited"
    collect_by = payout.collect_by
    assert collect_by is not None and payout.invited_at is not None
    assert collect_by == payout.invited_at + timedelta(days=15)
    assert selectors.closure_settled_at(p) is None
    with time_machine.travel(collect_by - timedelta(seconds=1), tick=False):
        sweep()
    assert Payout.objects.get(pk=payout.pk).status == "invited"
    with time_machine.travel(collect_by, tick=False):
        sweep()
        payout.refresh_from_db()
        assert payout.status == "completed" and payout.channel == "post"
        assert (payout.paid, payout.postage) == (25000, 5000)
        assert closures_finalize_due() == 1
    assert Player.objects.get(pk=p.pk).status == "closed"
    ledger_clean()


def test_a_closure_for_another_reason_is_still_settled_as_the_player_chose():
    p = make_player()
    fund(p, czk(50))
    closure_request(player=p, method="branch_cash", actor=Actor.staff(make_staff()), reason="unpaid_debt")
    assert Player.objects.get(pk=p.pk).balance_handoff == "settlement"
    payout = Payout.objects.get(player=p)
    assert payout.kind == "closure" and payout.status == "invited"
    ledger_clean()
