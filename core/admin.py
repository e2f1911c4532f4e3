"""The admin's shared parts: one read-only base, one way to run a service from an admin action, and the staff
roles' checks: every decision view and action names its permission (``decision_path``,
``decision_action``), and identifiers are masked for roles that may not see them (``masked_fields``)."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Mapping, Sequence
from math import ceil
from typing import TYPE_CHECKING, Any, TypeVar

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.utils import unquote
from django.contrib.admin.views.main import ChangeList
from django.contrib.postgres.indexes import BrinIndex
from django.core.exceptions import FieldDoesNotExist, PermissionDenied
from django.core.paginator import Paginator
from django.db import connections, models
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.functional import cached_property
from django.utils.html import format_html
from django.utils.text import capfirst, format_lazy
from django.utils.translation import gettext, gettext_lazy

from core import clock
from core.admin_money import money_column, money_fields
from core.audit import Actor, mark_permission_in_use
from core.audit_actions import action_label
from core.db_router import replica
from core.errors import DomainError
from core.masking import mask, mask_accounts_in
from core.models import AuditEvent, IdempotencyRecord, SecurityEventWindow, TaskHeartbeat

F = TypeVar("F", bound=Callable[..., Any])

#: every permission an admin decision view or action names, checked against the models at start (core.E010)
ADMIN_DECISION_PERMISSIONS: set[str] = set()
UNMASK_PERMISSION = "accounts.view_unmasked_identifiers"


def require_permission(request: HttpRequest, perm: str) -> None:
    """Refuse (403) a staff member whose role lacks ``perm``; otherwise mark it as the permission in use, so the
    audit event of the decision names the role that granted it."""
    user = request.user
    if not (user.is_active and user.is_staff and user.has_perm(perm)):
        raise PermissionDenied(f"requires {perm}")
    mark_permission_in_use(user, perm)


def decision_path(
    modeladmin: Any, route: str, view: Callable[..., Any], *, perm: str | Mapping[str, str], name: str, kwarg: str = ""
) -> URLPattern:
    """The URL of an admin view that takes a decision or shows what only ``perm`` may see, checked before the view
    runs: a staff member without ``perm`` gets a 403 (GET and POST alike). ``perm`` may map the value of the URL
    argument ``kwarg`` to the permission it needs (one view for several actions; an unknown value is a 404). The
    view carries ``required_permission``, which the authorization-matrix test reads from the URL configuration."""
    perms = [perm] if isinstance(perm, str) else list(perm.values())
    ADMIN_DECISION_PERMISSIONS.update(perms)

    @functools.wraps(view)
    def checked(request: HttpRequest, *args: Any, **kwargs: Any) -> Any:
        if isinstance(perm, str):
            needed = perm
        else:
            needed = perm.get(str(kwargs.get(kwarg, "")), "")
            if not needed:
                raise Http404
        require_permission(request, needed)
        return view(request, *args, **kwargs)

    checked.required_permission = perm  # type: ignore[attr-defined]  # a function attribute the matrix test reads
    checked.required_permission_kwarg = kwarg  # type: ignore[attr-defined]  # read with required_permission
    pattern: URLPattern = path(route, modeladmin.admin_site.admin_view(checked), name=name)
    return pattern


def decision_action(perm: str, *, description: str) -> Callable[[F], F]:
    """An admin action that takes a decision with ``perm``: offered only to staff holding it
    (``PlatformAdminMixin.get_actions``) and refused (403) if posted without it."""
    ADMIN_DECISION_PERMISSIONS.add(perm)

    def decorate(fn: F) -> F:
        @functools.wraps(fn)
        def wrapped(modeladmin: Any, request: HttpRequest, queryset: Any) -> Any:
            require_permission(request, perm)
            return fn(modeladmin, request, queryset)

        wrapped.required_permission = perm  # type: ignore[attr-defined]  # a function attribute get_actions reads
        # the type: ignore below: the stub's action type is not F
        return admin.action(description=description)(wrapped)  # type: ignore[return-value]

    return decorate


def may_see_identifiers(user: Any) -> bool:
    return bool(user.has_perm(UNMASK_PERMISSION))


@functools.cache
def _masker(model: type[models.Model], name: str) -> Callable[[Any], str]:
    def shown(obj: Any) -> str:
        return mask(getattr(obj, name, ""))

    shown.__name__ = f"{name}_masked"
    return admin.display(description=format_lazy(gettext_lazy("{label} (masked)"), label=_label(model, name)))(shown)


def _label(model: type[models.Model], name: str) -> Any:
    """The column's name in the staff member's language, read when shown (the columns are made once and cached,
    so a text fixed at the first request would show every later staff member that request's language): a field's
    verbose name, or a property's name (``display``) through the catalogue."""
    try:
        return getattr(model._meta.get_field(name), "verbose_name", name)
    except FieldDoesNotExist:
        return gettext_lazy(name.replace("_", " "))


@functools.cache
def _text_masker(model: type[models.Model], name: str) -> Callable[[Any], str]:
    def shown(obj: Any) -> str:
        return mask_accounts_in(getattr(obj, name, ""))

    shown.__name__ = f"{name}_accounts_masked"
    label = format_lazy(gettext_lazy("{label} (account numbers masked)"), label=_label(model, name))
    return admin.display(description=label)(shown)


#: the model every player column names (``app_label.ModelName``: core imports no app)
PLAYER_MODEL = "accounts.Player"


@functools.cache
def player_fields(model: type[models.Model]) -> frozenset[str]:
    """The names of ``model``'s foreign keys to the player."""
    return frozenset(
        f.name
        for f in model._meta.get_fields()
        if isinstance(f, models.ForeignKey | models.OneToOneField)
        and f.related_model is not None
        and f.related_model._meta.label == PLAYER_MODEL  # type: ignore[union-attr]
    )


@functools.cache
def player_column(model: type[models.Model], name: str) -> Callable[[Any], Any]:
    """The column (or read-only field) showing ``model``'s player ``name`` as staff read it: the player's
    ``staff_label`` ("jana (aktivní)", the status in the staff member's language), linked to the player's page.
    ``Player.__str__`` stays language-independent on purpose (the admin's history stores it), so every admin list,
    read-only page and inline of the platform shows a player through this one column
    (``PlatformAdminMixin._players``), never by ``str()``."""

    def shown(obj: Any) -> Any:
        player = getattr(obj, name, None)
        if player is None:
            return "-"  # as the admin shows an empty value (a read-only field would show None as "None")
        url = reverse(f"admin:{player._meta.app_label}_{player._meta.model_name}_change", args=[player.pk])
        return format_html('<a href="{}">{}</a>', url, player.staff_label)

    shown.__name__ = f"{name}_staff_label"
    return admin.display(description=_label(model, name), ordering=name)(shown)


def code_label(labels: Mapping[str, Any], code: str) -> Any:
    """A stored code (a free code a service writes: why a register was asked, what started a screening) by its
    label in the staff member's language; a code without a label is shown as stored."""
    return labels.get(code, code)


def code_column(name: str, labels: Mapping[str, Any], description: Any) -> Callable[[Any], Any]:
    """An admin column (or read-only field) showing the stored code ``name`` through ``code_label``; the list still
    sorts by the code."""

    def shown(obj: Any) -> Any:
        code = getattr(obj, name, "")
        return code_label(labels, code) if code else "-"

    shown.__name__ = f"{name}_label"
    return admin.display(description=description, ordering=name)(shown)


def code_filter(name: str, labels: Mapping[str, Any], title: Any) -> type[admin.SimpleListFilter]:
    """A list's filter on the stored code ``name`` offering each code found by its label (``code_label``)."""

    class CodeFilter(admin.SimpleListFilter):
        parameter_name = name

        def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, Any]]:
            codes = model_admin.filter_values(request, name)
            return [(code, code_label(labels, code)) for code in codes if code]

        def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
            return queryset.filter(**{name: self.value()}) if self.value() else queryset

    CodeFilter.title = title
    CodeFilter.__name__ = f"{name.title().replace('_', '')}CodeFilter"
    return CodeFilter


