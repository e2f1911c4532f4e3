"""The admin as production runs it (ADMIN_REQUIRE_2FA): an OTPAdminSite, used by the 2FA tests."""
from django.contrib import admin
from django.urls import path
from django_otp.admin import OTPAdminSite

otp_site = OTPAdminSite(name="otpadmin")
for model, model_admin in admin.site._registry.items():
    otp_site.register(model, model_admin.__class__)

urlpatterns = [path("admin/", otp_site.urls)]
