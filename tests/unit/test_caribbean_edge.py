"""The exact Caribbean stud edge (``games.rules.caribbean_edge``) against the published figures
and, hand by hand, against a brute-force count of the dealer's hands (RULES.md
§Caribbean-style stud)."""

from fractions import Fraction

import pytest

from games.rules.caribbean_edge import DEALER_HANDS, FOLDED_HANDS, OUTCOMES, caribbean_exact_edge
from games.rules.poker_hands import category_counts
from tests.benchmarks.enumerate_caribbean_edge import brute_force_outcomes

# The enumeration script's per-hand counts for raised hands it drew at random (seed 28):
# (dealer not qualified, qualified and lower, tie, higher).
SAMPLE = {
    ("9S", "TS", "TD", "AD", "TC"): (654604, 856832, 0, 22503),
    ("TS", "KS", "3H", "3C", "8C"): (672075, 161228, 27, 700609),
    ("QS", "QH", "KH", "7D", "AC"): (689012, 661165, 27, 183735),
}


def test_the_common_table_matches_the_published_total_loss_to_the_last_chip():
    """Wizard of Odds, Caribbean stud strategy table, "raise on any ace/king or better": total
    loss 1,132,600,203,540 over 19,933,230,517,200 combinations (5 up cards × our pairs), house
    edge 5.682 %, element of risk 2.672 %."""
    per_ante, per_total = caribbean_exact_edge("common")
    assert per_ante * 19_933_230_517_200 == 1_132_600_203_540
    assert round(float(per_total) * 100, 3) == 2.672
    # the perfect strategy's 5.224 % decides ace-king hands by the dealer's up card
    assert Fraction(5224, 100_000) < per_ante < Fraction(5690, 100_000)


def test_the_sheet_pay_table_per_ante_and_per_total_bet():
    per_ante, per_total = caribbean_exact_edge("sheet")
    assert per_ante == Fraction(13568339633, 332220508620)  # 4.0841 %
    assert round(float(per_total) * 100, 4) == 1.9207
    # straights 5, flushes 8, full houses 10 instead of 4, 5, 7 is all the difference: each
    # extra unit of odds is worth 2 × (raised hands of that category beating a qualifying dealer)
    lower = {c: OUTCOMES[c][2] for c in ("straight", "flush", "full house")}
    gained = 2 * (1 * lower["straight"] + 3 * lower["flush"] + 3 * lower["full house"])
    assert caribbean_exact_edge("common")[0] - per_ante == Fraction(gained, 2_598_960 * DEALER_HANDS)


def test_the_counts_cover_every_hand_once_and_every_dealer_hand_of_the_other_47_cards():
    counts = category_counts()
    for category, (hands, *outcomes) in OUTCOMES.items():
        if category != "high card":
            assert hands == counts[category]
        assert sum(outcomes) == hands * DEALER_HANDS
    # ace-king high without pair, straight or flush: 164 rank sets × (4^5 − 4) suitings
    assert OUTCOMES["high card"][0] == 164 * 1020
    assert FOLDED_HANDS == counts["high card"] - 164 * 1020
    assert OUTCOMES["trips"][3] == OUTCOMES["full house"][3] == OUTCOMES["quads"][3] == 0  # one deck: no tie


@pytest.mark.parametrize("hand", list(SAMPLE))
def test_a_sampled_hand_counts_the_same_by_brute_force(hand):
    """The inclusion-exclusion of the script against all 1,533,939 dealer hands evaluated."""
    assert brute_force_outcomes(list(hand)) == SAMPLE[hand]
