from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Tables, rounds and bets"

    def ready(self) -> None:
        from . import replay  # noqa: F401 - registers the replay-check of tables, rounds, bets
