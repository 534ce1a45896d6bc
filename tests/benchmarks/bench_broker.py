"""Commands while the Celery broker is down, against the same commands with the broker up, in
the same run: what a broker outage costs the floor.

Run it through the suite (it writes the results file like the other sections)::

    .venv/bin/python -m tests.benchmarks --only broker --database casino_bench_broker
    .venv/bin/python -m tests.benchmarks.bench_broker --database casino_bench_broker   # the same

Set-up (not timed): roulette table RK and ``patrons`` patrons with chips. Then ``rounds``
rounds, each timing, in turn (the order reversed every other round), ``bets`` even-chance bets
of 10 EUR on a fresh coup, one ``bet_place`` command each (its own commit, after which
``ledger.commands._schedule_projections`` publishes the projections' catch-up), in this
process, with the product's publishing as it is:

- **broker up**: the real RabbitMQ (``rabbitmq.AMQP``), a queue of the benchmark's own;
- **broker down**: a broker URL pointing at a closed port on loopback (``rabbitmq.DOWN``: the
  connection is refused at once). The shared RabbitMQ is never stopped;
- **no publishing**: publishing switched off, the floor of what a command costs here.

Measured per command: its wall time, and the time it spent publishing after its commit (the
wait on the broker: ``_schedule_projections``, connection attempt included), and how many
publishing attempts reached ``_send``. Commands/s is the median of the rounds.
"""

import os
import statistics
import sys
import time

from .common import Figure, compare, log
from .rabbitmq import AMQP, DOWN, delete, own_queue, purge

SECTION = "broker (catch-up publishing)"
CHANCES = ("rouge", "noir", "pair", "impair", "manque", "passe")
STAKE_CENTS = 1_000
TARGET_RATIO = 0.9
TARGET_WAIT_SECONDS = 1.0


def bench_broker(*, bets: int, rounds: int, database: str, patrons: int = 100, broker: str = AMQP) -> list[Figure]:
    from casino.celery import app
    from games.services.bets import bet_place
    from games.services.rounds import round_open, round_void
    from ledger import commands, projections

    from .common import roulette_table_with_patrons
    from .suite_ledger import no_projection_tasks

    with no_projection_tasks():
        codes = roulette_table_with_patrons(
            patrons=patrons,
            chips_cents=STAKE_CENTS * (bets // patrons + 1) * 3 * rounds,
            name="Broker Patron",
            document="BENCH-K-",
            table="RK",
            section="broker: ",
        )
    projections.catch_up_all()
    queue = own_queue("broker", database)
    saved_conf = {k: app.conf[k] for k in ("task_always_eager", "broker_url", "task_default_queue", "task_routes")}
    schedule, send = commands._schedule_projections, commands._send
    urls = {"broker up": broker, "broker down": DOWN, "no publishing": None}
    waits: list[float] = []
    attempts: list[float] = []

    def timed_schedule() -> None:
        started = time.perf_counter()
        try:
            schedule()
        finally:
            waits.append(time.perf_counter() - started)

    def timed_send(countdown):
        started = time.perf_counter()
        try:
            send(countdown)
        finally:
            attempts.append(time.perf_counter() - started)

    def run(way: str) -> dict:
        url = urls[way]
        with no_projection_tasks():
            coup = round_open(table="RK", actor="bench")["round"]
        if url:
            app.conf.update(task_always_eager=False, broker_url=url, task_default_queue=queue, task_routes={})
        commands._publishing = commands._Publishing()
        commands._schedule_projections = timed_schedule if url else (lambda: None)
        commands._send = timed_send
        waits.clear()
        attempts.clear()
        took: list[float] = []
        try:
            started = time.perf_counter()
            for i in range(bets):
                bet = {"type": "chance_simple", "chance": CHANCES[(i // patrons) % len(CHANCES)]}
                t0 = time.perf_counter()
                bet_place(round_id=coup, patron=codes[i % patrons], stake_cents=STAKE_CENTS, bet=bet, actor="bench")
                took.append(time.perf_counter() - t0)
            seconds = time.perf_counter() - started
        finally:
            commands._schedule_projections, commands._send = schedule, send
            app.conf.update(**saved_conf)
        with no_projection_tasks():
            round_void(round_id=coup, reason="benchmark coup", actor="bench")
        projections.catch_up_all()
        return {
            "rate": bets / seconds,
            "longest_command": max(took),
            "longest_wait": max(waits, default=0.0),
            "attempts": len(attempts),
            "longest_attempt": max(attempts, default=0.0),
        }

    results: dict[str, list[dict]] = {way: [] for way in urls}
    try:
        for r in range(rounds):
            for way in list(urls) if r % 2 == 0 else list(urls)[::-1]:
                result = run(way)
                results[way].append(result)
                log(
                    f"broker, round {r + 1}: {way:13} {result['rate']:6.1f} commands/s, longest command "
                    f"{1000 * result['longest_command']:.0f} ms, longest wait on the broker "
                    f"{1000 * result['longest_wait']:.1f} ms, {result['attempts']} publishing attempts"
                )
    finally:
        purge(broker, queue)
        delete(broker, queue)
    return _figures(results, bets=bets)


def _figures(results: dict[str, list[dict]], *, bets: int) -> list[Figure]:
    rate = {way: statistics.median(r["rate"] for r in runs) for way, runs in results.items()}
    down, up = results["broker down"], results["broker up"]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    runs = "; ".join(f"{way} " + ", ".join(f"{r['rate']:.0f}" for r in rs) for way, rs in results.items())
    throughput = Figure(
        SECTION,
        f"bet_place commands/s, broker down (a closed port), {bets} commands a round, {len(down)} rounds alternated",
        rate["broker down"],
        "commands/s",
        baselines={"broker up": rate["broker up"], "no publishing": rate["no publishing"]},
        target=f"≥ {TARGET_RATIO} × broker up",
        notes=f"runs (commands/s): {runs}; "
        f"{', '.join(str(r['attempts']) for r in down)} publishing attempts a round with the broker down, "
        f"{', '.join(str(r['attempts']) for r in up)} with it up; load average {load} at the end",
    )
    compare(throughput, "broker up", TARGET_RATIO)
    worst_down = max(r["longest_wait"] for r in down)
    worst_up = max(r["longest_wait"] for r in up)
    wait = Figure(
        SECTION,
        "longest wait of one command on the broker (publishing after its commit), broker down",
        1000 * worst_down,
        "ms",
        baselines={"broker up, ms": 1000 * worst_up},
        target=f"no command waits over {TARGET_WAIT_SECONDS:.0f} s on the broker",
        met=worst_down <= TARGET_WAIT_SECONDS and worst_up <= TARGET_WAIT_SECONDS,
        notes=f"longest command (wall, commit included): broker down "
        f"{1000 * max(r['longest_command'] for r in down):.0f} ms, up "
        f"{1000 * max(r['longest_command'] for r in up):.0f} ms, no publishing "
        f"{1000 * max(r['longest_command'] for r in results['no publishing']):.0f} ms",
    )
    return [throughput, wait]


if __name__ == "__main__":
    from .__main__ import main

    sys.exit(main(["--only", "broker", *sys.argv[1:]]))
