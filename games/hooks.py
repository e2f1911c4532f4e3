"""Calls from ``games`` up into the apps above it (``providers``), declared and checked (as ``accounts.hooks``).

``games`` sits below ``providers`` in the layering, so it may not import it. Where a round of a remote game (an
outside studio's) needs the provider told something, ``games`` calls a *hook* declared here and
``providers`` registers the implementation in its ``AppConfig.ready()``.

The registry fails closed: every hook in :data:`REQUIRED` must be registered, or the system check ``games.E001``
stops ``manage.py`` (the web server, the worker and the tests) from starting; calling an unregistered hook raises
:class:`HookMissing` instead of skipping the call; a hook may be registered only once.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core import checks

# name -> what the implementation must do (and which app provides it)
REQUIRED: dict[str, str] = {
    "remote_round_cancelled": "providers: tell the remote game's provider that the platform ended its round (GP "
                              "§7(8)b deadline, or staff): the stake returned, or the round settled with the wins "
                              "the provider had sent; called after commit with (provider=, provider_round_id=, "
                              "round_id=, reason=, refunded=, credited=)",
}

_registry: dict[str, Callable[..., Any]] = {}


class HookMissing(RuntimeError):
    """A hook was called that no app registered: the platform is misconfigured, never skip the call."""


def register(name: str, fn: Callable[..., Any]) -> None:
    """Register ``fn`` as the implementation of hook ``name`` (call from the owner's ``AppConfig.ready``)."""
    if name not in REQUIRED:
        raise ValueError(f"unknown games hook {name!r}; declare it in games.hooks.REQUIRED")
    current = _registry.get(name)
    if current is not None and current is not fn:
        raise ValueError(f"games hook {name!r} is already registered ({current.__module__}.{current.__qualname__})")
    _registry[name] = fn


def hook(name: str) -> Callable[..., Any]:
    """The registered implementation of ``name``; raises :class:`HookMissing` when there is none."""
    try:
        return _registry[name]
    except KeyError:
        raise HookMissing(f"games hook {name!r} is not registered ({REQUIRED.get(name, 'undeclared')})") from None


def missing() -> list[str]:
    return [name for name in REQUIRED if name not in _registry]


@checks.register()
def hooks_registered_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    """System check: the platform does not start with a games hook missing."""
    return [checks.Error(f"games hook {name!r} is not registered", hint=REQUIRED[name], id="games.E001")
            for name in missing()]
