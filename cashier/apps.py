from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cage and patrons"

    def ready(self) -> None:
        from . import replay  # noqa: F401 - registers the replay-check of the cage and colour chips
