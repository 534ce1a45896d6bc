"""Benchmark: projection rebuild throughput on PostgreSQL. Run on demand:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_bench \\
        .venv/bin/python -m tests.benchmarks.bench_rebuild --events 500000

It drops and recreates the database named in DATABASE_URL, migrates it, appends ``--events``
events through ``ledger.store.append`` (a mix: 2-posting transfers naming a patron and a
table, like buy-ins and bets), then times ``projections.rebuild()`` per projection and prints
events per second. Results are written down in the closing notes, not asserted.
"""

import argparse
import os
import sys
import time


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=500_000)
    parser.add_argument("--keep", action="store_true", help="reuse the database if it has enough events")
    args = parser.parse_args()
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL database this benchmark may drop")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["CELERY_BROKER_URL"] = ""

    import django
    import psycopg

    name = url.rsplit("/", 1)[1]
    if not args.keep:
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    django.setup()
    from django.core.management import call_command
    from django.db import transaction

    from ledger import projections
    from ledger.models import Event
    from ledger.store import Leg, NewEvent, append

    call_command("migrate", verbosity=0)
    have = Event.objects.count()
    started = time.perf_counter()
    batch = 1000
    while have < args.events:
        size = min(batch, args.events - have)
        with transaction.atomic():
            append(
                stream=f"bench/{have}",
                expected_version=0,
                actor="bench",
                events=[
                    NewEvent(
                        "BetSettled" if (have + i) % 3 else "CashBuyIn",
                        {
                            "patron": f"P{(have + i) % 500:05d}",
                            "table": f"T{(have + i) % 20}",
                            "stake_cents": 500,
                            "return_cents": 0,
                            "house_edge": "1/37",
                            "amount_cents": 500,
                        },
                        [
                            Leg(f"patron:P{(have + i) % 500:05d}:chips", -500),
                            Leg(f"table:T{(have + i) % 20}:tray", 500),
                        ],
                    )
                    for i in range(size)
                ],
            )
        have += size
        if have % 50_000 == 0:
            print(f"  appended {have} events ({have / (time.perf_counter() - started):,.0f}/s)", flush=True)
    print(f"ledger holds {Event.objects.count():,} events")
    total = time.perf_counter()
    for name in projections.names():
        t0 = time.perf_counter()
        applied = projections.rebuild([name], batch=5000)[name]
        seconds = time.perf_counter() - t0
        print(f"rebuild {name:<12} {applied:>9,} events in {seconds:7.1f} s = {applied / seconds:>9,.0f} events/s")
    seconds = time.perf_counter() - total
    count = Event.objects.count()
    print(
        f"rebuild all projections: {seconds:.1f} s = {count / seconds:,.0f} events/s (each event through 4 projectors)"
    )


if __name__ == "__main__":
    main()
