"""Caribbean stud: the exact dealer outcomes behind every raised player hand, by enumeration
(the counts stored in ``games.rules.caribbean_edge``).

Run (not collected by pytest; about 40 s of CPU, measured)::

    .venv/bin/python -m tests.benchmarks.enumerate_caribbean_edge

The product's strategy (``demo/stud.py``, :func:`raises` here): raise with a
pair or better or with ace-king high, fold otherwise. A folded hand loses its ante whatever
the dealer holds, so only the raised hands need the dealer's distribution: for each of them,
over the C(47, 5) = 1,533,939 dealer hands of the 47 other cards, how many do not qualify
(below A-K-4-3-2), qualify and lose to the player, tie, and beat him.

How, exactly and without the 2.6 million × 1.5 million pairs: a dealer hand disjoint from the
player's five cards P is counted by inclusion-exclusion over the subsets S of P,

    #{d : d ∩ P = ∅, rank(d) < t} = Σ_{S ⊆ P} (−1)^|S| · #{d ⊇ S : rank(d) < t},

and #{d ⊇ S : rank(d) < t} over the full deck is precomputed once for every S of up to four
cards: cumulative histograms over the 7,462 ranks for |S| ≤ 2, sorted rank lists (1,176 and 48
hands) for |S| = 3 and 4; |S| = 5 is the player's hand itself. Three thresholds per hand (the
qualifying rank, the player's rank, the next rank) give the four outcomes.

Printed: per category of the player's hand, the raised hands and the four outcome totals,
the folded hands, and the exact edge of each pay table per ante and per total bet.
"""

import itertools
import random
import time
from array import array
from bisect import bisect_left
from fractions import Fraction
from math import comb

from games.rules.cards import RANKS, SUITS
from games.rules.caribbean_stud import PAY_TABLES
from games.rules.poker_hands import _CARD_INT, _QUALIFIES, CATEGORIES, rank_value

DEALER_HANDS = comb(47, 5)  # 1,533,939

_CARDS = [_CARD_INT[rank + suit] for suit in SUITS for rank in RANKS]  # index 0..51


def _dense_ranks() -> tuple[array, list[int]]:
    """The dense rank (0..7461, in hand order) of every hand in colex order of card indices,
    and the order values by dense rank."""
    values = array("I")
    cards = _CARDS
    for e in range(4, 52):
        ce = cards[e]
        for d in range(3, e):
            cd = cards[d]
            for c in range(2, d):
                cc = cards[c]
                for b in range(1, c):
                    cb = cards[b]
                    for a in range(b):
                        values.append(rank_value(cards[a], cb, cc, cd, ce))
    ordered = sorted(set(values))
    dense = {v: i for i, v in enumerate(ordered)}
    return array("H", (dense[v] for v in values)), ordered


class Tables:
    """#{hands ⊇ S : dense rank < t} for every set S of up to four cards (see the module)."""

    def __init__(self) -> None:
        self.dense, self.values = _dense_ranks()
        n = len(self.values)
        self.n = n
        self.qualify = bisect_left(self.values, _QUALIFIES)
        h0 = [0] * (n + 1)
        h1 = [[0] * (n + 1) for _ in range(52)]
        h2 = [[0] * (n + 1) for _ in range(comb(52, 2))]
        l3: list[list[int]] = [[] for _ in range(comb(52, 3))]
        l4: list[list[int]] = [[] for _ in range(comb(52, 4))]
        b2 = [comb(x, 2) for x in range(52)]
        b3 = [comb(x, 3) for x in range(52)]
        b4 = [comb(x, 4) for x in range(52)]
        ranks = iter(self.dense)
        for e in range(4, 52):
            for d in range(3, e):
                p_de = b2[e] + d
                t_de = b3[e] + b2[d]
                q_de = b4[e] + b3[d]
                for c in range(2, d):
                    p_ce, p_cd = b2[e] + c, b2[d] + c
                    t_cde = t_de + c
                    t_ce, t_cd = b3[e] + b2[c], b3[d] + b2[c]
                    q_cde = q_de + b2[c]
                    for b in range(1, c):
                        p_be, p_bd, p_bc = b2[e] + b, b2[d] + b, b2[c] + b
                        t_bde, t_bce, t_bcd = t_de + b, t_ce + b, t_cd + b
                        q_bde, q_bce, q_bcd = q_de + b2[b], b4[e] + b3[c] + b2[b], b4[d] + b3[c] + b2[b]
                        for a in range(b):
                            r = next(ranks)
                            h0[r + 1] += 1
                            for x in (a, b, c, d, e):
                                h1[x][r + 1] += 1
                            for x in (p_de, p_ce, p_cd, p_be, p_bd, p_bc, b2[e] + a, b2[d] + a, b2[c] + a, b2[b] + a):
                                h2[x][r + 1] += 1
                            for x in (t_cde, t_bde, t_bce, t_bcd, t_de + a, t_ce + a, t_cd + a,
                                      b3[e] + b2[b] + a, b3[d] + b2[b] + a, b3[c] + b2[b] + a):  # fmt: skip
                                l3[x].append(r)
                            for x in (q_cde + b, q_cde + a, q_bde + a, q_bce + a, q_bcd + a):
                                l4[x].append(r)
        self.h0 = list(itertools.accumulate(h0))
        self.h1 = [list(itertools.accumulate(h)) for h in h1]
        self.h2 = [array("I", itertools.accumulate(h)) for h in h2]
        self.l3 = [array("H", sorted(x)) for x in l3]
        self.l4 = [array("H", sorted(x)) for x in l4]
        self.b2, self.b3, self.b4 = b2, b3, b4

    def outcomes(self, hand: tuple[int, int, int, int, int], rank: int) -> tuple[int, int, int, int]:
        """(not qualified, qualified and lower, tie, higher): dealer hands of the other 47
        cards, for a player ``hand`` (card indices, increasing) of dense ``rank``."""
        a, b, c, d, e = hand
        b2, b3, b4 = self.b2, self.b3, self.b4
        singles = [self.h1[x] for x in hand]
        pairs = [self.h2[b2[j] + i] for i, j in itertools.combinations(hand, 2)]
        triples = [self.l3[b3[k] + b2[j] + i] for i, j, k in itertools.combinations(hand, 3)]
        quads = [self.l4[b4[l_] + b3[k] + b2[j] + i] for i, j, k, l_ in itertools.combinations(hand, 4)]
        below = []
        for t in (self.qualify, rank, rank + 1):
            n = self.h0[t]
            n -= sum(h[t] for h in singles)
            n += sum(h[t] for h in pairs)
            n -= sum(bisect_left(x, t) for x in triples)
            n += sum(bisect_left(x, t) for x in quads)
            n -= rank < t
            below.append(n)
        not_qualified, lower_or_nq, not_higher = below
        if rank < self.qualify:  # a raised hand below A-K-4-3-2 (not the product's strategy)
            lower_or_nq = not_qualified
        return not_qualified, lower_or_nq - not_qualified, not_higher - lower_or_nq, DEALER_HANDS - not_higher


