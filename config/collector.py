"""The garbage collector of a web worker: what the import made frozen, and the youngest generation collected every
``GUNICORN_GC_GEN0`` allocations instead of Python's 700.

:func:`settle_heap` is called by gunicorn's hooks (``config/gunicorn.conf.py``: in the master once the app is
loaded, in each worker before it serves) and by ``scripts/bench_round_cpu.py`` before its rounds, so the bench
measures the collector the workers run.

* ``gc.collect()`` then ``gc.freeze()``: the objects the import made (~150,000: modules, classes, functions, the
  URLconf, the game catalogue) go to the permanent generation; a full collection walks only what the worker made
  since, and the workers share those pages with the master instead of copying them when the collector touches them.
* ``gc.set_threshold(GUNICORN_GC_GEN0, ...)``: a request allocates thousands of container objects (the request,
  its answer, model instances, dicts and lists of the round), so with Python's 700 the youngest generation was
  collected several times per settled round, each collection walking every young object still alive at that moment
  (the request's own, alive until it ends). 10,000 collects it about once per several rounds: callgrind, 30 settled
  roulette rounds with the worker's frozen heap, 200.0 M instructions with 700 and 196.3 M with 10,000 (-1.9 %;
  docs/bench.md). What it costs: cyclic garbage (a model instance and its cached relation pointing back, an
  exception and its traceback) waits for up to 10,000 allocations instead of 700 (a few hundred kilobytes), and one
  collection walks more objects, less often. The older generations keep Python's thresholds.
"""

from __future__ import annotations

import gc
import os

#: the youngest generation's threshold unless ``GUNICORN_GC_GEN0`` says otherwise (Python's own is 700)
GEN0_DEFAULT = 10_000


def gen0_threshold() -> int:
    """``GUNICORN_GC_GEN0`` (allocations between collections of the youngest generation), else :data:`GEN0_DEFAULT`;
    ``0`` turns automatic collection off altogether, as ``gc.set_threshold(0)`` does (not advised)."""
    raw = os.environ.get("GUNICORN_GC_GEN0", "").strip()
    value = int(raw) if raw else GEN0_DEFAULT
    if value < 0:
        raise ValueError(f"GUNICORN_GC_GEN0 must be 0 or more, not {value}")
    return value


def settle_heap() -> None:
    """What the process made so far is collected and frozen, and the youngest generation's threshold set (the module
    docstring); the older generations' thresholds are kept."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(gen0_threshold(), gen1, gen2)
