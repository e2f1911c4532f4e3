"""Typed calls from a lower app up into the app above it that implements them: the one hook mechanism.

A lower app (``accounts`` below ``limits`` and ``wallet``, ``games`` below ``providers``, ``core`` below every app
whose table it archives) may not import the app above it. Where it needs that app, it declares a *hook*: a
function signature with its meaning, kept in a :class:`Hooks` set. The owning app registers the implementation in
its ``AppConfig.ready()`` with ``<hook>.register(fn)``; mypy checks ``fn`` against the declared signature, and the
caller calls the hook object itself (``hooks.login_check(player=..., now=...)``), so go-to-definition leads to the
declaration and a renamed keyword fails the type check, not a request.

Declaring::

    hooks = Hooks("accounts", check_id="accounts.E001")

    @hooks.declare
    def login_check(*, player: Player, now: datetime) -> None:
        \"\"\"limits: raise when a login is not allowed now.\"\"\"

The set fails closed:

- its system check (``check_id``) reports every declared hook that no app registered, so a missing hook stops
  ``manage.py`` (and the web server, the worker and the tests) from starting; ``warning=True`` makes it a warning
  for a hook whose absence only postpones work (the archiving job keeps a month it cannot carry forward);
- calling an unregistered hook raises :class:`HookMissing`, it never skips the check;
- a hook takes one implementation (registering a second, different one is a programming error).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, ParamSpec, TypeVar

from django.core import checks

P = ParamSpec("P")
R = TypeVar("R")


class HookMissing(RuntimeError):
    """A hook was called that no app registered: the platform is misconfigured, never skip the call."""


class Hook(Generic[P, R]):
    """One declared call: its name, what the implementation must do (``doc``) and, once registered, the
    implementation. Calling the hook calls the implementation."""

    def __init__(self, owner: str, name: str, doc: str) -> None:
        self.owner, self.name, self.doc = owner, name, doc
        self._impl: Callable[P, R] | None = None

    def __repr__(self) -> str:
        return f"<hook {self.owner}.{self.name}>"

    def register(self, fn: Callable[P, R]) -> None:
        """Register ``fn`` as the implementation (from the owning app's ``AppConfig.ready``)."""
        current = self._impl
        if current is not None and current is not fn:
            raise ValueError(
                f"{self.owner} hook {self.name!r} is already registered "
                f"({getattr(current, '__module__', '?')}.{getattr(current, '__qualname__', current)})"
            )
        self._impl = fn

    @property
    def registered(self) -> bool:
        return self._impl is not None

    @property
    def implementation(self) -> Callable[P, R]:
        """The registered implementation; raises :class:`HookMissing` when there is none."""
        if self._impl is None:
            raise HookMissing(f"{self.owner} hook {self.name!r} is not registered ({self.doc})")
        return self._impl

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        return self.implementation(*args, **kwargs)


class Hooks:
    """The hooks one app declares, and the system check that they are all registered."""

    def __init__(self, owner: str, *, check_id: str, warning: bool = False) -> None:
        self.owner, self.check_id, self.warning = owner, check_id, warning
        self._hooks: dict[str, Hook[Any, Any]] = {}

        def hooks_registered_check(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
            return self.check()

        checks.register(hooks_registered_check)

    def declare(self, signature: Callable[P, R]) -> Hook[P, R]:
        """Declare a hook by its signature: a function whose name names the hook and whose docstring says which
        app implements it and what the implementation must do. Its body is never run."""
        return self.add(signature.__name__, (signature.__doc__ or "").strip(), signature)

    def add(self, name: str, doc: str, signature: Callable[P, R]) -> Hook[P, R]:
        """Declare a hook named ``name`` (for hooks declared from data, one per row) typed as ``signature``."""
        if name in self._hooks:
            raise ValueError(f"{self.owner} hook {name!r} is declared twice")
        hook: Hook[P, R] = Hook(self.owner, name, doc)
        self._hooks[name] = hook
        return hook

    def __iter__(self) -> Iterator[Hook[Any, Any]]:
        return iter(self._hooks.values())

    def missing(self) -> list[str]:
        return [name for name, hook in self._hooks.items() if not hook.registered]

    def check(self, app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
        """System check: every declared hook is registered."""
        level = checks.Warning if self.warning else checks.Error
        return [
            level(f"{self.owner} hook {name!r} is not registered", hint=self._hooks[name].doc, id=self.check_id)
            for name in self.missing()
        ]
