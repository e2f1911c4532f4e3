"""The stake gate's one locking statement reads the same state as the selectors that show the player what is left
(``limits.selectors``: ``self_limits``, ``money_limit_room``, ``hourly_loss``, ``play_status``, ``active_panic``), over
generated states (hypothesis): self-limits of every money kind, the hourly-loss cap, histories of decided bets across
a Prague midnight and a month end, open bets (the ``odds`` kind keeps several), a panic press. For each state:

* the figures the gate read equal the selectors' (day and month totals, the hourly loss, the limits in force, the open
  stakes, the panic button);
* the room the player is shown (``money_limit_room``) is exactly the gate's ``max_stake_now``: a stake of the room is
  allowed, one step more is refused naming a limit whose ``used`` is what ``self_limits`` (or the hourly loss) shows;
* the play time left is the one ``play_status`` shows, and a break the one it announces.

The lean round path decides with the same ``stake_gate`` (games' round_play; its counting is tested through the API in
games/tests/platform/test_lean_round_limits.py)."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from django.db import transaction
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.audit import Actor
from core.errors import DomainError
from core.money import Money
from limits import errors, selectors
from limits.kinds import kind_rules
from limits.models import LimitType, OpenBet, value_in_force
from limits.services import panic_press, self_limit_set, stake_gate, stake_gate_and_place, stake_settled
from tests.kit.accounts import make_player
from tests.kit.limits import REFUSAL_LOG_DATABASES
from tests.kit.money import prague

pytestmark = pytest.mark.django_db(databases=REFUSAL_LOG_DATABASES)
SYSTEM = Actor.system("tests")
GAME_MAX = Money(100_000)
_refs = itertools.count(1)
MONEY_ERRORS = {
    errors.DAILY_STAKE_EXCEEDED.code: LimitType.DAILY_STAKE,
    errors.MONTHLY_STAKE_EXCEEDED.code: LimitType.MONTHLY_STAKE,
    errors.DAILY_LOSS_EXCEEDED.code: LimitType.DAILY_LOSS,
    errors.MONTHLY_LOSS_EXCEEDED.code: LimitType.MONTHLY_LOSS,
}
# bases: an ordinary afternoon, the last minutes of a Prague day, the last minutes of a month (CEST)
BASES = [prague(2026, 5, 14, 15, 0), prague(2026, 5, 20, 23, 20), prague(2026, 5, 31, 23, 20)]


@dataclass(frozen=True)
class Event:
    gap: int  # seconds after the previous event
    stake: int  # haléře, on the 0.10 CZK grid
    win_ratio: int  # the win as a share of the stake: 0, 50 % or 200 %
    settle: bool  # decided two seconds later, or left open (odds only)


limit_value = st.one_of(st.none(), st.integers(min_value=1, max_value=300).map(lambda n: n * 10))
event = st.builds(
    Event,
    gap=st.integers(min_value=2, max_value=1_500),
    stake=st.integers(1, 60).map(lambda n: n * 10),
    win_ratio=st.sampled_from([0, 0, 50, 200]),
    settle=st.booleans(),
)
state = st.fixed_dictionaries(
    {
        "kind": st.sampled_from(["technical", "technical", "odds"]),
        "base": st.sampled_from(BASES),
        "limits": st.fixed_dictionaries(
            {
                lt: limit_value
                for lt in (LimitType.DAILY_STAKE, LimitType.MONTHLY_STAKE, LimitType.DAILY_LOSS, LimitType.MONTHLY_LOSS)
            }
        ),
        "hourly_cap": st.integers(min_value=5, max_value=400).map(lambda n: n * 10),
        # a few bets far or near apart, or a long session of play (stakes every ~3 minutes: the 120/15 break, GP §7(4))
        "history": st.one_of(
            st.lists(event, min_size=1, max_size=8),
            st.builds(
                lambda n, gap: [Event(gap=gap, stake=10, win_ratio=200, settle=True)] * n,
                st.integers(min_value=38, max_value=48),
                st.integers(min_value=150, max_value=180),
            ),
        ),
        "after": st.integers(min_value=0, max_value=4_000),
        "panic": st.sampled_from([False, False, False, False, False, True]),
    }
)


def _locked(fn: Any, player: Any, **kw: Any) -> Any:
    from wallet.services import wallet_lock

    with transaction.atomic():
        wallet_lock(player=player)
        return fn(player=player, **kw)


def _build(s: dict[str, Any]) -> tuple[Any, str, datetime]:
    """A new player with the generated limits and history; returns (player, kind, the instant of the decision)."""
    kind, at = s["kind"], s["base"]
    player = make_player(status="active")
    for lt, value in s["limits"].items():
        self_limit_set(player=player, kind=kind, limit_type=lt, value=value, actor=SYSTEM, now=at - timedelta(days=40))
    for e in s["history"]:
        at += timedelta(seconds=e.gap)
        ref = f"parity:{next(_refs)}"
        try:
            _locked(
                stake_gate_and_place,
                player,
                kind=kind,
                stake=Money(e.stake),
                game_code="test_slot",
                game_max_bet=_game_max(kind),
                now=at,
                round_ref=ref,
            )
        except DomainError:
            continue  # a stake the limits refused is part of the history too: nothing was counted
        if e.settle or kind_rules(kind).one_open_round:
            _locked(
                stake_settled,
                player,
                kind=kind,
                stake=Money(e.stake),
                win=Money(e.stake * e.win_ratio // 100),
                started_at=at,
                settled_at=at + timedelta(seconds=2),
                round_ref=ref,
                game_code="test_slot",
            )
            at += timedelta(seconds=2)
    now = at + timedelta(seconds=s["after"])
    if s["panic"]:
        panic_press(player=player, actor=Actor.player(player), now=now - timedelta(minutes=1))
    return player, kind, now


def _game_max(kind: str) -> Money | None:
    return GAME_MAX if kind_rules(kind).stake_grid else None


def _gate(player: Any, kind: str, stake: int, now: datetime) -> Any:
    from accounts.models import Player

    fresh = Player.objects.select_related("user").get(pk=player.pk)  # as the token authentication loads it
    return _locked(
        stake_gate,
        fresh,
        kind=kind,
        stake=Money(stake),
        game_code="test_slot",
        game_max_bet=_game_max(kind),
        now=now,
        round_ref=f"parity:{next(_refs)}",
    )


def _used(views: dict[str, Any], limit: str, kind: str, player: Any, now: datetime) -> int:
    if limit == "hourly_loss":
        return selectors.hourly_loss(player, kind, now).used
    return int(views[limit].used)


def _reads_agree(player: Any, kind: str, now: datetime) -> None:
    """The gate's one locking statement against the selectors' own queries."""
    from limits.services.counters import kind_state_read_locked

    with transaction.atomic():
        read = kind_state_read_locked(player, kind, now)
    totals = selectors.period_totals(player, kind, now)
    for mine, theirs in ((read.totals.day, totals.day), (read.totals.month, totals.month)):
        assert (mine.stakes_placed, mine.bets_placed, mine.stakes_decided, mine.wins_decided, mine.bets_decided) == (
            theirs.stakes_placed,
            theirs.bets_placed,
            theirs.stakes_decided,
            theirs.wins_decided,
            theirs.bets_decided,
        )
    assert read.hourly.used == selectors.hourly_loss(player, kind, now).used
    in_force = {row[0]: value_in_force(*row[1:], now) for row in read.self_limits}  # the gate's tuples
    assert {k: v for k, v in in_force.items() if v is not None} == selectors.effective_limits(player, kind, now)
    assert sum(b.stake for b in read.open_bets) == sum(
        b.stake for b in OpenBet.objects.filter(player=player, kind=kind)
    )
    panic = selectors.active_panic(player, now)
    assert read.panic == (None if panic is None else (panic.started_at, panic.ends_at))


@settings(
    max_examples=100,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(s=state)
def test_the_gate_decides_on_what_the_selectors_show_the_player(s: dict[str, Any]) -> None:
    with override_settings(GP={**_gp(), "MAX_HOURLY_LOSS": s["hourly_cap"]}):
        player, kind, now = _build(s)
        _reads_agree(player, kind, now)
        rules = kind_rules(kind)
        room = selectors.money_limit_room(player, kind, now).amount
        views = {v.limit_type: v for v in selectors.self_limits(player, kind, now)}
        play = selectors.play_status(player, now, kind=kind)
        step = 10 if rules.stake_grid else 1
        open_round = OpenBet.objects.filter(player=player, kind=kind).exists()
        if s["panic"]:
            with pytest.raises(DomainError) as exc:
                _gate(player, kind, max(room, step), now)
            assert exc.value.code == errors.PANIC_EXCLUSION.code
            return
        if rules.one_open_round and open_round:  # (the history settles every technical bet)
            pytest.fail("a technical history leaves no open round")
        if play["break_required"]:
            with pytest.raises(DomainError) as exc:
                _gate(player, kind, max(room, step), now)
            assert exc.value.code == errors.BREAK_REQUIRED.code
            assert exc.value.details["break_ends_at"] == play["break_ends_at"]
            return
        if room >= step:
            allowed = _gate(player, kind, room, now).allowed
            assert allowed.max_stake_now.amount == room  # what the player is shown is what the gate allows
            if rules.play_break:
                assert allowed.play_seconds_left == play["play_seconds_left"]
        if not rules.hourly_loss and all(v is None for v in s["limits"].values()):
            return  # no money limit at all (odds): nothing to be refused by
        over = room + step
        with pytest.raises(DomainError) as exc:
            _gate(player, kind, over, now)
        refusal = exc.value
        limit = MONEY_ERRORS.get(
            refusal.code, "hourly_loss" if refusal.code == errors.HOURLY_LOSS_EXCEEDED.code else None
        )
        assert limit is not None, refusal.code
        assert refusal.details["used"].amount == _used(views, limit, kind, player, now)
        assert refusal.details["max_stake_now"].amount == room
        if limit != "hourly_loss":
            assert refusal.details["value"].amount == views[limit].value


def _gp() -> dict[str, Any]:
    from django.conf import settings as django_settings

    return dict(django_settings.GP)
