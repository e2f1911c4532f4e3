"""The lists of the large append-only tables (``core.admin.LargeTableAdmin``: the monthly-partitioned tables and
the logs that grow with rounds, docs/scaling.md) never read the whole table: no statement of a page is a COUNT, an
aggregate or a DISTINCT over the table without a LIMIT or a filter. The paginator's threshold is lowered so the
demo rows (``tests.test_admin_list_queries._fill``) stand for a table too large to count; its estimate is the sum of
the partitions' statistics; the date hierarchy offers every link Django's would (``QuerySet.dates``, a full scan)
and narrows the list by year, month and day in Prague time. Measured, never asserted, by
``scripts/bench_admin_lists.py`` (docs/bench.md)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.contrib import admin
from django.contrib.admin.templatetags.admin_list import date_hierarchy
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from core.admin import EstimatedCountPaginator, LargeTableAdmin, table_estimate
from core.clock import PRAGUE
from core.partitioning import partitioned_tables
from core.templatetags.platform_lists import bounded_date_hierarchy
from tests.kit.accounts import make_staff
from tests.kit.backoffice import demo_superuser_client
from tests.test_admin_list_queries import ROWS, _fill

#: the large tables' lists (reviewed): the models on the monthly partitions, and the logs written per round or per
#: provider call (stake refusals, the payment provider's events, the outside studios' transactions)
LARGE = {
    "core.AuditEvent",
    "games.Round",
    "jackpots.Contribution",
    "limits.SettledBet",
    "limits.StakeRefusal",
    "providers.ProviderTransaction",
    "wallet.LedgerTransaction",
    "wallet.ProviderEvent",
}

_WHOLE = re.compile(r"\b(COUNT|MIN|MAX|SUM|AVG)\s*\(|\bDISTINCT\b", re.IGNORECASE)


def whole_table_reads(queries: list[dict[str, Any]], table: str) -> list[str]:
    """The statements reading ``table`` with a COUNT, an aggregate or a DISTINCT and neither a LIMIT nor a WHERE."""
    out = []
    for q in queries:
        sql = q["sql"]
        if f'"{table}"' in sql and _WHOLE.search(sql) and not re.search(r"\b(LIMIT|WHERE)\b", sql):
            out.append(sql)
    return out


def _large_admins() -> dict[str, Any]:
    return {m._meta.label: a for m, a in admin.site._registry.items() if isinstance(a, LargeTableAdmin)}


@pytest.fixture
def demo_superuser(settings, monkeypatch):
    c = demo_superuser_client(settings)
    monkeypatch.setattr(EstimatedCountPaginator, "EXACT_UP_TO", ROWS - 2)  # the demo rows are "too many to count"
    return c


def _url(model_admin: Any, query: str = "") -> str:
    opts = model_admin.model._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_changelist") + query


@pytest.mark.django_db
def test_every_list_of_a_partitioned_table_is_a_large_list():
    partitioned = set(partitioned_tables(connection))
    on_partitions = {m._meta.label for m in admin.site._registry if m._meta.db_table in partitioned}
    assert on_partitions <= set(_large_admins())
    assert set(_large_admins()) == LARGE


@pytest.mark.django_db
def test_no_statement_of_a_large_list_reads_the_whole_table(demo_superuser):
    pages, offenders, statements = 0, {}, {}
    for label, model_admin in sorted(_large_admins().items()):
        assert _fill(model_admin.model) >= ROWS, label
        with CaptureQueriesContext(connection) as ctx:
            r = demo_superuser.get(_url(model_admin))
        assert r.status_code == 200, label
        cl = r.context["cl"]
        assert cl.paginator.estimated, label  # the count was not exact: the estimate path ran
        assert re.search(rf'class="estimated-count"[^>]*>\w+ {cl.result_count}</span>', r.content.decode()), label
        table = model_admin.model._meta.db_table
        offenders[label] = whole_table_reads(ctx.captured_queries, table)
        statements[label] = len(ctx.captured_queries)
        # Django's facets ("show counts" on the filters) would count each filter's choices over the whole table
        assert "_facets" not in r.content.decode(), label
        with CaptureQueriesContext(connection) as ctx:
            assert demo_superuser.get(_url(model_admin, "?_facets=True")).status_code == 200, label
        offenders[label] += whole_table_reads(ctx.captured_queries, table)
        pages += 1
    print(f"\nstatements per page: {statements}")
    assert pages == len(LARGE)
    assert offenders == dict.fromkeys(offenders, [])


@pytest.mark.django_db
def test_the_check_finds_django_s_whole_table_reads(demo_superuser, monkeypatch):
    """The check above can fail: Django's own changelist (exact count, full count, date hierarchy) is caught."""
    model_admin = _large_admins()["wallet.LedgerTransaction"]
    _fill(model_admin.model)
    monkeypatch.setattr(model_admin, "show_full_result_count", True)
    monkeypatch.setattr(model_admin, "change_list_template", None)
    monkeypatch.setattr(model_admin, "paginator", admin.ModelAdmin.paginator)
    with CaptureQueriesContext(connection) as ctx:
        assert demo_superuser.get(_url(model_admin)).status_code == 200
    found = whole_table_reads(ctx.captured_queries, "wallet_ledgertransaction")
    assert len(found) >= 3  # COUNT(*) (twice: the page's and the full) and MIN/MAX; dates() only without a year


