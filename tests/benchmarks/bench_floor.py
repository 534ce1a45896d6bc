"""Benchmark: the pit boss's floor refresh with 20 tables open and a day of coups (target:
under 100 ms of server time a refresh). Section ``floor`` of ``python -m tests.benchmarks``,
or alone (it drops and recreates the database, whose name must contain "bench")::

    .venv/bin/python -m tests.benchmarks.bench_floor --database casino_bench_floor --tables 20 --coups 320

Set-up, not timed: the cage, ``--tables`` tables of the six games opened through
``table_open`` with three cash buy-ins each and one real roulette coup, then ``--coups``
coups a table of ``--bets`` settled bets each appended as synthetic ledger events (the shapes
the engines write: ``BetSettled`` with table, patron, stake, return and house edge, the ante
line at Caribbean stud; ``RoundSettled``; postings on the table's tray), and the projections
caught up. Timed, ``--rounds`` times interleaved, median: ``GET /dashboard/_live`` (the
fragment htmx polls every 3 s) and ``GET /dashboard/`` (the whole page) through Django's
test client as a logged-in pit boss (middleware, views, selectors, templates: the server's
whole work, no network), against two raw reads on the same connection: the cards' own rows
(tables and their day statistics) and the day's decided bets of those tables, the rows the
floor's sums go over. The query count of one refresh and the Python CPU time of the server's
part (median; the rest is PostgreSQL and waiting on a shared machine) are noted beside.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import uuid

from .common import Figure, database_url, log, recreate_database

GAMES = (
    ("R", "english_roulette", 8),
    ("B", "blackjack", 4),
    ("P", "baccarat", 3),
    ("C", "caribbean_stud", 2),
    ("T", "trente_quarante", 2),
    ("S", "classic_stud", 1),
)
EDGES = {
    "english_roulette": "1/37",
    "blackjack": "0.005",
    "baccarat": "0.010579",
    "caribbean_stud": "0.04108",
    "trente_quarante": "0.011",
    "classic_stud": "0",
}
ACTOR = "bench-pit-boss"


def table_codes(count: int) -> list[tuple[str, str]]:
    """``[(code, game)]``: ``count`` tables spread over the six games as ``GAMES`` weighs them."""
    codes, n = [], 0
    while len(codes) < count:
        for prefix, game, weight in GAMES:
            for _ in range(weight):
                if len(codes) < count:
                    n += 1
                    codes.append((f"{prefix}{n}", game))
    return codes


def set_up_floor(*, tables: int, coups: int, bets: int, seed: int = 23) -> list[str]:
    """Open the floor and write its day (see the module docstring); returns the table codes."""
    from django.db import transaction
    from django.test import override_settings

    from cashier.services.cage import cage_open
    from games.services.bets import bet_place
    from games.services.rounds import round_close_bets, round_open, round_record_result
    from games.services.tables import table_buy_in, table_open
    from ledger import projections
    from ledger.errors import StateConflict
    from ledger.store import Leg, NewEvent, append
    from patrons.services.patrons import patron_register

    from .suite_ledger import ensure_cage_shift, no_projection_tasks

    rng = random.Random(seed)
    floor = table_codes(tables)
    with no_projection_tasks():
        try:
            cage_open(cash_cents=10**10, chips_cents=10**10, actor=ACTOR)
        except StateConflict:
            pass
        ensure_cage_shift()
        players = [
            patron_register(kind="identified", name=f"Floor {p}", document=f"BENCH-F{p}", actor=ACTOR)["patron"]
            for p in range(6)
        ]
        with override_settings(CASINO_LARGE_OPENER_CENTS=10**10):
            for code, game in floor:
                table_open(code=code, game=game, opener_cents=5_000_000, actor=ACTOR, rules={})
                for player in players[:3]:
                    table_buy_in(code=code, patron=player, amount_cents=20_000, actor=ACTOR)
        for code, game in floor:
            if game == "english_roulette":  # a real coup: the seated patrons and the coup records
                coup = round_open(table=code, actor=ACTOR)["round"]
                bet = {"type": "chance_simple", "chance": "rouge"}
                bet_place(round_id=coup, patron=players[0], stake_cents=1_000, bet=bet, actor=ACTOR)
                round_close_bets(round_id=coup, actor=ACTOR)
                round_record_result(round_id=coup, number=rng.randint(0, 36), actor=ACTOR)
        started, written = time.perf_counter(), 0
        for code, game in floor:
            version, batch = 0, []
            for number in range(coups):
                round_id = str(uuid.uuid4())
                staked = returned = 0
                for b in range(bets):
                    stake = rng.choice((500, 1_000, 2_500, 5_000, 10_000))
                    back = rng.choice((0, 0, 2 * stake))
                    staked, returned = staked + stake, returned + back
                    data = {
                        "table": code,
                        "round": round_id,
                        "patron": f"Z{b:05d}",
                        "stake_cents": stake,
                        "return_cents": back,
                        "house_edge": EDGES[game],
                    }
                    if game == "caribbean_stud":
                        data["line"] = "ante"
                    legs = [Leg(f"table:{code}:tray", stake - back), Leg(f"patron:Z{b:05d}:chips", back - stake)]
                    batch.append(NewEvent("BetSettled", data, legs))
                batch.append(
                    NewEvent(
                        "RoundSettled",
                        {
                            "table": code,
                            "round": round_id,
                            "number": number + 2,
                            "staked": staked,
                            "returned": returned,
                        },
                    )
                )
                if len(batch) >= 300 or number == coups - 1:
                    with transaction.atomic():
                        append(stream=f"benchfloor/{code}", expected_version=version, events=batch, actor=ACTOR)
                    version, written, batch = version + len(batch), written + len(batch), []
        log(f"floor: {written:,} synthetic events in {time.perf_counter() - started:,.1f} s")
    projections.catch_up_all()
    return [code for code, _ in floor]


def _median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def bench_floor(*, tables: int = 20, coups: int = 320, bets: int = 5, rounds: int = 20) -> list[Figure]:
    """Set up the floor and time its refresh; returns the figures of the results table."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from ledger.gaming_day import current_gaming_day
    from ledger.projections.table_stats import DECIDING
    from staff.roles import Role, grant

    codes = set_up_floor(tables=tables, coups=coups, bets=bets)
    day = current_gaming_day()
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    user = get_user_model().objects.create_user(username="bench_floor_boss", password="not-used")
    grant(user, Role.PIT_BOSS)
    client = Client()
    client.force_login(user)

    def get(url: str) -> None:
        response = client.get(url)
        assert response.status_code == 200, (url, response.status_code)

    def cards_rows() -> None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT code, game, state, rules FROM games_table WHERE code = ANY(%s)", [codes])
            cursor.fetchall()
            cursor.execute(
                'SELECT * FROM ledger_tabledaystats WHERE gaming_day = %s AND "table" = ANY(%s)', [day, codes]
            )
            cursor.fetchall()

    def decided_rows() -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT position, data FROM ledger_event WHERE gaming_day = %s AND type = ANY(%s) "
                "AND data->>'table' = ANY(%s)",
                [day, list(DECIDING), codes],
            )
            cursor.fetchall()

    contenders = {
        "live": lambda: get("/dashboard/_live"),
        "page": lambda: get("/dashboard/"),
        "cards_rows": cards_rows,
        "decided_rows": decided_rows,
    }
    for run in contenders.values():  # warm the caches (rule-set edges, templates, plans)
        run()
    samples: dict[str, list[float]] = {name: [] for name in contenders}
    cpu: dict[str, list[float]] = {name: [] for name in contenders}
    for _ in range(rounds):
        for name, run in contenders.items():
            started, started_cpu = time.perf_counter(), time.process_time()
            run()
            samples[name].append(time.perf_counter() - started)
            cpu[name].append(time.process_time() - started_cpu)
    with CaptureQueriesContext(connection) as queries:
        get("/dashboard/_live")
    decided = _count_decided(day, codes)
    ms = {name: _median_ms(values) for name, values in samples.items()}
    baselines = {
        "raw SELECT of the cards' rows (tables, day statistics)": ms["cards_rows"],
        f"raw SELECT of the day's {decided:,} decided bets": ms["decided_rows"],
    }
    size = f"{tables} tables open, {coups} coups × {bets} bets each, {len(queries.captured_queries)} queries"
    figures = []
    for name, what in (("live", "GET /dashboard/_live (htmx refresh)"), ("page", "GET /dashboard/ (whole page)")):
        python_ms = _median_ms(cpu[name])
        figure = Figure(
            "floor refresh",
            f"{what}, median of {rounds}",
            ms[name],
            "ms",
            baselines=dict(baselines),
            versus=f"raw SELECT of the day's {decided:,} decided bets",
            ratio=ms[name] / ms["decided_rows"] if ms["decided_rows"] else None,
            target="< 100 ms",
            met=ms[name] < 100,
            notes=f"{size}; {python_ms:,.1f} ms of it Python CPU in the server",
        )
        figures.append(figure)
    return figures


