"""Punto banco (baccarat, Atlantic City rules): the coup, the table's options, settlement,
exact odds and the shoe's history (bead plate, big road).

Source: ``RULES.md §Baccarat`` (sheet 002) and case C07 of ``cases/README.md``. Money is
integer cents; a payout that is not a whole cent is rounded down and the fraction recorded
(``RULES.md``, money paragraph).

Pure: no Django, no clock, no randomness. The cards come in as a sequence of codes in
dealing order (a shuffled :class:`~games.rules.shoe.ShoeOrder` from its current position, or
the cards a card-reading shoe reported): P1, B1, P2, B2, then the player's third card, then
the banker's.
"""

from collections.abc import Sequence
from dataclasses import dataclass, fields
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from itertools import product
from typing import Any

from basis.errors import LimitRefused, RuleError
from basis.money import format_cents
from basis.numbers import is_int

from .blackjack import to_data
from .cards import parse_card
from .chips import SHEET_CHIPS, ChipIncrements, OffChips, makeable
from .shoe_odds import stored_baccarat

__all__ = [
    "BET_KINDS",
    "BaccaratCoup",
    "BaccaratRules",
    "BelowMinimum",
    "OffChips",
    "SHEET_CHIPS",
    "Outcome",
    "Settlement",
    "bead_plate",
    "big_road",
    "card_value",
    "check_bet",
    "check_stake",
    "deal_coup",
    "exact_probabilities",
    "house_edge",
    "settle_bet",
    "to_data",
]

PLAYER, BANKER, TIE = "player", "banker", "tie"
BET_KINDS = (PLAYER, BANKER, TIE)
MAX_LIMIT_CENTS = 10**10  # a table limit above 100 million EUR is a typo

# Baccarat value of every card code: 10 and faces 0, ace 1, others face value.
_VALUES: dict[str, int] = {
    rank + suit: (1 if rank == "A" else 0 if rank in "TJQK" else int(rank))
    for rank in "23456789TJQKA"
    for suit in "SHDC"
}


def card_value(code: str) -> int:
    """0-9: ``T J Q K`` 0, ace 1, others face value. :class:`RuleError` (``"card"``) for a bad code."""
    value = _VALUES.get(code) if isinstance(code, str) else None
    if value is None:
        parse_card(code)  # raises RuleError("card", ...) with the standard message
    return value  # type: ignore[return-value]


# --- the coup ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class BaccaratCoup:
    """One coup, dealt by :func:`deal_coup`.

    ``player_cards`` / ``banker_cards``: the codes each hand received, in order (2 or 3).
    ``player_total`` / ``banker_total``: the sum of the values mod 10. ``winner``:
    ``"player"``, ``"banker"`` or ``"tie"``. ``player_draws`` / ``banker_draws``: whether the
    hand took a third card. ``natural``: either hand had 8 or 9 on two cards (nobody draws).
    ``cards_used``: 4-6, the cards taken from the front of the sequence; the rest stay undealt.
    """

    player_cards: tuple[str, ...]
    banker_cards: tuple[str, ...]
    player_total: int
    banker_total: int
    winner: str
    player_draws: bool
    banker_draws: bool
    natural: bool
    cards_used: int


def _banker_draws(banker: int, player_third: int | None) -> bool:
    """The banker's drawing rule (RULES.md §Baccarat). ``player_third`` is the value of the
    player's third card, None when the player stood."""
    if player_third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return player_third != 8
    if banker == 4:
        return 2 <= player_third <= 7
    if banker == 5:
        return 4 <= player_third <= 7
    if banker == 6:
        return 6 <= player_third <= 7
    return False  # 7 stands (8 and 9 are naturals and never get here)


_ORDINAL = ("first", "second", "third", "fourth", "fifth", "sixth")