def list_joins(model: type[models.Model], names: Iterable[Any], declared: Any) -> Any:
    """What a list of ``model`` joins to show its columns ``names`` (the declared ``list_display``): every foreign
    key named as a column (its ``str()``), and for a player the player's user too (``player_column`` shows
    ``staff_label``, which reads the username), added to the admin's own ``list_select_related``. Without it the
    list runs a statement or two per row: the player columns are callables, so Django does not see them as
    relations. ``declared`` (``True``: Django's join of every non-null key) is kept when nothing is to add."""
    players = player_fields(model)
    joins: list[str] = []
    for name in names:
        if not isinstance(name, str):
            continue
        try:
            field = model._meta.get_field(name)
        except FieldDoesNotExist:  # safe: a callable column (no relation to join); only a join is skipped
            continue
        if field.name == name and field.concrete and (field.many_to_one or field.one_to_one):  # not ``player_id``
            joins += [name, f"{name}__user"] if name in players else [name]
    if declared is True or not joins:
        return declared
    return tuple(dict.fromkeys([*(declared or ()), *joins]))


class PageChangeList(ChangeList):
    """The platform's changelist: once the page's rows are chosen, its admin reads what their columns need in a
    few statements for the whole page (``PlatformAdminMixin.prepare_page``), not one or two per row."""

    def get_results(self, request: HttpRequest) -> None:
        super().get_results(request)
        self.model_admin.prepare_page(request, self.result_list)  # type: ignore[attr-defined]  # the platform's


