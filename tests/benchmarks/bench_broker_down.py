"""Benchmark: bet placements while the Celery broker is down.

Run (not collected by pytest: the file is bench_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_broker_down --bets 100 --rounds 3

It **drops and recreates** the PostgreSQL database ``--database`` (default
``casino_bench_broker``; the name must contain "bench"), migrates it, opens a roulette table and
``--bets`` patrons with chips. The broker is a closed port on loopback (a broker that is down:
the connection is refused at once). Each round times, alternately, ``--bets`` even-chance bets
of 10 EUR, one ``bet_place`` command each (its own commit, after which the projection catch-up
is published):

- **published as now**: ``ledger.commands._schedule_projections`` as it is (one attempt, then
  no attempt for ``_BROKER_DOWN_SECONDS``);
- **Celery's defaults**: the same commands publishing with ``catch_up_projections.delay()``
  after each commit (Celery's publish retries and kombu's reconnecting, in the request), the
  way the catch-up was published before;
- **no publishing**: the same commands with publishing switched off: the baseline.

Wall-clock time; prints bets/s of each and the ratio to the baseline.
"""

import argparse
import os
import statistics
import time

from tests.benchmarks.common import database_url, log, recreate_database

ROUGE = {"type": "chance_simple", "chance": "rouge"}
STAKE_CENTS = 1_000
DOWN = "amqp://guest:guest@127.0.0.1:1//"  # nothing listens on port 1


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bets", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--database", default="casino_bench_broker")
    args = parser.parse_args()
    recreate_database(args.database)
    # As tests.benchmarks.common.django_on, but with the broker named (down) from the start, so
    # that Celery's own connection pool points at it, and publishing left on.
    os.environ["DATABASE_URL"] = database_url(args.database)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["CELERY_BROKER_URL"] = DOWN
    import django

    django.setup()
    from django.core.management import call_command

    from casino.celery import app
    from games.services.bets import bet_place
    from games.services.rounds import round_open, round_void
    from ledger import commands
    from ledger.tasks import catch_up_projections
    from tests.benchmarks.common import roulette_table_with_patrons

    call_command("migrate", verbosity=0)
    actor = "bench"
    codes = roulette_table_with_patrons(
        patrons=args.bets,
        chips_cents=10 * STAKE_CENTS * (3 * args.rounds + 1),
        name="Broker Patron",
        document="BENCH-B-",
        actor=actor,
    )
    fresh = commands
    schedule = fresh._schedule_projections
    assert app.conf.broker_url == DOWN and not app.conf.task_always_eager

    def celery_defaults():
        # The catch-up as it was published before: ``delay()`` after each commit, a failure
        # logged and the next commit trying again (the last publish time moved only on success).
        try:
            catch_up_projections.delay()
        except Exception:  # noqa: BLE001 - as the publisher caught it
            pass

    send_now = fresh._send
    ways = {
        "published as now": (schedule, send_now),
        "Celery's defaults": (celery_defaults, send_now),
        "no publishing": (lambda: None, send_now),
    }

    def run(way: str) -> float:
        fresh._schedule_projections, fresh._send = ways[way]
        fresh._publishing = fresh._Publishing()
        coup = round_open(table="RB", actor=actor)["round"]
        started = time.perf_counter()
        for code in codes:
            bet_place(round_id=coup, patron=code, stake_cents=STAKE_CENTS, bet=ROUGE, actor=actor)
        took = time.perf_counter() - started
        round_void(round_id=coup, reason="benchmark coup", actor=actor)
        return took

    seconds: dict[str, list[float]] = {way: [] for way in ways}
    for r in range(args.rounds):
        order = list(ways) if r % 2 == 0 else list(ways)[::-1]
        for way in order:
            took = run(way)
            seconds[way].append(took)
            log(f"round {r + 1}: {way:18} {len(codes)} bets in {took:.2f} s ({len(codes) / took:,.1f}/s)")
    load = os.getloadavg()
    rates = {way: statistics.median(len(codes) / s for s in values) for way, values in seconds.items()}
    print(f"\nN = {len(codes)} bets a round, {args.rounds} alternated rounds, broker down (load {load[0]:.1f}):")
    for way, rate in rates.items():
        print(f"  {way:18} median {rate:,.1f} bets/s ({rate / rates['no publishing']:.2f} of no publishing)")


if __name__ == "__main__":
    main()
