"""Classic five-card stud: players against each other (``RULES.md §Classic five-card stud``, sheet 000).

How a hand runs:

1. Antes: with ``rules.ante`` (the default) each player puts the base stake in the pot ("les
   joueurs placent leur mise dans la case en face d'eux", sheet 000). Seats are numbered 1-7
   from the dealer's left; cards are dealt in that order.
2. Round 1: a hole card (face down) to each seat, then an up card to each. Rounds 2 and 3: an
   up card to each seat still in. Round 4: the last card, face down. Five cards in all.
3. After each deal, a betting round. The seat showing the highest up card opens it (ties: the
   one nearest the dealer's left, i.e. the lowest seat number); play goes on clockwise, up the
   seat numbers. With nothing to call a player checks (``parole``), bets or folds; facing a bet
   he calls, raises or folds. What a player puts in during a round is capped at ``caps[r]`` ×
   the base stake (10, 20, 40, 80 × by default); everyone who stays puts in the same amount.
4. Table stakes: a player cannot put in more than the stack he sat down with; one who cannot
   match a bet calls for all he has (all in) and competes only for what he matched: the rest
   goes to side pots (:meth:`StudHand.pots`).
5. The hand ends when one player is left (he takes every pot, unseen) or after round 4 at the
   showdown: each pot goes to the best hand among the players who put in all of it
   (``RULES.md §Hand ranking``), split on equal hands. The house's rake comes off each pot
   first.

Choices where RULES.md and the sheet are silent, stated once:

- "Highest up card" (``rules.opener = "highest_card"``, the default): the single highest up
  card of each seat decides (suits do not rank); ``"best_showing"`` takes the up cards as a
  poker hand instead (trips > pair > high card, then ranks), the usual rule elsewhere. Only
  players who can still act (not folded, not all in) open. A round where fewer than two
  players can act has no betting.
- Sizes: the first bet of a round is at least the base stake; a raise is by at least the last
  bet or raise of the round (amounts given as the raiser's new total for the round,
  ``raise_to``). A raise that reaches the round's cap, or that puts the raiser all in, may be
  smaller. An all-in raise smaller than that does not reopen the betting for players who have
  already acted since the last full raise: they may only call or fold. A player may not raise
  when every other player still in is all in.
- Chips nobody matched (the top bettor's excess over the next largest contribution) are not in
  a pot; they go back to him at the end (``uncalled_cents``), unraked.
- Rake: ``rules.rake_pct`` % of each pot, rounded **down** to the cent (the fraction is left
  to the pot, and recorded as ``rake_owed``), at most ``rules.rake_cap_cents`` for the hand
  (main pot first). It is taken whether or not the hand reaches a showdown. A rake policy can
  be passed in instead (``StudHand(..., rake=f)``).
- Odd cents: a pot split between n winners gives each ``amount // n``; the ``amount % n``
  cents left over go one each to the winners nearest the dealer's left (lowest seat numbers
  first). A split policy can be passed in instead (``StudHand(..., split=f)``).

Every ``x`` action has ``verify_x`` (raises :class:`RuleError` naming the field at fault,
changes nothing) and ``can_x``; ``x`` returns the records of what happened (natural events),
the action first. :attr:`StudHand.log` holds every record since the antes.

Pure: no Django, no clock, no randomness.
"""

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from basis.errors import RuleError
from basis.numbers import is_int

from .blackjack import to_data
from .cards import parse_card
from .poker_hands import HandRank, evaluate

__all__ = [
    "ACTIONS",
    "OPENERS",
    "Acted",
    "AntePosted",
    "CardDealt",
    "HandSettled",
    "Pot",
    "PotAward",
    "RoundClosed",
    "RoundOpened",
    "SeatView",
    "ShownHand",
    "Showdown",
    "StudHand",
    "StudLine",
    "StudRules",
    "StudSeat",
    "Turn",
    "rake_percent",
    "split_odd_cents_left_of_dealer",
    "to_data",
]

SEATS = range(1, 8)  # a table of 7 places (sheet 000)
ROUNDS = 4
MAX_CAP = 10_000  # a round's cap, in base stakes
ACTIONS = ("check", "bet", "call", "raise", "fold")
OPENERS = ("highest_card", "best_showing")
HOUSE = "house"  # the party of the rake line
MAX_LIMIT_CENTS = 10**10
MAX_STACK_CENTS = 10**12
_RANK_VALUE = {rank: value for value, rank in enumerate("23456789TJQKA", start=2)}

RakePolicy = Callable[[int], Fraction | int]
SplitPolicy = Callable[[int, tuple[int, ...]], Sequence[int]]


