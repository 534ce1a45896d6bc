"""The house edge of a black jack rule set, by exact combinatorial analysis of the shoe.

Method (the one of the Wizard of Odds' "Blackjack Appendix 9" tables, which it reproduces):
for every dealer up card and every first two cards of the player, drawn without replacement
from the table's full shoe (``decks`` × 52 cards), the player's expected return is computed
recursively over the exact composition of his hand. At each hand he takes the best of stand,
hit, double and split (composition-dependent optimal strategy, which is basic strategy played
perfectly); for every standing hand the dealer's final totals are enumerated exactly from the
shoe less the up card and the player's cards, the dealer standing on every 17 (hitting soft 17
only when ``hit_soft_17``, a figure-checking option: the tables' dealer always stands).

Approximations, stated: the two first cards of split hands are drawn from the shoe less the
pair (the cards of sibling hands are ignored, as in the Appendix); under a peeked hole card
the player's draws are not conditioned on the hole card; insurance and even money are never
taken. Immediate payouts (``RULES.md §Black jack``) are counted exactly: a hand that matches a
pattern while it draws is paid the pattern's odds on its whole stake and closes.

Checked (``tests/unit/test_blackjack_edge.py``) against the Wizard of Odds' Appendix 9
(wizardofodds.com/games/blackjack/appendix/9/, M. Shackleford, 2019), resplit to 4 hands
except aces, one card to split aces, double on any two cards, no surrender, 3:2:

=====================================================  ============  ============
rules                                                  DAS           no DAS
=====================================================  ============  ============
1 deck, S17, hole card peeked (``1ds17r4``)            +0.1839 %     +0.0423 %
2 decks, H17, hole card peeked (``2dh17r4``)           -0.3797 %     -0.5252 %
6 decks, H17, no hole card (``euro-6dh17r4``)          -0.72705 %    -0.86975 %
8 decks, H17, no hole card (``euro-8dh17r4``)          -0.7562 %     -0.89865 %
=====================================================  ============  ============

(the player's expected return per initial bet; the house edge is its negation).

Pure: no Django. Floats (double precision) carry the probabilities: the edge is given to
1/10,000 of a percentage point, far inside the method's own approximations. The result is
cached per rule set.
"""

from dataclasses import replace
from decimal import Decimal
from functools import lru_cache

from .blackjack import BlackjackRules, DoubleOn
from .blackjack_known_edges import STORED_EDGES

__all__ = ["KNOWN_EDGES", "SHEET_EDGES", "blackjack_edge", "blackjack_edge_basis", "computed_edge", "expected_return"]

ACE, TEN = 0, 9  # rank indexes: 0 = ace, 1..8 = 2..9, 9 = ten-values
_VALUE = tuple(range(1, 11))
# Dealer outcome slots: 17, 18, 19, 20, 21, bust, blackjack.
_BUST, _BJ = 5, 6

_PATTERNS = {
    "three_sevens": lambda c, n, t: n == 3 and c[6] == 3,
    "five_fours": lambda c, n, t: n == 5 and c[3] == 5,
    "four_fives": lambda c, n, t: n == 4 and c[4] == 4,
    "six_cards_21_or_less": lambda c, n, t: n == 6 and t <= 21,
    "five_cards_21": lambda c, n, t: n == 5 and t == 21,
}


def _full_shoe(decks: int) -> tuple[int, ...]:
    return (4 * decks,) * 9 + (16 * decks,)


def _total(comp: tuple[int, ...]) -> tuple[int, bool]:
    hard = sum(_VALUE[i] * k for i, k in enumerate(comp))
    if comp[ACE] and hard <= 11:
        return hard + 10, True
    return hard, False


