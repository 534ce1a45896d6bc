"""Ledger sections of the suite: append, a live-dealer roulette spin, projection rebuild and
``ledger verify``, each with its baseline measured in the same run.

Every function here runs with Django set up on the benchmark database (``__main__`` does it).
The Celery catch-up that services schedule after each commit is switched off while we write
(``no_projection_tasks``): with no broker configured it would run in-process after every
commit, and in production it runs on a worker, not in the request.
"""

import hashlib
import json
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime

from . import baselines
from .common import Figure, compare, interleaved, log, raw_connection, roulette_table_with_patrons, timed

SECTION_APPEND = "ledger append"
SECTION_SPIN = "roulette spin"
SECTION_REBUILD = "projection rebuild"
SECTION_VERIFY = "ledger verify"
COUP_EVENTS = 50
LIKE_FOR_LIKE = "ledger, 100 a transaction"


def ensure_cage_shift() -> None:
    """A cashier shift open at the cage (chips are sold only inside one)."""
    from cashier.services.cage_shifts import last_shift_event
    from tests.conftest import open_cage_shift

    last = last_shift_event()
    if last is None or last.type != "CageShiftOpened":
        open_cage_shift("bench-cashier")


@contextmanager
def no_projection_tasks():
    from ledger import commands

    saved = commands._schedule_projections
    commands._schedule_projections = lambda: None
    try:
        yield
    finally:
        commands._schedule_projections = saved


def _settled_data(n: int) -> dict:
    """A ``BetSettled``-sized event body (about 400 bytes of JSON), as the roulette writes it."""
    return {
        "bet": str(uuid.UUID(int=n)),
        "round": "7d4b1f9e-0000-4000-8000-000000000001",
        "table": "Z1",
        "patron": f"Z{n % 500:05d}",  # not a registered patron's code (P…): his chips stay his
        "position": {"type": "plein", "numbers": [n % 37]},
        "chips": "value",
        "number": 17,
        "outcome": "lost",
        "stake_cents": 500,
        "return_cents": 0,
        "winnings_cents": 0,
        "house_cents": 500,
        "payout": "35",
        "house_edge": "1/37",
        "zero_rule": "la_partage",
        "unpaid_fraction_cents": "0",
    }


def _legs(n: int) -> list[tuple[str, int, str]]:
    return [(f"patron:Z{n % 500:05d}:chips", -500, "EUR"), ("table:Z1:tray", 500, "EUR")]


class _RawWriter:
    """Writes the same rows as the ledger into the plain tables, one transaction per call."""

    def __init__(self, conn) -> None:
        self.conn, self.position = conn, 0

    def rows(self, count: int) -> tuple[list, list]:
        now = datetime.now(UTC)
        events, postings = [], []
        for i in range(count):
            self.position += 1
            n = self.position
            data = json.dumps(_settled_data(n), sort_keys=True, separators=(",", ":"))
            events.append(
                baselines.event_row(
                    position=n,
                    stream=f"raw/{n // COUP_EVENTS}",
                    version=i + 1,
                    type="BetSettled",
                    data_json=data,
                    moment=now,
                    day=now.date(),
                    prev_hash="0" * 64,
                    hash=hashlib.sha256(str(n).encode()).hexdigest(),
                )
            )
            postings += [(n, *leg) for leg in _legs(n)]
        return events, postings

    def executemany(self, count: int) -> None:
        baselines.raw_executemany(self.conn, *self.rows(count))


