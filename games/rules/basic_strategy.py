"""Basic strategy for the default black jack table (``RULES.md §Black jack``, defaults):
6 decks, dealer stands on all 17s, European no hole card (doubles and splits lost to a dealer
blackjack), double on 9-11 only, double after split, split to 3 hands, split aces one card
each, no surrender.

Source: the Wizard of Odds "4-Deck to 8-Deck Blackjack Strategy" chart for a dealer standing
on soft 17 with double after split (wizardofodds.com/games/blackjack/strategy/4-decks/), with
the standard no-hole-card adjustments (a dealer blackjack takes doubles and splits, so do not
double or split into a dealer ten or ace where the peek chart does): hit 11 against a ten or an
ace, hit 8,8 against a ten or an ace, hit A,A against an ace. These are the ENHC changes that
the Wizard's no-hole-card notes and the European-rules paragraph of red-dog-poker.info's basic
strategy page list ("do not split or double down against a dealer's ace, do not double down
against a dealer 10, and do not split a pair of 8's against a dealer's 10").

Adapted to ``double_on="9-11"``: the soft doubles of the chart become hit (``D``) or stand
(``Ds``: A,7 against 3-6 stands) because ``allowed`` never contains ``double`` for a soft
hand; with ``double_on="any"`` the chart's soft doubles apply again. This is total-dependent
basic strategy: the published house edges for basic strategy assume exactly this.

Pure: no Django, no clock, no randomness.
"""

from collections.abc import Collection, Sequence

from .blackjack import hand_value
from .cards import deck, parse_card

__all__ = ["basic_decision"]

# One character per dealer up card, in the order 2 3 4 5 6 7 8 9 T A.
# H hit · S stand · D double, else hit · B double, else stand.
_HARD = {
    **dict.fromkeys(range(4, 9), "HHHHHHHHHH"),
    9: "HDDDDHHHHH",
    10: "DDDDDDDDHH",
    11: "DDDDDDDDHH",  # peek chart: DDDDDDDDDH; no hole card: hit against T and A
    12: "HHSSSHHHHH",
    **dict.fromkeys(range(13, 17), "SSSSSHHHHH"),
    **dict.fromkeys(range(17, 22), "SSSSSSSSSS"),
}
_SOFT = {
    12: "HHHHHHHHHH",  # A,A that may not split
    13: "HHHDDHHHHH",
    14: "HHHDDHHHHH",
    15: "HHDDDHHHHH",
    16: "HHDDDHHHHH",
    17: "HDDDDHHHHH",
    18: "SBBBBSSHHH",
    19: "SSSSSSSSSS",
    20: "SSSSSSSSSS",
    21: "SSSSSSSSSS",
}
# Pairs by point value (1 = aces); Y split, N play the hand as its total.
_PAIRS = {
    1: "YYYYYYYYYN",  # peek chart: split against an ace too
    10: "NNNNNNNNNN",
    9: "YYYYYNYYNN",
    8: "YYYYYYYYNN",  # peek chart: always split
    7: "YYYYYYNNNN",
    6: "YYYYYNNNNN",
    5: "NNNNNNNNNN",
    4: "NNNYYNNNNN",
    3: "YYYYYYNNNN",
    2: "YYYYYYNNNN",
}
_COLUMN = {rank: i for i, rank in enumerate("23456789TA")} | {"J": 8, "Q": 8, "K": 8}
_COLUMN_OF_CARD = {code: _COLUMN[code[0]] for code in deck()}
_PAIR_VALUE = {rank: (1 if rank == "A" else 10 if rank in "TJQK" else int(rank)) for rank in "23456789TJQKA"}
_POINTS = {code: _PAIR_VALUE[code[0]] for code in deck()}  # ace 1, ten-values 10
_OFFERS = frozenset({"insurance", "even_money"})


def basic_decision(hand_cards: Sequence[str], dealer_up: str, allowed: Collection[str]) -> str:
    """The basic-strategy action for a hand (card codes) against the dealer's up card.

    ``allowed`` is the set of legal actions (``Decision.actions``); the answer is one of
    them: ``"hit"``, ``"stand"``, ``"double"`` or ``"split"``. Basic strategy never takes
    insurance or even money: for an offer (``allowed`` within {insurance, even_money}) the
    answer is ``"decline"``. Raises :class:`~basis.errors.RuleError` ("card") for a bad
    code.
    """
    if not allowed or _OFFERS.issuperset(allowed):
        return "decline"
    hard = aces = 0
    for card in hand_cards:
        points = _POINTS.get(card)
        if points is None:
            hand_value([card])  # raises RuleError("card")
        hard += points
        aces += points == 1
    soft = aces > 0 and hard <= 11
    total = hard + 10 if soft else hard
    column = _COLUMN_OF_CARD.get(dealer_up) if isinstance(dealer_up, str) else None
    if column is None:
        parse_card(dealer_up)  # raises RuleError("card")
    if "split" in allowed and len(hand_cards) == 2:
        value = _POINTS[hand_cards[0]]
        if value == _POINTS[hand_cards[1]] and _PAIRS[value][column] == "Y":
            return "split"
    if total > 21:
        return "stand"
    code = (_SOFT if soft else _HARD)[total][column]
    if code == "S":
        return "stand"
    if code == "H":
        return "hit"
    if "double" in allowed:
        return "double"
    return "hit" if code == "D" else "stand"
