from pathlib import Path

from django.apps import apps
from django.conf import settings
from django.contrib import admin
from django.urls import include, path
from django.utils.module_loading import module_has_submodule
from drf_spectacular.views import SpectacularAPIView

from core.views import ApiDocsView, health
from playclient.views import play

urlpatterns = [
    path("health", health, name="health"),
    path("admin/", admin.site.urls),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", ApiDocsView.as_view(url_name="schema"), name="api-docs"),
    path("api/v1/core/", include("core.urls")),
    path("play/", play, name="play"),  # the reference player web client (docs/playclient.md)
]

# Each of the platform's own apps (a folder of this repository) with an API (``<app>/urls.py``) mounts it under
# /api/v1/<app>/; core is mounted above.
urlpatterns += [
    path(f"api/v1/{config.label}/", include(f"{config.name}.urls"))
    for config in apps.get_app_configs()
    if Path(config.path).parent == settings.BASE_DIR and config.name != "core"
    and module_has_submodule(config.module, "urls")
]
