"""Calls from ``accounts`` up into the apps above it (``limits``, ``wallet``, ``aml``), declared and checked.

``accounts`` sits below ``limits``, ``wallet`` and ``aml`` in the layering, so it may not import them. Where an
account event needs them (a login must pass the login limits, a closed account freezes its limits, a completed
registration moves the temporary balance ...), ``accounts`` calls a hook declared here, and the owning app registers
the implementation in its ``AppConfig.ready()`` (``hooks.login_check.register(services.login_check)``). The
mechanism (typed signatures, the system check ``accounts.E001``, :class:`HookMissing`) is ``core.hooks``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from core.hooks import HookMissing, Hooks

if TYPE_CHECKING:
    from accounts.models import Player
    from core.audit import Actor
    from core.errors import DomainError

__all__ = ["HOOKS", "HookMissing"]

HOOKS = Hooks("accounts", check_id="accounts.E001")


@HOOKS.declare
def login_check(*, player: Player, now: datetime) -> datetime | None:
    """limits: raise when a login is not allowed now (login limits, self-listing); the panic button's end when one
    runs (a session for the account only), else None"""


@HOOKS.declare
def deposit_refusal(player: Player) -> DomainError | None:
    """limits: why a deposit is refused now (the panic button's 48 hours), DomainError or None"""


@HOOKS.declare
def account_closed(*, player: Player, actor: Actor, closed_at: datetime | None = None) -> object:
    """limits: freeze the self-limits in force at closing (ZHH §14a)"""


@HOOKS.declare
def self_limits_decided(player: Player, kind: str = "technical") -> bool:
    """limits: has the player decided their self-limits (GP §4(4)e)"""
    raise NotImplementedError


@HOOKS.declare
def temporary_convert(*, player: Player, actor: Actor) -> object:
    """wallet: move the temporary balance to the player account (GP §5(2)d)"""


@HOOKS.declare
def temporary_refund_start(*, player: Player, actor: Actor) -> object:
    """wallet: start the refund of a cancelled temporary account (GP §5(2)e)"""


@HOOKS.declare
def closure_settlement_start(*, player: Player, method: str, actor: Actor) -> object:
    """wallet: start settling the balance of a closing account (GP §5(15))"""


@HOOKS.declare
def misuse_payout_start(*, player: Player, actor: Actor) -> object:
    """wallet: pay the balance of an account closed for misuse to its last method (GP §5(13))"""


@HOOKS.declare
def carried_money_release(*, player: Player, actor: Actor) -> object:
    """games: credit the money the player's carried game states hold (carried bonuses, GP §10(1)-(2)) to the live
    balance before the wallet pays the balance out; raise a DomainError while a round still holds it"""


@HOOKS.declare
def closure_settled_at(player: Player) -> datetime | None:
    """wallet: when the closing account's balance was settled, or None"""


@HOOKS.declare
def has_verified_payment_method(player: Player) -> bool:
    """wallet: does the player have a verified payment method (GP §5(9))"""
    raise NotImplementedError


@HOOKS.declare
def payment_method_deadline(player: Player) -> datetime | None:
    """wallet: until when the player must verify a payment method (GP §5(9), §5(11))"""


@HOOKS.declare
def aml_compliance_refusal(player: Player, direction: str | None = None) -> DomainError | None:
    """aml: why the AML duties refuse a deposit, withdrawal or completion now (GP §4(4)b, §12(1)), DomainError or
    None"""


@HOOKS.declare
def aml_screening_request(*, player: Player, actor: Actor) -> None:
    """aml: screen the person against the PEP / sanctions list after commit (GP §2)"""
