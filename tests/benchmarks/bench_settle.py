"""Benchmark: one roulette settlement of many bets, against a raw COPY of the same rows, on
copies of one database, so that two versions of the code can be run alternately.

Run (not collected by pytest: the file is bench_*.py)::

    .venv/bin/python -m tests.benchmarks.bench_settle setup --patrons 10000 --database casino_bench_settle_tpl
    .venv/bin/python -m tests.benchmarks.bench_settle run --template casino_bench_settle_tpl \\
        --database casino_bench_settle_run [--profile var/settle.html]

``setup`` **drops and recreates** ``--database`` (its name must contain "bench"), migrates it,
opens a cage, an English roulette table and ``--patrons`` identified patrons with chips, opens
a coup, places 3 even-chance bets of 10 EUR for each patron (in batches of 1,000 through
``bet_batch_place``: the placement is not measured here) and calls rien ne va plus.

``run`` drops ``--database``, creates it as a copy of ``--template`` (``CREATE DATABASE …
TEMPLATE``), applies this tree's migrations (untimed), checkpoints, then times
``round_record_result`` of the coup (number 17), then a raw COPY of the same event, posting
and bet rows into plain tables in the same process (the suite's baseline), and prints one
JSON line: settle seconds, rows, rows/s, COPY rows/s, the ratio, and the CPU seconds the settle
took in this process and in its PostgreSQL backend (read from /proc: the server runs on this
machine), which hold when other processes share the cores. Started from two trees in
turn (``cd tree && .venv/bin/python -m tests.benchmarks.bench_settle run …``), each run
settles the same coup on the same data.
"""

import argparse
import json
import os
import sys
import time

from tests.benchmarks.common import PG_ADMIN, django_on, log, recreate_database

EVEN_CHANCES = tuple({"type": "chance_simple", "chance": chance} for chance in ("rouge", "impair", "manque"))
STAKE_CENTS = 1_000


def setup(patrons: int, dbname: str) -> None:
    recreate_database(dbname)
    django_on(dbname)
    from django.core.management import call_command

    from games.services.bet_batches import bet_batch_place
    from games.services.rounds import round_close_bets, round_open
    from tests.benchmarks.common import roulette_table_with_patrons

    call_command("migrate", verbosity=0)
    actor = "bench"
    codes = roulette_table_with_patrons(
        patrons=patrons, chips_cents=10_000, name="Settle Patron", document="BENCH-S", actor=actor
    )
    coup = round_open(table="RB", actor=actor)["round"]
    bets = [{"patron": code, "stake_cents": STAKE_CENTS, "bet": bet} for code in codes for bet in EVEN_CHANCES]
    log(f"placing {len(bets):,} bets in batches of 1,000")
    for start in range(0, len(bets), 1_000):
        result = bet_batch_place(round_id=coup, bets=bets[start : start + 1_000], actor=actor)
        assert result["accepted"] == len(bets[start : start + 1_000]), result["results"][:3]
    round_close_bets(round_id=coup, actor=actor)
    log(f"coup {coup} closed with {len(bets):,} bets")


def run(template: str, dbname: str, profile: str | None) -> None:
    import psycopg

    if "bench" not in dbname or dbname == template:
        raise SystemExit("the copy's name must contain 'bench' and differ from the template's")
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{dbname}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{dbname}" TEMPLATE "{template}"')
    django_on(dbname)
    from django.core.management import call_command
    from django.db import connection

    from games.models import Round
    from games.services.rounds import round_record_result
    from ledger.models import Event, Posting
    from tests.benchmarks.suite_ledger import _copy_same_rows

    call_command("migrate", verbosity=0)
    coup = str(Round.objects.get(state=Round.State.CLOSED_FOR_BETS).id)
    first = Event.objects.order_by("-position").values_list("position", flat=True).first() + 1
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")
        cursor.execute("ANALYZE")
    profiler = None
    if profile:
        from pyinstrument import Profiler

        profiler = Profiler(interval=0.0005)
        profiler.start()
    backend = _backend_cpu_reader()
    server_before, started, cpu_started = backend(), time.perf_counter(), time.process_time()
    result = round_record_result(round_id=coup, number=17, actor="bench")
    settle_seconds = time.perf_counter() - started
    client_cpu, server_cpu = time.process_time() - cpu_started, backend() - server_before
    if profiler:
        profiler.stop()
        with open(profile, "w") as out:
            out.write(profiler.output_html())
        print(profiler.output_text(unicode=False, color=False, show_all=False), file=sys.stderr)
    events = Event.objects.filter(position__gte=first).count()
    postings = Posting.objects.filter(event_id__gte=first).count()
    rows = events + postings + result["bets_settled"] + 1
    copy_seconds = _copy_same_rows(first, coup)
    print(
        json.dumps(
            {
                "bets": result["bets_settled"],
                "events": events,
                "postings": postings,
                "rows": rows,
                "settle_s": round(settle_seconds, 3),
                "rows_per_s": round(rows / settle_seconds),
                "copy_s": round(copy_seconds, 3),
                "copy_rows_per_s": round(rows / copy_seconds),
                "ratio": round(copy_seconds / settle_seconds, 3),
                "client_cpu_s": round(client_cpu, 3),
                "server_cpu_s": round(server_cpu, 3),
                "load": round(os.getloadavg()[0], 2),
            }
        )
    )


def _backend_cpu_reader():
    """A function giving the CPU seconds (user + system) used so far by this connection's
    PostgreSQL backend, read from /proc (the server runs on this machine): with the client's
    own CPU time, what the settlement costs whatever the other processes take."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    ticks = os.sysconf("SC_CLK_TCK")

    def read() -> float:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / ticks

    return read


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=("setup", "run"))
    parser.add_argument("--patrons", type=int, default=10_000)
    parser.add_argument("--database", required=True)
    parser.add_argument("--template", default="casino_bench_settle_tpl")
    parser.add_argument("--profile", default=None, help="pyinstrument HTML output file for the settle")
    args = parser.parse_args()
    if args.mode == "setup":
        setup(args.patrons, args.database)
    else:
        run(args.template, args.database, args.profile)


if __name__ == "__main__":
    main()
