"""Black jack: the table's rule options, one coup from the first card to settlement.

Source: ``RULES.md §Black jack`` (sheets 000 and 004) and the worked cases C01-C06 of
``cases/README.md``. Money is integer cents; a payout that is not a whole cent is rounded down
and the fraction recorded (``RULES.md``, money paragraph).

Pure: no Django, no clock, no randomness. Cards come in one at a time through
:meth:`BlackjackCoup.deal` (from a shuffled :class:`~games.rules.shoe.ShoeOrder` or from a
card-reading shoe), decisions through the action methods.

How a coup runs (``RULES.md §Black jack``; sheet 000 for the no-hole-card order):

1. ``dealing``: one card to each box in box order, the dealer's up card, a second card to each
   box, then the hole card when ``hole_card`` is true. With ``hole_card`` false the dealer's
   second card comes only after every player has played.
2. ``players``: a blackjack against a 2-9 up card is paid 3:2 at once. Then the offers, box
   by box: a blackjack against an ace or a ten-value up card is offered even money (the seated
   player decides for the whole hand); against an ace every other box is offered insurance
   (each bettor of the box answers for his own stake, 0 = no; the bettors of a box may answer
   in any order, :meth:`BlackjackCoup.awaiting` shows the first box still waiting). With a hole
   card and an ace or ten up, the dealer then peeks: a dealer blackjack ends the coup; otherwise
   the blackjacks that declined even money are paid at once. Then each box plays its hands in
   turn; only the seated player decides (hit, stand, double, split). With the table option
   ``behind_may_follow`` (off under both sheets), each bettor behind on the hand then answers
   whether he follows a double or a split before the next card is dealt.
3. ``dealer``: the dealer draws to 16 and stands on every 17 (soft 17 too), only as far as the
   hands still waiting need (see :meth:`BlackjackCoup.next_draw`).
4. ``settled``: :meth:`BlackjackCoup.settle` gives one line per bettor per hand, plus the
   insurance lines.

Replay: the coup is a deterministic function of ``(rules, bets)`` and the sequence of calls to
``deal`` and the decision methods. The service stores each call as an event (``CardDealt``,
the decisions) and rebuilds the coup by replaying them in order; nothing else is needed.

Choices where RULES.md is silent, stated here once:

- ``double_after_split`` defaults to true: our choice, RULES.md is silent. Split aces take one
  card each and cannot be doubled or split again (no resplitting aces).
- ``double_on="9-11"`` means the hand's value (an ace counting 11 where it does not bust) is 9,
  10 or 11, so soft hands (A,x is 13 or more) cannot double.
- A hand that reaches 21 stands at once (no card can improve it); a bust hand closes at once.
- Split hands keep their numbers: a split adds the new hand at the end of the box's list
  (``hand_index = len(hands)``), and hands are played in index order.
- Bettors behind are never asked anything unless ``behind_may_follow`` is on (sheets 000 and 004:
  "Le joueur assis est le seul à pouvoir prendre des décisions"): the seated player's double or
  split takes his own stake only, and a bettor behind keeps his stake as placed, as one who
  declines to follow does below.
- A bettor behind who does not follow a split keeps his stake on the hand that was split (the
  one with the lower index) and has nothing on the new hand; one who does not follow a double
  keeps his single stake on the doubled hand, which wins or loses it like the seated stake.
- Immediate payouts apply to any hand while it draws (split and doubled hands too) and pay its
  whole stake at the pattern's odds; what is paid at once is never taken back, even by a
  dealer blackjack made later.
- With no hole card, the dealer takes his second card only if some bet still depends on it (a
  standing hand, a blackjack that declined even money, or insurance), and draws further only
  if a standing hand is waiting.
"""

from collections.abc import Iterable, Sequence
from dataclasses import MISSING, dataclass, fields
from enum import StrEnum
from fractions import Fraction
from typing import Any

from basis.errors import RuleError
from basis.numbers import is_int

from .cards import parse_card

__all__ = [
    "DEALER",
    "DEFAULT_IMMEDIATE_PAYOUTS",
    "IMMEDIATE_PATTERNS",
    "INSURANCE_PAYS",
    "MAX_BETS_PER_BOX",
    "BetSettlement",
    "BlackjackCoup",
    "BlackjackPaid",
    "BlackjackRules",
    "BoxBet",
    "CardDealt",
    "DealerPeeked",
    "DealerPlayed",
    "Decided",
    "Decision",
    "DoubleOn",
    "DrawTarget",
    "EvenMoneyDecided",
    "FollowDecided",
    "HandClosed",
    "HandView",
    "ImmediatePayout",
    "ImmediatePayoutRule",
    "InsuranceDecided",
    "Outcome",
    "Record",
    "hand_value",
    "to_data",
]

BOXES = range(1, 8)  # 7 boxes (RULES.md §Black jack)
MAX_BETS_PER_BOX = 3  # the seated player and up to 2 behind
INSURANCE_PAYS = Fraction(2)  # 2:1
MAX_STAKE_CENTS = 10**12  # the API's cap on an amount; keeps every product exact and bounded

# Point value of every card code: 2-9 face value, T J Q K 10, ace 1 (11 is added by hand_value).
_POINTS: dict[str, int] = {
    rank + suit: (1 if rank == "A" else 10 if rank in "TJQK" else int(rank))
    for rank in "23456789TJQKA"
    for suit in "SHDC"
}
_ZERO = Fraction(0)
_EVEN = Fraction(1)  # 1:1


def _points(card: str) -> int:
    points = _POINTS.get(card) if isinstance(card, str) else None
    if points is None:
        parse_card(card)  # raises RuleError("card", ...) with the standard message
    return points  # type: ignore[return-value]


def hand_value(cards: Iterable[str]) -> tuple[int, bool]:
    """``(total, soft)`` of a hand: one ace counts 11 when that does not bust the hand, and the
    hand is then soft. ``hand_value(["AS", "AH", "AD", "6C"]) == (19, True)`` (case C05).

    Raises :class:`RuleError` (field ``"card"``) for a bad code.
    """
    hard = aces = 0
    for card in cards:
        points = _points(card)
        hard += points
        aces += points == 1
    if aces and hard <= 11:
        return hard + 10, True
    return hard, False


# --- rule options --------------------------------------------------------------------


class DoubleOn(StrEnum):
    """Which first two cards may double (table rule option ``double_on``)."""

    NINE_TO_ELEVEN = "9-11"  # sheet 000, the default
    ANY = "any"  # sheet 004


class Outcome(StrEnum):
    WON = "won"
    LOST = "lost"
    PUSHED = "pushed"
    BLACKJACK = "blackjack"
    EVEN_MONEY = "even_money"
    IMMEDIATE = "immediate"
    INSURANCE_WON = "insurance_won"
    INSURANCE_LOST = "insurance_lost"


def _three_sevens(cards: Sequence[str], total: int) -> bool:
    return len(cards) == 3 and all(c[0] == "7" for c in cards)


def _five_fours(cards: Sequence[str], total: int) -> bool:
    return len(cards) == 5 and all(c[0] == "4" for c in cards)


def _four_fives(cards: Sequence[str], total: int) -> bool:
    return len(cards) == 4 and all(c[0] == "5" for c in cards)


def _six_cards_21_or_less(cards: Sequence[str], total: int) -> bool:
    return len(cards) == 6 and total <= 21


def _five_cards_21(cards: Sequence[str], total: int) -> bool:
    return len(cards) == 5 and total == 21


