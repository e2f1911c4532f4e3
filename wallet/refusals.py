"""Refusals the wallet's services share (reads that raise a ``wallet.*`` or ``accounts.*`` error).

The account's state comes from the accounts app (``accounts.selectors.money_movement_refusal``, GP §5(3) freezes,
suspension, closing ...) after the status is re-read (``selectors.player_status_fresh``); the temporary account's
cap from the ledger (GP §5(2)b, §5(12)).
"""

from __future__ import annotations

from accounts.models import Player
from accounts.selectors import money_movement_refusal
from core import clock
from core.money import Money
from wallet import errors, rules
from wallet.models import Wallet
from wallet.selectors import method_term_passed, player_status_fresh, temporary_deposited, temporary_pending

DEPOSIT_STATUSES = ("temporary", "active")


def refuse_deposit_if_frozen(player: Player) -> None:
    """Deposits only into a temporary or active account whose money movements are not frozen."""
    status = player_status_fresh(player)
    err = money_movement_refusal(player, direction="deposit")
    if err is not None:
        raise err
    if status not in DEPOSIT_STATUSES:
        raise errors.ACCOUNT_STATE(state=status)


def refuse_deposit_if_method_term_passed(wallet: Wallet) -> None:
    """GP §5(11): a full account that registered no new method within 30 days of losing its last one takes no
    deposit (provider or branch cash) until a method is verified (docs/wallet.md: stakes stay allowed). Call
    under the wallet lock."""
    deadline = method_term_passed(wallet, clock.now())
    if deadline is not None:
        raise errors.METHOD_TERM_PASSED(deadline=deadline, missing_since=wallet.method_missing_since)


def refuse_withdrawal_state(player: Player) -> None:
    """GP §5(2)c: nothing is withdrawn from a temporary account; withdrawals need the full account."""
    status = player_status_fresh(player)
    if status == "temporary":
        raise errors.TEMPORARY_NO_WITHDRAWAL()
    err = money_movement_refusal(player, direction="withdrawal")
    if err is not None:
        raise err
    if status != "active":
        raise errors.WITHDRAWAL_NOT_FULL_ACCOUNT(state=status)


def check_temporary_cap(player_id: int, amount: int, *, include_pending: bool) -> None:
    """GP §5(2)b, §5(12): the temporary account's deposits, summed over its life, stay within the cap
    (3,000.00 CZK passes, 3,000.01 is refused)."""
    cap = rules.temp_deposit_cap()
    used = temporary_deposited(player_id)
    pending = temporary_pending(player_id) if include_pending else 0
    if used + pending + amount > cap:
        raise errors.TEMPORARY_DEPOSIT_CAP(
            cap=Money(cap),
            deposited=Money(used),
            pending=Money(pending),
            requested=Money(amount),
            remaining=Money(max(0, cap - used - pending)),
        )
