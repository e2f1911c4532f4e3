from django.apps import AppConfig


class AmlConfig(AppConfig):
    """Anti-money-laundering duties of the operator (GP §4(4)b, §12(1), §2, §10(3)): online identification,
    PEP and sanctions screening, declarations and suspicious-transaction cases."""

    name = "aml"

    def ready(self) -> None:
        from accounts import hooks
        from aml import privacy, selectors, services

        hooks.aml_compliance_refusal.register(selectors.compliance_refusal)
        hooks.aml_screening_request.register(services.screening_request)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
