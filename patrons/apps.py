from django.apps import AppConfig


class PatronsConfig(AppConfig):
    name = "patrons"
    verbose_name = "Patrons"

    def ready(self) -> None:
        from . import replay  # noqa: F401 - registers the replay-check of the self-limits
