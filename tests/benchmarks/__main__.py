"""The benchmark suite, one command (not part of the test run)::

    .venv/bin/pip install -r requirements/bench.txt      # baselines and profilers, once
    .venv/bin/python -m tests.benchmarks                  # about 15 minutes on 2 cores
    .venv/bin/python -m tests.benchmarks --quick          # small sizes, to check it runs

It DROPS and recreates the PostgreSQL database ``--database`` (default ``casino_bench``; the
name must contain "bench"), on the local server as user ``postgres``, then runs the sections
of the issue's table in order: pure engines; ledger append (batch and single) against raw
``executemany`` and the ``eventsourcing`` recorder; a live-dealer roulette spin against a
raw COPY; the ledger filled to ``--events`` events; projection rebuild against a raw read and
eventsourcing's notification log; ``ledger verify`` against a bare SHA-256 loop; bet
placement over HTTP (gunicorn + a load generator in a second process); the gaming-day export
when ``manage.py export_gaming_day`` exists. Each figure is compared with its baseline
measured in the same run. Results go to ``tests/benchmarks/results/<UTC date-time>.md`` and
``.json`` with the machine's description (CPU, cores, RAM, PostgreSQL version, fsync).
the pit boss's floor refresh with 20 tables open and a day of coups against raw SELECTs of
the same rows (``bench_floor``). ``--only append,spin`` runs some sections (names: engines,
append, spin, bet_window, rebuild, verify, api, export, floor); the database is filled only when
a section needs it. ``bet_window``: ``--patrons`` × 3 bets (10,000; 1,000 with
``--quick``) sent through gunicorn in batches of 1,000, then the spin settled. ``worker``: bets
over HTTP at 125/s offered with a Celery worker catching the projections up against none
(``bench_worker``); ``broker``: commands with the broker down against up (``bench_broker``);
both need the RabbitMQ of ``--amqp`` and use a queue of their own there.
"""

import argparse
import json
import os
import platform
import sys
import time
import traceback
from datetime import UTC, datetime
from pathlib import Path

from .common import Figure, database_url, log, recreate_database

SECTIONS = (
    "engines",
    "append",
    "spin",
    "bet_window",
    "rebuild",
    "verify",
    "api",
    "export",
    "floor",
    "worker",
    "broker",
)
RESULTS = Path(__file__).resolve().parent / "results"
ROOT = Path(__file__).resolve().parents[2]


def machine() -> dict:
    """CPU model, cores, RAM, Python, and the PostgreSQL server's version and durability settings."""
    import psycopg

    from .common import PG_ADMIN

    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ram_gib = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    with psycopg.connect(PG_ADMIN) as conn:
        pg = {
            name: conn.execute(f"SHOW {name}").fetchone()[0]
            for name in ("server_version", "fsync", "synchronous_commit", "full_page_writes", "shared_buffers")
        }
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gib": round(ram_gib, 1),
        "os": platform.platform(),
        "python": platform.python_version(),
        "postgresql": pg,
        "load_average_at_start": os.getloadavg(),
    }


