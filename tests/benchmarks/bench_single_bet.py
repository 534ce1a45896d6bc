"""Benchmark: the single-bet path against the disk's commit rate.

Run (not collected by pytest: the file is bench_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_single_bet --bets 300 --rounds 3

It **drops and recreates** the PostgreSQL database ``--database`` (default
``casino_bench_single``; the name must contain "bench"), migrates it, opens a roulette table and
``--bets`` patrons with chips. Each round times, alternately (so that the machine's load falls
on each alike):

- **bet_place**: ``--bets`` even-chance bets of 10 EUR, one per patron, each one
  ``games.services.bets.bet_place`` command (its own transaction and commit), on a fresh coup;
- **raw**: as many transactions of one event row and its two posting rows written with plain
  psycopg into index-free tables (``baselines.raw_executemany``), each committed: what the disk's
  commit rate allows one writer, with nothing checked.

Both through the same server, projection tasks off, wall-clock time. Prints commands/s, the
raw transactions/s and the ratio (the issue's target: within 15 %, i.e. ≥ 0.85).
"""

import argparse
import os
import statistics
import time

from tests.benchmarks.common import django_on, log, recreate_database

ROUGE = {"type": "chance_simple", "chance": "rouge"}
STAKE_CENTS = 1_000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bets", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", default="casino_bench_single")
    args = parser.parse_args()
    recreate_database(args.database)
    django_on(args.database)
    from django.core.management import call_command

    from games.services.bets import bet_place
    from games.services.rounds import round_open, round_void
    from tests.benchmarks import baselines
    from tests.benchmarks.common import raw_connection, roulette_table_with_patrons
    from tests.benchmarks.suite_ledger import _RawWriter

    call_command("migrate", verbosity=0)
    actor = "bench"
    codes = roulette_table_with_patrons(
        patrons=args.bets,
        chips_cents=10 * STAKE_CENTS * (args.rounds + 1),
        name="Single Patron",
        document="BENCH-1-",
        actor=actor,
    )
    conn = raw_connection()
    baselines.create_raw_tables(conn)
    raw = _RawWriter(conn)

    def commands_run() -> tuple[float, float]:
        coup = round_open(table="RB", actor=actor)["round"]
        started, cpu = time.perf_counter(), time.process_time()
        for code in codes:
            bet_place(round_id=coup, patron=code, stake_cents=STAKE_CENTS, bet=ROUGE, actor=actor)
        took, cpu = time.perf_counter() - started, time.process_time() - cpu
        round_void(round_id=coup, reason="benchmark coup", actor=actor)
        return took, cpu

    def raw_run() -> tuple[float, float]:
        started, cpu = time.perf_counter(), time.process_time()
        for _ in codes:
            raw.executemany(1)
        return time.perf_counter() - started, time.process_time() - cpu

    seconds: dict[str, list[float]] = {"bet_place": [], "raw": []}
    cpu_ms: dict[str, list[float]] = {"bet_place": [], "raw": []}  # this process's CPU a transaction
    for r in range(args.rounds):
        order = [("bet_place", commands_run), ("raw", raw_run)]
        for name, run in order if r % 2 == 0 else order[::-1]:
            took, cpu = run()
            seconds[name].append(took)
            cpu_ms[name].append(1000 * cpu / len(codes))
            log(
                f"round {r + 1}: {name:9} {len(codes)} transactions in {took:.3f} s ({len(codes) / took:,.0f}/s),"
                f" {cpu_ms[name][-1]:.2f} ms of client CPU each"
            )
    conn.close()
    load = os.getloadavg()
    rates = {name: [len(codes) / s for s in values] for name, values in seconds.items()}
    ratios = [c / r for c, r in zip(rates["bet_place"], rates["raw"], strict=True)]
    print(f"\nN = {len(codes)}, {args.rounds} alternated rounds (load average {load[0]:.1f}):")
    print(f"  bet_place, one command a transaction: median {statistics.median(rates['bet_place']):,.0f}/s")
    print(f"  raw one-event transactions:           median {statistics.median(rates['raw']):,.0f}/s")
    print(f"  ratio per round: {', '.join(f'{x:.2f}' for x in ratios)}; median {statistics.median(ratios):.2f}")
    for name in ("bet_place", "raw"):
        wall = 1000 * statistics.median(seconds[name]) / len(codes)
        cpu = statistics.median(cpu_ms[name])
        print(f"  {name}: median {wall:.2f} ms a transaction, of which {cpu:.2f} ms client CPU")


if __name__ == "__main__":
    main()
