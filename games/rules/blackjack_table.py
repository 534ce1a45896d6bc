"""A black jack table's rule set: the game's rules plus the table's limits (RULES.md §Black jack).

A table starts from a **preset**, one per sheet and each wholly its sheet (option ``preset``,
:data:`PRESETS`; ``sheet_000`` unless another is named); options given beside it change that
option only. Stored as one JSON object in ``TableOpened``: the options of :class:`BlackjackRules` plus
``min_bet_cents`` (each bet on a box), ``max_box_cents`` (the total of the up to 3 bets on a
box — "the box maximum bounds their total") and ``house_edge``, the theoretical edge used for
ratings. Unset (the default), the edge is computed from the table's own rules by exact
combinatorial analysis (:func:`edge`, :mod:`games.rules.blackjack_edge`); a fraction given
here overrides it (e.g. a house figure agreed with the regulator).
"""

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import format_cents

from .blackjack import IMMEDIATE_PATTERNS, BlackjackRules
from .blackjack_edge import blackjack_edge
from .chips import ChipIncrements

MAX_LIMIT_CENTS = 10**10
MAX_POSTING_CENTS = 10**12  # ledger.store.MAX_CENTS (the engine may not import the ledger)
LIMITS = ("min_bet_cents", "max_box_cents")
BOXES = 7

# One preset per sheet (RULES.md §Black jack), every option the sheets disagree on.
PRESETS: dict[str, dict[str, Any]] = {
    # Sheet 000: the dealer's second card "entre les deux tours … et une à lui-même" comes after
    # the players (no hole card); doubles on "9, 10 ou 11 points"; "un 3e jeu, mais cela ne va pas
    # plus loin"; no immediate payout; "Le joueur place sa mise devant lui, sur sa case" (his own
    # box only); others bet on a seated player's box only "Si la table est complète".
    "sheet_000": {
        "hole_card": False,
        "double_on": "9-11",
        "max_split_hands": 3,
        "immediate_payouts": [],
        "beside_own_box": 0,
        "behind_only_when_full": True,
        # "Le joueur assis est le seul à pouvoir prendre des décisions": nobody behind is asked.
        "behind_may_follow": False,
    },
    # Sheet 004: "cette deuxième carte restera fermée"; "Doubler la mise : Après la donne
    # initiale" (any two cards); separating "peut se répéter sans limite"; "Paiement immédiat"
    # on three 7s, five 4s, four 5s, six cards of 21 or less, plus the client's five-card 21;
    # bets "sur leur propre case … et éventuellement sur les deux cases de chaque côté"; up to
    # three bets a box, with no word of a full table.
    "sheet_004": {
        "hole_card": True,
        "double_on": "any",
        "max_split_hands": None,
        "immediate_payouts": [{"pattern": name, "pays": "1:1"} for name in IMMEDIATE_PATTERNS],
        "beside_own_box": 1,
        "behind_only_when_full": False,
        # "seul le joueur assis dont la case correspond à sa place, prend les décisions".
        "behind_may_follow": False,
    },
}
DEFAULT_PRESET = "sheet_000"


@dataclass(frozen=True)
class BlackjackTableRules:
    game: BlackjackRules
    min_bet_cents: int = 1_000
    max_box_cents: int = 100_000
    house_edge: Fraction | None = None
    # Sheet 004: seated players bet "on their own box and possibly on the boxes on each side of
    # it": a seated player's other bets are on the boxes within this many of his own (1: the two
    # beside it); None = any box. Patrons not seated in the coup are not concerned.
    beside_own_box: int | None = 0
    # Sheet 000: others bet on a seated player's box "Si la table est complète" (every box has its
    # seated player); sheet 004 says nothing of it.
    behind_only_when_full: bool = True
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
        preset = options.pop("preset", DEFAULT_PRESET)
        if preset not in PRESETS:
            raise RuleError("rules.preset", f"must be one of {', '.join(PRESETS)}")
        options = {**PRESETS[preset], **options}
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
        only_when_full = options.pop("behind_only_when_full")
        if type(only_when_full) is not bool:
            raise RuleError("rules.behind_only_when_full", "must be true or false")
        values["behind_only_when_full"] = only_when_full
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
            "behind_only_when_full": self.behind_only_when_full,
            **self.chips.to_dict(),
            **({"house_edge": str(self.house_edge)} if self.house_edge is not None else {}),
        }

    @property
    def preset(self) -> str | None:
        """The preset this table is wholly (``"sheet_000"``, ``"sheet_004"``), or None when an
        option differs from each."""
        for name in PRESETS:
            if BlackjackTableRules.from_dict({"preset": name, **self.chips.to_dict()}) == self._without_limits():
                return name
        return None

    def _without_limits(self) -> "BlackjackTableRules":
        return BlackjackTableRules(
            game=self.game,
            beside_own_box=self.beside_own_box,
            behind_only_when_full=self.behind_only_when_full,
            chips=self.chips,
        )

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