def write_results(info: dict, figures: list[Figure], args: argparse.Namespace, started: datetime) -> Path:
    RESULTS.mkdir(exist_ok=True)
    stem = RESULTS / started.strftime("%Y-%m-%dT%H%MZ")
    payload = {
        "started": started.isoformat(timespec="seconds"),
        "finished": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "arguments": vars(args),
        "machine": info,
        "figures": [f.as_dict() for f in figures],
    }
    stem.with_suffix(".json").write_text(json.dumps(payload, indent=2, default=str) + "\n")
    pg = info["postgresql"]
    lines = [
        f"# Benchmark results, {started:%Y-%m-%d %H:%M} UTC",
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['ram_gib']} GiB RAM, {info['os']}, "
        f"Python {info['python']}; PostgreSQL {pg['server_version']} (fsync {pg['fsync']}, "
        f"synchronous_commit {pg['synchronous_commit']}, full_page_writes {pg['full_page_writes']}, "
        f"shared_buffers {pg['shared_buffers']}) on the same machine, loopback. "
        f"Load average at start: {', '.join(f'{x:.2f}' for x in info['load_average_at_start'])} "
        "(the machine is shared: compare ratios, not absolute figures).",
        "",
        f"Command: `{payload['command']}`. Finished {payload['finished']}.",
        "",
        "| section | what | value | baseline (same run) | ratio | target | met |",
        "|---|---|---|---|---|---|---|",
    ]
    for f in figures:
        base = "<br>".join(f"{name}: {_num(value)}" for name, value in f.baselines.items()) or "—"
        ratio = f"{f.ratio:.2f} × {f.versus}" if f.ratio is not None else "—"
        met = {True: "yes", False: "**no**", None: "—"}[f.met]
        value = f"{_num(f.value)} {f.unit}" + (f" ({f.notes})" if f.notes else "")
        lines.append(f"| {f.section} | {f.what} | {value} | {base} | {ratio} | {f.target or '—'} | {met} |")
    lines.append("")
    stem.with_suffix(".md").write_text("\n".join(lines))
    return stem.with_suffix(".md")


