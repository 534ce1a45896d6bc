"""The outcome distribution of one bet, per unit staked, and hence its mean and variance.

Game protection compares a table's (or a patron's) win with its theoretical win in standard
deviations: over independent bets the variance of the house's win is Σ stake² × σ², σ² the
variance per unit staked of each bet's outcome under the table's rule set. This module gives
those distributions exactly (``Fraction``), from the same odds as ``games.rules.house_edges``:

- English roulette: a bet covering n numbers paid k to 1 (``RULES.md §Roulette``): +k with
  probability n/37, −1 otherwise. The even chances on zero follow the table's zero rule: la
  partage −1/2; lost −1; en prison the stake is held and later released (0) or lost (−1):
  with ``double_prison`` ``lose`` released 18/37, ``stay`` released 1/2, ``deeper`` released
  with the probability V, the root below 1 of (1/37)·V² − V + 18/37 (irrational: to double
  precision, as ``house_edges.tq_edge`` does for ``deeper``).
- Punto banco: the exact probabilities of the shoe (``baccarat.exact_probabilities``): player
  +1 / −1 / 0 on a tie; banker +(1 − commission) / −1 / 0; tie +tie_pays / −1.
- Trente-et-quarante: per coup played, +1 (P(win)), −1 (P(loss) = P(win)), 0 on a refait
  (void), and on an après the bet goes to prison, later released (0) with V or lost (−1) with
  1 − V, V as ``house_edges.tq_edge``: ``lose`` P(win)/(1 − P(refait)), ``stay`` 1/2,
  ``deeper`` the iteration's root (double precision).
- Caribbean stud, per ante, ante and raise together under the product's strategy (raise with
  a pair or better or ace-king): the enumeration's counts (``caribbean_edge.OUTCOMES``) give
  every (player hand, dealer hand) pair's result: fold −1; dealer not qualified +1 (the raise
  pushes); player higher +1 + R × odds(hand); tie 0; dealer higher −(1 + R); R the raise
  multiple. Exact, no enumeration at run time. The pay-out cap (``capped_cents``) is left out.
- Black jack: no exact distribution is at hand (splits, doubles, insurance). The published
  standard deviation of one hand under basic strategy, about 1.15 initial bets (the Wizard of
  Odds' house edge table, https://wizardofodds.com/gambling/house-edge/ , "Blackjack"), is
  used: variance 1.15² = 1.3225 per initial bet, labelled as a published figure.
- Classic stud: the players play each other; the house's take is the rake, which it takes
  whatever the cards: variance 0 to the house.

A distribution is ``((net to the player per unit staked, probability), ...)``; the house's win
is its negation, with the same variance. Pure: no Django.
"""

import math
from collections.abc import Iterable
from fractions import Fraction
from functools import lru_cache

from basis.errors import RuleError

from . import baccarat
from .caribbean_edge import DEALER_HANDS, FOLDED_HANDS, OUTCOMES
from .caribbean_stud import PAY_TABLES
from .poker_hands import HANDS_IN_DECK
from .roulette import DoublePrison, ZeroRule, make_bet
from .trente_quarante import APRES, NOIR, REFAIT, exact_probabilities

__all__ = [
    "BLACKJACK_PUBLISHED_SD",
    "BLACKJACK_SOURCE",
    "Distribution",
    "baccarat_distribution",
    "baccarat_line_variance",
    "blackjack_line_variance",
    "caribbean_line_variance",
    "rake_line_variance",
    "roulette_line_variance",
    "tq_line_variance",
    "caribbean_distribution",
    "mean",
    "moments",
    "roulette_distribution",
    "tq_distribution",
    "variance",
]

Distribution = tuple[tuple[Fraction, Fraction], ...]

BLACKJACK_PUBLISHED_SD = Fraction(115, 100)
BLACKJACK_SOURCE = (
    "published: standard deviation 1.15 initial bets a hand under basic strategy "
    "(Wizard of Odds, house edge table, wizardofodds.com/gambling/house-edge/); not exact"
)


def _dist(pairs: Iterable[tuple[Fraction | int, Fraction | int]]) -> Distribution:
    """Outcomes merged by value, zero probabilities left out; the probabilities sum to 1."""
    merged: dict[Fraction, Fraction] = {}
    for value, p in pairs:
        if p:
            merged[Fraction(value)] = merged.get(Fraction(value), Fraction(0)) + Fraction(p)
    total = sum(merged.values())
    if total != 1:
        raise ArithmeticError(f"probabilities sum to {total}, not 1")
    return tuple(sorted(merged.items()))


