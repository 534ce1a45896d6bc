"""Caribbean-style stud: players against the house (``RULES.md §Caribbean-style stud``, sheet 001).

One 52-card deck, reshuffled for every coup; up to 7 boxes. Each player posts an ante; five
cards each face down and five to the dealer, whose last card is shown. Each player folds
(``passe``: the ante is lost) or raises (``relance``: ``raise_multiple`` × the ante, 2 by
default). The dealer qualifies with ace-king or better
(:func:`games.rules.poker_hands.dealer_qualifies`):

- the dealer does not qualify: ante paid 1:1, raise returned;
- he qualifies and the player's hand is lower: ante and raise lost; equal in all five ranks:
  both returned; higher: ante paid 1:1 and the raise paid by the pay table (a winning
  high-card hand, ace-king, pays 1:1, as everywhere else).

Money is integer cents. Every payout here is a whole multiple of a stake, so nothing is ever
rounded; each line still carries ``unpaid_fraction`` (always 0 here) so that all the games'
settlement lines have one shape (``RULES.md``, money paragraph). Worked cases: C10-C12 of
``cases/README.md``.

Choices where RULES.md is silent, stated once:

- ``max_payout_cents`` (optional) bounds what one box wins in one coup, ante and raise
  winnings together; what the rules owe above it is cut from the raise's winnings and
  recorded on the raise line as ``capped_cents``. It must be at least the even-money win of
  the largest ante (``ante_max_cents × (1 + raise_multiple)``), so it only ever cuts a
  pay-table bonus, never an even-money win.
- Decisions may come in any order (the hands are hidden; no decision depends on another).
- A player who folds still sees the dealer's hand evaluated (``dealer_qualifies`` is reported
  for every result), as the vectors of ``vectors/games.json`` expect.

Pure: no Django, no clock, no randomness: the cards come in one at a time through
:meth:`CaribbeanCoup.deal` (from a shuffled one-deck :class:`~games.rules.shoe.ShoeOrder`).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import format_cents
from basis.numbers import is_int

from .blackjack import to_data
from .cards import parse_card
from .poker_hands import CATEGORIES, HandRank, dealer_qualifies, evaluate

__all__ = [
    "BOXES",
    "PAY_TABLES",
    "BoxDecided",
    "BoxSettled",
    "CaribbeanAnte",
    "CaribbeanCoup",
    "CaribbeanLine",
    "CaribbeanResult",
    "CaribbeanRules",
    "CardBurnt",
    "CardDealt",
    "DealerRevealed",
    "DealerShows",
    "settle",
    "to_data",
]

BOXES = range(1, 8)  # 7 seated boxes (sheet 001)
CARDS_PER_HAND = 5
MAX_STAKE_CENTS = 10**12  # the API's cap on an amount; keeps every product exact and bounded

# Pay tables: the raise's odds k (k:1) by the player's category when he beats a qualifying
# dealer. "high card" (a winning A-K) pays 1:1 in both (RULES.md).
PAY_TABLES: dict[str, dict[str, int]] = {
    "sheet": {  # sheet 001, the default
        "high card": 1,
        "pair": 1,
        "two pair": 2,
        "trips": 3,
        "straight": 5,
        "flush": 8,
        "full house": 10,
        "quads": 20,
        "straight flush": 50,
        "royal flush": 100,
    },
    "common": {  # the common 1-2-3-4-5-7-20-50-100
        "high card": 1,
        "pair": 1,
        "two pair": 2,
        "trips": 3,
        "straight": 4,
        "flush": 5,
        "full house": 7,
        "quads": 20,
        "straight flush": 50,
        "royal flush": 100,
    },
}
assert all(tuple(table) == CATEGORIES for table in PAY_TABLES.values())

_MAX_LIMIT_CENTS = 10**10
_MAX_RAISE_MULTIPLE = 10


@dataclass(frozen=True)
class CaribbeanRules:
    """Options of one Caribbean stud table; defaults first.

    - ``ante_min_cents`` / ``ante_max_cents``: the ante's limits (1,000 / 100,000).
    - ``raise_multiple``: the raise as a multiple of the ante, an integer 1-10 (2: RULES.md).
    - ``pay_table``: ``"sheet"`` (sheet 001: 1, 2, 3, 5, 8, 10, 20, 50, 100) or ``"common"``
      (1, 2, 3, 4, 5, 7, 20, 50, 100); see :data:`PAY_TABLES`.
    - ``max_payout_cents``: None (no limit) or the most one box wins in one coup (see the
      module docstring); at least ``ante_max_cents × (1 + raise_multiple)``.
    """

    ante_min_cents: int = 1_000
    ante_max_cents: int = 100_000
    raise_multiple: int = 2
    pay_table: str = "sheet"
    max_payout_cents: int | None = None

    def __post_init__(self) -> None:
        for name in ("ante_min_cents", "ante_max_cents"):
            value = getattr(self, name)
            if not is_int(value) or not 1 <= value <= _MAX_LIMIT_CENTS:
                raise RuleError(f"rules.{name}", f"must be an integer from 1 to {_MAX_LIMIT_CENTS}, got {value!r}")
        if self.ante_min_cents > self.ante_max_cents:
            raise RuleError("rules.ante_min_cents", "the minimum ante is above the maximum")
        if not is_int(self.raise_multiple) or not 1 <= self.raise_multiple <= _MAX_RAISE_MULTIPLE:
            raise RuleError("rules.raise_multiple", f"must be an integer from 1 to {_MAX_RAISE_MULTIPLE}")
        if not isinstance(self.pay_table, str) or self.pay_table not in PAY_TABLES:
            raise RuleError("rules.pay_table", f"must be one of {', '.join(PAY_TABLES)}, got {self.pay_table!r}")
        cap = self.max_payout_cents
        if cap is not None:
            floor = self.ante_max_cents * (1 + self.raise_multiple)
            if not is_int(cap) or not floor <= cap <= MAX_STAKE_CENTS:
                raise RuleError(
                    "rules.max_payout_cents",
                    f"must be null or an integer from {floor} (the even-money win of the largest ante and its "
                    f"raise) to {MAX_STAKE_CENTS}, got {cap!r}",
                )

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "CaribbeanRules":
        """Build from JSON options (as :meth:`to_dict` writes them); missing options take the
        default. Raises :class:`RuleError` naming ``rules.<option>``."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise RuleError("rules", "must be an object of table options")
        unknown = sorted(set(options) - set(cls.__dataclass_fields__), key=str)
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``CaribbeanRules.from_dict(rules.to_dict()) == rules``."""
        return {
            "ante_min_cents": self.ante_min_cents,
            "ante_max_cents": self.ante_max_cents,
            "raise_multiple": self.raise_multiple,
            "pay_table": self.pay_table,
            "max_payout_cents": self.max_payout_cents,
        }

    def raise_cents(self, ante_cents: int) -> int:
        """The raise that goes with ``ante_cents``."""
        return self.raise_multiple * ante_cents

    def pays(self, category: str) -> int:
        """The raise's odds (k of k:1) for a winning hand of ``category``."""
        return PAY_TABLES[self.pay_table][category]

    def check_ante(self, ante_cents: object) -> int:
        """``ante_cents`` if it is an integer within the table's limits; else :class:`RuleError`
        (field ``"ante_cents"``), a :class:`LimitRefused` (kind ``table_minimum`` or
        ``table_maximum``) when it is an integer outside them."""
        message = f"an ante is from {format_cents(self.ante_min_cents)} to {format_cents(self.ante_max_cents)}"
        if not is_int(ante_cents) or ante_cents <= 0:  # type: ignore[operator]  # not a stake at all: bad input
            raise RuleError("ante_cents", message)
        if ante_cents < self.ante_min_cents:  # type: ignore[operator]
            raise LimitRefused("ante_cents", message, "table_minimum")
        if ante_cents > self.ante_max_cents:  # type: ignore[operator]
            raise LimitRefused("ante_cents", message, "table_maximum")
        return ante_cents  # type: ignore[return-value]


