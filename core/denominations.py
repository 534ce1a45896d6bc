"""Counts by denomination: the casino's chip and cash denominations and how a count is read.

A count is ``{"<denomination in cents>": <pieces>}`` (JSON object keys are strings; integer
keys are accepted too). The chip denominations are the setting ``CASINO_CHIP_DENOMINATIONS``
(cents), the cash ones ``CASINO_CASH_DENOMINATIONS`` (both in ``casino/settings.py``).
"""

import re

from django.conf import settings

from ledger.errors import InvalidInput
from ledger.store import MAX_CENTS

# Defaults for the settings, in cents. Chips: value chips of 1 € to 10,000 €, and the change
# tokens of 1 to 50 cents the tray keeps because this ledger settles to the cent (la partage
# of an odd stake, baccarat commission). Cash: the euro coins and banknotes.
DEFAULT_CHIP_DENOMINATIONS = (
    1,
    2,
    5,
    10,
    20,
    50,
    100,
    250,
    500,
    1_000,
    2_500,
    10_000,
    50_000,
    100_000,
    500_000,
    1_000_000,
)
DEFAULT_CASH_DENOMINATIONS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1_000, 2_000, 5_000, 10_000, 20_000, 50_000)


# A denomination as a count's key: its digits in ASCII, no sign, no leading zero, no space.
_DIGITS = re.compile("[1-9][0-9]{0,15}")


def decompose(amount_cents: int, denominations: tuple[int, ...]) -> dict[str, int]:
    """``amount_cents`` as the fewest pieces of ``denominations`` (greedy; exact when 1 is one
    of them): ``{"<cents>": pieces}``. Used by the demo to count what the book says."""
    lines: dict[str, int] = {}
    for denomination in sorted(denominations, reverse=True):
        pieces, amount_cents = divmod(amount_cents, denomination)
        if pieces:
            lines[str(denomination)] = pieces
    if amount_cents:
        raise ValueError("the amount cannot be made of these denominations")
    return lines


def chip_denominations() -> tuple[int, ...]:
    return tuple(getattr(settings, "CASINO_CHIP_DENOMINATIONS", DEFAULT_CHIP_DENOMINATIONS))


def cash_denominations() -> tuple[int, ...]:
    return tuple(getattr(settings, "CASINO_CASH_DENOMINATIONS", DEFAULT_CASH_DENOMINATIONS))


def count_total(count: object, allowed: tuple[int, ...], *, field: str) -> tuple[dict[str, int], int]:
    """Validate a count and total it: returns ``(normalised count, total cents)``.

    The normalised count has string keys in ascending denomination order and no zero lines.
    Raises ``InvalidInput`` naming ``field`` for a count that is not an object, an unknown
    denomination, or a number of pieces that is negative or not a JSON integer.
    """
    if not isinstance(count, dict):
        raise InvalidInput('a count is an object {"<denomination cents>": pieces}', field=field)
    lines: dict[int, int] = {}
    for key, pieces in count.items():
        # Exactly the denomination's digits, in ASCII: not " 1000", "1000 ", "01000", "+1000",
        # "1_000" nor "１０００" (``int`` would read them all as 1000).
        if type(key) is int:
            denomination = key
        elif isinstance(key, str) and _DIGITS.fullmatch(key):
            denomination = int(key)
        else:
            denomination = None
        if denomination is None or denomination not in allowed:
            known = ", ".join(str(d) for d in allowed)
            raise InvalidInput(f"unknown denomination {key!r} (cents); one of {known}", field=field)
        if type(pieces) is not int or pieces < 0:
            raise InvalidInput(
                f"the count of {denomination} is {pieces!r}: a non-negative whole number of pieces", field=field
            )
        lines[denomination] = lines.get(denomination, 0) + pieces
    total = sum(d * n for d, n in lines.items())
    if total > MAX_CENTS:
        raise InvalidInput("the count is out of range", field=field)
    return {str(d): lines[d] for d in sorted(lines) if lines[d]}, total
