"""The house's games, one module each: ``spec(game)`` is what the rest of the house asks of a
game (``GameSpec``). Adding a game: its engine and table rule set in ``games.rules``, a module
here (its ``SPEC`` listed below, or ``register``-ed), its dealing and bet services in
``games.services`` named by its spec, and the house's approved range of its limits
(``CASINO_TABLE_LIMITS_CENTS``). A table's ``game`` column takes its choices from here
(``game_choices``): no migration. The registry test (tests/unit/test_game_catalog.py) names
what is missing; tests/toygame plays a seventh game through this registry alone.
"""

from . import baccarat, blackjack, caribbean_stud, classic_stud, english_roulette, trente_quarante
from .spec import GameSpec

GAMES: dict[str, GameSpec] = {
    module.SPEC.code: module.SPEC
    for module in (english_roulette, blackjack, caribbean_stud, classic_stud, baccarat, trente_quarante)
}


class UnknownGame(KeyError):
    """A game code no module of ``games.catalog`` declares."""


def register(game: GameSpec) -> GameSpec:
    """Add ``game`` to the house's games (a game declared outside this package: a plug-in, a
    test's toy game). Raises ``ValueError`` when its code is taken already."""
    if game.code in GAMES:
        raise ValueError(f"game {game.code!r} is declared already")
    GAMES[game.code] = game
    return game


def game_choices() -> list[tuple[str, str]]:
    """``[(code, name)]`` of every game, in the catalog's order: the choices of a table's
    ``game`` (``games.models.Table``), read when asked, so a registered game is one too."""
    return [(code, game.name) for code, game in GAMES.items()]


def spec(game: str) -> GameSpec:
    """The ``GameSpec`` of ``game`` (a game's code, as a table stores it). Raises ``UnknownGame``."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise UnknownGame(game) from None


__all__ = ["GAMES", "GameSpec", "UnknownGame", "game_choices", "register", "spec"]
