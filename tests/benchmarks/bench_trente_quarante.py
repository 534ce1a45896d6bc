"""Benchmark: trente-et-quarante coups through the pure engine against the exact odds, and
baccarat coups per second.

Run (not collected by pytest: the file is bench_*.py, pytest collects test_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_trente_quarante --coups 1000000 --seed 1

Trente-et-quarante: every coup is dealt by ``deal_rows`` from the top of
a freshly shuffled 6-deck shoe; the observed frequencies of noir, rouge, refait and après are
compared with ``trente_quarante.exact_probabilities()`` (computed here, its time printed). The
standard error of a frequency is sqrt(p (1 - p) / n) with p the exact probability; each
observed frequency must lie within 3 SE of it (the exit status is 1 otherwise). With 4
outcomes, about 1 run in 100 lands one of them outside 3 SE by chance alone.

Baccarat: coups dealt by ``deal_coup`` from the top of a freshly shuffled 8-deck shoe (the
sheet's online practice, option ``reshuffle_every_coup``), their frequencies compared with
``baccarat.exact_probabilities()`` the same way.

A fresh shoe per coup: shuffling all 312 (416) cards for each coup would measure the shuffle,
not the engine, so the shoe is shuffled lazily (:class:`FreshShoe`): position i is drawn
uniformly from the cards not yet placed only when the engine first reads it (Fisher-Yates from
the front, with ``random.Random.randrange``). The cards the engine reads are then exactly as
distributed as the top of a full shuffle. ``--full-shuffle`` uses ``ShoeOrder.shuffle`` for
every coup instead, to check that claim (5 to 13 times slower).

Speed is coups per second of CPU time of this process (one core): "with the shuffle" for the
whole simulation loop, and "engine only" for ``deal_rows`` / ``deal_coup`` alone on shoes
prepared beforehand.
"""

import argparse
import math
import random
import time
from collections import Counter
from collections.abc import Callable

from games.rules import baccarat, trente_quarante
from games.rules.cards import shoe_cards
from games.rules.shoe import ShoeOrder

MAX_SE = 3.0
ENGINE_ONLY_COUPS = 200_000  # coups timed on prepared shoes
PREPARED_CARDS = 80  # two rows of trente-et-quarante never need more


class FreshShoe:
    """A freshly shuffled shoe whose order is drawn lazily, card by card, as it is read.

    ``shoe[i]`` fixes positions up to ``i`` by the forward Fisher-Yates step (position k gets a
    card drawn uniformly from those not yet placed), so every prefix read is distributed as the
    top of a full uniform shuffle. Supports ``len``, indexing and slicing, which is all the
    engines use.
    """

    __slots__ = ("_cards", "_placed", "_randrange")

    def __init__(self, cards: list[str], rng: random.Random) -> None:
        self._cards = list(cards)
        self._placed = 0
        self._randrange = rng.randrange

    def __len__(self) -> int:
        return len(self._cards)

    def _place(self, upto: int) -> None:
        cards, size = self._cards, len(self._cards)
        for k in range(self._placed, min(upto, size)):
            j = self._randrange(k, size)
            cards[k], cards[j] = cards[j], cards[k]
        self._placed = max(self._placed, min(upto, size))

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if isinstance(index, slice):
            self._place(len(self._cards) if index.stop is None else index.stop)
            return self._cards[index]
        if index < 0:
            index += len(self._cards)
        if index >= self._placed:
            self._place(index + 1)
        return self._cards[index]


def simulate(
    deal: Callable, outcome: Callable, decks: int, coups: int, seed: int, full_shuffle: bool
) -> tuple[Counter, float]:
    """Deal ``coups`` coups, each from a fresh shoe; return the outcome counts and CPU seconds."""
    rng = random.Random(seed)
    cards = shoe_cards(decks)
    counts: Counter = Counter()
    started = time.process_time()
    if full_shuffle:
        for _ in range(coups):
            counts[outcome(deal(ShoeOrder.shuffle(decks, rng).cards))] += 1
    else:
        for _ in range(coups):
            counts[outcome(deal(FreshShoe(cards, rng)))] += 1
    return counts, time.process_time() - started


def engine_only(deal: Callable, decks: int, seed: int) -> float:
    """Coups per CPU second of ``deal`` alone, on shoe tops prepared beforehand."""
    rng = random.Random(seed)
    cards = shoe_cards(decks)
    tops = [tuple(rng.sample(cards, PREPARED_CARDS)) for _ in range(ENGINE_ONLY_COUPS)]
    started = time.process_time()
    for top in tops:
        deal(top)
    return ENGINE_ONLY_COUPS / (time.process_time() - started)


def compare(title: str, counts: Counter, exact: dict, coups: int) -> bool:
    """Print observed v exact with SEs; True when every outcome is within MAX_SE."""
    print(f"  {'outcome':<8} {'observed':>10} {'exact':>10} {'SE':>10} {'distance':>9}")
    ok = True
    for name, p in exact.items():
        observed = counts[name] / coups
        se = math.sqrt(float(p) * (1 - float(p)) / coups)
        z = (observed - float(p)) / se
        ok &= abs(z) <= MAX_SE
        print(f"  {name:<8} {observed:>10.6f} {float(p):>10.6f} {se:>10.6f} {z:>+8.2f}σ")
    print(f"  {title}: {'every outcome within' if ok else 'OUTSIDE'} {MAX_SE} SE")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--full-shuffle", action="store_true", help="shuffle the whole shoe for every coup")
    args = parser.parse_args(argv)
    if args.coups < 100:
        parser.error("--coups must be at least 100")

    started = time.process_time()
    tq_exact = trente_quarante.exact_probabilities(6)
    tq_exact_seconds = time.process_time() - started
    started = time.process_time()
    bac_exact = baccarat.exact_probabilities(8)
    bac_exact_seconds = time.process_time() - started

    print("Trente-et-quarante, 6 decks, a fresh shoe for every coup, through deal_rows")
    print(f"  exact probabilities computed in {tq_exact_seconds:.1f} s (CPU)")
    tq_counts, tq_seconds = simulate(
        trente_quarante.deal_rows, lambda c: c.result, 6, args.coups, args.seed, args.full_shuffle
    )
    print(f"  coups: {args.coups:,}   seed: {args.seed}   shuffle: {'full' if args.full_shuffle else 'lazy'}")
    tq_ok = compare("trente-et-quarante", tq_counts, tq_exact, args.coups)
    print(f"  speed: {args.coups / tq_seconds:,.0f} coups/s with the shuffle (one core, CPU time)")
    print(f"         {engine_only(trente_quarante.deal_rows, 6, args.seed):,.0f} coups/s deal_rows only")

    print("Baccarat (punto banco), 8 decks, a fresh shoe for every coup, through deal_coup")
    print(f"  exact probabilities computed in {bac_exact_seconds:.1f} s (CPU)")
    bac_counts, bac_seconds = simulate(
        baccarat.deal_coup, lambda c: c.winner, 8, args.coups, args.seed, args.full_shuffle
    )
    bac_ok = compare("baccarat", bac_counts, bac_exact, args.coups)
    print(f"  speed: {args.coups / bac_seconds:,.0f} coups/s with the shuffle (one core, CPU time)")
    print(f"         {engine_only(baccarat.deal_coup, 8, args.seed):,.0f} coups/s deal_coup only")
    return 0 if tq_ok and bac_ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
