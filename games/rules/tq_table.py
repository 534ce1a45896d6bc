"""A trente-et-quarante table's rule set (RULES.md §Trente-et-quarante, §Prison bets): limits,
decks and the prison options, stored in ``TableOpened``."""

from dataclasses import dataclass, field
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import format_cents

from .chips import ChipIncrements
from .prison import PrisonRules

MAX_LIMIT_CENTS = 10**10
LIMITS = {"min_bet_cents": 500, "max_bet_cents": 100_000, "decks": 6}


@dataclass(frozen=True)
class TrenteQuaranteTableRules:
    prison: PrisonRules
    min_bet_cents: int = 500
    max_bet_cents: int = 100_000
    decks: int = 6
    # The table's chip increments (options chip_cents, off_chips: games.rules.chips).
    chips: ChipIncrements = field(default_factory=ChipIncrements)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "TrenteQuaranteTableRules":
        options = dict(options or {})
        unknown = sorted(set(options) - set(LIMITS) - {"double_prison", "prison_on_close", "chip_cents", "off_chips"})
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        values: dict[str, Any] = {"chips": ChipIncrements.take(options)}
        for name in LIMITS:
            if name in options:
                value = options[name]
                top = 8 if name == "decks" else MAX_LIMIT_CENTS
                if type(value) is not int or not 1 <= value <= top:
                    raise RuleError(f"rules.{name}", f"must be an integer from 1 to {top}")
                values[name] = value
        rules = cls(prison=PrisonRules.from_dict(options), **values)
        if rules.min_bet_cents > rules.max_bet_cents:
            raise RuleError("rules.min_bet_cents", "the minimum is above the maximum")
        return rules

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.prison.to_dict(),
            "min_bet_cents": self.min_bet_cents,
            "max_bet_cents": self.max_bet_cents,
            "decks": self.decks,
            **self.chips.to_dict(),
        }

    def check_stake(self, stake_cents: int) -> None:
        """Refuse a stake that is not whole cents (:class:`RuleError`) or is outside the table's
        limits (:class:`LimitRefused`, kind ``table_minimum`` or ``table_maximum``)."""
        message = f"a bet is from {format_cents(self.min_bet_cents)} to {format_cents(self.max_bet_cents)}"
        if type(stake_cents) is not int or stake_cents <= 0:  # not a stake at all: bad input, not a limit
            raise RuleError("stake_cents", message)
        if stake_cents < self.min_bet_cents:
            raise LimitRefused("stake_cents", message, "table_minimum")
        if stake_cents > self.max_bet_cents:
            raise LimitRefused("stake_cents", message, "table_maximum")
