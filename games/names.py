"""Game names as people write them, for screens, reports and spreadsheets (``games.catalog``)."""

from .catalog import GAMES

GAME_NAMES = {code: game.name for code, game in GAMES.items()}


def game_name(game: str) -> str:
    """``english_roulette`` → ``English roulette``; an unknown code in words."""
    return GAME_NAMES.get(game, str(game).replace("_", " ").capitalize())
