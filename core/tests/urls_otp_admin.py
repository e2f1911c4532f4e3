"""The admin as production runs it (ADMIN_REQUIRE_2FA): an OTPAdminSite, used by the 2FA tests."""

from django.contrib import admin
from django.urls import path

from core.admin_site import PlatformOTPAdminSite

otp_site = PlatformOTPAdminSite(name="otpadmin")
for model, model_admin in admin.site._registry.items():
    otp_site.register(model, model_admin.__class__)

urlpatterns = [path("admin/", otp_site.urls)]
