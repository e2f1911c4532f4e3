"""The jackpots API through HTTP on PostgreSQL: the display, the public wins, the player's own wins."""

from __future__ import annotations

import hashlib
import re
from typing import Any

import pytest
from rest_framework.test import APIClient

from core.errors import NOT_A_PLAYER, NOT_AUTHENTICATED, VALIDATION
from core.money import Money
from jackpots.errors import INVALID_QUERY
from jackpots.levels import salt, unseal
from jackpots.models import Award, Contribution, Jackpot, Pending
from jackpots.tests.helpers import central_level, pool
from tests.kit.accounts import make_staff, token_for
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, funded_player, start

DISPLAY = "/api/v1/jackpots"
WINS = "/api/v1/jackpots/wins"
MY_WINS = "/api/v1/jackpots/my-wins"
SEALED_KEYS = ("win_at", "seal", "salt", "nonce")


def anonymous() -> APIClient:
    return APIClient(raise_request_exception=False)


def keys_of(value: Any) -> set[str]:
    """Every key anywhere in a JSON document."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_of(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_of(v)}
    return set()


def level_in(display: dict[str, Any], code: str) -> dict[str, Any]:
    return next(j for j in display["jackpots"] if j["code"] == code)


def hidden(jp: Jackpot) -> dict[str, Any]:
    """What the level keeps secret until it is won: WIN_AT (read with the seal key, as the tests may), its sealed
    form, the nonce and the commitment's salt."""
    return {
        "win_at": unseal(jp.win_at_sealed, code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce),
        "sealed": jp.win_at_sealed,
        "nonce": jp.win_at_nonce,
        "salt": salt(code=jp.code, generation=jp.generation, nonce=jp.win_at_nonce),
    }


def number_tokens(text: str, n: int) -> int:
    """How often ``n`` stands as a whole JSON number in ``text`` (not inside a longer number or a hex string)."""
    return len(re.findall(rf"(?<![\w.\-]){n}(?![\w.])", text))


def play_until_hit(clock, c: APIClient, code: str, rounds: int = 60) -> dict[str, Any]:
    """Real-money roulette rounds (10 CZK on red, 3 s apart: the minimum round time) until one wins level
    ``code``; returns that round."""
    for _ in range(rounds):
        clock.shift(3)
        r = start(c, game=ROULETTE, bet={"bets": [{"type": "red", "amount": 1000}]})
        assert r.status_code == 201, r.json()
        body = r.json()
        if any(e.get("type") == "jackpot_award" and e["jackpot"] == code for e in body["jackpot_events"]):
            return body
    raise AssertionError(f"{code} was not hit in {rounds} rounds")


def test_the_display_shows_a_must_hit_levels_range_and_commitment_and_nothing_sealed():
    central_level("central-bronze", win_from=2_000, win_to=3_000, reset_value=1_000)
    secret = hidden(pool("central-bronze"))

    r = anonymous().get(DISPLAY)

    assert r.status_code == 200, r.json()
    assert "max-age=2" in r["Cache-Control"]
    body = r.json()
    assert body["enabled"] is True
    level = level_in(body, "central-bronze")
    assert level["trigger"] == "must_hit" and level["games"] == "all"
    assert level["value"] == Money(1_000).to_json() and level["run"] == 0  # seeded with RESET_VALUE, below the range
    assert level["must_hit"]["range"] == [Money(2_000).to_json(), Money(3_000).to_json()]
    assert level["must_hit"]["commitment"] == pool("central-bronze").win_at_commitment
    assert re.fullmatch(r"[0-9a-f]{64}", level["must_hit"]["commitment"])
    # nothing sealed anywhere: no such field, and neither WIN_AT nor its sealed form, nonce or salt in the text
    assert not [k for k in keys_of(body) if any(s in k for s in SEALED_KEYS)]
    text = r.content.decode()
    for value in (secret["sealed"], secret["nonce"], secret["salt"]):
        assert value not in text
    # WIN_AT may only appear where it coincides with a bound of the published range
    assert number_tokens(text, secret["win_at"]) == [2_000, 3_000].count(secret["win_at"])