if TYPE_CHECKING:  # the mixin's super() calls are ModelAdmin's; at run time it mixes into a ModelAdmin or an inline
    _AdminBase = admin.ModelAdmin[Any]
else:
    _AdminBase = object


class PlatformAdminMixin(_AdminBase):
    """Shared by the platform's model admins and inlines: actions offered only to roles holding their permission;
    ``masked_fields`` shown masked (and never in an editable form) to roles without ``view_unmasked_identifiers``;
    searches over them exact-match only for those roles. ``masked_text_fields`` are free texts that may hold an
    account number (a refusal's reason, a memo, a payer's details): shown to those roles with every account number
    or IBAN in them masked. Every list, read-only page and inline shows a player by their staff label
    (``player_column``), money in Kč (``money_column``) and the ``code_labels`` fields by their labels."""

    masked_fields: Sequence[str] = ()
    masked_text_fields: Sequence[str] = ()
    #: free codes a service writes (no choices on the field), each field's codes → their labels (``code_column``)
    code_labels: Mapping[str, Mapping[str, Any]] = {}
    model: type[models.Model]

    object_history_template = "admin/platform/object_history.html"

    @property
    def change_form_template(self) -> str | list[str]:  # type: ignore[override]
        """Django's own lookup of a model's or an app's change form, then the platform's, which names the record by
        ``staff_title`` in the breadcrumb (an admin naming its own template extends the platform's)."""
        opts = self.model._meta
        return [
            f"admin/{opts.app_label}/{opts.model_name}/change_form.html",
            f"admin/{opts.app_label}/change_form.html",
            "admin/platform/change_form.html",
        ]

    def staff_title(self, obj: Any) -> str:
        """The record as its page's title and breadcrumb name it, in the staff member's language: the model's
        ``staff_label`` where it has one (a player: "jana (aktivní)"), else the model's name and the record's
        number ("Kolo 812"). The model's ``str()`` stays English and language-independent on purpose (Django's
        admin history and the logs store it), so a staff page never shows it; an admin may name its records
        better by overriding this."""
        label = getattr(obj, "staff_label", None)
        if isinstance(label, str) and label:
            return label
        return f"{capfirst(str(obj._meta.verbose_name))} {obj.pk}"

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Any = None,
    ) -> Any:
        """A record's page is titled by ``staff_title`` (``subtitle``: the browser's title and the heading) and its
        breadcrumb ends with it (``core/templates/admin/platform/change_form.html``, which every platform change
        form extends)."""
        if obj is not None:
            context["subtitle"] = self.staff_title(obj)
        return super().render_change_form(request, context, add, change, form_url, obj)

    def history_view(self, request: HttpRequest, object_id: str, extra_context: dict[str, Any] | None = None) -> Any:
        """The history page titled by ``staff_title`` too (Django composes it from ``str()``)."""
        obj = self.get_object(request, unquote(object_id))
        if obj is not None:
            title = gettext("Change history: %s") % self.staff_title(obj)
            extra_context = {"title": title, "staff_title": self.staff_title(obj), **(extra_context or {})}
        return super().history_view(request, object_id, extra_context)

    def _masking(self, request: HttpRequest) -> bool:
        return bool(self.masked_fields or self.masked_text_fields) and not may_see_identifiers(request.user)

    def _one(self, name: Any) -> Any:
        if isinstance(name, str) and name in self.masked_fields:
            return _masker(self.model, name)
        if isinstance(name, str) and name in self.masked_text_fields:
            return _text_masker(self.model, name)
        return name

    def _replace(self, request: HttpRequest, names: Sequence[Any]) -> list[Any]:
        if not self._masking(request):
            return list(names)
        return [self._one(n) for n in names]

    def _in_czk(self, names: Sequence[Any], only: Iterable[str] | None = None) -> list[Any]:
        """The haléře fields among ``names`` (``core.admin_money.MONEY_FIELDS``; of ``only`` if given) as their Kč
        columns."""
        money = money_fields(self.model) if only is None else money_fields(self.model) & set(only)
        return [money_column(self.model, n) if isinstance(n, str) and n in money else n for n in names]

    def _players(self, names: Sequence[Any], only: Iterable[str] | None = None) -> list[Any]:
        """The foreign keys to the player among ``names`` (of ``only`` if given) as their ``player_column``, and the
        ``code_labels`` fields as their ``code_column``."""
        players = player_fields(self.model) if only is None else player_fields(self.model) & set(only)
        codes = set(self.code_labels) if only is None else set(self.code_labels) & set(only)
        return [
            player_column(self.model, n)
            if isinstance(n, str) and n in players
            else self._code_column(n)
            if isinstance(n, str) and n in codes
            else n
            for n in names
        ]

    def get_list_filter(self, request: HttpRequest) -> Any:
        filters = list(super().get_list_filter(request))
        return [self._code_filter(f) if isinstance(f, str) and f in self.code_labels else f for f in filters]

    def filter_values(self, request: HttpRequest, name: str) -> Iterable[Any]:
        """The values a code filter on ``name`` offers: every distinct one of the list's rows."""
        return self.get_queryset(request).order_by(name).values_list(name, flat=True).distinct()

    def _code_filter(self, name: str) -> type[admin.SimpleListFilter]:
        filters: dict[str, type[admin.SimpleListFilter]] = self.__dict__.setdefault("_code_filters", {})
        if name not in filters:
            filters[name] = code_filter(name, self.code_labels[name], _label(self.model, name))
        return filters[name]

    def _code_column(self, name: str) -> Callable[[Any], Any]:
        # one column per admin and field: the form excludes it by identity, so it must be the same object
        columns: dict[str, Callable[[Any], Any]] = self.__dict__.setdefault("_code_columns", {})
        if name not in columns:
            columns[name] = code_column(name, self.code_labels[name], _label(self.model, name))
        return columns[name]

    def _shown(self, names: Sequence[Any], request: HttpRequest, obj: Any) -> list[Any]:
        """``names`` of a form or a fieldset as shown: on a read-only page every money field in Kč and every player
        by their staff label; on an editable one, and for the player on an add form (staff choose the player there),
        only the declared read-only fields (the others stay inputs)."""
        declared = [n for n in super().get_readonly_fields(request, obj) if isinstance(n, str)]
        if not self.has_change_permission(request, obj):  # a read-only page, or an add form of records never edited
            return self._players(self._in_czk(names), only=None if obj is not None else declared)
        return self._players(self._in_czk(names, only=declared), only=declared)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        return self._shown(self._replace(request, super().get_fields(request, obj)), request, obj)

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        if not self.fieldsets:  # made from get_fields, already shown
            return super().get_fieldsets(request, obj)
        out = []
        for title, options in super().get_fieldsets(request, obj):
            fields = [
                tuple(self._shown(list(entry), request, obj))
                if isinstance(entry, list | tuple)
                else self._shown([entry], request, obj)[0]
                for entry in options.get("fields", ())
            ]
            out.append((title, {**options, "fields": fields}))
        return out

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = list(super().get_readonly_fields(request, obj))
        if self._masking(request):
            fields = self._replace(request, fields)
            hidden = (*self.masked_fields, *self.masked_text_fields)
            fields += [m for m in (self._one(n) for n in hidden) if m not in fields]
        return self._players(self._in_czk(fields))

    def get_exclude(self, request: HttpRequest, obj: Any = None) -> Any:
        exclude = list(super().get_exclude(request, obj) or ())
        if self._masking(request):
            exclude += [n for n in (*self.masked_fields, *self.masked_text_fields) if n not in exclude]
        return exclude or None

    def get_list_display(self, request: HttpRequest) -> Any:
        return self._players(self._in_czk(self._replace(request, super().get_list_display(request))))

    def get_list_select_related(self, request: HttpRequest) -> Any:
        return list_joins(self.model, super().get_list_display(request), super().get_list_select_related(request))

    def get_changelist(self, request: HttpRequest, **kwargs: Any) -> Any:
        return PageChangeList

    def prepare_page(self, request: HttpRequest, rows: QuerySet[Any]) -> None:
        """Read what the page's ``rows`` show beyond their own columns and joins, for all of them at once (an admin
        whose column would otherwise read per row overrides it; evaluating ``rows`` here caches them for the
        page)."""

    def get_search_fields(self, request: HttpRequest) -> Any:
        fields = list(super().get_search_fields(request))
        if not may_see_identifiers(request.user):
            sensitive = set(getattr(self, "masked_search_fields", ()))
            fields = [f"={f}" if f in sensitive else f for f in fields]
        return fields

    def changelist_view(self, request: HttpRequest, extra_context: dict[str, Any] | None = None) -> Any:
        """A decision action posted by a role without its permission is a 403 (Django would answer 200 "No action
        selected", the action being left out of the role's list)."""
        if request.method == "POST" and "index" in request.POST:
            every = super().get_actions(request)
            for name in request.POST.getlist("action"):
                action = every.get(name)
                perm = getattr(action[0], "required_permission", None) if action else None
                if perm is not None and not request.user.has_perm(perm):
                    raise PermissionDenied(f"requires {perm}")
        return super().changelist_view(request, extra_context)

    def get_actions(self, request: HttpRequest) -> Any:
        actions = super().get_actions(request)
        for name, action in list(actions.items()):
            perm = getattr(action[0], "required_permission", None) if action else None
            if perm is not None and not request.user.has_perm(perm):
                del actions[name]
        return actions


