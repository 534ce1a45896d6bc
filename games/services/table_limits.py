"""A table's limits within the house's approved range (SHIFTS.md, pit boss §3: limits are set or
changed "within the table's approved rule set").

The game engines accept any limit from 1 cent to 100 million EUR (a typo guard, not a policy);
the house approves a narrower range per game, ``settings.CASINO_TABLE_LIMITS_CENTS``
(``{game: (lowest, highest)}``, cents). A rule set is within it when every minimum is at least
the lowest and at least the table's own smallest chip (a smaller bet cannot be made of its
chips), and every maximum at most the highest; that a minimum is not above its maximum the
engines check already."""

from __future__ import annotations

from django.conf import settings

from ledger.errors import InvalidInput

from ..models import Table
from ..names import game_name
from ..rules.money import format_cents

# Per game, the rule options that are a minimum and those that are a maximum (cents).
MINIMA: dict[str, tuple[str, ...]] = {
    Table.Game.ENGLISH_ROULETTE: ("min_bet_cents", "even_chance_min_cents", "standing_min_cents"),
    Table.Game.BLACKJACK: ("min_bet_cents",),
    Table.Game.BACCARAT: ("min_bet_cents",),
    Table.Game.TRENTE_QUARANTE: ("min_bet_cents",),
    Table.Game.CARIBBEAN_STUD: ("ante_min_cents",),
    Table.Game.CLASSIC_STUD: ("base_stake_cents",),
}
MAXIMA: dict[str, tuple[str, ...]] = {
    Table.Game.ENGLISH_ROULETTE: ("max_bet_cents", "even_chance_max_cents"),
    Table.Game.BLACKJACK: ("max_box_cents",),
    Table.Game.BACCARAT: ("max_bet_cents",),
    Table.Game.TRENTE_QUARANTE: ("max_bet_cents",),
    Table.Game.CARIBBEAN_STUD: ("ante_max_cents",),
}
# English roulette's numbers are played in colour chips, each worth what its patron chose (sheet
# 000): the table's value chips do not bound their minimum.
IN_COLOUR_CHIPS = frozenset({"min_bet_cents"})


def approved_range(game: str) -> tuple[int, int]:
    """``(lowest, highest)``: the house's approved range of ``game``'s limits, in cents."""
    lowest, highest = settings.CASINO_TABLE_LIMITS_CENTS[game]
    return int(lowest), int(highest)


def check_within_approved_range(game: str, rules: dict) -> None:
    """Refuse a validated rule set (``to_dict()`` of the game's table rules) whose limits leave
    the house's approved range: ``InvalidInput`` (400) on ``rules.<option>`` saying which bound,
    in money. Classic stud's maximum is the most a player puts in during a round (its base stake
    × its largest cap): refused on ``rules.caps``."""
    lowest, highest = approved_range(game)
    tables = f"{game_name(game)} tables"
    chips = rules.get("chip_cents") or ()
    smallest = min(chips) if chips else None
    for option in MINIMA.get(game, ()):
        value = rules.get(option)
        if type(value) is not int:
            continue
        if (
            smallest is not None
            and value < smallest
            and not (game == Table.Game.ENGLISH_ROULETTE and option in IN_COLOUR_CHIPS)
        ):
            raise InvalidInput(
                f"{format_cents(value)} is under the table's smallest chip of {format_cents(smallest)}: "
                "a bet that small cannot be made of its chips",
                field=f"rules.{option}",
            )
        if value < lowest:
            raise InvalidInput(
                f"{format_cents(value)} is under the house's lowest limit of {format_cents(lowest)} for {tables}",
                field=f"rules.{option}",
            )
        if value > highest:
            raise InvalidInput(
                f"{format_cents(value)} is over the house's highest limit of {format_cents(highest)} for {tables}",
                field=f"rules.{option}",
            )
    for option in MAXIMA.get(game, ()):
        value = rules.get(option)
        if type(value) is int and value > highest:
            raise InvalidInput(
                f"{format_cents(value)} is over the house's maximum of {format_cents(highest)} for {tables}",
                field=f"rules.{option}",
            )
    if game == Table.Game.CLASSIC_STUD:
        base, caps = rules.get("base_stake_cents"), rules.get("caps") or ()
        most = base * max(caps) if type(base) is int and caps else 0
        if most > highest:
            raise InvalidInput(
                f"a round's most of {format_cents(most)} is over the house's maximum of "
                f"{format_cents(highest)} for {tables}",
                field="rules.caps",
            )
