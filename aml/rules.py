"""Suspicious-transaction rules (the AML law's monitoring of the business relationship; holds GP §10(3)).

Each rule reads the player's recent money (``aml.activity``) around an *anchor* (the event that can make the
pattern complete: a withdrawal request, a newly registered payment method, a large win) and returns a
:class:`Hit` when the pattern is there. The figures are settings (``settings.AML_RULES``, docs/aml.md); a rule
with ``enabled: false`` finds nothing. Reads only: ``aml.services.rules_evaluate`` opens the cases.

* ``deposit_little_play``: at a withdrawal request, over the ``lookback_days`` before it, deposits of at least
  ``min_deposits`` were staked less than ``max_turnover_percent`` % and at least ``min_withdrawn_percent`` % of
  them is being withdrawn.
* ``many_methods``: a newly registered payment method is at least the ``count``-th the player registered within
  ``window_days``.
* ``rapid_cycles``: at a withdrawal request, at least ``count`` withdrawal requests within ``window_hours`` each
  came less than ``gap_minutes`` after a confirmed deposit (deposit -> withdrawal cycles).
* ``large_win_withdrawn``: within ``within_hours`` of a win of at least ``min_win``, one withdrawal request of at
  least ``min_withdrawn_percent`` % of the win (the win withdrawn at once).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings

from aml import activity
from core.money import Money

RULES = ("deposit_little_play", "many_methods", "rapid_cycles", "large_win_withdrawn")
TICK = timedelta(microseconds=1)  # "up to and including" an instant, with half-open windows


@dataclass(frozen=True)
class Hit:
    rule: str
    player_id: int
    anchor: str  # e.g. "withdrawal:17", "method:4", "win:<reference>"
    window_start: datetime
    window_end: datetime
    summary: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return f"rule:{self.rule}:{self.player_id}:{self.anchor}"


def config(rule: str) -> dict[str, Any]:
    conf: dict[str, Any] = settings.AML_RULES[rule]
    return conf


def enabled(rule: str) -> bool:
    return bool(config(rule).get("enabled"))


def deposit_little_play(player_id: int, withdrawal: activity.Movement) -> Hit | None:
    c = config("deposit_little_play")
    end = withdrawal.at + TICK
    start = withdrawal.at - timedelta(days=int(c["lookback_days"]))
    deposited = activity.deposits_total(player_id, start, end)
    if deposited <= 0 or deposited < int(c["min_deposits"]):
        return None
    staked = activity.stakes_total(player_id, start, end)
    withdrawn = sum(w.amount for w in activity.withdrawals(player_id, start, end))
    if staked * 100 >= deposited * int(c["max_turnover_percent"]):
        return None
    if withdrawn * 100 < deposited * int(c["min_withdrawn_percent"]):
        return None
    return Hit(
        "deposit_little_play",
        player_id,
        f"withdrawal:{withdrawal.id}",
        start,
        end,
        f"deposits {Money(deposited).format('en')} staked {Money(staked).format('en')}, "
        f"withdrawn {Money(withdrawn).format('en')} within {c['lookback_days']} days",
        {"deposited": deposited, "staked": staked, "withdrawn": withdrawn, "withdrawal_id": withdrawal.id},
    )


def many_methods(player_id: int, method: activity.Movement) -> Hit | None:
    c = config("many_methods")
    end = method.at + TICK
    start = method.at - timedelta(days=int(c["window_days"]))
    methods = activity.methods_registered(player_id, start, end)
    if len(methods) < int(c["count"]):
        return None
    return Hit(
        "many_methods",
        player_id,
        f"method:{method.id}",
        start,
        end,
        f"{len(methods)} payment methods registered within {c['window_days']} days",
        {"methods": [m.id for m in methods], "count": len(methods)},
    )


def rapid_cycles(player_id: int, withdrawal: activity.Movement) -> Hit | None:
    c = config("rapid_cycles")
    end = withdrawal.at + TICK
    start = withdrawal.at - timedelta(hours=int(c["window_hours"]))
    gap = timedelta(minutes=int(c["gap_minutes"]))
    deposits = activity.deposits(player_id, start - gap, end)
    cycles = [
        w for w in activity.withdrawals(player_id, start, end) if any(w.at - gap < d.at <= w.at for d in deposits)
    ]
    if len(cycles) < int(c["count"]) or withdrawal.id not in {w.id for w in cycles}:
        return None
    return Hit(
        "rapid_cycles",
        player_id,
        f"withdrawal:{withdrawal.id}",
        start,
        end,
        f"{len(cycles)} deposit -> withdrawal cycles within {c['window_hours']} hours",
        {"withdrawals": [w.id for w in cycles], "count": len(cycles)},
    )


def large_win_withdrawn(win: activity.Win) -> Hit | None:
    c = config("large_win_withdrawn")
    if win.amount < int(c["min_win"]):
        return None
    end = win.at + timedelta(hours=int(c["within_hours"]))
    at_once = [
        w
        for w in activity.withdrawals(win.player_id, win.at, end)
        if w.amount * 100 >= win.amount * int(c["min_withdrawn_percent"])
    ]
    if not at_once:
        return None
    return Hit(
        "large_win_withdrawn",
        win.player_id,
        f"win:{win.reference}",
        win.at,
        end,
        f"win {Money(win.amount).format('en')} withdrawn at once ({Money(at_once[0].amount).format('en')})",
        {
            "win_reference": win.reference,
            "win_amount": win.amount,
            "withdrawal_id": at_once[0].id,
            "withdrawal_amount": at_once[0].amount,
        },
    )


def hits(since: datetime, until: datetime) -> list[Hit]:
    """Every hit whose anchor falls in ``[since, until)`` (a large win: whose withdrawal may fall in it)."""
    found: list[Hit | None] = []
    if enabled("deposit_little_play") or enabled("rapid_cycles"):
        for pk in activity.players_withdrawing(since, until):
            for w in activity.withdrawals(pk, since, until):
                if enabled("deposit_little_play"):
                    found.append(deposit_little_play(pk, w))
                if enabled("rapid_cycles"):
                    found.append(rapid_cycles(pk, w))
    if enabled("many_methods"):
        for pk in activity.players_registering_methods(since, until):
            found += [many_methods(pk, m) for m in activity.methods_registered(pk, since, until)]
    if enabled("large_win_withdrawn"):
        c = config("large_win_withdrawn")
        wins_since = since - timedelta(hours=int(c["within_hours"]))
        found += [large_win_withdrawn(w) for w in activity.large_wins(wins_since, until, int(c["min_win"]))]
    return [h for h in found if h is not None]