def bench_append(*, coups: int, singles: int, rounds: int, dbname: str) -> list[Figure]:
    """Append rates: coup-sized batches (50 events, 100 postings, one transaction) and one
    event per transaction, against raw ``executemany`` and eventsourcing, interleaved."""
    from django.db import transaction

    from ledger.store import Leg, NewEvent, append

    conn = raw_connection()
    baselines.create_raw_tables(conn)
    raw = _RawWriter(conn)
    es = baselines.EventsourcingRecorder(dbname)
    counter = {"n": 0}

    def ledger_transactions(size: int, transactions: int) -> tuple[int, float]:
        def run():
            for _ in range(transactions):
                base = counter["n"]
                counter["n"] += size
                events = [
                    NewEvent("BetSettled", _settled_data(base + i), [Leg(*leg) for leg in _legs(base + i)])
                    for i in range(size)
                ]
                with transaction.atomic(durable=True):
                    append(stream=f"bench/append/{base}", expected_version=0, actor="bench", events=events)

        return timed(run)[1]

    def raw_transactions(size: int, transactions: int) -> float:
        return timed(lambda: [raw.executemany(size) for _ in range(transactions)])[1]

    def es_saves(size: int, saves: int) -> float:
        def run():
            for _ in range(saves):
                base = counter["n"]
                counter["n"] += size
                items = [
                    ("BetSettled", {"data": _settled_data(base + i), "postings": _legs(base + i)}) for i in range(size)
                ]
                es.save(uuid.uuid4(), 1, items)

        return timed(run)[1]

    batch_events = coups * COUP_EVENTS
    log(f"append: {rounds} rounds of {coups} coups x {COUP_EVENTS} events, and {singles} single-event transactions")
    batch = interleaved(
        {
            "ledger": lambda: (batch_events, ledger_transactions(COUP_EVENTS, coups)),
            LIKE_FOR_LIKE: lambda: (batch_events, ledger_transactions(2 * COUP_EVENTS, coups // 2)),
            "raw executemany": lambda: (batch_events, raw_transactions(COUP_EVENTS, coups)),
            "eventsourcing (100 per save)": lambda: (batch_events, es_saves(100, batch_events // 100)),
        },
        rounds,
    )
    single = interleaved(
        {
            "ledger": lambda: (singles, ledger_transactions(1, singles)),
            "raw executemany": lambda: (singles, raw_transactions(1, singles)),
            "eventsourcing (1 per save)": lambda: (singles, es_saves(1, singles)),
        },
        rounds,
    )
    es.close()
    conn.close()
    like_for_like = Figure(
        SECTION_APPEND,
        "100 events + 200 postings a transaction (eventsourcing's save size): for comparison",
        batch.pop(LIKE_FOR_LIKE),
        "events/s",
        baselines={"eventsourcing (100 per save)": batch["eventsourcing (100 per save)"]},
    )
    compare(like_for_like, "eventsourcing (100 per save)", None)
    batch_figure = Figure(
        SECTION_APPEND,
        "coup-sized batch: 50 events + 100 postings, one transaction",
        batch.pop("ledger"),
        "events/s",
        baselines=batch,
        target="≥ 70 % of raw, ≥ 1.5 × eventsourcing",
    )
    compare(batch_figure, "eventsourcing (100 per save)", 1.5)
    es_ok = batch_figure.met
    compare(batch_figure, "raw executemany", 0.70)
    batch_figure.met = bool(batch_figure.met and es_ok)
    versus_es = batch_figure.value / batch_figure.baselines["eventsourcing (100 per save)"]
    batch_figure.notes = f"{versus_es:.2f} × eventsourcing"
    single_figure = Figure(
        SECTION_APPEND,
        "one event (2 postings) per transaction",
        single.pop("ledger"),
        "events/s",
        baselines=single,
        target="≥ 1.5 × eventsourcing",
    )
    compare(single_figure, "raw executemany", None)
    single_figure.notes = f"{single_figure.ratio:.2f} × raw"
    compare(single_figure, "eventsourcing (1 per save)", 1.5)
    return [batch_figure, like_for_like, single_figure]


# --- a live-dealer roulette spin -------------------------------------------------------------

# Value chips play the even chances only at English roulette (colour chips are limited to 8
# patrons a table), at the standing minimum of 10 EUR.
SPIN_BETS = tuple(({"type": "chance_simple", "chance": chance}, 1_000) for chance in ("rouge", "impair", "manque"))


def bench_roulette_spin(*, patrons: int) -> list[Figure]:
    """``patrons`` patrons × 3 bets placed through ``bet_place``, then ``round_record_result``
    timed; its rows written against a raw COPY of the same rows."""
    from games.models import Bet
    from games.services.bets import bet_place
    from games.services.rounds import round_close_bets, round_open, round_record_result
    from ledger.models import Event, Posting

    actor = "bench"
    with no_projection_tasks():
        codes = roulette_table_with_patrons(
            patrons=patrons, chips_cents=10_000, name="Bench Patron", document="BENCH-R", actor=actor, section="spin: "
        )
        coup = round_open(table="RB", actor=actor)["round"]
        log(f"spin: placing {3 * patrons:,} bets")

        def place():
            for code in codes:
                for bet, stake in SPIN_BETS:
                    bet_place(round_id=coup, patron=code, stake_cents=stake, bet=bet, actor=actor)

        _, place_seconds = timed(place)
        round_close_bets(round_id=coup, actor=actor)
        first = Event.objects.order_by("-position").values_list("position", flat=True).first() + 1
        log("spin: settling")
        result, settle_seconds = timed(lambda: round_record_result(round_id=coup, number=17, actor=actor))
    events = Event.objects.filter(position__gte=first).count()
    postings = Posting.objects.filter(event_id__gte=first).count()
    bets = result["bets_settled"]
    rows = events + postings + bets + 1  # + the round row
    copy_seconds = _copy_same_rows(first, coup)
    copy_rate = rows / copy_seconds
    bets_placed = Bet.objects.filter(round_id=coup).count()
    place_figure = Figure(
        SECTION_SPIN,
        f"bets placed through bet_place ({bets_placed:,} bets, one command each)",
        bets_placed / place_seconds,
        "bets/s",
        notes=f"{place_seconds:.1f} s in all",
    )
    settle_figure = Figure(
        SECTION_SPIN,
        f"settle the coup: {bets:,} bets, {rows:,} rows written ({events:,} events, {postings:,} postings, "
        f"{bets:,} bets, 1 round)",
        settle_seconds,
        "s",
        target="≤ 2 s (first target: under 10 s)",
        met=settle_seconds <= 2,
    )
    rate_figure = Figure(
        SECTION_SPIN,
        "settle: rows written per second",
        rows / settle_seconds,
        "rows/s",
        baselines={"raw COPY of the same rows": copy_rate},
        target="≥ 60 % of the raw COPY rate",
    )
    compare(rate_figure, "raw COPY of the same rows", 0.6)
    return [place_figure, settle_figure, rate_figure]


def _copy_same_rows(first_position: int, round_id: str) -> float:
    """Seconds to COPY the settlement's event, posting and bet rows into plain tables."""
    conn = raw_connection()
    baselines.create_raw_tables(conn)
    conn.execute("DROP TABLE IF EXISTS raw_bet; CREATE TABLE raw_bet (LIKE games_bet INCLUDING DEFAULTS)")
    conn.commit()
    cur = conn.cursor()
    cur.execute(f"SELECT {baselines.EVENT_COLUMNS} FROM ledger_event WHERE position >= %s", [first_position])
    events = [(*row[:5], json.dumps(row[5]), *row[6:]) for row in cur.fetchall()]
    cur.execute(
        "SELECT event_id, account, amount_cents, currency FROM ledger_posting WHERE event_id >= %s", [first_position]
    )
    postings = cur.fetchall()
    cur.execute("SELECT * FROM games_bet WHERE round_id = %s", [round_id])
    bets = [tuple(json.dumps(v) if isinstance(v, (dict, list)) else v for v in row) for row in cur.fetchall()]
    conn.commit()

    def copy():
        baselines.raw_copy(conn, events, postings)
        with conn.transaction(), conn.cursor() as c, c.copy("COPY raw_bet FROM STDIN") as cp:
            for row in bets:
                cp.write_row(row)

    seconds = timed(copy)[1]
    conn.close()
    return seconds


# --- a large ledger: fill, rebuild, verify ---------------------------------------------------


def fill_ledger(*, events: int, dbname: str, mirror: bool = True) -> "baselines.EventsourcingRecorder | None":
    """Append until the ledger holds ``events`` events (1,000 a transaction, 2 postings each),
    and (``mirror``) record as many in eventsourcing's table, for the read-and-decode baseline."""
    from django.db import transaction

    from ledger.models import Event
    from ledger.store import Leg, NewEvent, append

    es = baselines.EventsourcingRecorder(dbname) if mirror else None
    have = Event.objects.count()
    log(f"fill: the ledger holds {have:,} events; appending up to {events:,}")
    added = 0
    while have < events:
        size = min(1_000, events - have)
        items = [(_settled_data(have + i), _legs(have + i)) for i in range(size)]
        with transaction.atomic(durable=True):
            append(
                stream=f"bench/fill/{have}",
                expected_version=0,
                actor="bench",
                events=[NewEvent("BetSettled", data, [Leg(*leg) for leg in legs]) for data, legs in items],
            )
        if es:
            es.save(uuid.uuid4(), 1, [("BetSettled", {"data": data, "postings": legs}) for data, legs in items])
        have += size
        added += size
        if added % 100_000 == 0:
            log(f"fill: {have:,} events")
    # Events appended before (append, spin) are in eventsourcing's table only partly; top it up
    # so both logs hold the same number of events.
    missing = have - _es_count(es) if es else 0
    while missing > 0:
        size = min(1_000, missing)
        items = [("BetSettled", {"data": _settled_data(i), "postings": _legs(i)}) for i in range(size)]
        es.save(uuid.uuid4(), 1, items)
        missing -= size
    with raw_connection() as conn:
        conn.autocommit = True
        conn.execute("VACUUM ANALYZE")
    return es


def _es_count(es) -> int:
    with raw_connection() as conn:
        return conn.execute(f"SELECT count(*) FROM {es.TABLE}").fetchone()[0]


def _raw_read(batch: int = 5000) -> int:
    """Read every event row and its postings with plain psycopg, decoding the JSON (the rows a
    projector needs), in position-ordered pages like the projectors."""
    count, after = 0, 0
    with raw_connection() as conn:
        while True:
            rows = conn.execute(
                "SELECT position, type, data::text, occurred_at, gaming_day, hash FROM ledger_event "
                "WHERE position > %s ORDER BY position LIMIT %s",
                [after, batch],
            ).fetchall()
            if not rows:
                return count
            for row in rows:
                json.loads(row[2])
            conn.execute(
                "SELECT event_id, account, amount_cents, currency FROM ledger_posting "
                "WHERE event_id > %s AND event_id <= %s",
                [after, rows[-1][0]],
            ).fetchall()
            count += len(rows)
            after = rows[-1][0]


def bench_rebuild(es, *, broker: str = "", workers: int = 4, rounds: int = 2) -> list[Figure]:
    """``projections.rebuild`` (balances alone, then all four in one pass) and the four as
    Celery tasks in parallel (``ledger.rebuilds.rebuild_request``, ``workers`` worker processes
    on ``broker``), against a raw read and eventsourcing's notification log read and decoded,
    all over the same number of events; the three rebuilds of all four and eventsourcing's read
    alternate, ``rounds`` times, each figure the median of its runs."""
    import statistics

    from ledger import projections
    from ledger.models import Event

    total = Event.objects.count()
    log(f"rebuild: {total:,} events")
    read_count, read_seconds = timed(_raw_read)
    baseline = {"raw read (events + postings, JSON decoded)": read_count / read_seconds}
    _, balances_seconds = timed(lambda: projections.rebuild(["balances"]))
    worker = _RebuildWorkers(broker, workers) if broker else None
    runs: dict[str, list[float]] = {"es": [], "one pass": [], "tasks": []}
    try:
        for _ in range(rounds):
            es_count, es_seconds = timed(es.read_and_decode)
            runs["es"].append(es_seconds * total / es_count)  # seconds for ``total`` events
            runs["one pass"].append(timed(lambda: projections.rebuild())[1])
            if worker:
                runs["tasks"].append(worker.rebuild_all())
            log("rebuild: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in runs.items() if v))
    finally:
        if worker:
            worker.close()
    baseline["eventsourcing notification log read + decode"] = total / statistics.median(runs["es"])
    # the raw read again, after: its mean with the first guards against a drift of the machine
    read_again, read_again_seconds = timed(_raw_read)
    baseline["raw read (events + postings, JSON decoded)"] = (
        baseline["raw read (events + postings, JSON decoded)"] + read_again / read_again_seconds
    ) / 2
    names = f"all {len(projections.names())} projections ({', '.join(projections.names())})"
    measured = [("rebuild the balance projection", [balances_seconds], 0.6)]
    measured.append((f"rebuild {names} in one pass, one process", runs["one pass"], 1.0))
    if runs["tasks"]:
        measured.append(
            (f"rebuild {names} as Celery tasks in parallel ({workers} worker processes)", runs["tasks"], 1.0)
        )
    figures = []
    for what, seconds_list, minimum in measured:
        seconds = statistics.median(seconds_list)
        figure = Figure(
            SECTION_REBUILD,
            f"{what} over {total:,} events",
            total / seconds,
            "events/s",
            baselines=dict(baseline),
            target=f"≥ {minimum:.1f} × eventsourcing's read-and-decode rate",
            notes=f"{seconds:.1f} s"
            + (f"; runs {', '.join(f'{x:.2f}' for x in seconds_list)} s" if len(seconds_list) > 1 else ""),
        )
        compare(figure, "eventsourcing notification log read + decode", minimum)
        figures.append(figure)
    return figures


class _RebuildWorkers:
    """A Celery worker (``concurrency`` processes, prefork) on ``broker`` and a queue of its
    own, on the benchmark database; this process sends the rebuild tasks to it."""

    def __init__(self, broker: str, concurrency: int) -> None:
        import os
        import subprocess
        import sys
        import tempfile
        import time

        from django.db import connection

        from casino.celery import app

        self.queue = f"bench_rebuild_{connection.settings_dict['NAME']}"
        self.output = tempfile.NamedTemporaryFile("w+", prefix="rebuild-worker-", suffix=".log")
        env = dict(os.environ, CELERY_BROKER_URL=broker, CELERY_QUEUE=self.queue, CELERY_ROUTE_QUEUES="false")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "casino",
                "worker",
                "-Q",
                self.queue,
                "-c",
                str(concurrency),
                "-P",
                "prefork",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "info",
            ],
            env=env,
            stdout=self.output,
            stderr=subprocess.STDOUT,
        )
        app.conf.update(task_always_eager=False, broker_url=broker, task_default_queue=self.queue, task_routes={})
        deadline = time.monotonic() + 90
        while "ready." not in open(self.output.name).read():
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("the rebuild worker did not start: " + open(self.output.name).read()[-2000:])
            time.sleep(0.2)
        log(f"rebuild: worker ready ({concurrency} processes, {broker}, queue {self.queue})")

    def rebuild_all(self) -> float:
        """Seconds from the request to the last of the four tasks' end, as their rows say."""
        import time

        from ledger import rebuilds

        started = time.perf_counter()
        names = rebuilds.rebuild_request(actor="bench")
        while True:
            status = rebuilds.rebuild_status()
            if all(status[n] and status[n]["state"] in ("succeeded", "failed") for n in names):
                break
            time.sleep(0.02)
        seconds = time.perf_counter() - started
        failed = {n: status[n]["error"] for n in names if status[n]["state"] == "failed"}
        if failed:
            raise RuntimeError(f"rebuild tasks failed: {failed}")
        return seconds

    def close(self) -> None:
        from casino.celery import app

        self.process.terminate()
        self.process.wait(30)
        self.output.close()
        app.conf.update(task_always_eager=True)


def _bare_sha256() -> int:
    """The bare loop: read each event and its postings raw, hash the same canonical document
    with ``hashlib.sha256`` (no ORM, no float check, no chain comparison)."""
    count, after = 0, 0
    with raw_connection() as conn:
        while True:
            rows = conn.execute(
                "SELECT position, stream, version, type, schema_version, data, occurred_at, recorded_at, "
                "gaming_day, actor, correlation_id, causation_id, idempotency_key, prev_hash "
                "FROM ledger_event WHERE position > %s ORDER BY position LIMIT 2000",
                [after],
            ).fetchall()
            if not rows:
                return count
            legs: dict[int, list] = {}
            for event_id, account, amount, currency in conn.execute(
                "SELECT event_id, account, amount_cents, currency FROM ledger_posting "
                "WHERE event_id > %s AND event_id <= %s",
                [after, rows[-1][0]],
            ):
                legs.setdefault(event_id, []).append([account, amount, currency])
            for row in rows:
                document = {
                    "position": row[0],
                    "stream": row[1],
                    "version": row[2],
                    "type": row[3],
                    "schema_version": row[4],
                    "data": row[5],
                    "occurred_at": row[6].astimezone(UTC).isoformat(timespec="microseconds"),
                    "recorded_at": row[7].astimezone(UTC).isoformat(timespec="microseconds"),
                    "gaming_day": row[8].isoformat(),
                    "actor": row[9],
                    "correlation_id": row[10],
                    "causation_id": row[11],
                    "idempotency_key": row[12],
                    "prev_hash": row[13],
                    "postings": sorted(legs.get(row[0], [])),
                }
                hashlib.sha256(
                    json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
                ).hexdigest()
            count += len(rows)
            after = rows[-1][0]


def bench_verify() -> list[Figure]:
    """``verify_chain`` (what ``manage.py ledger verify`` runs) against the bare SHA-256 loop."""
    from ledger.verify import verify_chain

    bare_count, bare_seconds = timed(_bare_sha256)
    result, seconds = timed(verify_chain)
    bare_again, bare_again_seconds = timed(_bare_sha256)
    if not result.ok:
        raise SystemExit(f"ledger verify failed on the benchmark ledger: {result}")
    bare = (bare_count / bare_seconds + bare_again / bare_again_seconds) / 2
    figure = Figure(
        SECTION_VERIFY,
        f"ledger verify over {result.checked:,} events",
        result.checked / seconds,
        "events/s",
        baselines={"bare loop: raw read + SHA-256 of the canonical JSON": bare},
        target="≥ 80 % of the bare loop",
        notes=f"{seconds:.1f} s",
    )
    return [compare(figure, "bare loop: raw read + SHA-256 of the canonical JSON", 0.8)]