def brute_force_outcomes(cards: list[str]) -> tuple[int, int, int, int]:
    """The same four counts as :meth:`Tables.outcomes`, by evaluating every one of the
    1,533,939 dealer hands of the other 47 cards (a second or two a hand)."""
    player = rank_value(*(_CARD_INT[c] for c in cards))
    rest = [v for v in _CARDS if v not in {_CARD_INT[c] for c in cards}]
    nq = lower = tie = higher = 0
    for dealer in itertools.starmap(rank_value, itertools.combinations(rest, 5)):
        if dealer < _QUALIFIES:
            nq += 1
        elif dealer < player:
            lower += 1
        elif dealer == player:
            tie += 1
        else:
            higher += 1
    return nq, lower, tie, higher


def raises(value: int) -> bool:
    """The product's strategy on an order value: a pair or better, or ace-king high."""
    return value >> 20 != 0 or ((value >> 16) & 0xF == 14 and (value >> 12) & 0xF == 13)


def enumerate_all(tables: Tables) -> tuple[dict[str, tuple[int, int, int, int, int]], int]:
    """Per category: (raised hands, not qualified, qualified and lower, tie, higher), summed
    over every raised player hand; and the number of folded hands."""
    totals = {name: [0, 0, 0, 0, 0] for name in CATEGORIES}
    folded = 0
    ranks = iter(tables.dense)
    values = tables.values
    for e in range(4, 52):
        for d in range(3, e):
            for c in range(2, d):
                for b in range(1, c):
                    for a in range(b):
                        r = next(ranks)
                        value = values[r]
                        if not raises(value):
                            folded += 1
                            continue
                        row = totals[CATEGORIES[value >> 20]]
                        row[0] += 1
                        for i, n in enumerate(tables.outcomes((a, b, c, d, e), r), 1):
                            row[i] += n
    return {name: tuple(row) for name, row in totals.items()}, folded  # type: ignore[misc]


def edge(totals: dict[str, tuple[int, int, int, int, int]], folded: int, odds: dict[str, int], raise_multiple: int = 2):
    """(per ante, per total bet) as exact fractions."""
    net = -folded * DEALER_HANDS
    raised = 0
    for name, (hands, nq, lower, _tie, higher) in totals.items():
        raised += hands
        net += nq + lower * (1 + raise_multiple * odds[name]) - higher * (1 + raise_multiple)
    pairs = (folded + raised) * DEALER_HANDS
    per_ante = Fraction(-net, pairs)
    return per_ante, per_ante / (1 + raise_multiple * Fraction(raised, folded + raised))


def main() -> int:
    started = time.process_time()
    tables = Tables()
    print(f"tables built: {time.process_time() - started:.0f} s CPU")
    totals, folded = enumerate_all(tables)
    print(f"enumerated: {time.process_time() - started:.0f} s CPU")
    print(f"FOLDED = {folded}")
    for name, row in totals.items():
        print(f"    {name!r}: {row},")
    rng = random.Random(28)
    names = [rank + suit for suit in SUITS for rank in RANKS]
    print("SAMPLE = {")
    sampled = 0
    while sampled < 12:  # raised hands drawn at random, for the test to check by brute force
        hand = tuple(sorted(rng.sample(range(52), 5)))
        value = rank_value(*(_CARDS[i] for i in hand))
        if raises(value):
            r = bisect_left(tables.values, value)
            print(f"    {tuple(names[i] for i in hand)!r}: {tables.outcomes(hand, r)},")
            sampled += 1
    print("}")
    for table, odds in PAY_TABLES.items():
        per_ante, per_total = edge(totals, folded, odds)
        ante, total = f"{float(per_ante) * 100:.4f} %", f"{float(per_total) * 100:.4f} %"
        print(f"{table}: {ante} of the ante ({per_ante}), {total} of the total bet")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