# The immediate-payout patterns of sheet 004 plus the client's 5-card 21 (RULES.md §Black jack).
IMMEDIATE_PATTERNS = {
    "three_sevens": _three_sevens,
    "five_fours": _five_fours,
    "four_fives": _four_fives,
    "six_cards_21_or_less": _six_cards_21_or_less,
    "five_cards_21": _five_cards_21,
}
# How many cards a hand holds when each pattern can match: only those are tried on a card.
_PATTERN_CARDS = {"three_sevens": 3, "five_fours": 5, "four_fives": 4, "six_cards_21_or_less": 6, "five_cards_21": 5}


def _parse_ratio(value: Any, field_name: str) -> Fraction:
    """``"k:n"`` (positive integers) as the Fraction k/n; a Fraction > 0 passes through."""
    if isinstance(value, Fraction) and value > 0:
        return value
    if isinstance(value, str):
        parts = value.split(":")
        if len(parts) == 2 and all(p.isdigit() and p.isascii() and len(p) <= 6 for p in parts):
            k, n = int(parts[0]), int(parts[1])
            if k > 0 and n > 0:
                return Fraction(k, n)
    raise RuleError(field_name, f"must be odds 'k:n' with positive integers, e.g. '3:2', got {value!r}")


def _ratio_text(ratio: Fraction) -> str:
    return f"{ratio.numerator}:{ratio.denominator}"


@dataclass(frozen=True)
class ImmediatePayoutRule:
    """One immediate-payout pattern (a key of :data:`IMMEDIATE_PATTERNS`) and its odds k/n."""

    pattern: str
    pays: Fraction = Fraction(1)

    def __post_init__(self) -> None:
        if self.pattern not in IMMEDIATE_PATTERNS:
            allowed = ", ".join(IMMEDIATE_PATTERNS)
            raise RuleError("rules.immediate_payouts", f"unknown pattern {self.pattern!r}; one of {allowed}")
        object.__setattr__(self, "pays", _parse_ratio(self.pays, "rules.immediate_payouts"))

    def to_dict(self) -> dict[str, str]:
        return {"pattern": self.pattern, "pays": _ratio_text(self.pays)}


DEFAULT_IMMEDIATE_PAYOUTS: tuple[ImmediatePayoutRule, ...] = tuple(
    ImmediatePayoutRule(name) for name in IMMEDIATE_PATTERNS
)