def deal_coup(cards: Sequence[str]) -> BaccaratCoup:
    """Deal one coup of punto banco from ``cards`` (codes in dealing order: P1, B1, P2, B2,
    then third cards, the player's first), by the third-card rule of ``RULES.md §Baccarat``:

    - a natural (8 or 9 on two cards, either hand): no more cards;
    - the player draws on 0-5 and stands on 6-7;
    - if the player stood, the banker draws on 0-5 and stands on 6-7;
    - if the player drew, the banker draws on 0-2; on 3 unless the player's third card is an
      8; on 4 if it is 2-7; on 5 if 4-7; on 6 if 6-7; stands on 7.

    Only the cards the coup needs are read (and checked); any after them stay undealt, so a
    whole shoe may be passed. Raises :class:`RuleError`: field ``"card"`` (a bad code among
    those dealt), ``"cards"`` (the sequence runs out before the coup is complete).
    """
    values = _VALUES
    try:
        p1, b1, p2, b2 = cards[0], cards[1], cards[2], cards[3]
    except IndexError:
        raise RuleError("cards", f"a coup needs at least 4 cards, got {len(cards)}") from None
    try:
        player = (values[p1] + values[p2]) % 10
        banker = (values[b1] + values[b2]) % 10
    except (KeyError, TypeError):
        for code in (p1, b1, p2, b2):
            card_value(code)
        raise
    player_cards: tuple[str, ...] = (p1, p2)
    banker_cards: tuple[str, ...] = (b1, b2)
    used = 4
    natural = player >= 8 or banker >= 8
    player_draws = banker_draws = False
    if not natural:
        player_third = None
        if player <= 5:
            third = _next_card(cards, used)
            used += 1
            player_third = card_value(third)
            player = (player + player_third) % 10
            player_cards = (p1, p2, third)
            player_draws = True
        if _banker_draws(banker, player_third):
            third = _next_card(cards, used)
            used += 1
            banker = (banker + card_value(third)) % 10
            banker_cards = (b1, b2, third)
            banker_draws = True
    winner = PLAYER if player > banker else BANKER if banker > player else TIE
    return BaccaratCoup(player_cards, banker_cards, player, banker, winner, player_draws, banker_draws, natural, used)


def _next_card(cards: Sequence[str], index: int) -> str:
    try:
        return cards[index]
    except IndexError:
        raise RuleError("cards", f"the coup needs a {_ORDINAL[index]} card and the shoe has none") from None


# --- table options -------------------------------------------------------------------


class BelowMinimum(StrEnum):
    """What a bet under the table minimum gets (option ``below_minimum``)."""

    REJECT = "reject"  # the default
    RAISE = "raise"  # raised to the minimum (the sheet's online practice)


# The table's chips (option ``chip_cents``, ``off_chips``) are every game's: games.rules.chips.
chips_make = makeable


