from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = "Tables, rounds and bets"

    def ready(self) -> None:
        from core.signals import bet_refused

        from . import (
            replay,  # noqa: F401 - registers the replay-check of tables, rounds, bets
            scopes,
        )
        from .services import (  # noqa: F401 - each provides its game's services to its spec (games.catalog)
            baccarat,
            blackjack,
            caribbean,
            classic_stud,
            trente_quarante,
        )
        from .services.refusals import record_refusal_signal

        bet_refused.connect(record_refusal_signal, dispatch_uid="games.bet_refusal_record")
        scopes.register()  # which table a round, shoe or bet URL names, for staff's permissions