@pytest.mark.django_db
def test_the_estimate_is_the_sum_of_the_partitions_statistics(demo_superuser):
    """Autovacuum analyses the partitions, never their parent: the parent's own reltuples stays -1 (unknown) while
    the partitions' sum is the table's rows. A filtered or searched list is counted exactly."""
    model_admin = _large_admins()["wallet.LedgerTransaction"]
    _fill(model_admin.model)
    table = "wallet_ledgertransaction"
    with connection.cursor() as cur:
        cur.execute("SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = %s::regclass", [table])
        parts = [r[0] for r in cur.fetchall()]
        for part in parts:
            cur.execute(f"ANALYZE {part}")
        cur.execute("SELECT reltuples FROM pg_class WHERE oid = %s::regclass", [table])
        parent = cur.fetchone()[0]
    real = model_admin.model.objects.count()
    estimate = table_estimate("default", table)
    print(f"\n{table}: {len(parts)} partitions, {real} rows, estimate {estimate}, the parent's reltuples {parent}")
    assert len(parts) > 1
    assert parent < 0 < real
    assert abs(estimate - real) <= real * 0.1
    r = demo_superuser.get(_url(model_admin))
    assert r.context["cl"].result_count == max(estimate, ROWS - 1) and r.context["cl"].paginator.estimated
    kind = model_admin.model.objects.values_list("kind", flat=True).first()
    r = demo_superuser.get(_url(model_admin, f"?kind={kind}"))
    assert not r.context["cl"].paginator.estimated
    assert r.context["cl"].result_count == model_admin.model.objects.filter(kind=kind).count()


@pytest.mark.django_db
def test_the_estimate_reads_as_one_in_both_languages_and_a_small_list_is_counted_exactly(demo_superuser, monkeypatch):
    model_admin = _large_admins()["wallet.LedgerTransaction"]
    _fill(model_admin.model)
    for lang, about, other in (("cs", "přibližně", "about"), ("en", "about", "přibližně")):
        client = Client(headers={"accept-language": lang})
        client.force_login(make_staff(superuser=True))
        r = client.get(_url(model_admin))
        assert f"{about} {r.context['cl'].result_count}</span>" in r.content.decode(), lang
        assert f"{other} {r.context['cl'].result_count}" not in r.content.decode(), lang
    monkeypatch.setattr(EstimatedCountPaginator, "EXACT_UP_TO", 10_000)
    r = demo_superuser.get(_url(model_admin))
    assert not r.context["cl"].paginator.estimated
    assert r.context["cl"].result_count == model_admin.model.objects.count()
    assert "estimated-count" not in r.content.decode()


