"""What the projections' Celery worker costs the floor: bets over HTTP at a fixed offered rate
with a real worker catching the projections up, against the same load with no worker, in the
same run.

Run it through the suite (it writes the results file like the other sections)::

    .venv/bin/python -m tests.benchmarks --only worker --database casino_bench_worker
    .venv/bin/python -m tests.benchmarks.bench_worker --database casino_bench_worker   # the same

Set-up (not timed): roulette table RC, ``patrons`` patrons with chips, a dealer's session;
gunicorn as in the API section (deploy/gunicorn.conf.py, sync workers) but publishing the
catch-up to the real RabbitMQ (``rabbitmq.AMQP``), to a queue of the benchmark's own. Then
``rounds`` × two phases, alternated (off, on, then on, off), each on a fresh coup:

- **worker on**: a Celery worker with deploy/celery's options (prefork, 2 processes, ``-O
  fair``) consuming that queue, as production runs it;
- **worker off**: no one consumes the queue (the tasks are published all the same, then purged).

Each phase: a warm-up (2 s closed loop: every gunicorn worker and every pool process has run
once; with the worker on, the projections caught up), then ``OFFERED`` bets/s open loop for
``seconds`` (``tests.benchmarks.loadgen``: latency from each request's due time, no
coordinated omission). Measured: bets taken per second and latencies of each phase; with the
worker on, each catch-up task it ran (Celery's own "succeeded in" line: its run time and the
events it applied), the worker's CPU, and how long after the last bet the projections had
caught up; with it off, how many tasks were published (purged from the queue).
"""

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from .common import Figure, compare, log
from .rabbitmq import AMQP, CatchUpWorker, delete, own_queue, publishing_env, purge

SECTION = "worker (projections' catch-up)"
OFFERED = 125  # bets/s
TARGET_RATIO = 0.9
TARGET_P99_MS = 1_500
DRAIN_LIMIT_SECONDS = 120


