"""The gatekeeper's writes. Other apps import from here (``limits.services.<name>``); see docs/contracts.md.

- ``gate``: :func:`stake_check` on every bet (stake grid, account state, panic/self-listing, open round,
  the 120/15 break, session and money limits, the hourly loss).
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

The pure rules (``win_cap``, limit comparisons, the stake grid ...) are in ``limits.rules``; ``win_cap`` is
re-exported here because games calls it as ``limits.services.win_cap``.
"""
from limits.kinds import TECHNICAL
from limits.rules import max_win_per_round, win_cap
from limits.services.counters import minute_buckets_prune
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
from limits.services.gate import StakeAllowed, StakeGate, stake_check, stake_decided_now, stake_gate, stake_placed
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
    "max_win_per_round", "stake_check", "stake_settled", "stake_voided", "settled_bet_voided", "win_cap", "login_check", "deposit_refusal", "self_limit_set", "self_limits_decide",
    "pending_limits_apply", "limits_account_closed", "panic_press", "panic_report_send", "panic_reports_send_due",
    "self_listing_request", "self_listing_send",
    "self_listing_send_due", "exclusion_sweep", "exclusion_batches_collect", "daily_time_logout_sweep",
    "minute_buckets_prune",
    "refusal_record", "responsible_text_save", "help_contact_save", "StakeAllowed", "TECHNICAL", "StakeGate", "stake_gate", "stake_placed", "stake_decided_now",
]
