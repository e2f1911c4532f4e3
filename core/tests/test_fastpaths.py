"""The library patches of ``core/fastpaths.py`` (installed by ``core.apps.CoreConfig.ready()`` in every process,
so in this one): each is installed, does what the library did (compared with the library's own code on the same
inputs, sync, threads and async), costs no exception where the library raised one, and a test per patch fails when
the library changes so that the patch no longer applies (or is no longer needed)."""

from __future__ import annotations

import asyncio
import functools
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from asgiref.local import Local
from django.conf import LazySettings, settings
from django.core.exceptions import SynchronousOnlyOperation
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import override_settings
from django.utils.asyncio import async_unsafe
from django.utils.functional import LazyObject
from django.utils.regex_helper import _lazy_re_compile

from core import fastpaths

#: the objects under test as Django builds them at run time (django-stubs declare neither the connection handler's
#: storage nor the lazy settings' wrapped object and arbitrary names)
handler: Any = connections
lazy: Any = settings


@contextmanager
def exceptions_raised() -> Iterator[list[str]]:
    """The exceptions raised in Python frames (and by the C functions they call) while the block runs, by type:
    what the patches are there to avoid."""
    seen: list[str] = []

    def trace(frame: Any, event: str, arg: Any) -> Any:
        if event == "exception":
            seen.append(arg[0].__name__)
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield seen
    finally:
        sys.settrace(previous)


def in_a_new_thread(fn: Callable[[], Any]) -> Any:
    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(fn()))
    thread.start()
    thread.join()
    return out[0]


# 1. the connections' storage ------------------------------------------------------------------------------------


def test_the_connections_storage_is_installed_and_reads_without_an_exception_in_a_sync_thread():
    """Django's ``connections[alias]`` read asgiref's Local, which raised and caught a RuntimeError
    (``get_running_loop``) on every access in a thread without an event loop; fails on the old code."""
    assert type(handler._connections) is fastpaths._ConnectionsLocal
    # what the install relies on (else it leaves asgiref's Local alone): asgiref's thread-critical Local keeps the
    # sync values in a plain threading.local, its "_storage"
    fresh = Local(thread_critical=True)
    assert type(object.__getattribute__(fresh, "_storage")) is threading.local
    assert type(fresh) is fastpaths._asgiref_thread_critical_class()
    first = connections["default"]
    with exceptions_raised() as seen:
        for _ in range(3):
            assert connections["default"] is first
    assert seen == []


def _scenario(make: Callable[[], Any]) -> dict[str, Any]:
    """What a thread-critical local shows: per thread in sync code, per task context (and apart from the thread's
    sync values) in a thread that runs an event loop; values set before and after the loop; deletion."""
    local = make()
    local.a = "main"
    seen: dict[str, Any] = {"main": local.a}
    seen["other thread sees main's"] = in_a_new_thread(lambda: hasattr(local, "a"))

    def other_thread() -> Any:
        local.a = "other"
        return local.a

    seen["other thread's own"] = in_a_new_thread(other_thread)
    seen["main after other"] = local.a

    async def task(name: str) -> Any:
        had = hasattr(local, "a")
        local.a = name
        await asyncio.sleep(0)
        return had, local.a

    async def loop_body() -> Any:
        before = hasattr(local, "a")
        local.a = "loop"
        tasks = await asyncio.gather(task("t1"), task("t2"))
        return before, local.a, tasks

    seen["in a loop (main thread)"] = asyncio.run(loop_body())
    seen["main after loop"] = local.a
    seen["in a loop (new thread)"] = in_a_new_thread(lambda: asyncio.run(loop_body()))
    del local.a
    seen["deleted"] = hasattr(local, "a")
    with pytest.raises(AttributeError) as missing:
        local.a  # noqa: B018
    seen["missing"] = str(missing.value)
    return seen


def test_the_connections_storage_behaves_as_asgirefs_thread_critical_local_in_threads_and_event_loops():
    """The same scenario on asgiref's own ``Local(thread_critical=True)`` and on one behind ``_ConnectionsLocal``
    gives the same observations (async code keeps its per-context values apart from the thread's sync ones)."""
    theirs = _scenario(lambda: Local(thread_critical=True))
    ours = _scenario(lambda: fastpaths._ConnectionsLocal(Local(thread_critical=True)))
    assert ours == theirs
    assert theirs["in a loop (main thread)"][0] is False  # the loop does not see the thread's sync value


