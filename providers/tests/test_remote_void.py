"""A settled round of a remote game declared void by staff (GP §3(6)), a remote round in progress refunded by staff,
and a remote round past its deadline, with the round's wins held (GP §10(3)).

A remote round's wins are credited one posting per call (``games:round:<id>:win:<seq>``, games/services/remote.py),
so a hold names one of them: the void takes every win of the round back, from the hold first where one is held,
then from the live balance, and a debt only for what the player no longer has (GP §7(7)); the limits and the
jackpots are reversed as for an engine round; the provider is not told (its round stands as it played it, and its
daily report still matches). Staff act as they do: the admin action and the compliance staff API (the helpers of
games/tests/platform/test_void_settled.py). ``ledger_check``, ``limits_reconcile`` and ``jackpot_check`` after each.
"""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from core.audit import Actor
from core.errors import DomainError
from core.models import AuditEvent
from games.errors import ROUND_ALREADY_VOIDED, ROUND_NOT_REFUNDABLE
from games.models import Round
from games.services import round_refund, round_void_settled, rounds_expire_due
from games.services.remote import remote_win_references
from games.tests.platform.test_void_settled import _books_clean, _hold_through_compliance, _pool_value, _void_in_admin
from limits.models import SettledBet
from providers.tests.test_api import bet, win
from tests.kit.accounts import make_player
from tests.kit.money import api_money
from tests.kit.providers import SECRET, ProviderServer, open_session
from tests.kit.wallet import fund
from wallet.errors import DEBT_OUTSTANDING
from wallet.models import Debt, Entry, LedgerTransaction, WinDeduction, WinHold
from wallet.selectors import balance, held_balance

pytestmark = pytest.mark.django_db

STAFF = Actor.system("test")


@pytest.fixture
def told(monkeypatch):
    """Every notice the platform enqueues for a provider (``providers.round_cancelled``), in order."""
    from providers.tasks import round_cancelled_notify

    calls: list[tuple[Any, ...]] = []
    monkeypatch.setattr(round_cancelled_notify, "delay", lambda *args: calls.append(args))
    return calls


def _two_wins(
    signed: Any, session: str, clock: Any, rnd: str = "r1", txn: str = "b1", stake: int = 1_000, jackpot: int = 0
) -> Round:
    """A remote round: the bet, a win of 25.00 (round open), a win of 15.00 closing it (and a jackpot win)."""
    clock.shift(3)  # GP §7(9)
    assert bet(signed, session, txn, rnd, amount=stake).status_code == 200
    assert win(signed, session, f"{txn}-w1", txn, rnd, amount=2_500, closed=False).status_code == 200
    assert win(signed, session, f"{txn}-w2", txn, rnd, amount=1_500, closed=True).status_code == 200
    played = Round.objects.get(provider_round_id=rnd)
    assert (played.status, played.stake, played.win) == (Round.Status.FINISHED, stake, 4_000 + jackpot)
    return played


def _wins(rnd: Round) -> tuple[str, str]:
    first, second = remote_win_references(rnd)
    assert (first, second) == (f"games:round:{rnd.pk}:win:1", f"games:round:{rnd.pk}:win:2")
    # each is the win posting the provider's call made, with its amount
    assert dict(LedgerTransaction.objects.filter(reference__in=[first, second]).values_list("reference", "amount")) == {
        first: 2_500,
        second: 1_500,
    }
    return first, second


def _deduction_legs(player: Any) -> set[tuple[str, int]]:
    deduction = WinDeduction.objects.get(player=player)
    assert deduction.amount == 4_000
    return {(e.account.kind, e.amount) for e in Entry.objects.filter(transaction=deduction.transaction) if e.amount}


def _limits_reversed(rnd: Round) -> None:
    bet_row = SettledBet.objects.get(round_ref=f"games:round:{rnd.pk}:bet")
    assert bet_row.voided and (bet_row.stake, bet_row.win) == (rnd.stake, 4_000)
    event = AuditEvent.objects.get(action="games.round_voided_settled", object_id=str(rnd.pk))
    assert event.details["limits_counters"] == "reversed"


