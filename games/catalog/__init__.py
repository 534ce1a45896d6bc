"""The house's games, one module each: ``spec(game)`` is what the rest of the house asks of a
game (``GameSpec``). Adding a game: its engine and table rule set in ``games.rules``, a module
here, its ``Table.Game`` value (a migration), its dealing and bet services in
``games.services``; the registry test (tests/unit/test_game_catalog.py) names what is missing.
"""

from . import baccarat, blackjack, caribbean_stud, classic_stud, english_roulette, trente_quarante
from .spec import GameSpec

GAMES: dict[str, GameSpec] = {
    module.SPEC.code: module.SPEC
    for module in (english_roulette, blackjack, caribbean_stud, classic_stud, baccarat, trente_quarante)
}


class UnknownGame(KeyError):
    """A game code no module of ``games.catalog`` declares."""


def spec(game: str) -> GameSpec:
    """The ``GameSpec`` of ``game`` (a ``Table.Game`` value). Raises ``UnknownGame``."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise UnknownGame(game) from None


__all__ = ["GAMES", "GameSpec", "UnknownGame", "spec"]
