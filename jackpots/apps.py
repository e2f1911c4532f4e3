from django.apps import AppConfig


class JackpotsConfig(AppConfig):
    name = "jackpots"

    def ready(self) -> None:
        from core.archiving import carry_forward_register
        from jackpots import carry, privacy, sql  # noqa: F401  (sql: its hot statements, core/sql.py)

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the contribution log's archived months carried forward (declared in core.retention_rules)
        carry_forward_register("jackpots.carry_contributions", carry.carry_contributions)