def _cpu(gunicorn_pid: int, worker_pid: int | None, database: str) -> dict[int, tuple[str, float]]:
    """``{pid: (who, CPU seconds)}`` used so far (user + system) by gunicorn (master and workers),
    the Celery worker (main and pool processes) and the PostgreSQL backends connected to
    ``database`` (their process title names it), from /proc: what a bet costs each, whoever
    else shares the machine (``_cpu_between``)."""
    tick = os.sysconf("SC_CLK_TCK")
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
            title = (stat.parent / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        pid, fields = int(stat.parent.name), text[text.rindex(")") + 2 :].split()
        ppid, cpu = int(fields[1]), (int(fields[11]) + int(fields[12])) / tick
        if gunicorn_pid in (pid, ppid):
            found[pid] = ("gunicorn", cpu)
        elif worker_pid is not None and worker_pid in (pid, ppid):
            found[pid] = ("worker", cpu)
        elif title.startswith("postgres:") and f" {database} " in title:
            found[pid] = ("postgres", cpu)
    return found


def _cpu_between(before: dict[int, tuple[str, float]], after: dict[int, tuple[str, float]]) -> dict[str, float]:
    """CPU seconds each used between two ``_cpu`` readings: a process started since counts whole;
    one that ended since (a database connection past its age) is not counted."""
    used = {"gunicorn": 0.0, "worker": 0.0, "postgres": 0.0}
    for pid, (who, cpu) in after.items():
        earlier = before.get(pid)
        used[who] += cpu - (earlier[1] if earlier and earlier[0] == who else 0.0)
    return used


def _head() -> int:
    from django.db.models import Max

    from ledger.models import Event

    return Event.chain.aggregate(p=Max("position"))["p"] or 0


def _lagging() -> int:
    from ledger import projections

    return max(row["lag"] for row in projections.lag())


def _new_coup(table: str) -> str:
    from games.services.rounds import round_open

    from .suite_ledger import no_projection_tasks

    with no_projection_tasks():
        return round_open(table=table, actor="bench")["round"]


def _close_coup(coup: str) -> None:
    """Void the phase's coup (its stakes go back) and catch the projections up in this process,
    so that every phase starts with the projections at the head (not timed)."""
    from games.services.rounds import round_void
    from ledger import projections

    from .suite_ledger import no_projection_tasks

    with no_projection_tasks():
        round_void(round_id=coup, reason="benchmark coup", actor="bench")
    projections.catch_up_all()


def bench_worker(
    *,
    seconds: int,
    workers: int | None,
    database: str,
    rounds: int = 2,
    patrons: int = 300,
    broker: str = AMQP,
    concurrency: int = 2,
    nice: int = 0,
) -> list[Figure]:
    from ledger import projections

    from .suite_api import CHANCES, _load, _set_up, gunicorn_serving

    log("worker: set-up")
    first, codes, headers = _set_up(patrons, table="RC", name="Catch-up", document="BENCH-C")
    projections.catch_up_all()
    workers = workers or (os.cpu_count() or 1) + 1
    queue = own_queue("worker", database)
    checkpoint_dir = tempfile.mkdtemp(prefix="bench-worker-checkpoints-")
    env = publishing_env(broker, queue, checkpoint_dir)
    bodies = [
        {"patron": code, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": chance}}
        for chance in CHANCES
        for code in codes
    ]
    runs: dict[str, list[dict]] = {"on": [], "off": []}
    try:
        with gunicorn_serving(database, workers, env) as (port, server):
            spec = {"host": "127.0.0.1", "port": port, "headers": headers}
            coup = first
            for r in range(rounds):
                for way in ("off", "on") if r % 2 == 0 else ("on", "off"):
                    coup = coup or _new_coup("RC")
                    path = f"/api/rounds/{coup}/bets"
                    worker = (
                        CatchUpWorker(env=env, queue=queue, concurrency=concurrency, nice=nice) if way == "on" else None
                    )
                    try:
                        # warm-up: every gunicorn worker (and pool process) has served once
                        _load(
                            {
                                **spec,
                                "path": path,
                                "bodies": bodies[-workers * 8 :],
                                "seconds": 2,
                                "rate": None,
                                "connections": workers,
                            }
                        )
                        if worker:
                            _drained(time.perf_counter())
                            time.sleep(1.0)  # the warm-up's last delayed task
                        purge(broker, queue)
                        head, since = _head(), worker.offset() if worker else 0
                        cpu = worker.cpu_seconds() if worker else 0.0
                        split = _cpu(server.pid, worker.process.pid if worker else None, database)
                        log(f"worker {way}: open loop at {OFFERED} bets/s for {seconds} s (round {r + 1})")
                        result = _load(
                            {
                                **spec,
                                "path": path,
                                "bodies": bodies,
                                "seconds": seconds,
                                "rate": OFFERED,
                                "connections": 32,
                            }
                        )
                        result["events"] = _head() - head
                        if worker:
                            result["drained_after"] = _drained(time.perf_counter())
                        time.sleep(1.0)  # a delayed task still due runs (and is counted)
                        # after the drain: the worker's catch-up of the last bets counts too
                        after = _cpu(server.pid, worker.process.pid if worker else None, database)
                        result["cpu"] = _cpu_between(split, after)
                        if worker:
                            result["catch_ups"] = worker.catch_ups(since)
                            result["worker_cpu"] = worker.cpu_seconds() - cpu
                            result["left_in_queue"] = purge(broker, queue)
                        else:
                            result["published"] = purge(broker, queue)
                    finally:
                        if worker:
                            worker.close()
                    _report(way, result)
                    runs[way].append(result)
                    _close_coup(coup)
                    coup = None
    finally:
        purge(broker, queue)
        delete(broker, queue)
        shutil.rmtree(checkpoint_dir, ignore_errors=True)
    return _figures(runs, seconds=seconds, workers=workers, concurrency=concurrency, nice=nice)


def _drained(since: float) -> float | None:
    """Seconds from ``since`` until every projection has reached the head (None: not within
    DRAIN_LIMIT_SECONDS)."""
    while _lagging() > 0:
        if time.perf_counter() - since > DRAIN_LIMIT_SECONDS:
            return None
        time.sleep(0.05)
    return time.perf_counter() - since


def _taken(result: dict) -> float:
    """Bets accepted per second of the phase (an error is not a bet taken)."""
    return (result["requests"] - result["errors"]) / result["seconds"]


def _report(way: str, result: dict) -> None:
    line = (
        f"worker {way}: {_taken(result):.1f} bets/s taken, p50 {result['p50_ms']:.0f} ms, "
        f"p99 {result['p99_ms']:.0f} ms, max {result['max_ms']:.0f} ms, {result['errors']} errors"
    )
    if "catch_ups" in result:
        tasks = result["catch_ups"]
        line += (
            f"; {len(tasks)} catch-up tasks ({result['left_in_queue']} left in the queue), "
            f"{sum(e for _, e in tasks):,} events, {1000 * sum(t for t, _ in tasks):.0f} ms of tasks, "
            f"worker CPU {result['worker_cpu']:.1f} s"
        )
        line += f", caught up {result['drained_after']:.2f} s after the last bet" if result["drained_after"] else ""
    else:
        line += f"; {result['published']} tasks published"
    bets = max(result["requests"] - result["errors"], 1)
    line += "; CPU a bet: " + ", ".join(f"{name} {1000 * s / bets:.1f} ms" for name, s in result["cpu"].items())
    log(line)


def _pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(p * len(values)))] if values else 0.0


