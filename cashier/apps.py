from django.apps import AppConfig


class CashierConfig(AppConfig):
    name = "cashier"
    verbose_name = "Cage, slips and the count room"

    def ready(self) -> None:
        # registers the replay-check of the cage and colour chips, and the files of the gaming-day export
        from . import credit_replay, export_files, replay, scopes  # noqa: F401

        scopes.register()  # which table a slip URL names, for staff's permissions
