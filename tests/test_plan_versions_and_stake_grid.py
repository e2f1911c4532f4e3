"""GP §3(5): no stake before a published version of the game plan and terms is in force, where that is required (always
in production, ``ACCOUNTS_TERMS_REQUIRED``). GP §8(1): the minimum stake and its step change only through a published
version, announced before it applies; a settings change alone changes nothing while a version is in force. Stakes go
through the HTTP API as a player places them."""

from __future__ import annotations

import itertools
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from rest_framework.test import APIClient

from accounts import rules, services, terms
from accounts.errors import TERMS_NOT_ACCEPTED, TERMS_NOT_PUBLISHED, TERMS_NOTICE_TOO_SHORT
from accounts.models import Message, Player, TermsVersion
from core import clock
from core.audit import Actor
from core.money import Money
from core.rng import use_rng
from games.models import Round
from games.tests.platform.testgames import FixedRNG
from limits.errors import STAKE_BELOW_MINIMUM, STAKE_NOT_IN_STEPS
from tests.kit.accounts import make_player, make_staff, token_for
from tests.kit.games import api_bet

pytestmark = pytest.mark.django_db
STAFF = Actor.system("test-staff")
LOSS = FixedRNG(0)
_keys = itertools.count(1)


@pytest.fixture(autouse=True)
def _fresh_snapshot() -> Any:
    terms.snapshot_clear()
    yield
    terms.snapshot_clear()


@pytest.fixture
def frozen() -> Any:
    with time_machine.travel(clock.now().replace(microsecond=0), tick=False) as traveller:
        yield traveller


def _player() -> tuple[Player, APIClient]:
    from wallet.services import adjustment_credit

    player = make_player(status="active")
    adjustment_credit(
        player=player, amount=Money(10_000), reference=f"fund-{player.pk}", reason="test funding", actor=STAFF
    )
    c = APIClient(raise_request_exception=False)
    c.credentials(HTTP_AUTHORIZATION=f"Token {token_for(player.user)}")
    return player, c


def _stake(c: APIClient, frozen: Any, amount: int) -> Any:
    frozen.shift(3)  # GP §7(9)
    with use_rng(LOSS):
        return c.post(
            "/api/v1/games/rounds",
            {"game": "european_roulette", "bet": api_bet({"bets": [{"type": "red", "amount": amount}]})},
            format="json",
            HTTP_IDEMPOTENCY_KEY=f"grid-{next(_keys)}",
        )


def _code(r: Any) -> str | None:
    return r.json()["error"]["code"] if r.status_code >= 400 else None


def _publish(effective_at: Any, **overrides: Any) -> TermsVersion:
    fields = {
        "title": "Herní plán",
        "summary_cs": "Znění herního plánu.",
        "summary_en": "The game plan.",
        "text_cs": "Herní plán ...",
        "text_en": "Game plan ...",
        **overrides,
    }
    return services.terms_publish(effective_at=effective_at, actor=STAFF, **fields)


def _accept(c: APIClient, version: int) -> None:
    assert c.post("/api/v1/accounts/me/terms/accept", {"version": version}, format="json").status_code == 200


# GP §3(5) -----------------------------------------------------------------------------------------------------------


def test_where_a_version_is_required_no_stake_is_taken_before_one_is_in_force(frozen, settings):
    settings.ACCOUNTS_TERMS_REQUIRED = True
    player, c = _player()
    r = _stake(c, frozen, 100)
    assert (r.status_code, _code(r)) == (403, TERMS_NOT_PUBLISHED.code)
    assert "HP §3 odst. 5" in r.json()["error"]["message_cs"] and "GP §3(5)" in r.json()["error"]["message_en"]
    assert not Round.objects.filter(player=player).exists()
    assert c.get("/api/v1/accounts/me").json()["betting_refusal"] == TERMS_NOT_PUBLISHED.code
    # the first version: nobody could stake before it, so it needs only the snapshot time, not the 7 days' notice
    at = clock.now() + timedelta(seconds=rules.terms_snapshot_seconds())
    version = _publish(at)
    assert _code(_stake(c, frozen, 100)) == TERMS_NOT_PUBLISHED.code  # published, not in force yet
    frozen.move_to(at - timedelta(seconds=3))
    r = _stake(c, frozen, 100)  # exactly at effective_at: in force, and the player has not accepted it
    assert (r.status_code, _code(r), r.json()["error"]["details"]["version"]) == (
        403,
        TERMS_NOT_ACCEPTED.code,
        version.version,
    )
    _accept(c, version.version)
    assert _stake(c, frozen, 100).status_code == 201


def test_the_first_required_version_still_takes_the_snapshot_time_and_a_later_one_the_full_notice(frozen, settings):
    from core.errors import DomainError

    settings.ACCOUNTS_TERMS_REQUIRED = True
    snapshot = timedelta(seconds=rules.terms_snapshot_seconds())
    with pytest.raises(DomainError) as exc:
        _publish(clock.now() + snapshot - timedelta(seconds=1))
    assert exc.value.code == TERMS_NOTICE_TOO_SHORT.code
    _publish(clock.now() + snapshot)
    with pytest.raises(DomainError) as exc:
        _publish(clock.now() + rules.terms_min_notice() - timedelta(seconds=1))
    assert exc.value.code == TERMS_NOTICE_TOO_SHORT.code
    assert _publish(clock.now() + rules.terms_min_notice()).version == 2


