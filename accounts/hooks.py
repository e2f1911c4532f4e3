"""Calls from ``accounts`` up into the apps above it (``limits``, ``wallet``), declared and checked.

``accounts`` sits below ``limits`` and ``wallet`` in the layering (core <- accounts <- wallet, limits), so it
may not import them. Where an account event needs them (a login must pass the login limits, a closed account
freezes its limits, a completed registration moves the temporary balance ...), ``accounts`` calls a *hook*
declared here, and the owning app registers the implementation in its ``AppConfig.ready()``.

The registry fails closed:
- every hook in :data:`REQUIRED` must be registered, or the system check ``accounts.E001`` stops
  ``manage.py`` (and so the web server, the worker and the tests) from starting;
- calling an unregistered hook raises :class:`HookMissing` instead of skipping the check;
- a hook may be registered only once (a second registration is a programming error).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core import checks

# name -> what the implementation must do (and which app provides it)
REQUIRED: dict[str, str] = {
    "login_check": "limits: raise when a login is not allowed now (login limits, self-listing); the panic button's "
                   "end when one runs (a session for the account only), else None",
    "deposit_refusal": "limits: why a deposit is refused now (the panic button's 48 hours), DomainError or None",
    "account_closed": "limits: freeze the self-limits in force at closing (ZHH §14a)",
    "self_limits_decided": "limits: has the player decided their self-limits (GP §4(4)e)",
    "temporary_convert": "wallet: move the temporary balance to the player account (GP §5(2)d)",
    "temporary_refund_start": "wallet: start the refund of a cancelled temporary account (GP §5(2)e)",
    "closure_settlement_start": "wallet: start settling the balance of a closing account (GP §5(15))",
    "misuse_payout_start": "wallet: pay the balance of an account closed for misuse to its last method (GP §5(13))",
    "closure_settled_at": "wallet: when the closing account's balance was settled, or None",
    "has_verified_payment_method": "wallet: does the player have a verified payment method (GP §5(9))",
    "payment_method_deadline": "wallet: until when the player must verify a payment method (GP §5(9), §5(11))",
    "aml_compliance_refusal": "aml: why the AML duties refuse a deposit, withdrawal or completion now (GP §4(4)b, "
                              "§12(1)), DomainError or None",
    "aml_screening_request": "aml: screen the person against the PEP / sanctions list after commit (GP §2)",
}

_registry: dict[str, Callable[..., Any]] = {}


class HookMissing(RuntimeError):
    """A hook was called that no app registered: the platform is misconfigured, never skip the check."""


def register(name: str, fn: Callable[..., Any]) -> None:
    """Register ``fn`` as the implementation of hook ``name`` (call from the owner's ``AppConfig.ready``)."""
    if name not in REQUIRED:
        raise ValueError(f"unknown accounts hook {name!r}; declare it in accounts.hooks.REQUIRED")
    current = _registry.get(name)
    if current is not None and current is not fn:
        raise ValueError(f"accounts hook {name!r} is already registered ({current.__module__}.{current.__qualname__})")
    _registry[name] = fn


def hook(name: str) -> Callable[..., Any]:
    """The registered implementation of ``name``; raises :class:`HookMissing` when there is none."""
    try:
        return _registry[name]
    except KeyError:
        raise HookMissing(f"accounts hook {name!r} is not registered ({REQUIRED.get(name, 'undeclared')})") from None


def missing() -> list[str]:
    return [name for name in REQUIRED if name not in _registry]


@checks.register()
def hooks_registered_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """System check: the platform does not start with an account hook missing."""
    return [
        checks.Error(f"accounts hook {name!r} is not registered", hint=REQUIRED[name], id="accounts.E001")
        for name in missing()
    ]
