"""Trente-et-quarante: rouge, noir, couleur, inverse, dealt from a shoe; après and prison."""

from ..rules.tq_table import TrenteQuaranteTableRules
from .spec import GameSpec

SPEC = GameSpec(
    code="trente_quarante",
    name="Trente-et-quarante",
    in_a_sentence="trente-et-quarante",
    rules=TrenteQuaranteTableRules,
    minima=("min_bet_cents",),
    maxima=("max_bet_cents",),
    dealt_from_a_shoe=True,
    limit_labels=(("min_bet_cents", "Minimum bet"), ("max_bet_cents", "Maximum bet")),
)
