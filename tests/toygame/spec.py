"""High card's ``GameSpec``: what the house asks of the game (its services module provides the rest)."""

from games.catalog import GameSpec

from .rules import HighCardRules, table_edge

SPEC = GameSpec(
    code="high_card",
    name="High card",
    in_a_sentence="high card",
    rules=HighCardRules,
    minima=("min_bet_cents",),
    maxima=("max_bet_cents",),
    limit_labels=(("min_bet_cents", "Minimum bet"), ("max_bet_cents", "Maximum bet")),
    house_edge=table_edge,
    batch_fields=frozenset({"patron", "bet", "stake_cents"}),
)
