from django.apps import AppConfig


class ProvidersConfig(AppConfig):
    name = "providers"

    def ready(self) -> None:
        # providers implements what games needs of it (games/hooks.py; checked at start-up, games.E001).
        # Imported here: the tasks and privacy modules import the models, loaded after every AppConfig is created.
        from games import hooks
        from providers import privacy, sql, tasks  # noqa: F401  (sql: its hot statements, core/sql.py)

        hooks.remote_round_cancelled.register(tasks.round_cancelled_enqueue)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
