"""The changelist of a large append-only table (``core.admin.LargeTableAdmin``,
``core/templates/admin/platform/change_list_large.html``): the date hierarchy, the paginator's line and the search
form's count without a statement over the whole table.

Django's date hierarchy reads MIN and MAX of its field and the distinct years, months or days of the rows
(``QuerySet.dates``): full scans of a table of 10^8 rows. ``bounded_date_hierarchy`` offers the same links (a year,
its months, a month's days; narrowed to one year or month when all rows are in it) from the first and last row's
date alone (``core.admin.date_bounds``: one statement of two index reads), in the back office's time zone (Prague,
``core.middleware.BackOfficeTimeZoneMiddleware``); a year, month or day without rows is offered too (its page is
empty). The bounds are the whole table's, not the filtered rows' (the filtered bounds could be a long index walk for a
rare filter)."""

from __future__ import annotations

import calendar
import datetime
from typing import Any

from django import template
from django.contrib.admin.templatetags.admin_list import date_hierarchy, pagination, search_form
from django.contrib.admin.templatetags.base import InclusionAdminNode
from django.utils import formats, timezone
from django.utils.text import capfirst
from django.utils.translation import gettext

from core.admin import date_bounds

register = template.Library()


def _day(value: Any) -> datetime.date:
    if isinstance(value, datetime.datetime):
        return (timezone.localtime(value) if timezone.is_aware(value) else value).date()
    return value  # type: ignore[no-any-return]  # a DateField's value


def bounded_date_hierarchy(cl: Any) -> dict[str, Any]:
    """The context of Django's ``date_hierarchy.html`` for ``cl``, from ``date_bounds`` (see the module)."""
    name = cl.date_hierarchy
    year_field, month_field, day_field = f"{name}__year", f"{name}__month", f"{name}__day"
    year, month, day = (cl.params.get(f) for f in (year_field, month_field, day_field))
    if year and month and day:
        return date_hierarchy(cl) or {}  # one day chosen: Django's reads nothing

    def link(filters: dict[str, Any]) -> str:
        return cl.get_query_string(filters, [f"{name}__"])  # type: ignore[no-any-return]

    first, last = date_bounds(cl.root_queryset, name)
    if first is None:
        return {"show": True, "back": None, "choices": []}
    first, last = _day(first), _day(last)
    if not (year or month) and first.year == last.year:
        year = first.year
        month = first.month if first.month == last.month else None
    if year and month:
        y, m = int(year), int(month)
        start = max(first, datetime.date(y, m, 1))
        end = min(last, datetime.date(y, m, calendar.monthrange(y, m)[1]))
        days = [start + datetime.timedelta(days=n) for n in range((end - start).days + 1)]
        return {
            "show": True,
            "back": {"link": link({year_field: year}), "title": str(year)},
            "choices": [
                {
                    "link": link({year_field: year, month_field: month, day_field: d.day}),
                    "title": capfirst(formats.date_format(d, "MONTH_DAY_FORMAT")),
                }
                for d in days
            ],
        }
    if year:
        y = int(year)
        span = ((first.year, first.month), (last.year, last.month))
        months = [datetime.date(y, m, 1) for m in range(1, 13) if span[0] <= (y, m) <= span[1]]
        return {
            "show": True,
            "back": {"link": link({}), "title": gettext("All dates")},
            "choices": [
                {
                    "link": link({year_field: year, month_field: d.month}),
                    "title": capfirst(formats.date_format(d, "YEAR_MONTH_FORMAT")),
                }
                for d in months
            ],
        }
    return {
        "show": True,
        "back": None,
        "choices": [{"link": link({year_field: str(y)}), "title": str(y)} for y in range(first.year, last.year + 1)],
    }


def estimated_search_form(cl: Any) -> dict[str, Any]:
    """Django's search form, without its "N results (Show all)" when N is the unfiltered list's estimate (the
    paginator's line shows it, marked "about")."""
    context: dict[str, Any] = search_form(cl)
    if getattr(cl.paginator, "estimated", False):
        context["show_result_count"] = False
    return context


@register.tag(name="bounded_date_hierarchy")
def bounded_date_hierarchy_tag(parser: Any, token: Any) -> InclusionAdminNode:
    return InclusionAdminNode(
        parser, token, func=bounded_date_hierarchy, template_name="date_hierarchy.html", takes_context=False
    )


@register.tag(name="estimated_pagination")
def estimated_pagination_tag(parser: Any, token: Any) -> InclusionAdminNode:
    return InclusionAdminNode(
        parser, token, func=pagination, template_name="platform_pagination.html", takes_context=False
    )


@register.tag(name="estimated_search_form")
def estimated_search_form_tag(parser: Any, token: Any) -> InclusionAdminNode:
    return InclusionAdminNode(
        parser, token, func=estimated_search_form, template_name="search_form.html", takes_context=False
    )