def mean(dist: Distribution) -> Fraction:
    """E[X]: the player's expected net per unit staked (−edge)."""
    return sum((v * p for v, p in dist), Fraction(0))


def variance(dist: Distribution) -> Fraction:
    """E[X²] − E[X]²: the variance per unit staked (the player's and the house's alike)."""
    m = mean(dist)
    return sum((v * v * p for v, p in dist), Fraction(0)) - m * m


def moments(dist: Distribution) -> tuple[Fraction, Fraction]:
    """``(mean, variance)`` per unit staked."""
    return mean(dist), variance(dist)


def _prison_release(win: Fraction, repeat: Fraction, again: Fraction, double_prison: DoublePrison) -> Fraction:
    """The probability that a bet in prison (level 1) is released rather than lost: ``win`` a
    coup that releases it, ``repeat`` one that leaves it as it is (a refait), ``again`` one that
    sends it to prison again (zero, an après), the rest lose it."""
    if double_prison is DoublePrison.LOSE:
        return win / (1 - repeat)
    if double_prison is DoublePrison.STAY:
        return win / (1 - repeat - again)
    # deeper: V = (win + again·V²) / (1 − repeat), the root below 1 (irrational in general)
    a, b, c = float(again), -float(1 - repeat), float(win)
    return Fraction((-b - (b * b - 4 * a * c) ** 0.5) / (2 * a))


@lru_cache(maxsize=256)
def roulette_distribution(
    covered: int,
    payout: Fraction,
    even_chance: bool = False,
    zero_rule: ZeroRule = ZeroRule.LA_PARTAGE,
    double_prison: DoublePrison = DoublePrison.LOSE,
) -> Distribution:
    """A bet covering ``covered`` of the 37 numbers, paid ``payout`` to 1; an even chance
    (``even_chance``) on zero under ``zero_rule`` (and ``double_prison`` en prison)."""
    if not 1 <= covered <= 36:
        raise RuleError("numbers", f"a bet covers 1 to 36 numbers, not {covered}")
    win = Fraction(covered, 37)
    if not even_chance:
        return _dist([(payout, win), (-1, 1 - win)])
    zero = Fraction(1, 37)
    lose = 1 - win - zero
    zero_rule, double_prison = ZeroRule(zero_rule), DoublePrison(double_prison)
    if zero_rule is ZeroRule.LA_PARTAGE:
        on_zero = [(Fraction(-1, 2), zero)]
    elif zero_rule is ZeroRule.LOST:
        on_zero = [(-1, zero)]
    else:
        released = _prison_release(win, Fraction(0), zero, double_prison)
        on_zero = [(0, zero * released), (-1, zero * (1 - released))]
    return _dist([(payout, win), (-1, lose), *on_zero])


def baccarat_distribution(bet: str, rules: baccarat.BaccaratRules) -> Distribution:
    """``bet`` (player, banker, tie) under ``rules``: the shoe's exact probabilities, the banker
    paid 1 less the commission, the tie ``tie_pays`` to 1; player and banker push on a tie."""
    baccarat.check_bet(bet)
    p = baccarat.exact_probabilities(rules.decks)
    if bet == baccarat.TIE:
        return _dist([(rules.tie_pays, p[baccarat.TIE]), (-1, 1 - p[baccarat.TIE])])
    other = baccarat.BANKER if bet == baccarat.PLAYER else baccarat.PLAYER
    paid = Fraction(1) if bet == baccarat.PLAYER else Fraction(100 - rules.banker_commission_pct, 100)
    return _dist([(paid, p[bet]), (-1, p[other]), (0, p[baccarat.TIE])])


@lru_cache(maxsize=32)
def tq_distribution(double_prison: DoublePrison = DoublePrison.LOSE, decks: int = 6) -> Distribution:
    """Rouge, noir, couleur or inverse, per coup played (a refait void, an après to prison)."""
    p = exact_probabilities(decks)
    win, refait, apres = p[NOIR], p[REFAIT], p[APRES]
    released = _prison_release(win, refait, apres, DoublePrison(double_prison))
    return _dist([(1, win), (-1, win), (0, refait), (0, apres * released), (-1, apres * (1 - released))])


