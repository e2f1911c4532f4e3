from django.apps import AppConfig


class PlayclientConfig(AppConfig):
    name = "playclient"
    verbose_name = "Player web client"
