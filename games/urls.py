from django.urls import path

from games import api

urlpatterns = [
    path("catalogue", api.CatalogueView.as_view(), name="games-catalogue"),
    path("catalogue/<str:code>", api.GameLaunchView.as_view(), name="games-launch"),
    path("rounds", api.RoundsView.as_view(), name="games-rounds"),
    path("rounds/open", api.OpenRoundView.as_view(), name="games-round-open"),
    path("rounds/<int:round_id>", api.RoundDetailView.as_view(), name="games-round"),
    path("rounds/<int:round_id>/verify", api.RoundVerifyView.as_view(), name="games-round-verify"),
    path("rounds/<int:round_id>/actions", api.RoundActionView.as_view(), name="games-round-actions"),
    path("play-money/rounds", api.PlayMoneyRoundsView.as_view(), name="games-play-money-rounds"),
    path("play-money/presets/<str:code>", api.PlayMoneyPresetsView.as_view(), name="games-play-money-presets"),
]