@lru_cache(maxsize=32)
def _caribbean(odds: tuple[tuple[str, int], ...], raise_multiple: int) -> Distribution:
    table = dict(odds)
    pairs = HANDS_IN_DECK * DEALER_HANDS
    outcomes: list[tuple[Fraction | int, Fraction]] = [(-1, Fraction(FOLDED_HANDS * DEALER_HANDS, pairs))]
    for category, (_hands, not_qualified, lower, tie, higher) in OUTCOMES.items():
        outcomes += [
            (1, Fraction(not_qualified, pairs)),
            (1 + raise_multiple * table[category], Fraction(lower, pairs)),
            (0, Fraction(tie, pairs)),
            (-(1 + raise_multiple), Fraction(higher, pairs)),
        ]
    return _dist(outcomes)


def caribbean_distribution(pay_table: str | dict[str, int], raise_multiple: int = 2) -> Distribution:
    """Ante and raise together, per ante, under the product's strategy, for ``pay_table`` (a
    name of ``PAY_TABLES`` or odds by category) and the raise as ``raise_multiple`` antes."""
    if isinstance(pay_table, str) and pay_table not in PAY_TABLES:
        raise RuleError("rules.pay_table", f"no distribution known for pay table {pay_table!r}")
    odds = PAY_TABLES[pay_table] if isinstance(pay_table, str) else pay_table
    return _caribbean(tuple(sorted(odds.items())), raise_multiple)


# --- per settled line: the variance the projection sums (a game's spec names its function) ----
#
# ``(rules, data) -> Fraction | None``: the variance per unit staked of the bet a deciding event
# (``BetSettled``, or a prison bet's release or loss) decides, under the table's ``rules``;
# None when the line carries no bet this module knows (counted apart, never guessed).
# Every bet is decided by exactly one such event, so Σ stake² × σ² over them is over the bets.


def roulette_line_variance(rules: dict | None, data: dict) -> Fraction | None:
    """The line's position (a prison event has none: only even chances go to prison), under
    the zero rule it was settled by and the table's ``double_prison``."""
    rules = rules or {}
    zero = data.get("zero_rule") or rules.get("zero_rule", ZeroRule.LA_PARTAGE)
    double = rules.get("double_prison", DoublePrison.LOSE)
    position = data.get("position")
    try:
        if position is None:
            return variance(roulette_distribution(18, Fraction(1), True, ZeroRule(zero), DoublePrison(double)))
        bet = make_bet(**position)
        return variance(
            roulette_distribution(
                len(bet.numbers), bet.payout, bet.is_even_chance, ZeroRule(zero), DoublePrison(double)
            )
        )
    except (RuleError, TypeError, ValueError):
        return None


def baccarat_line_variance(rules: dict | None, data: dict) -> Fraction | None:
    """Player, banker or tie under the table's decks, commission and tie odds."""
    bet = (data.get("position") or {}).get("bet")
    try:
        return _baccarat_variance(bet, baccarat.BaccaratRules.from_dict(rules or {}))
    except (RuleError, TypeError, ValueError):
        return None


@lru_cache(maxsize=64)
def _baccarat_variance(bet: str, rules: baccarat.BaccaratRules) -> Fraction:
    return variance(baccarat_distribution(bet, rules))


def tq_line_variance(rules: dict | None, data: dict) -> Fraction | None:
    """Every trente-et-quarante bet alike (rouge, noir, couleur, inverse), per coup played."""
    rules = rules or {}
    try:
        return variance(tq_distribution(DoublePrison(rules.get("double_prison", "lose")), rules.get("decks", 6)))
    except (RuleError, TypeError, ValueError):
        return None


def caribbean_line_variance(rules: dict | None, data: dict) -> Fraction | None:
    """Per ante, ante and raise together: the ante line carries it, the raise line 0 (its
    result is inside the ante's distribution)."""
    if data.get("line", "ante") != "ante":
        return Fraction(0)
    rules = rules or {}
    try:
        return variance(caribbean_distribution(rules.get("pay_table", "sheet"), rules.get("raise_multiple", 2)))
    except (RuleError, TypeError, ValueError, KeyError):
        return None


def blackjack_line_variance(rules: dict | None, data: dict) -> Fraction:
    """The published figure (``BLACKJACK_SOURCE``), 1.3225 per initial bet, on each line."""
    return BLACKJACK_PUBLISHED_SD**2


def rake_line_variance(rules: dict | None, data: dict) -> Fraction:
    """Classic stud: the house takes the rake whatever the cards: 0."""
    return Fraction(0)


def nearest_root(value: Fraction) -> int:
    """The square root of ``value`` (cents², exact) rounded to the nearest whole cent, halves
    up: a standard deviation a person reads, in integer cents, never a float."""
    root = math.isqrt(math.floor(value))
    return root + 1 if (root + Fraction(1, 2)) ** 2 <= value else root