@pytest.mark.django_db
def test_a_partition_never_analysed_is_counted_by_its_size():
    """``table_estimate`` on a table of two partitions of 2,000 rows each, one analysed, the other not (its
    reltuples -1): the second is counted at the first's rows per page; a plain table by its own statistics."""
    with connection.cursor() as cur:
        cur.execute("CREATE TABLE h_estimate (id bigint, pad text) PARTITION BY RANGE (id)")
        cur.execute("CREATE TABLE h_estimate_a PARTITION OF h_estimate FOR VALUES FROM (0) TO (10000)")
        cur.execute("CREATE TABLE h_estimate_b PARTITION OF h_estimate FOR VALUES FROM (10000) TO (20000)")
        cur.execute("INSERT INTO h_estimate SELECT g, repeat('x', 40) FROM generate_series(0, 1999) g")
        cur.execute("INSERT INTO h_estimate SELECT g, repeat('x', 40) FROM generate_series(10000, 11999) g")
        cur.execute("ANALYZE h_estimate_a")
        cur.execute("SELECT reltuples FROM pg_class WHERE oid = 'h_estimate_b'::regclass")
        assert cur.fetchone()[0] < 0
        only_analysed = table_estimate("default", "h_estimate")
        cur.execute("CREATE TABLE h_plain AS SELECT g AS id FROM generate_series(1, 3000) g")
        cur.execute("ANALYZE h_plain")
    print(f"\n4,000 rows, one partition analysed: estimate {only_analysed}")
    assert 3_600 <= only_analysed <= 4_400
    assert table_estimate("default", "h_plain") == 3_000


@pytest.mark.django_db
def test_a_free_value_filter_offers_the_newest_rows_values_and_narrows_the_list(demo_superuser, monkeypatch):
    """The settled bets' ``kind`` (a plain field: Django's filter would read the distinct kinds of every row) offers
    the kinds of the newest ``FILTER_SAMPLE`` rows, and choosing one narrows the list."""
    model_admin = _large_admins()["limits.SettledBet"]
    _fill(model_admin.model)
    newest = model_admin.model.objects.order_by("-pk")
    monkeypatch.setattr(model_admin, "FILTER_SAMPLE", 2)
    r = demo_superuser.get(_url(model_admin))
    (spec,) = [f for f in r.context["cl"].filter_specs if getattr(f, "parameter_name", "") == "kind"]
    offered = {value for value, _ in spec.lookup_choices}
    assert offered == set(newest.values_list("kind", flat=True)[:2])
    kind = newest.values_list("kind", flat=True).first()
    r = demo_superuser.get(_url(model_admin, f"?kind={kind}"))
    assert {row.kind for row in r.context["cl"].result_list} == {kind}
    assert r.context["cl"].result_count == model_admin.model.objects.filter(kind=kind).count()


@pytest.mark.django_db
def test_the_audit_search_page_never_counts_the_whole_trail(demo_superuser):
    """The auditors' search page (``backoffice.admin.AuditSearchAdmin.search_view``) opens on the newest events of
    the whole trail: counted the same way; a search is counted exactly."""
    events = _large_admins()["core.AuditEvent"].model.objects
    _fill(events.model)
    url = reverse("admin:backoffice_audit_search")
    with CaptureQueriesContext(connection) as ctx:
        r = demo_superuser.get(url)
    assert r.status_code == 200
    assert whole_table_reads(ctx.captured_queries, "core_auditevent") == []
    assert 'class="estimated-count"' in r.content.decode()
    action = events.values_list("action", flat=True).first()
    r = demo_superuser.get(url, {"action": action})
    assert r.status_code == 200 and 'class="estimated-count"' not in r.content.decode()
    assert r.context["page"].paginator.count == events.filter(action__startswith=action).count()