class ReadOnlyAdmin(PlatformAdminMixin, admin.ModelAdmin[Any]):
    """Records written only through services (ledger, audit, rounds ...): staff look, never edit. Their lists may
    lag: a GET of a list reads the streaming replica when there is one (core/db_router.py); the record's own page,
    and every action (a POST), read the primary."""

    def get_queryset(self, request: HttpRequest) -> QuerySet[Any]:
        queryset = super().get_queryset(request)
        match = getattr(request, "resolver_match", None)
        if request.method == "GET" and match is not None and (match.url_name or "").endswith("_changelist"):
            return queryset.using(replica())
        return queryset

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


#: the rows of ``table``: the sum of its partitions' statistics (``pg_class.reltuples``, kept by ANALYZE and
#: autovacuum; a partitioned parent's own is not kept the same way), or a plain table's own. A partition never
#: analysed (-1) is counted by its size at the density of the analysed ones (none analysed: 0).
TABLE_ESTIMATE_SQL = """
WITH parts AS (
    SELECT c.oid, c.reltuples, c.relpages FROM pg_class c
    WHERE c.oid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = %(t)s::regclass)
       OR (c.oid = %(t)s::regclass AND c.relkind = 'r')
), density AS (
    SELECT sum(reltuples) / nullif(sum(relpages), 0) AS per_page FROM parts WHERE reltuples >= 0
)
SELECT coalesce(sum(CASE WHEN reltuples >= 0 THEN reltuples
    ELSE pg_relation_size(oid) / current_setting('block_size')::float8 * (SELECT per_page FROM density) END), 0)::bigint
FROM parts"""


