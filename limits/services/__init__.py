"""The gatekeeper's writes. Other apps import from here (``limits.services.<name>``); see docs/contracts.md.

- ``gate``: on every bet :func:`stake_gate` decides (stake grid, account state, panic/self-listing, open round,
  the 120/15 break, session and money limits, the hourly loss), then :func:`stake_placed` counts the stake, or
  :func:`stake_decided_now` counts it placed and decided when its round settles in the same transaction (both
  also as counters returned unwritten, :class:`BetCounters`, for the round's insert to write:
  :func:`stake_placed_counted`, :func:`stake_decided_now`);
  :func:`stake_gate_and_place` is the first two in one call (a bet placed in one step: the limits bench, tests).
- ``settlement``: :func:`stake_settled`, :func:`stake_voided` and :func:`settled_bet_voided` (the counters of
  decided bets; a decided bet declared void, GP §3(6)).
- ``counters``: the (player, kind) state lock, day/month totals and hourly minute buckets (writes; their
  reads are in ``limits.selectors``).
- ``refusals``: the stake-refusal log that survives the caller's rollback.
- ``self_limits``: GP §6 self-limits and the ZHH §14a floor at closing.
- ``login``: the login check and the automatic logout of GP §6(6)f.
- ``exclusions``: the panic button (and its reports to the register), self-listing and the scheduled register
  checks.
- ``responsible``: the responsible-gaming texts and help contacts staff edit (GP §13(4)).

The pure rules (limit comparisons, the stake grid, the max win per round ...) are in ``limits.rules``;
``max_win_per_round`` (GP §8(3)) is re-exported here because games caps a round's win with it.
"""

from limits.kinds import TECHNICAL
from limits.rules import max_win_per_round
from limits.services.counters import BetCounters, minute_buckets_prune
from limits.services.exclusions import (
    exclusion_batches_collect,
    exclusion_sweep,
    panic_press,
    panic_report_send,
    panic_reports_send_due,
    self_listing_request,
    self_listing_send,
    self_listing_send_due,
)
from limits.services.gate import (
    StakeAllowed,
    StakeGate,
    stake_decided_now,
    stake_gate,
    stake_gate_and_place,
    stake_placed,
    stake_placed_counted,
)
from limits.services.login import daily_time_logout_sweep, deposit_refusal, login_check
from limits.services.refusals import refusal_record
from limits.services.responsible import help_contact_save, responsible_text_save
from limits.services.self_limits import (
    limits_account_closed,
    pending_limits_apply,
    self_limit_set,
    self_limits_decide,
)
from limits.services.settlement import settled_bet_voided, stake_settled, stake_voided

__all__ = [
    "BetCounters",
    "max_win_per_round",
    "stake_gate_and_place",
    "stake_settled",
    "stake_voided",
    "settled_bet_voided",
    "login_check",
    "deposit_refusal",
    "self_limit_set",
    "self_limits_decide",
    "pending_limits_apply",
    "limits_account_closed",
    "panic_press",
    "panic_report_send",
    "panic_reports_send_due",
    "self_listing_request",
    "self_listing_send",
    "self_listing_send_due",
    "exclusion_sweep",
    "exclusion_batches_collect",
    "daily_time_logout_sweep",
    "minute_buckets_prune",
    "refusal_record",
    "responsible_text_save",
    "help_contact_save",
    "StakeAllowed",
    "TECHNICAL",
    "StakeGate",
    "stake_gate",
    "stake_placed",
    "stake_placed_counted",
    "stake_decided_now",
]
