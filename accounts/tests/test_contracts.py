"""The functions other apps call (docs/contracts.md), with their exact names and keyword-only signatures."""

import inspect

import pytest

from accounts import adapters, selectors, services
from accounts.models import LoginSession
from tests.kit.accounts import make_player, make_staff


def kwonly(fn) -> set[str]:
    return {n for n, p in inspect.signature(fn).parameters.items() if p.kind is p.KEYWORD_ONLY}


def test_the_contract_functions_exist_with_their_signatures():
    assert list(inspect.signature(selectors.player_for_user).parameters) == ["user"]
    assert list(inspect.signature(selectors.betting_refusal).parameters) == ["player"]
    assert list(inspect.signature(selectors.money_movement_refusal).parameters)[0] == "player"
    assert list(inspect.signature(selectors.login_sessions).parameters) == ["player", "since", "until"]
    assert list(inspect.signature(selectors.person_key).parameters) == ["player"]
    assert {"session", "reason", "at"} <= kwonly(services.session_end)
    assert kwonly(services.player_force_logout) == {"player", "reason", "actor"}
    assert kwonly(services.exclusion_check) == {"player", "actor", "context"}
    register = adapters.get_exclusion_register()
    assert callable(register.is_listed) and callable(register.request_self_listing)
    assert issubclass(adapters.RegisterUnavailable, Exception)
    assert {f.name for f in LoginSession._meta.fields} >= {
        "player",
        "started_at",
        "ended_at",
        "end_reason",
        "last_seen_at",
    }
    assert set(LoginSession.EndReason.values) == {"logout", "timeout", "forced"}


@pytest.mark.django_db
def test_player_for_user_is_the_player_or_none_for_staff_and_anonymous():
    from django.contrib.auth.models import AnonymousUser

    player = make_player()
    assert selectors.player_for_user(player.user) == player
    assert selectors.player_for_user(make_staff()) is None
    assert selectors.player_for_user(AnonymousUser()) is None


@pytest.mark.django_db
def test_the_personas_keep_their_signatures_and_give_complete_players():
    from tests.kit.accounts import make_player as mp

    p = mp(status="temporary", username="persona1")
    assert p.user.username == "persona1" and p.personal.birth_number and p.temporary_expires_at
    assert selectors.betting_refusal(p) is None
    bare = mp(personal=False)
    assert not hasattr(bare, "personal") or bare.personal is None
