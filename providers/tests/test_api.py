"""The providers' seamless-wallet API through HTTP with signed calls (the wire contract): the launch, the session,
a bet, a win and the round's end, each moving the money once, the ledger balanced after."""

from __future__ import annotations

import pytest
from django.core.management import call_command

from games.models import Round
from providers.errors import DUPLICATE_TRANSACTION, ROUND_DETAIL_REQUIRED
from providers.models import ProviderTransaction
from tests.kit.money import api_money
from tests.kit.providers import CODE, player_client
from wallet.selectors import balance

pytestmark = pytest.mark.django_db


DETAIL = {"outcome": {"stops": [3, 7, 1], "win": "as sent"}}  # the studio's record of a round, with its closing call


def bet(signed, session, txn="b1", rnd="r1", amount=1_000, closed=False, **kw):
    detail = {"round_detail": DETAIL} if closed else {}
    return signed.call(
        "bet",
        {
            "session": session,
            "transaction_id": txn,
            "round_id": rnd,
            "game": "wild",
            "amount": api_money(amount),
            "round_closed": closed,
            **detail,
            **kw,
        },
    )


def win(signed, session, txn="w1", bet_txn="b1", rnd="r1", amount=2_500, closed=True, round_detail=None, **kw):
    detail = {"round_detail": round_detail or DETAIL} if closed else {}
    return signed.call(
        "win",
        {
            "session": session,
            "transaction_id": txn,
            "bet_transaction_id": bet_txn,
            "round_id": rnd,
            "amount": api_money(amount),
            "round_closed": closed,
            **detail,
            **kw,
        },
    )


def test_the_launch_gives_a_single_use_token_in_the_providers_launch_url(player, signed, clock):
    r = player_client(player).post(
        f"/api/v1/providers/{CODE}/launch", {"game": f"{CODE}_wild", "lang": "en"}, format="json"
    )
    assert r.status_code == 201, r.content
    body = r.json()
    assert body["launch_url"].startswith("http://127.0.0.1:8300/play?token=")
    assert "game=wild" in body["launch_url"] and "lang=en" in body["launch_url"]
    first = signed.call("session", {"launch_token": body["launch_token"]})
    assert first.status_code == 200 and first.json()["status"] == "RS_OK"
    assert first.json()["balance"] == api_money(100_000) and first.json()["game"] == "wild"
    assert str(player.pk) != first.json()["player"]
    again = signed.call("session", {"launch_token": body["launch_token"]})
    assert again.status_code == 401 and again.json()["status"] == "RS_ERROR_INVALID_TOKEN"


def test_a_bet_a_win_and_the_round_end_move_the_money_once_and_the_ledger_stays_balanced(
    player, signed, session, clock
):
    r = bet(signed, session)
    assert r.status_code == 200, r.content
    assert r.json()["status"] == "RS_OK" and r.json()["balance"] == api_money(99_000)
    rnd = Round.objects.get(player=player, provider_round_id="r1")
    assert rnd.status == Round.Status.IN_PROGRESS and rnd.idempotency_key == f"provider:{CODE}:r1"
    w = win(signed, session, closed=False)
    assert (
        w.status_code == 200 and w.json()["balance"] == api_money(101_500) and w.json()["credited"] == api_money(2_500)
    )
    end = signed.call(
        "round-end", {"session": session, "round_id": "r1", "transaction_id": "e1", "round_detail": DETAIL}
    )
    assert end.status_code == 200 and end.json()["round_status"] == "finished"
    rnd.refresh_from_db()
    assert (rnd.status, rnd.stake, rnd.win, rnd.win_capped) == (Round.Status.FINISHED, 1_000, 2_500, False)
    assert balance(player).amount == 101_500
    assert ProviderTransaction.objects.filter(provider__code=CODE).count() == 3
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_balance_answers_the_players_balance(signed, session, clock):
    r = signed.call("balance", {"session": session})
    assert r.status_code == 200 and r.json() == {"status": "RS_OK", "balance": api_money(100_000)}


def test_a_closed_bet_is_a_losing_one_shot_round_settled_at_once(player, signed, session, clock):
    r = bet(signed, session, closed=True)
    assert r.status_code == 200, r.content
    rnd = Round.objects.get(player=player, provider_round_id="r1")
    assert rnd.status == Round.Status.FINISHED and rnd.win == 0
    assert balance(player).amount == 99_000


def play(signed, session, txn="p1", rnd="r1", amount=1_000, win=None, win_txn="pw1", **kw):
    body = {
        "session": session,
        "transaction_id": txn,
        "round_id": rnd,
        "amount": api_money(amount),
        "round_detail": kw.pop("round_detail", DETAIL),
        **kw,
    }
    if win is not None:
        body["win"] = {"transaction_id": win_txn, "amount": api_money(win)}
    return signed.call("play", body)


def test_a_one_shot_round_in_one_call_debits_credits_and_settles_once(player, signed, session, clock):
    from django.core.management import call_command

    from games.models import Round
    from providers.models import ProviderTransaction
    from wallet.selectors import balance

    r = play(signed, session, win=2_500)
    assert r.status_code == 200, r.content
    body = r.json()
    assert (body["status"], body["round_status"], body["credited"]["amount"]) == ("RS_OK", "finished", 2_500)
    assert body["balance"]["amount"] == balance(player).amount == 100_000 - 1_000 + 2_500
    rnd = Round.objects.get(provider_round_id="r1")
    assert (rnd.status, rnd.stake, rnd.win) == ("finished", 1_000, 2_500)
    assert rnd.state["remote"]["detail"]["outcome"] == DETAIL["outcome"]
    assert sorted(ProviderTransaction.objects.filter(round=rnd).values_list("transaction_id", "kind")) == [
        ("p1", "bet"),
        ("pw1", "win"),
    ]
    again = play(signed, session, win=2_500)  # the studio retries: the stored answer, nothing moves
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert balance(player).amount == 100_000 - 1_000 + 2_500
    clock.shift(3)
    lost = play(signed, session, txn="p2", rnd="r2")  # a lost round: no win
    assert lost.status_code == 200 and lost.json()["credited"]["amount"] == 0
    clock.shift(3)
    reused = play(signed, session, txn="p3", rnd="r3", win=100, win_txn="pw1")  # the win's id was used
    assert reused.status_code == 409 and reused.json()["error"]["code"] == DUPLICATE_TRANSACTION.code
    no_record = signed.call(
        "play", {"session": session, "transaction_id": "p4", "round_id": "r4", "amount": api_money(1_000)}
    )
    assert no_record.json()["error"]["code"] == ROUND_DETAIL_REQUIRED.code
    assert balance(player).amount == 100_000 - 2_000 + 2_500
    for command in ("ledger_check", "limits_reconcile", "jackpot_check"):
        call_command(command)