@dataclass(frozen=True)
class BaccaratRules:
    """Options of one punto banco table (``RULES.md §Baccarat``); defaults first, amounts in cents.

    - ``banker_commission_pct``: 5 (Atlantic City); 0 pays the banker 1:1 (the sheet's online
      casino). An integer 0-100.
    - ``tie_pays``: 8 (8:1); an integer 1-100.
    - ``min_bet_cents`` / ``max_bet_cents``: 500 / 30000 (5 EUR / 300 EUR, the sheet).
    - ``below_minimum``: ``reject`` | ``raise`` (to the minimum); see :func:`check_stake`.
    - ``reshuffle_every_coup``: false (a live shoe with a cut card) | true (a fresh shoe for
      every coup, the sheet's online casino). The service acts on it; the engine does not.
    - ``decks``: 8; 1-8 accepted.
    - ``chip_cents``: the table's chip values (sheet 002: 1, 5, 25, 100, 500 EUR); a stake is a
      sum of them. ``off_chips``: ``reject`` (400) | ``adjust`` (lowered to the largest sum of
      chips under it; then the minimum rule applies); see :func:`check_stake`.
    """

    banker_commission_pct: int = 5
    tie_pays: int = 8
    min_bet_cents: int = 500
    max_bet_cents: int = 30_000
    below_minimum: BelowMinimum = BelowMinimum.REJECT
    reshuffle_every_coup: bool = False
    decks: int = 8
    chip_cents: tuple[int, ...] | None = SHEET_CHIPS
    off_chips: OffChips = OffChips.REJECT

    def __post_init__(self) -> None:
        increments = ChipIncrements(self.chip_cents, self.off_chips)  # validates both
        object.__setattr__(self, "chip_cents", increments.chip_cents)
        object.__setattr__(self, "off_chips", increments.off_chips)
        bounds = {
            "banker_commission_pct": (0, 100),
            "tie_pays": (1, 100),
            "min_bet_cents": (1, MAX_LIMIT_CENTS),
            "max_bet_cents": (1, MAX_LIMIT_CENTS),
            "decks": (1, 8),
        }
        for name, (low, high) in bounds.items():
            value = getattr(self, name)
            if not is_int(value) or not low <= value <= high:
                raise RuleError(f"rules.{name}", f"must be an integer from {low} to {high}, got {value!r}")
        if self.min_bet_cents > self.max_bet_cents:
            raise RuleError("rules.min_bet_cents", "the minimum is above the maximum")
        try:
            object.__setattr__(self, "below_minimum", BelowMinimum(self.below_minimum))
        except ValueError:
            raise RuleError("rules.below_minimum", "must be 'reject' or 'raise'") from None
        if type(self.reshuffle_every_coup) is not bool:
            raise RuleError("rules.reshuffle_every_coup", "must be true or false")

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> "BaccaratRules":
        """Build from JSON options (as :meth:`to_dict` writes them); missing options take the
        default. Raises :class:`RuleError` naming ``rules.<option>``."""
        if options is None:
            options = {}
        if not isinstance(options, dict):
            raise RuleError("rules", "must be an object of table options")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known, key=str)
        if unknown:
            raise RuleError(f"rules.{unknown[0]}", f"unknown table option {unknown[0]!r}")
        return cls(**options)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe; ``BaccaratRules.from_dict(rules.to_dict()) == rules``."""
        data = {f.name: getattr(self, f.name) for f in fields(self)}
        data["below_minimum"] = self.below_minimum.value
        data["off_chips"] = self.off_chips.value
        data.update(self.chips.to_dict())
        return data

    @property
    def chips(self) -> ChipIncrements:
        """The table's chip increments (``games.rules.chips``)."""
        return ChipIncrements(self.chip_cents, self.off_chips)


_DEFAULT_RULES = BaccaratRules()


def _eur(cents: int) -> str:
    return format_cents(cents)  # with the casino's currency


def check_stake(rules: BaccaratRules, stake_cents: int) -> int:
    """The stake to take for a bet of ``stake_cents`` under the table's limits.

    Over ``max_bet_cents``: refused. Under ``min_bet_cents``: refused with ``below_minimum =
    reject``, raised to the minimum (the minimum is returned) with ``raise``. Otherwise the
    stake itself. Then a stake the table's chips cannot make (``chip_cents``) is refused (kind
    ``chip_increment``), or with ``off_chips = adjust`` lowered to the largest sum of chips
    under it (refused if that is under the minimum): :meth:`games.rules.chips.ChipIncrements.stake`.
    A patron's own lower maximum (self-limit) is the service's to apply.

    Raises :class:`RuleError` (field ``"stake_cents"``) with the reason.
    """
    if not is_int(stake_cents) or stake_cents <= 0:
        raise RuleError("stake_cents", f"must be a positive whole number of cents, got {stake_cents!r}")
    if stake_cents > rules.max_bet_cents:
        raise LimitRefused(
            "stake_cents",
            f"over the table maximum: {_eur(stake_cents)}, the maximum is {_eur(rules.max_bet_cents)}",
            "table_maximum",
        )
    if stake_cents < rules.min_bet_cents:
        if rules.below_minimum is BelowMinimum.RAISE:
            return rules.min_bet_cents
        raise LimitRefused(
            "stake_cents",
            f"{_eur(stake_cents)} is under the table minimum of {_eur(rules.min_bet_cents)}",
            "table_minimum",
        )
    lowered = rules.chips.stake(stake_cents)
    if lowered < rules.min_bet_cents:
        raise LimitRefused(
            "stake_cents",
            f"{_eur(stake_cents)} made of the table's chips is under the minimum of {_eur(rules.min_bet_cents)}",
            "table_minimum",
        )
    stake_cents = lowered
    return stake_cents


