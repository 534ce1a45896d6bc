"""English roulette (sheet 000): single zero, la partage or en prison, colour chips."""

from basis.money import format_cents

from ..rules.bet_variance import roulette_line_variance
from ..rules.coups import roulette_coup
from ..rules.house_edges import roulette_table_edge
from ..rules.roulette_table import RouletteTableRules
from .spec import GameSpec, cents_option

# The even chances' edge under each zero rule: half the stake back (la partage), or the stake
# held for the next spin (en prison, the same 1/74), or lost with the rest.
EVEN_CHANCE_EDGES = {"la_partage": "1.35 %", "en_prison": "1.35 %", "lost": "2.70 %"}


def limit_kinds(rules: dict) -> list[dict]:
    """Numbers, dozens and columns; the even chances, and the value-chip minimum standing."""
    standing = cents_option(rules, "standing_min_cents")
    return [
        {
            "kind": "numbers, dozens and columns",
            "min_cents": cents_option(rules, "min_bet_cents"),
            "max_cents": cents_option(rules, "max_bet_cents"),
        },
        {
            "kind": "even chances",
            "min_cents": cents_option(rules, "even_chance_min_cents"),
            "max_cents": cents_option(rules, "even_chance_max_cents"),
            "note": f"standing with value chips from {format_cents(standing)}" if standing else "",
        },
    ]


def table_options(rules: dict) -> list[str]:
    """The even chances' variant and the finales à cheval the table takes (sheet 000)."""
    options = []
    if rules.get("even_chances") == "with_other_bets":
        options.append("even chances only beside another bet of the same patron (second variant)")
    if rules.get("finales_a_cheval_7_10_8_11_9_12") is True:
        options.append("finales à cheval 7-10, 8-11, 9-12 too")
    return options


def edge_words(rules: dict) -> dict[str, str]:
    """Single zero; the even chances' edge under the table's zero rule."""
    rule = rules.get("zero_rule", "la_partage")
    return {
        "short": f"2.70 %, even chances {EVEN_CHANCE_EDGES.get(rule, '2.70 %')}",
        "source": f"single zero, 1/37; even chances under {rule.replace('_', ' ')}",
    }


SPEC = GameSpec(
    line_variance=roulette_line_variance,
    describe_coup=roulette_coup,
    house_edge=roulette_table_edge,
    code="english_roulette",
    name="English roulette",
    in_a_sentence="English roulette",
    rules=RouletteTableRules,
    minima=("min_bet_cents", "even_chance_min_cents", "standing_min_cents"),
    maxima=("max_bet_cents", "even_chance_max_cents"),
    minima_in_colour_chips=frozenset({"min_bet_cents"}),
    cards=False,
    layout_bets=True,
    limit_kinds=limit_kinds,
    table_options=table_options,
    edge_words=edge_words,
    limit_labels=(
        ("min_bet_cents", "Minimum, numbers"),
        ("max_bet_cents", "Maximum, numbers"),
        ("even_chance_min_cents", "Minimum, even chances"),
        ("even_chance_max_cents", "Maximum, even chances"),
    ),
)
