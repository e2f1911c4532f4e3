from django.urls import path

from core.views import HeartbeatView

urlpatterns = [path("heartbeat", HeartbeatView.as_view(), name="core-heartbeat")]
