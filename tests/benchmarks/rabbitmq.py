"""A queue of the benchmark's own on the shared RabbitMQ, and a Celery worker consuming only it.

The RabbitMQ at 127.0.0.1:5672 serves other people's workers too: the benchmark never touches
the queues they consume (``projections``, ``exports``, ``default``, ``casino``), never stops
the server, and deletes its own queue when it is done. Its processes publish with
``CELERY_QUEUE=<own queue>`` and ``CELERY_ROUTE_QUEUES=false``, so every task, the catch-up
included, goes to that one queue.
"""

import ast
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .common import log

AMQP = "amqp://guest:guest@127.0.0.1:5672//"
DOWN = "amqp://guest:guest@127.0.0.1:1//"  # nothing listens on port 1: a broker that is down
ROOT = Path(__file__).resolve().parents[2]
# Celery's line for each task that ended well: ``Task <name>[<id>] succeeded in <s>s: <repr>``.
_SUCCEEDED = re.compile(r"Task ledger\.tasks\.catch_up_projections\[[^\]]+\] succeeded in ([0-9.e-]+)s: (.*)$")


def own_queue(section: str, database: str) -> str:
    """A queue name no one else uses: the section, the benchmark database and this process."""
    return f"bench_{section}_{database}_{os.getpid()}"


def purge(url: str, queue: str) -> int:
    """Delete the messages waiting in ``queue``; returns how many there were (0: no such queue)."""
    from kombu import Connection

    with Connection(url, connect_timeout=5) as conn:
        try:
            return conn.default_channel.queue_purge(queue) or 0
        except Exception:  # noqa: BLE001 - a queue never declared: nothing to purge
            return 0


def delete(url: str, queue: str) -> None:
    """Delete ``queue`` (ours) from the broker."""
    from kombu import Connection

    with Connection(url, connect_timeout=5) as conn:
        try:
            conn.default_channel.queue_delete(queue)
        except Exception:  # noqa: BLE001 - never declared
            pass


def publishing_env(url: str, queue: str, checkpoint_dir: str) -> dict[str, str]:
    """The environment of a process that publishes to (or consumes) ``queue`` only, writing
    its ledger checkpoints to ``checkpoint_dir`` (not the tree's var/)."""
    return {
        "CELERY_BROKER_URL": url,
        "CELERY_QUEUE": queue,
        "CELERY_ROUTE_QUEUES": "false",
        "LEDGER_CHECKPOINT_DIR": checkpoint_dir,
    }


class CatchUpWorker:
    """``celery worker`` with deploy/celery's options (prefork, ``concurrency`` processes,
    ``-O fair``, no gossip or mingle) but consuming only ``queue``; its log kept in a temporary
    file, read back to count the catch-up tasks it ran."""

    def __init__(self, *, env: dict[str, str], queue: str, concurrency: int = 2, nice: int = 0) -> None:
        self.output = tempfile.NamedTemporaryFile("w+", prefix="catch-up-worker-", suffix=".log")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "casino",
                "worker",
                "-Q",
                queue,
                "--hostname",
                f"{queue}@%h",
                "-c",
                str(concurrency),
                "-P",
                "prefork",
                "-O",
                "fair",
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "-l",
                "info",
            ],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=self.output,
            stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.nice(nice)) if nice else None,  # noqa: PLW1509 - no threads started here
        )
        deadline = time.monotonic() + 120
        while "ready." not in self.log():
            if self.process.poll() is not None or time.monotonic() > deadline:
                text = self.log()[-2000:]
                self.close()
                raise RuntimeError("the catch-up worker did not start: " + text)
            time.sleep(0.2)
        log(f"worker: ready ({concurrency} processes, queue {queue}, nice {nice})")

    def log(self) -> str:
        return Path(self.output.name).read_text(errors="replace")

    def offset(self) -> int:
        return len(self.log())

    def catch_ups(self, since: int = 0) -> list[tuple[float, int]]:
        """``(seconds, events)`` of each catch-up task that succeeded after log offset ``since``:
        its run time as Celery measured it, and the events it applied (the most any projection
        applied: each applies the same positions)."""
        runs = []
        for line in self.log()[since:].splitlines():
            found = _SUCCEEDED.search(line)
            if found:
                try:
                    applied = ast.literal_eval(found.group(2))
                except (ValueError, SyntaxError):
                    applied = None
                events = max(applied.values(), default=0) if isinstance(applied, dict) else 0
                runs.append((float(found.group(1)), events))
        return runs

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) used so far by the worker and its pool processes."""
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = stat.read_text()
            except OSError:
                continue
            fields = text[text.rindex(")") + 2 :].split()
            if int(stat.parent.name) == self.process.pid or int(fields[1]) == self.process.pid:
                total += (int(fields[11]) + int(fields[12])) / tick
        return total

    def close(self) -> None:
        """Stop the worker and drop its log (copied to ``$BENCH_WORKER_LOG`` first, when set)."""
        self.stop()
        keep = os.environ.get("BENCH_WORKER_LOG")
        if keep:
            with open(keep, "a") as handle:
                handle.write(self.log())
        self.output.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()  # warm shutdown: the running task ends first
            try:
                self.process.wait(60)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
