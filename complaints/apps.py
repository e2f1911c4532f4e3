from django.apps import AppConfig


class ComplaintsConfig(AppConfig):
    name = "complaints"

    def ready(self) -> None:
        from complaints import privacy

        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
