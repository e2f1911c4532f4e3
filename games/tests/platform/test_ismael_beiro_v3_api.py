"""Ismael Beiro version 3 through the HTTP API: opposite choices on the same draws return the same expected value.

A round is found whose lower game offers a ladder. Through the API, the same start (the same draws) is played once
collecting at the offer and once risking it for every value the risk's draw can take (each in its own round; the
platform draws from ``core.rng.use_rng``): the mean of the risked rounds' wins equals the collected win exactly.
The hold and nudges of those rounds are the machine's: no such offer reaches the player."""

from __future__ import annotations

from fractions import Fraction

from core.rng import SeededRNG, SystemRNG, use_rng
from games.engine import RecordingRNG, registry
from tests.kit.clients import client_for
from tests.kit.platform import act, funded_player, start

CODE = "ismael_beiro"
BET = {"stake": 100}


class Scripted(SystemRNG):
    """The platform's RNG for one round: the recorded draws of the start, then ``then`` (values), then seeded."""

    def __init__(self, draws: list[list[int]], then: list[int], seed: int) -> None:
        self.values = [v for _, v in draws] + then
        self.inner = SeededRNG(seed)

    def randbelow(self, n: int) -> int:
        if self.values:
            v = self.values.pop(0)
            assert 0 <= v < n
            return v
        return self.inner.randbelow(n)


def _ladder_start() -> tuple[int, list[list[int]], int]:
    """A seed whose start offers a ladder, the draws the start makes and the range of the risk's draw."""
    g = registry.get_game(CODE)
    assert g.version == 3
    for seed in range(20_000):
        rec = RecordingRNG(SeededRNG(seed))
        st = g.start(g.validate_bet(BET), rec)
        if st["status"] == "awaiting_action" and st["pending"]["type"] == "risk":
            probe = RecordingRNG(SeededRNG(0))
            g.act(st, {"type": "risk"}, probe)
            return seed, rec.draws, probe.draws[0][0]
    raise AssertionError("no ladder offer in 20,000 starts")


def _play(draws: list[list[int]], then: list[int], first: str) -> int:
    """One round through the API on these draws: ``first`` at the ladder's offer, then collect at every offer."""
    c = client_for(funded_player(100_000))
    with use_rng(Scripted(draws, then, 99)):
        r = start(c, game=CODE, bet=BET)
        assert r.status_code == 201, r.json()
        body = r.json()
        assert body["pending"]["type"] == "risk"
        action = {"type": first}
        while body["status"] == "in_progress":
            assert body["pending"]["type"] not in ("hold", "nudge")  # the machine's
            r = act(c, body["id"], action)
            assert r.status_code == 200, r.json()
            body = r.json()
            action = {"type": "collect"}
    return int(body["win"]["amount"]) if isinstance(body["win"], dict) else int(body["win"])


def test_risking_and_collecting_through_the_api_have_the_same_expected_value_exactly(clock):
    seed, draws, n = _ladder_start()
    collected = _play(draws, [], "collect")
    risked = [_play(draws, [v], "risk") for v in range(n)]
    assert collected > 0 and len(set(risked)) > 1
    assert Fraction(sum(risked), n) == collected, (seed, collected, risked)


def test_verify_on_an_open_round_does_not_reveal_how_many_draws_it_made(clock):
    seed, draws, _ = _ladder_start()
    c = client_for(funded_player(100_000))
    with use_rng(Scripted(draws, [], 99)):
        body = start(c, game=CODE, bet=BET).json()
        assert body["status"] == "in_progress"
        v = c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()
        assert v["verified"] is True and v["draws"] is None, v
        body = act(c, body["id"], {"type": "collect"}).json()
    assert body["status"] == "finished"
    v = c.get(f"/api/v1/games/rounds/{body['id']}/verify").json()
    assert v["verified"] is True and v["draws"] == len(draws), v
