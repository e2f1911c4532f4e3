#!/usr/bin/env python
"""The database time of the large tables' admin lists (docs/bench.md, "The large tables' lists"): for each list
named (``app_label.Model``), signed in as the first superuser, the default page's statements, the median CPU of this
process over 5 GETs (after one) and each captured SELECT run again under ``EXPLAIN (ANALYZE, FORMAT JSON)`` (the ones
over 5 ms printed, and the sum of planning and execution). Prints, asserts nothing. Run it on a database of your own
(it signs in), e.g. one loaded by ``bench_data.history_load``; ``--tree`` reads another checkout's code (main's).

    DEBUG=0 DATABASE_URL=postgres://...big .venv/bin/python scripts/bench_admin_large.py games.Round \\
        wallet.LedgerTransaction
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("lists", nargs="+", help="app_label.Model, or app_label.Model?query for a filtered page")
    parser.add_argument("--tree", default=str(Path(__file__).resolve().parent.parent), help="the checkout to run")
    args = parser.parse_args()
    sys.path.insert(0, args.tree)
    os.chdir(args.tree)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django  # local: after the checkout is on the path

    django.setup()
    from django.contrib.auth import get_user_model  # local: after django.setup()
    from django.db import connection  # local: after django.setup()
    from django.test import Client  # local: after django.setup()
    from django.test.utils import CaptureQueriesContext  # local: after django.setup()
    from django.urls import reverse  # local: after django.setup()

    client = Client()
    client.force_login(get_user_model().objects.filter(is_superuser=True).earliest("pk"))
    for label in args.lists:
        name, _, query = label.partition("?")  # a query string after the list: a filtered page
        app, model = name.split(".")
        url = reverse(f"admin:{app}_{model.lower()}_changelist") + (f"?{query}" if query else "")
        client.get(url)
        cpu = []
        for _ in range(5):
            t = time.process_time()
            client.get(url)
            cpu.append(time.process_time() - t)
        with CaptureQueriesContext(connection) as ctx:
            status = client.get(url).status_code
        print(
            f"== {label}: HTTP {status}, {len(ctx.captured_queries)} statements, "
            f"CPU {statistics.median(cpu) * 1000:.0f} ms"
        )
        total = 0.0
        with connection.cursor() as cur:
            for q in ctx.captured_queries:
                if not q["sql"].lstrip().upper().startswith("SELECT"):
                    continue
                cur.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + q["sql"])
                plan = cur.fetchone()[0][0]
                ms = plan["Execution Time"] + plan["Planning Time"]
                total += ms
                if ms > 5:
                    print(f"  {ms:9.1f} ms  {q['sql'][:150]}")
        print(f"  EXPLAIN ANALYZE of its statements (planning + execution): {total:.1f} ms")


if __name__ == "__main__":
    main()
