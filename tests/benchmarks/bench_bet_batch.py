"""Benchmark: N single bet placements against one batch of N.

Run (not collected by pytest: the file is bench_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_bet_batch --bets 500 --rounds 3

It **drops and recreates** the PostgreSQL database ``--database`` (default
``casino_bench_batch``; the name must contain "bench"), migrates it, opens a roulette table and
``--bets`` patrons with chips. Each round opens a coup and times, alternately (so that the
machine's load falls on both alike), ``--bets`` even-chance bets of 10 EUR, one per patron:

- **single**: one ``games.services.bets.bet_place`` command each (one transaction, one commit);
- **batch**: one ``games.services.bet_batches.bet_batch_place`` with all of them (one commit).

Both through the services (no HTTP), on the same database, projection tasks off, wall-clock
time. Prints bets/s for each, the ratio, and checks that every bet was placed. ``--bets`` is at
most 1,000 (the batch's own limit).
"""

import argparse
import os
import statistics
import sys
import time

from tests.benchmarks.common import django_on, log, recreate_database

ROUGE = {"type": "chance_simple", "chance": "rouge"}
STAKE_CENTS = 1_000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bets", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", default="casino_bench_batch")
    args = parser.parse_args()
    if not 1 <= args.bets <= 1_000:
        sys.exit("--bets is 1 to 1,000 (a batch's limit)")
    recreate_database(args.database)
    django_on(args.database)
    from django.core.management import call_command

    from games.models import Bet
    from games.services.bet_batches import bet_batch_place
    from games.services.bets import bet_place
    from games.services.rounds import round_open, round_void
    from tests.benchmarks.common import roulette_table_with_patrons

    call_command("migrate", verbosity=0)
    actor = "bench"
    codes = roulette_table_with_patrons(
        patrons=args.bets, chips_cents=190_000, name="Batch Patron", document="BENCH-B", actor=actor
    )

    def single(coup: str) -> None:
        for code in codes:
            bet_place(round_id=coup, patron=code, stake_cents=STAKE_CENTS, bet=ROUGE, actor=actor)

    def batch(coup: str) -> None:
        bets = [{"patron": code, "stake_cents": STAKE_CENTS, "bet": ROUGE} for code in codes]
        result = bet_batch_place(round_id=coup, bets=bets, actor=actor)
        assert result["accepted"] == len(codes), result["results"][:3]

    seconds: dict[str, list[float]] = {"single": [], "batch": []}
    for r in range(args.rounds):
        order = [("single", single), ("batch", batch)] if r % 2 == 0 else [("batch", batch), ("single", single)]
        for name, run in order:
            coup = round_open(table="RB", actor=actor)["round"]
            started = time.perf_counter()
            run(coup)
            took = time.perf_counter() - started
            assert Bet.objects.filter(round_id=coup).count() == len(codes)
            seconds[name].append(took)
            log(f"round {r + 1}: {name:6} {len(codes)} bets in {took:.3f} s ({len(codes) / took:,.0f} bets/s)")
            round_void(round_id=coup, reason="benchmark coup", actor=actor)
    load = os.getloadavg()
    single_s, batch_s = statistics.median(seconds["single"]), statistics.median(seconds["batch"])
    print(f"\nN = {len(codes)} bets, {args.rounds} alternated rounds, median (load average {load[0]:.1f}):")
    print(f"  single placements: {single_s:.3f} s  ({len(codes) / single_s:,.0f} bets/s)")
    print(f"  one batch:         {batch_s:.3f} s  ({len(codes) / batch_s:,.0f} bets/s)")
    print(f"  batch / single:    {single_s / batch_s:.1f}x faster")


if __name__ == "__main__":
    main()
