"""High card against the house: one card to the player, one to the house; a bet on the
``player`` or on the ``house`` wins even money when its card ranks higher (2 low, ace high);
on equal ranks every bet loses (the house's edge: 3/51 of each stake). Pure: no Django."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from basis.errors import LimitRefused, RuleError
from games.rules.cards import RANKS, parse_card

SIDES = ("player", "house")
CARD_SOURCES = ("shuffled", "reader")
# Ties go to the house: of the 51 cards left after the first, 3 share its rank.
EDGE = Fraction(3, 51)


@dataclass(frozen=True)
class HighCardRules:
    """The table's options: ``min_bet_cents``, ``max_bet_cents`` (cents) and ``card_source``
    (``shuffled``: a fresh shuffled deck each coup; ``reader``: the dealer's terminal reports
    each card)."""

    min_bet_cents: int = 500
    max_bet_cents: int = 100_000
    card_source: str = "shuffled"

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> HighCardRules:
        """The rules of ``options`` (defaults for what is left out); ``RuleError`` naming the option."""
        options = dict(options or {})
        unknown = sorted(set(options) - {"min_bet_cents", "max_bet_cents", "card_source"})
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"no option {unknown[0]!r} at high card")
        rules = cls(**options)
        for name in ("min_bet_cents", "max_bet_cents"):
            value = getattr(rules, name)
            if type(value) is not int or value <= 0:
                raise RuleError(f"rules.{name}", "a limit is a positive whole number of cents")
        if rules.min_bet_cents > rules.max_bet_cents:
            raise RuleError("rules.min_bet_cents", "the minimum is above the maximum")
        if rules.card_source not in CARD_SOURCES:
            raise RuleError("rules.card_source", "the cards are 'shuffled' or reported by a 'reader'")
        return rules

    def to_dict(self) -> dict[str, Any]:
        return {
            "min_bet_cents": self.min_bet_cents,
            "max_bet_cents": self.max_bet_cents,
            "card_source": self.card_source,
        }

    def check_bet(self, on: object, stake_cents: object) -> str:
        """The side bet on; ``RuleError`` (``bet``) for another, ``LimitRefused`` (``stake_cents``) off the limits."""
        if on not in SIDES:
            raise RuleError("bet", "a high card bet is on 'player' or 'house'")
        if type(stake_cents) is not int or stake_cents <= 0:
            raise RuleError("stake_cents", "a stake is a positive whole number of cents")
        if stake_cents < self.min_bet_cents:
            raise LimitRefused(
                "stake_cents", f"under the table's minimum of {self.min_bet_cents} cents", "table_minimum"
            )
        if stake_cents > self.max_bet_cents:
            raise LimitRefused(
                "stake_cents", f"over the table's maximum of {self.max_bet_cents} cents", "table_maximum"
            )
        return on


@dataclass(frozen=True)
class Line:
    """One bet settled: ``outcome`` won or lost; cents staked, returned (stake + winnings when
    won, 0 when lost), won and kept by the house."""

    outcome: str
    stake_cents: int
    return_cents: int
    winnings_cents: int
    house_cents: int


def winner(player_card: str, house_card: str) -> str | None:
    """``player`` or ``house``, the side whose card ranks higher; None on equal ranks."""
    player, house = (RANKS.index(parse_card(card).rank) for card in (player_card, house_card))
    return None if player == house else "player" if player > house else "house"


def settle(on: str, stake_cents: int, player_card: str, house_card: str) -> Line:
    """A bet of ``stake_cents`` on ``on`` once both cards are dealt: even money on its side's win."""
    if winner(player_card, house_card) == on:
        return Line("won", stake_cents, 2 * stake_cents, stake_cents, -stake_cents)
    return Line("lost", stake_cents, 0, 0, stake_cents)


def table_edge(rules: dict[str, Any]) -> tuple[Decimal, str]:
    """``(edge, basis)``: 3/51 on either side, whatever the limits."""
    HighCardRules.from_dict(rules)
    return Decimal(EDGE.numerator) / Decimal(EDGE.denominator), "exact: ties go to the house, 3/51 per unit staked"
