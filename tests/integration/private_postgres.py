"""A PostgreSQL server of a test's own, to stop and freeze at will: never the shared one on 5432.

``PrivatePostgres`` runs ``initdb`` in a temporary directory and starts the server on a free port
of 127.0.0.1 (asked of the kernel), trusting local connections, the way deploy/pitr-drill and
deploy/replica-smoke make theirs: as the OS user ``postgres`` when the tests run as root (initdb
refuses root), else as the current user. ``stop()``/``start()`` take it down and up (``pg_ctl``),
``freeze()``/``thaw()`` send SIGSTOP/SIGCONT to its postmaster and every backend (a hung server:
its kernel still accepts connections and acknowledges packets, nothing answers).

``unavailable_reason()`` says why no such server can be made here (no ``initdb``, root without a
``postgres`` user or ``runuser``), None when one can.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path


def _bindir() -> Path | None:
    if os.environ.get("PG_BINDIR"):
        return Path(os.environ["PG_BINDIR"])
    try:
        found = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True).stdout.strip()
        if (Path(found) / "initdb").exists():
            return Path(found)
    except (OSError, subprocess.CalledProcessError):
        pass
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin"), key=lambda p: int(p.parent.name.split(".")[0]))
    return versions[-1] if versions else None


def unavailable_reason() -> str | None:
    bindir = _bindir()
    if bindir is None or not (bindir / "initdb").exists() or not (bindir / "pg_ctl").exists():
        return "no initdb/pg_ctl (set PG_BINDIR)"
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root, and there is no OS user postgres to run initdb as"
        if shutil.which("runuser") is None:
            return "running as root without runuser"
    return None


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class PrivatePostgres:
    """One private server; ``url(dbname)`` is its ``postgres://`` URL (user postgres, trust)."""

    def __init__(self) -> None:
        self.bindir = _bindir()
        self.root = Path(tempfile.mkdtemp(prefix="casino-private-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self._as_postgres = os.geteuid() == 0
        if self._as_postgres:
            shutil.chown(self.root, "postgres", "postgres")

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = [str(self.bindir / args[0]), *args[1:]]
        if self._as_postgres:
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, capture_output=True, text=True, check=check, timeout=120)

    def url(self, dbname: str = "postgres") -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{dbname}"

    def init(self) -> None:
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8")
        with open(self.data / "postgresql.conf", "a") as conf:
            conf.write(
                f"port = {self.port}\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = '{self.root}'\n"
                "fsync = off\nmax_connections = 30\n"
            )

    def start(self) -> None:
        for attempt in range(3):
            result = self._run("pg_ctl", "-D", str(self.data), "-l", str(self.root / "server.log"), "-w", "-t", "60",
                               "start", check=False)  # fmt: skip
            if result.returncode == 0:
                return
            if attempt < 2 and "could not bind" in (self.root / "server.log").read_text():
                self.port = _free_port()  # taken between the question and the start
                with open(self.data / "postgresql.conf", "a") as conf:
                    conf.write(f"port = {self.port}\n")
                continue
            raise RuntimeError(f"private PostgreSQL did not start: {result.stderr}")

    def stop(self) -> None:
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def create_database(self, name: str) -> None:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')

    def _pids(self) -> list[int]:
        """The postmaster and every process it started (its backends and auxiliaries)."""
        postmaster = int((self.data / "postmaster.pid").read_text().split()[0])
        pids = [postmaster]
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the process ended meanwhile
            if int(fields[1]) == postmaster:
                pids.append(int(stat.parent.name))
        return pids

    def freeze(self) -> None:
        self._frozen = self._pids()
        for pid in self._frozen:
            os.kill(pid, signal.SIGSTOP)

    def thaw(self) -> None:
        for pid in getattr(self, "_frozen", []):
            try:
                os.kill(pid, signal.SIGCONT)
            except ProcessLookupError:
                pass
        self._frozen = []

    def destroy(self) -> None:
        self.thaw()
        if (self.data / "postmaster.pid").exists():
            result = self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop", check=False)
            if result.returncode != 0:
                time.sleep(1)
        shutil.rmtree(self.root, ignore_errors=True)
