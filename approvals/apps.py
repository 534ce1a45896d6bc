from django.apps import AppConfig


class ApprovalsConfig(AppConfig):
    name = "approvals"
    verbose_name = "Approvals (maker-checker)"

    def ready(self) -> None:
        from . import replay  # noqa: F401  registers the replay-check of the approvals
