"""Each misbehaviour mode makes exactly the calls it says (provider_simulator/studio.py), over real HTTP to a small
stand-in of the wallet (fakewallet.py) that keeps the contract's rules; the journal keeps every call and answer."""

from __future__ import annotations

import pytest

from provider_simulator.studio import MODES

START = 100_000


def _sent(wallet) -> list[tuple[str, int]]:
    return [(op, status) for op, _, status in wallet.received if op != "session"]


def test_a_normal_round_is_a_bet_then_its_win_closing_the_round(wallet, studio, session):
    result = studio.play_round(session, 100)
    assert _sent(wallet) == [("bet", 200), ("win", 200)]
    (_, bet, _), (_, win, _) = wallet.received[1:]
    assert bet["round_closed"] is False and bet["amount"] == {"amount": 100, "currency": "CZK"}
    assert win == {
        "session": session,
        "transaction_id": win["transaction_id"],
        "bet_transaction_id": bet["transaction_id"],
        "round_id": bet["round_id"],
        "amount": {"amount": result.spin.win, "currency": "CZK"},
        "round_closed": True,
        "round_detail": {"outcome": result.spin.as_json()},
    }
    assert result.settled and result.refusal is None
    assert result.balance == wallet.balance == START - 100 + result.spin.win


def test_duplicate_sends_every_call_twice_with_the_same_body_and_gets_the_same_answer(wallet, studio, session):
    result = studio.play_round(session, 100, mode="duplicate")
    assert _sent(wallet) == [("bet", 200), ("bet", 200), ("win", 200), ("win", 200)]
    bodies = [body for op, body, _ in wallet.received[1:]]
    assert bodies[0] == bodies[1] and bodies[2] == bodies[3]
    answers = [reply.body for _, reply in result.calls]
    assert answers[0] == answers[1] and answers[2] == answers[3]
    assert wallet.balance == START - 100 + result.spin.win  # the repeats moved nothing


def test_out_of_order_sends_the_win_before_its_bet_then_the_bet_then_the_same_win(wallet, studio, session):
    result = studio.play_round(session, 100, mode="out_of_order")
    assert _sent(wallet) == [("win", 404), ("bet", 200), ("win", 200)]
    early, late = wallet.received[1][1], wallet.received[3][1]
    assert early == late  # the same transaction, the same body
    assert result.calls[0][1].provider_status == "RS_ERROR_TRANSACTION_DOES_NOT_EXIST"
    assert result.settled and wallet.balance == START - 100 + result.spin.win


def test_rollback_first_leaves_a_tombstone_that_refuses_the_late_bet_and_nothing_moves(wallet, studio, session):
    result = studio.play_round(session, 100, mode="rollback_first")
    assert _sent(wallet) == [("rollback", 200), ("bet", 409)]
    rollback, bet = wallet.received[1][1], wallet.received[2][1]
    assert rollback["bet_transaction_id"] == bet["transaction_id"]
    assert result.refusal.provider_status == "RS_ERROR_TRANSACTION_ROLLED_BACK"
    assert result.spin is None and wallet.balance == START


def test_timeout_drops_the_bets_answer_retries_the_same_bet_then_rolls_it_back(wallet, studio, session, journal):
    result = studio.play_round(session, 100, mode="timeout")
    assert _sent(wallet) == [("bet", 200), ("bet", 200), ("rollback", 200)]
    assert wallet.received[1][1] == wallet.received[2][1]
    assert result.calls[0] == ("bet", None)  # the caller never saw the first answer
    notes = [c.note for c in journal.calls() if c.op != "session"]
    assert notes == ["answer dropped", "retry after timeout", "rollback after timeout"]
    assert journal.calls(op="bet")[0].provider_status == "RS_OK"  # ... but the journal keeps what was answered
    assert result.voided and result.spin is None and wallet.balance == START


def test_late_round_end_sends_the_win_without_closing_then_round_end(wallet, studio, session):
    slept: list[float] = []
    studio.late_seconds, studio.sleep = 1.5, slept.append
    result = studio.play_round(session, 100, mode="late_round_end")
    assert _sent(wallet) == [("bet", 200), ("win", 200), ("round-end", 200)]
    assert wallet.received[2][1]["round_closed"] is False
    assert wallet.received[3][1]["round_id"] == wallet.received[1][1]["round_id"]
    assert slept == [1.5] and result.settled


@pytest.mark.parametrize("mode", ["forged_signature", "stale_timestamp"])
def test_a_forged_signature_or_a_stale_timestamp_is_one_bet_refused_401(wallet, studio, session, mode, journal):
    result = studio.play_round(session, 100, mode=mode)
    assert _sent(wallet) == [("bet", 401)]
    assert result.refusal.provider_status == "RS_ERROR_INVALID_SIGNATURE"
    assert wallet.balance == START
    assert journal.calls(op="bet")[0].note == mode.replace("_", " ")


def test_every_mode_is_documented_in_the_studio_module():
    import provider_simulator.studio as studio_module

    for mode in MODES:
        assert f"``{mode}``" in (studio_module.__doc__ or "") or mode == "normal"


def test_the_round_report_lists_each_acknowledged_transaction_once(wallet, studio, session, journal):
    played = studio.play_round(session, 100, mode="duplicate")
    studio.play_round(session, 100, mode="rollback_first")
    day = journal.calls()[-1].day
    report = journal.report(day)
    assert [t["type"] for t in report] == ["bet", "win", "rollback"]
    assert report[0]["round_id"] == report[1]["round_id"] == played.round_id
    assert report[1]["amount"] == {"amount": played.spin.win, "currency": "CZK"}
    assert report[2]["amount"] == {"amount": 100, "currency": "CZK"}  # the bet it cancelled (a tombstone)
    assert journal.report("2000-01-01") == []
