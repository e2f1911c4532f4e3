"""The application ``scripts/bench_http_cpu.py`` serves: ``config.sqlcount:application`` (``BENCH_HTTP_APP=wsgi``:
``config.wsgi:application``) itself, no wrapper, with the draws of ``SeededRNG(BENCH_HTTP_SEED)`` from the start.

Imported once by the preloaded master; the worker is forked with the seeded generator installed, so the rounds
it serves draw what ``scripts/bench_round_cpu.py run`` draws in-process with the same seed. A bench tool only:
never served to players (a seeded generator is for tests and simulations, ``core/rng.py``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable

from core.rng import SeededRNG, use_rng

use_rng(SeededRNG(int(os.environ["BENCH_HTTP_SEED"]))).__enter__()

#: the stub's answer: a round's size and headers (what Django sends for a round's 201), so that a run of it measures
#: gunicorn's own cost per request (``--app stub``): parsing, the environ, the response, the access log, the loop
STUB_BODY = b'{"id":"' + b"0" * 1300 + b'"}'
STUB_HEADERS = [
    ("Content-Type", "application/json"),
    ("Vary", "Accept, Accept-Language, Cookie"),
    ("Allow", "POST, OPTIONS"),
    ("Content-Language", "en"),
    ("X-Frame-Options", "DENY"),
    ("Content-Length", str(len(STUB_BODY))),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "same-origin"),
    ("Cross-Origin-Opener-Policy", "same-origin"),
    ("X-Request-ID", "0123456789abcdef0123456789abcdef"),
]


def stub(environ: dict[str, object], start_response: Callable[..., object]) -> list[bytes]:
    environ["wsgi.input"].read()  # type: ignore[attr-defined]  # the request's body, as Django reads it
    start_response("201 Created", list(STUB_HEADERS))
    return [STUB_BODY]


kind = os.environ.get("BENCH_HTTP_APP")
application: Callable[..., Iterable[bytes]]
if kind == "wsgi":
    from config.wsgi import application
elif kind == "stub":
    application = stub
elif kind == "stub-sqlcount":
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

    django.setup()
    from config.sqlcount import counting

    application = counting(stub)
else:
    from config.sqlcount import application

__all__ = ["application"]


def _profiled() -> None:
    """``BENCH_HTTP_PROFILE=<path>``: a cProfile of each thread of the worker (the poller's and the pool's), written
    to ``<path>.<thread>`` when the worker stops, to split gunicorn's share by function (cProfile inflates small
    calls; the instruction counts of ``bench_http_cpu.py --callgrind`` are the figures)."""
    import cProfile
    import sys
    import threading

    from gunicorn.workers.gthread import ThreadWorker

    path = os.environ["BENCH_HTTP_PROFILE"]
    profiles: list[cProfile.Profile] = []
    run = ThreadWorker.run

    def start(*_: object) -> None:
        profile = cProfile.Profile()
        profiles.append(profile)
        sys.setprofile(None)
        profile.enable()

    def profiled_run(self: ThreadWorker) -> None:
        threading.setprofile(start)  # the pool's threads, started after this
        start()
        try:
            run(self)
        finally:
            for i, profile in enumerate(profiles):
                profile.dump_stats(f"{path}.{os.getpid()}.{i}")

    ThreadWorker.run = profiled_run


if os.environ.get("BENCH_HTTP_PROFILE"):
    _profiled()
