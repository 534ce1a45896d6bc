from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cage and patrons"

    def ready(self) -> None:
        # registers the replay-check of the cage and colour chips, and the files of the gaming-day export
        from . import export_files, replay  # noqa: F401