@lru_cache(maxsize=64)
def _dealer_hands(
    up: int, hit_soft_17: bool, peek: bool
) -> tuple[tuple[tuple[tuple[int, int], ...], int, int, int], ...]:
    """Every final dealer hand from ``up`` as a multiset of drawn cards: ``(((rank, count),
    ...), cards drawn, orderings, outcome slot)``. ``orderings`` counts the draw orders that
    reach it (under ``peek``, those whose first card does not make a blackjack): the chance of
    each order is the same for a given shoe, a product of falling factorials."""
    banned = (TEN if up == ACE else ACE if up == TEN else None) if peek else None
    found: dict[tuple[int, ...], list[int]] = {}
    drawn = [0] * 10

    def draw(hard: int, aces: bool, cards: int) -> None:
        soft = aces and hard <= 11
        total = hard + 10 if soft else hard
        if total > 21:
            slot = _BUST
        elif cards == 2 and total == 21:
            slot = _BJ
        elif total >= 18 or (total == 17 and not (soft and hit_soft_17)):
            slot = total - 17
        else:
            for rank in range(10):
                if cards == 1 and rank == banned:
                    continue
                drawn[rank] += 1
                draw(hard + _VALUE[rank], aces or rank == ACE, cards + 1)
                drawn[rank] -= 1
            return
        key = tuple(drawn)
        entry = found.setdefault(key, [0, slot])
        entry[0] += 1

    draw(_VALUE[up], up == ACE, 1)
    return tuple(
        (tuple((r, k) for r, k in enumerate(key) if k), sum(key), orderings, slot)
        for key, (orderings, slot) in found.items()
    )


@lru_cache(maxsize=200_000)
def _dealer(shoe: tuple[int, ...], up: int, hit_soft_17: bool, peek: bool) -> tuple[float, ...]:
    """Probabilities of the dealer's 17..21, bust, blackjack drawing from ``shoe`` (the up card
    already out of it). ``peek``: the hole card does not make a blackjack (conditioned)."""
    n = sum(shoe)
    falling = [[1.0] for _ in range(10)]
    for r in range(10):
        row, c = falling[r], shoe[r]
        for j in range(12):
            row.append(row[-1] * (c - j) if c - j > 0 else 0.0)
    all_draws = [1.0]
    for j in range(12):
        all_draws.append(all_draws[-1] * (n - j))
    out = [0.0] * 7
    for ranks, cards, orderings, slot in _dealer_hands(up, hit_soft_17, peek):
        p = orderings / all_draws[cards]
        for r, k in ranks:
            p *= falling[r][k]
        out[slot] += p
    if peek:
        banned = TEN if up == ACE else ACE if up == TEN else None
        if banned is not None:
            no_bj = 1 - shoe[banned] / n
            out = [x / no_bj for x in out]
    return tuple(out)


