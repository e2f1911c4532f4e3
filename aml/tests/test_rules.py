"""Suspicious-transaction rules: each hit opens a case once (per rule, player and anchor); a case can hold the win
concerned (GP §10(3)) within the 60-day term (regularity) or for the AML-law period."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine

from aml import errors
from aml.models import CaseHold, ComplianceCase
from aml.selectors import compliance_refusal
from aml.services import case_decide, case_hold_place, rules_evaluate
from core import clock
from core.audit import Actor
from core.errors import FORBIDDEN, DomainError
from core.models import AuditEvent
from tests.kit.aml import client, make_player, make_staff
from tests.kit.money import czk
from tests.kit.wallet import SYSTEM, bank, deposit, ref, verified_bank
from wallet.services import stake_debit, win_credit, withdrawal_request

pytestmark = pytest.mark.django_db
API = "/api/v1/aml"


def at(t):
    return time_machine.travel(t, tick=False)


def cases(player, rule):
    return list(ComplianceCase.objects.filter(player=player, kind="suspicious", rule=rule))


@pytest.fixture
def t0():
    return clock.now().replace(microsecond=0) - timedelta(days=3)


@pytest.fixture
def player():
    p = make_player()
    p.method = verified_bank(p)  # type: ignore[attr-defined]
    return p


def withdraw(player, amount, when):
    with at(when):
        return withdrawal_request(
            player=player, method=player.method, amount=amount, reference=ref("wd"), actor=Actor.player(player)
        )


def evaluate(when):
    with at(when):
        return rules_evaluate()


# deposits withdrawn with little play ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("staked", "hit"), [(czk("4999.99"), True), (czk(5000), False)])
def test_deposits_withdrawn_after_staking_less_than_once_are_a_case(player, t0, staked, hit):
    """5,000 CZK deposited, 4,000 CZK (80 %) withdrawn: staked 4,999.99 (< 100 %) is a hit, 5,000.00 is not."""
    with at(t0):
        deposit(player, player.method, czk(5000))
    with at(t0 + timedelta(minutes=10)):
        stake_debit(player=player, amount=staked, reference=ref("stake"), actor=SYSTEM)
        win_credit(player=player, amount=czk(4000), reference=ref("win"), actor=SYSTEM)
    w = withdraw(player, czk(4000), t0 + timedelta(hours=1))
    evaluate(t0 + timedelta(hours=2))
    found = cases(player, "deposit_little_play")
    assert len(found) == (1 if hit else 0)
    if hit:
        case = found[0]
        assert case.anchor == f"withdrawal:{w.pk}" and case.blocking is False and case.status == "open"
        assert case.details["deposited"] == 500_000 and case.details["staked"] == staked.amount
        assert case.window_start == w.requested_at - timedelta(days=7)


@pytest.mark.parametrize(("withdrawn", "hit"), [(czk("3999.99"), False), (czk(4000), True)])
def test_little_play_needs_80_percent_of_the_deposits_withdrawn(player, t0, withdrawn, hit):
    with at(t0):
        deposit(player, player.method, czk(5000))
    withdraw(player, withdrawn, t0 + timedelta(hours=1))
    evaluate(t0 + timedelta(hours=2))
    assert len(cases(player, "deposit_little_play")) == (1 if hit else 0)


def test_a_rule_case_is_opened_once_however_often_the_rules_run(player, t0):
    with at(t0):
        deposit(player, player.method, czk(5000))
    withdraw(player, czk(4500), t0 + timedelta(hours=1))
    first = evaluate(t0 + timedelta(hours=2))
    second = evaluate(t0 + timedelta(hours=3))
    assert first["deposit_little_play.opened"] == 1 and second["deposit_little_play.known"] == 1
    assert len(cases(player, "deposit_little_play")) == 1
    assert AuditEvent.objects.filter(action="aml.case_opened", details__rule="deposit_little_play").count() == 1


def test_while_a_rule_case_is_open_later_hits_are_added_to_it_not_opened_again(player, t0):
    with at(t0):
        deposit(player, player.method, czk(5000))
    w1 = withdraw(player, czk(2000), t0 + timedelta(hours=1))
    w2 = withdraw(player, czk(2500), t0 + timedelta(hours=2))
    evaluate(t0 + timedelta(hours=3))
    (case,) = cases(player, "deposit_little_play")
    assert case.anchor == f"withdrawal:{w2.pk}" and w1.pk  # only the second withdrawal reached 80 %
    w3 = withdraw(player, czk(100), t0 + timedelta(hours=4))
    evaluate(t0 + timedelta(hours=5))
    case.refresh_from_db()
    assert case.details["later_hits"] == [f"withdrawal:{w3.pk}"]
    case_decide(case=case, decision="cleared", note="player explained", actor=Actor.staff(make_staff()))
    w4 = withdraw(player, czk(100), t0 + timedelta(hours=6))
    evaluate(t0 + timedelta(hours=7))
    assert [c.anchor for c in cases(player, "deposit_little_play") if c.status == "open"] == [f"withdrawal:{w4.pk}"]


def test_a_rule_case_does_not_block_withdrawals_unless_configured(player, t0, settings):
    with at(t0):
        deposit(player, player.method, czk(5000))
    withdraw(player, czk(4500), t0 + timedelta(hours=1))
    settings.AML_RULE_CASES_BLOCK = True
    evaluate(t0 + timedelta(hours=2))
    refusal = compliance_refusal(player, "withdrawal")
    assert refusal is not None and refusal.code == errors.COMPLIANCE_REVIEW.code
    settings.AML_RULE_CASES_BLOCK = False
    other = make_player()
    other.method = verified_bank(other)  # type: ignore[attr-defined]
    with at(t0):
        deposit(other, other.method, czk(5000))  # type: ignore[attr-defined]
    withdraw(other, czk(4500), t0 + timedelta(hours=1))
    evaluate(t0 + timedelta(hours=2))
    assert cases(other, "deposit_little_play") and compliance_refusal(other, "withdrawal") is None


def test_a_disabled_rule_finds_nothing(player, t0, settings):
    settings.AML_RULES = {
        **settings.AML_RULES,
        "deposit_little_play": {**settings.AML_RULES["deposit_little_play"], "enabled": False},
    }
    with at(t0):
        deposit(player, player.method, czk(5000))
    withdraw(player, czk(4500), t0 + timedelta(hours=1))
    evaluate(t0 + timedelta(hours=2))
    assert cases(player, "deposit_little_play") == []


# many payment methods ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("gap", "hit"), [(timedelta(days=30), True), (timedelta(days=30, seconds=1), False)])
def test_the_fourth_payment_method_within_30_days_is_a_case(t0, gap, hit):
    player = make_player()
    start = t0 - timedelta(days=31)
    with at(start):
        bank(player)
    for i in range(2):
        with at(start + timedelta(days=1, seconds=i)):
            bank(player)
    with at(start + gap):
        last = bank(player)  # the fourth, 30 days (or 30 days and a second) after the first
    evaluate(start + gap + timedelta(minutes=5))
    found = cases(player, "many_methods")
    assert len(found) == (1 if hit else 0)
    if hit:
        assert found[0].anchor == f"method:{last.pk}" and found[0].details["count"] == 4


def test_three_methods_are_not_many(t0):
    player = make_player()
    for i in range(3):
        with at(t0 + timedelta(minutes=i)):
            bank(player)
    evaluate(t0 + timedelta(hours=1))
    assert cases(player, "many_methods") == []


# rapid deposit -> withdrawal cycles ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("last_gap", "hit"), [(timedelta(minutes=119, seconds=59), True), (timedelta(minutes=120), False)]
)
def test_three_deposit_withdrawal_cycles_within_a_day_are_a_case(player, t0, last_gap, hit):
    """A cycle: a withdrawal requested less than 120 minutes after a confirmed deposit."""
    for i in range(3):
        d_at = t0 + timedelta(hours=4 * i)
        with at(d_at):
            deposit(player, player.method, czk(1000))
        last = withdraw(player, czk(500), d_at + (last_gap if i == 2 else timedelta(minutes=30)))
    evaluate(t0 + timedelta(hours=12))
    found = cases(player, "rapid_cycles")
    assert len(found) == (1 if hit else 0)
    if hit:
        assert found[0].anchor == f"withdrawal:{last.pk}" and found[0].details["count"] == 3


# a large win withdrawn at once ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("win", "withdrawn", "after", "hit"),
    [
        (czk(20000), czk(18000), timedelta(hours=1), True),
        (czk(20000), czk("17999.99"), timedelta(hours=1), False),  # less than 90 % of the win
        (czk("19999.99"), czk(19999), timedelta(hours=1), False),  # not a large win
        (czk(20000), czk(18000), timedelta(hours=48) - timedelta(seconds=1), True),
        (czk(20000), czk(18000), timedelta(hours=48), False),  # not within 48 hours
    ],
)
def test_a_large_win_withdrawn_at_once_is_a_case_naming_the_win(player, t0, win, withdrawn, after, hit):
    reference = ref("bigwin")
    with at(t0):
        win_credit(player=player, amount=win, reference=reference, actor=SYSTEM)
    withdraw(player, withdrawn, t0 + after)
    evaluate(t0 + after + timedelta(minutes=1))
    found = cases(player, "large_win_withdrawn")
    assert len(found) == (1 if hit else 0)
    if hit:
        assert found[0].anchor == f"win:{reference}" and found[0].details["win_reference"] == reference


# holds (GP §10(3)) ---------------------------------------------------------------------------------------------------


@pytest.fixture
def won(player, t0):
    """A case about a 20,000 CZK win credited at ``t0``."""
    reference = ref("bigwin")
    with at(t0):
        win_credit(player=player, amount=czk(20000), reference=reference, actor=SYSTEM)
    withdraw(player, czk(19000), t0 + timedelta(hours=1))
    evaluate(t0 + timedelta(hours=2))
    (case,) = cases(player, "large_win_withdrawn")
    case.win_reference = reference
    return case


@pytest.fixture
def wallet_hold(monkeypatch):
    """The wallet's side of a hold, recorded (the case side is tested up to that call)."""
    calls = []

    def place(**kw):
        calls.append(kw)
        return 4242

    monkeypatch.setattr("aml.services.cases.win_hold_place", place)
    return calls


