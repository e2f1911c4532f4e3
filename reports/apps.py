from django.apps import AppConfig


class ReportsConfig(AppConfig):
    name = "reports"
    verbose_name = "Reports (regulator and tax)"

    def ready(self) -> None:
        from reports.home import register_panels  # the admin's URL names resolve only once apps are ready

        register_panels()
