"""English roulette table rule set: limits, zero rule, colour chips (RULES.md §Roulette).

Frozen and pure: the table stores ``to_dict()`` in ``TableOpened`` and rebuilds it with
``from_dict`` (which validates every option and names the one at fault).
"""

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import LimitRefused
from .prison import PrisonOnClose
from .roulette import BetType, DoublePrison, InvalidBet, RouletteBet, ZeroRule

# A table limit above 100 million EUR is a typo, and 35 times it must still fit one posting.
MAX_LIMIT_CENTS = 10**10

COLOURS = ("red", "green", "blue", "yellow", "white", "pink", "orange", "purple", "brown", "grey")


class StakeOutsideLimits(InvalidBet, LimitRefused):
    """A roulette stake under the table minimum or over the maximum (``kind``, see
    :class:`~games.rules.errors.LimitRefused`): an ``InvalidBet`` on ``stake_cents``."""


@dataclass(frozen=True)
class RouletteTableRules:
    """Options of one English roulette table; every amount in cents.

    Limits apply per position and per patron for the coup: what he already has on that
    position counts toward the maximum. Even chances have their own minimum and maximum; a
    standing player without colour chips may bet only the even chances, at
    ``standing_min_cents`` or more.
    """

    zero_rule: ZeroRule = ZeroRule.LA_PARTAGE
    double_prison: DoublePrison = DoublePrison.LOSE
    prison_on_close: PrisonOnClose = PrisonOnClose.HALF_RETURNED
    min_bet_cents: int = 200
    max_bet_cents: int = 10_000
    even_chance_min_cents: int = 500
    even_chance_max_cents: int = 100_000
    standing_min_cents: int = 1_000
    max_colours: int = 8
    neighbours: int = 2

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "RouletteTableRules":
        """Build from JSON options; raises ``InvalidBet`` naming ``rules.<option>``."""
        options = dict(options or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise InvalidBet(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        values: dict[str, Any] = {}
        for name, enum in (
            ("zero_rule", ZeroRule),
            ("double_prison", DoublePrison),
            ("prison_on_close", PrisonOnClose),
        ):
            if name in options:
                try:
                    values[name] = enum(options[name])
                except ValueError:
                    allowed = ", ".join(e.value for e in enum)
                    raise InvalidBet(f"rules.{name}", f"must be one of {allowed}") from None
        for name in known - {"zero_rule", "double_prison", "prison_on_close"}:
            if name in options:
                value = options[name]
                if type(value) is not int or not 1 <= value <= MAX_LIMIT_CENTS:
                    raise InvalidBet(f"rules.{name}", f"must be an integer from 1 to {MAX_LIMIT_CENTS}")
                values[name] = value
        rules = cls(**values)
        rules._check_consistent()
        return rules

    def _check_consistent(self) -> None:
        if self.min_bet_cents > self.max_bet_cents:
            raise InvalidBet("rules.min_bet_cents", "the minimum is above the maximum")
        if self.even_chance_min_cents > self.even_chance_max_cents:
            raise InvalidBet("rules.even_chance_min_cents", "the even-chance minimum is above its maximum")
        if self.standing_min_cents > self.even_chance_max_cents:
            raise InvalidBet("rules.standing_min_cents", "the standing minimum is above the even-chance maximum")
        if self.max_colours > len(COLOURS) or self.max_colours > 8:
            raise InvalidBet("rules.max_colours", "an English roulette table has at most 8 colours")
        if not 1 <= self.neighbours <= 18:
            raise InvalidBet("rules.neighbours", "between 1 and 18 neighbours either side")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["zero_rule"] = self.zero_rule.value
        data["double_prison"] = self.double_prison.value
        data["prison_on_close"] = self.prison_on_close.value
        return data

    def check_stake(self, bet: RouletteBet, stake_cents: int, *, colour_chips: bool, already_cents: int = 0) -> None:
        """Refuse a stake outside the table's limits; ``already_cents`` = same patron, same position, this coup."""
        if type(stake_cents) is not int or stake_cents <= 0:
            raise InvalidBet("stake_cents", "the stake must be a positive whole number of cents")
        if bet.is_even_chance:
            low = (
                self.even_chance_min_cents if colour_chips else max(self.even_chance_min_cents, self.standing_min_cents)
            )
            high = self.even_chance_max_cents
        else:
            if not colour_chips:
                raise InvalidBet(
                    "chips",
                    "at English roulette only the even chances may be played with value chips: buy colour chips",
                )
            low, high = self.min_bet_cents, self.max_bet_cents
        if stake_cents < low:
            raise StakeOutsideLimits(
                "stake_cents",
                f"{_eur(stake_cents)} is under the table minimum of {_eur(low)} for {bet.type}",
                "table_minimum",
            )
        if already_cents + stake_cents > high:
            raise StakeOutsideLimits(
                "stake_cents",
                f"{_eur(already_cents + stake_cents)} on this position is over the table maximum of {_eur(high)}",
                "table_maximum",
            )


def _eur(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


__all__ = ["COLOURS", "RouletteTableRules", "BetType", "StakeOutsideLimits"]
