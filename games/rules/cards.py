"""Playing cards as two-character codes: rank then suit (``AS``, ``TD``, ``7H``, ``QC``).

Ranks ``23456789TJQKA`` (T = ten), suits ``SHDC`` (spades, hearts, diamonds, clubs); upper
case only. Source: ``RULES.md §Common vocabulary`` (shoe). The
colours are the ones trente-et-quarante uses (``RULES.md §Trente-et-quarante``): spades and
clubs black, hearts and diamonds red.

Pure: no Django, no clock, no randomness.
"""

from dataclasses import dataclass

from basis.errors import RuleError

__all__ = ["RANKS", "SUITS", "Card", "deck", "parse_card", "shoe_cards"]

RANKS = "23456789TJQKA"
SUITS = "SHDC"
MAX_DECKS = 8  # the largest shoe in RULES.md (baccarat)

_RED_SUITS = frozenset("HD")


@dataclass(frozen=True)
class Card:
    """One card; build it with :func:`parse_card`."""

    rank: str
    suit: str

    @property
    def code(self) -> str:
        """The two-character code, e.g. ``"TD"``."""
        return self.rank + self.suit

    @property
    def colour(self) -> str:
        """``"red"`` (hearts, diamonds) or ``"black"`` (spades, clubs)."""
        return "red" if self.suit in _RED_SUITS else "black"

    def __str__(self) -> str:
        return self.code


_DECK: tuple[str, ...] = tuple(rank + suit for suit in SUITS for rank in RANKS)
_CARDS: dict[str, Card] = {code: Card(code[0], code[1]) for code in _DECK}


def parse_card(code: object) -> Card:
    """The :class:`Card` for ``code``; raises :class:`RuleError` (field ``"card"``) for
    anything that is not a two-character upper-case code of a rank and a suit."""
    card = _CARDS.get(code) if isinstance(code, str) else None
    if card is None:
        raise RuleError("card", f"{code!r} is not a card: rank of {RANKS} then suit of {SUITS}, e.g. 'AS' or 'TD'")
    return card


def deck() -> list[str]:
    """The 52 codes in the canonical order: spades, hearts, diamonds, clubs, each 2 to ace.

    This order is the starting point of every shuffle (:mod:`games.rules.shoe`), so it is
    part of what makes a seeded shuffle reproducible: never change it.
    """
    return list(_DECK)


def shoe_cards(decks: int) -> list[str]:
    """``decks`` full decks one after the other in canonical order (``52 * decks`` codes).

    Raises :class:`RuleError` (field ``"decks"``) unless ``decks`` is an integer 1-8.
    """
    if type(decks) is not int or not 1 <= decks <= MAX_DECKS:
        raise RuleError("decks", f"must be an integer from 1 to {MAX_DECKS}, got {decks!r}")
    return list(_DECK) * decks
