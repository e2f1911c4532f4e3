from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"

    def ready(self) -> None:
        from jackpots import privacy

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
