"""Game names as people write them, for screens, reports and spreadsheets (``games.catalog``)."""

from .catalog import GAMES


def game_name(game: str) -> str:
    """``english_roulette`` → ``English roulette`` (its spec's ``name``, read when asked: a game
    registered later is named too); an unknown code in words."""
    known = GAMES.get(game) if isinstance(game, str) else None
    return known.name if known is not None else str(game).replace("_", " ").capitalize()
