"""Black jack (sheets 000 and 004): boxes, a shoe, immediate payouts by sheet."""

from ..rules.blackjack_table import BlackjackTableRules
from .spec import GameSpec, cents_option


def limit_kinds(rules: dict) -> list[dict]:
    """A box: from the table's minimum to the box's maximum."""
    return [
        {
            "kind": "box",
            "min_cents": cents_option(rules, "min_bet_cents"),
            "max_cents": cents_option(rules, "max_box_cents"),
        }
    ]


SPEC = GameSpec(
    code="blackjack",
    name="Black jack",
    in_a_sentence="black jack",
    rules=BlackjackTableRules,
    minima=("min_bet_cents",),
    maxima=("max_box_cents",),
    dealt_from_a_shoe=True,
    limit_kinds=limit_kinds,
    limit_labels=(("min_bet_cents", "Minimum, box"), ("max_box_cents", "Maximum, box")),
)
