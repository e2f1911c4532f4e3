"""Which deferred fields of the token statement's four models (``accounts/sql.py`` ``TOKEN_WITH_OWNER``: the token,
its user, login session and player) a request loads later, each by a statement of its own.

Why: the token statement reads only the columns API requests use and defers the rest; a field read after all costs a
statement on the request that reads it (Django's ``DeferredAttribute`` calls ``refresh_from_db(fields=[name])``).
:func:`recording` wraps the four models' ``refresh_from_db`` and keeps the loads that come from a deferred attribute
(not a view's explicit refresh). ``accounts/tests/test_token_columns.py`` uses it to fail when a hot endpoint loads
one; as a pytest plugin (``-p accounts.tests.deferred_loads`` with ``DEFERRED_LOADS_OUT=<file>``) it records every
such load of a test run with the test and the code that read the field, the way the narrowed list was chosen."""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from collections.abc import Iterator
from typing import Any

import pytest
from django.db.models import Model
from django.db.models.query_utils import DeferredAttribute

#: the loads seen: (model, field, the first frame of the project's code that read it)
Load = tuple[str, str, str]


def _models() -> tuple[type[Model], ...]:
    from accounts.models import AuthToken, LoginSession, Player, User

    return (AuthToken, User, LoginSession, Player)


def _reader() -> str:
    """The first frame outside Django and this module: the code that read the deferred field."""
    for frame in reversed(traceback.extract_stack()[:-3]):
        name = frame.filename
        if "site-packages" in name or name == __file__:
            continue
        return f"{os.path.relpath(name)}:{frame.lineno} {frame.name}"
    return "?"


@contextlib.contextmanager
def recording() -> Iterator[list[Load]]:
    """The deferred-field loads of the four models while the block runs (a list filled as they happen)."""
    loads: list[Load] = []
    saved = []
    for model in _models():
        original = model.__dict__.get("refresh_from_db")
        saved.append((model, original))
        inner = model.refresh_from_db

        def refresh(self: Model, *args: Any, _inner: Any = inner, **kwargs: Any) -> None:
            caller = sys._getframe(1).f_code
            if caller is DeferredAttribute.__get__.__code__:
                fields = kwargs.get("fields") or (args[1] if len(args) > 1 else None) or ["?"]
                loads.extend((type(self).__name__, f, _reader()) for f in fields)
            _inner(self, *args, **kwargs)

        model.refresh_from_db = refresh  # type: ignore[method-assign]
    try:
        yield loads
    finally:
        for model, original in saved:
            if original is None:
                del model.refresh_from_db
            else:
                model.refresh_from_db = original  # type: ignore[method-assign]


_SEEN: dict[tuple[str, str], dict[str, list[str]]] = {}


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with recording() as loads:
        try:
            return (yield)
        finally:
            for model, field, reader in loads:
                _SEEN.setdefault((model, field), {}).setdefault(reader, []).append(item.nodeid)


def pytest_sessionfinish(session: pytest.Session) -> None:
    out = os.environ.get("DEFERRED_LOADS_OUT")
    if out and not session.config.pluginmanager.hasplugin("dsession"):  # the tests' process (an xdist worker)
        rows = {
            f"{m}.{f}": {r: sorted(set(ids))[:5] for r, ids in readers.items()} for (m, f), readers in _SEEN.items()
        }
        if "PYTEST_XDIST_WORKER" in os.environ:
            out = f"{out}.{os.environ['PYTEST_XDIST_WORKER']}"
        with open(out, "w") as fh:
            json.dump(rows, fh, indent=1, sort_keys=True)
