"""Stud tables' rule sets as stored in ``TableOpened`` (RULES.md §Stud poker).

Each is the engine's rules plus the table's chip increments (``chip_cents``, ``off_chips``:
:mod:`games.rules.chips`; Caribbean: the ante, classic stud: every bet and raise) and
``card_source``: ``shuffled`` (the backend shuffles a fresh 52-card deck per coup, commits to
its order and reveals it at the end) or ``reported`` (the dealer's terminal reports each card;
a card already out of this deck is refused).
"""

from dataclasses import dataclass, field
from typing import Any

from basis.errors import RuleError

from .caribbean_stud import CaribbeanRules
from .chips import ChipIncrements
from .classic_stud import StudRules

CARD_SOURCES = ("shuffled", "reported")


def _card_source(options: dict) -> str:
    source = options.pop("card_source", "shuffled")
    if source not in CARD_SOURCES:
        raise RuleError("rules.card_source", "must be 'shuffled' or 'reported'")
    return source


@dataclass(frozen=True)
class CaribbeanTableRules:
    game: CaribbeanRules
    card_source: str = "shuffled"
    # The table's chip increments (options chip_cents, off_chips: games.rules.chips).
    chips: ChipIncrements = field(default_factory=ChipIncrements)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "CaribbeanTableRules":
        options = dict(options or {})
        source = _card_source(options)
        chips = ChipIncrements.take(options)
        return cls(game=CaribbeanRules.from_dict(options), card_source=source, chips=chips)

    def to_dict(self) -> dict[str, Any]:
        return {**self.game.to_dict(), "card_source": self.card_source, **self.chips.to_dict()}


@dataclass(frozen=True)
class ClassicStudTableRules:
    game: StudRules
    card_source: str = "shuffled"
    # The table's chip increments (options chip_cents, off_chips: games.rules.chips).
    chips: ChipIncrements = field(default_factory=ChipIncrements)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "ClassicStudTableRules":
        options = dict(options or {})
        source = _card_source(options)
        chips = ChipIncrements.take(options)
        return cls(game=StudRules.from_dict(options), card_source=source, chips=chips)

    def to_dict(self) -> dict[str, Any]:
        return {**self.game.to_dict(), "card_source": self.card_source, **self.chips.to_dict()}
