from django.urls import path

from jackpots import api

urlpatterns = [
    path("", api.JackpotsView.as_view(), name="jackpots-display"),
    path("wins", api.JackpotWinsView.as_view(), name="jackpots-wins"),
    path("my-wins", api.MyJackpotWinsView.as_view(), name="jackpots-my-wins"),
]
