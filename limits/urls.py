from django.urls import path

from limits import api

urlpatterns = [
    path("self-limits", api.SelfLimitListView.as_view(), name="limits-self-limits"),
    path("self-limits/history", api.SelfLimitHistoryView.as_view(), name="limits-self-limit-history"),
    path("self-limits/<str:kind>/<str:limit_type>", api.SelfLimitDetailView.as_view(), name="limits-self-limit"),
    path("play-status", api.PlayStatusView.as_view(), name="limits-play-status"),
    path("panic", api.PanicView.as_view(), name="limits-panic"),
    path("self-listing", api.SelfListingView.as_view(), name="limits-self-listing"),
    path("responsible-gaming", api.ResponsibleGamingView.as_view(), name="limits-responsible-gaming"),
    path("statistics", api.PlayStatisticsView.as_view(), name="limits-statistics"),
]
