"""Black jack's theoretical win line by line (RULES.md §Black jack, "Theoretical win": the
edge per initial bet × the initial stakes, insurance and even money at their own exact edge).
Exact fractions; stakes in cents. Django is not configured."""

from fractions import Fraction

import pytest

from games.rules.blackjack import BetSettlement, Outcome
from games.rules.blackjack_theory import even_money_edge, insurance_edge, line_edge

E = Fraction(3782, 1_000_000)  # any edge per initial bet: the rates are linear in it


def line(outcome, stake, hand_index=0):
    return BetSettlement(1, hand_index, "P1", outcome, stake, 0, 0, stake, Fraction(0), False)


@pytest.mark.parametrize(
    "decks, edge",
    [(1, Fraction(3, 51)), (2, Fraction(7, 103)), (6, Fraction(23, 311)), (8, Fraction(31, 415))],
)
def test_insurance_edge_is_one_minus_three_times_a_ten_in_the_hole_given_the_dealers_ace(decks, edge):
    """(4D − 1)/(52D − 1): 6 decks 7.3955 %, 8 decks 7.4699 % (Wizard of Odds' insurance table)."""
    assert insurance_edge(decks) == edge
    tens, cards = 16 * decks, 52 * decks - 1  # the dealer's ace removed
    assert insurance_edge(decks) == 1 - 3 * Fraction(tens, cards)


def test_insurance_edge_tends_to_the_infinite_deck_one_thirteenth():
    assert insurance_edge(8) < Fraction(1, 13) and Fraction(1, 13) - insurance_edge(10**6) < Fraction(1, 10**6)


def test_even_money_edge_removes_the_players_ace_and_ten_and_the_up_card():
    """Six decks: against an ace 24/309 (7.7670 %); against a ten 240/309 (77.6699 %)."""
    assert even_money_edge(6, "AS") == Fraction(24, 309)
    assert even_money_edge(6, "KD") == even_money_edge(6, "TD") == Fraction(240, 309)


def test_a_doubled_hand_is_charged_the_edge_on_its_initial_stake_only():
    """Initial 10.00, doubled: line stake 20.00, theory 10.00 × E."""
    rate = line_edge(line(Outcome.WON, 2_000), edge=E, initial_stake_cents=1_000, decks=6, up_card="9D")
    assert rate * 2_000 == 1_000 * E


def test_split_hands_are_inside_the_edge_per_initial_bet():
    """Split 8s, 10.00 a hand: the original hand carries 10.00 × E, the new hand nothing."""
    first = line_edge(line(Outcome.WON, 1_000, 0), edge=E, initial_stake_cents=1_000, decks=6, up_card="7D")
    second = line_edge(line(Outcome.PUSHED, 1_000, 1), edge=E, initial_stake_cents=1_000, decks=6, up_card="7D")
    assert (first * 1_000, second) == (1_000 * E, 0)


def test_an_insurance_line_is_charged_the_insurance_edge_not_the_tables():
    rate = line_edge(line(Outcome.INSURANCE_LOST, 1_000), edge=E, initial_stake_cents=2_000, decks=6, up_card="AS")
    assert rate == Fraction(23, 311)


def test_even_money_is_the_blackjack_plus_half_the_stake_at_the_even_money_edge():
    rate = line_edge(line(Outcome.EVEN_MONEY, 1_000), edge=E, initial_stake_cents=1_000, decks=6, up_card="AS")
    assert rate * 1_000 == 1_000 * E + 500 * Fraction(24, 309)