# --- settlement of one box -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaribbeanLine:
    """The money result of one bet of a box (``bet``: ``"ante"`` or ``"raise"``); cents.

    - ``outcome``: ``"won"``, ``"lost"`` or ``"push"``; ``odds``: k of the k:1 paid (0 unless won).
    - ``return_cents``: back to the player (stake + winnings; the stake on a push; 0 lost).
    - ``winnings_cents`` = ``return - stake`` when positive; ``house_cents`` = ``stake - return``
      when positive.
    - ``unpaid_fraction``: what the rules owe minus what is paid, below a cent (always 0 in this
      game: every payout is a whole multiple of the stake).
    - ``capped_cents``: winnings the rules owe but ``max_payout_cents`` withholds (0 if none).
    """

    bet: str
    outcome: str
    stake_cents: int
    odds: int
    return_cents: int
    winnings_cents: int
    house_cents: int
    unpaid_fraction: Fraction
    capped_cents: int

    @property
    def net_cents(self) -> int:
        return self.return_cents - self.stake_cents


@dataclass(frozen=True, slots=True)
class CaribbeanResult:
    """One box's coup. ``outcome``: ``"fold"``, ``"dealer_not_qualified"``, ``"player_wins"``,
    ``"push"`` or ``"dealer_wins"``. ``ante_net``, ``raise_net`` and ``net`` are the player's
    net results in cents (``raise_net`` is 0 after a fold). ``lines``: the ante line, then the
    raise line when he raised. ``*_category``: names of :data:`~games.rules.poker_hands.CATEGORIES`.
    """

    dealer_qualifies: bool
    outcome: str
    ante_net: int
    raise_net: int
    net: int
    player_category: str
    dealer_category: str
    lines: tuple[CaribbeanLine, ...]


