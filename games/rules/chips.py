"""Stakes in the table's chip increments, at every game (sheet 002, ``RULES.md §Baccarat``).

Sheet 002 plays with chips of 1, 5, 25, 100 and 500 EUR: a stake is a sum of them ("pour
parier 30 €, cliquez sur le jeton 25 € … puis sur le jeton 5 €"). A table's option
``chip_cents`` lists its chip values (cents; ``null``: any whole cent, the default at every
game but baccarat) and ``off_chips`` says what a stake they cannot make gets:

- ``reject`` (default): refused, a ``LimitRefused`` of kind ``chip_increment`` (the floor
  records it like a refusal over a limit);
- ``adjust``: rounded **down** to the largest amount the chips make; the difference is never
  taken from the patron (it stays in his chips) and the service records the asked stake beside
  the one taken. An amount the chips cannot make at all (under the smallest chip) is refused.

Pure: no Django. Amounts are integer cents.
"""

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from heapq import heappop, heappush
from math import gcd
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import currency, format_amount, format_cents
from basis.numbers import is_int

__all__ = [
    "SHEET_CHIPS",
    "ChipIncrements",
    "OffChips",
    "largest_makeable",
    "makeable",
]

SHEET_CHIPS = (100, 500, 2_500, 10_000, 50_000)  # sheet 002: chips of 1, 5, 25, 100 and 500 EUR
MAX_CHIP_CENTS = 10**8  # a 1,000,000 EUR plaque
MAX_CHIPS = 20
# The residue table below has (smallest chip / gcd) entries: bounded so it stays small.
MAX_RESIDUES = 10_000


class OffChips(StrEnum):
    """What a stake the table's chips cannot make gets (option ``off_chips``)."""

    REJECT = "reject"  # the default
    ADJUST = "adjust"  # lowered to the largest amount the chips make


@lru_cache(maxsize=64)
def _smallest_by_residue(units: tuple[int, ...]) -> tuple[int, ...]:
    """For chips of ``units`` (gcd 1, smallest first): the smallest sum of chips in each residue
    class modulo the smallest chip (a shortest-path table, Dijkstra over the residues).
    An amount ``a`` is a sum of the chips iff ``a >= table[a % units[0]]``."""
    m = units[0]
    best = [-1] * m
    heap = [(0, 0)]
    while heap:
        total, r = heappop(heap)
        if best[r] != -1:
            continue
        best[r] = total
        for u in units[1:]:
            s = total + u
            if best[s % m] == -1:
                heappush(heap, (s, s % m))
    return tuple(best)


def _reduced(denominations: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    g = 0
    for chip in denominations:
        g = gcd(g, chip)
    return g, tuple(sorted({chip // g for chip in denominations}))


def makeable(amount: int, denominations: tuple[int, ...]) -> bool:
    """True when ``amount`` cents (>= 0) is a sum of the ``denominations`` (any number of each).

    >>> makeable(3_000, SHEET_CHIPS), makeable(1_050, SHEET_CHIPS), makeable(300, (200, 500))
    (True, False, False)
    """
    g, units = _reduced(tuple(denominations))
    if amount % g:
        return False
    a = amount // g
    return a >= _smallest_by_residue(units)[a % units[0]]


def largest_makeable(amount: int, denominations: tuple[int, ...]) -> int:
    """The largest sum of the ``denominations`` not over ``amount`` cents (0 when none is).

    >>> largest_makeable(1_050, SHEET_CHIPS), largest_makeable(300, (200, 500))
    (1000, 200)
    """
    g, units = _reduced(tuple(denominations))
    a = amount // g
    m = units[0]
    table = _smallest_by_residue(units)
    best = 0
    for r, smallest in enumerate(table):
        if smallest <= a:
            best = max(best, a - (a - r) % m)  # the largest x <= a with x ≡ r: at least `smallest`
    return best * g


@dataclass(frozen=True)
class ChipIncrements:
    """A table's chips and what an amount they cannot make gets (module docstring).

    ``chip_cents``: sorted distinct chip values in cents, or ``None`` (any whole cent).
    Raises :class:`RuleError` on ``rules.chip_cents`` / ``rules.off_chips`` when built with bad
    values.
    """

    chip_cents: tuple[int, ...] | None = None
    off_chips: OffChips = OffChips.REJECT

    def __post_init__(self) -> None:
        chips = self.chip_cents
        if chips is not None:
            if isinstance(chips, list):
                chips = tuple(chips)
            if (
                not isinstance(chips, tuple)
                or not 1 <= len(chips) <= MAX_CHIPS
                or not all(is_int(c) and 1 <= c <= MAX_CHIP_CENTS for c in chips)
            ):
                raise RuleError(
                    "rules.chip_cents",
                    f"must be null or a list of 1 to {MAX_CHIPS} chip values in cents, each 1 to {MAX_CHIP_CENTS}",
                )
            chips = tuple(sorted(set(chips)))
            g, units = _reduced(chips)
            if units[0] > MAX_RESIDUES:
                raise RuleError(
                    "rules.chip_cents",
                    f"the smallest chip may be at most {MAX_RESIDUES} times the chips' common unit ({g} cents)",
                )
            object.__setattr__(self, "chip_cents", chips)
        try:
            object.__setattr__(self, "off_chips", OffChips(self.off_chips))
        except ValueError:
            raise RuleError("rules.off_chips", "must be 'reject' or 'adjust'") from None

    @classmethod
    def take(cls, options: dict[str, Any], *, default: tuple[int, ...] | None = None) -> "ChipIncrements":
        """Pop ``chip_cents`` and ``off_chips`` from a table's JSON ``options`` (the rest is the
        game's); ``default`` is the game's chips when the option is absent."""
        return cls(options.pop("chip_cents", default), options.pop("off_chips", OffChips.REJECT))

    def to_dict(self) -> dict[str, Any]:
        """``{"chip_cents": [...] | None, "off_chips": "reject" | "adjust"}`` (JSON-safe)."""
        chips = list(self.chip_cents) if self.chip_cents is not None else None
        return {"chip_cents": chips, "off_chips": self.off_chips.value}

    def stake(self, stake_cents: int) -> int:
        """The stake to take for ``stake_cents`` asked: itself when the chips make it (or the
        table has no chip list), else with ``adjust`` the largest amount they make under it.

        Raises :class:`LimitRefused` (``stake_cents``, kind ``chip_increment``) with ``reject``,
        or with ``adjust`` when no chip amount is under the stake. The caller re-checks its
        table minimum on a lowered stake.
        """
        if self.chip_cents is None or makeable(stake_cents, self.chip_cents):
            return stake_cents
        shown = f"{', '.join(format_amount(c) for c in self.chip_cents)} {currency()}"
        if self.off_chips is OffChips.REJECT:
            raise LimitRefused(
                "stake_cents",
                f"{format_cents(stake_cents)} cannot be made of the table's chips ({shown})",
                "chip_increment",
            )
        lowered = largest_makeable(stake_cents, self.chip_cents)
        if lowered == 0:
            raise LimitRefused(
                "stake_cents",
                f"{format_cents(stake_cents)} is under the table's smallest chip ({shown})",
                "chip_increment",
            )
        return lowered
