"""System checks of the ledger's production settings (``manage.py check --deploy``)."""

from django.conf import settings
from django.core.checks import Error, Tags, register


@register(Tags.security, deploy=True)
def seal_key_configured(app_configs, **kwargs):
    """The daily seals need a real secret: the development key is public (in the source)."""
    if getattr(settings, "LEDGER_SEAL_KEY", ""):
        return []
    return [
        Error(
            "LEDGER_SEAL_KEY is not set: gaming days would be sealed with the public development key",
            hint="set LEDGER_SEAL_KEY in the environment to a long random secret kept off the database host",
            id="ledger.E001",
        )
    ]
