"""Mounted at /api/v1/regulator/ (config/urls.py). The Ministry's download and notification URLs (registered with the
Customs form as StazeniBalickuUrl = .../ministry/packages/, NotifikaceUspechuUrl, NotifikaceChybyUrl)."""

from django.urls import path

from regulator import views

urlpatterns = [
    path("ministry/packages/<str:file_name>", views.package_download, name="regulator-package-download"),
    path("ministry/notify/success", views.notify_success, name="regulator-notify-success"),
    path("ministry/notify/error", views.notify_error, name="regulator-notify-error"),
]
