"""A shoe of N decks: its shuffled order, the commitment to it, and card counting for
card-reading shoes.

Source: ``RULES.md §Black jack`` (6 decks, cut card, 5 burned cards), ``DESIGN.md`` (Shoe FSM:
at shuffle the order's SHA-256 is recorded; at close the order is revealed so anyone can check
every dealt card). A card-reading shoe refuses a card the shoe cannot contain: it did not come
from this shoe.

Pure: no Django, no clock, never the global ``random``. The shuffle takes an injected
``random.Random``; in production the service passes ``random.SystemRandom()`` (OS entropy),
tests and benchmarks a seeded ``random.Random(seed)``.
"""

import hashlib
import math
import random
from collections import Counter
from dataclasses import dataclass

from basis.errors import RuleError

from .cards import MAX_DECKS, deck, parse_card, shoe_cards

__all__ = [
    "BURN_CARDS_BLACKJACK",
    "CUT_MAX_SHARE",
    "CUT_MIN_SHARE",
    "CardCounter",
    "ShoeOrder",
    "commitment",
    "validate_cut",
    "validate_salt",
    "verify_commitment",
]

BURN_CARDS_BLACKJACK = 5
"""Cards burned face down after the cut, before the first coup (sheet 000, ``RULES.md §Black jack``)."""

# The cut card leaves a talon (RULES.md §Black jack). We accept it between 60% and 90% of
# the shoe: below 60% most of the shoe is never played (shuffles cost table time and the
# shuffle machine's wear for nothing); above 90% fewer than 32 cards of 312 stay behind it,
# and a full table of 7 boxes with splits can then run the shoe dry before the coup that saw
# the cut card is finished. 75% (234 of 312) is the usual live-game penetration.
CUT_MIN_SHARE = 0.60
CUT_MAX_SHARE = 0.90

_DECK_SET = frozenset(deck())

MIN_SALT_HEX = 32  # 128 bits: too many to try against the commitment of a known composition


@dataclass(frozen=True)
class ShoeOrder:
    """The full order of a shoe, top card first, as card codes.

    Construction checks that ``cards`` is exactly ``decks`` full decks (any order); build a
    shuffled one with :meth:`shuffle`.
    """

    cards: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(self.cards))
        counts = Counter(self.cards)
        if counts.keys() != _DECK_SET:
            for code in self.cards:
                parse_card(code)  # a bad code: RuleError("card", ...)
        decks, extra = divmod(len(self.cards), 52)
        if extra or not 1 <= decks <= MAX_DECKS:
            raise RuleError("cards", f"a shoe holds 1 to {MAX_DECKS} full decks of 52 cards, got {len(self.cards)}")
        wrong = sorted(code for code in _DECK_SET if counts[code] != decks)
        if wrong:
            raise RuleError("cards", f"not {decks} full decks: {wrong[0]} appears {counts[wrong[0]]} times")

    @classmethod
    def shuffle(cls, decks: int, rng: random.Random) -> "ShoeOrder":
        """``decks`` decks in canonical order (:func:`games.rules.cards.shoe_cards`) shuffled
        by ``rng.shuffle`` (Fisher-Yates). The same seed gives the same order.

        Raises :class:`RuleError` (field ``"decks"``); TypeError if ``rng`` is not a
        ``random.Random`` (the global module is refused: it is shared, seeded by the clock).
        """
        if not isinstance(rng, random.Random):
            raise TypeError("rng must be a random.Random instance (never the global random module)")
        cards = shoe_cards(decks)
        rng.shuffle(cards)
        return cls(tuple(cards))

    @property
    def decks(self) -> int:
        return len(self.cards) // 52

    def __len__(self) -> int:
        return len(self.cards)


