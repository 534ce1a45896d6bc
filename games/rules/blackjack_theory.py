"""Black jack's theoretical win, line by line (RULES.md §Black jack, "Theoretical win").

RULES.md: "the rule set's exact edge **per initial bet** × the initial stakes (doubles and
splits are inside that edge, not extra handle); insurance and even money at their own exact
edge". The table's edge (:mod:`games.rules.blackjack_edge`) is the expected loss per unit of
the *initial* bet under optimal play, doubles and splits included, insurance not taken. So:

- the line of a bettor's original hand (``hand_index`` 0) carries his initial stake × the
  table's edge, whatever the line's own stake (a doubled hand's stake is twice the initial
  one: the second half is not charged again);
- the lines of the hands a split made (``hand_index`` ≥ 1) carry nothing: their stakes are
  inside the edge per initial bet;
- an insurance line carries its stake × :func:`insurance_edge`;
- an even-money line is the blackjack (initial stake × the table's edge) plus what taking
  even money costs: even money = declining it + a side bet of half the stake paying 2:1 on
  the dealer's black jack (dealer black jack: +s instead of a push; otherwise +s instead of
  +1.5 s), so it adds half the stake × :func:`even_money_edge`.

Each line's figure is written as a rate on the line's own stake (:func:`line_edge`: the
``house_edge`` of its ``BetSettled``), so the projections' Σ stake × ``house_edge`` is the
theoretical win above, exactly.

The side bets' edges are exact from the shoe's composition with the cards known when the bet
is made removed (``decks`` × 52 cards, 16 ten-values and 4 aces a deck):

- insurance, dealer's ace removed: P(ten in the hole) = 16D / (52D − 1), edge
  1 − 3 × that = (4D − 1) / (52D − 1): 1 deck 3/51 = 5.8824 %, 6 decks 23/311 = 7.3955 %,
  8 decks 31/415 = 7.4699 % (the infinite-deck 1 − 3 × 4/13 = 1/13 = 7.6923 % is the limit).
  The insured hand's own cards are not removed: one figure per table, as the published
  tables give it (Wizard of Odds, "Insurance", the same values per deck count).
- even money, the dealer's up card and the player's ace and ten removed (the hand offered
  even money is always a black jack): up card an ace, P(ten in the hole) = (16D − 1) /
  (52D − 3), edge 4D / (52D − 3) (6 decks: 24/309 = 7.7670 %); up card a ten (sheet 004
  offers it then too), P(ace in the hole) = (4D − 1) / (52D − 3), edge 40D / (52D − 3)
  (6 decks: 240/309 = 77.6699 %).

Pure: no Django.
"""

from fractions import Fraction

from .blackjack import INSURANCE_PAYS, BetSettlement, Outcome

__all__ = ["even_money_edge", "insurance_edge", "line_edge"]

_INSURANCE = {Outcome.INSURANCE_WON, Outcome.INSURANCE_LOST}


def _side_bet_edge(wins: int, cards: int) -> Fraction:
    """The edge of a bet paying 2:1 (``INSURANCE_PAYS``) that wins with probability
    ``wins / cards``: 1 − 3p."""
    return 1 - (INSURANCE_PAYS + 1) * Fraction(wins, cards)


def insurance_edge(decks: int) -> Fraction:
    """The house edge of insurance (per unit insured) in a shoe of ``decks`` decks, the
    dealer's ace removed: (4D − 1) / (52D − 1)."""
    return _side_bet_edge(16 * decks, 52 * decks - 1)


def even_money_edge(decks: int, up_card: str) -> Fraction:
    """The edge of the side bet even money amounts to (half the stake at 2:1 on the dealer's
    black jack), per unit of that half stake; ``up_card`` the dealer's (``"A…"`` or a ten-value).
    The dealer's up card and the player's ace and ten are removed from the shoe."""
    if up_card[0] == "A":
        return _side_bet_edge(16 * decks - 1, 52 * decks - 3)
    return _side_bet_edge(4 * decks - 1, 52 * decks - 3)


def line_edge(
    line: BetSettlement, *, edge: Fraction, initial_stake_cents: int, decks: int, up_card: str | None
) -> Fraction:
    """The rate on ``line.stake_cents`` whose product is the line's theoretical win (module
    docstring): ``edge`` is the table's edge per initial bet, ``initial_stake_cents`` the
    bettor's bet on the box as placed, ``up_card`` the dealer's first card (needed for an
    even-money line). A line of no stake carries 0."""
    if not line.stake_cents:
        return Fraction(0)
    if line.outcome in _INSURANCE:
        return insurance_edge(decks)
    if line.hand_index != 0:
        return Fraction(0)
    theory = initial_stake_cents * edge
    if line.outcome == Outcome.EVEN_MONEY:
        if up_card is None:
            raise ValueError("an even-money line needs the dealer's up card")
        theory += Fraction(initial_stake_cents, 2) * even_money_edge(decks, up_card)
    return theory / line.stake_cents