def _figures(runs: dict[str, list[dict]], *, seconds: int, workers: int, concurrency: int, nice: int) -> list[Figure]:
    on, off = runs["on"], runs["off"]
    taken_on = statistics.median(_taken(r) for r in on)
    taken_off = statistics.median(_taken(r) for r in off)
    p99_on = max(r["p99_ms"] for r in on)
    p99_off = max(r["p99_ms"] for r in off)
    errors_on = sum(r["errors"] for r in on)
    setting = (
        f"{OFFERED} bets/s offered for {seconds} s a phase, {len(on)} phases each way alternated; "
        f"gunicorn {workers} sync workers; worker: prefork, {concurrency} processes, -O fair"
        + (f", nice {nice}" if nice else "")
        + "; "
        f"load average {', '.join(f'{x:.1f}' for x in os.getloadavg())} at the end"
    )
    rate = Figure(
        SECTION,
        f"bets taken at {OFFERED}/s offered, worker on (POST /api/rounds/<id>/bets, open loop)",
        taken_on,
        "bets/s",
        baselines={"worker off": taken_off},
        target=f"≥ {TARGET_RATIO} × worker off",
        notes=f"runs on {', '.join(f'{_taken(r):.1f}' for r in on)}; off "
        f"{', '.join(f'{_taken(r):.1f}' for r in off)}; {errors_on} errors with the worker on; {setting}",
    )
    compare(rate, "worker off", TARGET_RATIO)
    latency = Figure(
        SECTION,
        f"p99 latency at {OFFERED}/s offered, worker on (the worst phase)",
        p99_on,
        "ms",
        baselines={"worker off, p99 (worst phase)": p99_off},
        target=f"p99 < {TARGET_P99_MS:,} ms",
        met=p99_on < TARGET_P99_MS and errors_on == 0,
        notes="on: "
        + "; ".join(f"p50 {r['p50_ms']:.0f}, p99 {r['p99_ms']:.0f}, max {r['max_ms']:.0f} ms" for r in on)
        + " — off: "
        + "; ".join(f"p50 {r['p50_ms']:.0f}, p99 {r['p99_ms']:.0f}, max {r['max_ms']:.0f} ms" for r in off),
    )
    tasks = [t for r in on for t in r["catch_ups"]]
    busy = [t for t in tasks if t[1]]
    events = sum(r["events"] for r in on)
    bets = sum(r["requests"] - r["errors"] for r in on)
    worker_cpu = sum(r["worker_cpu"] for r in on)
    phase_seconds = sum(r["seconds"] for r in on)
    drains = [r["drained_after"] for r in on]
    published_off = [r["published"] for r in off]
    per_task = Figure(
        SECTION,
        f"catch-up with the worker on: events per task ({len(tasks):,} tasks for {bets:,} bets, {events:,} events)",
        events / max(len(tasks), 1),
        "events/task",
        target="one task per burst, not per commit (≥ 5 bets a task)",
        met=bool(tasks) and bets / len(tasks) >= 5,
        notes=f"{len(tasks) / phase_seconds:.1f} tasks/s, {len(busy)} of them with events to apply; a task "
        f"{1000 * statistics.median(t for t, _ in tasks):.0f} ms median, "
        f"{1000 * _pct([t for t, _ in tasks], 0.99):.0f} ms p99, {1000 * max(t for t, _ in tasks):.0f} ms max "
        f"(Celery's run time); the worker's CPU {worker_cpu / phase_seconds:.0%} of one core "
        f"({1000 * worker_cpu / max(bets, 1):.1f} ms a bet); projections at the head "
        + ", ".join("not within the limit" if d is None else f"{d:.2f} s" for d in drains)
        + f" after the last bet; with the worker off, {', '.join(map(str, published_off))} tasks published a phase"
        if tasks
        else "no catch-up task ran",
    )

    def per_bet(results: list[dict]) -> dict[str, float]:
        bets = max(sum(r["requests"] - r["errors"] for r in results), 1)
        return {k: 1000 * sum(r["cpu"][k] for r in results) / bets for k in results[0]["cpu"]}

    cpu_on, cpu_off = per_bet(on), per_bet(off)
    cpu = Figure(
        SECTION,
        "CPU a bet taken, worker on: gunicorn + the worker + this database's PostgreSQL backends",
        sum(cpu_on.values()),
        "ms",
        baselines={"worker off": sum(cpu_off.values())},
        notes="on: "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu_on.items())
        + " ms; off: "
        + ", ".join(f"{k} {v:.1f}" for k, v in cpu_off.items())
        + " ms (from /proc: whoever else shares the machine is not counted)",
    )
    return [rate, latency, per_task, cpu]


if __name__ == "__main__":
    from .__main__ import main

    sys.exit(main(["--only", "worker", *sys.argv[1:]]))
