"""The admin as production runs it (ADMIN_REQUIRE_2FA: password AND one-time password), mounted under the usual
``admin`` namespace so the back office's links resolve: the browser tests sign in through it."""

from django.contrib import admin
from django.urls import path

from core.admin_site import PlatformOTPAdminSite

site = PlatformOTPAdminSite(name="admin")
for model, model_admin in admin.site._registry.items():
    site.register(model, model_admin.__class__)

urlpatterns = [path("admin/", site.urls)]
