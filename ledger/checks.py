"""System checks of the ledger's production settings (``manage.py check --deploy``)."""

from django.core.checks import Error, Tags, register

from . import signing


@register(Tags.security, deploy=True)
def signing_key_configured(app_configs, **kwargs):
    """Checkpoints, seals and exports need the site's own Ed25519 key: the development key is a
    file anyone with the checkout's var/ may hold, and verifiers refuse it (``--strict``)."""
    if not signing.uses_development_key():
        return []
    return [
        Error(
            "LEDGER_SIGNING_KEY_FILE is not set (or is the development key): checkpoints, seals and "
            "exports would be signed with the development key",
            hint="generate one (deploy/README.md, 'The anchored chain'), keep it off the database host, "
            "set LEDGER_SIGNING_KEY_FILE to its path and give `manage.py ledger public-key` to the auditors",
            id="ledger.E002",
        )
    ]
