"""``core/fastpaths.py`` 10: a name of :data:`core.fastpaths.LOCAL_FAST_NAMES` read from an asgiref ``Local`` (not
thread-critical) gives what asgiref's own ``__getattr__`` gives, in sync threads, other threads, event loops and
across ``sync_to_async``/``async_to_sync``, set or not, without a failed lookup when it is set."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from asgiref.local import Local
from asgiref.sync import async_to_sync, sync_to_async
from django.core.cache import caches
from django.utils import translation

from core import fastpaths
from core.tests.test_fastpaths import exceptions_raised


def _asgirefs(local: Any, name: str) -> tuple[str, Any]:
    """What asgiref's own ``__getattr__`` answers (the value, or its error's text)."""
    try:
        return "value", type(local).__getattr__(local, name)
    except AttributeError as exc:
        return "error", str(exc)


def _ours(local: Any, name: str) -> tuple[str, Any]:
    try:
        return "value", getattr(local, name)
    except AttributeError as exc:
        return "error", str(exc)


def _same(local: Any) -> None:
    for name in (*fastpaths.LOCAL_FAST_NAMES, "other"):
        assert _ours(local, name) == _asgirefs(local, name), name


def test_the_reads_are_installed_on_asgirefs_default_local():
    cls = fastpaths._default_local_class()
    assert cls is not None and cls is type(Local())
    assert fastpaths.install_local_reads() == len(fastpaths.LOCAL_FAST_NAMES) == 2
    assert all(type(vars(cls)[name]) is fastpaths._LocalValue for name in fastpaths.LOCAL_FAST_NAMES)
    assert fastpaths.install()["local_reads"] == 2
    assert type(Local(thread_critical=True)).__name__ != cls.__name__  # the thread-critical class is left alone


def test_a_value_reads_as_through_asgirefs_getattr_set_unset_and_deleted():
    local = Local()
    _same(local)
    assert not hasattr(local, "value") and getattr(local, "value", "none") == "none"
    local.value, local.default = 1, "a"
    _same(local)
    assert (local.value, local.default) == (1, "a")
    del local.value
    _same(local)
    assert not hasattr(local, "value") and local.default == "a"


def test_a_set_value_is_read_without_a_failed_lookup():
    local = Local()
    local.value = 2
    with exceptions_raised() as seen:
        assert local.value == 2 and getattr(local, "value", None) == 2
    assert seen == []


def test_another_threads_value_is_not_seen_and_its_own_is():
    local = Local()
    local.value = "main"

    def other() -> tuple[Any, Any]:
        before = _ours(local, "value"), _asgirefs(local, "value")
        local.value = "other"
        return before, (_ours(local, "value"), _asgirefs(local, "value"))

    out: list[Any] = []
    thread = threading.Thread(target=lambda: out.append(other()))
    thread.start()
    thread.join()
    (ours_before, theirs_before), (ours_after, theirs_after) = out[0]
    assert ours_before == theirs_before and ours_before[0] == "error"
    assert ours_after == theirs_after == ("value", "other")
    assert local.value == "main"


def test_values_follow_asgirefs_context_rules_in_event_loops_and_across_sync_async_bridges():
    local = Local()
    local.value = "sync"

    async def task(tag: str) -> list[Any]:
        seen = [_ours(local, "value") == _asgirefs(local, "value"), getattr(local, "value", None)]
        local.value = tag
        await asyncio.sleep(0)
        seen.append(local.value)
        inner = await sync_to_async(lambda: (getattr(local, "value", None), _ours(local, "value")))()
        seen.append(inner)
        return seen

    async def main() -> list[Any]:
        return list(await asyncio.gather(task("a"), task("b")))

    a, b = async_to_sync(main)()
    assert a[0] is True and b[0] is True
    assert a[1] == b[1] == "sync"  # async_to_sync copies the calling thread's context
    assert (a[2], b[2]) == ("a", "b")  # each task its own
    assert a[3] == ("a", ("value", "a")) and b[3] == ("b", ("value", "b"))
    assert local.value == "sync"
    _same(local)


@pytest.mark.django_db
def test_the_cache_and_the_language_read_through_the_patch_as_before():
    caches["default"].set("fastpaths-local", 1, 5)
    assert caches["default"] is caches["default"] and caches["default"].get("fastpaths-local") == 1
    assert caches.all(initialized_only=True) == [caches["default"]]
    with translation.override("en"):
        assert translation.get_language() == "en"
        with translation.override("cs"):
            assert translation.get_language() == "cs"
        assert translation.get_language() == "en"


def test_the_class_itself_has_no_such_attribute():
    cls = fastpaths._default_local_class()
    assert not hasattr(cls, "value") and not hasattr(cls, "default")