@dataclass(frozen=True)
class BlackjackRules:
    """Options of one black jack table (``RULES.md §Black jack``); defaults first.

    - ``decks``: 6 (both sheets); 1-8 accepted.
    - ``hole_card``: false = European no hole card (sheet 000): the dealer's second card comes
      after the players, and a dealer blackjack then takes the whole stake of every hand,
      doubles and split hands included. True = hole card dealt face down (sheet 004) and
      peeked at under an ace or ten: a dealer blackjack ends the coup before any double or
      split, so only the original stakes are lost.
    - ``double_on``: ``"9-11"`` (sheet 000) or ``"any"`` first two cards (sheet 004).
    - ``double_after_split``: true (our default; RULES.md is silent).
    - ``max_split_hands``: 3 (sheet 000) or None = unlimited (sheet 004); 1 forbids splitting.
    - ``blackjack_pays``: 3:2.
    - ``immediate_payouts``: patterns paid at once while drawing, each with its odds (default:
      all five of :data:`IMMEDIATE_PATTERNS` at 1:1); ``()`` switches them off.
    - ``behind_may_follow``: false (sheets 000 and 004: "Le joueur assis est le seul à pouvoir
      prendre des décisions": bettors behind are never asked, their stakes stay as placed);
      true = each bettor behind answers whether he follows the seated player's double or split,
      as many casinos offer. It does not change the edge per initial bet (the seated player's
      play), so :func:`blackjack_edge` ignores it.

    Fixed by the rules, not options: insurance 2:1 up to half the stake; even money; blackjack
    paid at once against 2-9; dealer draws to 16 and stands on all 17s.
    """

    decks: int = 6
    hole_card: bool = False
    double_on: DoubleOn = DoubleOn.NINE_TO_ELEVEN
    double_after_split: bool = True
    max_split_hands: int | None = 3
    blackjack_pays: Fraction = Fraction(3, 2)
    immediate_payouts: tuple[ImmediatePayoutRule, ...] = DEFAULT_IMMEDIATE_PAYOUTS
    behind_may_follow: bool = False

    def __post_init__(self) -> None:
        if type(self.decks) is not int or not 1 <= self.decks <= 8:
            raise RuleError("rules.decks", "must be an integer from 1 to 8")
        for name in ("hole_card", "double_after_split", "behind_may_follow"):
            if type(getattr(self, name)) is not bool:
                raise RuleError(f"rules.{name}", "must be true or false")
        try:
            object.__setattr__(self, "double_on", DoubleOn(self.double_on))
        except ValueError:
            raise RuleError("rules.double_on", "must be '9-11' or 'any'") from None
        limit = self.max_split_hands
        if limit is not None and (type(limit) is not int or not 1 <= limit <= 52):
            raise RuleError("rules.max_split_hands", "must be an integer from 1 to 52, or null for no limit")
        object.__setattr__(self, "blackjack_pays", _parse_ratio(self.blackjack_pays, "rules.blackjack_pays"))
        payouts = self.immediate_payouts
        if isinstance(payouts, str | bytes | dict) or not isinstance(payouts, Iterable):
            raise RuleError("rules.immediate_payouts", "must be a list of {pattern, pays}")
        payouts = tuple(payouts)
        if not all(isinstance(p, ImmediatePayoutRule) for p in payouts):
            raise RuleError("rules.immediate_payouts", "must be a list of {pattern, pays}")
        names = [p.pattern for p in payouts]
        if len(set(names)) != len(names):
            raise RuleError("rules.immediate_payouts", "a pattern appears twice")
        object.__setattr__(self, "immediate_payouts", payouts)
        # Not a field (not compared, not serialised): the payouts by hand size, for the hot path.
        by_count: dict[int, tuple[tuple[Any, ImmediatePayoutRule], ...]] = {}
        for payout in payouts:
            count = _PATTERN_CARDS[payout.pattern]
            by_count[count] = (*by_count.get(count, ()), (IMMEDIATE_PATTERNS[payout.pattern], payout))
        object.__setattr__(self, "_immediate_by_cards", by_count)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "BlackjackRules":
        """Build from JSON options (as :meth:`to_dict` writes them); missing options take the
        default. Raises :class:`RuleError` naming ``rules.<option>``.

        ``immediate_payouts`` is a list of ``{"pattern": name, "pays": "k:n"}`` (``[]`` = off).
        """
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise RuleError("rules", "must be an object of table options")
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(options) - known, key=str)
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        values = dict(options)
        if "blackjack_pays" in values and not isinstance(values["blackjack_pays"], str):
            raise RuleError("rules.blackjack_pays", "must be odds 'k:n', e.g. '3:2'")
        if "immediate_payouts" in values:
            values["immediate_payouts"] = _payouts_from_json(values["immediate_payouts"])
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``BlackjackRules.from_dict(rules.to_dict()) == rules``."""
        return {
            "decks": self.decks,
            "hole_card": self.hole_card,
            "double_on": self.double_on.value,
            "double_after_split": self.double_after_split,
            "max_split_hands": self.max_split_hands,
            "blackjack_pays": _ratio_text(self.blackjack_pays),
            "immediate_payouts": [p.to_dict() for p in self.immediate_payouts],
            "behind_may_follow": self.behind_may_follow,
        }


def _payouts_from_json(value: Any) -> tuple[ImmediatePayoutRule, ...]:
    if not isinstance(value, list):
        raise RuleError("rules.immediate_payouts", "must be a list of {pattern, pays} ([] switches them off)")
    rules = []
    for i, item in enumerate(value):
        if not isinstance(item, dict) or set(item) - {"pattern", "pays"} or "pattern" not in item:
            raise RuleError("rules.immediate_payouts", f"item {i} must be {{'pattern': name, 'pays': 'k:n'}}")
        pays = item.get("pays", "1:1")
        if not isinstance(pays, str):
            raise RuleError("rules.immediate_payouts", f"item {i}: pays must be odds 'k:n'")
        if not isinstance(item["pattern"], str):
            raise RuleError("rules.immediate_payouts", f"item {i}: pattern must be a name")
        rules.append(ImmediatePayoutRule(item["pattern"], pays))
    return tuple(rules)


# --- inputs, decisions and records ---------------------------------------------------


def _record(cls: type) -> Any:
    """``@dataclass(frozen=True, slots=True)`` with a faster ``__init__``.

    The class is an ordinary frozen dataclass: immutable, compared and hashed by value,
    ``dataclasses.asdict`` works. Only ``__init__`` differs: a frozen dataclass's generated one
    sets every field through ``object.__setattr__``; this one calls the slot descriptors
    directly, about 40% faster. A coup makes a dozen records per hand and the engine must play
    50,000 hands a second on one core (``tests/benchmarks/bench_blackjack.py``).
    """
    cls = dataclass(frozen=True, slots=True)(cls)
    namespace: dict[str, Any] = {}
    params, body = [], []
    for f in fields(cls):
        namespace[f"_set_{f.name}"] = getattr(cls, f.name).__set__
        if f.default is MISSING:
            params.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        body.append(f"    _set_{f.name}(self, {f.name})\n")
    exec(f"def __init__(self, {', '.join(params)}):\n{''.join(body)}", namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init
    return cls


@dataclass(frozen=True)
class BoxBet:
    """One bettor's stake on a box: ``box`` 1-7, ``stake_cents`` > 0. ``seated`` marks the
    player seated at the box, the only one who decides; the others bet behind.
    """

    box: int
    bettor: str
    stake_cents: int
    seated: bool

    def __post_init__(self) -> None:
        if not is_int(self.box) or self.box not in BOXES:
            raise RuleError("box", f"must be an integer from 1 to 7, got {self.box!r}")
        if not isinstance(self.bettor, str) or not self.bettor:
            raise RuleError("bettor", "must be a non-empty string")
        if not is_int(self.stake_cents) or not 0 < self.stake_cents <= MAX_STAKE_CENTS:
            raise RuleError("stake_cents", f"must be a positive integer of cents, got {self.stake_cents!r}")
        if type(self.seated) is not bool:
            raise RuleError("seated", "must be true or false")


@_record
class DrawTarget:
    """Who receives the next card: ``kind`` ``"player"`` (with ``box`` and ``hand_index``) or
    ``"dealer"`` (``box`` and ``hand_index`` None)."""

    kind: str
    box: int | None = None
    hand_index: int | None = None


DEALER = DrawTarget("dealer")
_PLAYER_TARGETS: dict[tuple[int, int], DrawTarget] = {}  # targets are immutable: share them


def _player_target(box: int, hand_index: int) -> DrawTarget:
    target = _PLAYER_TARGETS.get((box, hand_index))
    if target is None:
        target = _PLAYER_TARGETS[box, hand_index] = DrawTarget("player", box, hand_index)
    return target


@_record
class Decision:
    """The decision the coup waits for.

    ``kind``:
    - ``"insurance"``: answer with ``insurance(box, bettor, amount_cents)`` (0 = none); every
      bettor in ``bettors`` must answer. ``actions == {"insurance"}``.
    - ``"even_money"``: the seated player answers ``even_money(box, bettor, accept)``.
    - ``"play"``: the seated player chooses one of ``actions`` (subset of hit, stand, double,
      split) for hand ``hand_index``.
    - ``"follow"``: each bettor behind in ``bettors`` answers ``follow(box, bettor, follows,
      follow)`` for the double or split (``follows``) the seated player just made.

    ``cards`` are the hand's cards and ``dealer_up`` the dealer's up card, for display and for
    a strategy.
    """

    kind: str
    box: int
    hand_index: int
    actions: frozenset[str]
    bettors: tuple[str, ...]
    cards: tuple[str, ...]
    dealer_up: str
    follows: str | None = None


@_record
class BetSettlement:
    """The money result of one bettor's stake on one hand (or of his insurance); integer cents.

    - ``return_cents``: back to the bettor (stake + winnings, the stake on a push, 0 lost).
    - ``winnings_cents``: ``return_cents - stake_cents`` when positive, else 0.
    - ``house_cents``: ``stake_cents - return_cents`` when positive, else 0.
    - ``unpaid_fraction``: what the rules owe minus ``return_cents`` (< 1 cent; 3:2 on an odd
      number of cents), recorded per the money rule and paid to nobody. Usually 0.
    - ``paid_at_once``: already paid when it happened (blackjack against 2-9, even money, an
      immediate payout), in the record that announced it; do not pay it again.
    - ``hand_index``: 0 for insurance lines.
    """

    box: int
    hand_index: int
    bettor: str
    outcome: Outcome
    stake_cents: int
    return_cents: int
    winnings_cents: int
    house_cents: int
    unpaid_fraction: Fraction
    paid_at_once: bool


@_record
class HandView:
    """A read-only picture of one hand. ``stakes`` is ``((bettor, cents), ...)``, seated first;
    ``closed`` is None while the hand plays, else the reason it closed (see :class:`HandClosed`)."""

    box: int
    hand_index: int
    cards: tuple[str, ...]
    total: int
    soft: bool
    stakes: tuple[tuple[str, int], ...]
    from_split: bool
    doubled: bool
    closed: str | None


# Records: what happened, in order. Each is a natural event for the round's stream.


@_record
class CardDealt:
    """``card`` went to ``to``; ``total``/``soft`` is that hand's (or the dealer's) value after it."""

    to: DrawTarget
    card: str
    total: int
    soft: bool


@_record
class HandClosed:
    """Hand ``hand_index`` of ``box`` takes no more cards. ``reason``: ``"stood"``,
    ``"busted"``, ``"twenty_one"``, ``"doubled"`` (its one card received), ``"split_ace"``,
    ``"blackjack"`` (at the end of the first deal, whether it is paid then, offered even money
    or waits for the dealer), ``"immediate"``."""

    box: int
    hand_index: int
    reason: str
    total: int


@_record
class Decided:
    """The seated player's ``action`` (hit, stand, double, split) on a hand. A double or split
    adds ``stake_added_cents`` for him; a split creates hand ``new_hand_index``."""

    box: int
    hand_index: int
    bettor: str
    action: str
    stake_added_cents: int = 0
    new_hand_index: int | None = None


@_record
class FollowDecided:
    """A bettor behind follows (or not) the seated player's double or split; when he follows
    he adds ``stake_added_cents`` (on the doubled hand, or on the new hand ``new_hand_index``)."""

    box: int
    hand_index: int
    bettor: str
    action: str
    follow: bool
    stake_added_cents: int
    new_hand_index: int | None = None


@_record
class InsuranceDecided:
    """``bettor`` insured his stake on ``box`` for ``amount_cents`` (0 = declined)."""

    box: int
    bettor: str
    amount_cents: int


@_record
class EvenMoneyDecided:
    """The seated player took (``accepted``) or declined even money for the box's blackjack;
    when taken, ``lines`` are the bets paid 1:1 at once."""

    box: int
    bettor: str
    accepted: bool
    lines: tuple[BetSettlement, ...] = ()


@_record
class BlackjackPaid:
    """A blackjack paid at once (3:2 by default): against a 2-9 up card, or after the peek."""

    box: int
    hand_index: int
    lines: tuple[BetSettlement, ...]


@_record
class ImmediatePayout:
    """A hand made an immediate-payout ``pattern`` and was paid at once."""

    box: int
    hand_index: int
    pattern: str
    lines: tuple[BetSettlement, ...]


@_record
class DealerPeeked:
    """With a hole card under an ace or ten: whether the dealer has blackjack."""

    blackjack: bool


@_record
class DealerPlayed:
    """The dealer's final hand; the coup is over (state ``settled``)."""

    cards: tuple[str, ...]
    total: int
    blackjack: bool
    busted: bool