def test_a_case_holds_its_win_through_the_wallet_once(won, wallet_hold):
    staff = Actor.staff(make_staff())
    hold = case_hold_place(case=won, win_reference=won.win_reference, reason="aml", note="STR filed", actor=staff)
    again = case_hold_place(case=won, win_reference=won.win_reference, reason="aml", note="STR filed", actor=staff)
    assert hold.pk == again.pk and hold.hold_id == 4242 and CaseHold.objects.filter(case=won).count() == 1
    assert wallet_hold[0] == {
        "player": won.player,
        "win_reference": won.win_reference,
        "reason": "aml",
        "note": "STR filed",
        "actor": staff,
    }
    assert AuditEvent.objects.filter(action="aml.case_hold_placed", object_id=str(won.pk)).count() == 1


@pytest.mark.parametrize(
    ("after", "allowed"), [(timedelta(days=60) - timedelta(seconds=1), True), (timedelta(days=60), False)]
)
def test_a_regularity_hold_only_within_the_60_day_payout_term(won, wallet_hold, t0, after, allowed):
    """GP §10(3): a doubt about regularity holds the payout at most until the 60-day term ends."""
    with at(t0 + after):
        if allowed:
            case_hold_place(case=won, win_reference=won.win_reference, reason="regularity", note="doubt", actor=SYSTEM)
        else:
            with pytest.raises(DomainError) as e:
                case_hold_place(
                    case=won, win_reference=won.win_reference, reason="regularity", note="doubt", actor=SYSTEM
                )
            assert e.value.code == errors.HOLD_TOO_LATE.code
    assert len(wallet_hold) == (1 if allowed else 0)


