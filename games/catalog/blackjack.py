"""Black jack (sheets 000 and 004): boxes, a shoe, immediate payouts by sheet."""

from ..rules.bet_variance import blackjack_line_variance
from ..rules.blackjack_table import BlackjackTableRules
from ..rules.coups import blackjack_coup
from ..rules.house_edges import blackjack_bets_without_edge, blackjack_table_edge
from ..rules.shoe import BURN_CARDS_BLACKJACK
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
    line_variance=blackjack_line_variance,
    describe_coup=blackjack_coup,
    house_edge=blackjack_table_edge,
    bets_without_edge=blackjack_bets_without_edge,
    code="blackjack",
    name="Black jack",
    in_a_sentence="black jack",
    rules=BlackjackTableRules,
    minima=("min_bet_cents",),
    maxima=("max_box_cents",),
    dealt_from_a_shoe=True,
    burn_cards=BURN_CARDS_BLACKJACK,
    batch_fields=frozenset({"patron", "box", "stake_cents", "seated"}),
    limit_kinds=limit_kinds,
    limit_labels=(("min_bet_cents", "Minimum, box"), ("max_box_cents", "Maximum, box")),
)