def _num(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:,.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description="the benchmark suite")
    parser.add_argument("--database", default="casino_bench", help="PostgreSQL database to DROP and recreate")
    parser.add_argument("--only", default=",".join(SECTIONS), help=f"comma-separated, of {', '.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="small sizes: check that the suite runs")
    parser.add_argument("--events", type=int, default=None, help="ledger size for rebuild/verify (500,000)")
    parser.add_argument("--export-events", type=int, default=None, help="ledger size for the export (1,000,000)")
    parser.add_argument("--patrons", type=int, default=None, help="patrons at the roulette spin (10,000)")
    parser.add_argument("--api-seconds", type=int, default=None, help="seconds of each HTTP load phase (20)")
    parser.add_argument("--workers", type=int, default=None, help="gunicorn workers (default: cores + 1)")
    parser.add_argument(
        "--broker",
        default="redis://127.0.0.1:6379/14",
        help="Celery broker for the parallel rebuild's worker ('' to leave that figure out)",
    )
    parser.add_argument("--rebuild-workers", type=int, default=4, help="worker processes of the parallel rebuild")
    parser.add_argument(
        "--amqp",
        default="amqp://guest:guest@127.0.0.1:5672//",
        help="RabbitMQ of the worker and broker sections (a queue of their own; never stopped)",
    )
    parser.add_argument("--worker-seconds", type=int, default=None, help="seconds of each worker phase (25)")
    parser.add_argument("--worker-rounds", type=int, default=2, help="worker on/off pairs, alternated (2)")
    parser.add_argument("--worker-nice", type=int, default=0, help="the worker's nice value (0: as deploy/ runs it)")
    parser.add_argument("--broker-bets", type=int, default=None, help="commands a broker round (500)")
    parser.add_argument("--broker-rounds", type=int, default=3, help="broker rounds, alternated (3)")
    parser.add_argument("--no-write", action="store_true", help="print only, write no results file")
    args = parser.parse_args(argv)
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown sections: {', '.join(sorted(unknown))}")
    quick = args.quick
    events = args.events or (20_000 if quick else 500_000)
    export_events = args.export_events or (30_000 if quick else 1_000_000)
    patrons = args.patrons or (300 if quick else 10_000)
    api_seconds = args.api_seconds or (5 if quick else 20)

    started = datetime.now(UTC)
    info = machine()
    if info["postgresql"]["fsync"] != "on":
        log("WARNING: fsync is off on this server: figures are not comparable to production")
    log(f"machine: {info['cpu']}, {info['cores']} cores, PostgreSQL {info['postgresql']['server_version']}")

    recreate_database(args.database)
    os.environ["DATABASE_URL"] = database_url(args.database)
    os.environ["CELERY_BROKER_URL"] = ""
    for scope in ("DEVICE", "USER", "ANON"):  # bets under load measure the service, not the rate limit
        os.environ[f"API_THROTTLE_{scope}"] = "off"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)

    from . import suite_ledger

    figures: list[Figure] = []
    t0 = time.perf_counter()

    def run(section: str, bench) -> None:
        # A section that fails is recorded as such and the others still run (a long run
        # should not be lost to one error).
        try:
            figures.extend(bench())
        except Exception as exc:  # noqa: BLE001
            log(f"{section}: FAILED: {exc!r}")
            traceback.print_exc()
            figures.append(Figure(section, f"FAILED: {exc!r}"[:300], 0, "", met=False))

    if "engines" in only:
        from .suite_engines import bench_engines

        log("engines")
        run("pure engines", lambda: bench_engines(scale=1 if quick else 5))
    if "append" in only:
        run(
            "ledger append",
            lambda: suite_ledger.bench_append(
                coups=10 if quick else 40, singles=50 if quick else 300, rounds=3, dbname=args.database
            ),
        )
    if "spin" in only:
        run("roulette spin", lambda: suite_ledger.bench_roulette_spin(patrons=patrons))
    if "bet_window" in only:
        from .suite_bet_window import bench_bet_window

        run(
            "bet window",
            lambda: bench_bet_window(
                patrons=args.patrons or (1_000 if quick else 10_000), workers=args.workers, database=args.database
            ),
        )
    if "rebuild" in only or "verify" in only:
        with suite_ledger.no_projection_tasks():
            es = suite_ledger.fill_ledger(events=events, dbname=args.database)
        if "rebuild" in only:
            run(
                "projection rebuild",
                lambda: suite_ledger.bench_rebuild(
                    es, broker=args.broker, workers=args.rebuild_workers, rounds=1 if quick else 2
                ),
            )
        if "verify" in only:
            run("ledger verify", suite_ledger.bench_verify)
        es.close()
    if "api" in only:
        from .suite_api import bench_api

        run(
            "API bet placement",
            lambda: bench_api(seconds=api_seconds, workers=args.workers, database=args.database, quick=quick),
        )
    if "export" in only:
        from .suite_export import bench_export

        run("gaming-day export", lambda: bench_export(events=export_events, dbname=args.database))
    if "floor" in only:
        from .bench_floor import bench_floor

        log("floor")
        run("floor refresh", lambda: bench_floor(coups=40 if quick else 320, rounds=5 if quick else 20))
    if "worker" in only:
        from .bench_worker import bench_worker

        run(
            "worker",
            lambda: bench_worker(
                seconds=args.worker_seconds or (8 if quick else 25),
                workers=args.workers,
                database=args.database,
                rounds=args.worker_rounds,
                patrons=60 if quick else 300,
                broker=args.amqp,
                nice=args.worker_nice,
            ),
        )
    if "broker" in only:
        from .bench_broker import bench_broker

        log("broker")
        run(
            "broker",
            lambda: bench_broker(
                bets=args.broker_bets or (100 if quick else 500),
                rounds=args.broker_rounds,
                database=args.database,
                patrons=20 if quick else 100,
                broker=args.amqp,
            ),
        )
    log(f"done in {time.perf_counter() - t0:,.0f} s")
    for f in figures:
        ratio = f" = {f.ratio:.2f} x {f.versus}" if f.ratio is not None else ""
        met = "" if f.met is None else (" [met]" if f.met else " [MISSED]")
        print(f"{f.section:<20} {f.what[:70]:<70} {_num(f.value):>12} {f.unit}{ratio}{met}")
        for name, value in f.baselines.items():
            print(f"{'':<20}   baseline {name}: {_num(value)}")
    if not args.no_write:
        path = write_results(info, figures, args, started)
        log(f"results written to {path.relative_to(ROOT)} and .json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