def test_a_void_remote_round_without_a_hold_gives_the_stake_back_and_takes_every_win_and_the_provider_is_not_told(
    player, provider, signed, session, clock, client, told, django_capture_on_commit_callbacks
):
    from providers.reconciliation import reconciliation_run

    rnd = _two_wins(signed, session, clock)
    _wins(rnd)
    assert balance(player).amount == 103_000
    with django_capture_on_commit_callbacks(execute=True):
        _void_in_admin(client, rnd.pk)
    assert (balance(player).amount, held_balance(player).amount) == (100_000, 0)  # as if never played
    assert _deduction_legs(player) == {("player_main", -4_000), ("house", 4_000)}
    assert not Debt.objects.filter(player=player).exists()
    rnd.refresh_from_db()
    assert (rnd.status, rnd.void_reason, rnd.stake, rnd.win) == ("voided", "proxy", 1_000, 4_000)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_reclaimed"], event.details["win_from_hold"], event.details["debt"]) == (4_000, 0, 0)
    _limits_reversed(rnd)
    assert told == []  # the provider's round stands: no round-cancelled for a settled round
    # and its daily report still matches the platform's transactions: nothing to reconcile
    report = {
        "day": "2026-03-02",
        "transactions": [
            {"transaction_id": "b1", "type": "bet", "round_id": "r1", "amount": api_money(1_000)},
            {"transaction_id": "b1-w1", "type": "win", "round_id": "r1", "amount": api_money(2_500)},
            {"transaction_id": "b1-w2", "type": "win", "round_id": "r1", "amount": api_money(1_500)},
        ],
    }
    with ProviderServer(SECRET, answer=lambda op, body: (200, report)) as server:
        provider.api_url = server.url
        provider.save(update_fields=["api_url"])
        assert reconciliation_run(provider=provider, day=date(2026, 3, 2))["opened"] == 0
    assert [c[0] for c in server.calls] == ["round-report"]
    _books_clean()
    # a second void is refused and tells nobody either
    with pytest.raises(DomainError) as exc, django_capture_on_commit_callbacks(execute=True):
        round_void_settled(round_id=rnd.pk, reason="again", actor=STAFF)
    assert exc.value.code == ROUND_ALREADY_VOIDED.code and told == []
    assert balance(player).amount == 100_000


def test_one_of_two_wins_held_is_taken_from_the_hold_the_other_from_the_balance(
    player, signed, session, clock, client, told, django_capture_on_commit_callbacks
):
    rnd = _two_wins(signed, session, clock)
    _first, second = _wins(rnd)
    hold_id = _hold_through_compliance(player, rnd.pk, win_reference=second)
    assert (balance(player).amount, held_balance(player).amount) == (101_500, 1_500)
    with django_capture_on_commit_callbacks(execute=True):
        _void_in_admin(client, rnd.pk)
    assert (balance(player).amount, held_balance(player).amount) == (100_000, 0)
    assert _deduction_legs(player) == {("player_main", -2_500), ("player_held", -1_500), ("house", 4_000)}
    hold = WinHold.objects.get(pk=hold_id)
    assert hold.status == "forfeited" and hold.note == f"taken back by the deduction games:round:{rnd.pk}:void:win"
    assert not Debt.objects.filter(player=player).exists()
    deduction = WinDeduction.objects.get(player=player)
    assert "pozdrženo" in deduction.notice_text and "was held" in deduction.notice_text
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_from_hold"], event.details["debt"]) == (1_500, 0)
    assert set(remote_win_references(rnd)) <= set(event.details["win_references"])
    _limits_reversed(rnd)
    assert told == []
    _books_clean()


def test_both_wins_held_come_from_the_holds_and_the_balance_gives_nothing(player, signed, session, clock, client):
    rnd = _two_wins(signed, session, clock)
    first, second = _wins(rnd)
    holds = [_hold_through_compliance(player, rnd.pk, win_reference=ref) for ref in (first, second)]
    assert (balance(player).amount, held_balance(player).amount) == (99_000, 4_000)
    _void_in_admin(client, rnd.pk)
    assert (balance(player).amount, held_balance(player).amount) == (100_000, 0)  # the stake back, nothing more
    assert _deduction_legs(player) == {("player_held", -4_000), ("house", 4_000)}  # the live account gave nothing
    assert sorted(WinHold.objects.filter(pk__in=holds).values_list("status", flat=True)) == ["forfeited"] * 2
    assert not Debt.objects.filter(player=player).exists()
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_from_hold"], event.details["debt"]) == (4_000, 0)
    _limits_reversed(rnd)
    _books_clean()