def test_in_development_stakes_without_any_version_stay_allowed_unless_the_setting_says_otherwise(frozen, settings):
    """Development and the tests keep the behaviour of a platform without published versions (players may have
    staked under the settings' figures, so even the first version is announced with the full notice)."""
    from core.errors import DomainError

    assert settings.ACCOUNTS_TERMS_REQUIRED is False
    _player_, c = _player()
    assert _stake(c, frozen, 100).status_code == 201
    with pytest.raises(DomainError) as exc:
        _publish(clock.now() + timedelta(seconds=rules.terms_snapshot_seconds()))
    assert exc.value.code == TERMS_NOTICE_TOO_SHORT.code


def test_production_requires_a_published_version_before_stakes():
    from core.tests.test_health_and_settings import _django_check_expr
    from tests.kit.production import PRODUCTION_ENV

    r = _django_check_expr(PRODUCTION_ENV, "settings.ACCOUNTS_TERMS_REQUIRED")
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr[-800:]
    r = _django_check_expr({**PRODUCTION_ENV, "ACCOUNTS_TERMS_REQUIRED": "false"}, "settings.DEBUG")
    assert r.returncode != 0 and "ACCOUNTS_TERMS_REQUIRED=false" in r.stderr, r.stderr[-800:]


# GP §8(1) -----------------------------------------------------------------------------------------------------------


def test_a_new_minimum_stake_and_step_apply_only_from_the_announced_version(frozen, django_capture_on_commit_callbacks):
    player, c = _player()
    v1 = _publish(clock.now() + rules.terms_min_notice())
    assert (v1.min_stake, v1.stake_step) == (10, 10)  # the settings' figures carried into the first version
    frozen.move_to(v1.effective_at)
    _accept(c, 1)
    v2 = _publish(
        clock.now() + rules.terms_min_notice(),
        min_stake=20,
        stake_step=20,
        summary_cs="Minimální sázka a krok 0,20 Kč.",
        summary_en="Minimum stake and step 0.20 CZK.",
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert services.terms_announce_due() >= 1
    msg = Message.objects.get(player=player, reference="accounts.terms:2")
    assert (
        "Minimální sázka 0,20\xa0Kč, krok sázek 0,20\xa0Kč (HP §8 odst. 1); dosud 0,10\xa0Kč a 0,10\xa0Kč"
        in msg.body_cs
    )
    assert "Minimum stake 0.20 CZK, stake step 0.20 CZK (GP §8(1)); until then 0.10 CZK and 0.10 CZK" in msg.body_en
    # announced, not in force: the old grid still applies, to the last second
    frozen.move_to(v2.effective_at - timedelta(seconds=4))
    assert _stake(c, frozen, 10).status_code == 201
    frozen.move_to(v2.effective_at)
    _accept(c, 2)
    r = _stake(c, frozen, 10)
    assert (r.status_code, _code(r)) == (422, STAKE_BELOW_MINIMUM.code)
    assert r.json()["error"]["details"]["minimum"]["amount"] == 20
    r = _stake(c, frozen, 30)  # 0.20 + 0.10: not on the new 0.20 step
    assert _code(r) == STAKE_NOT_IN_STEPS.code and r.json()["error"]["details"]["step"]["amount"] == 20
    assert _stake(c, frozen, 40).status_code == 201


def test_a_settings_change_alone_does_not_change_the_stake_grid_while_a_version_is_in_force(frozen, settings):
    """The review: nothing tied GP_MIN_STAKE / GP_STAKE_STEP to a published version, so a silent change applied."""
    _player_, c = _player()
    v1 = _publish(clock.now() + rules.terms_min_notice())
    frozen.move_to(v1.effective_at)
    _accept(c, 1)
    settings.GP = {**settings.GP, "MIN_STAKE": 50, "STAKE_STEP": 50}
    assert _stake(c, frozen, 10).status_code == 201  # the version's 0.10 grid, not the settings' 0.50
    # what a new version would carry on is the latest version's grid, not the changed settings
    assert _publish(clock.now() + rules.terms_min_notice()).min_stake == 10


def test_staff_set_the_new_grid_in_the_publication_form(client, frozen):
    staff = make_staff(superuser=True)
    client.force_login(staff)
    when = clock.local(clock.now() + rules.terms_min_notice() + timedelta(days=1)).replace(second=0)
    form = {
        "title": "Krok sázky 0,20 Kč",
        "summary_cs": "Krok sázky 0,20 Kč.",
        "summary_en": "Stake step 0.20 CZK.",
        "text_cs": "Herní plán ...",
        "text_en": "Game plan ...",
        "effective_at": when.strftime("%Y-%m-%d %H:%M"),
        "min_stake": "0,10",
        "stake_step": "0,20",
    }
    r = client.post("/admin/accounts/termsversion/publish/", {**form, "stake_step": "nula"})
    assert r.status_code == 200 and not TermsVersion.objects.exists()
    r = client.post("/admin/accounts/termsversion/publish/", form)
    assert r.status_code == 302, r.content[:2000]
    version = TermsVersion.objects.get()
    assert (version.min_stake, version.stake_step) == (10, 20)
    public = APIClient().get("/api/v1/accounts/terms").json()
    assert public["upcoming"][0]["min_stake"]["amount"] == 10 and public["upcoming"][0]["stake_step"]["amount"] == 20
