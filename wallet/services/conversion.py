"""Temporary -> player account at completion (GP §5(2)d, §5(5): the only transfer between accounts)."""

from __future__ import annotations

from django.db import transaction

from accounts.models import Player
from core import clock
from core.audit import Actor, audit_record
from core.money import Money
from wallet import errors
from wallet.ledger import apply_credit_to_debt, player_account, post, set_debt, wallet_lock
from wallet.models import Debt, LedgerAccount, LedgerTransaction, Wallet
from wallet.selectors import player_status_fresh

AccountKind = LedgerAccount.Kind
CONVERTIBLE_STATUSES = ("applicant", "temporary", "active", "suspended")


def convert_locked(*, wallet: Wallet, player: Player, actor: Actor) -> LedgerTransaction | None:
    """The GP §5(2)d move itself (caller holds the wallet lock): the temporary balance, and a recorded debt with
    it, to the player account; the wallet becomes a full account."""
    temp = player_account(player.pk, AccountKind.PLAYER_TEMPORARY)
    main = player_account(player.pk, AccountKind.PLAYER_MAIN)
    txn = None
    amount = temp.balance
    if amount != 0:
        if amount < 0:  # a recorded debt moves with the balance
            set_debt(main, main.debt + temp.debt)
        txn = post(
            kind=LedgerTransaction.Kind.CONVERSION,
            reference=f"conversion:{player.pk}",
            legs=[(temp, -amount), (main, amount)],
            player_id=player.pk,
            amount=abs(amount),
            actor=actor,
            memo="temporary account -> player account (GP §5(2)d)",
        )
        if temp.debt:
            Debt.objects.filter(account=temp).update(account=main)
            set_debt(temp, 0)
            apply_credit_to_debt(main)
    now = clock.now()
    Wallet.objects.filter(pk=wallet.pk).update(mode=Wallet.Mode.FULL, converted_at=now)
    wallet.mode, wallet.converted_at = Wallet.Mode.FULL, now
    audit_record(
        actor=actor,
        action="wallet.temporary_converted",
        obj=wallet,
        old={"mode": "temporary"},
        new={"mode": "full"},
        moved=Money(amount),
        player_id=player.pk,
    )
    return txn


def sync_mode(wallet: Wallet, player: Player, actor: Actor) -> Wallet:
    """A player whose registration completed (status active) while the wallet still runs the temporary
    account gets the GP §5(2)d move now (the accounts app normally calls ``wallet_convert_temporary``).
    Caller holds the wallet lock."""
    if wallet.mode == Wallet.Mode.TEMPORARY and player.status == "active":
        convert_locked(wallet=wallet, player=player, actor=actor)
    return wallet


def wallet_convert_temporary(*, player: Player, actor: Actor) -> LedgerTransaction | None:
    """Move the temporary account's balance to the player account of the same person when registration
    completes (GP §5(2)d, §5(5)). Idempotent: a converted wallet is left as it is (returns None).

    Called by ``accounts.services.registration_complete`` while the player is still temporary, in its
    transaction; also valid once the status is active."""
    status = player_status_fresh(player)
    if status not in CONVERTIBLE_STATUSES:
        raise errors.CONVERSION_STATE(state=status)
    with transaction.atomic():
        wallet = wallet_lock(player=player)
        if wallet.mode == Wallet.Mode.FULL:
            return None
        return convert_locked(wallet=wallet, player=player, actor=actor)
