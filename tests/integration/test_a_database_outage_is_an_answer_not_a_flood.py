"""A database that goes away is an answer, not a flood: on a PostgreSQL server of the test's own
(``private_postgres``: stopped and frozen at will, never the shared one), the application served
by gunicorn as in production answers 503 with ``Retry-After`` (JSON under /api/, a readable page
elsewhere, a logged-in visitor's too), ``/metrics`` answers 200 with ``casino_database_up 0``, a
frozen server fails a request within the connection timeouts, and the outage is one log line when
it goes and one when it returns."""

from __future__ import annotations

import copy
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.conf import settings
from django.db import OperationalError, connections

from core.errors import UNAVAILABLE

from . import private_postgres
from .private_postgres import PrivatePostgres, _free_port

ROOT = Path(__file__).resolve().parents[2]
CONNECT_SECONDS = 2  # DATABASE_CONNECT_TIMEOUT_SECONDS of the served application
STATEMENT_SECONDS = 2  # DATABASE_STATEMENT_TIMEOUT_SECONDS: it waits 2 + 5 s for an answer

_why_not = private_postgres.unavailable_reason()
if _why_not and os.environ.get("CI") == "true":
    raise RuntimeError(f"the outage tests need a private PostgreSQL in CI: {_why_not}")
pytestmark = [
    pytest.mark.skipif(_why_not is not None, reason=f"no private PostgreSQL here: {_why_not}"),
    pytest.mark.xdist_group("private-postgres"),  # one server and one gunicorn for the module
]


def _wait_until(check, seconds: float, what: str):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"not within {seconds} s: {what}")


@pytest.fixture(scope="module")
def server():
    server = PrivatePostgres()
    try:
        server.init()
        server.start()
        server.create_database("casino_outage")
        yield server
    finally:
        server.destroy()


class Served:
    """gunicorn serving the application on ``server``'s database; ``log()`` reads what it wrote."""

    def __init__(self, server: PrivatePostgres, workdir: Path):
        self.server = server
        self.port = _free_port()
        self.log_path = workdir / "gunicorn.log"
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("DATABASE_REPLICA_URL", "PROMETHEUS_MULTIPROC_DIR", "PYTEST_XDIST_WORKER")
        }
        env.update(
            DJANGO_SETTINGS_MODULE="casino.settings",
            DATABASE_URL=server.url("casino_outage"),
            CELERY_BROKER_URL="",
            DATABASE_CONNECT_TIMEOUT_SECONDS=str(CONNECT_SECONDS),
            DATABASE_STATEMENT_TIMEOUT_SECONDS=str(STATEMENT_SECONDS),
            LOG_LEVEL="WARNING",
            LOG_FORMAT="text",
            LEDGER_CHECKPOINT_DIR=str(workdir / "checkpoints"),
            CASINO_EXPORT_DIR=str(workdir / "exports"),
            GUNICORN_BIND=f"127.0.0.1:{self.port}",
            GUNICORN_WORKERS="1",  # one process: its log lines are the outage's, counted
            GUNICORN_TIMEOUT="60",
        )
        self.env = env
        migrate = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert migrate.returncode == 0, migrate.stderr
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "--config", "deploy/gunicorn.conf.py", "casino.wsgi:application"],
            cwd=ROOT, env=env, stdout=self.log_file, stderr=subprocess.STDOUT,
        )  # fmt: skip
        _wait_until(lambda: self.get("/api/health/live")[0] == 200, 60, "gunicorn answers")

    def get(self, path: str, headers: dict | None = None, timeout: float = 60) -> tuple[int, dict, str, float]:
        """``(status, headers, body, seconds)`` of GET ``path``; (0, …) when nothing answered."""
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", headers=headers or {})
        started = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                return response.status, dict(response.headers), response.read().decode(), time.monotonic() - started
        except urllib.error.HTTPError as error:
            return error.code, dict(error.headers), error.read().decode(), time.monotonic() - started
        except OSError:
            return 0, {}, "", time.monotonic() - started

    def database_up(self) -> str | None:
        status, _, body, _ = self.get("/metrics")
        found = re.search(r"^casino_database_up (\S+)$", body, re.MULTILINE) if status == 200 else None
        return found.group(1) if found else None

    def log(self) -> str:
        self.log_file.flush()
        return self.log_path.read_text(errors="replace")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log_file.close()


@pytest.fixture(scope="module")
def served(server, tmp_path_factory):
    served = Served(server, tmp_path_factory.mktemp("outage"))
    yield served
    served.stop()


@pytest.fixture
def database_back(server, served):
    """Whatever a test did to the server, it answers again afterwards."""
    yield
    server.thaw()
    if not (server.data / "postmaster.pid").exists():
        server.start()
    _wait_until(lambda: served.database_up() == "1.0", 30, "the database is back for the next test")


# The lines the application logged (core.logs' text format), not gunicorn's access lines.
def _app_lines(log: str) -> list[str]:
    """The log's lines but gunicorn's access lines (one a request, in the same form)."""
    return [
        line
        for line in log.splitlines()
        if re.match(r"^\d{4}-\d\d-\d\dT\S+Z (DEBUG|INFO|WARNING|ERROR|CRITICAL) ", line)
        and " gunicorn.access " not in line
    ]