Record = (
    CardDealt
    | HandClosed
    | Decided
    | FollowDecided
    | InsuranceDecided
    | EvenMoneyDecided
    | BlackjackPaid
    | ImmediatePayout
    | DealerPeeked
    | DealerPlayed
)


def to_data(value: Any) -> Any:
    """JSON-safe form of a record, decision, settlement line, view or rule object, for event
    payloads: a dataclass becomes ``{"type": class name, field: value, ...}``, a Fraction
    ``"n/d"`` (``str(Fraction)``), an enum its value, a tuple or frozenset a list (sorted for a
    frozenset); ints, strings, bools and None stay as they are.
    """
    if isinstance(value, StrEnum):
        return value.value
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, frozenset):
        return sorted(to_data(v) for v in value)
    if isinstance(value, tuple | list):
        return [to_data(v) for v in value]
    if isinstance(value, dict):
        return {str(k): to_data(v) for k, v in value.items()}
    if hasattr(value, "__dataclass_fields__"):
        data = {"type": type(value).__name__}
        data.update((f.name, to_data(getattr(value, f.name))) for f in fields(value))
        return data
    raise TypeError(f"no JSON form for {type(value).__name__}")


# --- the coup ------------------------------------------------------------------------

DEALING, PLAYERS, DEALER_TURN, SETTLED = "dealing", "players", "dealer", "settled"
# The play actions offered, by (may double, may split).
_ACTIONS = {
    (double, split): frozenset({"hit", "stand"} | ({"double"} if double else set()) | ({"split"} if split else set()))
    for double in (False, True)
    for split in (False, True)
}


def _pay(stake: int, odds: Fraction) -> tuple[int, Fraction]:
    """``(return, unpaid)`` of a winning ``stake`` at ``odds`` k:n: the stake plus
    floor(stake * k / n); the fraction of a cent cut off is ``unpaid`` (money rule)."""
    numerator, denominator = odds.numerator, odds.denominator
    winnings, rest = divmod(stake * numerator, denominator)
    return stake + winnings, (Fraction(rest, denominator) if rest else _ZERO)


class _Hand:
    """One hand of a box (mutable, private). Cards are added through :meth:`add`."""

    __slots__ = (
        "box",
        "index",
        "target",
        "cards",
        "hard",
        "aces",
        "stakes",
        "from_split",
        "split_ace",
        "doubled",
        "wants_card",
        "closed",
        "paid",
        "follow_pending",
        "follow_action",
        "follow_hand",
    )

    def __init__(self, box: int, index: int, stakes: dict[str, int]) -> None:
        self.box = box
        self.index = index
        self.target = _player_target(box, index)
        self.cards: list[str] = []
        self.hard = 0
        self.aces = 0
        self.stakes = stakes  # bettor -> cents on this hand, seated first
        self.from_split = False
        self.split_ace = False
        self.doubled = False
        self.wants_card = False  # after hit or double
        self.closed: str | None = None
        self.paid: tuple[BetSettlement, ...] = ()  # lines paid at once
        self.follow_pending: list[str] = []
        self.follow_action: str | None = None
        self.follow_hand: _Hand | None = None  # the new hand of a split being followed

    def add(self, card: str, points: int) -> None:
        self.cards.append(card)
        self.hard += points
        self.aces += points == 1

    @property
    def total(self) -> int:
        return self.hard + 10 if self.aces and self.hard <= 11 else self.hard

    @property
    def soft(self) -> bool:
        return bool(self.aces) and self.hard <= 11

    @property
    def blackjack(self) -> bool:
        """Ace and a ten-value card as the first two cards of a hand that was not split."""
        return len(self.cards) == 2 and not self.from_split and self.aces == 1 and self.hard == 11

    @property
    def is_pair(self) -> bool:
        return len(self.cards) == 2 and _POINTS[self.cards[0]] == _POINTS[self.cards[1]]


class _Box:
    __slots__ = ("number", "bets", "seated", "stakes", "hands", "offer", "insurance", "insurance_pending")

    def __init__(self, number: int, bets: list[BoxBet]) -> None:
        self.number = number
        self.bets = bets  # seated first, then behind in the order given
        self.seated = bets[0].bettor
        self.stakes = {bet.bettor: bet.stake_cents for bet in bets}  # the original stakes
        self.hands = [_Hand(number, 0, dict(self.stakes))]
        self.offer: str | None = None  # "insurance" | "even_money" while it waits for answers
        self.insurance: dict[str, int] = {}  # bettor -> amount insured (> 0)
        self.insurance_pending: list[str] = []


