from django.apps import AppConfig


class LimitsConfig(AppConfig):
    name = "limits"

    def ready(self) -> None:
        # limits implements these account events for accounts (accounts/hooks.py; checked at start-up).
        # Imported here, not at the top: the services import models, which need the app registry ready.
        from accounts import hooks
        from limits import privacy, selectors, services, sql  # noqa: F401  (sql: its hot statements, core/sql.py)

        hooks.login_check.register(services.login_check)
        hooks.account_closed.register(services.limits_account_closed)
        hooks.self_limits_decided.register(selectors.self_limits_decided)
        hooks.deposit_refusal.register(services.deposit_refusal)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the settled bets' archived months carried forward (core.archiving; without it the job keeps their months)
        from core.archiving import carry_forward
        from limits import archived_totals
        from limits.models import SettledBet

        carry_forward(SettledBet).register(archived_totals.carry_settled_bets)