def validate_salt(salt: object) -> str:
    """``salt`` if it is lower-case hex of at least 32 digits; else :class:`RuleError` ("salt")."""
    if not isinstance(salt, str) or len(salt) < MIN_SALT_HEX or any(c not in "0123456789abcdef" for c in salt):
        raise RuleError("salt", f"must be at least {MIN_SALT_HEX} lower-case hex digits")
    return salt


def commitment(order: ShoeOrder, salt: str) -> str:
    """SHA-256 (hex) of the canonical text ``salt + ":" + ",".join(order.cards)`` in UTF-8.

    Recorded when the shoe is shuffled; the order and the salt stay private until the shoe
    closes, then both are revealed so anyone can recompute this value and check every dealt
    card against the order. The salt is random hex chosen at shuffle (the service uses
    ``secrets.token_hex(16)``): without it, anyone who sees the first cards dealt could try
    candidate orders of the known composition (6 full decks) against the published hash;
    with 128 unknown bits that search is hopeless.

    Raises :class:`RuleError` (field ``"salt"``).
    """
    text = validate_salt(salt) + ":" + ",".join(order.cards)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_commitment_of = commitment  # verify_commitment's parameter is named like the function


def verify_commitment(order: ShoeOrder, salt: str, commitment: str) -> bool:
    """True when ``commitment`` (hex, any case) is the commitment of ``order`` under ``salt``;
    False for a malformed salt or commitment."""
    try:
        expected = _commitment_of(order, salt)
    except RuleError:
        return False
    return isinstance(commitment, str) and commitment.lower() == expected


def validate_cut(decks: int, position: int) -> int:
    """``position`` (cards in front of the cut card, counted from the top of the shoe, burned
    cards included) if it lies between 60% and 90% of a ``decks``-deck shoe, bounds included
    (188 to 280 for 6 decks); else :class:`RuleError` (field ``"cut_position"``).
    """
    size = len(shoe_cards(decks))
    low, high = math.ceil(size * CUT_MIN_SHARE), math.floor(size * CUT_MAX_SHARE)
    if type(position) is not int or not low <= position <= high:
        raise RuleError("cut_position", f"must be an integer from {low} to {high} for {decks} decks, got {position!r}")
    return position


_ORDINALS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth")
_NUMBERS = ("one", "two", "three", "four", "five", "six", "seven", "eight")


def _ordinal(n: int) -> str:
    return _ORDINALS[n - 1] if n <= len(_ORDINALS) else f"{n}th"


class CardCounter:
    """What a shoe of ``decks`` decks can still contain, for card-reading shoes that report
    cards as they are drawn.

    :meth:`draw` refuses a card whose copies are all out ("the shoe cannot contain a seventh
    AS in six decks"); :meth:`remaining` says how many copies of a code are left.
    """

    def __init__(self, decks: int) -> None:
        shoe_cards(decks)  # validates decks
        self.decks = decks
        self._left = dict.fromkeys(deck(), decks)
        self.drawn = 0

    def verify_draw(self, code: object) -> None:
        """Raise :class:`RuleError` (field ``"card"``) if ``code`` is not a card or the shoe
        has no copy of it left."""
        card = parse_card(code).code
        if self._left[card] == 0:
            raise RuleError(
                "card",
                f"the shoe cannot contain a {_ordinal(self.decks + 1)} {card} in {_NUMBERS[self.decks - 1]} "
                f"deck{'s' if self.decks > 1 else ''}",
            )

    def can_draw(self, code: object) -> bool:
        try:
            self.verify_draw(code)
        except RuleError:
            return False
        return True

    def draw(self, code: str) -> str:
        """Count ``code`` as drawn and return it; raises :class:`RuleError` (see :meth:`verify_draw`)."""
        self.verify_draw(code)
        self._left[code] -= 1
        self.drawn += 1
        return code

    def remaining(self, code: str) -> int:
        """Copies of ``code`` still in the shoe; :class:`RuleError` ("card") if not a card."""
        return self._left[parse_card(code).code]

    @property
    def cards_left(self) -> int:
        return 52 * self.decks - self.drawn