def _percent(value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, int | str | Fraction):
        raise RuleError("rules.rake_pct", f"must be a percentage such as 0, 5 or '2.5', got {value!r}")
    try:
        pct = Fraction(value) if not isinstance(value, str) or len(value) <= 20 else None
    except (ValueError, ZeroDivisionError):
        pct = None
    if pct is None or not 0 <= pct < 100 or pct.denominator > 10_000:
        raise RuleError(
            "rules.rake_pct", f"must be a percentage from 0 to below 100, to 1/10000 of a percent, got {value!r}"
        )
    return pct


@dataclass(frozen=True)
class StudRules:
    """Options of one classic stud table; defaults first.

    - ``base_stake_cents``: the base stake (``la mise``): the ante, the smallest bet, and the
      unit of the caps (100).
    - ``caps``: the most a player puts in during rounds 1-4, as multiples of the base stake
      (10, 20, 40, 80: sheet 000).
    - ``ante``: whether each player antes the base stake before the deal (true).
    - ``rake_pct``: the house's take, in % of each pot, rounded down (0: RULES.md's default).
      Given as an integer, a Fraction or a decimal text (``"2.5"``); stored as a Fraction.
    - ``rake_cap_cents``: None, or the most the rake takes from one hand.
    - ``opener``: ``"highest_card"`` (default) or ``"best_showing"``; see the module docstring.
    """

    base_stake_cents: int = 100
    caps: tuple[int, ...] = (10, 20, 40, 80)
    ante: bool = True
    rake_pct: Fraction = Fraction(0)
    rake_cap_cents: int | None = None
    opener: str = "highest_card"

    def __post_init__(self) -> None:
        base = self.base_stake_cents
        if not is_int(base) or not 1 <= base <= MAX_LIMIT_CENTS:
            raise RuleError("rules.base_stake_cents", f"must be an integer from 1 to {MAX_LIMIT_CENTS}, got {base!r}")
        caps = self.caps
        if isinstance(caps, list):
            caps = tuple(caps)
        if type(caps) is not tuple or len(caps) != ROUNDS or not all(is_int(c) and 1 <= c <= MAX_CAP for c in caps):
            raise RuleError(
                "rules.caps", f"must be {ROUNDS} integers from 1 to {MAX_CAP} (multiples of the base stake)"
            )
        object.__setattr__(self, "caps", caps)
        if type(self.ante) is not bool:
            raise RuleError("rules.ante", "must be true or false")
        object.__setattr__(self, "rake_pct", _percent(self.rake_pct))
        cap = self.rake_cap_cents
        if cap is not None and (not is_int(cap) or not 0 <= cap <= MAX_LIMIT_CENTS):
            raise RuleError("rules.rake_cap_cents", f"must be null or an integer from 0 to {MAX_LIMIT_CENTS}")
        if self.opener not in OPENERS:
            raise RuleError("rules.opener", f"must be one of {', '.join(OPENERS)}, got {self.opener!r}")

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "StudRules":
        """Build from JSON options (as :meth:`to_dict` writes them); missing options take the
        default. Raises :class:`RuleError` naming ``rules.<option>``."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise RuleError("rules", "must be an object of table options")
        unknown = sorted(set(options) - set(cls.__dataclass_fields__), key=str)
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        values = dict(options)
        if "caps" in values and not isinstance(values["caps"], list | tuple):
            raise RuleError("rules.caps", f"must be a list of {ROUNDS} integers")
        if "rake_pct" in values and isinstance(values["rake_pct"], float):
            values["rake_pct"] = str(values["rake_pct"])  # JSON 2.5 → exactly 5/2 through its text
        return cls(**values)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``StudRules.from_dict(rules.to_dict()) == rules``. ``rake_pct`` is
        written as a fraction text (``"5/2"`` for 2.5 %)."""
        return {
            "base_stake_cents": self.base_stake_cents,
            "caps": list(self.caps),
            "ante": self.ante,
            "rake_pct": str(self.rake_pct),
            "rake_cap_cents": self.rake_cap_cents,
            "opener": self.opener,
        }

    def cap_cents(self, round_number: int) -> int:
        """The most a player puts in during betting round ``round_number`` (1-4)."""
        return self.caps[round_number - 1] * self.base_stake_cents


def rake_percent(pct: Fraction) -> RakePolicy:
    """The rake policy ``pct`` % of a pot, exactly (the hand rounds it down)."""

    def rake(pot_cents: int) -> Fraction:
        return Fraction(pot_cents) * pct / 100

    return rake


def split_odd_cents_left_of_dealer(amount_cents: int, winners: tuple[int, ...]) -> list[int]:
    """Shares of a split pot, in the order of ``winners`` (seat order from the dealer's left):
    equal shares, the odd cents one each to the first winners."""
    share, odd = divmod(amount_cents, len(winners))
    return [share + (1 if i < odd else 0) for i in range(len(winners))]


# --- inputs, records, views ----------------------------------------------------------------


