"""Caribbean stud: the house edge of each pay table under the product's strategy, by a seeded
simulation with its standard error; the exact figures (``games.rules.caribbean_edge``) come
from ``enumerate_caribbean_edge`` and lie within one standard error of it.

Run (not collected by pytest)::

    .venv/bin/python -m tests.benchmarks.bench_caribbean_edge --coups 40000000 --seed 28

Each coup deals ten cards of a fresh 52-card deck (``random.Random(seed).sample``): five to the
player, five to the dealer. The player raises (2 × the ante) with a pair or better or ace-king
high and folds otherwise (``demo/stud.py``); settlement follows ``games.rules.caribbean_stud``
(dealer qualifies with A-K or better; not qualified: ante 1:1, raise returned; player higher:
ante 1:1, raise at the pay table; tie: push; lower: both lost). Both pay tables are scored on
the same coups. Printed: the house edge per ante and per total bet (ante + raise when raised),
each with one standard error.
"""

import argparse
import math
import random

from games.rules.caribbean_stud import PAY_TABLES
from games.rules.poker_hands import _CARD_INT, _QUALIFIES, CATEGORIES, rank_value

_PAIR = 1 << 20


def simulate(coups: int, seed: int) -> dict[str, tuple[float, float, float]]:
    rng = random.Random(seed)
    deck = list(_CARD_INT.values())
    assert len(deck) == 52
    odds = {name: [table[c] for c in CATEGORIES] for name, table in PAY_TABLES.items()}
    sums = {name: [0.0, 0.0] for name in odds}  # Σ net per ante, Σ net²
    wagered = 0
    sample = rng.sample
    for _ in range(coups):
        c = sample(deck, 10)
        pv = rank_value(c[0], c[1], c[2], c[3], c[4])
        if pv < _PAIR and not ((pv >> 16) & 0xF == 14 and (pv >> 12) & 0xF == 13):
            for s in sums.values():
                s[0] -= 1
                s[1] += 1
            wagered += 1
            continue
        wagered += 3
        dv = rank_value(c[5], c[6], c[7], c[8], c[9])
        for name, s in sums.items():
            if dv < _QUALIFIES:
                net = 1
            elif pv > dv:
                net = 1 + 2 * odds[name][pv >> 20]
            elif pv == dv:
                net = 0
            else:
                net = -3
            s[0] += net
            s[1] += net * net
    out = {}
    for name, (total, squares) in sums.items():
        mean = total / coups
        se = math.sqrt((squares / coups - mean * mean) / coups)
        out[name] = (-mean, se, -total / wagered)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--coups", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args(argv)
    for name, (edge, se, per_total) in simulate(args.coups, args.seed).items():
        print(f"{name}: {edge * 100:.3f}% of the ante ± {se * 100:.3f} (1 SE); {per_total * 100:.3f}% of the total bet")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
