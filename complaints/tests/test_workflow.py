"""The staff workflow (services, audit, illegal transitions), resolution and the money remedy through the wallet
(adjustment_credit, reference complaint:<id>, never twice), the player's view of the answer (GP §11(8))."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta
from typing import Any

import pytest
import time_machine
from django.core import mail
from django.db import connection

from complaints import errors, services
from complaints.models import Complaint
from core.audit import Actor
from core.clock import PRAGUE
from core.errors import DomainError, ErrorDef
from core.models import AuditEvent
from core.money import Money
from tests.kit.accounts import make_staff
from tests.kit.clients import client_for

NOW = datetime(2026, 11, 2, 9, 0, tzinfo=PRAGUE)


@pytest.fixture
def frozen():
    with time_machine.travel(NOW, tick=False) as t:
        yield t


def _file(player, **kw) -> Complaint:
    kw.setdefault("event_at", NOW - timedelta(days=2))
    return services.complaint_file(
        player=player,
        reason=kw.pop("reason", "game_result"),
        description=kw.pop("description", "Round did not pay"),
        actor=Actor.player(player),
        **kw,
    )


def _to_investigation(c, agent) -> Complaint:
    services.complaint_assign(complaint=c, assignee=agent, actor=Actor.staff(agent))
    return services.complaint_investigate(complaint=c, actor=Actor.staff(agent))


def _snapshot(c: Complaint) -> dict:
    c = Complaint.objects.get(pk=c.pk)
    return {f.name: getattr(c, f.name) for f in Complaint._meta.fields}


def _adjustments(player) -> list:
    from wallet.models import LedgerTransaction

    return list(LedgerTransaction.objects.filter(player=player, kind="adjustment", reference__startswith="complaint:"))


def _statement_rows(player, start, end) -> list:
    from wallet.selectors import statement

    result = statement(player, start, end)
    rows = result.get("transactions", result.get("rows", result)) if isinstance(result, dict) else result
    return list(rows)


def _field(row, name):
    return row.get(name) if isinstance(row, dict) else getattr(row, name, None)


# --- transitions -----------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_the_workflow_runs_new_assigned_investigating_waiting_and_back_with_an_audit_event_per_step(
    player, agent, frozen, django_capture_on_commit_callbacks
):
    c = _file(player)
    staff = Actor.staff(agent)
    with django_capture_on_commit_callbacks(execute=True):
        c = services.complaint_assign(complaint=c, assignee=agent, actor=staff)
        assert c.status == "assigned" and c.assignee == agent
        c = services.complaint_investigate(complaint=c, actor=staff)
        assert c.status == "investigating"
        c = services.complaint_request_info(
            complaint=c, text="Please send the bank statement.", actor=staff, author=agent
        )
        assert c.status == "waiting_player"
    # The player was asked by e-mail and sees the question; replying sends it back to the investigation.
    assert any("bank statement" in m.body and m.to == [player.user.email] for m in mail.outbox)
    pc = client_for(player.user)
    detail = pc.get(f"/api/v1/complaints/{c.reference}").json()
    assert detail["status"] == "waiting_player" and detail["messages"][0]["text"] == "Please send the bank statement."
    r = pc.post(f"/api/v1/complaints/{c.reference}/messages", {"text": "Attached in the app."}, format="json")
    assert r.status_code == 201
    c.refresh_from_db()
    assert c.status == "investigating"
    actions = list(
        AuditEvent.objects.filter(object_type="complaints.complaint", object_id=str(c.pk))
        .order_by("occurred_at", "id")
        .values_list("action", flat=True)
    )
    assert actions == [
        "complaints.filed",
        "complaints.assigned",
        "complaints.investigation_started",
        "complaints.info_requested",
        "complaints.player_message",
    ]


@pytest.mark.django_db
@pytest.mark.parametrize("step", ["investigate", "resolve", "request_info"])
def test_a_new_complaint_cannot_skip_the_assignment(player, agent, frozen, step):
    c = _file(player)
    before = _snapshot(c)
    with pytest.raises(DomainError) as exc:
        if step == "investigate":
            services.complaint_investigate(complaint=c, actor=Actor.staff(agent))
        elif step == "resolve":
            services.complaint_resolve(complaint=c, outcome="rejected", answer_cs="Ne.", actor=Actor.staff(agent))
        else:
            services.complaint_request_info(complaint=c, text="?", actor=Actor.staff(agent))
    assert exc.value.code == errors.ILLEGAL_TRANSITION.code and exc.value.status == 409
    assert _snapshot(c) == before
    assert not AuditEvent.objects.exclude(action="complaints.filed").filter(object_id=str(c.pk)).exists()


@pytest.mark.django_db
def test_a_resolved_complaint_cannot_move_again(player, agent, frozen):
    c = _to_investigation(_file(player), agent)
    services.complaint_resolve(
        complaint=c, outcome="rejected", answer_cs="Výsledek odpovídá záznamu.", actor=Actor.staff(agent)
    )
    before = _snapshot(c)
    for call in (
        lambda: services.complaint_assign(complaint=c, assignee=agent, actor=Actor.staff(agent)),
        lambda: services.complaint_investigate(complaint=c, actor=Actor.staff(agent)),
        lambda: services.complaint_resolve(complaint=c, outcome="upheld", answer_cs="x", actor=Actor.staff(agent)),
    ):
        with pytest.raises(DomainError) as exc:
            call()
        assert exc.value.code == errors.ALREADY_RESOLVED.code
    assert _snapshot(c) == before
    r = client_for(player.user).post(f"/api/v1/complaints/{c.reference}/messages", {"text": "but"}, format="json")
    assert r.status_code == 409 and r.json()["error"]["code"] == errors.COMPLAINT_CLOSED.code


@pytest.mark.django_db
def test_a_complaint_can_only_be_assigned_to_active_staff(player, other_player, frozen):
    c = _file(player)
    inactive = make_staff()
    inactive.is_active = False
    inactive.save()
    for who in (other_player.user, inactive):
        with pytest.raises(DomainError) as exc:
            services.complaint_assign(complaint=c, assignee=who, actor=Actor.system())
        assert exc.value.code == errors.ASSIGNEE_NOT_STAFF.code
    assert Complaint.objects.get(pk=c.pk).status == "new"


@pytest.mark.django_db
def test_refused_resolutions_change_nothing(player, agent, frozen):
    c = _to_investigation(_file(player), agent)
    before = _snapshot(c)
    cases: list[tuple[dict[str, Any], ErrorDef]] = [
        (dict(outcome="rejected", answer_cs="x", remedy_amount=Money(100)), errors.REMEDY_NOT_ALLOWED),
        (dict(outcome="upheld", answer_cs="x", remedy_amount=Money(0)), errors.REMEDY_AMOUNT_INVALID),
        (dict(outcome="upheld", answer_cs="x", remedy_amount=Money(100, "EUR")), errors.REMEDY_AMOUNT_INVALID),
        (dict(outcome="upheld", answer_cs="x", remedy_amount=Money(10**14)), errors.REMEDY_AMOUNT_INVALID),
        (dict(outcome="upheld", answer_cs="  "), errors.ANSWER_REQUIRED),
        (dict(outcome="maybe", answer_cs="x"), errors.OUTCOME_INVALID),
    ]
    for kwargs, err in cases:
        with pytest.raises(DomainError) as exc:
            services.complaint_resolve(complaint=c, actor=Actor.staff(agent), **kwargs)
        assert exc.value.code == err.code
    assert _snapshot(c) == before


@pytest.mark.django_db
def test_internal_notes_are_audited_and_never_shown_to_the_player(player, agent, frozen):
    c = _file(player)
    services.complaint_note_add(
        complaint=c, text="Player known for chargebacks", author=agent, actor=Actor.staff(agent)
    )
    assert AuditEvent.objects.filter(action="complaints.note_added", object_id=str(c.pk)).exists()
    r = client_for(player.user).get(f"/api/v1/complaints/{c.reference}")
    assert "chargebacks" not in r.content.decode()


@pytest.mark.django_db
def test_misunderstanding_of_the_rules_is_answered_as_not_justified_with_the_standard_reason(player, agent, frozen):
    c = _to_investigation(_file(player), agent)
    c = services.complaint_resolve(
        complaint=c,
        outcome="not_justified_rules",
        answer_cs="Výhra na červenou je 1:1, ne 2:1.",
        actor=Actor.staff(agent),
    )
    body = client_for(player.user).get(f"/api/v1/complaints/{c.reference}", HTTP_ACCEPT_LANGUAGE="en").json()
    assert body["answer"]["outcome"] == "not_justified_rules"
    assert "§11(3)" in body["answer"]["text_en"] and "čl. 11 odst. 3" in body["answer"]["text_cs"]
    assert body["answer"]["out_of_court"]["url"] == "https://adr.coi.cz"
    assert "adr.coi.cz" in body["answer"]["text"]


# --- the money remedy ------------------------------------------------------------------------------------------------
@pytest.mark.django_db
def test_an_upheld_complaint_with_a_money_remedy_credits_the_player_once_and_the_credit_is_in_the_statement(
    player, agent, frozen, django_capture_on_commit_callbacks
):
    from wallet.selectors import balance

    c = _to_investigation(_file(player), agent)
    before = balance(player)
    with django_capture_on_commit_callbacks(execute=True):
        c = services.complaint_resolve(
            complaint=c,
            outcome="upheld",
            remedy_amount=Money(15_000),
            answer_cs="Chyba hry, vyplácíme výhru.",
            answer_en="Game fault, win paid.",
            actor=Actor.staff(agent),
            resolved_by=agent,
        )
    assert balance(player) == before + Money(15_000)
    [txn] = _adjustments(player)
    assert txn.reference == f"complaint:{c.pk}" and txn.amount == 15_000
    assert c.credit_reference == f"complaint:{c.pk}" and c.credit_transaction_id == str(txn.pk)
    assert AuditEvent.objects.filter(action="complaints.remedy_credited", object_id=str(c.pk)).count() == 1
    rows = [
        r
        for r in _statement_rows(player, NOW - timedelta(days=1), NOW + timedelta(days=1))
        if _field(r, "reference") == f"complaint:{c.pk}"
    ]
    assert len(rows) == 1 and _field(rows[0], "amount") == Money(15_000)
    # The answer e-mail tells the player the amount and about ČOI.
    answer = [m for m in mail.outbox if "vyřízena" in m.subject][0]
    assert "150,00" in answer.body and "adr.coi.cz" in answer.body
    # ... and so does the API.
    body = client_for(player.user).get(f"/api/v1/complaints/{c.reference}").json()
    assert body["answer"]["remedy_amount"]["amount"] == 15_000
    # Resolving again is refused and credits nothing more.
    with pytest.raises(DomainError) as exc:
        services.complaint_resolve(
            complaint=c, outcome="upheld", remedy_amount=Money(15_000), answer_cs="x", actor=Actor.staff(agent)
        )
    assert exc.value.code == errors.ALREADY_RESOLVED.code
    assert len(_adjustments(player)) == 1 and balance(player) == before + Money(15_000)


@pytest.mark.django_db(transaction=True)
def test_two_staff_resolving_the_same_complaint_at_once_credit_it_once(player, agent):
    from wallet.selectors import balance

    second = make_staff()
    c = _to_investigation(_file(player), agent)
    results: list = []
    barrier = threading.Barrier(2)

    def resolve(user):
        try:
            barrier.wait(timeout=5)
            services.complaint_resolve(
                complaint=c, outcome="upheld", remedy_amount=Money(5_000), answer_cs="Ano.", actor=Actor.staff(user)
            )
            results.append("ok")
        except DomainError as exc:
            results.append(exc.code)
        finally:
            connection.close()

    threads = [threading.Thread(target=resolve, args=(u,)) for u in (agent, second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert sorted(results) == sorted(["ok", errors.ALREADY_RESOLVED.code])
    assert len(_adjustments(player)) == 1
    assert balance(player) == Money(5_000)


@pytest.mark.django_db
def test_when_the_wallet_refuses_the_credit_the_resolution_rolls_back_with_it(player, agent, frozen):
    """Never an 'upheld' answer without the money: a wallet refusal (here: the reference already used for another
    amount) leaves the complaint open, unanswered and un-mailed."""
    from wallet.services import adjustment_credit

    c = _to_investigation(_file(player), agent)
    adjustment_credit(
        player=player,
        amount=Money(100),
        reference=f"complaint:{c.pk}",
        reason="earlier manual fix",
        actor=Actor.staff(agent),
    )
    before = _snapshot(c)
    notices = c.notices.count()
    with pytest.raises(DomainError) as exc:
        services.complaint_resolve(
            complaint=c, outcome="upheld", remedy_amount=Money(5_000), answer_cs="Ano.", actor=Actor.staff(agent)
        )
    assert exc.value.code.startswith("wallet.")
    assert _snapshot(c) == before and c.notices.count() == notices
    assert [t.amount for t in _adjustments(player)] == [100]
    assert not AuditEvent.objects.filter(action="complaints.resolved", object_id=str(c.pk)).exists()
