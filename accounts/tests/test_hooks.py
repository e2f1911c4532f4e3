"""The calls from accounts up into limits and wallet go through checked hooks (accounts/hooks.py): a missing hook
stops the platform at start-up and fails every call closed; a registered one really runs."""

import pytest
from django.core import checks

from accounts import hooks, selectors, services
from accounts.models import AuthToken, LoginSession, Player
from core import clock
from core.audit import Actor
from core.models import AuditEvent
from tests.kit.accounts import DEFAULT_PASSWORD, make_player

pytestmark = pytest.mark.django_db
LOGIN = "/api/v1/accounts/auth/login"


def test_every_declared_hook_is_registered_by_limits_and_wallet():
    assert hooks.HOOKS.missing() == []
    assert [m for m in checks.run_checks() if m.id == "accounts.E001"] == []


def test_an_unregistered_hook_raises_instead_of_skipping_the_check(monkeypatch):
    monkeypatch.setattr(hooks.login_check, "_impl", None)
    with pytest.raises(hooks.HookMissing):
        hooks.login_check(player=make_player(), now=clock.now())
    with pytest.raises(hooks.HookMissing):
        hooks.login_check.implementation  # noqa: B018


def test_the_system_check_reports_a_missing_hook(monkeypatch):
    monkeypatch.setattr(hooks.account_closed, "_impl", None)
    errors = [m for m in checks.run_checks() if m.id == "accounts.E001"]
    assert len(errors) == 1 and "account_closed" in errors[0].msg
    assert errors[0].level == checks.ERROR


def test_a_login_is_refused_by_the_limits_login_check_through_the_hook(api):
    from limits.errors import SELF_LISTED
    from limits.services import self_listing_request

    player = make_player()
    self_listing_request(player=player, actor=Actor.player(player))
    r = api.post(LOGIN, {"username": player.user.username, "password": DEFAULT_PASSWORD}, format="json")
    assert r.status_code == 403 and r.json()["error"]["code"] == SELF_LISTED.code
    assert not LoginSession.objects.filter(player=player).exists()
    assert not AuthToken.objects.filter(user=player.user).exists()


def test_a_login_with_the_login_check_hook_missing_fails_closed(monkeypatch):
    player = make_player()
    monkeypatch.setattr(hooks.login_check, "_impl", None)
    with pytest.raises(hooks.HookMissing):
        services.session_start(player=player)
    assert not LoginSession.objects.filter(player=player).exists()


def test_the_registration_steps_never_read_a_missing_hook_as_a_step_not_done(monkeypatch):
    player = make_player(status="temporary")
    assert {s["code"] for s in selectors.registration_steps(player)["steps"]} >= {"self_limits", "payment_method"}
    monkeypatch.setattr(hooks.self_limits_decided, "_impl", None)
    with pytest.raises(hooks.HookMissing):
        selectors.registration_steps(player)


def test_a_closure_and_the_frozen_limits_commit_together_or_not_at_all(monkeypatch):
    """ZHH §14a: when limits cannot freeze the self-limits, the account does not close either."""
    player = make_player(status="temporary")

    def broken_account_closed(**kwargs):
        raise RuntimeError("limits is down")

    monkeypatch.setattr(hooks.account_closed, "_impl", broken_account_closed)
    with pytest.raises(RuntimeError):
        services.closure_request(player=player, method="transfer", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.status == Player.Status.TEMPORARY and player.closed_at is None
    assert not AuditEvent.objects.filter(action="accounts.closure.temporary_cancelled").exists()


def test_a_closed_account_has_its_limits_frozen_in_the_same_transaction():
    from limits.models import ClosingSnapshot

    player = make_player(status="temporary")
    services.closure_request(player=player, method="transfer", actor=Actor.player(player))
    player.refresh_from_db()
    assert player.status == Player.Status.CLOSED
    assert ClosingSnapshot.objects.filter(player=player).exists()
