"""Punto banco (sheet 002): banker, player and tie, dealt from a shoe."""

from ..rules.baccarat import BaccaratRules
from .spec import GameSpec

SPEC = GameSpec(
    code="baccarat",
    name="Punto banco",
    in_a_sentence="baccarat",
    rules=BaccaratRules,
    minima=("min_bet_cents",),
    maxima=("max_bet_cents",),
    dealt_from_a_shoe=True,
    limit_labels=(("min_bet_cents", "Minimum bet"), ("max_bet_cents", "Maximum bet")),
)
