"""Benchmark: the five-card evaluator, the whole-deck enumeration, and Caribbean stud coups
through the pure engines.

Run (not collected by pytest: the file is bench_*.py, pytest collects test_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_stud --hands 1000000 --coups 100000 --seed 1

What is measured, each in CPU time of this process (one core):

1. Evaluations per second: ``poker_hands.evaluate`` (five codes in, checked, a ``HandRank``
   out) on ``--hands`` random hands sampled beforehand; and the inner loop
   ``poker_hands.rank_value`` on the same hands as card integers.
2. The full enumeration: all 2,598,960 hands of one deck through ``rank_value`` (what
   ``category_counts`` and ``qualify_probability`` run once, then cache), and again through
   the public ``evaluate``; the category counts and the dealer's qualifying probability are
   checked against the published figures.
3. Caribbean coups per second: ``--coups`` coups of a full table (7 boxes, ante 10 EUR), each
   with a fresh seeded one-deck ``ShoeOrder.shuffle``, dealt card by card through
   ``CaribbeanCoup``, every box raising with a pair or better or ace-king high and folding
   otherwise, then settled. The players' mean result per ante is printed for information
   only: this simple strategy is not the optimal one, so no published edge is compared.
4. Classic stud hands per second: ``--stud-hands`` hands of 5 players making random legal
   actions through ``StudHand`` (for scale only).
"""

import argparse
import itertools
import random
import time
from fractions import Fraction

from games.rules import poker_hands
from games.rules.cards import deck
from games.rules.caribbean_stud import CaribbeanAnte, CaribbeanCoup, CaribbeanRules
from games.rules.classic_stud import StudHand, StudRules, StudSeat
from games.rules.poker_hands import HANDS_IN_DECK, dealer_qualifies, evaluate, rank_value
from games.rules.shoe import ShoeOrder

PUBLISHED_COUNTS = {
    "high card": 1_302_540,
    "pair": 1_098_240,
    "two pair": 123_552,
    "trips": 54_912,
    "straight": 10_200,
    "flush": 5_108,
    "full house": 3_744,
    "quads": 624,
    "straight flush": 36,
    "royal flush": 4,
}
ANTE_CENTS = 1_000
BOXES = 7


def bench_evaluate(hands: int, seed: int) -> None:
    rng = random.Random(seed)
    cards = deck()
    sample = [tuple(rng.sample(cards, 5)) for _ in range(hands)]
    started = time.process_time()
    for hand in sample:
        evaluate(hand)
    public = time.process_time() - started
    ints = [tuple(poker_hands._CARD_INT[c] for c in hand) for hand in sample]
    started = time.process_time()
    for a, b, c, d, e in ints:
        rank_value(a, b, c, d, e)
    inner = time.process_time() - started
    print("Evaluator")
    print(f"  evaluate (codes, checked, HandRank): {hands / public:,.0f} hands/s ({hands:,} random hands)")
    print(f"  rank_value (card integers):          {hands / inner:,.0f} hands/s")


def bench_enumeration() -> None:
    started = time.process_time()
    values = poker_hands._enumerate_values()  # the uncached enumeration behind category_counts
    inner = time.process_time() - started
    counts = dict.fromkeys(poker_hands.CATEGORIES, 0)
    for value, n in values.items():
        counts[poker_hands.CATEGORIES[value >> 20]] += n
    qualifying = sum(n for value, n in values.items() if dealer_qualifies(poker_hands._BY_VALUE[value]))
    started = time.process_time()
    public_counts = dict.fromkeys(poker_hands.CATEGORIES, 0)
    for rank in map(evaluate, itertools.combinations(deck(), 5)):
        public_counts[rank.category] += 1
    public = time.process_time() - started
    probability = Fraction(qualifying, HANDS_IN_DECK)
    print("Full enumeration of the 2,598,960 hands")
    print(f"  through rank_value: {inner:.2f} s   through evaluate: {public:.2f} s")
    print(f"  category counts as published: {counts == PUBLISHED_COUNTS == public_counts}")
    exact = probability == Fraction(205, 364)
    print(f"  dealer qualifies: {probability} = {float(probability):.4f} (the published 205/364: {exact})")


def _raises(cards: tuple[str, ...]) -> bool:
    rank = evaluate(cards)
    return rank.category != "high card" or rank.ranks[:2] == (14, 13)


def bench_caribbean(coups: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = CaribbeanRules()
    antes = [CaribbeanAnte(box, f"player-{box}", ANTE_CENTS) for box in range(1, BOXES + 1)]
    net = 0
    started = time.process_time()
    for _ in range(coups):
        order = ShoeOrder.shuffle(1, rng).cards
        coup = CaribbeanCoup(rules, antes)
        for card in order[: 5 * (BOXES + 1)]:
            coup.deal(card)
        for box in coup.boxes:
            if _raises(coup.cards(box)):
                coup.raise_(box)
            else:
                coup.fold(box)
        for settled in coup.settle():
            net += settled.result.net
    cpu = time.process_time() - started
    boxes = coups * BOXES
    print(f"Caribbean stud, {BOXES} boxes a coup, sheet pay table")
    print(f"  {coups / cpu:,.0f} coups/s ({boxes / cpu:,.0f} boxes/s) over {coups:,} coups, shuffle included")
    print(f"  players' mean result: {100 * net / boxes / ANTE_CENTS:+.2f}% of the ante (simple strategy, information)")


def bench_classic(hands: int, seed: int) -> None:
    rng = random.Random(seed)
    rules = StudRules()
    seats = [StudSeat(i, f"player-{i}", 20_000) for i in range(1, 6)]
    cards = deck()
    started = time.process_time()
    for _ in range(hands):
        hand = StudHand(rules, seats)
        rng.shuffle(cards)
        top = iter(cards)
        while hand.state != "settled":
            if hand.next_draw() is not None:
                hand.deal(next(top))
                continue
            turn = hand.awaiting()
            action = rng.choice(("check", "call", "call", "bet", "raise", "fold"))
            if action not in turn.actions:
                action = "check" if "check" in turn.actions else "call"
            amount = turn.min_total_cents if action in ("bet", "raise") else None
            hand.act(turn.seat, action, amount)
        hand.settle()
    cpu = time.process_time() - started
    print("Classic stud, 5 players, random legal actions")
    print(f"  {hands / cpu:,.0f} hands/s over {hands:,} hands")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000, help="random hands for the evaluator's speed")
    parser.add_argument("--coups", type=int, default=100_000, help="Caribbean coups of 7 boxes")
    parser.add_argument("--stud-hands", type=int, default=20_000, help="classic stud hands")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if min(args.hands, args.coups, args.stud_hands) < 1:
        parser.error("counts must be at least 1")
    bench_evaluate(args.hands, args.seed)
    bench_enumeration()
    bench_caribbean(args.coups, args.seed)
    bench_classic(args.stud_hands, args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
