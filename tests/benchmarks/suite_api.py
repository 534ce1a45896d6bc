"""Bet placement over HTTP under load: gunicorn (deploy/gunicorn.conf.py, sync workers) on
loopback, and ``tests.benchmarks.loadgen`` in a second process.

Authentication is a session cookie with its CSRF token, as a browser or a dealer's device
holding a session would send: HTTP Basic would run PBKDF2 (about 245 ms of CPU) on every
request and measure the password hash, not the ledger.

Two phases on the same coup: open-loop at the issue's 150 requests/s (latency from each
request's due time), then closed-loop with as many connections as workers (the ceiling).
Every request places an even-chance bet of 10 EUR for one of the patrons in turn. The
catch-up of the projections is published to a broker, not run in the request (see ``env``).
"""

import json
import os
import resource
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .common import Figure, database_url, log, raw_connection

SECTION = "API bet placement"
TARGET_RATE = 150
ROOT = Path(__file__).resolve().parents[2]
CHANCES = ("rouge", "noir", "pair", "impair", "manque", "passe")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _set_up(
    patrons: int, *, table: str = "RA", name: str = "API", document: str = "BENCH-A"
) -> tuple[str, list[str], dict]:
    """Roulette table ``table`` with a coup in betting, ``patrons`` patrons (``f"{name} {i}"``,
    document ``f"{document}{i}"``) with chips, a logged-in dealer's cookies."""
    from django.test import override_settings

    from cashier.services.cage import cage_open, chips_purchase
    from games.services.rounds import round_open
    from games.services.tables import table_open
    from ledger.errors import StateConflict
    from patrons.services.patrons import patron_register

    from .suite_ledger import ensure_cage_shift, no_projection_tasks

    actor = "bench"
    with no_projection_tasks():
        try:
            cage_open(cash_cents=10**11, chips_cents=10**11, actor=actor)
        except StateConflict:
            pass  # the roulette section opened it
        ensure_cage_shift()
        # The set-up's huge tray is no one's request: no cage supervisor's second signature here.
        with override_settings(CASINO_LARGE_OPENER_CENTS=10**10):
            table_open(code=table, game="english_roulette", opener_cents=10**10, actor=actor, rules={})
        codes = []
        for p in range(patrons):
            code = patron_register(kind="identified", name=f"{name} {p}", document=f"{document}{p}", actor=actor)[
                "patron"
            ]
            chips_purchase(patron=code, amount_cents=190_000, actor=actor)  # under the AML log threshold
            codes.append(code)
        coup = round_open(table=table, actor=actor)["round"]
    return coup, codes, dealer_session()


