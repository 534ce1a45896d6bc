"""Five-card poker hands: their category and their exact order (``RULES.md §Hand ranking``).

Used by both stud games (``RULES.md §Stud poker``). High card < pair < two pair < trips <
straight < flush < full house < quads < straight flush < royal flush (the ace-high straight
flush, its own category because Caribbean stud pays it apart). A-2-3-4-5 (the wheel) is the
lowest straight and the lowest straight flush. Suits never rank.

Ties, per RULES.md: high card and flush compare card by card; a pair by the pair, then the
kickers; two pair by the higher pair, the lower pair, then the kicker; trips, full house and
quads by the rank of the set; straights and straight flushes by their highest card. With one
deck, two hands cannot hold sets of the same rank, so the set decides every real tie; for a
total order on any two hands (from different decks, say) the remaining cards then break the
tie as usual in poker (trips: the two kickers; full house: the pair; quads: the kicker).
Hands equal in all five ranks are equal.

How it is fast: each card is a 32-bit integer (Cactus Kev's layout: one rank bit, one suit
bit, the rank's prime). Five cards of one suit look up a flush table by their rank bits; five
different ranks look up the straight / high-card table; every other hand looks up its rank
multiset by the product of the five primes (unique by factorisation). The three tables cover
all 6,175 rank patterns and are built once at import from the ranking rules above. The result
is one integer whose order is the hand's order (:attr:`HandRank.value`); there are 7,462
distinct values, each with one shared :class:`HandRank`.

Pure: no Django, no clock, no randomness.
"""

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import cache
from math import prod

from basis.errors import RuleError

from .cards import RANKS, SUITS, parse_card

__all__ = [
    "CATEGORIES",
    "HANDS_IN_DECK",
    "HandRank",
    "category_counts",
    "compare",
    "dealer_qualifies",
    "evaluate",
    "qualify_probability",
    "rank_value",
]

CATEGORIES: tuple[str, ...] = (
    "high card",
    "pair",
    "two pair",
    "trips",
    "straight",
    "flush",
    "full house",
    "quads",
    "straight flush",
    "royal flush",
)
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL_FLUSH = range(10)
HANDS_IN_DECK = 2_598_960  # C(52, 5)

_CATEGORY_SHIFT = 20  # value = category << 20 | up to five tie-break ranks, a nibble each (2..14)
_ACE = 14

# --- cards as integers -------------------------------------------------------------------
# bits 16-28: one bit for the rank (2 = bit 16 ... A = bit 28); bits 12-15: one bit for the
# suit; bits 0-7: the rank's prime (2 = 2, 3 = 3, ..., A = 41).
_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_CARD_INT: dict[str, int] = {
    rank + suit: (1 << (16 + r)) | (1 << (12 + s)) | _PRIMES[r]
    for r, rank in enumerate(RANKS)
    for s, suit in enumerate(SUITS)
}
_SUIT_MASK = 0xF000


def _encode(category: int, ranks: Sequence[int]) -> int:
    value = category
    for i in range(5):
        value = (value << 4) | (ranks[i] if i < len(ranks) else 0)
    return value


def _straight_high(ranks_desc: Sequence[int]) -> int:
    """The straight's top card (5 for the wheel) of five different ranks, else 0."""
    if ranks_desc[0] - ranks_desc[4] == 4:
        return ranks_desc[0]
    if tuple(ranks_desc) == (14, 5, 4, 3, 2):
        return 5
    return 0


_SHAPES = {(2, 1, 1, 1): PAIR, (2, 2, 1): TWO_PAIR, (3, 1, 1): TRIPS, (3, 2): FULL_HOUSE, (4, 1): QUADS}


