#!/usr/bin/env python
"""The statements and the CPU of the admin's lists, read on the database ``DATABASE_URL`` points at (the demo data of
``manage.py seed_demo``, or more): for every registered list (or the ``--only`` ones, ``app_label.Model``), signed
in as the first superuser, the statements of a page of 1 row and of ``--rows`` rows (``list_per_page`` set for the
run) and the median of ``--runs`` runs of ``time.process_time()`` around the page's GET (this process's CPU: Django,
the templates and the database driver, not PostgreSQL's). It prints the figures and asserts nothing: the test
``tests/test_admin_list_queries.py`` holds the deterministic part (no list runs a statement per row). Each run
signs in (a session and django-axes' access log row): never point it at a database anyone else uses.

Under ``valgrind --tool=callgrind --instr-atstart=no`` with ``BENCH_CALLGRIND=1`` the instrumentation is on for the
timed GETs only (``callgrind_control``): the profile's instruction count (Ir) divided by ``--runs`` is a GET's,
which other load on the machine does not change (one list a run: ``--only``).

    DEBUG=0 DATABASE_URL=postgres://...demo .venv/bin/python scripts/bench_admin_lists.py --only wallet.LedgerAccount
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _callgrind(state: str) -> None:
    """Under callgrind with BENCH_CALLGRIND=1 (see above): the instrumentation on or off."""
    if os.environ.get("BENCH_CALLGRIND"):
        subprocess.run(["callgrind_control", f"--instr={state}", str(os.getpid())], check=True, capture_output=True)


def measure(only: list[str], rows: int, runs: int) -> None:
    # local imports: Django is set up by main() first
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext, setup_test_environment
    from django.urls import reverse

    setup_test_environment()  # the test client's host is allowed
    c = Client()
    operator = get_user_model().objects.filter(is_superuser=True).order_by("pk").first()
    if operator is None:
        sys.exit("no superuser: run manage.py seed_demo first")
    c.force_login(operator)
    for model, model_admin in sorted(admin.site._registry.items(), key=lambda kv: kv[0]._meta.label):
        label = model._meta.label
        if only and label not in only:
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        counts: list[Any] = []
        for per_page in (1, rows):
            model_admin.list_per_page = per_page  # type: ignore[misc]  # this run's page, undone below
            try:
                with CaptureQueriesContext(connection) as ctx:
                    status = c.get(url).status_code
                counts.append((status, len(ctx.captured_queries)))
                if per_page == rows:
                    cpu = []
                    _callgrind("on")
                    for _ in range(runs):
                        start = time.process_time()
                        c.get(url)
                        cpu.append(time.process_time() - start)
                    _callgrind("off")
            finally:
                del model_admin.list_per_page  # back to the class's
        grows = " GROWS" if counts[0][1] != counts[1][1] else ""
        print(
            f"{label:42} {model._default_manager.count():7} rows  statements: 1 row {counts[0][1]:4}, "
            f"{rows} rows {counts[1][1]:4} (HTTP {counts[1][0]})  CPU {statistics.median(cpu) * 1000:7.1f} ms{grows}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="*", default=[], help="app_label.Model of the lists to read")
    parser.add_argument("--rows", type=int, default=100, help="the larger page's rows")
    parser.add_argument("--runs", type=int, default=9, help="GETs of the larger page timed (the median printed)")
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django  # local: the settings module is chosen first

    django.setup()
    measure(args.only, args.rows, args.runs)


if __name__ == "__main__":
    main()