def table_estimate(alias: str, table: str) -> int:
    """PostgreSQL's estimate of the rows of ``table`` on the database ``alias`` (``TABLE_ESTIMATE_SQL``)."""
    with connections[alias].cursor() as cursor:
        cursor.execute(TABLE_ESTIMATE_SQL, {"t": table})
        row = cursor.fetchone()
    return int(row[0] or 0) if row else 0


class EstimatedCountPaginator(Paginator):  # type: ignore[type-arg]  # its pages are any model's rows
    """A large append-only table is never counted whole (a full scan): up to ``EXACT_UP_TO`` rows are counted
    exactly (a LIMITed count), beyond that PostgreSQL's estimate stands in (``table_estimate``) and ``estimated`` is
    set (the list shows "about N", ``core/templates/admin/platform/change_list_large.html``). A filtered or searched
    list is counted exactly."""

    EXACT_UP_TO = 10_000
    #: the deepest page offered and served: a page's OFFSET reads every row before it, so past this many pages
    #: (10,000 rows at the lists' 100 a page) the list is narrowed by date, a filter or a search instead; a deeper
    #: ``?p=`` is refused as Django refuses a page out of range (back to the first page, ``?e=1``)
    MAX_PAGES = 100
    estimated = False

    @cached_property
    def all_pages(self) -> int:
        """The pages the rows would fill (Django's ``num_pages``), before the cap."""
        if self.count == 0 and not self.allow_empty_first_page:
            return 0
        return ceil(max(1, self.count - self.orphans) / self.per_page)

    @cached_property
    def num_pages(self) -> int:
        return min(self.all_pages, self.MAX_PAGES)

    @property
    def capped(self) -> bool:
        """Whether rows lie past the last page offered (the list says how to reach them)."""
        return self.all_pages > self.MAX_PAGES

    @cached_property
    def count(self) -> int:
        qs = self.object_list
        if not isinstance(qs, QuerySet) or qs.query.where:
            return super().count
        seen = qs.order_by()[: self.EXACT_UP_TO + 1].count()  # unordered: an order without an index is a full sort
        if seen <= self.EXACT_UP_TO:
            return seen
        self.estimated = True
        return max(seen, table_estimate(qs.db, qs.model._meta.db_table))