def test_values_stored_before_the_swap_stay_visible_and_async_code_gets_its_own_connection():
    """The swap keeps asgiref's storage: what was stored before is read after; code in an event loop gets a
    connection object of its own, as with asgiref."""
    original = Local(thread_critical=True)
    original.default = "kept"
    assert fastpaths._ConnectionsLocal(original).default == "kept"

    async def in_loop() -> Any:
        return connections["default"]

    assert asyncio.run(in_loop()) is not connections["default"]


# 2. async_unsafe -------------------------------------------------------------------------------------------------


def test_every_async_unsafe_method_of_the_database_wrappers_is_rewrapped():
    """Django's decorator is recognised by its code object and closure (func, message): fails when Django changes
    it (then nothing is rewrapped and the methods keep Django's own check)."""
    probe = async_unsafe("the message")(len)
    assert fastpaths._async_unsafe_parts(probe) == (len, "the message")
    left = [
        f"{cls.__qualname__}.{name}"
        for cls in fastpaths._subclasses(BaseDatabaseWrapper)
        for name, value in vars(cls).items()
        if fastpaths._async_unsafe_parts(value) is not None
    ]
    assert left == []
    backend = type(connections["default"])
    assert getattr(backend.cursor, "_fast_async_unsafe", False)
    assert getattr(backend.create_cursor, "_fast_async_unsafe", False)


def _outcome(fn: Callable[..., Any]) -> Any:
    try:
        return ("returned", fn(1, b=2))
    except SynchronousOnlyOperation as exc:
        return ("refused", str(exc))


@pytest.mark.parametrize("allowed", [False, True])
def test_the_rewrapped_check_answers_as_djangos_in_sync_code_in_an_event_loop_and_with_the_override(
    allowed, monkeypatch
):
    """Same result as ``async_unsafe(message)(func)`` in a sync thread, in an event loop (refused) and in an event
    loop with ``DJANGO_ALLOW_ASYNC_UNSAFE`` (allowed), with the same message and the same wrapped function."""
    if allowed:
        monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    else:
        monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)

    def func(a: int, b: int) -> int:
        return a + b

    theirs, ours = async_unsafe("not here")(func), fastpaths.fast_async_unsafe(func, "not here")

    async def in_loop(fn: Callable[..., Any]) -> Any:
        return _outcome(fn)

    assert _outcome(ours) == _outcome(theirs) == ("returned", 3)
    assert asyncio.run(in_loop(ours)) == asyncio.run(in_loop(theirs))
    assert asyncio.run(in_loop(ours))[0] == ("returned" if allowed else "refused")
    assert ours.__wrapped__ is theirs.__wrapped__ is func  # type: ignore[attr-defined]


@pytest.mark.django_db
def test_a_cursor_is_refused_in_an_event_loop_and_opened_without_an_exception_in_a_sync_thread(monkeypatch):
    """The real methods: ``cursor()`` in an event loop still raises SynchronousOnlyOperation; in sync code it raises
    nothing (Django's check raised and caught a RuntimeError each time: fails on the old code)."""
    monkeypatch.delenv("DJANGO_ALLOW_ASYNC_UNSAFE", raising=False)

    async def in_loop() -> Any:
        connection.cursor()

    with pytest.raises(SynchronousOnlyOperation):
        asyncio.run(in_loop())
    connection.ensure_connection()
    with exceptions_raised() as seen:
        with connection.cursor() as cur:
            cur.execute("SELECT 1")
    assert "RuntimeError" not in seen


# 3. settings -----------------------------------------------------------------------------------------------------


def _django_read(name: str) -> Any:
    """A setting read by Django's own ``LazyObject.__getattribute__`` (the masking one), whatever is installed."""
    try:
        return ("value", LazyObject.__getattribute__(settings, name))
    except AttributeError:
        try:
            return ("value", LazySettings.__getattr__(settings, name))
        except AttributeError:
            return ("missing",)