def _line(bet: str, stake: int, outcome: str, odds: int = 0, capped: int = 0) -> CaribbeanLine:
    if outcome == "won":
        winnings = stake * odds - capped
        return CaribbeanLine(bet, outcome, stake, odds, stake + winnings, winnings, 0, Fraction(0), capped)
    if outcome == "push":
        return CaribbeanLine(bet, outcome, stake, 0, stake, 0, 0, Fraction(0), 0)
    return CaribbeanLine(bet, "lost", stake, 0, 0, 0, stake, Fraction(0), 0)


def _hand(cards: object, field: str) -> tuple[HandRank, tuple[str, ...]]:
    if isinstance(cards, str | bytes) or not isinstance(cards, Sequence):
        raise RuleError(field, f"must be a list of five card codes, got {cards!r}")
    codes = tuple(cards)
    try:
        return evaluate(codes), codes
    except RuleError as error:
        if error.field == "cards":
            raise RuleError(field, error.message) from None
        raise


def settle(
    player_cards: Sequence[str],
    dealer_cards: Sequence[str],
    ante_cents: int,
    raised: bool,
    rules: CaribbeanRules | None = None,
) -> CaribbeanResult:
    """Settle one box: the player's five cards, the dealer's five, the ante, and whether the
    player raised (``rules.raise_multiple`` × the ante) or folded. ``rules`` default to
    :class:`CaribbeanRules`'s defaults.

    Raises :class:`RuleError`: ``"player_cards"`` / ``"dealer_cards"`` (not five different
    cards), ``"cards"`` (a card in both hands), ``"card"`` (a bad code), ``"ante_cents"``
    (outside the table's limits), ``"raised"`` (not true or false).
    """
    rules = CaribbeanRules() if rules is None else rules
    if not isinstance(rules, CaribbeanRules):
        raise TypeError("rules must be a CaribbeanRules")
    player, player_codes = _hand(player_cards, "player_cards")
    dealer, dealer_codes = _hand(dealer_cards, "dealer_cards")
    shared = set(player_codes) & set(dealer_codes)
    if shared:
        raise RuleError("cards", f"{sorted(shared)[0]} is in both hands: one deck holds each card once")
    ante = rules.check_ante(ante_cents)
    if type(raised) is not bool:
        raise RuleError("raised", "must be true (raise) or false (fold)")
    return _settle(player, dealer, ante, raised, rules)


