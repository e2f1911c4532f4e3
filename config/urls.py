"""The URL configuration. One style for every route (docs/player-api.md "Conventions"): no trailing slash
(``/api/v1/wallet/overview``, ``/api/v1/accounts/me``), checked by ``core/tests/test_api_conventions.py``. The form
with a slash is a 404 in the house error shape naming the canonical path (``core.middleware.CatchAllMiddleware``).
Django's admin keeps its own slashes."""

from importlib import import_module
from pathlib import Path
from typing import Any

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import URLPattern, include, path, re_path
from django.utils.module_loading import module_has_submodule
from drf_spectacular.views import SpectacularAPIView

from accounts.api_mailbox import mailbox_page
from core.views import ApiDocsView, health
from playclient.views import play

urlpatterns: list[Any] = [
    path("health", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/schema", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs", ApiDocsView.as_view(url_name="schema"), name="api-docs"),
    path("dev/mailbox", mailbox_page, name="dev-mailbox"),  # development only (accounts/api_mailbox.py)
    # the reference player web client (docs/playclient.md): a page, not an API route; /play/ as typed works too
    re_path(r"^play/?$", play, name="play"),
]


def api_routes(label: str, module_name: str) -> list[Any]:
    """An app's API under /api/v1/<label>/...; its root route ("") is /api/v1/<label> itself, with no slash."""
    # safe: the modules are the apps' own urls.py found by module_has_submodule below; a missing one is an
    # ImportError at start, never a skipped check (nothing here decides a rule)
    patterns = import_module(module_name).urlpatterns
    root = [p for p in patterns if isinstance(p, URLPattern) and str(p.pattern) == ""]
    rest = [p for p in patterns if p not in root]
    return [path(f"api/v1/{label}", p.callback, name=p.name or f"{label}-root") for p in root] + (
        [path(f"api/v1/{label}/", include(rest))] if rest else []
    )


# Each of the platform's own apps (a folder of this repository) with an API (``<app>/urls.py``) mounts it under
# /api/v1/<app>/.
for config in apps.get_app_configs():
    if Path(config.path).parent == settings.BASE_DIR and module_has_submodule(config.module, "urls"):
        urlpatterns += api_routes(config.label, f"{config.name}.urls")

if settings.BENCH_FLOOR:  # `make bench` only; settings refuse it in production
    from config.bench_floor import FloorView

    urlpatterns.append(path("bench/floor", FloorView.as_view(), name="bench-floor"))
