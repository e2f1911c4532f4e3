"""The error definitions an API operation can give, derived from the code: the OpenAPI schema lists them
per operation (``core.schema.AutoSchema``) so a client knows every ``code`` it has to handle.

Nothing is written by hand: :func:`reachable_errors` reads the source of the view method and, through the names it
uses, of every function of the platform it calls (services, selectors, rules of any app, at any depth), and
collects each :class:`~core.errors.ErrorDef` those functions name (``raise errors.INSUFFICIENT_FUNDS(...)``,
``raise NOT_FOUND()``). The view's permission and authentication classes are read the same way. It is an upper
bound: a code listed is one the operation's code path names, not one every call gives. Refusals an engine builds
at run time (a game's ``BetError`` codes) are not ``ErrorDef`` constants; the schema names them as ``game.*`` in
the game's description.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
import types
from functools import cache, lru_cache
from typing import Any

from django.apps import apps
from django.conf import settings

from core.errors import ErrorDef

MAX_DEPTH = 12


def _own(obj: Any) -> bool:
    """A function, class or module of the platform itself (a folder of this repository), not a library's."""
    module = getattr(obj, "__module__", None) if not isinstance(obj, types.ModuleType) else obj.__name__
    return isinstance(module, str) and module.split(".")[0] in _project_packages()


@lru_cache(maxsize=1)
def _project_packages() -> frozenset[str]:
    base = str(settings.BASE_DIR)
    return frozenset(c.name.split(".")[0] for c in apps.get_app_configs() if str(c.path).startswith(base))


def _unwrap(func: Any) -> Any:
    while hasattr(func, "__wrapped__"):
        func = func.__wrapped__
    return func


def _resolve(node: ast.AST, scope: dict[str, Any], owner: type | None) -> Any:
    """The object a name or a dotted attribute (``errors.X``, ``services.deposit_start``, ``self._check``) means."""
    if isinstance(node, ast.Name):
        if node.id in scope:
            return scope[node.id]
        return getattr(__builtins__, node.id, None) if not isinstance(__builtins__, dict) else __builtins__.get(node.id)
    if isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id in ("self", "cls") and owner is not None:
            return inspect.getattr_static(owner, node.attr, None)
        base = _resolve(node.value, scope, owner)
        if base is None:
            return None
        try:
            return (
                inspect.getattr_static(base, node.attr, None)
                if isinstance(base, type)
                else getattr(base, node.attr, None)
            )
        except Exception:  # noqa: BLE001 - a property or a lazy object: not a name the walk follows
            return None
    return None


def _function(obj: Any) -> Any:
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    obj = _unwrap(obj)
    return obj if isinstance(obj, types.FunctionType) else None


@cache
def _direct(func: types.FunctionType, owner: type | None) -> tuple[frozenset[ErrorDef], tuple[Any, ...]]:
    """The ErrorDefs ``func`` names itself and the platform's functions (and their owner class) it calls."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    except (OSError, TypeError, SyntaxError):
        return frozenset(), ()
    scope = {**func.__globals__}
    if func.__closure__:
        scope.update(
            {
                name: cell.cell_contents
                for name, cell in zip(func.__code__.co_freevars, func.__closure__)
                if _cell_ok(cell)
            }
        )
    found: set[ErrorDef] = set()
    calls: list[Any] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Name, ast.Attribute)):
            continue
        obj = _resolve(node, scope, owner)
        if isinstance(obj, ErrorDef):
            found.add(obj)
            continue
        target = _function(obj)
        if target is not None and _own(target) and target is not func:
            klass = (
                owner
                if isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
                else _owner_of(target)
            )
            calls.append((target, klass))
        elif isinstance(obj, type) and _own(obj):
            for name in ("__init__", "__call__", "validate", "has_permission", "has_object_permission"):
                method = _function(obj.__dict__.get(name))
                if method is not None:
                    calls.append((method, obj))
    return frozenset(found), tuple(calls)


def _cell_ok(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _owner_of(func: types.FunctionType) -> type | None:
    """The class a method was defined on (``Cls.method``), so its ``self.x`` names resolve; None for a function."""
    qual = func.__qualname__.split(".")
    if len(qual) < 2 or "<locals>" in qual:
        return None
    obj: Any = inspect.getmodule(func)
    for part in qual[:-1]:
        obj = getattr(obj, part, None)
    return obj if isinstance(obj, type) else None


def reachable_errors(*entries: tuple[Any, type | None]) -> set[ErrorDef]:
    """Every ErrorDef the functions in ``entries`` ((function, its class or None)) name, directly or through the
    platform's functions they call."""
    found: set[ErrorDef] = set()
    seen: set[Any] = set()
    todo = [(func, owner, 0) for func, owner in entries]
    while todo:
        func, owner, depth = todo.pop()
        func = _function(func)
        if func is None or (func, owner) in seen or depth > MAX_DEPTH:
            continue
        seen.add((func, owner))
        errors, calls = _direct(func, owner)
        found |= errors
        todo += [(callee, klass, depth + 1) for callee, klass in calls]
    return found


def view_errors(view: Any, method: str) -> set[ErrorDef]:
    """The ErrorDefs an operation (a DRF view and an HTTP method) can give: its handler, the view's own hooks it
    runs (``get_queryset``, ``get_object``), and its permission and authentication classes."""
    cls = view if isinstance(view, type) else type(view)
    entries: list[tuple[Any, type | None]] = []
    handler = inspect.getattr_static(cls, method.lower(), None)
    if handler is not None:
        entries.append((handler, _owner_of(_function(handler)) if _function(handler) else cls))
    for hook in ("get_queryset", "get_object", "initial"):
        own = inspect.getattr_static(cls, hook, None)
        if _function(own) is not None and _own(_function(own)):
            entries.append((own, cls))
    for klass in [*getattr(cls, "permission_classes", []), *getattr(cls, "authentication_classes", [])]:
        if _own(klass):
            for name in ("has_permission", "has_object_permission", "authenticate", "authenticate_credentials"):
                fn = inspect.getattr_static(klass, name, None)
                if _function(fn) is not None:
                    entries.append((fn, klass))
    return reachable_errors(*entries)
