"""The seams to the games and wallet apps (complaints/records.py) and the declared workflow: only the "not found"
each contract function documents means "not the player's"; any other failure propagates (never a silent 'round
not found'); refused moves carry their current and target status."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
import time_machine

from complaints import errors, records, selectors, services
from complaints.models import Complaint, ComplaintItem
from complaints.tests.helpers import play_round
from core.audit import Actor
from core.clock import PRAGUE
from core.errors import DomainError, ErrorDef
from tests.kit.wallet import fund

NOW = datetime(2026, 11, 15, 10, 0, tzinfo=PRAGUE)
OTHER_GAMES_ERROR = ErrorDef("game.something_else", 409, "Něco jiného.", "Something else.")


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False) as t:
        yield t


@pytest.fixture
def games_catalogue(db):
    from games.services import games_sync

    games_sync()


def _file(player, **kw) -> Complaint:
    return services.complaint_file(
        player=player, reason="game_result", description="Round did not pay", actor=Actor.player(player), **kw
    )


@pytest.mark.django_db
def test_a_round_the_games_app_does_not_find_is_not_the_players_and_nothing_is_stored(player, frozen):
    assert records.player_round(player, "987654321") is None
    assert records.any_round("987654321") is None
    assert records.round_replay(player, "not-a-number") is None
    with pytest.raises(DomainError) as exc:
        _file(player, round_ids=["987654321"])
    assert exc.value.code == errors.ROUND_NOT_YOURS.code
    assert not Complaint.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "failure", [KeyError("game"), TypeError("round_recall() got an unexpected keyword"), OTHER_GAMES_ERROR()]
)
def test_any_other_failure_of_the_games_recall_propagates_instead_of_becoming_round_not_found(
    player, frozen, monkeypatch, failure
):
    def broken(player, round_id):
        raise failure

    monkeypatch.setattr(records, "round_recall", broken)
    with pytest.raises(type(failure)) as exc:
        _file(player, round_ids=["1"])
    assert exc.value is failure
    assert not Complaint.objects.exists()


@pytest.mark.django_db
def test_a_ledger_transaction_id_that_is_not_a_number_or_out_of_range_is_not_found(player):
    for tid in ("abc", "", "0", "-5", str(2**63)):
        assert records.player_transaction(player, tid) is None


@pytest.mark.django_db
def test_the_items_snapshot_what_the_records_say(player, frozen, games_catalogue):
    from wallet.models import LedgerTransaction

    fund(player)
    round_id = play_round(player)
    txn = LedgerTransaction.objects.filter(player=player).earliest("pk")
    items = records.named_items(
        player=player, kind=Complaint.Kind.COMPLAINT, round_ids=[round_id, round_id], transaction_ids=[str(txn.pk)]
    )
    assert [(i["kind"], i["object_id"]) for i in items] == [("round", str(round_id)), ("transaction", str(txn.pk))]
    round_summary, txn_summary = items[0]["summary"], items[1]["summary"]
    assert round_summary["game"] == "european_roulette" and round_summary["status"] == "finished"
    assert round_summary["stake"]["amount"] == 100 and items[0]["occurred_at"] == round_summary["settled_at"]
    assert txn_summary == {
        "id": txn.pk,
        "kind": txn.kind,
        "reference": txn.reference,
        "amount": txn.amount,
        "currency": "CZK",
        "created_at": txn.created_at,
        "description": txn.memo,
    }
    assert items[1]["occurred_at"] == txn.created_at


@pytest.mark.django_db
def test_the_staff_recall_shows_a_failure_of_the_games_app_as_that_rounds_problem(
    player, frozen, games_catalogue, monkeypatch, caplog
):
    fund(player)
    c = _file(player, round_ids=[play_round(player)])
    [ok] = selectors.complaint_round_recalls(c)
    assert ok["problem"] == "" and ok["recall"]["game"]["code"] == "european_roulette"
    assert ok["replay"]["outcome"] == "match"

    ComplaintItem.objects.filter(complaint=c).update(object_id="987654321")
    [missing] = selectors.complaint_round_recalls(c)
    assert missing["recall"] is None and missing["replay"] is None and missing["problem"] == "round not found"

    def broken(round_id):
        raise KeyError("state")

    monkeypatch.setattr(records, "round_recall_any", broken)
    [failed] = selectors.complaint_round_recalls(c)
    assert failed["recall"] is None and failed["problem"] == "KeyError: 'state'"
    assert "complaint round recall failed" in caplog.text


# --- the declared workflow ---------------------------------------------------------------------------------------
def test_the_declared_workflow_never_leaves_resolved_and_names_only_known_statuses():
    statuses = set(Complaint.Status.values)
    for step, moves in services.WORKFLOW.items():
        assert Complaint.Status.RESOLVED not in moves, step
        for current, targets in moves.items():
            assert current in statuses and set(targets) <= statuses, step


@pytest.mark.django_db
def test_a_refused_move_names_the_current_and_the_target_status_and_the_reference(player, agent, frozen):
    c = _file(player, event_at=NOW - timedelta(days=1))
    with pytest.raises(DomainError) as exc:
        services.complaint_investigate(complaint=c, actor=Actor.staff(agent))
    assert exc.value.code == errors.ILLEGAL_TRANSITION.code and exc.value.status == 409
    assert exc.value.details == {"current": "new", "target": "investigating", "reference": c.reference}
    assert "new" in exc.value.message_en and "investigating" in exc.value.message_en
