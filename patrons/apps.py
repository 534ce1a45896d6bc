from django.apps import AppConfig


class PatronsConfig(AppConfig):
    name = "patrons"
    verbose_name = "Patrons"

    def ready(self) -> None:
        from ledger import identity

        from . import replay  # noqa: F401 - registers the replay-check of the self-limits
        from .identity import patron_mismatches

        identity.register(patron_mismatches)