def test_a_level_hit_through_rounds_shows_in_the_public_wins_and_only_in_the_winners_own_wins(clock):
    central_level("central-bronze", rate_ppm=50_000, win_from=2_000, win_to=2_500, reset_value=1_000)
    winner, other = funded_player(1_000_000), funded_player(0)
    c = client_for(winner)
    assert anonymous().get(WINS).json() == []

    hit = play_until_hit(clock, c, "central-bronze")

    public = anonymous().get(WINS)
    assert public.status_code == 200
    [row] = [w for w in public.json() if w["round_id"] == hit["id"]]
    assert row["jackpot"] == "central-bronze" and row["status"] == "paid" and row["game"] == ROULETTE
    assert row["paid"] == row["amount"] and row["amount"]["amount"] > 0 and row["amount"]["currency"] == "CZK"
    assert "returned_to_pool" not in row
    # nothing names the player
    assert not [k for k in keys_of(public.json()) if "player" in k or "user" in k]
    for name in (winner.user.username, winner.user.email):
        assert name not in public.content.decode()

    mine = c.get(MY_WINS)
    assert mine.status_code == 200
    [own] = mine.json()
    assert own["round_id"] == hit["id"] and own["id"] == row["id"]
    assert own["amount"] == row["amount"] and own["returned_to_pool"] == Money(0).to_json()
    assert Award.objects.get(pk=own["id"]).player_id == winner.pk

    assert client_for(other).get(MY_WINS).json() == []


def test_my_wins_is_for_players_only():
    r = anonymous().get(MY_WINS)
    assert r.status_code == 401 and r.json()["error"]["code"] == NOT_AUTHENTICATED.code
    staff = APIClient(raise_request_exception=False)
    staff.credentials(HTTP_AUTHORIZATION=f"Token {token_for(make_staff())}")
    r = staff.get(MY_WINS)
    assert r.status_code == 403 and r.json()["error"]["code"] == NOT_A_PLAYER.code


def test_the_revealed_win_at_verifies_against_the_commitment_published_before_the_hit(clock):
    central_level("central-silver", rate_ppm=50_000, win_from=2_000, win_to=2_500, reset_value=1_000)
    before = level_in(anonymous().get(DISPLAY).json(), "central-silver")
    win_at = hidden(pool("central-silver"))["win_at"]

    hit = play_until_hit(clock, client_for(funded_player(1_000_000)), "central-silver")

    [row] = [w for w in anonymous().get(WINS).json() if w["round_id"] == hit["id"]]
    revealed = row["must_hit"]
    assert row["run"] == before["run"]
    assert revealed["win_at"] == Money(win_at).to_json() and 2_000 <= win_at <= 2_500
    assert revealed["commitment"] == before["must_hit"]["commitment"]
    check = hashlib.sha256(f"central-silver|{row['run']}|{revealed['win_at']['amount']}|{revealed['salt']}".encode())
    assert check.hexdigest() == before["must_hit"]["commitment"]
    # a wrong WIN_AT does not verify: the commitment binds the value
    wrong = hashlib.sha256(
        f"central-silver|{row['run']}|{revealed['win_at']['amount'] + 1}|{revealed['salt']}".encode()
    )
    assert wrong.hexdigest() != before["must_hit"]["commitment"]
    # the next run is committed afresh
    after = level_in(anonymous().get(DISPLAY).json(), "central-silver")
    assert after["run"] == before["run"] + 1
    assert after["must_hit"]["commitment"] != before["must_hit"]["commitment"]


