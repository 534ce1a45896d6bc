"""A black jack table's rule set: the game's rules plus the table's limits (RULES.md §Black jack).

Stored as one JSON object in ``TableOpened``: the options of :class:`BlackjackRules` plus
``min_bet_cents`` (each bet on a box), ``max_box_cents`` (the total of the up to 3 bets on a
box — "the box maximum bounds their total") and ``house_edge``, the theoretical edge used for
ratings. Unset (the default), the edge is computed from the table's own rules by exact
combinatorial analysis (:func:`edge`, :mod:`games.rules.blackjack_edge`); a fraction given
here overrides it (e.g. a house figure agreed with the regulator).
"""

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .blackjack import BlackjackRules
from .blackjack_edge import blackjack_edge
from .chips import ChipIncrements
from .errors import LimitRefused, RuleError
from .money import format_cents

MAX_LIMIT_CENTS = 10**10
MAX_POSTING_CENTS = 10**12  # ledger.store.MAX_CENTS (the engine may not import the ledger)
LIMITS = ("min_bet_cents", "max_box_cents")
BOXES = 7


@dataclass(frozen=True)
class BlackjackTableRules:
    game: BlackjackRules
    min_bet_cents: int = 1_000
    max_box_cents: int = 100_000
    house_edge: Fraction | None = None
    # Sheet 004: seated players bet "on their own box and possibly on the boxes on each side of
    # it": a seated player's other bets are on the boxes within this many of his own (1: the two
    # beside it); None = any box. Patrons not seated in the coup are not concerned.
    beside_own_box: int | None = 1
    # The table's chip increments (options chip_cents, off_chips: games.rules.chips).
    chips: ChipIncrements = field(default_factory=ChipIncrements)

    @property
    def house_edge_set(self) -> bool:
        return self.house_edge is not None

    def edge(self) -> Fraction:
        """The edge per initial bet: the ``house_edge`` option, else the exact analysis of the
        rules (cached per rule set; some seconds the first time in a process)."""
        if self.house_edge is not None:
            return self.house_edge
        return Fraction(blackjack_edge(self.game))

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "BlackjackTableRules":
        """Build from JSON; raises ``RuleError`` naming ``rules.<option>``."""
        options = dict(options or {})
        values: dict[str, Any] = {"chips": ChipIncrements.take(options)}
        for name in LIMITS:
            if name in options:
                value = options.pop(name)
                if type(value) is not int or not 1 <= value <= MAX_LIMIT_CENTS:
                    raise RuleError(f"rules.{name}", f"must be an integer from 1 to {MAX_LIMIT_CENTS}")
                values[name] = value
        if "beside_own_box" in options:
            reach = options.pop("beside_own_box")
            if reach is not None and (type(reach) is not int or not 0 <= reach <= BOXES - 1):
                raise RuleError("rules.beside_own_box", f"must be null or an integer from 0 to {BOXES - 1}")
            values["beside_own_box"] = reach
        if "house_edge" in options:
            try:
                values["house_edge"] = Fraction(str(options.pop("house_edge")))
            except (ValueError, ZeroDivisionError):
                raise RuleError("rules.house_edge", "must be a fraction such as '13/2000'") from None
            if not 0 <= values["house_edge"] < 1:
                raise RuleError("rules.house_edge", "must be from 0 to 1")
        rules = cls(game=BlackjackRules.from_dict(options), **values)
        if rules.min_bet_cents > rules.max_box_cents:
            raise RuleError("rules.min_bet_cents", "the minimum is above the box maximum")
        # The largest single payout (a full box at the best odds, doubled) must fit one posting.
        best = max([rules.game.blackjack_pays, Fraction(2), *(p.pays for p in rules.game.immediate_payouts)])
        if rules.max_box_cents * 2 * best > MAX_POSTING_CENTS:
            raise RuleError("rules.immediate_payouts", "these odds on the box maximum exceed what one payout may be")
        return rules

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.game.to_dict(),
            "min_bet_cents": self.min_bet_cents,
            "max_box_cents": self.max_box_cents,
            "beside_own_box": self.beside_own_box,
            **self.chips.to_dict(),
            **({"house_edge": str(self.house_edge)} if self.house_edge is not None else {}),
        }

    def check_beside_own_box(self, box: int, *, seated: bool, own_box: int | None, other_boxes: list[int]) -> None:
        """Refuse (``RuleError`` on ``box``) a bet that puts a seated player's bets farther than
        ``beside_own_box`` from his own box. ``own_box``: where he sits this coup (None: not
        seated); ``other_boxes``: the boxes of his other bets this coup."""
        reach = self.beside_own_box
        if reach is None:
            return
        if seated:
            far = [b for b in other_boxes if abs(b - box) > reach]
            if far:
                raise RuleError(
                    "box", f"he already bets on box {far[0]}, more than {reach} from box {box} where he sits"
                )
        elif own_box is not None and abs(box - own_box) > reach:
            raise RuleError("box", f"a seated player bets only on his own box {own_box} and up to {reach} each side")

    def check_stake(self, stake_cents: int, *, box_total_cents: int) -> None:
        """Refuse a bet under the minimum, or one that takes the box over its maximum."""
        if type(stake_cents) is not int or stake_cents <= 0:
            raise RuleError("stake_cents", "the stake must be a positive whole number of cents")
        if stake_cents < self.min_bet_cents:
            raise LimitRefused(
                "stake_cents",
                f"{format_cents(stake_cents)} is under the table minimum of {format_cents(self.min_bet_cents)}",
                "table_minimum",
            )
        if box_total_cents + stake_cents > self.max_box_cents:
            raise LimitRefused(
                "stake_cents",
                f"the box would hold {format_cents(box_total_cents + stake_cents)}, "
                f"over its maximum of {format_cents(self.max_box_cents)}",
                "box_maximum",
            )