@dataclass(frozen=True)
class StudSeat:
    """A player at seat 1-7 (seat 1 is at the dealer's left) with the chips he plays with
    (table stakes: nothing can be added during the hand)."""

    seat: int
    player: str
    stack_cents: int

    def __post_init__(self) -> None:
        if not is_int(self.seat) or self.seat not in SEATS:
            raise RuleError("seat", f"must be an integer from 1 to 7, got {self.seat!r}")
        if not isinstance(self.player, str) or not self.player:
            raise RuleError("player", "must be a non-empty string")
        if not is_int(self.stack_cents) or not 0 < self.stack_cents <= MAX_STACK_CENTS:
            raise RuleError("stack_cents", f"must be a positive integer of cents, got {self.stack_cents!r}")


@dataclass(frozen=True, slots=True)
class AntePosted:
    seat: int
    player: str
    amount_cents: int
    stack_cents: int


@dataclass(frozen=True, slots=True)
class CardDealt:
    """``card`` went to ``seat`` in round ``round``; ``face``: ``"hole"`` (round 1, down),
    ``"up"``, or ``"down"`` (the last card)."""

    seat: int
    card: str
    face: str
    round: int


@dataclass(frozen=True, slots=True)
class RoundOpened:
    """Betting round ``round`` opens with ``opener`` (the highest up card: ``showing`` are his
    up cards); nobody puts in more than ``cap_cents`` this round."""

    round: int
    opener: int
    showing: tuple[str, ...]
    cap_cents: int


@dataclass(frozen=True, slots=True)
class Acted:
    """``seat`` checked, bet, called, raised or folded. ``amount_cents``: chips he put in with
    this action; ``round_total_cents``: his total for the round after it; ``level_cents``: the
    amount to match after it; ``stack_cents``: what he has left."""

    seat: int
    player: str
    action: str
    amount_cents: int
    round_total_cents: int
    level_cents: int
    stack_cents: int
    all_in: bool


@dataclass(frozen=True, slots=True)
class RoundClosed:
    """Betting round ``round`` is over (``betting`` false: fewer than two players could act,
    so there was none); ``pot_cents``: every chip put in so far."""

    round: int
    betting: bool
    pot_cents: int


@dataclass(frozen=True, slots=True)
class ShownHand:
    seat: int
    player: str
    cards: tuple[str, ...]
    category: str
    ranks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Showdown:
    """The hands of the players still in, by seat."""

    hands: tuple[ShownHand, ...]


@dataclass(frozen=True, slots=True)
class Pot:
    """A pot as it stands: ``index`` 0 is the main pot, then the side pots; ``eligible``: the
    seats that put in all of it and have not folded."""

    index: int
    amount_cents: int
    eligible: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PotAward:
    """Who won pot ``index``. ``rake_owed`` is the exact rake of the policy (a Fraction of
    cents); ``rake_cents`` what was taken (rounded down, then held to the hand's cap).
    ``shares``: ``((seat, cents), ...)`` of ``amount_cents - rake_cents``, in seat order;
    ``odd_cents``: the cents that could not be split evenly (given per the split policy)."""

    index: int
    amount_cents: int
    eligible: tuple[int, ...]
    winners: tuple[int, ...]
    rake_owed: Fraction
    rake_cents: int
    shares: tuple[tuple[int, int], ...]
    odd_cents: int


@dataclass(frozen=True, slots=True)
class StudLine:
    """What one party paid and received in the hand, in cents. Seats: ``put_in_cents`` (antes
    and bets), ``uncalled_cents`` (chips nobody matched, given back), ``won_cents`` (shares of
    pots); ``net_cents = uncalled + won - put_in``. The house's line has ``seat`` None, party
    ``"house"``, ``won_cents`` = ``net_cents`` = the rake. The lines' nets sum to zero."""

    seat: int | None
    party: str
    put_in_cents: int
    uncalled_cents: int
    won_cents: int
    net_cents: int


@dataclass(frozen=True, slots=True)
class HandSettled:
    """The hand's money: the pots and who won them, one line per seat (by seat) then the
    house's, and the total rake. ``showdown`` false: everyone else folded."""

    showdown: bool
    pots: tuple[PotAward, ...]
    lines: tuple[StudLine, ...]
    rake_cents: int


@dataclass(frozen=True, slots=True)
class SeatView:
    """A read-only picture of one seat. ``cards`` in dealing order (hole card first);
    ``up_cards`` the ones everybody sees."""

    seat: int
    player: str
    stack_cents: int
    cards: tuple[str, ...]
    up_cards: tuple[str, ...]
    put_in_cents: int
    round_total_cents: int
    folded: bool
    all_in: bool


@dataclass(frozen=True, slots=True)
class Turn:
    """The decision the hand waits for: ``seat`` may do one of ``actions``. ``to_call_cents``:
    what a call puts in (less if all in); a bet or raise names the new round total, from
    ``min_total_cents`` to ``max_total_cents`` (the cap, or all in); both None when neither
    bet nor raise is allowed."""

    seat: int
    player: str
    round: int
    actions: frozenset[str]
    level_cents: int
    to_call_cents: int
    min_total_cents: int | None
    max_total_cents: int | None
    cap_cents: int