def check_bet(bet: object) -> str:
    """``bet`` if it is ``"player"``, ``"banker"`` or ``"tie"``; else :class:`RuleError` (``"bet"``)."""
    if not isinstance(bet, str) or bet not in BET_KINDS:
        raise RuleError("bet", f"unknown bet {bet!r}; one of player, banker, tie")
    return bet


# --- settlement ----------------------------------------------------------------------


class Outcome(StrEnum):
    WON = "won"
    LOST = "lost"
    PUSHED = "pushed"


@dataclass(frozen=True)
class Settlement:
    """The money result of one bet on one coup; every amount in integer cents.

    - ``return_cents``: back to the patron: stake + winnings when won, the stake when pushed,
      0 when lost.
    - ``winnings_cents``: ``return_cents - stake_cents`` when won, else 0.
    - ``house_cents``: the stake kept by the house when lost, else 0.
    - ``commission_cents``: on a winning banker bet, what the commission kept from an even-money
      payout: ``stake - winnings`` (it includes ``unpaid_fraction``); 0 otherwise. It is not a
      separate posting: the house simply pays ``winnings_cents``.
    - ``unpaid_fraction``: the exact winnings the rules give minus ``winnings_cents`` (< 1 cent),
      recorded per RULES.md (round down, record it); 0 unless a banker bet wins.
    """

    outcome: Outcome
    stake_cents: int
    return_cents: int
    winnings_cents: int
    house_cents: int
    commission_cents: int
    unpaid_fraction: Fraction


_ZERO = Fraction(0)


def settle_bet(bet: str, stake_cents: int, coup: BaccaratCoup, rules: BaccaratRules = _DEFAULT_RULES) -> Settlement:
    """Settle ``stake_cents`` on ``bet`` (``"player"``, ``"banker"`` or ``"tie"``) for ``coup``
    (``RULES.md §Baccarat``).

    - player: 1:1; banker: 1:1 less ``banker_commission_pct``; both push on a tie.
    - tie: ``tie_pays``:1, lost on any other result.

    Rounding (RULES.md money rule: the patron is paid down to the cent): a winning banker bet
    gets ``winnings = floor(stake × (100 − pct) / 100)``; the commission recorded is
    ``stake − winnings`` and the fraction of a cent cut off is ``unpaid_fraction``. Example:
    10.10 EUR at 5 % owes 9.595 EUR, pays 9.59, records commission 0.51 and 1/2 cent unpaid.

    The table limits are not checked here (:func:`check_stake` does, when the bet is placed).
    Raises :class:`RuleError`: field ``"bet"``, ``"stake_cents"`` (not an int > 0).
    """
    check_bet(bet)
    if not is_int(stake_cents) or stake_cents <= 0:
        raise RuleError("stake_cents", f"must be a positive whole number of cents, got {stake_cents!r}")
    if not isinstance(coup, BaccaratCoup):
        raise TypeError(f"coup must be a BaccaratCoup, got {coup!r}")
    winner = coup.winner
    if bet == TIE:
        if winner != TIE:
            return Settlement(Outcome.LOST, stake_cents, 0, 0, stake_cents, 0, _ZERO)
        winnings = stake_cents * rules.tie_pays
        return Settlement(Outcome.WON, stake_cents, stake_cents + winnings, winnings, 0, 0, _ZERO)
    if winner == TIE:
        return Settlement(Outcome.PUSHED, stake_cents, stake_cents, 0, 0, 0, _ZERO)
    if winner != bet:
        return Settlement(Outcome.LOST, stake_cents, 0, 0, stake_cents, 0, _ZERO)
    if bet == PLAYER:
        return Settlement(Outcome.WON, stake_cents, 2 * stake_cents, stake_cents, 0, 0, _ZERO)
    owed = Fraction(stake_cents * (100 - rules.banker_commission_pct), 100)
    winnings = owed.numerator // owed.denominator  # round down: RULES.md money rule
    return Settlement(
        Outcome.WON,
        stake_cents,
        stake_cents + winnings,
        winnings,
        0,
        stake_cents - winnings,
        owed - winnings,
    )


