"""Caribbean stud: five cards against the house, ante and raise, a fresh deck each coup."""

from ..rules.bet_variance import caribbean_line_variance
from ..rules.coups import caribbean_coup
from ..rules.house_edges import caribbean_line_edge, caribbean_table_edge
from ..rules.stud_table import CaribbeanTableRules
from .spec import GameSpec, cents_option


def limit_kinds(rules: dict) -> list[dict]:
    """The ante, its raise a multiple of it."""
    multiple = rules.get("raise_multiple") or 2
    return [
        {
            "kind": "ante",
            "min_cents": cents_option(rules, "ante_min_cents"),
            "max_cents": cents_option(rules, "ante_max_cents"),
            "note": f"raise {multiple} × the ante",
        }
    ]


SPEC = GameSpec(
    line_variance=caribbean_line_variance,
    describe_coup=caribbean_coup,
    house_edge=caribbean_table_edge,
    line_edge=caribbean_line_edge,
    code="caribbean_stud",
    name="Caribbean stud",
    in_a_sentence="Caribbean stud",
    rules=CaribbeanTableRules,
    minima=("ante_min_cents",),
    maxima=("ante_max_cents",),
    limit_labels=(("ante_min_cents", "Minimum ante"), ("ante_max_cents", "Maximum ante")),
    limit_kinds=limit_kinds,
    batch_fields=frozenset({"patron", "box", "ante_cents"}),
    theory_on="antes",  # its edge is per ante: the raise is not in it
    edge_per=" of the ante",
)
