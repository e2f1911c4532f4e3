"""A round settled at its start that wins posts its win in the statement that inserts it (games/sql.py
ROUND_INSERT_DECIDED_WIN, wallet/sql.py ``posting_ctes``: the posting's one definition), one round trip fewer. The
posting must stay what it was when it was a statement of its own: the same transaction and entries, the same
balance after (on the entry and on the round), the same refusals; only a plain posting is carried (a player's
recorded debt is paid down from the win first, GP §7(7); a zero win posts nothing, GP §10(1) pays what was won);
and a statement that did not write exactly the posting computed under the wallet lock fails the round whole."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from django.db import transaction

from core.money import Money
from core.rng import use_rng
from games.models import Round
from games.services import path
from games.tests.platform.test_round_cost import (  # noqa: F401 - the jackpot snapshot fixture
    LOSS,
    ROULETTE_RED,
    WIN,
    _jackpot_snapshot,
    _limited_player,
    _round,
)
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.money import czk
from tests.kit.platform import balance, key
from tests.kit.wallet import SYSTEM, fund, ledger_clean
from wallet import selectors
from wallet.errors import REFERENCE_CONFLICT
from wallet.models import Debt, Entry, LedgerTransaction
from wallet.services import (
    DeferredPosting,
    round_win_credit,
    round_win_deferred,
    wallet_lock_live,
    win_credit,
    win_deduct,
)

pytestmark = pytest.mark.django_db(transaction=True)


def _win_rows(round_id: int) -> dict[str, Any]:
    """The round's win posting as the ledger holds it, by role (the player's account or the operator's), without
    the ids the sequences gave; with the round's own balance after and the player's balance."""
    rnd = Round.objects.get(pk=round_id)
    txn = LedgerTransaction.objects.get(kind="win", reference=f"games:round:{round_id}:win")
    entries = [
        ("player" if e.account.player_id else e.account.code, e.amount, e.balance_after, e.created_at - rnd.started_at)
        for e in Entry.objects.filter(transaction_id=txn.pk).select_related("account").order_by("id")
    ]
    return {
        "txn": (txn.kind, txn.player_id == rnd.player_id, txn.amount, txn.currency, txn.memo),
        "actor": txn.actor_label.replace(rnd.player.user.get_username(), "<the player>"),
        "txn_at": txn.created_at - rnd.started_at,
        "entries": entries,
        "round": (rnd.stake, rnd.win, rnd.balance_before, rnd.balance_after),
        "balance": balance(rnd.player),
    }


def test_a_winning_round_posts_its_win_with_its_insert_and_costs_what_a_losing_round_costs(clock):
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)  # the day's first round creates its counter rows
    _, lost = _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    body, won = _round(c, clock, "european_roulette", ROULETTE_RED, WIN)
    assert body["win"]["amount"] > 0
    assert len(won) == len(lost), "\n".join(won)
    postings = [q for q in won if "INSERT INTO wallet_ledgertransaction" in q]
    assert len(postings) == 2, "\n".join(won)  # the stake's, then the round's insert with its win
    assert "INSERT INTO games_round" not in postings[0] and "INSERT INTO games_round" in postings[1]
    rnd = Round.objects.get(pk=body["id"])
    assert rnd.balance_before is not None
    assert rnd.balance_after == balance(player) == rnd.balance_before - 100 + rnd.win
    ledger_clean()


def test_the_win_written_with_the_round_is_the_win_posted_alone(clock, monkeypatch):
    """The same round (same game, bet, draws, balance, moment) of two players: one through the round's insert, the
    other with its win posted by its own statement (``round_win_credit``, the path of a round with a jackpot award
    or a debt); every row of the two postings and the rounds' balances are the same."""
    merged, alone = _limited_player(), _limited_player()
    c_merged, c_alone = client_for(merged), client_for(alone)
    for c in (c_merged, c_alone):
        _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)  # the counter rows, as above
    clock.shift(3)
    with use_rng(WIN):
        r = c_merged.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 201, r.content
    posted_alone: list[int] = []

    def credit_at_once(*, locked: Any, amount: Any, reference: str, actor: Any, **kw: Any) -> None:
        posted_alone.append(1)
        round_win_credit(locked=locked, player=alone, amount=amount, reference=reference, actor=actor)

    monkeypatch.setattr(path, "round_win_deferred", credit_at_once)
    with use_rng(WIN):  # the same moment: another player's round
        s = c_alone.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert s.status_code == 201, s.content
    assert posted_alone == [1]
    assert r.json()["win"]["amount"] > 0
    assert _win_rows(r.json()["id"]) == _win_rows(s.json()["id"])
    ledger_clean()


