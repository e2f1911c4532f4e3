"""Kobushi's progressives when they are not running (jackpots switched off, the pools drafts, one suspended): the rules
and the catalogue the player sees promise no jackpot, and a pick bonus never ends on a jackpot symbol that would pay
nothing; the bonus prize is the same. Through the round and catalogue API, with the seed whose bonus ends on the
Sushi symbol while the pools run (test_kobushi.py)."""

from __future__ import annotations

from typing import Any

import pytest

from core.audit import Actor
from games.errors import INVALID_BET
from games.models import Round
from jackpots.levels import snapshot_clear
from jackpots.models import Award, Jackpot
from jackpots.services import jackpot_set_status
from jackpots.tests.test_kobushi import SUSHI_SEED, _bet, _play
from tests.kit.clients import client_for
from tests.kit.games import api_bet
from tests.kit.platform import funded_player

pytestmark = pytest.mark.django_db
NONE_NOW_EN = "No progressive jackpot is offered or paid at present."
NONE_NOW_CS = "Progresivní jackpoty se nyní nenabízejí ani nevyplácejí."
PROMISE_EN = "The progressive jackpots are paid by the jackpot system"


def _switch_off(how: str, settings: Any) -> None:
    if how == "jackpots switched off":
        settings.JACKPOTS_ENABLED = False
    elif how == "pools are drafts":  # as the catalogue sync leaves them until staff start them
        Jackpot.objects.filter(family=Jackpot.Family.KOBUSHI).update(status=Jackpot.Status.DRAFT)
    else:  # one of the two pools suspended: neither is offered
        jackpot_set_status(
            jackpot=Jackpot.objects.get(code="kobushi-kobushi"),
            status=Jackpot.Status.SUSPENDED,
            actor=Actor.system("tests"),
        )
    snapshot_clear()


def _catalogue(c: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    listed = c.get("/api/v1/games/catalogue", {"page_size": 100}).json()
    summary = next(g for g in listed["results"] if g["code"] == "kobushi")
    return summary, c.get("/api/v1/games/catalogue/kobushi").json()["game"]


def test_while_the_pools_run_the_rules_promise_the_jackpots_and_the_sushi_symbol_pays(clock):
    c = client_for(funded_player(1_000_000))
    summary, detail = _catalogue(c)
    assert PROMISE_EN in summary["rules_en"] and summary["declared"]["rtp_with_jackpots"] == "98.21"
    assert "jackpots" in detail["description"]["features"] and "rules_without_jackpots" not in detail["description"]
    body = _play(c, clock, SUSHI_SEED, _bet(5))
    assert [e["type"] for e in Round.objects.get(pk=body["id"]).jackpot_events] == [
        "kobushi_progressive",
        "jackpot_award",
    ]


@pytest.mark.parametrize("how", ["jackpots switched off", "pools are drafts", "one pool suspended"])
def test_jackpots_not_running_are_not_promised_and_the_bonus_ends_on_the_cat(clock, settings, how):
    running = client_for(funded_player(1_000_000))
    paid_with_jackpots = _play(running, clock, SUSHI_SEED, _bet(5))  # the same seed while the pools run
    _switch_off(how, settings)
    c = client_for(funded_player(1_000_000))
    summary, detail = _catalogue(c)
    assert summary["rules_en"].endswith(NONE_NOW_EN) and summary["rules_cs"].endswith(NONE_NOW_CS)
    assert "Sushi" not in summary["rules_en"] and "Sushi" not in summary["rules_cs"]
    assert summary["declared"]["rtp_with_jackpots"] is None
    description = detail["description"]
    assert "jackpots" not in description["features"] and description["declared"]["rtp_with_jackpots"] is None
    assert description["rules_en"] == summary["rules_en"] and "rules_without_jackpots" not in description
    before = Award.objects.count()
    body = _play(c, clock, SUSHI_SEED, _bet(5))
    rnd = Round.objects.get(pk=body["id"])
    assert rnd.bet_params == {**_bet(5), "progressive": False}  # recorded: the round replays the same
    assert rnd.state["bonus"]["sequence"][-1] == "cat" and not rnd.jackpot_events
    assert Award.objects.count() == before and rnd.jackpot_win == 0
    # the bonus prize and every other part of the round pay exactly what they pay with the jackpots
    with_jackpots = Round.objects.get(pk=paid_with_jackpots["id"])
    assert rnd.win_engine == with_jackpots.win_engine and rnd.state["breakdown"] == with_jackpots.state["breakdown"]
    assert c.get(f"/api/v1/games/rounds/{rnd.pk}/verify").json()["outcome"] == "match"


def test_a_player_cannot_ask_for_the_jackpot_symbols_when_the_pools_do_not_run(clock, settings):
    """The platform decides ``progressive``; what the player sends is overridden both ways."""
    settings.JACKPOTS_ENABLED = False
    c = client_for(funded_player(1_000_000))
    body = _play(c, clock, SUSHI_SEED, {**_bet(5), "progressive": True})
    assert Round.objects.get(pk=body["id"]).bet_params["progressive"] is False
    settings.JACKPOTS_ENABLED = True
    body = _play(c, clock, SUSHI_SEED, {**_bet(5), "progressive": False})
    rnd = Round.objects.get(pk=body["id"])
    assert "progressive" not in rnd.bet_params and rnd.jackpot_events  # offered: the jackpot symbol and its award
    clock.shift(3)
    r = c.post(
        "/api/v1/games/rounds",
        {"game": "kobushi", "bet": api_bet({**_bet(5), "progressive": "no"})},
        format="json",
        HTTP_IDEMPOTENCY_KEY="bad-progressive",
    )
    assert r.status_code == 422 and r.json()["error"]["code"] == INVALID_BET.code