def _read(name: str) -> Any:
    try:
        return ("value", getattr(settings, name))
    except AttributeError:
        return ("missing",)


def test_settings_are_read_without_a_python_call_once_cached():
    """A cached setting was read through ``LazyObject.__getattribute__`` (a Python call and a ``_mask_wrapped``
    look-up each time); now in C: fails on the old code."""
    assert vars(LazySettings).get("__getattribute__") is object.__getattribute__
    assert "__getattribute__" in vars(LazyObject)  # Django still masks: else the patch is no longer needed
    settings.USE_TZ, settings.DEBUG  # noqa: B018  (read once: cached)
    calls: list[str] = []

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            calls.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        settings.USE_TZ  # noqa: B018
        settings.DEBUG  # noqa: B018
    finally:
        sys.setprofile(None)
    assert calls == []


def test_every_setting_reads_as_through_djangos_lazy_object_and_overrides_still_apply():
    """Every setting's value equals Django's masking read of it; ``override_settings``, assignment and deletion
    are seen at once and undone; an unknown name is still an AttributeError."""
    names = [n for n in dir(lazy._wrapped) if n.isupper()]
    assert len(names) > 100
    for name in names:
        assert _read(name) == _django_read(name), name
    assert _read("NO_SUCH_SETTING") == _django_read("NO_SUCH_SETTING") == ("missing",)
    before = settings.USE_TZ
    with override_settings(USE_TZ=not before, PLATFORM_FASTPATHS_PROBE=7):
        assert settings.USE_TZ is (not before) and lazy.PLATFORM_FASTPATHS_PROBE == 7
        assert _read("USE_TZ") == _django_read("USE_TZ")
    assert settings.USE_TZ is before and _read("PLATFORM_FASTPATHS_PROBE") == ("missing",)
    lazy.PLATFORM_FASTPATHS_PROBE = 8
    try:
        assert lazy.PLATFORM_FASTPATHS_PROBE == 8
    finally:
        del lazy.PLATFORM_FASTPATHS_PROBE
    assert _read("PLATFORM_FASTPATHS_PROBE") == ("missing",)


def test_the_only_difference_is_hasattr_of_lazy_objects_operator_proxies():
    """Django's masking answered ``hasattr(settings, "__len__")`` for the wrapped Settings; now the proxy is
    found. Exactly LazyObject's operator proxies the wrapped object lacks differ, and the operators still act as
    before (``str``, ``==``, ``bool``, ``len`` refused)."""
    proxies = {n for n in dir(LazySettings) if getattr(getattr(LazySettings, n), "_mask_wrapped", True) is False}
    differ = set()
    for name in set(dir(LazyObject)) | set(dir(lazy._wrapped)) | set(dir(settings)):
        try:
            LazyObject.__getattribute__(settings, name)
            theirs = True
        except AttributeError:
            theirs = hasattr(lazy._wrapped, name)
        if hasattr(settings, name) != theirs:
            differ.add(name)
    assert differ <= proxies
    assert differ == {n for n in proxies if not hasattr(lazy._wrapped, n)}
    assert str(settings) == str(lazy._wrapped) and settings == lazy._wrapped and bool(settings)
    with pytest.raises(TypeError):
        len(lazy)


# 5. lazy regular expressions ---------------------------------------------------------------------------------------


def test_the_hot_lazy_regexes_are_compiled_patterns_that_match_as_djangos():
    """Each of Django's lazily compiled patterns a request reads is held compiled where Django reads it (a proxy
    on the old code: fails there; and fails when Django renames or moves one, which would leave it a proxy), and
    it answers as Django's own lazy object built from the same pattern and flags."""
    for module, class_name, attribute in fastpaths.HOT_LAZY_REGEXES:
        holder: Any = module if class_name is None else getattr(module, class_name)
        compiled = getattr(holder, attribute)
        assert type(compiled) is re.Pattern, (module.__name__, class_name, attribute)
        theirs = _lazy_re_compile(compiled.pattern, compiled.flags)
        for text in ("/cs/hra", "/api/v1/rounds", "a, b ,c", "name DESC", "x\x00y", "text/html; charset=utf-8", ""):
            assert _found(compiled.search(text)) == _found(theirs.search(text))
            assert _found(compiled.match(text)) == _found(theirs.match(text))
            assert compiled.split(text) == theirs.split(text)


