from django.apps import AppConfig


class WalletConfig(AppConfig):
    name = "wallet"

    def ready(self) -> None:
        # wallet implements these account events for accounts (accounts/hooks.py; checked at start-up).
        # Imported here, not at module level: selectors and services import the models, which Django loads
        # only after every AppConfig is created.
        from accounts import hooks
        from wallet import hooks as wallet_hooks  # noqa: F401  (registers the wallet.E002 system check)
        from wallet import jobs, privacy, selectors, services, sql, system_checks, tasks  # noqa: F401  (system_checks: wallet.E001; sql: its hot statements)

        hooks.temporary_convert.register(services.wallet_convert_temporary)
        hooks.temporary_refund_start.register(services.temporary_refund_start)
        hooks.closure_settlement_start.register(services.closure_settlement_start)
        hooks.misuse_payout_start.register(services.misuse_payout_start)
        hooks.closure_settled_at.register(selectors.closure_settled_at)
        hooks.has_verified_payment_method.register(selectors.player_has_verified_payment_method)
        hooks.payment_method_deadline.register(selectors.payment_method_deadline)
        # the background jobs the services ask for, each its task enqueued after commit (wallet/jobs.py)
        jobs.payout_send.register(tasks.payout_send_on_commit)
        jobs.withdrawal_send.register(tasks.withdrawal_send_on_commit)
        jobs.sandbox_callback_send.register(tasks.sandbox_callback_send_on_commit)
        jobs.bank_statement_process.register(tasks.bank_statement_process_on_commit)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
        # the ledger's archived months carried forward (core.archiving; without them the job keeps the ledger's months)
        from core.archiving import carry_forward
        from wallet import archived_totals
        from wallet.models import Entry, LedgerTransaction

        carry_forward(Entry).register(archived_totals.carry_entries)
        carry_forward(LedgerTransaction).register(archived_totals.carry_transactions)