def _settle(player: HandRank, dealer: HandRank, ante: int, raised: bool, rules: CaribbeanRules) -> CaribbeanResult:
    qualifies = dealer_qualifies(dealer)
    if not raised:
        lines: tuple[CaribbeanLine, ...] = (_line("ante", ante, "lost"),)
        outcome = "fold"
    else:
        raise_stake = rules.raise_cents(ante)
        if not qualifies:
            outcome = "dealer_not_qualified"
            lines = (_line("ante", ante, "won", 1), _line("raise", raise_stake, "push"))
        elif player > dealer:
            outcome = "player_wins"
            odds = rules.pays(player.category)
            owed = ante + raise_stake * odds  # the box's winnings under the pay table
            cap = rules.max_payout_cents
            # The cap is at least ante + raise (CaribbeanRules), so it only ever cuts the
            # raise's pay-table bonus.
            capped = owed - cap if cap is not None and owed > cap else 0
            lines = (_line("ante", ante, "won", 1), _line("raise", raise_stake, "won", odds, capped))
        elif player == dealer:
            outcome = "push"
            lines = (_line("ante", ante, "push"), _line("raise", raise_stake, "push"))
        else:
            outcome = "dealer_wins"
            lines = (_line("ante", ante, "lost"), _line("raise", raise_stake, "lost"))
    ante_net = lines[0].net_cents
    raise_net = lines[1].net_cents if len(lines) > 1 else 0
    return CaribbeanResult(
        qualifies, outcome, ante_net, raise_net, ante_net + raise_net, player.category, dealer.category, lines
    )


# --- the coup at the table -------------------------------------------------------------------


@dataclass(frozen=True)
class CaribbeanAnte:
    """A player's ante on a box (1-7); one player per box, all seated (sheet 001)."""

    box: int
    player: str
    ante_cents: int

    def __post_init__(self) -> None:
        if not is_int(self.box) or self.box not in BOXES:
            raise RuleError("box", f"must be an integer from 1 to 7, got {self.box!r}")
        if not isinstance(self.player, str) or not self.player:
            raise RuleError("player", "must be a non-empty string")
        if not is_int(self.ante_cents) or not 0 < self.ante_cents <= MAX_STAKE_CENTS:
            raise RuleError("ante_cents", f"must be a positive integer of cents, got {self.ante_cents!r}")


@dataclass(frozen=True, slots=True)
class CardDealt:
    """``card`` went to ``box`` (None: the dealer), face ``"down"`` or ``"up"`` (only the
    dealer's last card is dealt up); ``index`` 0-4 is the card's place in that hand."""

    box: int | None
    card: str
    face: str
    index: int


@dataclass(frozen=True, slots=True)
class CardBurnt:
    """``card`` was exposed by mistake and burnt (sheet 001: "toute carte découverte par erreur
    sera immédiatement brûlée"): it is out of the coup. ``box`` (None: the dealer) and ``index``
    name the hand and place it held; a card exposed as it came off the deck held none
    (``box`` is then its intended receiver and ``index`` None). The receiver gets the next card
    of the deck in its place (``replaced``)."""

    box: int | None
    card: str
    index: int | None
    replaced: bool = True


@dataclass(frozen=True, slots=True)
class DealerShows:
    """The dealer's last card is shown: the players decide now."""

    card: str


@dataclass(frozen=True, slots=True)
class BoxDecided:
    """The player of ``box`` folded (``action="fold"``) or raised (``"raise"``, adding
    ``raise_cents``)."""

    box: int
    player: str
    action: str
    raise_cents: int


