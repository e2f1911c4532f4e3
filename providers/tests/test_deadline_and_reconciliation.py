"""Rounds of remote games past their deadline are voided by the games sweeper and the provider is told (a signed
``round-cancelled`` to its API: a real local HTTP server); the daily reconciliation opens a case per difference with
the provider's report (a real local HTTP server); the recall shows a remote round and its verification refuses
clearly; production refuses unsafe provider settings."""

from __future__ import annotations

from datetime import date

import pytest
from django.core.management import call_command

from config.celery import app
from core.audit import Actor
from games.models import Round
from games.services import rounds_expire_due
from providers.errors import PROVIDER_NOT_SECURED, ROUND_DETAIL_INVALID, ROUND_DETAIL_REQUIRED
from providers.models import Provider, ReconciliationCase
from providers.reconciliation import reconciliation_run
from providers.services import provider_save
from providers.tests.test_api import DETAIL, bet, win
from tests.kit.money import api_money
from tests.kit.providers import SECRET, ProviderServer, player_client
from wallet.selectors import balance

pytestmark = pytest.mark.django_db


@pytest.fixture
def eager():
    old = app.conf.task_always_eager, app.conf.task_eager_propagates
    app.conf.task_always_eager, app.conf.task_eager_propagates = True, True
    yield
    app.conf.task_always_eager, app.conf.task_eager_propagates = old


def _point_at(provider: Provider, url: str) -> None:
    provider.api_url = url
    provider_save(provider=provider, actor=Actor.system("tests"))


def test_a_remote_round_past_its_deadline_is_voided_and_the_provider_is_told(
    player, provider, signed, session, clock, eager, django_capture_on_commit_callbacks
):
    with ProviderServer(SECRET) as server:
        _point_at(provider, server.url)
        assert bet(signed, session).status_code == 200
        clock.shift(91 * 86400)
        with django_capture_on_commit_callbacks(execute=True):
            assert rounds_expire_due()["ended"] == 1
        server.wait_for(1)
    rnd = Round.objects.get(provider_round_id="r1")
    assert (rnd.status, rnd.void_reason) == (Round.Status.VOIDED, Round.VoidReason.DEADLINE)
    assert balance(player).amount == 100_000
    assert server.calls == [
        (
            "round-cancelled",
            {
                "round_id": "r1",
                "reason": "deadline",
                "outcome": "refunded",
                "refunded": api_money(1_000),
                "credited": api_money(0),
            },
            True,
        )
    ]
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_the_notice_is_retried_until_the_provider_answers(player, provider, signed, session, clock):
    from providers import adapters
    from providers.tasks import round_cancelled_notify

    answers = iter([(503, {}), (200, {"status": "RS_OK"})])
    with ProviderServer(SECRET, answer=lambda op, body: next(answers)) as server:
        _point_at(provider, server.url)
        with pytest.raises(adapters.ProviderUnavailable):  # the task's autoretry_for catches this one
            round_cancelled_notify.run("sim", "r1", "deadline", 1_000)
        assert round_cancelled_notify.run("sim", "r1", "deadline", 1_000) == "told"
    assert [c[0] for c in server.calls] == ["round-cancelled", "round-cancelled"]
    assert adapters.ProviderUnavailable in round_cancelled_notify.autoretry_for  # type: ignore[attr-defined]


def test_a_remote_round_with_a_credited_win_is_settled_at_its_deadline_not_refunded_and_the_provider_is_told(
    player, provider, signed, session, clock, eager, django_capture_on_commit_callbacks
):
    """GP §7(8): settled with the wins the provider sent (a stake refunded on top would pay twice), and the provider
    told that the platform closed its round: outcome settled, nothing refunded, the win credited."""
    assert bet(signed, session).status_code == 200
    assert win(signed, session, closed=False).status_code == 200
    with ProviderServer(SECRET) as server:
        _point_at(provider, server.url)
        clock.shift(91 * 86400)
        with django_capture_on_commit_callbacks(execute=True):
            assert rounds_expire_due()["ended"] == 1
        server.wait_for(1)
    rnd = Round.objects.get(provider_round_id="r1")
    assert (rnd.status, rnd.win) == (Round.Status.FINISHED, 2_500)
    assert balance(player).amount == 101_500
    assert server.calls == [
        (
            "round-cancelled",
            {
                "round_id": "r1",
                "reason": "deadline",
                "outcome": "settled",
                "refunded": api_money(0),
                "credited": api_money(2_500),
            },
            True,
        )
    ]
    call_command("ledger_check")
    call_command("limits_reconcile")


