from django.apps import AppConfig


class RegulatorConfig(AppConfig):
    name = "regulator"
    verbose_name = "Regulator remote access (decree 10/2019 Sb.)"
    default_auto_field = "django.db.models.BigAutoField"
