"""Caribbean stud: the exact house edge of a pay table under the product's strategy, from an
enumeration of every player hand against every dealer hand (``RULES.md §Caribbean-style stud``).

The strategy (``demo/stud.py``): raise with a pair or better or with ace-king
high, fold everything else; it does not look at the dealer's shown card. The counts below are
``python -m tests.benchmarks.enumerate_caribbean_edge`` (40 s of CPU): for every one of the
C(52, 5) = 2,598,960 player hands and the C(47, 5) = 1,533,939 dealer hands of the other 47
cards, by inclusion-exclusion over the player's cards (the script's docstring says how).
They do not depend on the pay table or the raise multiple, so the edge of any pay table and
any ``raise_multiple`` is exact from them (:func:`caribbean_exact_edge`).

Check against the published figure: the Wizard of Odds' strategy table for the common pay table
(1-1-2-3-4-5-7-20-50-100) gives "raise on any ace/king or better": total loss
1,132,600,203,540 over 19,933,230,517,200 combinations (its count includes the choice of the
dealer's up card, 5 × ours), house edge 5.682 % of the ante, element of risk 2.672 %; these
counts give exactly that total loss. The published 5.224 % is the perfect strategy, which
raises some ace-king hands and folds others by the dealer's up card.

Pure: no Django.
"""

from fractions import Fraction
from math import comb

from .caribbean_stud import PAY_TABLES
from .poker_hands import CATEGORIES, HANDS_IN_DECK

__all__ = ["DEALER_HANDS", "FOLDED_HANDS", "OUTCOMES", "caribbean_exact_edge"]

DEALER_HANDS = comb(47, 5)  # 1,533,939 for each player hand

# Player hands the strategy folds (below ace-king, no pair): each loses its ante.
FOLDED_HANDS = 1_135_260
# By the raised hand's category: (raised hands, and over their pairs with the dealer's hands:
# dealer not qualified, qualified and lower, tie, higher).
OUTCOMES: dict[str, tuple[int, int, int, int, int]] = {
    "high card": (167280, 116672241648, 6319761672, 40491600, 133564821000),  # ace-king high only
    "pair": (1098240, 732583278000, 464948464320, 29652480, 487071772560),
    "two pair": (123552, 81513938520, 97602427872, 370656, 10404494280),
    "trips": (54912, 35762960520, 46848581664, 0, 1620116184),
    "straight": (10200, 6795675528, 8761103220, 2469000, 86930052),
    "flush": (5108, 3441266448, 4371398056, 15324, 22680584),
    "full house": (3744, 2411292240, 3324895056, 0, 6880320),
    "quads": (624, 390529440, 566487160, 0, 161336),
    "straight flush": (36, 23835156, 31385944, 108, 596),
    "royal flush": (4, 2783796, 3351948, 12, 0),
}
assert tuple(OUTCOMES) == CATEGORIES
assert FOLDED_HANDS + sum(row[0] for row in OUTCOMES.values()) == HANDS_IN_DECK
assert all(sum(row[1:]) == row[0] * DEALER_HANDS for row in OUTCOMES.values())


def caribbean_exact_edge(pay_table: str | dict[str, int], raise_multiple: int = 2) -> tuple[Fraction, Fraction]:
    """``(per ante, per total bet)``: the house's exact share, as fractions, of the ante and of
    the ante plus the raises (the element of risk), for ``pay_table`` (a name of
    :data:`~games.rules.caribbean_stud.PAY_TABLES` or a table of odds by category) and the raise
    as ``raise_multiple`` × the ante. ``KeyError`` for an unknown pay table's name."""
    odds = PAY_TABLES[pay_table] if isinstance(pay_table, str) else pay_table
    player_net = -FOLDED_HANDS * DEALER_HANDS  # in antes, over every (player, dealer) pair
    raised = 0
    for category, (hands, not_qualified, lower, _tie, higher) in OUTCOMES.items():
        raised += hands
        win = 1 + raise_multiple * odds[category]
        player_net += not_qualified + lower * win - higher * (1 + raise_multiple)
    per_ante = Fraction(-player_net, HANDS_IN_DECK * DEALER_HANDS)
    return per_ante, per_ante / (1 + raise_multiple * Fraction(raised, HANDS_IN_DECK))