def test_the_reconciliation_opens_a_case_for_every_difference(player, provider, signed, session, clock):
    assert bet(signed, session, "b1", "r1").status_code == 200
    assert win(signed, session, "w1", "b1", "r1", amount=2_500).status_code == 200
    clock.shift(3)
    assert bet(signed, session, "b2", "r2", closed=True).status_code == 200
    report = {
        "day": "2026-03-02",
        "transactions": [
            {"transaction_id": "b1", "type": "bet", "round_id": "r1", "amount": api_money(1_000)},  # the same
            {"transaction_id": "w1", "type": "win", "round_id": "r1", "amount": api_money(2_000)},  # amount differs
            {"transaction_id": "b9", "type": "bet", "round_id": "r9", "amount": api_money(500)},  # not on the platform
        ],
    }  # b2 missing at the provider
    with ProviderServer(SECRET, answer=lambda op, body: (200, report)) as server:
        _point_at(provider, server.url)
        result = reconciliation_run(provider=provider, day=date(2026, 3, 2))
        again = reconciliation_run(provider=provider, day=date(2026, 3, 2))
    assert server.calls[0][:2] == ("round-report", {"day": "2026-03-02"}) and server.calls[0][2]
    assert result["opened"] == 3 and again["opened"] == 0
    cases = {c.transaction_id: c.difference for c in ReconciliationCase.objects.all()}
    assert cases == {"w1": "amount_differs", "b9": "missing_on_platform", "b2": "missing_at_provider"}


def test_the_daily_reconciliation_task_covers_the_previous_prague_day(provider, clock):
    from providers.tasks import reconcile_previous_day_task

    with ProviderServer(SECRET, answer=lambda op, body: (200, {"day": body["day"], "transactions": []})) as server:
        _point_at(provider, server.url)
        clock.shift(86400)
        out = reconcile_previous_day_task.run()
    assert out["day"] == "2026-03-02" and out["sim"]["differences"] == 0


def test_finance_resolves_a_case_with_its_permission_and_the_resolution_is_audited(provider):
    from providers.services import reconciliation_resolve
    from tests.kit.accounts import make_staff

    case = ReconciliationCase.objects.create(
        provider=provider,
        day=date(2026, 3, 2),
        transaction_id="x",
        difference="missing_on_platform",
        created_at=provider.created_at,
    )
    staff = make_staff(role="finance")
    assert staff.has_perm("providers.resolve_reconciliation")
    done = reconciliation_resolve(case=case, resolution="provider's test round", actor=Actor.staff(staff))
    assert done.status == "resolved" and done.resolved_by_id == staff.pk


def test_the_recall_shows_a_remote_round_with_its_transactions_and_verify_shows_the_studios_record(
    player, signed, session, clock
):
    assert bet(signed, session).status_code == 200
    assert win(signed, session).status_code == 200
    c = player_client(player)
    listed = c.get("/api/v1/games/rounds")
    assert listed.status_code == 200
    remote = listed.json()["results"][0]
    assert remote["state"]["remote"]["provider"] == "sim" and remote["state"]["remote"]["round_id"] == "r1"
    assert [t["type"] for t in remote["state"]["remote"]["transactions"]] == ["bet", "win"]
    one = c.get(f"/api/v1/games/rounds/{remote['id']}")
    assert one.status_code == 200 and one.json()["win"]["amount"] == 2_500
    assert remote["state"]["remote"]["detail"]["outcome"] == DETAIL["outcome"]  # GP §11(5): the studio's record
    verify = c.get(f"/api/v1/games/rounds/{remote['id']}/verify")
    assert verify.status_code == 200, verify.content
    checked = verify.json()
    assert (checked["outcome"], checked["verified"], checked["provider_round_id"]) == ("studio_record", True, "r1")
    assert checked["studio_record"]["outcome"] == DETAIL["outcome"]
    action = c.post(
        f"/api/v1/games/rounds/{remote['id']}/actions",
        {"action": {"type": "collect"}},
        format="json",
        HTTP_IDEMPOTENCY_KEY="k-act",
    )
    assert action.status_code == 409


def test_production_refuses_a_provider_with_the_development_or_a_short_secret(
    provider, signed, session, settings, clock
):
    from providers.services import production_refusal

    settings.PRODUCTION = True
    assert production_refusal(provider) == ""  # a 42-byte secret of its own, addresses listed
    provider.secret = settings.PROVIDERS_DEV_SECRET
    assert "development" in production_refusal(provider)
    provider.secret = "short"
    assert "shorter" in production_refusal(provider)
    Provider.objects.filter(pk=provider.pk).update(secret="short")
    r = signed.call("balance", {"session": session}, secret="short")
    assert r.status_code == 403 and r.json()["error"]["code"] == PROVIDER_NOT_SECURED.code