class BlackjackCoup:
    """One coup at a black jack table (``RULES.md §Black jack``).

    ``BlackjackCoup(rules, bets)`` validates the bets: at most 3 per box, exactly one seated
    per box, a bettor at most once per box (he may bet on other boxes). Then feed it cards
    with :meth:`deal` whenever :meth:`next_draw` names a receiver, and decisions whenever
    :meth:`awaiting` names one, until ``state == "settled"``; then :meth:`settle`.

    Every ``x`` action has ``verify_x`` (raises :class:`RuleError` naming the field at fault,
    changes nothing) and ``can_x`` (bool); ``x`` returns the list of records of what happened,
    the decision first. After a refusal the coup is unchanged.

    ``state``: ``"dealing"`` | ``"players"`` | ``"dealer"`` | ``"settled"``.
    """

    __slots__ = (
        "rules",
        "_boxes",
        "_box_by_number",
        "_dealer",
        "_dealer_hard",
        "_dealer_aces",
        "_state",
        "_initial",
        "_dealt_initial",
        "_offers",
        "_peek_due",
        "_turn",
        "_dealer_plays_out",
        "_dealer_checks",
        "_lines",
        "_need",
        "_need_hand",
        "_awaiting",
    )

    def __init__(self, rules: BlackjackRules, bets: Sequence[BoxBet]) -> None:
        if not isinstance(rules, BlackjackRules):
            raise TypeError("rules must be a BlackjackRules")
        self.rules = rules
        self._boxes = self._validate_bets(bets)
        self._box_by_number = {box.number: box for box in self._boxes}
        self._dealer: list[str] = []
        self._dealer_hard = 0
        self._dealer_aces = 0
        self._state = DEALING
        first_round = [box.hands[0] for box in self._boxes]
        # The first cards: each box, the up card, each box again, the hole card (hole_card).
        self._initial: list[_Hand | None] = first_round + [None] + first_round + ([None] if rules.hole_card else [])
        self._dealt_initial = 0
        self._offers: list[_Box] = []  # boxes waiting for an insurance or even-money answer
        self._peek_due = False
        self._turn = 0  # index in self._boxes of the box playing
        self._dealer_plays_out = False  # some standing hand waits for the dealer's total
        self._dealer_checks = False  # only blackjack matters: a waiting blackjack or insurance
        self._lines: list[BetSettlement] = []
        self._need: DrawTarget | None = None  # who receives the next card
        self._need_hand: _Hand | None = None  # that hand, None for the dealer
        self._awaiting: Decision | None = None
        self._need_initial_card()

    @staticmethod
    def _validate_bets(bets: Sequence[BoxBet]) -> list[_Box]:
        if type(bets) not in (list, tuple) or not bets:
            raise RuleError("bets", "a coup needs a list of at least one bet")
        by_box: dict[int, list[BoxBet]] = {}
        for bet in bets:
            if type(bet) is not BoxBet:
                raise RuleError("bets", "each bet must be a BoxBet")
            group = by_box.get(bet.box)
            if group is None:
                by_box[bet.box] = [bet]
            else:
                group.append(bet)
        boxes = []
        for number in sorted(by_box):
            box_bets = by_box[number]
            if len(box_bets) > MAX_BETS_PER_BOX:
                raise RuleError("box", f"at most {MAX_BETS_PER_BOX} bets on a box; box {number} has {len(box_bets)}")
            if len({bet.bettor for bet in box_bets}) != len(box_bets):
                raise RuleError("bettor", f"a bettor has two bets on box {number}")
            seated = [bet for bet in box_bets if bet.seated]
            if len(seated) != 1:
                raise RuleError("seated", f"box {number} needs exactly one seated player, has {len(seated)}")
            if len(box_bets) > 1:
                box_bets = seated + [bet for bet in box_bets if not bet.seated]
            boxes.append(_Box(number, box_bets))
        return boxes

    # --- reading the coup ------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._state

    def next_draw(self) -> DrawTarget | None:
        """Who receives the next card from the shoe; None while a decision is awaited or when
        the coup is over."""
        return self._need

    def awaiting(self) -> Decision | None:
        """The decision the coup waits for, or None (a card is due, or the coup is over)."""
        return self._awaiting

    @property
    def dealer_cards(self) -> tuple[str, ...]:
        return tuple(self._dealer)

    @property
    def dealer_up(self) -> str | None:
        return self._dealer[0] if self._dealer else None

    def hands(self) -> tuple[HandView, ...]:
        """Every hand, by box then hand index."""
        return tuple(self._view(hand) for box in self._boxes for hand in box.hands)

    def hand(self, box: int, hand_index: int = 0) -> HandView:
        """One hand; :class:`RuleError` ("box" / "hand_index") if there is no such hand."""
        return self._view(self._hand_at(self._box(box), hand_index))

    @staticmethod
    def _view(hand: _Hand) -> HandView:
        return HandView(
            hand.box,
            hand.index,
            tuple(hand.cards),
            hand.total,
            hand.soft,
            tuple(hand.stakes.items()),
            hand.from_split,
            hand.doubled,
            hand.closed,
        )

    # --- dealing ---------------------------------------------------------------------

    def verify_deal(self, card: str) -> None:
        """Raises :class:`RuleError`: ``"state"`` when no card is due (settled, or a decision
        is awaited), ``"card"`` when ``card`` is not a card code."""
        if self._need is None:
            if self._state == SETTLED:
                raise RuleError("state", "the coup is settled")
            decision = self._awaiting
            waiting = f"a {decision.kind} decision on box {decision.box}" if decision else "nothing"
            raise RuleError("state", f"no card is due: the coup waits for {waiting}")
        _points(card)

    def can_deal(self, card: str) -> bool:
        return self._can(self.verify_deal, card)

    def deal(self, card: str) -> list[Record]:
        """Give ``card`` to :meth:`next_draw`'s receiver and play on to the next card or decision.

        Returns the :class:`CardDealt` and what followed from it (hands closed, payouts made at
        once, offers opened, dealer play). Raises :class:`RuleError` (see :meth:`verify_deal`).
        """
        points = _POINTS.get(card) if type(card) is str else None
        target = self._need
        if points is None or target is None:
            self.verify_deal(card)  # raises
        records: list[Record] = []
        hand = self._need_hand
        if hand is None:
            self._dealer.append(card)
            hard = self._dealer_hard = self._dealer_hard + points
            if points == 1:
                self._dealer_aces += 1
            soft = self._dealer_aces > 0 and hard <= 11
            records.append(CardDealt(DEALER, card, hard + 10 if soft else hard, soft))
        else:
            hand.cards.append(card)
            hard = hand.hard = hand.hard + points
            if points == 1:
                hand.aces += 1
            soft = hand.aces > 0 and hard <= 11
            records.append(CardDealt(target, card, hard + 10 if soft else hard, soft))
            if self._state != DEALING:
                self._after_player_card(hand, records)
        if self._state == DEALING:
            self._dealt_initial += 1
            if self._dealt_initial < len(self._initial):
                self._need_initial_card()
                return records
            self._end_initial_deal(records)
        self._advance(records)
        return records

    def _need_initial_card(self) -> None:
        hand = self._initial[self._dealt_initial]
        self._need_hand = hand
        self._need = DEALER if hand is None else hand.target

    def _dealer_value(self) -> tuple[int, bool]:
        hard = self._dealer_hard
        if self._dealer_aces and hard <= 11:
            return hard + 10, True
        return hard, False

    def _after_player_card(self, hand: _Hand, records: list[Record]) -> None:
        hand.wants_card = False
        total = hand.total
        if total > 21:
            self._close(hand, "busted", records)
            return
        candidates = self.rules._immediate_by_cards.get(len(hand.cards))
        if candidates:
            for matches, payout in candidates:
                if matches(hand.cards, total):
                    hand.paid = self._pay_hand(hand, Outcome.IMMEDIATE, payout.pays)
                    records.append(ImmediatePayout(hand.box, hand.index, payout.pattern, hand.paid))
                    self._close(hand, "immediate", records)
                    return
        if hand.doubled:
            self._close(hand, "doubled", records)
        elif hand.split_ace and len(hand.cards) == 2:
            self._close(hand, "split_ace", records)
        elif total == 21:
            self._close(hand, "twenty_one", records)

    @staticmethod
    def _close(hand: _Hand, reason: str, records: list[Record]) -> None:
        hand.closed = reason
        records.append(HandClosed(hand.box, hand.index, reason, hand.total))

    def _pay_hand(self, hand: _Hand, outcome: Outcome, odds: Fraction) -> tuple[BetSettlement, ...]:
        """Lines paying every stake on ``hand`` at ``odds`` now (paid at once)."""
        lines = []
        for bettor, stake in hand.stakes.items():
            returned, unpaid = _pay(stake, odds)
            lines.append(
                BetSettlement(hand.box, hand.index, bettor, outcome, stake, returned, returned - stake, 0, unpaid, True)
            )
        return tuple(lines)

    def _end_initial_deal(self, records: list[Record]) -> None:
        """Blackjacks against 2-9 are paid at once; open the even-money and insurance offers."""
        up_points = _POINTS[self._dealer[0]]
        ace_up, ten_up = up_points == 1, up_points == 10
        for box in self._boxes:
            hand = box.hands[0]
            if hand.blackjack:
                self._close(hand, "blackjack", records)  # complete: no decision can change it
                if ace_up or ten_up:
                    box.offer = "even_money"
                    self._offers.append(box)
                else:
                    self._pay_blackjack(hand, records)
            elif ace_up:
                box.offer = "insurance"
                box.insurance_pending = [bet.bettor for bet in box.bets]
                self._offers.append(box)
        self._peek_due = self.rules.hole_card and (ace_up or ten_up)
        self._state = PLAYERS

    def _pay_blackjack(self, hand: _Hand, records: list[Record]) -> None:
        hand.paid = self._pay_hand(hand, Outcome.BLACKJACK, self.rules.blackjack_pays)
        records.append(BlackjackPaid(hand.box, hand.index, hand.paid))

    # --- moving on -------------------------------------------------------------------

    def _advance(self, records: list[Record]) -> None:
        """Find what the coup needs next: an offer answer, the peek, a hand's card or
        decision, the dealer's cards, or the end."""
        self._need = self._need_hand = None
        self._awaiting = None
        if self._state == PLAYERS:
            if self._offers:
                self._awaiting = self._offer_decision(self._offers[0])
                return
            if self._peek_due:
                self._peek_due = False
                if self._peek(records):
                    self._finish(records)
                    return
            hand = self._hand_in_play()
            if hand is not None:
                if hand.follow_pending:
                    self._awaiting = self._follow_decision(hand)
                elif hand.wants_card or len(hand.cards) < 2:
                    self._need, self._need_hand = hand.target, hand
                else:
                    self._awaiting = self._play_decision(hand)
                return
            self._enter_dealer_turn()
        if self._state == DEALER_TURN:
            if self._dealer_needs_card():
                self._need = DEALER
            else:
                self._finish(records)

    def _hand_in_play(self) -> _Hand | None:
        """The first open hand from the box whose turn it is; moves the turn past closed boxes."""
        boxes = self._boxes
        while self._turn < len(boxes):
            for hand in boxes[self._turn].hands:
                if hand.closed is None:
                    return hand
            self._turn += 1
        return None

    def _peek(self, records: list[Record]) -> bool:
        """Hole card under an ace or ten: True if the dealer has blackjack (the coup ends).
        Otherwise the blackjacks that declined even money are paid at once."""
        blackjack = self._dealer_blackjack()
        records.append(DealerPeeked(blackjack))
        if not blackjack:
            for box in self._boxes:
                hand = box.hands[0]
                if hand.blackjack and not hand.paid:
                    self._pay_blackjack(hand, records)
        return blackjack

    def _dealer_blackjack(self) -> bool:
        return len(self._dealer) == 2 and self._dealer_aces >= 1 and self._dealer_hard == 11

    def _enter_dealer_turn(self) -> None:
        self._state = DEALER_TURN
        waiting_blackjack = insured = False
        for box in self._boxes:
            insured = insured or bool(box.insurance)
            for hand in box.hands:
                if hand.paid or hand.closed == "busted":
                    continue
                if hand.blackjack:
                    waiting_blackjack = True
                else:
                    self._dealer_plays_out = True
        # Without a hole card the second card settles insurance and waiting blackjacks.
        self._dealer_checks = waiting_blackjack or insured

    def _dealer_needs_card(self) -> bool:
        if self._dealer_plays_out:  # draw to 16, stand on every 17 (soft 17 too)
            hard = self._dealer_hard
            return len(self._dealer) < 2 or (hard + 10 if self._dealer_aces and hard <= 11 else hard) < 17
        return self._dealer_checks and len(self._dealer) < 2

    def _finish(self, records: list[Record]) -> None:
        """The dealer's hand is final: settle every bet."""
        total, _ = self._dealer_value()
        dealer_blackjack = self._dealer_blackjack()
        lines = self._lines
        for box in self._boxes:
            for hand in box.hands:
                lines.extend(hand.paid or self._settle_hand(hand, total, dealer_blackjack))
            for bettor, amount in box.insurance.items():  # in the order they answered
                lines.append(self._insurance_line(box.number, bettor, amount, dealer_blackjack))
        self._state = SETTLED
        self._need = self._awaiting = None
        records.append(DealerPlayed(tuple(self._dealer), total, dealer_blackjack, total > 21))

    def _settle_hand(self, hand: _Hand, dealer_total: int, dealer_blackjack: bool) -> list[BetSettlement]:
        """Compare a hand not paid at once with the dealer's final hand (RULES.md §Black jack).

        A bust hand loses even if the dealer busts. A dealer blackjack beats every hand but a
        blackjack (push) — with no hole card that includes doubled and split hands, whose whole
        stake is lost. Equal totals push.
        """
        total = hand.total
        odds = None  # None: lost; 0: push
        outcome = Outcome.LOST
        if hand.blackjack:
            if dealer_blackjack:
                outcome, odds = Outcome.PUSHED, _ZERO
            else:
                outcome, odds = Outcome.BLACKJACK, self.rules.blackjack_pays
        elif total > 21 or dealer_blackjack:
            pass
        elif dealer_total > 21 or total > dealer_total:
            outcome, odds = Outcome.WON, _EVEN
        elif total == dealer_total:
            outcome, odds = Outcome.PUSHED, _ZERO
        lines = []
        box, index = hand.box, hand.index
        for bettor, stake in hand.stakes.items():
            returned, unpaid = (0, _ZERO) if odds is None else _pay(stake, odds)
            net = returned - stake
            winnings, house = (net, 0) if net >= 0 else (0, -net)
            lines.append(BetSettlement(box, index, bettor, outcome, stake, returned, winnings, house, unpaid, False))
        return lines

    @staticmethod
    def _insurance_line(box: int, bettor: str, amount: int, dealer_blackjack: bool) -> BetSettlement:
        if dealer_blackjack:
            winnings = amount * INSURANCE_PAYS.numerator  # 2:1 on whole cents is exact
            won = Outcome.INSURANCE_WON
            return BetSettlement(box, 0, bettor, won, amount, amount + winnings, winnings, 0, _ZERO, False)
        return BetSettlement(box, 0, bettor, Outcome.INSURANCE_LOST, amount, 0, 0, amount, _ZERO, False)

    # --- decisions awaited -----------------------------------------------------------

    def _offer_decision(self, box: _Box) -> Decision:
        hand = box.hands[0]
        if box.offer == "even_money":
            actions = frozenset({"even_money"})
            return Decision("even_money", box.number, 0, actions, (box.seated,), tuple(hand.cards), self._dealer[0])
        return Decision(
            "insurance",
            box.number,
            0,
            frozenset({"insurance"}),
            tuple(box.insurance_pending),
            tuple(hand.cards),
            self._dealer[0],
        )

    def _follow_decision(self, hand: _Hand) -> Decision:
        return Decision(
            "follow",
            hand.box,
            hand.index,
            frozenset({"follow"}),
            tuple(hand.follow_pending),
            tuple(hand.cards),
            self._dealer[0],
            hand.follow_action,
        )

    def _play_decision(self, hand: _Hand) -> Decision:
        box = self._box_by_number[hand.box]
        if len(hand.cards) == 2:
            actions = _ACTIONS[self._may_double(hand), self._may_split(box, hand)]
        else:
            actions = _ACTIONS[False, False]
        return Decision("play", hand.box, hand.index, actions, (box.seated,), tuple(hand.cards), self._dealer[0])

    # The hot path asks _may_double / _may_split; the refusal texts are built only on refusal.

    def _may_double(self, hand: _Hand) -> bool:
        rules = self.rules
        return (
            len(hand.cards) == 2
            and not hand.split_ace
            and (rules.double_after_split or not hand.from_split)
            and (rules.double_on is DoubleOn.ANY or 9 <= hand.total <= 11)
        )

    def _may_split(self, box: _Box, hand: _Hand) -> bool:
        limit = self.rules.max_split_hands
        return hand.is_pair and not hand.split_ace and (limit is None or len(box.hands) < limit)

    def _double_refusal(self, hand: _Hand) -> str:
        """Why ``hand`` may not double now (when :meth:`_may_double` is false)."""
        if len(hand.cards) != 2:
            return "a hand doubles only on its first two cards"
        if hand.split_ace:
            return "split aces take one card each and cannot double"
        if hand.from_split and not self.rules.double_after_split:
            return "no double after a split at this table (double_after_split=false)"
        if self.rules.double_on is DoubleOn.NINE_TO_ELEVEN and hand.total not in (9, 10, 11):
            return f"a double needs a first-two-card total of 9, 10 or 11 (double_on=9-11); this hand is {hand.total}"
        raise AssertionError("the hand may double")

    def _split_refusal(self, box: _Box, hand: _Hand) -> str:
        """Why ``hand`` may not split now (when :meth:`_may_split` is false)."""
        if len(hand.cards) != 2:
            return "a hand splits only on its first two cards"
        if not hand.is_pair:
            return f"split needs two cards of the same value, not {hand.cards[0]} and {hand.cards[1]}"
        if hand.split_ace:
            return "split aces take one card each and cannot split again"
        limit = self.rules.max_split_hands
        if limit is not None and len(box.hands) >= limit:
            return f"split limit reached: at most {limit} hands on a box"
        raise AssertionError("the hand may split")

    # --- shared checks ---------------------------------------------------------------

    @staticmethod
    def _can(verify: Any, *args: Any) -> bool:
        try:
            verify(*args)
        except RuleError:
            return False
        return True

    def _box(self, box: object) -> _Box:
        found = self._box_by_number.get(box) if type(box) is int else None
        if found is None:
            raise RuleError("box", f"no bets on box {box!r}")
        return found

    @staticmethod
    def _hand_at(box: _Box, hand_index: object) -> _Hand:
        if not is_int(hand_index) or not 0 <= hand_index < len(box.hands):
            raise RuleError("hand_index", f"box {box.number} has no hand {hand_index!r}")
        return box.hands[hand_index]

    def _check_open(self) -> None:
        if self._state == SETTLED:
            raise RuleError("state", "the coup is settled")
        if self._state == DEALING:
            raise RuleError("state", "the first cards are still being dealt")

    @staticmethod
    def _check_bettor(box: _Box, bettor: object, *, seated: bool | None) -> None:
        """``bettor`` has a bet on ``box``; and is its seated player (True), bets behind
        (False), or either (None)."""
        if bettor not in box.stakes:
            raise RuleError("bettor", f"{bettor!r} has no bet on box {box.number}")
        if seated is True and bettor != box.seated:
            raise RuleError("bettor", f"only the seated player of box {box.number} decides; {bettor!r} bets behind")
        if seated is False and bettor == box.seated:
            raise RuleError("bettor", f"{bettor!r} is seated at box {box.number}: he decides, he does not follow")

    # --- the seated player's decisions: hit, stand, double, split ------------------------

    def _verify_play(self, action: str, box: int, bettor: str, hand_index: int | None) -> _Hand:
        """Checks common to hit/stand/double/split; returns the hand in play."""
        self._check_open()
        the_box = self._box(box)
        self._check_bettor(the_box, bettor, seated=True)
        if hand_index is not None:
            asked = self._hand_at(the_box, hand_index)
            if asked.closed is not None:
                raise RuleError("hand_index", f"hand {hand_index} of box {box} is closed ({asked.closed})")
        decision = self._awaiting
        if decision is None or decision.kind != "play" or decision.box != box:
            if hand_index is None and all(h.closed is not None for h in the_box.hands):
                last = the_box.hands[-1]
                raise RuleError("hand_index", f"box {box} has no hand in play: hand {last.index} is {last.closed}")
            wrong_box = decision is not None and decision.kind == "play"
            raise RuleError("box" if wrong_box else "action", f"cannot {action} now: {self._describe_wait()}")
        if hand_index is not None and hand_index != decision.hand_index:
            raise RuleError("hand_index", f"hand {decision.hand_index} of box {box} is in play, not hand {hand_index}")
        return the_box.hands[decision.hand_index]

    def _describe_wait(self) -> str:
        decision = self._awaiting
        if decision is None:
            return "the dealer plays" if self._state == DEALER_TURN else "a card is due"
        if decision.kind == "play":
            return f"it is box {decision.box}'s turn (hand {decision.hand_index})"
        if decision.kind == "follow":
            return f"box {decision.box} waits for bettors behind to follow the {decision.follows}"
        return f"box {decision.box} waits for its {decision.kind.replace('_', ' ')} answer"

    def verify_hit(self, box: int, bettor: str, hand_index: int | None = None) -> None:
        """Raises :class:`RuleError` ("state", "box", "bettor", "hand_index", "action")."""
        self._verify_play("hit", box, bettor, hand_index)

    def can_hit(self, box: int, bettor: str, hand_index: int | None = None) -> bool:
        return self._can(self.verify_hit, box, bettor, hand_index)

    def hit(self, box: int, bettor: str, hand_index: int | None = None) -> list[Record]:
        """The seated player asks for a card on the hand in play (``hand_index`` optional:
        when given it must be the hand in play). The card comes with the next :meth:`deal`."""
        hand = self._verify_play("hit", box, bettor, hand_index)
        hand.wants_card = True
        records: list[Record] = [Decided(box, hand.index, bettor, "hit")]
        self._advance(records)
        return records

    def verify_stand(self, box: int, bettor: str, hand_index: int | None = None) -> None:
        self._verify_play("stand", box, bettor, hand_index)

    def can_stand(self, box: int, bettor: str, hand_index: int | None = None) -> bool:
        return self._can(self.verify_stand, box, bettor, hand_index)

    def stand(self, box: int, bettor: str, hand_index: int | None = None) -> list[Record]:
        """The seated player stands: the hand closes and play moves on."""
        hand = self._verify_play("stand", box, bettor, hand_index)
        records: list[Record] = [Decided(box, hand.index, bettor, "stand")]
        self._close(hand, "stood", records)
        self._advance(records)
        return records

    def verify_double(self, box: int, bettor: str, hand_index: int | None = None) -> None:
        hand = self._verify_play("double", box, bettor, hand_index)
        if not self._may_double(hand):
            raise RuleError("action", self._double_refusal(hand))

    def can_double(self, box: int, bettor: str, hand_index: int | None = None) -> bool:
        return self._can(self.verify_double, box, bettor, hand_index)

    def double(self, box: int, bettor: str, hand_index: int | None = None) -> list[Record]:
        """The seated player doubles his stake on the hand, which takes exactly one more card.
        Bettors behind on the hand are then asked whether they follow, if ``behind_may_follow``."""
        self.verify_double(box, bettor, hand_index)
        hand = self._awaiting_hand()
        added = hand.stakes[bettor]
        hand.stakes[bettor] = 2 * added
        hand.doubled = True
        hand.wants_card = True
        self._ask_followers(hand, "double", None)
        records: list[Record] = [Decided(box, hand.index, bettor, "double", added)]
        self._advance(records)
        return records

    def verify_split(self, box: int, bettor: str, hand_index: int | None = None) -> None:
        hand = self._verify_play("split", box, bettor, hand_index)
        the_box = self._box_by_number[box]
        if not self._may_split(the_box, hand):
            raise RuleError("action", self._split_refusal(the_box, hand))

    def can_split(self, box: int, bettor: str, hand_index: int | None = None) -> bool:
        return self._can(self.verify_split, box, bettor, hand_index)

    def split(self, box: int, bettor: str, hand_index: int | None = None) -> list[Record]:
        """The seated player splits a pair of the same value into two hands, staking his stake
        again on the new hand (index ``len(hands)``). The split hand draws its second card
        next; the new hand draws when its turn comes. Split aces take one card each."""
        self.verify_split(box, bettor, hand_index)
        hand = self._awaiting_hand()
        the_box = self._box_by_number[box]
        moved = hand.cards.pop()
        points = _POINTS[moved]
        hand.hard -= points
        hand.aces -= points == 1
        new = _Hand(box, len(the_box.hands), {bettor: hand.stakes[bettor]})
        new.add(moved, points)
        hand.from_split = new.from_split = True
        hand.split_ace = new.split_ace = points == 1
        the_box.hands.append(new)
        self._ask_followers(hand, "split", new)
        records: list[Record] = [Decided(box, hand.index, bettor, "split", hand.stakes[bettor], new.index)]
        self._advance(records)
        return records

    def _awaiting_hand(self) -> _Hand:
        decision = self._awaiting
        assert decision is not None
        return self._box_by_number[decision.box].hands[decision.hand_index]

    def _ask_followers(self, hand: _Hand, action: str, new_hand: _Hand | None) -> None:
        if not self.rules.behind_may_follow:
            return  # the seated player alone decides: nobody behind is asked
        seated_first = iter(hand.stakes)
        next(seated_first)
        hand.follow_pending = list(seated_first)
        hand.follow_action = action
        hand.follow_hand = new_hand

    # --- bettors behind: follow a double or a split ------------------------------------

    def verify_follow(self, box: int, bettor: str, action: str, follow: bool) -> None:
        """Raises :class:`RuleError` ("state", "box", "bettor", "action", "follow")."""
        self._check_open()
        the_box = self._box(box)
        self._check_bettor(the_box, bettor, seated=False)
        decision = self._awaiting
        if decision is None or decision.kind != "follow" or decision.box != box:
            raise RuleError("action", f"nothing to follow on box {box} now: {self._describe_wait()}")
        if action != decision.follows:
            raise RuleError("action", f"the seated player made a {decision.follows}, not a {action!r}")
        if bettor not in decision.bettors:
            raise RuleError("bettor", f"{bettor!r} has no stake on that hand or has already answered")
        if type(follow) is not bool:
            raise RuleError("follow", "must be true or false")

    def can_follow(self, box: int, bettor: str, action: str, follow: bool) -> bool:
        return self._can(self.verify_follow, box, bettor, action, follow)

    def follow(self, box: int, bettor: str, action: str, follow: bool) -> list[Record]:
        """A bettor behind follows the seated player's double (his stake on the hand doubles)
        or split (he stakes his stake again on the new hand), or not: then his stake stays
        single, on the hand that was split (the lower index) for a split."""
        self.verify_follow(box, bettor, action, follow)
        hand = self._awaiting_hand()
        stake = hand.stakes[bettor]
        added, new_index = 0, None
        if follow:
            added = stake
            if action == "double":
                hand.stakes[bettor] = 2 * stake
            else:
                assert hand.follow_hand is not None
                hand.follow_hand.stakes[bettor] = stake
                new_index = hand.follow_hand.index
        hand.follow_pending.remove(bettor)
        records: list[Record] = [FollowDecided(box, hand.index, bettor, action, follow, added, new_index)]
        self._advance(records)
        return records

    # --- offers: insurance and even money ------------------------------------------------

    def verify_insurance(self, box: int, bettor: str, amount_cents: int) -> None:
        """Raises :class:`RuleError`: "action" (no dealer ace, not offered to this box now, a
        blackjack box, already answered), "amount_cents" (not an integer 0 to half the stake,
        rounded down), and "state", "box", "bettor"."""
        self._check_open()
        the_box = self._box(box)
        self._check_bettor(the_box, bettor, seated=None)
        if _POINTS[self._dealer[0]] != 1:
            raise RuleError("action", f"insurance is offered only when the dealer shows an ace, not {self._dealer[0]}")
        if the_box.offer == "even_money" or the_box.hands[0].blackjack:
            raise RuleError("action", f"box {box} has a blackjack: it is offered even money, not insurance")
        if the_box.offer != "insurance" or the_box not in self._offers:
            raise RuleError("action", "insurance is closed: it is offered before the players' decisions")
        if bettor not in the_box.insurance_pending:
            raise RuleError("action", f"{bettor!r} has already answered insurance on box {box}")
        half = the_box.stakes[bettor] // 2
        if not is_int(amount_cents) or not 0 <= amount_cents <= half:
            raise RuleError(
                "amount_cents", f"insurance is 0 to half the stake: at most {half} cents, got {amount_cents!r}"
            )

    def can_insurance(self, box: int, bettor: str, amount_cents: int) -> bool:
        return self._can(self.verify_insurance, box, bettor, amount_cents)

    def insurance(self, box: int, bettor: str, amount_cents: int) -> list[Record]:
        """``bettor`` insures his own stake on ``box`` for ``amount_cents`` (0 = no insurance).
        Pays 2:1 if the dealer makes blackjack, else lost; settled with the coup."""
        self.verify_insurance(box, bettor, amount_cents)
        the_box = self._box_by_number[box]
        if amount_cents:
            the_box.insurance[bettor] = amount_cents
        the_box.insurance_pending.remove(bettor)
        if not the_box.insurance_pending:
            self._close_offer(the_box)
        records: list[Record] = [InsuranceDecided(box, bettor, amount_cents)]
        self._advance(records)
        return records

    def verify_even_money(self, box: int, bettor: str, accept: bool) -> None:
        """Raises :class:`RuleError`: "action" (no blackjack on the box against an ace or a ten,
        or already answered), "accept", and "state", "box", "bettor" (not seated)."""
        self._check_open()
        the_box = self._box(box)
        self._check_bettor(the_box, bettor, seated=True)
        if the_box.offer != "even_money" or the_box not in self._offers:
            raise RuleError("action", f"even money is not offered on box {box} now")
        if type(accept) is not bool:
            raise RuleError("accept", "must be true or false")

    def can_even_money(self, box: int, bettor: str, accept: bool) -> bool:
        return self._can(self.verify_even_money, box, bettor, accept)

    def even_money(self, box: int, bettor: str, accept: bool) -> list[Record]:
        """The seated player takes even money for the box's blackjack (every stake on it paid
        1:1 at once, the hand closed) or declines it and waits for the dealer."""
        self.verify_even_money(box, bettor, accept)
        the_box = self._box_by_number[box]
        self._close_offer(the_box)
        hand = the_box.hands[0]
        if not accept:
            records: list[Record] = [EvenMoneyDecided(box, bettor, False)]
        else:
            hand.paid = self._pay_hand(hand, Outcome.EVEN_MONEY, _EVEN)
            records = [EvenMoneyDecided(box, bettor, True, hand.paid)]
        self._advance(records)
        return records

    def _close_offer(self, box: _Box) -> None:
        box.offer = None
        self._offers.remove(box)

    # --- settlement ------------------------------------------------------------------

    def settle(self) -> list[BetSettlement]:
        """Every bet's result, once the coup is settled: by box, each hand's lines (bettors in
        stake order, seated first) then the box's insurance lines. Lines with ``paid_at_once``
        were paid by an earlier record. Raises :class:`RuleError` ("state") before the end."""
        if self._state != SETTLED:
            raise RuleError("state", f"the coup is not over: {self._describe_wait()}")
        return list(self._lines)