Record = AntePosted | CardDealt | RoundOpened | Acted | RoundClosed | Showdown | HandSettled

DEALING, BETTING, SETTLED = "dealing", "betting", "settled"


class _Seat:
    __slots__ = ("seat", "player", "stack", "cards", "faces", "folded", "put_in", "in_round", "acted", "seen_raise")

    def __init__(self, seat: StudSeat) -> None:
        self.seat = seat.seat
        self.player = seat.player
        self.stack = seat.stack_cents
        self.cards: list[str] = []
        self.faces: list[str] = []
        self.folded = False
        self.put_in = 0
        self.in_round = 0
        self.acted = False
        self.seen_raise = 0  # the full-raise count when he last acted

    @property
    def all_in(self) -> bool:
        return self.stack == 0

    @property
    def can_act(self) -> bool:
        return not self.folded and self.stack > 0

    def up_cards(self) -> tuple[str, ...]:
        return tuple(card for card, face in zip(self.cards, self.faces, strict=True) if face == "up")

    def put(self, amount: int) -> None:
        self.stack -= amount
        self.put_in += amount
        self.in_round += amount


def _showing_key(up_cards: tuple[str, ...], opener: str) -> tuple[Any, ...]:
    ranks = sorted((_RANK_VALUE[card[0]] for card in up_cards), reverse=True)
    if opener == "highest_card":
        return (ranks[0],)
    groups = sorted(((n, r) for r, n in Counter(ranks).items()), reverse=True)
    return (tuple(n for n, _ in groups), tuple(r for _, r in groups))


def _split_pots(contributions: dict[int, int], live: set[int]) -> tuple[list[Pot], dict[int, int]]:
    """The pots (main first) of ``contributions`` (seat -> cents put in), ``live`` being the
    seats not folded; and the uncalled excess (seat -> cents) of the top contributor."""
    amounts = dict(contributions)
    uncalled: dict[int, int] = {}
    ordered = sorted(amounts.values(), reverse=True)
    if len(ordered) > 1 and ordered[0] > ordered[1]:
        top = max(amounts, key=amounts.__getitem__)
        uncalled[top] = ordered[0] - ordered[1]
        amounts[top] = ordered[1]
    # The pot boundaries are the live players' totals: each all-in short of the others closes
    # a pot that only those who matched it can win (a folded player's chips stay in the pots
    # he paid into).
    levels = sorted({amounts[seat] for seat in live} | {max(amounts.values(), default=0)})
    pots: list[Pot] = []
    previous = 0
    for level in levels:
        if level <= previous:
            continue
        amount = sum(min(paid, level) - min(paid, previous) for paid in amounts.values())
        eligible = tuple(seat for seat in sorted(live) if amounts[seat] >= level)
        if not eligible:  # only folded money above the last live total: the last live pot takes it
            eligible = pots[-1].eligible if pots else tuple(sorted(live))
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].index, pots[-1].amount_cents + amount, eligible)
        elif amount:
            pots.append(Pot(len(pots), amount, eligible))
        previous = level
    return pots, uncalled