def _btree_leads(model: type[models.Model], name: str) -> bool:
    """Whether a b-tree index of ``model`` leads with the field ``name`` (so it is read in order, a BRIN is not)."""
    field = model._meta.get_field(name)
    if getattr(field, "db_index", False) or getattr(field, "unique", False):
        return True
    return any(
        not isinstance(ix, BrinIndex) and ix.fields and ix.fields[0].lstrip("-") == name and ix.condition is None
        for ix in model._meta.indexes
    )


def date_bounds(queryset: QuerySet[Any], name: str) -> tuple[Any, Any]:
    """The first and last value of the date field ``name`` in ``queryset``, in one statement of two LIMIT 1 reads:
    in the field's order if a b-tree index leads with it, else in the id's (an append-only table's rows are in time
    order by id; a partitioned table's id is the month its row was written in, core/partitioning.py)."""
    key = name if _btree_leads(queryset.model, name) else "pk"
    rows = queryset.exclude(**{f"{name}__isnull": True}).values_list(name, flat=True)
    first, last = rows.order_by(key)[:1], rows.order_by(f"-{key}")[:1]
    values = list(first.union(last, all=True))
    return (min(values), max(values)) if values else (None, None)


class LargeTableAdmin(ReadOnlyAdmin):
    """The list of a large append-only table (rounds, the ledger's transactions, the audit trail ...: tens to hundreds
    of millions of rows, docs/scaling.md): a page never reads the whole table. Counted by
    ``EstimatedCountPaginator`` (no second count of the whole table); its date hierarchy offers the years, months
    and days between the first and last row (``date_bounds``, two index reads) instead of the distinct dates of every
    row (``QuerySet.dates``, a full scan): ``core/templatetags/platform_lists.py``."""

    paginator = EstimatedCountPaginator
    show_full_result_count = False
    #: no "show counts" link on the filters: Django's facets count every filter's choices over the whole table
    show_facets = admin.ShowFacets.NEVER
    change_list_template = "admin/platform/change_list_large.html"
    #: a filter on a free value (a code, a provider's name) offers the values of the newest rows, not of all
    FILTER_SAMPLE = 10_000

    def filter_values(self, request: HttpRequest, name: str) -> Iterable[Any]:
        """The distinct values of the newest ``FILTER_SAMPLE`` rows (read backwards by the primary key)."""
        newest = self.get_queryset(request).order_by("-pk").values_list(name, flat=True)[: self.FILTER_SAMPLE]
        sql, params = newest.query.sql_with_params()
        with connections[newest.db].cursor() as cursor:
            cursor.execute(f"SELECT DISTINCT v FROM ({sql}) AS newest (v) ORDER BY 1", params)
            return [row[0] for row in cursor.fetchall()]

    def get_list_filter(self, request: HttpRequest) -> Any:
        """A plain field's filter that would offer the distinct values of every row (Django's
        ``AllValuesFieldListFilter``, a full scan) is a code filter (``filter_values``); a filter on choices, a
        boolean or a relation reads no row and is kept."""
        filters = []
        for f in super().get_list_filter(request):
            field: Any = self.model._meta.get_field(f) if isinstance(f, str) and "__" not in f else None
            free = field is not None and not (
                field.choices or field.is_relation or isinstance(field, models.BooleanField)
            )
            filters.append(code_filter(f, {}, _label(self.model, f)) if free else f)
        return filters