def _found(match: re.Match[str] | None) -> Any:
    return None if match is None else (match.span(), match.groups())


# 7. connections.all(initialized_only=True) ----------------------------------------------------------------------


def test_connections_all_is_installed_and_answers_as_djangos_in_every_state():
    """The initialized connections (what ``close_old_connections`` and ``reset_queries`` walk) are the ones Django's
    ``all`` gives, the same objects in the same order: none opened in a new thread, one, both, and in a thread that
    runs an event loop (Django's own ``all`` there); ``initialized_only=False`` is Django's."""
    from django.db.utils import ConnectionHandler
    from django.utils.connection import BaseConnectionHandler

    assert vars(ConnectionHandler)["all"] is fastpaths.connections_all

    def both() -> tuple[list[Any], list[Any]]:
        return list(connections.all(initialized_only=True)), list(BaseConnectionHandler.all(connections, True))

    def states() -> list[tuple[list[Any], list[Any]]]:
        out = [both()]
        connections["refusal_log"]
        out.append(both())
        connections["default"]
        out.append(both())
        return out

    for ours, djangos in in_a_new_thread(states):
        assert ours == djangos and all(a is b for a, b in zip(ours, djangos, strict=True))
    assert [c.alias for c in in_a_new_thread(states)[1][0]] == ["refusal_log"]
    assert [c.alias for c in in_a_new_thread(states)[2][0]] == list(settings.DATABASES)  # the settings' order

    async def in_a_loop() -> tuple[list[Any], list[Any]]:
        return both()

    ours, djangos = in_a_new_thread(lambda: asyncio.run(in_a_loop()))
    assert ours == djangos
    assert connections.all() == BaseConnectionHandler.all(connections)


def test_close_old_connections_reaches_every_connection_the_thread_set_up():
    """Django's receiver walks ``all(initialized_only=True)``: each connection this thread set up is checked."""
    from django.db import close_old_connections

    def run() -> list[str]:
        checked: list[str] = []
        for alias in settings.DATABASES:
            conn: Any = connections[alias]
            conn.close_if_unusable_or_obsolete = functools.partial(checked.append, alias)
        close_old_connections()
        return checked

    assert in_a_new_thread(run) == list(settings.DATABASES)


def test_djangos_connection_handler_all_is_still_the_one_the_patch_answers_for():
    """Fails when Django changes ``all`` so that the patch no longer applies (it is then left alone)."""
    import inspect

    from django.db.utils import ConnectionHandler
    from django.utils.connection import BaseConnectionHandler

    assert [c for c in ConnectionHandler.__mro__ if "all" in vars(c)] == [ConnectionHandler, BaseConnectionHandler]
    assert list(inspect.signature(BaseConnectionHandler.all).parameters) == ["self", "initialized_only"]
    assert fastpaths._django_all is BaseConnectionHandler.all
    # it asks the storage this one reads, for the aliases of the settings, and returns connections[alias]
    assert "if not initialized_only or hasattr(self._connections, alias)" in inspect.getsource(
        BaseConnectionHandler.all
    )


# 8. the request signals' receivers cached ------------------------------------------------------------------------