@dataclass(frozen=True, slots=True)
class DealerRevealed:
    """Every box has decided: the dealer turns his cards."""

    cards: tuple[str, ...]
    category: str
    qualifies: bool


@dataclass(frozen=True, slots=True)
class BoxSettled:
    """One box's settlement (also in :meth:`CaribbeanCoup.settle`)."""

    box: int
    player: str
    ante_cents: int
    result: CaribbeanResult


Record = CardDealt | CardBurnt | DealerShows | BoxDecided | DealerRevealed | BoxSettled

DEALING, DECIDING, SETTLED = "dealing", "deciding", "settled"


class CaribbeanCoup:
    """One coup at a Caribbean stud table (``RULES.md §Caribbean-style stud``).

    ``CaribbeanCoup(rules, antes)`` checks the antes (1 to 7 boxes, one player each, within
    the table's limits). Then:

    1. ``dealing``: :meth:`deal` one card at a time, as :meth:`next_draw` says: one card to each
       box from the dealer's left (box 1 first) then one to the dealer, five times (sheet 001).
       The dealer's fifth card is dealt face up (:class:`DealerShows`). A card already dealt
       in this coup is refused: one deck.
       A card exposed by mistake is burnt (:meth:`burn`): while dealing, the card coming off
       the deck goes to nobody and the same receiver takes the next one; once dealt, a card of
       an undecided box or one of the dealer's hidden cards leaves its hand and the next card
       of the deck takes its place (the coup is ``dealing`` until it does). The coup goes on.
    2. ``deciding``: each box :meth:`fold` s or :meth:`raise_` s, in any order. The last
       decision turns the dealer's cards and settles every box.
    3. ``settled``: :meth:`settle` gives one :class:`BoxSettled` per box, by box.

    Every action ``x`` has ``verify_x`` (raises :class:`RuleError` naming the field, changes
    nothing) and ``can_x``; ``x`` returns the records of what happened, in order.
    """

    def __init__(self, rules: CaribbeanRules, antes: Sequence[CaribbeanAnte]) -> None:
        if not isinstance(rules, CaribbeanRules):
            raise TypeError("rules must be a CaribbeanRules")
        if type(antes) not in (list, tuple) or not antes:
            raise RuleError("antes", "a coup needs a list of at least one ante")
        by_box: dict[int, CaribbeanAnte] = {}
        for ante in antes:
            if type(ante) is not CaribbeanAnte:
                raise RuleError("antes", "each ante must be a CaribbeanAnte")
            if ante.box in by_box:
                raise RuleError("box", f"box {ante.box} has two antes: one player per box")
            rules.check_ante(ante.ante_cents)
            by_box[ante.box] = ante
        self.rules = rules
        self._antes = [by_box[box] for box in sorted(by_box)]
        self._by_box = by_box
        self._cards: dict[int | None, list[str]] = {box: [] for box in sorted(by_box)}
        self._cards[None] = []
        self._order: list[int | None] = [*sorted(by_box), None] * CARDS_PER_HAND
        self._dealt: set[str] = set()
        self._next = 0  # place in ``_order`` of the next card of the regular deal
        self._replacing: list[tuple[int | None, int]] = []  # (receiver, place in hand) after a burn
        self._decisions: dict[int, bool] = {}  # box -> raised
        self._state = DEALING
        self._results: tuple[BoxSettled, ...] = ()

    # --- reading ---------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``"dealing"``, ``"deciding"`` or ``"settled"``."""
        return self._state

    def next_draw(self) -> int | str | None:
        """Who receives the next card: a box number, ``"dealer"``, or None when no card is due."""
        if self._state != DEALING:
            return None
        box = self._replacing[0][0] if self._replacing else self._order[self._next]
        return "dealer" if box is None else box

    @property
    def boxes(self) -> tuple[int, ...]:
        return tuple(ante.box for ante in self._antes)

    def cards(self, box: int) -> tuple[str, ...]:
        """The cards of ``box`` so far."""
        self._ante(box)
        return tuple(self._cards[box])

    @property
    def dealer_up(self) -> str | None:
        """The dealer's shown card, once dealt."""
        dealer = self._cards[None]
        return dealer[-1] if len(dealer) == CARDS_PER_HAND else None

    def undecided(self) -> tuple[int, ...]:
        """The boxes still to fold or raise, by box."""
        if self._state != DECIDING:
            return ()
        return tuple(ante.box for ante in self._antes if ante.box not in self._decisions)

    def _ante(self, box: object) -> CaribbeanAnte:
        ante = self._by_box.get(box) if is_int(box) else None  # type: ignore[call-overload]
        if ante is None:
            raise RuleError("box", f"no ante on box {box!r}")
        return ante

    @staticmethod
    def _can(verify: Any, *args: Any) -> bool:
        try:
            verify(*args)
        except RuleError:
            return False
        return True

    # --- dealing ---------------------------------------------------------------------

    def verify_deal(self, card: str) -> None:
        """Raises :class:`RuleError`: ``"state"`` (no card due), ``"card"`` (not a card, or
        already dealt in this coup: one deck holds each card once)."""
        if self._state != DEALING:
            raise RuleError("state", f"no card is due: the coup is {self._state}")
        code = parse_card(card).code
        if code in self._dealt:
            raise RuleError("card", f"{code} was already dealt in this coup: one deck holds each card once")

    def can_deal(self, card: str) -> bool:
        return self._can(self.verify_deal, card)

    def deal(self, card: str) -> list[Record]:
        """Give ``card`` to :meth:`next_draw`'s receiver."""
        self.verify_deal(card)
        self._dealt.add(card)
        if self._replacing:  # a burnt card's place, after the deal: the coup goes on deciding
            box, place = self._replacing.pop(0)
            self._cards[box][place] = card
            if not self._replacing:
                self._state = DECIDING
            return [CardDealt(box, card, "down", place)]
        box = self._order[self._next]
        self._next += 1
        hand = self._cards[box]
        hand.append(card)
        shown = box is None and len(hand) == CARDS_PER_HAND
        records: list[Record] = [CardDealt(box, card, "up" if shown else "down", len(hand) - 1)]
        if shown:
            self._state = DECIDING
            records.append(DealerShows(card))
        return records

    # --- a card exposed by mistake -------------------------------------------------------

    def _burn_place(self, card: str) -> tuple[int | None, int | None]:
        """Where ``card`` would be burnt from: ``(receiver, None)`` off the deck while dealing,
        ``(box or None, place)`` from a hand while deciding. Raises as :meth:`verify_burn`."""
        if self._state == SETTLED:
            raise RuleError("state", "the coup is settled: no card can be burnt")
        code = parse_card(card).code
        if self._state == DEALING and not self._replacing:
            if code in self._dealt:
                raise RuleError(
                    "card", f"{code} was already dealt in this coup: only the card coming off the deck is burnt"
                )
            return self._order[self._next], None
        if self._replacing:
            raise RuleError("state", "a burnt card's replacement is due first")
        for box, hand in self._cards.items():
            if code in hand:
                place = hand.index(code)
                if box is None and place == CARDS_PER_HAND - 1:
                    raise RuleError("card", f"{code} is the dealer's shown card: it is face up by rule")
                if box is not None and box in self._decisions:
                    raise RuleError("card", f"box {box} has decided on its cards: {code} stays in its hand")
                return box, place
        raise RuleError("card", f"{code} is in no hand of this coup")

    def verify_burn(self, card: str) -> None:
        """Raises :class:`RuleError`: ``"state"`` (the coup is settled, or a replacement is due),
        ``"card"`` (not a card; while dealing, one already dealt; while deciding, a card in no
        hand, the dealer's shown card, or a card of a box that has decided)."""
        self._burn_place(card)

    def can_burn(self, card: str) -> bool:
        return self._can(self.verify_burn, card)

    def burn(self, card: str) -> list[Record]:
        """Burn ``card``, exposed by mistake (sheet 001); the coup goes on with the next card
        of the deck in its place (:meth:`next_draw` names who takes it)."""
        box, place = self._burn_place(card)
        code = parse_card(card).code
        if place is None:
            self._dealt.add(code)  # off the deck, into the burn: it never reaches a hand
        else:
            self._cards[box][place] = ""
            self._replacing.append((box, place))
            self._state = DEALING
        return [CardBurnt(box, code, place)]

    # --- decisions -------------------------------------------------------------------

    def _verify_decision(self, box: int) -> CaribbeanAnte:
        if self._state != DECIDING:
            why = "the cards are still being dealt" if self._state == DEALING else "the coup is settled"
            raise RuleError("state", f"no decision now: {why}")
        ante = self._ante(box)
        if box in self._decisions:
            done = "raised" if self._decisions[box] else "folded"
            raise RuleError("box", f"box {box} has already {done}")
        return ante

    def verify_fold(self, box: int) -> None:
        """Raises :class:`RuleError`: ``"state"`` (not deciding), ``"box"`` (no ante there, or
        already decided)."""
        self._verify_decision(box)

    def can_fold(self, box: int) -> bool:
        return self._can(self.verify_fold, box)

    def fold(self, box: int) -> list[Record]:
        """``passe``: the box gives up its ante."""
        ante = self._verify_decision(box)
        self._decisions[box] = False
        records: list[Record] = [BoxDecided(box, ante.player, "fold", 0)]
        self._after_decision(records)
        return records

    def verify_raise(self, box: int, amount_cents: int | None = None) -> None:
        """Raises :class:`RuleError`: as :meth:`verify_fold`, and ``"amount_cents"`` when an
        amount is given and is not ``raise_multiple`` × the ante."""
        ante = self._verify_decision(box)
        expected = self.rules.raise_cents(ante.ante_cents)
        if amount_cents is not None and (not is_int(amount_cents) or amount_cents != expected):
            raise RuleError(
                "amount_cents",
                f"the raise is {self.rules.raise_multiple} × the ante: {expected} cents, got {amount_cents!r}",
            )

    def can_raise(self, box: int, amount_cents: int | None = None) -> bool:
        return self._can(self.verify_raise, box, amount_cents)

    def raise_(self, box: int, amount_cents: int | None = None) -> list[Record]:
        """``relance``: the box adds ``raise_multiple`` × its ante (``amount_cents``, when
        given, must be exactly that)."""
        self.verify_raise(box, amount_cents)
        ante = self._by_box[box]
        self._decisions[box] = True
        records: list[Record] = [BoxDecided(box, ante.player, "raise", self.rules.raise_cents(ante.ante_cents))]
        self._after_decision(records)
        return records

    def _after_decision(self, records: list[Record]) -> None:
        if len(self._decisions) < len(self._antes):
            return
        dealer_cards = tuple(self._cards[None])
        dealer = evaluate(dealer_cards)
        records.append(DealerRevealed(dealer_cards, dealer.category, dealer_qualifies(dealer)))
        results = []
        for ante in self._antes:
            player = evaluate(self._cards[ante.box])
            result = _settle(player, dealer, ante.ante_cents, self._decisions[ante.box], self.rules)
            results.append(BoxSettled(ante.box, ante.player, ante.ante_cents, result))
        self._results = tuple(results)
        records.extend(results)
        self._state = SETTLED

    # --- settlement ------------------------------------------------------------------

    def settle(self) -> tuple[BoxSettled, ...]:
        """Every box's settlement, by box; :class:`RuleError` ("state") before the end."""
        if self._state != SETTLED:
            raise RuleError("state", f"the coup is not over: it is {self._state}")
        return self._results
