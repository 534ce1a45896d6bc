"""English roulette (sheet 000): single zero, la partage or en prison, colour chips."""

from ..rules.roulette_table import RouletteTableRules
from .spec import GameSpec

SPEC = GameSpec(
    code="english_roulette",
    name="English roulette",
    in_a_sentence="English roulette",
    rules=RouletteTableRules,
    minima=("min_bet_cents", "even_chance_min_cents", "standing_min_cents"),
    maxima=("max_bet_cents", "even_chance_max_cents"),
    minima_in_colour_chips=frozenset({"min_bet_cents"}),
    cards=False,
    limit_labels=(
        ("min_bet_cents", "Minimum, numbers"),
        ("max_bet_cents", "Maximum, numbers"),
        ("even_chance_min_cents", "Minimum, even chances"),
        ("even_chance_max_cents", "Maximum, even chances"),
    ),
)