def _build_tables() -> tuple[list[int], list[int], dict[int, int]]:
    """The three lookup tables, from the ranking rules of the module docstring."""
    unique = [0] * (1 << 13)  # five different ranks, not all one suit: by rank bits
    flush = [0] * (1 << 13)  # five cards of one suit: by rank bits
    paired: dict[int, int] = {}  # a rank appears twice or more: by the product of primes
    for combo in itertools.combinations_with_replacement(range(2, 15), 5):
        counts = Counter(combo)
        if max(counts.values()) > 4:
            continue
        # Groups by size, then by rank, largest first: the tie-break order of RULES.md.
        groups = sorted(((n, r) for r, n in counts.items()), reverse=True)
        shape = tuple(n for n, _ in groups)
        ranks = [r for _, r in groups]
        if shape == (1, 1, 1, 1, 1):
            bits = sum(1 << (r - 2) for r in ranks)
            high = _straight_high(ranks)
            if high:
                unique[bits] = _encode(STRAIGHT, [high])
                flush[bits] = _encode(ROYAL_FLUSH if high == _ACE else STRAIGHT_FLUSH, [high])
            else:
                unique[bits] = _encode(HIGH_CARD, ranks)
                flush[bits] = _encode(FLUSH, ranks)
        else:
            paired[prod(_PRIMES[r - 2] for r in combo)] = _encode(_SHAPES[shape], ranks)
    return unique, flush, paired


_UNIQUE, _FLUSH, _PAIRED = _build_tables()


def rank_value(a: int, b: int, c: int, d: int, e: int) -> int:
    """The order value of five distinct cards given as card integers (the inner loop).

    Bigger is better; ``value >> 20`` is the index in :data:`CATEGORIES`. Callers with codes
    use :func:`evaluate`, which checks its input; this does not.
    """
    if a & b & c & d & e & _SUIT_MASK:
        return _FLUSH[(a | b | c | d | e) >> 16]
    return _UNIQUE[(a | b | c | d | e) >> 16] or _PAIRED[(a & 0xFF) * (b & 0xFF) * (c & 0xFF) * (d & 0xFF) * (e & 0xFF)]


# --- the rank of a hand ----------------------------------------------------------------


