from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from accounts import (
            hooks,  # noqa: F401  (registers the accounts.E001 system check)
            privacy_records,  # registers the accounts.E002/E003 checks (accounts.privacy_contract)
            sql,  # noqa: F401  (its hot statements, core/sql.py)
        )

        privacy_records.register()