def test_an_aml_hold_is_not_bound_by_the_60_days(won, wallet_hold, t0):
    """GP §10(3): a suspicious transaction is held for the period the AML law sets (from the report)."""
    with at(t0 + timedelta(days=61)):
        case_hold_place(case=won, win_reference=won.win_reference, reason="aml", note="STR", actor=SYSTEM)
    assert len(wallet_hold) == 1


def test_a_hold_needs_a_win_of_the_cases_player_a_note_and_a_case_not_cleared(won, wallet_hold):
    other = make_player()
    with at(clock.now()):
        win_credit(player=other, amount=czk(20000), reference="other-win", actor=SYSTEM)
    for kwargs, expected in (
        ({"win_reference": "other-win", "reason": "aml", "note": "x"}, errors.WIN_NOT_FOUND),
        ({"win_reference": won.win_reference, "reason": "aml", "note": " "}, errors.NOTE_REQUIRED),
        ({"win_reference": won.win_reference, "reason": "later", "note": "x"}, errors.HOLD_REASON_INVALID),
    ):
        with pytest.raises(DomainError) as e:
            case_hold_place(case=won, actor=SYSTEM, **kwargs)
        assert e.value.code == expected.code
    case_decide(case=won, decision="cleared", note="no suspicion", actor=SYSTEM)
    with pytest.raises(DomainError) as e:
        case_hold_place(case=won, win_reference=won.win_reference, reason="aml", note="x", actor=SYSTEM)
    assert e.value.code == errors.CASE_STATE.code
    assert wallet_hold == []


def test_staff_hold_the_win_from_the_case_and_the_wallet_holds_it(won):
    """End to end through the wallet: the win moves live -> held for the AML period (GP §10(3))."""
    from wallet.models import WinHold
    from wallet.selectors import held_balance

    staff = make_staff(role="compliance")
    r = client(staff).post(
        f"{API}/staff/cases/{won.pk}/holds",
        {"win_reference": won.win_reference, "reason": "aml", "note": "STR filed"},
        format="json",
    )
    assert r.status_code == 201, r.content
    hold = WinHold.objects.get(pk=r.json()["hold_id"])
    assert (hold.reason, hold.status, hold.amount) == ("aml", "held", 2_000_000)
    assert held_balance(won.player).amount >= 2_000_000


def test_staff_case_endpoints_refuse_players_and_anonymous(won):
    for url in (f"staff/cases/{won.pk}/decide", f"staff/cases/{won.pk}/holds"):
        assert client().post(f"{API}/{url}", {}, format="json").status_code == 401
        r = client(won.player).post(f"{API}/{url}", {}, format="json")
        assert r.status_code == 403 and r.json()["error"]["code"] == FORBIDDEN.code
    r = client(make_staff(role="compliance")).post(
        f"{API}/staff/cases/{won.pk}/holds", {"reason": "aml"}, format="json"
    )
    assert r.status_code == 400
