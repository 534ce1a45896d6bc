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

from basis.money import format_cents
from ledger.errors import InvalidInput

from ..catalog import spec
from ..names import game_name


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
    played = spec(game)
    for option in played.minima:
        value = rules.get(option)
        if type(value) is not int:
            continue
        if smallest is not None and value < smallest and option not in played.minima_in_colour_chips:
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
    for option in played.maxima:
        value = rules.get(option)
        if type(value) is int and value > highest:
            raise InvalidInput(
                f"{format_cents(value)} is over the house's maximum of {format_cents(highest)} for {tables}",
                field=f"rules.{option}",
            )
    if played.most_in_a_round is not None:
        most = played.most_in_a_round(rules)
        if most > highest:
            raise InvalidInput(
                f"a round's most of {format_cents(most)} is over the house's maximum of "
                f"{format_cents(highest)} for {tables}",
                field="rules.caps",
            )