def _links(context: dict[str, Any]) -> set[str]:
    return {c["link"] for c in context["choices"] if "link" in c}


@pytest.mark.django_db
def test_the_date_hierarchy_offers_every_link_django_s_would(demo_superuser):
    """At the top, at the first row's year and month (Prague time), and on its day: every link Django's hierarchy
    offers is offered, and the day's link narrows the list to that day's rows."""
    checked = 0
    for label, model_admin in sorted(_large_admins().items()):
        name = model_admin.date_hierarchy
        if not name:
            continue
        model = model_admin.model
        _fill(model)
        first = model.objects.exclude(**{f"{name}__isnull": True}).earliest(name).__dict__[name].astimezone(PRAGUE)
        y, m, d = f"{name}__year={first.year}", f"{name}__month={first.month}", f"{name}__day={first.day}"
        for query in ("", f"?{y}", f"?{y}&{m}", f"?{y}&{m}&{d}"):
            r = demo_superuser.get(_url(model_admin, query))
            assert r.status_code == 200, (label, query)
            cl = r.context["cl"]
            ours, django = bounded_date_hierarchy(cl), date_hierarchy(cl) or {}
            assert _links(django) <= _links(ours), (label, query)
            assert ours["back"] == django["back"], (label, query)
        day = first.date()  # the back office's day is Prague's (BackOfficeTimeZoneMiddleware), not the test's zone
        rows = [getattr(o, name).astimezone(PRAGUE).date() for o in r.context["cl"].result_list]
        assert rows and set(rows) == {day}, label
        checked += 1
    assert checked == 5  # the audit trail, rounds, ledger transactions, settled bets, stake refusals


@pytest.mark.django_db
def test_the_deep_pages_are_neither_offered_nor_served_and_the_list_says_how_to_reach_the_rest(
    demo_superuser, monkeypatch
):
    """A page's OFFSET reads every row before it: past ``MAX_PAGES`` pages a list offers no link and refuses the
    page (Django's answer to a page out of range: back to the first page with ``?e=1``), and says, in the staff's
    language, that a date, a filter or a search reaches the rest. Here 5 rows at 1 a page with the cap at 2."""
    model_admin = _large_admins()["wallet.LedgerTransaction"]
    assert _fill(model_admin.model) >= ROWS
    monkeypatch.setattr(model_admin, "list_per_page", 1)
    monkeypatch.setattr(EstimatedCountPaginator, "MAX_PAGES", 2)
    r = demo_superuser.get(_url(model_admin, "?p=2"))
    assert r.status_code == 200 and r.context["cl"].paginator.capped
    html = r.content.decode()
    assert 'href="?p=1"' in html and '<span class="this-page">2</span>' in html
    assert "?p=3" not in html and f"?p={ROWS}" not in html  # no link past the cap
    assert "(prvních 2 stránek: další řádky ukáže zúžení seznamu podle data, filtrem nebo hledáním)" in html
    with CaptureQueriesContext(connection) as ctx:
        r = demo_superuser.get(_url(model_admin, "?p=3"))
    assert r.status_code == 302 and r["Location"].endswith("?e=1")
    assert not [q["sql"] for q in ctx.captured_queries if "OFFSET" in q["sql"]]  # the deep page was never read
    english = Client(headers={"accept-language": "en"})
    english.force_login(make_staff(superuser=True))
    text = english.get(_url(model_admin)).content.decode()
    assert "(the first 2 pages: narrow the list by date, a filter or a search for the rest)" in text
    # below the cap nothing is said and every page is offered
    monkeypatch.setattr(EstimatedCountPaginator, "MAX_PAGES", 100)
    r = demo_superuser.get(_url(model_admin))
    assert not r.context["cl"].paginator.capped and "pages-capped" not in r.content.decode()
