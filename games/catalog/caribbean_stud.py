"""Caribbean stud: five cards against the house, ante and raise, a fresh deck each coup."""

from ..rules.stud_table import CaribbeanTableRules
from .spec import GameSpec

SPEC = GameSpec(
    code="caribbean_stud",
    name="Caribbean stud",
    in_a_sentence="Caribbean stud",
    rules=CaribbeanTableRules,
    minima=("ante_min_cents",),
    maxima=("ante_max_cents",),
    limit_labels=(("ante_min_cents", "Minimum ante"), ("ante_max_cents", "Maximum ante")),
)