def test_the_display_filters_by_game_and_shows_kobushi_values_at_a_coin_value():
    central_level("central-bronze")
    central_level("central-gold", games=["kobushi"], pay_order=3)

    roulette = {j["code"] for j in anonymous().get(DISPLAY, {"game": ROULETTE}).json()["jackpots"]}
    kobushi = anonymous().get(DISPLAY, {"game": "kobushi", "coin_value": "100"}).json()["jackpots"]
    everything = {j["code"] for j in anonymous().get(DISPLAY).json()["jackpots"]}

    assert "central-bronze" in roulette and "central-gold" not in roulette
    assert not [c for c in roulette if c.startswith("kobushi")]
    assert {"central-bronze", "central-gold", "kobushi-sushi", "kobushi-kobushi"} <= {j["code"] for j in kobushi}
    assert {"central-bronze", "central-gold", "kobushi-sushi", "kobushi-kobushi"} <= everything
    sushi = level_in({"jackpots": kobushi}, "kobushi-sushi")
    assert sushi["reference_coin"]["amount"] == 500 and sushi["value"]["amount"] > 0
    # seed 000 §9: proportional to the coin value
    assert sushi["value_at_coin"]["amount"] == sushi["value"]["amount"] * 100 // 500


@pytest.mark.parametrize(
    "query",
    [
        "coin_value=abc",
        "coin_value=-1",
        "game=../x",
        "coin_value=0",
        "coin_value=100001",
        "coin_value=1.5",
        "coin_value=+5",
        "coin_value=%205",
        "coin_value=",
        "coin_value=%EF%BC%95",
        "coin_value=99999999999999999999",
        "game=",
        "game=Kobushi",
        "game=x%00",
        "game=" + "a" * 61,
        "game=kobushi%0A",
        "game=a&game=b",
        "coin_value=1&coin_value=2",
    ],
)
def test_a_malformed_query_is_refused_with_a_stable_code_and_changes_nothing(query):
    central_level("central-bronze")
    state = list(Jackpot.objects.order_by("id").values())
    contributions = Contribution.objects.count() + Pending.objects.count()

    r = anonymous().get(f"{DISPLAY}?{query}")

    assert r.status_code == 400, r.content
    error = r.json()["error"]
    # a NUL never reaches the view: core.middleware.RejectNulMiddleware refuses it first
    assert error["code"] == (VALIDATION.code if "%00" in query else INVALID_QUERY.code)
    assert error["message_cs"] and error["message_en"]
    assert "max-age" not in r.get("Cache-Control", "")
    assert list(Jackpot.objects.order_by("id").values()) == state
    assert Contribution.objects.count() + Pending.objects.count() == contributions


@pytest.mark.parametrize(
    "query",
    ["coin_value=1", "coin_value=100000", "game=a", "game=" + "a" * 60, "game=kobushi&coin_value=500", "_=1700000000"],
)
def test_well_formed_queries_are_answered(query):
    r = anonymous().get(f"{DISPLAY}?{query}")
    assert r.status_code == 200, r.content
    assert r.json()["enabled"] is True


def test_with_jackpots_switched_off_the_display_says_so_and_lists_nothing(settings):
    central_level("central-bronze")
    assert level_in(anonymous().get(DISPLAY).json(), "central-bronze")

    settings.JACKPOTS_ENABLED = False
    r = anonymous().get(DISPLAY, {"game": "kobushi", "coin_value": "100"})

    assert r.status_code == 200
    assert r.json() == {"enabled": False, "jackpots": []}


def test_the_schema_requires_only_what_every_display_answer_holds():
    """``value_at_coin`` was declared required in a jackpot level, but the answer has it only with
    ``?coin_value=`` (schemathesis ST108): a client generated from the schema refused every display answer. Every
    property the schema requires is in every level of the answer, with and without the coin value."""
    central_level("central-bronze")
    component = anonymous().get("/api/schema?format=json").json()["components"]["schemas"]["JackpotLevel"]
    assert "value_at_coin" in component["properties"] and "value_at_coin" not in component["required"]
    assert {"code", "value", "run", "trigger"} <= set(component["required"])  # always there: still required
    for query in ({}, {"coin_value": "100"}, {"game": "kobushi"}):
        levels = anonymous().get(DISPLAY, query).json()["jackpots"]
        assert {j["code"] for j in levels} >= {"kobushi-sushi", "kobushi-kobushi"}, query
        for level in levels:
            assert set(component["required"]) <= set(level), (query, level["code"])
