"""Punto banco (sheet 002): banker, player and tie, dealt from a shoe."""

from basis.errors import RuleError

from ..rules.baccarat import BaccaratRules, check_bet, house_edge
from ..rules.bet_variance import baccarat_line_variance
from ..rules.coups import baccarat_coup
from ..rules.house_edges import baccarat_bets_without_edge, baccarat_table_edge
from .spec import GameSpec


def edge_words(rules: dict) -> dict[str, str]:
    """Each bet's exact edge, from the composition of the shoe."""
    try:
        parsed = BaccaratRules.from_dict(rules)
    except RuleError:  # an odd rule set still shows the page
        return {"short": "—", "source": ""}
    short = ", ".join(f"{bet} {float(house_edge(bet, parsed) * 100):.2f} %" for bet in ("banker", "player", "tie"))
    return {"short": short, "source": f"exact, from the composition of the shoe ({parsed.decks} decks)"}


SPEC = GameSpec(
    line_variance=baccarat_line_variance,
    describe_coup=baccarat_coup,
    house_edge=baccarat_table_edge,
    bets_without_edge=baccarat_bets_without_edge,
    code="baccarat",
    name="Punto banco",
    in_a_sentence="baccarat",
    rules=BaccaratRules,
    minima=("min_bet_cents",),
    maxima=("max_bet_cents",),
    dealt_from_a_shoe=True,
    burn_cards=1,  # the sheets say nothing: the customary single burn card
    move_bet=check_bet,
    batch_fields=frozenset({"patron", "bet", "stake_cents"}),
    edge_words=edge_words,
    scoreboard=True,
    limit_labels=(("min_bet_cents", "Minimum bet"), ("max_bet_cents", "Maximum bet")),
)