def test_a_losing_round_posts_no_win(clock):
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    body, sql = _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    assert body["win"]["amount"] == 0
    assert not LedgerTransaction.objects.filter(reference__startswith=f"games:round:{body['id']}:win").exists()
    assert [q for q in sql if "INSERT INTO wallet_ledgertransaction" in q and "INSERT INTO games_round" in q] == []
    assert LedgerTransaction.objects.filter(reference__startswith=f"games:round:{body['id']}:").count() == 1
    ledger_clean()


def test_a_player_with_a_recorded_debt_pays_it_down_from_the_win_at_once():
    """GP §7(7): the win is posted at once and the debt paid down from it (the paydown reads the balance the
    posting wrote), never carried by a later statement; a player without a debt gets the win back unwritten."""
    indebted = _limited_player()
    win_deduct(
        player=indebted,
        amount=Money(balance(indebted) + 25_00),
        reference="dd",
        reason="error",
        notice_text="notice",
        actor=SYSTEM,
    )
    assert selectors.debt(indebted) == czk(25)
    with transaction.atomic():
        locked = wallet_lock_live(player=indebted)
        got = round_win_deferred(locked=locked, amount=czk(40), reference="r-1:win", actor=SYSTEM)
        assert got is None
        assert (locked.balance, locked.debt) == (15_00, 0)
    assert LedgerTransaction.objects.filter(reference="r-1:win").count() == 1
    assert selectors.debt(indebted) == czk(0) and Debt.objects.get(player=indebted).status == "paid"

    clean = _limited_player()
    before = balance(clean)
    with transaction.atomic():
        locked = wallet_lock_live(player=clean)
        assert round_win_deferred(locked=locked, amount=czk(0), reference="r-2:win", actor=SYSTEM) is None
        got = round_win_deferred(locked=locked, amount=czk(40), reference="r-3:win", actor=SYSTEM)
        assert isinstance(got, DeferredPosting) and locked.balance == before + 40_00
        assert not LedgerTransaction.objects.filter(reference__in=["r-2:win", "r-3:win"]).exists()
        got.post()  # written alone (no statement carried it)
    assert balance(clean) == before + 40_00
    ledger_clean()


def test_a_win_not_written_as_computed_fails_the_round_and_nothing_of_it_stays(clock, monkeypatch, caplog):
    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    before = (balance(player), Round.objects.filter(player=player).count(), LedgerTransaction.objects.count())
    real = path.round_win_deferred

    def another_balance(**kwargs: Any) -> DeferredPosting | None:
        posting = real(**kwargs)
        assert posting is not None  # the carried path
        posting.balance_after += 1  # what the lock's figures would say if another writer had moved the balance
        return posting

    monkeypatch.setattr(path, "round_win_deferred", another_balance)
    clock.shift(3)
    with use_rng(WIN), caplog.at_level(logging.ERROR, logger="platform.errors"):
        r = c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 500, r.content  # an internal failure (alarmed), not a refusal
    assert "posting win:games:round:" in caplog.text and "not written" in caplog.text
    assert (balance(player), Round.objects.filter(player=player).count(), LedgerTransaction.objects.count()) == before
    ledger_clean()


def test_a_reused_win_reference_is_refused_as_the_posting_alone_refuses_it(clock):
    """The posting's own integrity failure inside the round's statement is ``wallet.reference_conflict`` (409),
    as its statement alone answers (``wallet.ledger._integrity_refusal``), and nothing of the round stays."""
    from django.db import connection

    player = _limited_player()
    c = client_for(player)
    _round(c, clock, "european_roulette", ROULETTE_RED, LOSS)
    with connection.cursor() as cur:  # the id the next round takes (START_CONTEXT's nextval)
        cur.execute("SELECT last_value + 1 FROM games_round_id_seq")
        next_id = cur.fetchone()[0]
    other = _limited_player()
    fund(other, czk(1))
    win_credit(player=other, amount=czk(2), reference=f"games:round:{next_id}:win", actor=SYSTEM)
    before = (balance(player), Round.objects.filter(player=player).count())
    clock.shift(3)
    with use_rng(WIN):
        r = c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet(ROULETTE_RED)},
            format="json",
            HTTP_IDEMPOTENCY_KEY=key(),
        )
    assert r.status_code == 409 and r.json()["error"]["code"] == REFERENCE_CONFLICT.code, r.content
    assert (balance(player), Round.objects.filter(player=player).count()) == before
    ledger_clean()
