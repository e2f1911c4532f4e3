from django.apps import AppConfig


class WalletConfig(AppConfig):
    name = "wallet"

    def ready(self) -> None:
        # wallet implements these account events for accounts (accounts/hooks.py; checked at start-up).
        # Imported here, not at module level: selectors and services import the models, which Django loads
        # only after every AppConfig is created.
        from accounts import hooks
        from wallet import privacy, selectors, services, sql, system_checks  # noqa: F401  (system_checks: wallet.E001; sql: its hot statements)

        hooks.register("temporary_convert", services.wallet_convert_temporary)
        hooks.register("temporary_refund_start", services.temporary_refund_start)
        hooks.register("closure_settlement_start", services.closure_settlement_start)
        hooks.register("misuse_payout_start", services.misuse_payout_start)
        hooks.register("closure_settled_at", selectors.closure_settled_at)
        hooks.register("has_verified_payment_method", selectors.player_has_verified_payment_method)
        hooks.register("payment_method_deadline", selectors.payment_method_deadline)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the ledger's archived months carried forward (core.retention_rules declares the hooks; without them the job
        # keeps the ledger's months)
        from core.archiving import carry_forward_register
        from wallet import carry

        carry_forward_register("wallet.carry_entries", carry.carry_entries)
        carry_forward_register("wallet.carry_transactions", carry.carry_transactions)