# --- exact odds ----------------------------------------------------------------------

# One card code per baccarat value, to enumerate values rather than the 52 cards.
_CODE_OF_VALUE = ("TS", "AS", "2S", "3S", "4S", "5S", "6S", "7S", "8S", "9S")


def exact_probabilities(decks: int = 8) -> dict[str, Fraction]:
    """Exact probabilities of ``"player"``, ``"banker"`` and ``"tie"`` for a coup from the
    top of a freshly shuffled shoe of ``decks`` decks (8: banker 0.458597, player 0.446247,
    tie 0.095156).

    Exhaustive enumeration **through** :func:`deal_coup`: over the 10 baccarat values (a
    shoe holds 16 × decks cards worth 0 and 4 × decks of each value 1-9), every sequence of
    exactly the cards the coup uses (4, 5 or 6) is dealt by :func:`deal_coup` and weighted by
    its probability of being drawn without replacement, ``Π (count left) / (cards left)``.
    A sequence is extended by one card only when :func:`deal_coup` reads a card past its end
    (seen by dealing it with a value-0 card appended: a coup reads card k only on what cards
    0..k-1 show, so the filler is read exactly when the coup needs one more card).
    376,000 calls of :func:`deal_coup` (leaves and the coups that read one card more), about a
    second of CPU a shoe. Every shoe of 1-8 decks, so computed, is stored in
    :mod:`games.rules.shoe_odds` and read from there (``tests/unit/test_shoe_odds.py``
    recomputes some and compares exactly); a shoe not stored is computed and cached in memory.
    A fresh dict is returned each call.

    Raises :class:`RuleError` (field ``"decks"``) unless ``decks`` is an integer 1-8.
    """
    if not is_int(decks) or not 1 <= decks <= 8:
        raise RuleError("decks", f"must be an integer from 1 to 8, got {decks!r}")
    return dict(stored_baccarat(decks) or _exact_probabilities(decks))


@lru_cache(maxsize=8)
def _exact_probabilities(decks: int) -> dict[str, Fraction]:
    """The enumeration behind :func:`exact_probabilities` (what ``shoe_odds`` stores)."""
    counts = [16 * decks] + [4 * decks] * 9
    total = 52 * decks
    # numerators[winner][k]: sum over k-card sequences of Π(count left); the denominator of
    # a k-card sequence is the falling factorial total·(total-1)···(total-k+1).
    numerators = {winner: [0] * 7 for winner in BET_KINDS}
    filler = (_CODE_OF_VALUE[0],) * 2  # enough for the coup to read one card past the sequence

    def walk(codes: tuple[str, ...], left: list[int], weight: int) -> None:
        coup = deal_coup(codes + filler)
        if coup.cards_used <= len(codes):
            numerators[coup.winner][len(codes)] += weight
            return
        for value in range(10):
            if left[value]:
                left[value] -= 1
                walk(codes + (_CODE_OF_VALUE[value],), left, weight * (left[value] + 1))
                left[value] += 1

    for first_four in product(range(10), repeat=4):
        left = counts[:]
        weight = 1
        for value in first_four:
            weight *= left[value]
            left[value] -= 1
        if weight:
            walk(tuple(_CODE_OF_VALUE[v] for v in first_four), left, weight)

    falling = [1] * 7
    for k in range(1, 7):
        falling[k] = falling[k - 1] * (total - k + 1)
    return {
        winner: sum(Fraction(n, falling[k]) for k, n in enumerate(nums) if n) for winner, nums in numerators.items()
    }