def _count_decided(day, codes: list[str]) -> int:
    from ledger.models import Event
    from ledger.projections.table_stats import DECIDING

    return Event.objects.filter(gaming_day=day, type__in=DECIDING, data__table__in=codes).count()


# Run in a fresh interpreter (``-c``) inside the tree measured, so that an older tree without
# this file can be timed on the same database: Django set-up, then the pit boss's first and
# second whole page, wall and CPU seconds, as JSON on stdout.
_COLD_CHILD = r"""
import json, time
started, started_cpu = time.perf_counter(), time.process_time()
import django
django.setup()
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client
settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
client = Client()
client.force_login(get_user_model().objects.get(username="bench_floor_boss"))
marks = [(time.perf_counter(), time.process_time())]
for _ in range(2):
    assert client.get("/dashboard/").status_code == 200
    marks.append((time.perf_counter(), time.process_time()))
print(json.dumps({
    "setup_s": marks[0][0] - started,
    "first_s": marks[1][0] - marks[0][0], "first_cpu_s": marks[1][1] - marks[0][1],
    "second_s": marks[2][0] - marks[1][0], "second_cpu_s": marks[2][1] - marks[1][1],
}))
"""


def cold_renders(database: str, processes: int, tree: str | None = None) -> list[dict[str, float]]:
    """The first ``GET /dashboard/`` of ``processes`` new server processes, one after the other,
    on the floor :func:`bench_floor` set up in ``database`` (its pit boss ``bench_floor_boss``):
    what the first refresh after a deploy or a worker restart costs. ``tree``: the source tree to
    run (default this one), e.g. an older commit's ``git archive`` to compare on the same data.
    Returns one ``{setup_s, first_s, first_cpu_s, second_s, second_cpu_s}`` a process."""
    import json
    import subprocess
    from pathlib import Path

    root = Path(tree or Path(__file__).resolve().parents[2]).resolve()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(database),
        "CELERY_BROKER_URL": "",
        "DJANGO_SETTINGS_MODULE": "casino.settings",
        "PYTHONPATH": str(root),
    }
    results = []
    for _ in range(processes):
        done = subprocess.run(
            [sys.executable, "-c", _COLD_CHILD], cwd=root, env=env, capture_output=True, text=True, check=True
        )
        results.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks.bench_floor")
    parser.add_argument("--database", default="casino_bench_floor", help="PostgreSQL database to DROP and recreate")
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--coups", type=int, default=320, help="coups a table (a day: 8 hours at 40 an hour)")
    parser.add_argument("--bets", type=int, default=5, help="settled bets a coup")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument(
        "--cold", type=int, default=0, metavar="N", help="then time the first page of N new server processes"
    )
    parser.add_argument(
        "--cold-only", action="store_true", help="no set-up: time --cold processes on the floor already in --database"
    )
    parser.add_argument("--tree", help="source tree the --cold processes run (default: this one)")
    args = parser.parse_args(argv)
    if not args.cold_only:
        _set_up_and_time(args)
    for n, run in enumerate(cold_renders(args.database, args.cold, args.tree), 1):
        print(
            f"new process {n}: first GET /dashboard/ {run['first_s'] * 1000:,.0f} ms "
            f"({run['first_cpu_s'] * 1000:,.0f} ms CPU), second {run['second_s'] * 1000:,.0f} ms, "
            f"Django set-up {run['setup_s'] * 1000:,.0f} ms"
        )
    return 0


def _set_up_and_time(args: argparse.Namespace) -> None:
    recreate_database(args.database)
    os.environ["DATABASE_URL"] = database_url(args.database)
    os.environ["CELERY_BROKER_URL"] = ""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    for f in bench_floor(tables=args.tables, coups=args.coups, bets=args.bets, rounds=args.rounds):
        print(f"{f.what}: {f.value:,.1f} ms ({f.notes}); {f.ratio:.2f} × {f.versus}; met: {f.met}")
        for name, value in f.baselines.items():
            print(f"    baseline {name}: {value:,.2f} ms")


if __name__ == "__main__":
    sys.exit(main())
