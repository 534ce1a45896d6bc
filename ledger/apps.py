from django.apps import AppConfig


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger (append-only event store)"

    def ready(self) -> None:
        from . import checks  # noqa: F401 - registers the deploy check of the signing key
        from .export import reports  # noqa: F401 - registers the ledger's default CSV writers