def test_production_refuses_to_start_with_calls_allowed_from_any_address(monkeypatch):
    import config.settings as platform_settings

    monkeypatch.setattr(platform_settings, "SECURE_HSTS_SECONDS", 31_536_000, raising=False)  # production-only
    monkeypatch.setattr(platform_settings, "PROVIDERS_ALLOW_ANY_SOURCE", True)
    assert any("PROVIDERS_ALLOW_ANY_SOURCE" in r for r in platform_settings.production_refusals())
    monkeypatch.setattr(platform_settings, "PROVIDERS_ALLOW_ANY_SOURCE", False)
    assert not any("PROVIDERS_ALLOW_ANY_SOURCE" in r for r in platform_settings.production_refusals())


def test_without_allowed_sources_calls_are_refused_unless_development_allows_any(
    provider, signed, session, settings, clock
):
    Provider.objects.filter(pk=provider.pk).update(allowed_sources=[])
    assert signed.call("balance", {"session": session}).status_code == 403
    settings.PROVIDERS_ALLOW_ANY_SOURCE = True
    assert signed.call("balance", {"session": session}).status_code == 200


def test_a_missing_registration_of_the_games_hook_stops_the_platform_and_is_never_skipped():
    from games import hooks

    registered = hooks.remote_round_cancelled.implementation
    hooks.remote_round_cancelled._impl = None
    try:
        assert [e.id for e in hooks.HOOKS.check()] == ["games.E001"]
        with pytest.raises(hooks.HookMissing):
            hooks.remote_round_cancelled.implementation  # noqa: B018
    finally:
        hooks.remote_round_cancelled.register(registered)
    assert hooks.HOOKS.check() == []


def test_the_call_that_closes_a_round_must_carry_the_studios_record_of_it(player, signed, session, clock):
    """GP §11(5): a studio round is a complete record: its closing call (a closing win, a one-shot bet, a round end)
    without the studio's record is refused and moves nothing."""
    assert bet(signed, session).status_code == 200
    before = balance(player).amount
    bare = signed.call(
        "win",
        {
            "session": session,
            "transaction_id": "w1",
            "bet_transaction_id": "b1",
            "round_id": "r1",
            "amount": {"amount": 2_500, "currency": "CZK"},
            "round_closed": True,
        },
    )
    assert bare.status_code == 400 and bare.json()["error"]["code"] == ROUND_DETAIL_REQUIRED.code
    for wrong, reason in (
        ({"history_url": "https://studio.example/r1"}, "sha256"),
        ({"history_url": "http://studio.example/r1", "sha256": "a" * 64}, "https"),
        ({"outcome": "three cherries"}, "object"),
        ({"outcome": {}, "sha256": "XYZ"}, "hex"),
    ):
        r = win(signed, session, txn=f"w-{reason}", round_detail=wrong)
        assert r.status_code == 400 and r.json()["error"]["code"] == ROUND_DETAIL_INVALID.code, r.content
    assert balance(player).amount == before and Round.objects.get(provider_round_id="r1").status == "in_progress"
    end = signed.call("round-end", {"session": session, "round_id": "r1", "transaction_id": "e1"})
    assert end.status_code == 400 and end.json()["error"]["code"] == ROUND_DETAIL_REQUIRED.code


def test_a_studio_record_by_reference_is_kept_and_verify_checks_an_outcomes_stated_hash(player, signed, session, clock):
    from games.selectors import studio_outcome_sha256

    c = player_client(player)
    assert bet(signed, session).status_code == 200
    by_reference = {"history_url": "https://studio.example/history/r1", "sha256": "b" * 64}
    assert win(signed, session, round_detail=by_reference).status_code == 200
    rnd = Round.objects.get(provider_round_id="r1")
    checked = c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()
    assert (
        checked["outcome"] == "studio_record" and checked["studio_record"]["history_url"] == by_reference["history_url"]
    )
    clock.shift(3)
    outcome = {"stops": [1, 2, 3]}
    assert bet(signed, session, txn="b2", rnd="r2").status_code == 200
    stated = {"outcome": outcome, "sha256": "c" * 64}  # a hash that is not the outcome's
    assert win(signed, session, txn="w2", bet_txn="b2", rnd="r2", round_detail=stated).status_code == 200
    second = Round.objects.get(provider_round_id="r2")
    assert c.get(f"/api/v1/games/rounds/{second.pk}/verify").json()["outcome"] == "studio_record_mismatch"
    clock.shift(3)
    assert bet(signed, session, txn="b3", rnd="r3").status_code == 200
    right = {"outcome": outcome, "sha256": studio_outcome_sha256(outcome)}
    assert win(signed, session, txn="w3", bet_txn="b3", rnd="r3", round_detail=right).status_code == 200
    third = Round.objects.get(provider_round_id="r3")
    assert c.get(f"/api/v1/games/rounds/{third.pk}/verify").json()["verified"] is True