def test_a_player_who_spent_part_of_the_wins_owes_exactly_the_rest_never_the_held_part(
    provider, game, signed, clock, client
):
    """10.00 CZK: the 10.00 bet wins 25.00 + 15.00 (40.00), the 15.00 held; 20.00 lost in the next round (5.00 left).
    The void: +10.00 stake, the 40.00 taken: 15.00 from the hold, 25.00 from the balance (15.00): -10.00, the debt
    of exactly the money the player spent and no longer has (without the void bet, 10.00 - 20.00)."""
    player = make_player()
    fund(player, 1_000)
    session = open_session(player, signed)
    rnd = _two_wins(signed, session, clock)
    _first, second = _wins(rnd)
    _hold_through_compliance(player, rnd.pk, win_reference=second)
    clock.shift(3)
    assert bet(signed, session, "b2", "r2", amount=2_000, closed=True).status_code == 200  # a losing round
    assert (balance(player).amount, held_balance(player).amount) == (500, 1_500)
    round_void_settled(round_id=rnd.pk, reason="placed by proxy", actor=STAFF)
    assert (balance(player).amount, held_balance(player).amount) == (-1_000, 0)
    debt = Debt.objects.get(player=player)
    assert (debt.amount, debt.outstanding, debt.status) == (1_000, 1_000, "open")
    assert _deduction_legs(player) == {("player_main", -2_500), ("player_held", -1_500), ("house", 4_000)}
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_from_hold"], event.details["balance_after"], event.details["debt"]) == (
        1_500,
        -1_000,
        1_000,
    )
    _limits_reversed(rnd)
    # GP §7(7): no stake until the debt is paid (the provider's next bet is refused)
    clock.shift(3)
    refused = bet(signed, session, "b3", "r3", amount=10)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == DEBT_OUTSTANDING.code
    _books_clean()


def test_a_void_remote_round_with_a_jackpot_award_returns_it_to_its_pool_and_a_held_win_from_the_hold(
    player, signed, session, clock
):
    """The jackpots as for an engine round: the remote bet's contribution reversed, the award it paid back to its
    pool whole; a win of the provider held comes from the hold."""
    from jackpots.models import MICRO, Award
    from jackpots.tests.helpers import central_level, contributions

    central_level("central-bronze", rate_ppm=50_000, reset_value=1_000, win_from=1_000, win_to=1_000)
    rnd = _two_wins(signed, session, clock, jackpot=1_000)  # the 10.00 bet crosses the must-hit value at once
    award = Award.objects.get(round_id=rnd.pk)
    rnd.refresh_from_db()
    assert (award.status, award.paid, rnd.jackpot_win, rnd.win) == ("paid", 1_000, 1_000, 5_000)
    _first, second = remote_win_references(rnd)
    _hold_through_compliance(player, rnd.pk, win_reference=second)
    assert (balance(player).amount, held_balance(player).amount) == (102_500, 1_500)
    before = _pool_value("central-bronze")
    round_void_settled(round_id=rnd.pk, reason="proxy", actor=STAFF)
    assert (balance(player).amount, held_balance(player).amount) == (100_000, 0)
    assert not Debt.objects.filter(player=player).exists()
    assert sorted(r.active_micro for r in contributions(round_id=rnd.pk)) == [-50 * MICRO, 50 * MICRO]
    assert _pool_value("central-bronze") == before + (1_000 - 50) * MICRO
    award.refresh_from_db()
    assert (award.status, award.returned) == ("reversed", 1_000)
    event = AuditEvent.objects.get(action="games.round_voided_settled")
    assert (event.details["win_reclaimed"], event.details["win_from_hold"]) == (5_000, 1_500)
    assert event.details["jackpot_win_returned_to_pools"] == 1_000
    _books_clean()


# A remote round in progress: the deadline and a staff refund ----------------------------------------------------------


