"""The admin home page's panels: each app that gives staff work or reports adds its panel here, from its
``AppConfig.ready()``, with a plain import of this module (``core`` imports no app, so the apps come to it).

A panel is a titled list of links; each link names the permission whose holder acts on it and, for a work queue, a
``queue`` callable returning the count of waiting items and when the oldest arrived (one statement each). A staff
member sees a link only when they hold its permission, a panel only when they see one of its links.

Fail-closed: a link without a permission cannot be made (``HomeLink`` refuses it), a second panel with the same key
is refused, and the system check ``core.E012`` stops ``manage.py`` when a link names a permission no model declares
(a typo would hide a queue from every role and show it to every superuser). The reports' panel (``reports`` app) and
the work queues (``backoffice`` app) are registered the same way; there is no lookup by name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.db.models import Count, Min

from core import clock


@dataclass(frozen=True)
class QueueState:
    """What waits in a work queue: how many items and when the oldest arrived (None when empty)."""

    count: int
    oldest: datetime | None = None


@dataclass(frozen=True)
class HomeLink:
    label: str
    url: Callable[[], str]  # called when the page is drawn (URL names resolve only once the URLconf is loaded)
    permission: str  # "app_label.codename": who sees the link
    queue: Callable[[], QueueState] | None = None
    overdue_after_days: int | None = None  # the age from which the oldest item is shown as late
    note: str = ""

    def __post_init__(self) -> None:
        if "." not in self.permission:
            raise ValueError(f"home link {self.label!r}: a permission 'app_label.codename' is required")


@dataclass(frozen=True)
class HomePanel:
    key: str
    title: str
    links: tuple[HomeLink, ...]
    order: int = 100
    description: str = ""
    search: HomeLink | None = None  # a search box (GET ``q`` to its url) for the holders of its permission


@dataclass(frozen=True)
class ShownLink:
    label: str
    url: str
    note: str
    count: int | None = None
    oldest: datetime | None = None
    age_days: int | None = None
    late: bool = False
    age_text: str = ""


@dataclass(frozen=True)
class ShownPanel:
    key: str
    title: str
    description: str
    links: list[ShownLink] = field(default_factory=list)
    search: ShownLink | None = None


_panels: dict[str, HomePanel] = {}


def register_home_panel(panel: HomePanel) -> None:
    """Add a panel to the home page (call from an ``AppConfig.ready``); one per key."""
    current = _panels.get(panel.key)
    if current is not None and current != panel:
        raise ValueError(f"home panel {panel.key!r} is already registered")
    _panels[panel.key] = panel


def home_panels() -> list[HomePanel]:
    return sorted(_panels.values(), key=lambda p: (p.order, p.key))


def declared_link_permissions() -> set[str]:
    return {link.permission for p in _panels.values() for link in (*p.links, *((p.search,) if p.search else ()))}


def panels_for(user: Any, now: datetime | None = None) -> list[ShownPanel]:
    """The panels ``user`` sees, with each queue counted (only the queues shown are counted)."""
    now = now or clock.now()
    out: list[ShownPanel] = []
    for panel in home_panels():
        search = panel.search
        shown = ShownPanel(
            panel.key,
            panel.title,
            panel.description,
            search=(
                ShownLink(search.label, search.url(), search.note)
                if search and user.has_perm(search.permission)
                else None
            ),
        )
        for link in panel.links:
            if not user.has_perm(link.permission):
                continue
            if link.queue is None:
                shown.links.append(ShownLink(link.label, link.url(), link.note))
                continue
            state = link.queue()
            age = (now - state.oldest).days if state.oldest is not None else None
            late = age is not None and link.overdue_after_days is not None and age >= link.overdue_after_days
            shown.links.append(
                ShownLink(
                    link.label,
                    link.url(),
                    link.note,
                    state.count,
                    state.oldest,
                    age,
                    late,
                    age_text(now - state.oldest) if state.oldest is not None else "",
                )
            )
        if shown.links or shown.search:
            out.append(shown)
    return out


def age_text(age: timedelta) -> str:
    """How old the oldest item is, as staff read it: "5 d", "3 h", "12 min"."""
    seconds = max(0, int(age.total_seconds()))
    if seconds >= 86400:
        return f"{seconds // 86400} d"
    if seconds >= 3600:
        return f"{seconds // 3600} h"
    return f"{seconds // 60} min"


def queue_of(queryset: Any, oldest_field: str) -> QueueState:
    """A work queue's state in one statement: how many rows ``queryset`` holds and the earliest ``oldest_field``."""
    row = queryset.order_by().aggregate(n=Count("pk"), oldest=Min(oldest_field))
    return QueueState(int(row["n"]), row["oldest"])