def test_the_request_signals_cache_their_receivers_and_a_receiver_connected_at_run_time_runs():
    from django.core import signals
    from django.core.handlers.wsgi import WSGIHandler

    for signal in fastpaths.REQUEST_SIGNALS:
        assert signal.use_caching and type(signal.sender_receivers_cache) is dict
    started = signals.request_started
    seen: list[tuple[Any, dict[str, Any]]] = []

    def receiver(sender: Any, **kwargs: Any) -> None:
        seen.append((sender, kwargs))

    # sent from a thread of their own: this test's thread may not reach the database (close_old_connections would)
    in_a_new_thread(lambda: started.send(sender=WSGIHandler, environ={}))
    assert WSGIHandler in started.sender_receivers_cache  # the cache holds this sender's receivers now
    started.connect(receiver)
    try:
        in_a_new_thread(lambda: started.send(sender=WSGIHandler, environ={"a": 1}))
        # sender=None: HttpResponse.close() of a response no handler served
        in_a_new_thread(lambda: started.send(sender=None, environ={"b": 2}))
        assert seen == [
            (WSGIHandler, {"signal": started, "environ": {"a": 1}}),
            (None, {"signal": started, "environ": {"b": 2}}),
        ]
    finally:
        started.disconnect(receiver)
    in_a_new_thread(lambda: started.send(sender=WSGIHandler, environ={}))
    assert len(seen) == 2  # disconnected: no longer called

    only_one: list[Any] = []

    def for_one_sender(sender: Any, **kwargs: Any) -> None:
        only_one.append(sender)

    signals.request_finished.connect(for_one_sender, sender=WSGIHandler)
    try:
        in_a_new_thread(lambda: signals.request_finished.send(sender=WSGIHandler))
        in_a_new_thread(lambda: signals.request_finished.send(sender=None))
    finally:
        signals.request_finished.disconnect(for_one_sender, sender=WSGIHandler)
    assert only_one == [WSGIHandler]


def test_a_weakly_connected_receiver_that_is_gone_is_no_longer_called():
    import gc

    from django.core import signals
    from django.core.handlers.wsgi import WSGIHandler

    calls: list[int] = []

    class Owner:
        def receive(self, **kwargs: Any) -> None:
            calls.append(1)

    owner = Owner()
    signals.request_finished.connect(owner.receive)
    in_a_new_thread(lambda: signals.request_finished.send(sender=WSGIHandler))
    del owner
    gc.collect()
    in_a_new_thread(lambda: signals.request_finished.send(sender=WSGIHandler))
    assert calls == [1]


def test_every_receivers_effect_still_happens_on_the_request_signals(monkeypatch):
    """Django's own receivers: the queries reset, the urlconf reset, the caches closed, old connections closed."""
    from django.core import signals
    from django.core.cache import caches
    from django.core.handlers.wsgi import WSGIHandler
    from django.urls import get_urlconf, set_urlconf

    def run() -> dict[str, Any]:
        out: dict[str, Any] = {}
        conn = connections["default"]
        conn.queries_log.append({"sql": "x", "time": "0"})
        checked: list[str] = []
        conn.close_if_unusable_or_obsolete = lambda: checked.append("started")  # type: ignore[method-assign]
        signals.request_started.send(sender=WSGIHandler, environ={})
        out["queries"], out["checked"] = len(conn.queries_log), list(checked)
        closed: list[int] = []
        cache = caches["default"]
        monkeypatch.setattr(cache, "close", lambda **kwargs: closed.append(1))
        set_urlconf("config.urls")
        conn.close_if_unusable_or_obsolete = lambda: checked.append("finished")  # type: ignore[method-assign]
        signals.request_finished.send(sender=WSGIHandler)
        out["urlconf"], out["closed"], out["checked_after"] = get_urlconf(), closed, checked
        return out

    out = in_a_new_thread(run)
    assert out == {
        "queries": 0,
        "checked": ["started"],
        "urlconf": None,
        "closed": [1],
        "checked_after": ["started", "finished"],
    }


def test_djangos_signal_still_caches_per_sender_as_the_patch_relies_on():
    """Fails when Django's ``Signal`` no longer reads ``use_caching``/``sender_receivers_cache`` or no longer clears
    the cache on ``connect``/``disconnect`` (the patch is then left alone or would keep stale receivers)."""
    from django.dispatch import Signal

    names = Signal._live_receivers.__code__.co_names
    assert "use_caching" in names and "sender_receivers_cache" in names
    signal = Signal(use_caching=True)
    signal.sender_receivers_cache = {}

    def receiver(**kwargs: Any) -> None:
        pass

    signal.connect(receiver)
    signal.send(sender=int)
    assert signal.sender_receivers_cache  # populated by send
    signal.connect(lambda **kwargs: None, weak=False)
    assert not signal.sender_receivers_cache  # cleared by connect
    signal.send(sender=int)
    assert signal.sender_receivers_cache
    signal.disconnect(receiver)
    assert not signal.sender_receivers_cache  # cleared by disconnect
