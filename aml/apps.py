from django.apps import AppConfig


class AmlConfig(AppConfig):
    """Anti-money-laundering duties of the operator (GP §4(4)b, §12(1), §2(1), §10(3)): online identification,
    PEP and sanctions screening, declarations and suspicious-transaction cases."""

    name = "aml"