class _Analysis:
    """The player's values against one up card, for one rule set."""

    def __init__(self, rules: BlackjackRules, up: int, hit_soft_17: bool) -> None:
        self.rules, self.up, self.h17 = rules, up, hit_soft_17
        full = list(_full_shoe(rules.decks))
        full[up] -= 1
        self.shoe = tuple(full)
        self.peek = rules.hole_card
        self.patterns = [(_PATTERNS[p.pattern], float(p.pays)) for p in rules.immediate_payouts]
        self.stand_memo: dict[tuple[int, ...], float] = {}
        self.hit_memo: dict[tuple[int, ...], float] = {}

    def left(self, comp: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(s - c for s, c in zip(self.shoe, comp, strict=True))

    def stand(self, comp: tuple[int, ...]) -> float:
        value = self.stand_memo.get(comp)
        if value is None:
            total, _ = _total(comp)
            if total > 21:
                value = -1.0
            else:
                d = _dealer(self.left(comp), self.up, self.h17, self.peek)
                win = d[_BUST] + sum(d[v - 17] for v in range(17, min(total, 22)))
                lose = d[_BJ] + sum(d[v - 17] for v in range(max(total + 1, 17), 22))
                value = win - lose
            self.stand_memo[comp] = value
        return value

    def draws(self, comp: tuple[int, ...]):
        left = self.left(comp)
        n = sum(left)
        for rank in range(10):
            if left[rank]:
                yield rank, left[rank] / n, comp[:rank] + (comp[rank] + 1,) + comp[rank + 1 :]

    def paid_at_once(self, comp: tuple[int, ...], total: int) -> float | None:
        n = sum(comp)
        for matches, pays in self.patterns:
            if matches(comp, n, total):
                return pays
        return None

    def after_card(self, comp: tuple[int, ...]) -> float:
        """A hand that has just drawn (not doubled): bust, paid at once, 21 (stands) or the best
        of stand and hit."""
        total, _ = _total(comp)
        if total > 21:
            return -1.0
        paid = self.paid_at_once(comp, total)
        if paid is not None:
            return paid
        if total == 21:
            return self.stand(comp)
        return max(self.stand(comp), self.hit(comp))

    def hit(self, comp: tuple[int, ...]) -> float:
        value = self.hit_memo.get(comp)
        if value is None:
            value = sum(p * self.after_card(new) for _, p, new in self.draws(comp))
            self.hit_memo[comp] = value
        return value

    def double(self, comp: tuple[int, ...]) -> float:
        value = 0.0
        for _, p, new in self.draws(comp):
            total, _ = _total(new)
            paid = self.paid_at_once(new, total) if total <= 21 else None
            value += p * 2 * (paid if paid is not None else self.stand(new))
        return value

    def may_double(self, comp: tuple[int, ...]) -> bool:
        total, _ = _total(comp)
        return self.rules.double_on is DoubleOn.ANY or 9 <= total <= 11

    def two_cards(self, comp: tuple[int, ...], *, may_double: bool) -> float:
        """Best of stand, hit and (if allowed) double for a two-card hand, split not considered."""
        total, _ = _total(comp)
        if total == 21:
            return self.stand(comp)
        best = max(self.stand(comp), self.hit(comp))
        if may_double and self.may_double(comp):
            best = max(best, self.double(comp))
        return best

    def split(self, rank: int) -> float:
        """The expected return of splitting a pair of ``rank`` (both hands, per initial bet)."""
        rules = self.rules
        pair = tuple(2 if i == rank else 0 for i in range(10))
        left = self.left(pair)
        n = sum(left)
        one = tuple(1 if i == rank else 0 for i in range(10))
        if rank == ACE:  # one card each, no resplit, no double (RULES.md, engine)
            hand = sum((left[r] / n) * self.stand(one[:r] + (one[r] + 1,) + one[r + 1 :]) for r in range(10) if left[r])
            return 2 * hand
        das = rules.double_after_split
        q = left[rank] / n
        v = 0.0
        for r in range(10):
            if r != rank and left[r]:
                hand = one[:r] + (one[r] + 1,) + one[r + 1 :]
                v += left[r] / (n - left[rank]) * self.two_cards(hand, may_double=das)
        w = self.two_cards(pair, may_double=das)  # a pair drawn once the limit is reached
        limit = min(rules.max_split_hands or 16, 16)
        memo: dict[tuple[int, int], float] = {}

        def hands(pending: int, total: int) -> float:
            if pending == 0:
                return 0.0
            key = (pending, total)
            if key not in memo:
                again = hands(pending + 1, total + 1) if total < limit else w + hands(pending - 1, total)
                memo[key] = q * again + (1 - q) * (v + hands(pending - 1, total))
            return memo[key]

        return hands(2, 2)

    def first(self, comp: tuple[int, ...], pair_rank: int | None) -> float:
        best = self.two_cards(comp, may_double=True)
        limit = self.rules.max_split_hands
        if pair_rank is not None and (limit is None or limit >= 2):
            best = max(best, self.split(pair_rank))
        return best


def expected_return(rules: BlackjackRules, *, hit_soft_17: bool = False) -> float:
    """The player's expected return per initial bet (negative: the house wins), see the module
    docstring. ``hit_soft_17`` exists to check the method against published tables."""
    return _expected_return(rules, hit_soft_17)


@lru_cache(maxsize=64)
def _expected_return(rules: BlackjackRules, hit_soft_17: bool) -> float:
    full = _full_shoe(rules.decks)
    n = sum(full)
    bj_pays = float(rules.blackjack_pays)
    total = 0.0
    for up in range(10):
        p_up = full[up] / n
        analysis = _Analysis(rules, up, hit_soft_17)
        shoe = analysis.shoe
        m = n - 1
        dealer_bj_rank = TEN if up == ACE else ACE if up == TEN else None
        for a in range(10):
            for b in range(a, 10):
                if a == b:
                    p = shoe[a] * (shoe[a] - 1) / (m * (m - 1))
                else:
                    p = 2 * shoe[a] * shoe[b] / (m * (m - 1))
                if p == 0:
                    continue
                comp = tuple((i == a) + (i == b) for i in range(10))
                rest = analysis.left(comp)
                p_dealer_bj = rest[dealer_bj_rank] / (m - 2) if dealer_bj_rank is not None else 0.0
                if {a, b} == {ACE, TEN}:
                    value = bj_pays * (1 - p_dealer_bj)  # even money declined: a push against his
                elif rules.hole_card and dealer_bj_rank is not None:
                    value = -p_dealer_bj + (1 - p_dealer_bj) * analysis.first(comp, a if a == b else None)
                else:
                    value = analysis.first(comp, a if a == b else None)
                total += p_up * p * value
    return total


def _known() -> dict[BlackjackRules, Decimal]:
    """The sheets' rule sets, computed ahead (``tests/unit/test_blackjack_edge.py`` checks each
    against the analysis) so that no request waits for them."""
    return {
        # Preset sheet_000 (``blackjack_table.PRESETS``), the default table: no immediate payout.
        BlackjackRules(immediate_payouts=()): Decimal("0.006236"),
        # Preset sheet_004: hole card, doubles on any two, no split limit, its immediate payouts
        # and the client's five-card 21.
        BlackjackRules(hole_card=True, double_on=DoubleOn.ANY, max_split_hands=None): Decimal("0.002469"),
        # BlackjackRules() itself, a mix of both (sheet 000's options, sheet 004's payouts): no
        # table is opened with it unless asked, but the variants below are counted from it.
        BlackjackRules(): Decimal("0.003782"),
    }


SHEET_EDGES = _known()
# The sheets and, generated (``blackjack_known_edges``), each sheet with one option changed.
KNOWN_EDGES = {
    **{BlackjackRules.from_dict(options): Decimal(edge) for options, edge in STORED_EDGES},
    **SHEET_EDGES,
}


def blackjack_edge(rules: BlackjackRules) -> Decimal:
    """The house edge per initial bet as a decimal fraction to 6 places (0.006236 = 0.6236 %).

    Exact combinatorial analysis (module docstring): some seconds on one core for a 6-deck shoe,
    once per rule set (cached); the sheets' rule sets and each of them with one option changed
    are in :data:`KNOWN_EDGES`.
    """
    rules = _edge_rules(rules)
    known = KNOWN_EDGES.get(rules)
    if known is not None:
        return known
    return computed_edge(rules)


def _edge_rules(rules: BlackjackRules) -> BlackjackRules:
    """``rules`` without the options that leave the edge per initial bet as it is: whether bettors
    behind may follow a double or split (``behind_may_follow``) changes the seated player's play
    in nothing, so one stored edge serves both."""
    return replace(rules, behind_may_follow=False) if rules.behind_may_follow else rules


def computed_edge(rules: BlackjackRules) -> Decimal:
    """:func:`blackjack_edge` always from the analysis (never :data:`KNOWN_EDGES`)."""
    return Decimal(-_expected_return(_edge_rules(rules), False)).quantize(Decimal("0.000001"))


def blackjack_edge_basis(rules: BlackjackRules) -> str:
    hole = "hole card peeked" if rules.hole_card else "no hole card (doubles and splits lost to a blackjack)"
    payouts = "with immediate payouts" if rules.immediate_payouts else "no immediate payouts"
    return (
        f"exact combinatorial analysis of the table's rules ({rules.decks} decks, dealer stands on 17, {hole}, "
        f"double {rules.double_on.value}, {'' if rules.double_after_split else 'no '}double after split, "
        f"split to {rules.max_split_hands or 'any number of'} hands, blackjack {rules.blackjack_pays.numerator}:"
        f"{rules.blackjack_pays.denominator}, {payouts}), optimal play, insurance not taken; per initial bet"
    )
