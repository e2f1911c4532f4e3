from django.urls import path

from providers import api

urlpatterns = [
    path("<str:provider>/launch", api.LaunchView.as_view(), name="providers-launch"),
    path("<str:provider>/session", api.SessionView.as_view(), name="providers-session"),
    path("<str:provider>/balance", api.BalanceView.as_view(), name="providers-balance"),
    path("<str:provider>/bet", api.BetView.as_view(), name="providers-bet"),
    path("<str:provider>/play", api.PlayView.as_view(), name="providers-play"),
    path("<str:provider>/win", api.WinView.as_view(), name="providers-win"),
    path("<str:provider>/rollback", api.RollbackView.as_view(), name="providers-rollback"),
    path("<str:provider>/round-end", api.RoundEndView.as_view(), name="providers-round-end"),
]
