from django.apps import AppConfig


class AmlConfig(AppConfig):
    """Anti-money-laundering duties of the operator (GP §4(4)b, §12(1), §2, §10(3)): online identification,
    PEP and sanctions screening, declarations and suspicious-transaction cases."""

    name = "aml"

    def ready(self) -> None:
        from accounts import hooks
        from aml import jobs, privacy, selectors, services, tasks

        hooks.aml_compliance_refusal.register(selectors.compliance_refusal)
        hooks.aml_screening_request.register(services.screening_request)
        # the background jobs the services ask for, each its task enqueued after commit (aml/jobs.py)
        jobs.identification_submit.register(tasks.identification_submit_on_commit)
        jobs.sandbox_callback_send.register(tasks.sandbox_callback_send_on_commit)
        jobs.screening_rescreen.register(tasks.screening_rescreen_on_commit)
        jobs.screening_player.register(tasks.screening_player_on_commit)
        privacy.register()  # its records, export and anonymisation (accounts.privacy_contract, GP §12(5), §12(7))
