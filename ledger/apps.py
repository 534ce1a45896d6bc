from django.apps import AppConfig
from django.core.signals import setting_changed


class LedgerConfig(AppConfig):
    name = "ledger"
    verbose_name = "Ledger (append-only event store)"

    def ready(self) -> None:
        from . import (
            balance_check,  # noqa: F401 - registers the balances' replay check
            checks,  # noqa: F401 - registers the deploy check of the signing key
        )
        from .export import reports  # noqa: F401 - registers the ledger's default CSV writers

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
