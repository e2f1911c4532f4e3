from __future__ import annotations

from django.core.management import call_command

from jackpots.models import Award
from jackpots.services import jackpots_fold_all
from jackpots.tests.helpers import books, central_level
from tests.kit.clients import client_for
from tests.kit.platform import ROULETTE, funded_player, start


def test_a_must_hit_level_hits_once_within_its_range(clock):
    central_level("central-bronze", rate_ppm=50_000, win_from=2_000, win_to=2_500, reset_value=1_000)
    player = funded_player(1_000_000)
    c = client_for(player)
    hits = []
    for _ in range(60):
        clock.shift(3)
        r = start(c, game=ROULETTE, bet={"bets": [{"type": "red", "amount": 1000}]})
        assert r.status_code == 201, r.json()
        body = r.json()
        if any(e.get("type") == "jackpot_award" for e in body["jackpot_events"]):
            hits.append(body)
    assert len(hits) >= 1
    a = Award.objects.order_by("id")[0]
    assert a.win_at is not None and 2_000 <= a.win_at <= a.amount <= 2_500
    jackpots_fold_all()
    b = books("central-bronze")
    assert b["ledger"] == b["ledger_expected"]
    assert b["value_micro"] == b["growth_micro"]
    call_command("ledger_check")
    call_command("jackpot_check")