def _load(spec: dict) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as handle:
        json.dump(spec, handle)
    try:
        out = subprocess.run(
            [sys.executable, "-m", "tests.benchmarks.loadgen", handle.name],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(handle.name)
    return json.loads(out.stdout)


@contextmanager
def gunicorn_serving(
    database: str, workers: int, env: dict[str, str] | None = None
) -> Iterator[tuple[int, subprocess.Popen]]:
    """gunicorn (deploy/gunicorn.conf.py, ``workers`` sync workers, ``DJANGO_DEBUG=false``) on a
    free loopback port, answering: ``(port, process)``; stopped on leaving. ``env`` overrides
    its environment (e.g. a real broker instead of the in-memory one)."""
    port = _free_port()
    env = {
        **os.environ,
        "DATABASE_URL": database_url(database),
        "GUNICORN_BIND": f"127.0.0.1:{port}",
        "GUNICORN_WORKERS": str(workers),
        "GUNICORN_MAX_REQUESTS": "0",
        "GUNICORN_LOG_LEVEL": "warning",
        "DJANGO_DEBUG": "false",
        # Production runs the projection catch-up on Celery workers (deploy/): the request only
        # publishes the task. An in-memory broker nobody consumes keeps that cost and no more;
        # with no broker at all the catch-up would run inside each request (the demo's mode).
        "CELERY_BROKER_URL": "memory://localhost/",
        **(env or {}),
    }
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "--config", "deploy/gunicorn.conf.py", "casino.wsgi"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_ready(port, server)
        yield port, server
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


def dealer_session(username: str = "bench_dealer") -> dict:
    """Headers of a logged-in dealer and pit boss ``username``: a session cookie and its CSRF token."""
    from django.contrib.auth import get_user_model
    from django.middleware.csrf import _get_new_csrf_string
    from django.test import Client

    from staff.roles import Role
    from staff.services import staff_account_create

    # Made through the staff service, so that its roles are recorded by events: an account
    # created around it holds no role (staff.standing) and every bet would be 401.
    if not get_user_model().objects.filter(username=username).exists():
        staff_account_create(username=username, roles=[Role.DEALER, Role.PIT_BOSS], actor="bench")
    user = get_user_model().objects.get(username=username)
    client = Client()
    client.force_login(user)
    csrf = _get_new_csrf_string()
    cookie = f"sessionid={client.cookies['sessionid'].value}; csrftoken={csrf}"
    return {"Cookie": cookie, "X-CSRFToken": csrf}


def bench_api(*, seconds: int, workers: int | None, database: str, quick: bool) -> list[Figure]:
    log("api: set-up")
    coup, codes, headers = _set_up(60 if quick else 300)
    # cores + 1 sync workers: PostgreSQL and the load generator share these cores, so the
    # production default (2 x cores + 1, for a database on its own machine) only adds
    # contention here (2 cores: 131 req/s with 3 workers, 124 with 5; results/2026-11-30T0326Z).
    workers = workers or (os.cpu_count() or 1) + 1
    with gunicorn_serving(database, workers) as (port, server):
        bodies = [
            {"patron": code, "stake_cents": 1_000, "bet": {"type": "chance_simple", "chance": chance}}
            for chance in CHANCES
            for code in codes
        ]
        spec = {"host": "127.0.0.1", "port": port, "path": f"/api/rounds/{coup}/bets", "headers": headers}
        # warm-up: every worker imports and connects once
        _load({**spec, "bodies": bodies[-workers * 4 :], "seconds": 2, "rate": None, "connections": workers})
        log(f"api: open loop at {TARGET_RATE} req/s for {seconds} s ({workers} gunicorn workers)")
        timeline = os.environ.get("BENCH_API_TIMELINE")  # where to write each request's latency
        # The set-up's dirty pages are written out now, not by a checkpoint in the middle of the
        # measured seconds (its writes made the commits' fsyncs wait: bursts of slow requests).
        checkpoints_before = _checkpoint()
        waits_before = _machine_waits()
        fixed = _load(
            {**spec, "bodies": bodies, "seconds": seconds, "rate": TARGET_RATE, "connections": 32, "timeline": timeline}
        )
        fixed["waits"] = {k: v - waits_before[k] for k, v in _machine_waits().items()}
        fixed["checkpoints"] = _checkpoints() - checkpoints_before
        log(f"api: closed loop, {workers} connections, {seconds} s")
        busy_before, split_before = _machine_busy_seconds(), _cpu_by_process(server.pid)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        ceiling = _load({**spec, "bodies": bodies[::-1], "seconds": seconds, "rate": None, "connections": workers})
        served = max(ceiling["requests"], 1)
        ceiling["cpu_ms_per_request"] = 1000 * (_machine_busy_seconds() - busy_before) / served
        split_after = _cpu_by_process(server.pid)
        reaped = resource.getrusage(resource.RUSAGE_CHILDREN)  # the load generator, now ended
        split_after["load generator"] = reaped.ru_utime + reaped.ru_stime - children.ru_utime - children.ru_stime
        split_before["load generator"] = 0.0
        ceiling["cpu_split"] = {k: 1000 * (split_after[k] - split_before[k]) / served for k in split_after}
    figures = []
    for title, result, target in (
        (f"open loop at {TARGET_RATE} req/s", fixed, True),
        (f"closed loop, {workers} connections (ceiling)", ceiling, False),
    ):
        met = None
        if target:
            met = result["rate"] >= TARGET_RATE * 0.98 and result["p99_ms"] < 50 and result["errors"] == 0
        errors = f", errors: {result['error_kinds']}" if result["errors"] else ""
        figures.append(
            Figure(
                SECTION,
                f"POST /api/rounds/<id>/bets, {title}: {result['requests']:,} requests, "
                f"p50 {result['p50_ms']:.1f} ms, p90 {result['p90_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms, "
                f"max {result['max_ms']:.0f} ms, {result['errors']} errors{errors}",
                result["rate"],
                "req/s",
                target="≥ 150 req/s, p99 < 50 ms, no errors" if target else "",
                met=met,
                notes=f"gunicorn {workers} sync workers, session cookie"
                + (
                    f"; {result['over_50ms']} requests over 50 ms; the machine meanwhile waited"
                    f" {result['waits']['iowait']:.1f} s on I/O and lost {result['waits']['steal']:.1f} s to"
                    f" its host (steal); {result['checkpoints']} PostgreSQL checkpoints ran (one was"
                    " forced just before): stalls of a few hundred ms come and go with the disk's fsync"
                    if "waits" in result
                    else ""
                )
                + (
                    f"; {result['cpu_ms_per_request']:.1f} ms of CPU per request, the whole machine"
                    f" (gunicorn, PostgreSQL, load generator) over its {os.cpu_count()} cores: "
                    + ", ".join(f"{name} {ms:.1f}" for name, ms in result["cpu_split"].items())
                    if "cpu_ms_per_request" in result
                    else ""
                ),
            )
        )
    return figures


def _checkpoints() -> int:
    """Checkpoints the PostgreSQL server has run since its statistics were reset (all databases)."""
    with raw_connection() as conn:
        return conn.execute("SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter").fetchone()[0]


def _checkpoint() -> int:
    """Force a checkpoint (the benchmark connects as a superuser); returns ``_checkpoints()`` after it."""
    with raw_connection() as conn:
        conn.autocommit = True
        conn.execute("CHECKPOINT")
    return _checkpoints()


def _machine_waits() -> dict[str, float]:
    """Seconds (all cores) the machine has spent waiting on I/O and lost to its host (steal)
    since boot, from /proc/stat: a commit waits for its fsync under the ledger's writer lock,
    so a slow disk second shows as a burst of slow requests that no code of ours caused."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    tick = os.sysconf("SC_CLK_TCK")
    return {"iowait": fields[4] / tick, "steal": fields[7] / tick}


def _machine_busy_seconds() -> float:
    """CPU seconds spent busy by the whole machine (all cores) since boot, from /proc/stat: over
    the closed loop it is what one request costs everywhere (worker, database, load generator),
    so ``cores / cost`` is the most any number of workers could serve on this machine."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _cpu_by_process(gunicorn_pid: int) -> dict[str, float]:
    """CPU seconds (user + system) used so far by gunicorn (master and workers) and by the
    PostgreSQL server's processes, from /proc: where a request's CPU goes. Processes that
    ended since are not counted (the load generator's is taken from ``RUSAGE_CHILDREN``)."""
    tick = os.sysconf("SC_CLK_TCK")
    split = {"gunicorn": 0.0, "postgres": 0.0}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        fields = text[text.rindex(")") + 2 :].split()
        ppid, cpu = int(fields[1]), (int(fields[11]) + int(fields[12])) / tick
        if ppid == gunicorn_pid or int(stat.parent.name) == gunicorn_pid:
            split["gunicorn"] += cpu
        elif name.startswith("postgres"):
            split["postgres"] += cpu
    return split


def _wait_ready(port: int, server: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"gunicorn exited: {server.stderr.read()[-2000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/health/", timeout=2):
                return
        except OSError:
            time.sleep(0.3)
    raise SystemExit("gunicorn did not answer within 60 s")