class StudHand:
    """One hand of classic five-card stud (see the module docstring for the rules).

    ``StudHand(rules, seats, *, rake=None, split=None)``: 2-7 :class:`StudSeat` (different
    seats and players, each stack at least the base stake); ``rake(pot_cents) -> Fraction``
    replaces ``rules.rake_pct`` (the result is rounded down and held to ``rules.rake_cap_cents``);
    ``split(amount_cents, winners) -> shares`` replaces
    :func:`split_odd_cents_left_of_dealer`. The antes are posted at once (:attr:`log`).

    Then :meth:`deal` a card whenever :meth:`next_draw` names a seat, and act (:meth:`check`,
    :meth:`bet`, :meth:`call`, :meth:`raise_to`, :meth:`fold`, or :meth:`act` by name) when
    :meth:`awaiting` names one, until ``state == "settled"``; then :meth:`settle`.
    ``state``: ``"dealing"`` | ``"betting"`` | ``"settled"``.
    """

    def __init__(
        self,
        rules: StudRules,
        seats: Sequence[StudSeat],
        *,
        rake: RakePolicy | None = None,
        split: SplitPolicy | None = None,
    ) -> None:
        if not isinstance(rules, StudRules):
            raise TypeError("rules must be a StudRules")
        if type(seats) not in (list, tuple) or not 2 <= len(seats) <= len(SEATS):
            raise RuleError("seats", f"a hand needs a list of 2 to {len(SEATS)} seats")
        if not all(type(seat) is StudSeat for seat in seats):
            raise RuleError("seats", "each seat must be a StudSeat")
        if len({seat.seat for seat in seats}) != len(seats):
            raise RuleError("seat", "two players at one seat")
        if len({seat.player for seat in seats}) != len(seats):
            raise RuleError("player", "a player sits at two seats")
        for seat in seats:
            if seat.stack_cents < rules.base_stake_cents:
                raise RuleError("stack_cents", f"seat {seat.seat} has {seat.stack_cents} cents, under the base stake")
        self.rules = rules
        self._rake = rake if rake is not None else rake_percent(rules.rake_pct)
        self._split = split if split is not None else split_odd_cents_left_of_dealer
        self._seats = [_Seat(seat) for seat in sorted(seats, key=lambda s: s.seat)]
        self._by_number = {seat.seat: seat for seat in self._seats}
        self._dealt: set[str] = set()
        self._log: list[Record] = []
        self._round = 1
        self._state = DEALING
        self._draws: list[tuple[_Seat, str]] = [(s, "hole") for s in self._seats] + [(s, "up") for s in self._seats]
        self._to_act: _Seat | None = None
        self._level = 0
        self._min_raise = rules.base_stake_cents
        self._raises = 0  # full bets and raises this round
        self._settlement: HandSettled | None = None
        if rules.ante:
            for seat in self._seats:
                seat.put(rules.base_stake_cents)
                self._log.append(AntePosted(seat.seat, seat.player, rules.base_stake_cents, seat.stack))
            for seat in self._seats:
                seat.in_round = 0

    # --- reading ---------------------------------------------------------------------

    @property
    def state(self) -> str:
        return self._state

    @property
    def round(self) -> int:
        """The current round, 1-4."""
        return self._round

    @property
    def log(self) -> tuple[Record, ...]:
        """Every record so far, the antes first."""
        return tuple(self._log)

    def next_draw(self) -> tuple[int, str] | None:
        """``(seat, face)`` of the next card to deal (face ``"hole"``, ``"up"`` or ``"down"``),
        or None when no card is due."""
        if self._state != DEALING:
            return None
        seat, face = self._draws[0]
        return seat.seat, face

    def seats(self) -> tuple[SeatView, ...]:
        return tuple(self._view(seat) for seat in self._seats)

    def seat(self, seat: int) -> SeatView:
        return self._view(self._seat(seat))

    @staticmethod
    def _view(seat: _Seat) -> SeatView:
        return SeatView(
            seat.seat,
            seat.player,
            seat.stack,
            tuple(seat.cards),
            seat.up_cards(),
            seat.put_in,
            seat.in_round,
            seat.folded,
            seat.all_in,
        )

    def awaiting(self) -> Turn | None:
        """The seat to act and what it may do; None while cards are due or after the end."""
        seat = self._to_act
        if self._state != BETTING or seat is None:
            return None
        cap = self.rules.cap_cents(self._round)
        to_call = min(self._level - seat.in_round, seat.stack)
        actions = {"fold"}
        low = high = None
        if self._level == seat.in_round:
            actions.add("check")
        else:
            actions.add("call")
        if self._level == 0:
            actions.add("bet")
            high = min(cap, seat.stack)
            low = min(self.rules.base_stake_cents, high)
        elif self._raise_refusal(seat) is None:
            actions.add("raise")
            high = min(cap, seat.in_round + seat.stack)
            low = min(self._level + self._min_raise, high)
        return Turn(seat.seat, seat.player, self._round, frozenset(actions), self._level, to_call, low, high, cap)

    def pots(self) -> tuple[Pot, ...]:
        """The pots as they stand (main pot first), every chip put in so far, less what only
        the top bettor has put in and nobody has matched yet."""
        return tuple(_split_pots(self._contributions(), self._live())[0])

    def _contributions(self) -> dict[int, int]:
        return {seat.seat: seat.put_in for seat in self._seats}

    def _live(self) -> set[int]:
        return {seat.seat for seat in self._seats if not seat.folded}

    def _seat(self, seat: object) -> _Seat:
        found = self._by_number.get(seat) if is_int(seat) else None  # type: ignore[call-overload]
        if found is None:
            raise RuleError("seat", f"nobody sits at seat {seat!r}")
        return found

    @staticmethod
    def _can(verify: Any, *args: Any) -> bool:
        try:
            verify(*args)
        except RuleError:
            return False
        return True

    def _check_not_over(self) -> None:
        if self._state == SETTLED:
            settled = self._settlement
            how = "after the showdown" if settled is not None and settled.showdown else "everyone else folded"
            raise RuleError("state", f"the hand is over ({how})")

    # --- dealing ---------------------------------------------------------------------

    def verify_deal(self, card: str) -> None:
        """Raises :class:`RuleError`: ``"state"`` (no card due), ``"card"`` (not a card, or
        already dealt in this hand: one deck holds each card once)."""
        self._check_not_over()
        if self._state != DEALING:
            raise RuleError("state", f"no card is due: seat {self._to_act.seat if self._to_act else '?'} is to act")
        code = parse_card(card).code
        if code in self._dealt:
            raise RuleError("card", f"{code} was already dealt from this deck: one deck holds each card once")

    def can_deal(self, card: str) -> bool:
        return self._can(self.verify_deal, card)

    def deal(self, card: str) -> list[Record]:
        """Give ``card`` to :meth:`next_draw`'s seat; after the last card of a round, the
        betting round opens (or is skipped, and the next cards are due)."""
        self.verify_deal(card)
        seat, face = self._draws.pop(0)
        self._dealt.add(card)
        seat.cards.append(card)
        seat.faces.append(face)
        records: list[Record] = [CardDealt(seat.seat, card, face, self._round)]
        if not self._draws:
            self._open_round(records)
        self._log.extend(records)
        return records

    def _open_round(self, records: list[Record]) -> None:
        for seat in self._seats:
            seat.in_round = 0
            seat.acted = False
            seat.seen_raise = 0
        self._level = 0
        self._min_raise = self.rules.base_stake_cents
        self._raises = 0
        able = [seat for seat in self._seats if seat.can_act]
        if len(able) < 2:
            records.append(RoundClosed(self._round, False, self._pot_total()))
            self._next_round(records)
            return
        # max keeps the first of equals: the seat nearest the dealer's left.
        opener = max(able, key=lambda s: _showing_key(s.up_cards(), self.rules.opener))
        self._to_act = opener
        self._state = BETTING
        records.append(RoundOpened(self._round, opener.seat, opener.up_cards(), self.rules.cap_cents(self._round)))

    def _next_round(self, records: list[Record]) -> None:
        self._to_act = None
        if self._round == ROUNDS:
            self._finish(records)
            return
        self._round += 1
        face = "down" if self._round == ROUNDS else "up"
        self._draws = [(seat, face) for seat in self._seats if not seat.folded]
        self._state = DEALING

    def _pot_total(self) -> int:
        return sum(seat.put_in for seat in self._seats)

    # --- betting ---------------------------------------------------------------------

    def _verify_turn(self, seat: int) -> _Seat:
        self._check_not_over()
        if self._state != BETTING:
            raise RuleError("state", f"no betting now: the cards of round {self._round} are being dealt")
        player = self._seat(seat)
        to_act = self._to_act
        assert to_act is not None
        if player is not to_act:
            raise RuleError("seat", f"not seat {seat}'s turn: seat {to_act.seat} is to act")
        return player

    def _check_amount(self, amount: object) -> int:
        if not is_int(amount) or amount <= 0:  # type: ignore[operator]
            raise RuleError("amount_cents", f"must be a positive integer of cents, got {amount!r}")
        return amount  # type: ignore[return-value]

    def _raise_refusal(self, seat: _Seat) -> str | None:
        """Why ``seat`` (facing a bet) may not raise at all, or None."""
        if seat.acted and seat.seen_raise == self._raises:
            return "a short all-in raise does not reopen the betting for a player who has acted: call or fold"
        if not any(other.can_act for other in self._seats if other is not seat):
            return "every other player still in is all in: call or fold"
        if seat.stack <= self._level - seat.in_round:
            return "not enough chips to raise: call (all in) or fold"
        cap = self.rules.cap_cents(self._round)
        if self._level >= cap:
            return f"the round's cap of {cap} cents is reached: call or fold"
        return None

    def verify_check(self, seat: int) -> None:
        """Raises :class:`RuleError`: ``"state"`` (no betting now, or the hand is over),
        ``"seat"`` (nobody there, or not his turn), ``"action"`` (a bet is pending)."""
        player = self._verify_turn(seat)
        if player.in_round < self._level:
            raise RuleError(
                "action",
                f"a bet is pending: {self._level - player.in_round} cents to call; call, raise or fold",
            )

    def can_check(self, seat: int) -> bool:
        return self._can(self.verify_check, seat)

    def check(self, seat: int) -> list[Record]:
        """``parole``: nothing to call, the player passes the turn and stays in."""
        self.verify_check(seat)
        return self._apply(self._by_number[seat], "check", 0)

    def verify_bet(self, seat: int, amount_cents: int) -> None:
        """Raises :class:`RuleError`: as :meth:`verify_check`; ``"action"`` (there is already a
        bet: raise); ``"amount_cents"`` (not a positive integer, over the round's cap, more than
        his stack, or under the base stake without being all in)."""
        player = self._verify_turn(seat)
        if self._level > 0:
            raise RuleError("action", f"there is already a bet of {self._level} cents: call, raise or fold")
        amount = self._check_amount(amount_cents)
        cap = self.rules.cap_cents(self._round)
        if amount > cap:
            raise RuleError("amount_cents", f"{amount} cents is over round {self._round}'s cap of {cap} cents")
        if amount > player.stack:
            raise RuleError("amount_cents", f"table stakes: seat {seat} has only {player.stack} cents")
        base = self.rules.base_stake_cents
        if amount < base and amount != player.stack:
            raise RuleError("amount_cents", f"a bet is at least the base stake of {base} cents (less only all in)")

    def can_bet(self, seat: int, amount_cents: int) -> bool:
        return self._can(self.verify_bet, seat, amount_cents)

    def bet(self, seat: int, amount_cents: int) -> list[Record]:
        """The first bet of the round, ``amount_cents``."""
        self.verify_bet(seat, amount_cents)
        return self._apply(self._by_number[seat], "bet", amount_cents)

    def verify_call(self, seat: int) -> None:
        """Raises :class:`RuleError`: as :meth:`verify_check`; ``"action"`` (nothing to call)."""
        player = self._verify_turn(seat)
        if player.in_round == self._level:
            raise RuleError("action", "nothing to call: check or bet")

    def can_call(self, seat: int) -> bool:
        return self._can(self.verify_call, seat)

    def call(self, seat: int) -> list[Record]:
        """Match the bet, or put in all he has if that is less (all in)."""
        self.verify_call(seat)
        player = self._by_number[seat]
        return self._apply(player, "call", min(self._level - player.in_round, player.stack))

    def verify_raise_to(self, seat: int, amount_cents: int) -> None:
        """``amount_cents`` is the raiser's new total for the round. Raises
        :class:`RuleError`: as :meth:`verify_check`; ``"action"`` (no bet to raise, the betting
        was not reopened for him, everyone else is all in, the cap is reached);
        ``"amount_cents"`` (not above the bet, over the round's cap, more than his stack, or a
        raise of the wrong size: by less than the last bet or raise, unless to the cap or all in)."""
        player = self._verify_turn(seat)
        if self._level == 0:
            raise RuleError("action", "no bet to raise: check or bet")
        refusal = self._raise_refusal(player)
        if refusal is not None:
            raise RuleError("action", refusal)
        amount = self._check_amount(amount_cents)
        if amount <= self._level:
            raise RuleError("amount_cents", f"a raise goes above the bet of {self._level} cents, got {amount}")
        cap = self.rules.cap_cents(self._round)
        if amount > cap:
            raise RuleError("amount_cents", f"{amount} cents is over round {self._round}'s cap of {cap} cents")
        all_in = player.in_round + player.stack
        if amount > all_in:
            raise RuleError("amount_cents", f"table stakes: seat {seat} can go to {all_in} cents at most")
        if amount - self._level < self._min_raise and amount not in (cap, all_in):
            raise RuleError(
                "amount_cents",
                f"a raise of the wrong size: raise by at least {self._min_raise} cents "
                f"(to {self._level + self._min_raise}), or to the cap of {cap}",
            )

    def can_raise_to(self, seat: int, amount_cents: int) -> bool:
        return self._can(self.verify_raise_to, seat, amount_cents)

    def raise_to(self, seat: int, amount_cents: int) -> list[Record]:
        """Raise: the player's total for the round becomes ``amount_cents``."""
        self.verify_raise_to(seat, amount_cents)
        player = self._by_number[seat]
        return self._apply(player, "raise", amount_cents - player.in_round)

    def verify_fold(self, seat: int) -> None:
        """Raises :class:`RuleError`: ``"state"`` (no betting now, or the hand is over: no fold
        after the showdown), ``"seat"`` (nobody there, or not his turn)."""
        self._verify_turn(seat)

    def can_fold(self, seat: int) -> bool:
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> list[Record]:
        """``passe``: the player gives up the hand and what he has put in."""
        self.verify_fold(seat)
        return self._apply(self._by_number[seat], "fold", 0)

    def verify_act(self, seat: int, action: str, amount_cents: int | None = None) -> None:
        """:meth:`act`'s checks: ``"action"`` for an unknown action or an amount where none
        goes (check, call, fold), then those of the named action."""
        if action == "parole":
            action = "check"
        if action not in ACTIONS:
            raise RuleError("action", f"must be one of {', '.join(ACTIONS)} (or parole), got {action!r}")
        if action in ("bet", "raise"):
            verify = self.verify_bet if action == "bet" else self.verify_raise_to
            verify(seat, amount_cents)  # type: ignore[arg-type]
            return
        if amount_cents is not None:
            raise RuleError("amount_cents", f"a {action} takes no amount")
        getattr(self, f"verify_{action}")(seat)

    def can_act(self, seat: int, action: str, amount_cents: int | None = None) -> bool:
        return self._can(self.verify_act, seat, action, amount_cents)

    def act(self, seat: int, action: str, amount_cents: int | None = None) -> list[Record]:
        """One action by name: ``check`` (or ``parole``), ``bet`` (amount), ``call``, ``raise``
        (the new round total), ``fold``: what an event replays."""
        self.verify_act(seat, action, amount_cents)
        if action == "parole":
            action = "check"
        if action == "bet":
            return self.bet(seat, amount_cents)  # type: ignore[arg-type]
        if action == "raise":
            return self.raise_to(seat, amount_cents)  # type: ignore[arg-type]
        return getattr(self, action)(seat)  # type: ignore[no-any-return]

    def _apply(self, player: _Seat, action: str, amount: int) -> list[Record]:
        if action == "fold":
            player.folded = True
        elif amount:
            increase = player.in_round + amount - self._level
            player.put(amount)
            if action == "bet":
                # Every player faces the first bet, so it opens the betting to all; the next
                # raise is by at least its size (the base stake after a short all-in bet).
                self._raises += 1
                self._min_raise = max(self._min_raise, amount)
            elif action == "raise":
                # A full raise (or one to the cap, after which nobody raises) reopens the
                # betting and sets the next raise's minimum; a short all-in does neither.
                if increase >= self._min_raise:
                    self._min_raise = increase
                    self._raises += 1
                elif player.in_round == self.rules.cap_cents(self._round):
                    self._raises += 1
            self._level = max(self._level, player.in_round)
        player.acted = True
        player.seen_raise = self._raises
        records: list[Record] = [
            Acted(
                player.seat,
                player.player,
                action,
                amount,
                player.in_round,
                self._level,
                player.stack,
                player.all_in,
            )
        ]
        self._advance(player, records)
        self._log.extend(records)
        return records

    def _advance(self, player: _Seat, records: list[Record]) -> None:
        live = [seat for seat in self._seats if not seat.folded]
        if len(live) == 1:
            records.append(RoundClosed(self._round, True, self._pot_total()))
            self._to_act = None
            self._finish(records)
            return
        start = self._seats.index(player)
        count = len(self._seats)
        for step in range(1, count + 1):
            seat = self._seats[(start + step) % count]
            if seat.can_act and (not seat.acted or seat.in_round < self._level):
                self._to_act = seat
                return
        records.append(RoundClosed(self._round, True, self._pot_total()))
        self._next_round(records)

    # --- the end ---------------------------------------------------------------------

    def _finish(self, records: list[Record]) -> None:
        live = [seat for seat in self._seats if not seat.folded]
        showdown = len(live) > 1
        ranks: dict[int, HandRank] = {}
        if showdown:
            shown = []
            for seat in live:
                rank = ranks[seat.seat] = evaluate(seat.cards)
                shown.append(ShownHand(seat.seat, seat.player, tuple(seat.cards), rank.category, rank.ranks))
            records.append(Showdown(tuple(shown)))
        pots, uncalled = _split_pots(self._contributions(), {seat.seat for seat in live})
        awards = []
        rake_left = self.rules.rake_cap_cents
        won: dict[int, int] = dict.fromkeys(self._by_number, 0)
        for pot in pots:
            owed = Fraction(self._rake(pot.amount_cents))
            if not 0 <= owed <= pot.amount_cents:
                raise ValueError(f"the rake policy asked {owed} cents of a pot of {pot.amount_cents}")
            rake = owed.numerator // owed.denominator  # rounded down: money rule
            if rake_left is not None:
                rake = min(rake, rake_left)
                rake_left -= rake
            if showdown:
                best = max(ranks[seat] for seat in pot.eligible)
                winners = tuple(seat for seat in pot.eligible if ranks[seat] == best)
            else:
                winners = (live[0].seat,)
            amount = pot.amount_cents - rake
            shares = tuple(self._split(amount, winners))
            if len(shares) != len(winners) or sum(shares) != amount or min(shares) < 0:
                raise ValueError(f"the split policy gave {shares} for {amount} cents among {winners}")
            for seat, share in zip(winners, shares, strict=True):
                won[seat] += share
            awards.append(
                PotAward(
                    pot.index,
                    pot.amount_cents,
                    pot.eligible,
                    winners,
                    owed,
                    rake,
                    tuple(zip(winners, shares, strict=True)),
                    amount % len(winners),
                )
            )
        lines = []
        for seat in self._seats:
            back = uncalled.get(seat.seat, 0)
            lines.append(
                StudLine(seat.seat, seat.player, seat.put_in, back, won[seat.seat], back + won[seat.seat] - seat.put_in)
            )
            seat.stack += back + won[seat.seat]
        rake_total = sum(award.rake_cents for award in awards)
        lines.append(StudLine(None, HOUSE, 0, 0, rake_total, rake_total))
        self._settlement = HandSettled(showdown, tuple(awards), tuple(lines), rake_total)
        records.append(self._settlement)
        self._state = SETTLED

    def settle(self) -> HandSettled:
        """The hand's settlement once it is over; :class:`RuleError` ("state") before."""
        if self._settlement is None:
            raise RuleError("state", "the hand is not over")
        return self._settlement
