"""English roulette table rule set: limits, zero rule, colour chips (RULES.md §Roulette).

Frozen and pure: the table stores ``to_dict()`` in ``TableOpened`` and rebuilds it with
``from_dict`` (which validates every option and names the one at fault).
"""

from dataclasses import asdict, dataclass, field, fields
from enum import StrEnum
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import format_cents

from .chips import ChipIncrements
from .prison import PrisonOnClose
from .roulette import BetType, DoublePrison, InvalidBet, RouletteBet, ZeroRule

# A table limit above 100 million EUR is a typo, and 35 times it must still fit one posting.
MAX_LIMIT_CENTS = 10**10

COLOURS = ("red", "green", "blue", "yellow", "white", "pink", "orange", "purple", "brown", "grey")


class StakeOutsideLimits(InvalidBet, LimitRefused):
    """A roulette stake under the table minimum or over the maximum (``kind``, see
    :class:`~basis.errors.LimitRefused`): an ``InvalidBet`` on ``stake_cents``."""


class EvenChances(StrEnum):
    """When a patron may stake on the even chances (option ``even_chances``).

    Sheet 000 on English roulette: "la seconde variante veut que la mise sur les chances
    simples ne peut se faire que lors de mises multiples".
    """

    ANY = "any"  # the default: alone or with other bets
    WITH_OTHER_BETS = "with_other_bets"  # the second variant: only beside a bet of another kind


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
    even_chances: EvenChances = EvenChances.ANY
    # Sheet 000 lists five finales à cheval (0-3, 1-4, 2-5, 3-6, 6-9); many casinos also take
    # "finale 7-10", "8-11", "9-12" (three chevaux each). Off: the sheet's five only.
    finales_a_cheval_7_10_8_11_9_12: bool = False
    chips: ChipIncrements = field(default_factory=ChipIncrements)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "RouletteTableRules":
        """Build from JSON options; raises ``InvalidBet`` naming ``rules.<option>``."""
        options = dict(options or {})
        known = {f.name for f in fields(cls)} - {"chips"}
        unknown = sorted(set(options) - known - {"chip_cents", "off_chips"})
        if unknown:
            raise InvalidBet(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        try:
            values: dict[str, Any] = {"chips": ChipIncrements.take(options)}
        except RuleError as exc:
            raise InvalidBet(exc.field, exc.message) from None
        for name, enum in _ENUMS:
            if name in options:
                try:
                    values[name] = enum(options[name])
                except ValueError:
                    allowed = ", ".join(e.value for e in enum)
                    raise InvalidBet(f"rules.{name}", f"must be one of {allowed}") from None
        for name in _SWITCHES:
            if name in options:
                if type(options[name]) is not bool:
                    raise InvalidBet(f"rules.{name}", "must be true or false")
                values[name] = options[name]
        for name in known - {name for name, _ in _ENUMS} - set(_SWITCHES):
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
        del data["chips"]
        for name, _ in _ENUMS:
            data[name] = getattr(self, name).value
        return {**data, **self.chips.to_dict()}

    @property
    def options_on(self) -> frozenset[str]:
        """The names of the table's on/off options that are on (``expand_announced(options=…)``)."""
        return frozenset(name for name in _SWITCHES if getattr(self, name))

    def check_even_chance_company(self, bet: RouletteBet, *, others: list[RouletteBet]) -> None:
        """Refuse an even chance placed alone where the table plays the second variant.

        ``others``: the patron's bets already on this coup (and, in one placement, the other
        components). Under ``with_other_bets`` an even chance needs at least one of them on a
        position that is not an even chance: several even chances are still one kind of bet.
        Raises :class:`StakeOutsideLimits` (kind ``lone_even_chance``, field ``bet``).
        """
        if self.even_chances is EvenChances.ANY or not bet.is_even_chance:
            return
        if not any(not other.is_even_chance for other in others):
            raise StakeOutsideLimits(
                "bet",
                "at this table the even chances are played only as part of several bets: "
                "place a bet on a number, a line, a column or a dozen first",
                "lone_even_chance",
            )

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
                f"{format_cents(stake_cents)} is under the table minimum of {format_cents(low)} for"
                f" {'an even chance' if bet.type == 'chance_simple' else f'a {bet.type}'}",
                "table_minimum",
            )
        if already_cents + stake_cents > high:
            raise StakeOutsideLimits(
                "stake_cents",
                f"over the table maximum: {format_cents(already_cents + stake_cents)} on this position, "
                f"the maximum is {format_cents(high)}",
                "table_maximum",
            )


_SWITCHES = ("finales_a_cheval_7_10_8_11_9_12",)

_ENUMS = (
    ("zero_rule", ZeroRule),
    ("double_prison", DoublePrison),
    ("prison_on_close", PrisonOnClose),
    ("even_chances", EvenChances),
)


__all__ = ["COLOURS", "EvenChances", "RouletteTableRules", "BetType", "StakeOutsideLimits"]