def house_edge(bet: str, rules: BaccaratRules = _DEFAULT_RULES) -> Fraction:
    """The house's exact expected take per unit staked on ``bet``, from
    :func:`exact_probabilities` for ``rules.decks``, on exact (unrounded) amounts.

    player: P(banker) − P(player) (1.24 %); banker: P(player) − (1 − pct/100)·P(banker)
    (1.06 % at 5 %); tie: 1 − (tie_pays + 1)·P(tie) (14.36 % at 8:1). Rounding a banker win
    down to the cent adds at most one cent per winning banker bet on top (0 on stakes that
    are multiples of 20 cents at 5 %). Raises :class:`RuleError` (``"bet"``).
    """
    check_bet(bet)
    p = exact_probabilities(rules.decks)
    if bet == PLAYER:
        return p[BANKER] - p[PLAYER]
    if bet == BANKER:
        return p[PLAYER] - Fraction(100 - rules.banker_commission_pct, 100) * p[BANKER]
    return 1 - (rules.tie_pays + 1) * p[TIE]


# --- history -------------------------------------------------------------------------

# Sheet 002, "Statistiques": "La main du banquier est indiquée par la lettre "B", celle du joueur
# par la lettre "J" et une égalité est indiquée par un tiret "-"."
BANKER_MARK, PLAYER_MARK, TIE_MARK = "B", "J", "-"
_MARK = {BANKER: BANKER_MARK, PLAYER: PLAYER_MARK, TIE: TIE_MARK}


def _marks(winners: Sequence[str]) -> list[str]:
    if isinstance(winners, str | bytes):
        raise RuleError("winners", "must be a list of coup winners")
    marks = []
    for i, winner in enumerate(winners):
        mark = _MARK.get(winner) if isinstance(winner, str) else None
        if mark is None:
            raise RuleError("winners", f"item {i}: {winner!r} is not a winner; one of player, banker, tie")
        marks.append(mark)
    return marks


def bead_plate(winners: Sequence[str], rows: int = 6) -> list[list[str]]:
    """The bead plate of a shoe: one mark per coup (``"B"`` banker, ``"J"`` joueur, ``"-"``
    tie, as sheet 002 marks them) in coup order, filling columns of ``rows`` marks top to
    bottom, left to right.

    ``winners`` are :attr:`BaccaratCoup.winner` values, oldest first. Returns the columns, each
    a list of marks top to bottom; the last may be shorter. ``bead_plate(["banker"] * 7) ==
    [["B"] * 6, ["B"]]``. Raises :class:`RuleError` (``"winners"``, ``"rows"``).
    """
    if not is_int(rows) or rows < 1:
        raise RuleError("rows", f"must be a positive integer, got {rows!r}")
    marks = _marks(winners)
    return [marks[i : i + rows] for i in range(0, len(marks), rows)]


def big_road(winners: Sequence[str]) -> list[list[str]]:
    """The big road of a shoe: sheet 002's "Statistiques" (``RULES.md §Baccarat``).

    "La main du banquier est indiquée par la lettre "B", celle du joueur par la lettre "J" et
    une égalité est indiquée par un tiret "-". Les victoires consécutives [...] sont affichées
    dans la même colonne. Une nouvelle colonne est affichée quand le banquier ou le joueur
    commence une nouvelle bande gagnante. Une égalité [...] est donc toujours affichée dans la
    même colonne comme le gagnant précédent."

    One mark per coup, in columns: a new column each time banker or player starts a new run;
    a tie is a ``"-"`` of its own in the current column. Ties dealt before the first banker or
    player coup open the first column, which that coup then continues. Columns are not bent at
    the sixth row (the "dragon tail" is a display matter): a run of ten bankers is one column.

    ``big_road(["banker", "banker", "tie", "player", "tie", "tie", "banker"]) ==
    [["B", "B", "-"], ["J", "-", "-"], ["B"]]``. Raises :class:`RuleError` (``"winners"``).
    """
    columns: list[list[str]] = []
    run: str | None = None  # the current column's winner (None while only ties were dealt)
    for mark in _marks(winners):
        if columns and (mark == TIE_MARK or run in (None, mark)):
            columns[-1].append(mark)
        else:
            columns.append([mark])
        if mark != TIE_MARK:
            run = mark
    return columns