def test_a_held_win_of_a_remote_round_settled_at_its_deadline_stays_held_and_a_later_void_takes_it(
    player, signed, session, clock, told, django_capture_on_commit_callbacks
):
    """The builder's decision: a remote round with a credited win is settled at its deadline (GP §7(8)b) with the
    wins credited, not voided. The hold placed while it was open is untouched by the settlement (still held, the
    balance unchanged, no second credit); a later void takes the held win from the hold and tells the provider
    nothing."""
    assert bet(signed, session).status_code == 200
    assert win(signed, session, closed=False).status_code == 200  # 25.00, the round stays open
    rnd = Round.objects.get(provider_round_id="r1")
    (ref,) = remote_win_references(rnd)
    hold_id = _hold_through_compliance(player, rnd.pk, win_reference=ref)
    assert (balance(player).amount, held_balance(player).amount) == (99_000, 2_500)
    clock.shift(91 * 86400)
    with django_capture_on_commit_callbacks(execute=True):
        assert rounds_expire_due()["ended"] == 1
    rnd.refresh_from_db()
    assert (rnd.status, rnd.win, rnd.void_reason) == (Round.Status.FINISHED, 2_500, "")
    assert (balance(player).amount, held_balance(player).amount) == (99_000, 2_500)
    assert WinHold.objects.get(pk=hold_id).status in ("held", "escalated")
    told.clear()  # whatever the settlement at the deadline told the provider is the deadline's, not the void's
    assert not LedgerTransaction.objects.filter(reference=f"games:round:{rnd.pk}:win").exists()  # no second credit
    _books_clean()
    with django_capture_on_commit_callbacks(execute=True):
        round_void_settled(round_id=rnd.pk, reason="placed by proxy", actor=STAFF)
    assert (balance(player).amount, held_balance(player).amount) == (100_000, 0)
    assert WinHold.objects.get(pk=hold_id).status == "forfeited" and not Debt.objects.filter(player=player).exists()
    assert told == []
    _books_clean()


def test_staff_refund_a_remote_round_without_a_credited_win_and_the_provider_is_told_once(
    player, signed, session, clock, told, django_capture_on_commit_callbacks
):
    assert bet(signed, session).status_code == 200
    assert win(signed, session, amount=0, closed=False).status_code == 200  # a win of 0: nothing credited
    rnd = Round.objects.get(provider_round_id="r1")
    assert remote_win_references(rnd) == [] and balance(player).amount == 99_000
    with django_capture_on_commit_callbacks(execute=True):
        round_refund(round_id=rnd.pk, reason="stuck after a complaint", actor=STAFF)
    rnd.refresh_from_db()
    assert (rnd.status, rnd.void_reason) == (Round.Status.REFUNDED, Round.VoidReason.STAFF)
    assert balance(player).amount == 100_000 and held_balance(player).amount == 0
    assert told == [("sim", "r1", "staff", 1_000, "CZK", 0)]
    # a second refund and a void of it are refused and tell nobody again
    with pytest.raises(DomainError) as exc, django_capture_on_commit_callbacks(execute=True):
        round_refund(round_id=rnd.pk, reason="again", actor=STAFF)
    assert exc.value.code == ROUND_NOT_REFUNDABLE.code
    with pytest.raises(DomainError) as exc, django_capture_on_commit_callbacks(execute=True):
        round_void_settled(round_id=rnd.pk, reason="proxy", actor=STAFF)
    assert exc.value.code == ROUND_ALREADY_VOIDED.code
    assert len(told) == 1 and balance(player).amount == 100_000
    # the provider's late win on the refunded round is refused: nothing moves
    late = win(signed, session, "w2", amount=500)
    assert late.status_code == 409 and late.json()["status"] == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    assert balance(player).amount == 100_000
    _books_clean()


def test_staff_cannot_refund_a_remote_round_whose_win_is_credited_and_held(player, signed, session, clock, told):
    """Refunding the stake of a round whose win was credited would pay twice: refused, the hold and the balance
    unchanged, nobody told."""
    assert bet(signed, session).status_code == 200
    assert win(signed, session, closed=False).status_code == 200
    rnd = Round.objects.get(provider_round_id="r1")
    (ref,) = remote_win_references(rnd)
    hold_id = _hold_through_compliance(player, rnd.pk, win_reference=ref)
    entries = Entry.objects.count()
    with pytest.raises(DomainError) as exc:
        round_refund(round_id=rnd.pk, reason="stuck", actor=STAFF)
    assert exc.value.code == ROUND_NOT_REFUNDABLE.code and exc.value.details["win_credited"] == 2_500
    assert Entry.objects.count() == entries and WinHold.objects.get(pk=hold_id).status == "held"
    assert (balance(player).amount, held_balance(player).amount) == (99_000, 2_500) and told == []
    assert Round.objects.get(pk=rnd.pk).status == Round.Status.IN_PROGRESS
    _books_clean()
