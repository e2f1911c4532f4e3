from django.apps import AppConfig


class LimitsConfig(AppConfig):
    name = "limits"

    def ready(self) -> None:
        # limits implements these account events for accounts (accounts/hooks.py; checked at start-up).
        # Imported here, not at the top: the services import models, which need the app registry ready.
        from accounts import hooks
        from limits import privacy, selectors, services, sql  # noqa: F401  (sql: its hot statements, core/sql.py)

        hooks.register("login_check", services.login_check)
        hooks.register("deposit_refusal", services.deposit_refusal)
        hooks.register("account_closed", services.limits_account_closed)
        hooks.register("self_limits_decided", selectors.self_limits_decided)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the settled bets' archived months carried forward (declared in core.retention_rules)
        from core.archiving import carry_forward_register
        from limits import carry

        carry_forward_register("limits.carry_settled_bets", carry.carry_settled_bets)
