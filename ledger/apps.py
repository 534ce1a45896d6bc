from celery.signals import task_prerun
from django.apps import AppConfig
from django.core.signals import setting_changed
from django.db.backends.signals import connection_created


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger (append-only event store)"

    def ready(self) -> None:
        from . import (
            audit_check,  # noqa: F401 - registers the audit trails' replay check
            balance_check,  # noqa: F401 - registers the balances' replay check
            checks,  # noqa: F401 - registers the deploy check of the signing key
            outage,
            projection_check,  # noqa: F401 - registers the ratings' and table statistics' replay check
            timeouts,  # noqa: F401 - the long statement budget follows a connection opened again
        )
        from .export import reports  # noqa: F401 - registers the ledger's default CSV writers

        connection_created.connect(outage.connection_opened, dispatch_uid="ledger.outage.connection_opened")
        task_prerun.connect(_scan_before_task, dispatch_uid="ledger.seal_scan.before_task")

        configure_currency()
        setting_changed.connect(_currency_changed, dispatch_uid="ledger.currency")


def configure_currency() -> None:
    """Amounts shown to people name ``CASINO_CURRENCY`` (``basis.money``)."""
    from django.conf import settings

    from basis import money

    money.set_currency(settings.CASINO_CURRENCY)


def _currency_changed(setting, **kwargs) -> None:
    if setting == "CASINO_CURRENCY":
        configure_currency()


def _scan_before_task(**kwargs) -> None:
    """A worker reads as a page does: the events appended since its last task are scanned for
    ones the application did not write (``ledger.seal_scan``), which its reads then leave out.
    A database out of reach fails the task itself, not this."""
    from django.db import DatabaseError

    from . import seal_scan

    try:
        seal_scan.refresh()
    except DatabaseError:
        pass