BASIC_DEALER = {"Authorization": "Basic ZGVhbGVyOmRlYWxlcg=="}  # dealer:dealer: DRF looks the user up
# A login cookie: the login it names is looked up in the database before any view.
LOGGED_IN = {"Cookie": f"{settings.SESSION_COOKIE_NAME}=abcdefghijklmnopqrstuvwxyz012345"}


def test_a_stopped_database_answers_503_with_retry_after_json_pages_and_metrics_say_database_up_0(
    server, served, database_back
):
    assert served.database_up() == "1.0"
    server.stop()

    status, headers, body, _ = served.get("/api/tables/", BASIC_DEALER)
    assert (status, headers.get("Retry-After"), json.loads(body)) == (503, "5", UNAVAILABLE)
    status, headers, body, _ = served.get("/api/health/ready")
    assert (status, json.loads(body)["checks"]["database"]) == (503, {"ok": False, "error": "database unavailable"})
    for page in ("/dashboard/", "/dashboard/login/", "/workstations/", "/"):
        status, headers, body, _ = served.get(page, LOGGED_IN)
        assert (status, headers.get("Retry-After")) == (503, "5"), page
        assert "The database cannot be reached just now" in body and str(server.port) not in body, page
    status, _, body, _ = served.get("/metrics")
    assert status == 200 and "casino_database_up 0.0" in body.splitlines()
    assert "casino_http_requests_total" in body  # the process's own counts still answer


def test_an_outage_is_one_log_line_when_it_goes_and_one_when_it_returns(server, served, database_back):
    assert served.database_up() == "1.0"
    before = len(served.log())
    server.stop()
    for _ in range(10):
        assert served.get("/api/tables/", BASIC_DEALER)[0] == 503
        assert served.get("/dashboard/", LOGGED_IN)[0] == 503
        assert served.get("/api/health/ready")[0] == 503
        assert served.database_up() == "0.0"
    server.start()
    _wait_until(lambda: served.database_up() == "1.0", 30, "casino_database_up back to 1")

    lines = _app_lines(served.log()[before:])
    assert len(lines) == 2, lines
    assert " WARNING casino.database " in lines[0] and "database unavailable" in lines[0]
    assert " WARNING casino.database " in lines[1] and "database available again after" in lines[1]
    assert "Traceback" not in served.log()[before:]


def test_a_frozen_database_fails_a_request_within_the_connection_timeouts(server, served, database_back):
    assert served.get("/api/health/ready")[0] in (200, 503)  # the worker keeps a connection open
    assert served.database_up() == "1.0"
    server.freeze()
    try:
        status, headers, body, seconds = served.get("/api/health/ready")
        # The kept connection's health check (CONNECT_SECONDS), then a new one (CONNECT_SECONDS).
        assert status == 503 and json.loads(body)["checks"]["database"]["ok"] is False
        assert seconds < 2 * CONNECT_SECONDS + 3, seconds
        status, headers, body, seconds = served.get("/api/tables/", BASIC_DEALER)
        assert (status, json.loads(body)) == (503, UNAVAILABLE) and seconds < 2 * CONNECT_SECONDS + 3, seconds
        status, _, body, seconds = served.get("/metrics")
        assert status == 200 and "casino_database_up 0.0" in body.splitlines() and seconds < CONNECT_SECONDS + 3
    finally:
        server.thaw()
    _wait_until(lambda: served.database_up() == "1.0", 30, "casino_database_up back to 1 after SIGCONT")


@pytest.fixture
def private_connection(server, django_db_blocker):
    """A connection of the application's backend (``ledger.postgresql``) to ``server``, waiting
    at most 2 s for an answer."""
    from ledger.postgresql.base import DatabaseWrapper

    settings_dict = copy.deepcopy(connections["default"].settings_dict)
    settings_dict.update(
        ENGINE="ledger.postgresql", NAME="casino_outage", USER="postgres", PASSWORD="", HOST="127.0.0.1",
        PORT=str(server.port), OPTIONS={"connect_timeout": 2, "answer_timeout": 2}, CONN_HEALTH_CHECKS=False,
    )  # fmt: skip
    wrapper = DatabaseWrapper(settings_dict, alias="private")
    with django_db_blocker.unblock():
        yield wrapper
        wrapper.close()


def test_a_server_frozen_between_two_statements_fails_the_next_within_the_answer_timeout(
    server, private_connection, database_back
):
    """Its kernel takes the query and acknowledges it; nothing answers: the client gives up after
    ``answer_timeout``, closes the connection and raises OperationalError (a 503 to a request)."""
    with private_connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    server.freeze()
    try:
        started = time.monotonic()
        with pytest.raises(OperationalError, match="no answer within 2 s"):
            with private_connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        assert 2 <= time.monotonic() - started < 4
        assert private_connection.connection.closed
    finally:
        server.thaw()
