"""``config/collector.py``: the web worker's garbage collector (frozen import, the youngest generation's threshold)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from config.collector import GEN0_DEFAULT, gen0_threshold, settle_heap


@pytest.fixture
def collector() -> Iterator[None]:
    threshold = gc.get_threshold()
    try:
        yield
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_the_threshold_of_the_youngest_generation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GUNICORN_GC_GEN0", raising=False)
    assert gen0_threshold() == GEN0_DEFAULT == 10_000
    monkeypatch.setenv("GUNICORN_GC_GEN0", " 700 ")
    assert gen0_threshold() == 700
    monkeypatch.setenv("GUNICORN_GC_GEN0", "")
    assert gen0_threshold() == GEN0_DEFAULT
    monkeypatch.setenv("GUNICORN_GC_GEN0", "-1")
    with pytest.raises(ValueError, match="GUNICORN_GC_GEN0"):
        gen0_threshold()


def test_settle_heap_freezes_and_sets_only_the_youngest_threshold(
    collector: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GUNICORN_GC_GEN0", "12345")
    gc.set_threshold(700, 11, 12)
    settle_heap()
    assert gc.get_threshold() == (12_345, 11, 12)
    assert gc.get_freeze_count() > 10_000
    assert gc.get_count()[0] < 100  # collected just before the freeze


def test_a_cycle_is_still_collected(collector: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """The threshold only spaces the collections out: cyclic garbage is freed once the youngest generation fills."""
    import weakref

    monkeypatch.setenv("GUNICORN_GC_GEN0", "1000")
    settle_heap()

    class Node:
        other: object

    a, b = Node(), Node()
    a.other, b.other = b, a
    gone = weakref.ref(a)
    del a, b
    assert gone() is not None  # a cycle: reference counting alone does not free it
    junk: list[list[int]] = [[] for _ in range(5_000)]  # allocations past the threshold trigger a collection
    del junk
    assert gone() is None
