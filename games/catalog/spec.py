"""What the rest of the house asks of a game, said once per game (``games.catalog``).

A ``GameSpec`` names a game as people write it, gives its table rule set's class (from the
pure engines, ``games.rules``), which rule options are a table's minima and maxima (cents), and
how its coups are dealt. Services, pages and reports read these instead of comparing the
game's code: a seventh game is one more module in this package.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol


class TableRules(Protocol):
    """A game's table rule set (``games.rules``): parsed from the stored options (defaults
    filled in, ``RuleError`` or ``InvalidBet`` naming the option at fault), stored back."""

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> TableRules: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class GameSpec:
    """One game of the house.

    - ``code``: its ``Table.Game`` value, as stored (``"english_roulette"``);
    - ``name``: as people write it on screens and reports (``"English roulette"``);
    - ``in_a_sentence``: as it reads inside a sentence (``"black jack"``);
    - ``rules``: its table rule set's class;
    - ``minima``, ``maxima``: the rule options that are a minimum or a maximum bet (cents),
      which the house's approved range bounds (``games.services.table_limits``);
    - ``minima_in_colour_chips``: minima played in colour chips, which the table's smallest
      value chip does not bound (English roulette's numbers, sheet 000);
    - ``dealt_from_a_shoe``: a coup needs the table's shoe in play (black jack, punto banco,
      trente-et-quarante); the stud games deal each coup from a fresh deck;
    - ``cards``: dealt with cards (every game but roulette);
    - ``most_in_a_round``: for a game without a maximum bet, the most one player can put in
      during a coup under a rule set (cents), which the house's maximum bounds instead;
    - ``limit_labels``: ``(option, label)`` of the limits a pit boss reads and changes on the
      table's page, in that order.
    """

    code: str
    name: str
    in_a_sentence: str
    rules: type[TableRules]
    minima: tuple[str, ...]
    maxima: tuple[str, ...] = ()
    minima_in_colour_chips: frozenset[str] = field(default_factory=frozenset)
    dealt_from_a_shoe: bool = False
    cards: bool = True
    most_in_a_round: Callable[[dict[str, Any]], int] | None = None
    limit_labels: tuple[tuple[str, str], ...] = ()
