"""A Celery worker on Redis outlives Redis killed (SIGKILL) under a burst of commands: it keeps
retrying, reconnects when Redis is back on the same port, and the projections catch up
(deploy/README.md, "A worker outlives a broker outage"). The Redis here is a server of this
test's own, on a free port with a temporary directory: never the shared one on 6379."""

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from ledger import accounts, projections
from ledger.models import Event
from tests.conftest import ACTOR, make_patron

from .projection_helpers import ledger_balances, snapshot, spawn
from .test_projections import _on_broker, _real_worker

REDIS_SERVER = shutil.which("redis-server")
if REDIS_SERVER is None and os.environ.get("CI") == "true":
    raise RuntimeError("the Redis outage test needs redis-server in CI (scripts/setup.sh dev installs it)")

pytestmark = [
    pytest.mark.skipif(REDIS_SERVER is None, reason="no redis-server here (scripts/setup.sh dev installs it)"),
    pytest.mark.postgres,
    pytest.mark.broker,  # a real worker: with the other real-worker tests (tests/conftest.py)
]


class PrivateRedis:
    """A redis-server of the test's own on 127.0.0.1:``port`` (a free port asked of the kernel),
    no persistence: what the queues held when it was killed is gone, as after a crash with
    ``save ""``. ``kill()`` sends SIGKILL; ``start()`` starts it again on the same port."""

    def __init__(self) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="casino-redis-"))
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.root / "redis.log", "a")  # noqa: SIM115 - the server's own file, kept open by it
        self.process = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--dir", str(self.root)]
            + ["--save", "", "--appendonly", "no", "--daemonize", "no"],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.1)
        raise RuntimeError(f"redis-server did not answer on port {self.port}: {self.log()}")

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def log(self) -> str:
        return (self.root / "redis.log").read_text()

    def close(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        shutil.rmtree(self.root, ignore_errors=True)


@pytest.fixture
def private_redis():
    server = PrivateRedis()
    server.start()
    yield server
    server.close()


# Chip purchases, one every 50 ms, until the test creates STOP_FILE: each commits and publishes
# a catch-up to the worker's queue (a publish that fails during the outage is skipped for 5 s,
# ledger/commands.py, and the command still succeeds).
BURST = """
import os, time
from cashier.services.cage import chips_purchase
codes = os.environ["BURST_PATRONS"].split(",")
i = 0
while not os.path.exists(os.environ["STOP_FILE"]):
    chips_purchase(patron=codes[i % 5], amount_cents=1_000 + i, actor=os.environ["BURST_ACTOR"])
    i += 1
    time.sleep(0.05)
print("purchases", i)
"""

OUTAGE_SECONDS = 4
# After Redis is back: longer than the burst's pause after a failed publish (5 s), so commands
# committed then publish again and the worker has events that only a reconnected worker applies.
AFTER_SECONDS = 8


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.25)
    return predicate()


def test_a_worker_outlives_a_redis_outage_and_catches_up(committed_db, cage, private_redis, tmp_path, monkeypatch):
    stop = tmp_path / "stop"
    # this process's commits publish to the private Redis too, never to the run's broker
    with _on_broker(private_redis.url, monkeypatch), _real_worker(private_redis.url, "--pool=solo") as worker:
        codes = [make_patron() for _ in range(5)]
        before = projections.lag()[0]["head"]  # positions
        burst = spawn(
            ["manage.py", "shell", "-c", BURST],
            CELERY_BROKER_URL=private_redis.url,
            CELERY_QUEUE=worker["queue"],
            BURST_PATRONS=",".join(codes),
            BURST_ACTOR=ACTOR,
            STOP_FILE=str(stop),
        )
        try:
            # the worker applies the burst's first 20 commands: it consumes before the outage
            if not _wait_for(lambda: projections.lag()[0]["head"] >= before + 20, 120):
                stop.touch()
                pytest.fail(f"the burst made fewer than 20 commands: {burst.communicate(timeout=60)[0]}")
            applied = _wait_for(lambda: min(row["checkpoint"] for row in projections.lag()) >= before + 20, 180)
            assert applied, "the worker applied nothing before the outage"
            private_redis.kill()
            at_kill = Event.objects.count()
            time.sleep(OUTAGE_SECONDS)
            assert Event.objects.count() > at_kill  # the floor kept committing without its broker
            private_redis.start()
            at_restart = Event.objects.count()
            time.sleep(AFTER_SECONDS)
            worker_alive = worker["process"].poll() is None
        finally:
            stop.touch()
            said = burst.communicate(timeout=60)[0] if burst.returncode is None else ""
        assert burst.returncode == 0, said
        assert Event.objects.count() > at_restart  # commands committed after Redis came back
        caught_up = _wait_for(lambda: not any(row["lag"] for row in projections.lag()), 120)
        lags = {row["lag"] for row in projections.lag()}
    output = worker["output"]
    assert worker_alive, output
    assert caught_up and lags == {0}, output
    assert "Connection to broker lost" in output, output  # the worker did see Redis go
    assert "Unrecoverable error" not in output and "AttributeError" not in output, output
    purchases = int(said.split("purchases ")[1].split()[0])
    balances = snapshot()["balances"]
    # patron j bought 1,000 + i for every i = j (mod 5) below the number of purchases
    assert balances[(accounts.patron_chips(codes[0]), "EUR")] == sum(1_000 + i for i in range(0, purchases, 5))
    assert balances == ledger_balances()
