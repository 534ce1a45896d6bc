"""Pure engines per second on one core (CPU time of this process): no database, no Django."""

import random
import time

from .common import Figure

SECTION = "pure engines"


def _rate(count: int, run) -> float:
    started = time.process_time()
    run()
    return count / (time.process_time() - started)


def bench_engines(*, scale: int = 1) -> list[Figure]:
    """Roulette bets settled, black jack hands, baccarat coups, Caribbean coups, stud hands."""
    from games.rules import baccarat
    from games.rules.blackjack import BlackjackRules
    from games.rules.roulette import bet_kinds, settle

    from . import bench_blackjack, bench_trente_quarante

    figures = []
    rng = random.Random(1)
    kinds = bet_kinds()
    sample = [(rng.choice(kinds), rng.randrange(37)) for _ in range(200_000 * scale)]
    rate = _rate(len(sample), lambda: [settle(bet, 1_000, number) for bet, number in sample])
    figures.append(Figure(SECTION, "roulette: bets settled (settle, every bet kind, la partage)", rate, "bets/s"))

    hands = 20_000 * scale
    result = bench_blackjack.simulate(BlackjackRules(immediate_payouts=()), hands, 1)
    figures.append(
        Figure(SECTION, "black jack: hands (one box, basic strategy, 6-deck shoes)", result.hands_per_second, "hands/s")
    )
    coups = bench_trente_quarante.engine_only(baccarat.deal_coup, 8, 1)
    figures.append(Figure(SECTION, "baccarat: coups dealt and decided (engine only)", coups, "coups/s"))
    figures.append(
        Figure(SECTION, "Caribbean stud: coups of 7 boxes, shuffle included", _caribbean(2_000 * scale), "coups/s")
    )
    figures.append(
        Figure(SECTION, "five-card evaluator: hands evaluated (evaluate)", _evaluate(100_000 * scale), "hands/s")
    )
    return figures


def _caribbean(coups: int) -> float:
    from games.rules.caribbean_stud import CaribbeanAnte, CaribbeanCoup, CaribbeanRules
    from games.rules.shoe import ShoeOrder

    from .bench_stud import _raises

    rng = random.Random(1)
    rules = CaribbeanRules()
    antes = [CaribbeanAnte(box, f"player-{box}", 1_000) for box in range(1, 8)]

    def run():
        for _ in range(coups):
            order = ShoeOrder.shuffle(1, rng).cards
            coup = CaribbeanCoup(rules, antes)
            for card in order[:40]:
                coup.deal(card)
            for box in coup.boxes:
                coup.raise_(box) if _raises(coup.cards(box)) else coup.fold(box)
            coup.settle()

    return _rate(coups, run)


def _evaluate(hands: int) -> float:
    from games.rules.cards import deck
    from games.rules.poker_hands import evaluate

    rng = random.Random(1)
    cards = deck()
    sample = [tuple(rng.sample(cards, 5)) for _ in range(hands)]
    return _rate(hands, lambda: [evaluate(hand) for hand in sample])
