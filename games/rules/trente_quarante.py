"""Trente-et-quarante: the two rows of a coup, settlement of the four even bets with prison,
and the exact odds of a coup from a fresh 6-deck shoe.

Source: ``RULES.md §Trente-et-quarante`` (sheet 003) and ``RULES.md §Prison bets``. Money is
integer cents; every bet pays 1:1, so no payout is ever a fraction of a cent.

Pure: no Django, no clock, no randomness. The cards come in as a sequence of codes in dealing
order (a shuffled :class:`~games.rules.shoe.ShoeOrder` from its current position, or the cards
dealt by hand and entered by the dealer): the first row (Noir), then the second (Rouge).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from math import comb, factorial

from basis.errors import RuleError

from .blackjack import to_data
from .cards import parse_card
from .prison import CoupResult, PrisonOutcome, PrisonRules, resolve
from .roulette import DoublePrison
from .shoe_odds import stored_trente_quarante

__all__ = [
    "BETS",
    "DoublePrison",
    "Outcome",
    "Settlement",
    "TQCoup",
    "card_points",
    "check_bet",
    "deal_rows",
    "exact_probabilities",
    "settle_bet",
    "to_data",
]

NOIR, ROUGE, COULEUR, INVERSE = "noir", "rouge", "couleur", "inverse"
REFAIT, APRES = "refait", "apres"
BETS = (ROUGE, NOIR, COULEUR, INVERSE)
ROW_TARGET = 31  # a row is dealt until its points reach 31 or more (at most 40)
MAX_STAKE_CENTS = 10**12  # the API's cap on an amount

# Points of every card code: ace 1, faces 10, others face value (RULES.md §Trente-et-quarante).
_POINTS: dict[str, int] = {
    rank + suit: (1 if rank == "A" else 10 if rank in "TJQK" else int(rank))
    for rank in "23456789TJQKA"
    for suit in "SHDC"
}
# Spades and clubs are black (noir), hearts and diamonds red (rouge).
_COLOUR: dict[str, str] = {code: NOIR if code[1] in "SC" else ROUGE for code in _POINTS}


def card_points(code: str) -> int:
    """1-10: ace 1, ``T J Q K`` 10, others face value. :class:`RuleError` (``"card"``) for a bad code."""
    points = _POINTS.get(code) if isinstance(code, str) else None
    if points is None:
        parse_card(code)  # raises RuleError("card", ...) with the standard message
    return points  # type: ignore[return-value]


# --- the coup ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TQCoup:
    """One coup, dealt by :func:`deal_rows`.

    ``noir_row`` / ``rouge_row``: the codes of the first and second rows, in order.
    ``noir_points`` / ``rouge_points``: 31-40. ``result``: ``"noir"`` or ``"rouge"`` (the row
    closer to 31, i.e. with fewer points, wins its colour), ``"refait"`` (equal points other
    than 31: the coup is void) or ``"apres"`` (31-31: every bet goes to prison).
    ``couleur_inverse``: ``"couleur"`` when the first card of the first row has the winning
    row's colour, else ``"inverse"``; None on a refait or an après. ``first_card_colour``:
    ``"noir"`` (spades, clubs) or ``"rouge"`` (hearts, diamonds). ``cards_used``: the cards
    taken from the front of the sequence; the rest stay undealt.
    """

    noir_row: tuple[str, ...]
    rouge_row: tuple[str, ...]
    noir_points: int
    rouge_points: int
    result: str
    couleur_inverse: str | None
    first_card_colour: str
    cards_used: int


def _deal_row(cards: Sequence[str], start: int, name: str) -> tuple[tuple[str, ...], int]:
    points = _POINTS
    index, total = start, 0
    while total < ROW_TARGET:
        try:
            card = cards[index]
        except IndexError:
            raise RuleError("cards", f"the {name} row stops at {total} points: the shoe has no more cards") from None
        value = points.get(card) if isinstance(card, str) else None
        total += value if value is not None else card_points(card)
        index += 1
    return tuple(cards[start:index]), total


def deal_rows(cards: Sequence[str]) -> TQCoup:
    """Deal one coup from ``cards`` (``RULES.md §Trente-et-quarante``): the first row (Noir)
    card by card until its points reach 31 or more, then the second row (Rouge) the same way.

    Only the cards the coup needs are read (and checked); any after them stay undealt, so a
    whole shoe may be passed. Raises :class:`RuleError`: field ``"card"`` (a bad code among
    those dealt), ``"cards"`` (the sequence runs out before both rows reach 31).
    """
    noir_row, noir = _deal_row(cards, 0, "first (noir)")
    rouge_row, rouge = _deal_row(cards, len(noir_row), "second (rouge)")
    first_colour = _COLOUR[noir_row[0]]
    if noir == rouge:
        result = APRES if noir == ROW_TARGET else REFAIT
        couleur_inverse = None
    else:
        result = NOIR if noir < rouge else ROUGE
        couleur_inverse = COULEUR if first_colour == result else INVERSE
    return TQCoup(
        noir_row, rouge_row, noir, rouge, result, couleur_inverse, first_colour, len(noir_row) + len(rouge_row)
    )


# --- bets and settlement -------------------------------------------------------------


def check_bet(bet: object) -> str:
    """``bet`` if it is one of ``rouge``, ``noir``, ``couleur``, ``inverse``; else
    :class:`RuleError` (``"bet"``). There is no tie bet at trente-et-quarante."""
    if isinstance(bet, str) and bet in BETS:
        return bet
    if bet == "tie":
        raise RuleError("bet", "trente-et-quarante has no tie bet: bet rouge, noir, couleur or inverse")
    raise RuleError("bet", f"unknown bet {bet!r}; one of rouge, noir, couleur, inverse")


class Outcome(StrEnum):
    WON = "won"
    LOST = "lost"
    REFAIT = "refait"  # void coup: the stake is the patron's again, to leave, withdraw or move
    IMPRISONED = "imprisoned"
    RELEASED = "released"


@dataclass(frozen=True)
class Settlement:
    """The money result of one bet on one coup; every amount in integer cents.

    - ``return_cents``: back to the patron: twice the stake when won; the stake when released
      from prison or on a refait (the coup is void: the stake is his again, and he may leave it
      for the next coup, withdraw it or move it); 0 when lost or imprisoned.
    - ``winnings_cents``: the stake when won, else 0.
    - ``house_cents``: the stake when lost, else 0. An imprisoned stake is neither returned
      nor kept: it stays on the layout.
    - ``unpaid_fraction``: always 0 (every bet pays 1:1); kept for the same record shape as
      the other games.
    - ``prison_level_after``: 0 = decided, n >= 1 = in prison at level n.
    """

    outcome: Outcome
    stake_cents: int
    return_cents: int
    winnings_cents: int
    house_cents: int
    unpaid_fraction: Fraction
    prison_level_after: int


_ZERO = Fraction(0)


def _coup_result(bet: str, coup: TQCoup) -> CoupResult:
    """What ``coup`` does to ``bet`` when it is free."""
    if coup.result == APRES:
        return CoupResult.PRISON_EVENT
    if coup.result == REFAIT:
        return CoupResult.VOID
    won = coup.result == bet if bet in (NOIR, ROUGE) else coup.couleur_inverse == bet
    return CoupResult.WON if won else CoupResult.LOST


def settle_bet(
    bet: str,
    stake_cents: int,
    coup: TQCoup,
    prison_level: int = 0,
    double_prison: DoublePrison | str = DoublePrison.LOSE,
) -> Settlement:
    """Settle ``stake_cents`` on ``bet`` (rouge, noir, couleur, inverse) for ``coup``.

    A free bet (``prison_level`` 0): won 1:1 or lost; on a refait the outcome is ``refait``
    (stake returned, nothing won or lost); on an après it is ``imprisoned`` at level 1
    (``RULES.md §Trente-et-quarante``). A bet in prison (level >= 1) follows
    :func:`games.rules.prison.resolve` with the table's ``double_prison``: a win releases it
    (stake returned, no winnings) or, at level n > 1 (``deeper``), takes it to level n - 1; a
    loss loses it; a refait leaves it at its level; another après applies ``double_prison``.

    Raises :class:`RuleError`: field ``"bet"`` (a tie bet does not exist), ``"stake_cents"``
    (not an int > 0), ``"prison_level"``, ``"rules.double_prison"``.
    """
    check_bet(bet)
    if type(stake_cents) is not int or not 0 < stake_cents <= MAX_STAKE_CENTS:
        raise RuleError("stake_cents", f"must be a positive whole number of cents, got {stake_cents!r}")
    if not isinstance(coup, TQCoup):
        raise TypeError(f"coup must be a TQCoup, got {coup!r}")
    if type(prison_level) is not int or prison_level < 0:
        raise RuleError("prison_level", f"must be an integer >= 0, got {prison_level!r}")
    prison = PrisonRules(double_prison=double_prison)  # validates the option even when unused
    event = _coup_result(bet, coup)
    if prison_level == 0:
        if event is CoupResult.WON:
            return Settlement(Outcome.WON, stake_cents, 2 * stake_cents, stake_cents, 0, _ZERO, 0)
        if event is CoupResult.LOST:
            return Settlement(Outcome.LOST, stake_cents, 0, 0, stake_cents, _ZERO, 0)
        if event is CoupResult.VOID:
            return Settlement(Outcome.REFAIT, stake_cents, stake_cents, 0, 0, _ZERO, 0)
    step = resolve(prison_level, event, prison)
    if step.outcome is PrisonOutcome.RELEASED:
        return Settlement(Outcome.RELEASED, stake_cents, stake_cents, 0, 0, _ZERO, 0)
    if step.outcome is PrisonOutcome.LOST:
        return Settlement(Outcome.LOST, stake_cents, 0, 0, stake_cents, _ZERO, 0)
    return Settlement(Outcome.IMPRISONED, stake_cents, 0, 0, 0, _ZERO, step.level_after)


# --- exact odds ----------------------------------------------------------------------


def exact_probabilities(decks: int = 6) -> dict[str, Fraction]:
    """Exact probabilities of ``"noir"``, ``"rouge"``, ``"refait"`` and ``"apres"`` for a coup
    from the top of a freshly shuffled shoe of ``decks`` decks (6: noir = rouge = 0.445201,
    refait 0.087708, après 0.021891). Read from :mod:`games.rules.shoe_odds`, which holds
    every shoe of 1-8 decks as computed by :func:`_exact_probabilities` (0.4-2.6 s of CPU a
    shoe, so no process computes them; ``tests/unit/test_shoe_odds.py`` recomputes some and
    compares exactly); computed and cached in memory for a shoe not stored. A fresh dict is
    returned each call. See :func:`_row_totals` for the method.

    Raises :class:`RuleError` (field ``"decks"``) unless ``decks`` is an integer 1-8.
    """
    if type(decks) is not int or not 1 <= decks <= 8:
        raise RuleError("decks", f"must be an integer from 1 to 8, got {decks!r}")
    return dict(stored_trente_quarante(decks) or _exact_probabilities(decks))


@lru_cache(maxsize=8)
def _exact_probabilities(decks: int) -> dict[str, Fraction]:
    """The computation behind :func:`exact_probabilities` (what ``shoe_odds`` stores)."""
    joint = _row_totals([0] + [4 * decks] * 9 + [16 * decks])
    probabilities = dict.fromkeys((NOIR, ROUGE, REFAIT, APRES), Fraction(0))
    for (noir, rouge), p in joint.items():
        if noir == rouge:
            probabilities[APRES if noir == ROW_TARGET else REFAIT] += p
        else:
            probabilities[NOIR if noir < rouge else ROUGE] += p
    return probabilities


def _row_totals(counts: Sequence[int]) -> dict[tuple[int, int], Fraction]:
    """The exact joint distribution of the two rows' points, ``{(noir, rouge): p}``, for a
    coup from the top of a shuffled shoe holding ``counts[v]`` cards worth ``v`` points
    (``counts[0]`` unused). Probability lost to a shoe too small to finish both rows is missing
    from the result.

    Method: enumeration over point values with without-replacement weights, organised as a
    generating function so that it takes seconds instead of days.

    1. A row is valid iff the points of all its cards but the last are <= 30 and the total is
       >= 31 (points are positive, so every shorter prefix is below 31 too). So a row is a
       *set* of prefix cards (any order) plus a last card ``c``.
    2. The probability of a sequence of values drawn without replacement depends only on its
       multiset, so P(prefix A, c1, prefix B, c2) = P(c1, c2, A, B): the last cards may be
       drawn first, and the prefixes come from the shoe less those two cards.
    3. For a shoe of ``N_v`` cards of each value, the number of ways to pick the two prefixes as
       sets of distinct cards, ``a_v`` and ``b_v`` of value ``v``, is the coefficient of
       ``Π_v X_v^a_v Y_v^b_v`` in ``G = Π_v (1 + X_v + Y_v)^N_v``. With ``X_v = x^v·u`` and
       ``Y_v = y^v·w`` the coefficient of ``x^s1 u^n1 y^s2 w^n2`` counts the pairs of prefix
       sets of points s1, s2 and sizes n1, n2; only s1, s2 <= 30 matter, so ``G`` is computed
       modulo the monomials beyond 30 (an ideal, so truncating at every step is exact).
       Each of the n1! orders of a prefix set is equally likely and a sequence of n cards
       has probability 1 / (T)_n (falling factorial of the shoe size T), so the pair of
       prefixes weighs ``count · n1! · n2! / (T - 2)_(n1+n2)`` after the last cards, and
       ``N_c1 (N_c2 - [c1 = c2]) / (T (T-1))`` for the last cards themselves.
    4. The shoe less c1 and c2 has the generating function ``G / ((1 + X_c1 + Y_c1)(1 + X_c2 +
       Y_c2))``: computed by dividing ``G`` (power-series division in the truncated ring), so
       ``G`` is built once, not once per pair of last cards.

    Representation: for each (s1, n1) the (s2, n2) coefficients are packed into one Python
    integer, one slot of ``W`` bits per (s2, n2) (``slot = s2·32 + n2``), wide enough for the
    largest coefficient (a multinomial coefficient of T), so adding, shifting (multiplying by
    ``Y_v``) and masking (truncating) operate on all of them at once without any carry
    reaching a kept slot. Every slot of every intermediate is a count >= 0, so subtractions in
    the division never borrow.
    """
    counts = list(counts)
    total_cards = sum(counts)
    limit = ROW_TARGET - 1  # prefix points <= 30
    slots = 32  # n2 <= s2 <= 30 < 32: (s2, n2) -> s2 * 32 + n2 never wraps in the kept region
    kept = (limit + 1) * slots
    largest = max(
        factorial(total_cards) // (factorial(a) * factorial(b) * factorial(total_cards - a - b))
        for a in range(min(limit, total_cards) + 1)
        for b in range(min(limit, total_cards - a) + 1)
    )
    width = -(-(largest.bit_length() + 5) // 8) * 8  # +5: the division's partial sums (x16)
    width_bytes = width // 8
    mask = (1 << (width * kept)) - 1

    # G = Π_v (1 + X_v + Y_v)^N_v, with (1 + X + Y)^N = Σ_a C(N, a) X^a (1 + Y)^(N - a):
    # R_k = (1 + Y)^k·P is summed directly for the largest a, then R_(k+1) = R_k + Y·R_k.
    table: dict[tuple[int, int], int] = {(0, 0): 1}  # (s1, n1) -> packed (s2, n2) coefficients
    for value in range(1, 11):
        n_value = counts[value]
        y_shift = width * (value * slots + 1)
        grown: dict[tuple[int, int], int] = {}
        for (s1, n1), packed in table.items():
            a_max = min((limit - s1) // value, n_value)
            k = n_value - a_max
            ladder, term = 0, packed
            for b in range(min(limit // value, k) + 1):
                if b:
                    term = (term << y_shift) & mask
                    if not term:
                        break
                ladder += comb(k, b) * term
            for a in range(a_max, -1, -1):
                key = (s1 + value * a, n1 + a)
                grown[key] = grown.get(key, 0) + comb(n_value, a) * ladder
                if a:
                    ladder = (ladder + (ladder << y_shift)) & mask
        table = grown

    def divide(series: dict[tuple[int, int], int], value: int) -> dict[tuple[int, int], int]:
        # H = series / (1 + X + Y) by rows of increasing s1: H[x1]·(1 + Y) = series[x1] - H[x1 - X],
        # and 1 / (1 + Y) = (1 - Y)(1 + Y^2)(1 + Y^4)(1 + Y^8)(1 + Y^16) modulo Y^32.
        y_shift = width * (value * slots + 1)
        quotient: dict[tuple[int, int], int] = {}
        for key in sorted(series):
            s1, n1 = key
            rest = series[key] - quotient.get((s1 - value, n1 - 1), 0)
            power = 2
            while power * value <= limit:
                rest = (rest + (rest << (power * y_shift))) & mask
                power *= 2
            packed = rest - ((rest << y_shift) & mask)
            if packed:
                quotient[key] = packed
        return quotient

    steps = min(2 * limit + 2, total_cards)  # at most 30 + 30 prefix cards and the two last cards
    falling = [1]
    for k in range(1, steps + 1):
        falling.append(falling[-1] * (total_cards - k + 1))
    # n1! n2! / (T)_(n1+n2+2), over the common denominator (T)_steps (0: more cards than the shoe).
    order_weight = [
        [
            factorial(n1) * factorial(n2) * (falling[steps] // falling[n1 + n2 + 2]) if n1 + n2 + 2 <= steps else 0
            for n2 in range(limit + 1)
        ]
        for n1 in range(limit + 1)
    ]
    joint: dict[tuple[int, int], int] = {}
    for c1 in range(1, 11):
        if not counts[c1]:
            continue
        without_c1 = divide(table, c1)
        for c2 in range(c1, 11):
            if counts[c2] - (c1 == c2) <= 0:
                continue
            without_both = divide(without_c1, c2)
            for last1, last2 in ((c1, c2), (c2, c1)) if c1 != c2 else ((c1, c2),):
                last_cards = counts[last1] * (counts[last2] - (last1 == last2))
                for (s1, n1), packed in without_both.items():
                    if s1 < ROW_TARGET - last1:
                        continue
                    data = packed.to_bytes(width_bytes * kept, "little")
                    weights = order_weight[n1]
                    for s2 in range(ROW_TARGET - last2, limit + 1):
                        subtotal = 0
                        for n2 in range(-(-s2 // 10), s2 + 1):
                            offset = (s2 * slots + n2) * width_bytes
                            count = int.from_bytes(data[offset : offset + width_bytes], "little")
                            if count:
                                subtotal += count * weights[n2]
                        if subtotal:
                            key = (s1 + last1, s2 + last2)
                            joint[key] = joint.get(key, 0) + last_cards * subtotal
    return {key: Fraction(numerator, falling[steps]) for key, numerator in sorted(joint.items())}


# --- the dealer's announcement (sheet 003) ---------------------------------------------------

_UNITS = ("quarante", "un", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf")


def announcement(coup: TQCoup) -> dict[str, str]:
    """What the dealer says, as sheet 003 has him say it: each row's point by its unit only
    (33 → "trois"; 40, whose unit is 0, is called "quarante": our choice, the sheet is silent),
    then the two winning chances ("Noir et Couleur", "Rouge et Inverse", ...), or "refait"
    on equal points, or "un après" on 31-31.

    Returns ``{"noir": ..., "rouge": ..., "winners": ..., "text": ...}``; ``text`` is the whole
    call, e.g. ``"trois … sept : Noir et Couleur"``.
    """
    noir, rouge = _UNITS[coup.noir_points % 10], _UNITS[coup.rouge_points % 10]
    if coup.result == APRES:
        winners = "un après"
    elif coup.result == REFAIT:
        winners = "refait"
    else:
        winners = f"{coup.result.capitalize()} et {(coup.couleur_inverse or '').capitalize()}"
    return {"noir": noir, "rouge": rouge, "winners": winners, "text": f"{noir} … {rouge} : {winners}"}
