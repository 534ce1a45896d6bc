"""Game names as people write them, for screens, reports and spreadsheets."""

from .models import Table

GAME_NAMES = {
    Table.Game.ENGLISH_ROULETTE: "English roulette",
    Table.Game.BLACKJACK: "Black jack",
    Table.Game.CARIBBEAN_STUD: "Caribbean stud",
    Table.Game.CLASSIC_STUD: "Classic five-card stud",
    Table.Game.BACCARAT: "Punto banco",
    Table.Game.TRENTE_QUARANTE: "Trente-et-quarante",
}


def game_name(game: str) -> str:
    """``english_roulette`` → ``English roulette``; an unknown code in words."""
    return GAME_NAMES.get(game, str(game).replace("_", " ").capitalize())
