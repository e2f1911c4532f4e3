from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"

    def ready(self) -> None:
        from core.archiving import carry_forward
        from jackpots import archived_totals, privacy, sql  # noqa: F401  (sql: its hot statements, core/sql.py)
        from jackpots.models import Contribution

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the contribution log's archived months carried forward (core.archiving; without it the job keeps them)
        carry_forward(Contribution).register(archived_totals.carry_contributions)
