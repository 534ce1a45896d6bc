from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cage and patrons"

    def ready(self) -> None:
        # registers the replay-check of the cage and colour chips, and aml.csv of the gaming-day export
        from . import aml_export, replay  # noqa: F401