class ReadOnlyInline(PlatformAdminMixin, admin.TabularInline[Any, Any]):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


def money_confirmation(
    modeladmin: Any, request: HttpRequest, queryset: Any, *, verb: str, rows: Callable[[Any], Mapping[str, Any]]
) -> HttpResponse | None:
    """The page an admin action that moves money shows before it acts: each selected record's amount, player and
    reason (``rows(obj)``), and a button that posts the same action again with ``confirmed``. None once confirmed
    (the action then runs)."""

    if request.POST.get("confirmed") == "1":
        return None
    opts = modeladmin.model._meta
    return TemplateResponse(
        request,
        "admin/confirm_money.html",
        {
            **modeladmin.admin_site.each_context(request),
            "opts": opts,
            "title": gettext("Confirm: %(verb)s") % {"verb": verb},
            "verb": verb,
            "rows": [rows(obj) for obj in queryset],
            "action": request.POST.get("action", ""),
            "selected": request.POST.getlist(helpers.ACTION_CHECKBOX_NAME),
            "index": request.POST.get("index", "0"),
            "checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        },
    )


def _detail_text(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{k}: {_detail_text(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple, set)):
        return ", ".join(_detail_text(v) for v in value)
    return str(getattr(value, "value", value))  # a TextChoices member reads as its value, not its repr


def domain_error_text(exc: DomainError) -> str:
    """How staff see a refusal: the message in the staff member's language (the admin follows the browser's), the
    details as plain "name: value" text and the stable code to quote to a colleague; never a developer's repr."""
    details = "; ".join(f"{k}: {_detail_text(v)}" for k, v in (exc.details or {}).items())
    return f"{exc.message()}{f' ({details})' if details else ''} [{exc.code}]"


def run_service_action(
    modeladmin: admin.ModelAdmin[Any],
    request: HttpRequest,
    objects: Iterable[models.Model],
    service: Callable[[Any, Actor], Any],
    done: str,
) -> int:
    """Run ``service(obj, actor)`` for each selected object as the signed-in staff member.

    Each call is its own service transaction; a refusal (``DomainError``) is shown to staff with its code and the
    others still run. Returns how many succeeded."""
    actor = Actor.staff(request.user)
    ok = 0
    for obj in objects:
        try:
            service(obj, actor)
            ok += 1
        except DomainError as exc:
            modeladmin.message_user(
                request, f"{getattr(modeladmin, 'staff_title', str)(obj)}: {domain_error_text(exc)}", messages.ERROR
            )
    if ok:
        # ``done`` is an English message id with its Czech in a catalogue (core/locale): shown in the staff's language
        modeladmin.message_user(request, f"{gettext(done)}: {ok}", messages.SUCCESS)
    return ok


@admin.register(AuditEvent)
class AuditEventAdmin(LargeTableAdmin):
    list_display = (
        "occurred_at",
        "actor_type",
        "actor_label",
        "actor_role",
        "action_shown",
        "object_type",
        "object_id",
        "request_id",
    )
    list_filter = ("actor_type", "actor_role", "action", "object_type")
    search_fields = ("object_id", "actor_label", "action", "request_id")
    date_hierarchy = "occurred_at"

    @admin.display(description=gettext_lazy("action"), ordering="action")
    def action_shown(self, obj: AuditEvent) -> Any:
        """The action's label in the staff member's language, its code beside it (what the search and the filter
        take)."""
        return format_html('{} <code class="action-code">{}</code>', action_label(obj.action), obj.action)

    def staff_title(self, obj: Any) -> str:
        """The event named by its Prague time, labelled (its ``__str__`` keeps UTC for logs)."""
        at = f"{clock.local(obj.occurred_at):%Y-%m-%d %H:%M:%S}"
        return f"{at} ({clock.PRAGUE}) {obj.actor_type}:{obj.actor_label} {action_label(obj.action)}"


@admin.register(SecurityEventWindow)
class SecurityEventWindowAdmin(ReadOnlyAdmin):
    """Repeated security events counted per source and window (the audit trail holds the first of each)."""

    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("window_start", "action", "source", "count", "first_at", "last_at")
    list_filter = ("action",)
    search_fields = ("source",)
    date_hierarchy = "window_start"


@admin.register(IdempotencyRecord)
class IdempotencyRecordAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("created_at", "scope", "key", "endpoint", "response_status")
    search_fields = ("key", "scope")


@admin.register(TaskHeartbeat)
class TaskHeartbeatAdmin(ReadOnlyAdmin):
    technical = True  # the home page's "Technical" section (core.admin_site)
    list_display = ("marker", "sent_at", "ran_at", "worker")
