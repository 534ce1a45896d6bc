"""Benchmark: export (and verify) a gaming day of ≥ 1,000,000 events on PostgreSQL.

Run on demand, not in the test run:

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/casino_bench_h4 \\
        .venv/bin/python -m tests.benchmarks.bench_export --events 1000000 [--keep]

It drops and recreates the database named in DATABASE_URL (unless ``--keep`` finds enough
events), appends ``--events`` events of today's gaming day through ``ledger.store.append``
(batches of 1,000: two thirds bets with 2 postings, one third chip sales with 4), seals the
day, then in separate child processes (so each peak is its own) writes the export to a
directory, streams it as a zip, and runs the standalone verifier, printing wall time and the
child's peak resident memory (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss``).
"""

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

LIMIT_MB = 300


def _generate(count: int) -> None:
    from django.db import transaction

    from ledger.models import Event
    from ledger.store import Leg, NewEvent, append

    have = Event.objects.count()
    started = time.perf_counter()
    while have < count:
        size = min(1000, count - have)
        events = []
        for i in range(have, have + size):
            patron, table = f"P{i % 500:05d}", f"T{i % 20}"
            if i % 3:
                events.append(
                    NewEvent(
                        "BetSettled",
                        {"patron": patron, "table": table, "stake_cents": 500, "return_cents": 0},
                        [Leg(f"patron:{patron}:chips", -500), Leg(f"table:{table}:tray", 500)],
                    )
                )
            else:
                events.append(
                    NewEvent(
                        "ChipsPurchased",
                        {"patron": patron, "amount_cents": 10_000, "transaction": f"t{i}"},
                        [
                            Leg("external:cash", -10_000),
                            Leg("cage:cash", 10_000),
                            Leg("cage:chips", -10_000),
                            Leg(f"patron:{patron}:chips", 10_000),
                        ],
                    )
                )
        with transaction.atomic():
            append(stream=f"bench/{have}", expected_version=0, actor="bench", events=events)
        have += size
        if have % 100_000 == 0:
            print(f"  appended {have:,} events ({have / (time.perf_counter() - started):,.0f}/s)", flush=True)


def _child(mode: str, target: str) -> None:
    """Runs in a child process: one export or one verification."""
    import django

    django.setup()
    from ledger.export.writer import export_to_dir, export_zip_stream
    from ledger.gaming_day import current_gaming_day

    day = current_gaming_day()
    if mode == "dir":
        manifest = export_to_dir(day, target)
        size = sum(f["bytes"] for f in manifest["files"].values())
        print(f"    {manifest['event_count']:,} events, files: {size:,} bytes")
    elif mode == "zip":
        size = 0
        with open(target, "wb") as handle:
            for chunk in export_zip_stream(day):
                handle.write(chunk)
                size += len(chunk)
        print(f"    zip stream: {size:,} bytes")
    elif mode == "verify":
        from ledger.export.verify_export import verify

        print(f"    {verify(target).message}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes
    verdict = "OK" if peak_mb < LIMIT_MB else f"OVER {LIMIT_MB} MB"
    print(f"    peak RSS of this process: {peak_mb:.1f} MB ({verdict}, limit {LIMIT_MB} MB)", flush=True)


def _measure(label: str, argv: list[str]) -> None:
    print(label, flush=True)
    started = time.perf_counter()
    subprocess.run(argv, check=True)
    print(f"    {time.perf_counter() - started:.1f} s wall", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--keep", action="store_true", help="reuse the database if it has enough events")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "TARGET"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    os.environ["CELERY_BROKER_URL"] = ""
    if args.child:
        _child(*args.child)
        return
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL database this benchmark may drop")

    import django
    import psycopg

    name = url.rsplit("/", 1)[1]
    if not args.keep:
        with psycopg.connect("host=127.0.0.1 port=5432 user=postgres dbname=postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from ledger.gaming_day import current_gaming_day
    from ledger.models import Event
    from ledger.seal import latest_seal, seal_gaming_day

    call_command("migrate", verbosity=0)
    t0 = time.perf_counter()
    _generate(args.events)
    print(f"ledger holds {Event.objects.count():,} events ({time.perf_counter() - t0:.0f} s to append)")
    with connection.cursor() as cursor:  # fresh tables have no planner statistics until autovacuum gets to them
        cursor.execute("ANALYZE ledger_event; ANALYZE ledger_posting")
    day = current_gaming_day()
    if latest_seal(day=day) is None or latest_seal(day=day).data["last_position"] < args.events:
        seal = seal_gaming_day(day=day, actor="bench")
        print(f"sealed {day}: positions {seal['first_position']}..{seal['last_position']}", flush=True)
    me = [sys.executable, "-m", "tests.benchmarks.bench_export"]
    with tempfile.TemporaryDirectory(prefix="bench_export_") as tmp:
        out_dir, out_zip = os.path.join(tmp, "export"), os.path.join(tmp, "export.zip")
        _measure("export to a directory", [*me, "--child", "dir", out_dir])
        _measure("export as a zip stream", [*me, "--child", "zip", out_zip])
        _measure("standalone verifier (dir)", [*me, "--child", "verify", out_dir])


if __name__ == "__main__":
    main()