class HandRank:
    """The strength of a five-card hand: totally ordered (``<``, ``==``, ``hash``) by ``value``.

    - ``category``: a name of :data:`CATEGORIES` (``"high card"`` ... ``"royal flush"``).
    - ``ranks``: the tie-break ranks after the category, 2-14 (ace 14), in the order they are
      compared: high card / flush the five ranks high to low; pair (pair, three kickers); two
      pair (high pair, low pair, kicker); trips (set, two kickers); full house (set, pair);
      quads (set, kicker); straight / straight flush / royal flush (top card; 5 for the wheel).
    - ``value``: one integer with the same order (category << 20, then a nibble per rank).

    Immutable; equal hands share one instance. Two ranks compare equal when the hands tie.
    """

    __slots__ = ("value", "category", "category_index", "ranks")

    value: int
    category: str
    category_index: int
    ranks: tuple[int, ...]

    def __init__(self, value: int) -> None:
        category_index = value >> _CATEGORY_SHIFT
        nibbles = [(value >> shift) & 0xF for shift in (16, 12, 8, 4, 0)]
        object.__setattr__(self, "value", value)
        object.__setattr__(self, "category_index", category_index)
        object.__setattr__(self, "category", CATEGORIES[category_index])
        object.__setattr__(self, "ranks", tuple(r for r in nibbles if r))

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("HandRank is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("HandRank is immutable")

    def __reduce__(self) -> tuple[object, tuple[int]]:
        return _rank_of_value, (self.value,)

    def __eq__(self, other: object) -> bool:
        return self.value == other.value if isinstance(other, HandRank) else NotImplemented

    def __lt__(self, other: "HandRank") -> bool:
        return self.value < other.value if isinstance(other, HandRank) else NotImplemented

    def __le__(self, other: "HandRank") -> bool:
        return self.value <= other.value if isinstance(other, HandRank) else NotImplemented

    def __gt__(self, other: "HandRank") -> bool:
        return self.value > other.value if isinstance(other, HandRank) else NotImplemented

    def __ge__(self, other: "HandRank") -> bool:
        return self.value >= other.value if isinstance(other, HandRank) else NotImplemented

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"HandRank({self.category!r}, ranks={self.ranks})"

    def to_dict(self) -> dict[str, object]:
        """JSON-safe: ``{"category": ..., "ranks": [...]}``."""
        return {"category": self.category, "ranks": list(self.ranks)}


_BY_VALUE: dict[int, HandRank] = {
    value: HandRank(value) for value in itertools.chain(_UNIQUE, _FLUSH, _PAIRED.values()) if value
}


def _rank_of_value(value: int) -> HandRank:
    return _BY_VALUE[value]


def _card_ints(cards: object) -> tuple[int, int, int, int, int]:
    """The checked card integers of five codes; the error path of :func:`evaluate`."""
    if isinstance(cards, str | bytes) or not isinstance(cards, Iterable):
        raise RuleError("cards", f"must be a list of five card codes, got {cards!r}")
    codes = list(cards)
    if len(codes) != 5:
        raise RuleError("cards", f"a poker hand is exactly five cards, got {len(codes)}")
    ints = [_CARD_INT[parse_card(code).code] for code in codes]  # RuleError("card") for a bad code
    seen: set[str] = set()
    for code in codes:
        if code in seen:
            raise RuleError("cards", f"{code} appears twice: a hand holds five different cards")
        seen.add(code)
    a, b, c, d, e = ints
    return a, b, c, d, e


def evaluate(cards: Sequence[str]) -> HandRank:
    """The :class:`HandRank` of five card codes (any order), e.g.
    ``evaluate(["AS", "2D", "3H", "4C", "5S"]).category == "straight"``.

    Raises :class:`RuleError`: ``"cards"`` unless exactly five different cards, ``"card"``
    for a code that is not a card.
    """
    try:
        a, b, c, d, e = cards  # type: ignore[misc]
        a, b, c, d, e = _CARD_INT[a], _CARD_INT[b], _CARD_INT[c], _CARD_INT[d], _CARD_INT[e]
    except (KeyError, TypeError, ValueError):
        a, b, c, d, e = _card_ints(cards)  # raises the precise RuleError
    if len({a, b, c, d, e}) != 5:
        _card_ints(cards)  # raises
    return _BY_VALUE[rank_value(a, b, c, d, e)]


def compare(a: Sequence[str], b: Sequence[str]) -> str:
    """``"a"``, ``"b"`` or ``"tie"``: which of two five-card hands wins."""
    rank_a, rank_b = evaluate(a), evaluate(b)
    return "a" if rank_a > rank_b else "b" if rank_b > rank_a else "tie"


# --- Caribbean stud's qualifying hand, and the whole deck ----------------------------------

_QUALIFIES = _encode(HIGH_CARD, [_ACE, 13])  # ace-king high and anything better


def dealer_qualifies(rank: HandRank) -> bool:
    """True for ace-king high or better (``RULES.md §Caribbean-style stud``): A-K-4-3-2 is the
    lowest qualifying hand, A-Q-J-9-8 the best non-qualifying one."""
    return rank.value >= _QUALIFIES


def _enumerate_values() -> Counter[int]:
    """How many of the 2,598,960 hands of one deck have each order value: every five-card
    combination through :func:`rank_value`."""
    deck = [_CARD_INT[rank + suit] for suit in SUITS for rank in RANKS]
    return Counter(itertools.starmap(rank_value, itertools.combinations(deck, 5)))


@cache
def _value_counts() -> Counter[int]:
    # Cached: the enumeration is deterministic and both functions below read it.
    return _enumerate_values()


def category_counts() -> dict[str, int]:
    """Hands of each category among all 2,598,960 five-card hands, in :data:`CATEGORIES`
    order, counted by enumerating every hand (a few seconds once; cached after)."""
    counts = dict.fromkeys(CATEGORIES, 0)
    for value, n in _value_counts().items():
        counts[CATEGORIES[value >> _CATEGORY_SHIFT]] += n
    return counts


def qualify_probability() -> Fraction:
    """The exact probability that the dealer's five cards qualify (ace-king or better), over
    all 2,598,960 hands: 205/364."""
    qualifying = sum(n for value, n in _value_counts().items() if value >= _QUALIFIES)
    return Fraction(qualifying, HANDS_IN_DECK)
