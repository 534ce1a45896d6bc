from django.apps import AppConfig


class WorkstationsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "workstations"
    verbose_name = "Cage and audit workstations"
