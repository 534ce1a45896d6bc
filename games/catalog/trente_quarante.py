"""Trente-et-quarante: rouge, noir, couleur, inverse, dealt from a shoe; après and prison."""

from ..rules.bet_variance import tq_line_variance
from ..rules.coups import trente_quarante_coup
from ..rules.house_edges import tq_line_edge, tq_table_edge
from ..rules.tq_table import TrenteQuaranteTableRules
from ..rules.trente_quarante import check_bet
from .spec import GameSpec

SPEC = GameSpec(
    line_variance=tq_line_variance,
    describe_coup=trente_quarante_coup,
    house_edge=tq_table_edge,
    line_edge=tq_line_edge,
    code="trente_quarante",
    name="Trente-et-quarante",
    in_a_sentence="trente-et-quarante",
    rules=TrenteQuaranteTableRules,
    minima=("min_bet_cents",),
    maxima=("max_bet_cents",),
    dealt_from_a_shoe=True,
    burn_cards=0,  # dealt by hand face up: none burned
    move_bet=check_bet,
    batch_fields=frozenset({"patron", "bet", "stake_cents"}),
    limit_labels=(("min_bet_cents", "Minimum bet"), ("max_bet_cents", "Maximum bet")),
)
