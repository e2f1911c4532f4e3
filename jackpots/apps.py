from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"

    def ready(self) -> None:
        from jackpots import privacy, sql  # noqa: F401  (sql: its hot statements, core/sql.py)

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
