"""Each PostgreSQL statement has a budget (``DATABASE_STATEMENT_TIMEOUT_SECONDS``, and the client
waits that plus a grace for any answer); a statement past it is a 503 ``timeout``, not an outage.
The work that legitimately runs long (rebuilds, exports, verify, migrations: ``ledger.timeouts``)
gets ``DATABASE_LONG_STATEMENT_TIMEOUT_SECONDS`` for as long as it runs. A periodic task that meets
the database out of reach returns without a traceback, the outage noted once."""

from __future__ import annotations

import logging

import pytest
from django.conf import settings
from django.db import OperationalError, connection, transaction

from core.errors import TIMED_OUT, UNAVAILABLE, exception_handler
from ledger import outage, projections, tasks
from ledger.timeouts import long_statements

pytestmark = pytest.mark.django_db

postgres_only = pytest.mark.skipif(
    "postgresql" not in settings.DATABASES["default"]["ENGINE"], reason="statement_timeout is PostgreSQL's"
)


def _statement_timeout() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        return cursor.fetchone()[0]


@postgres_only
def test_every_connection_starts_with_the_statement_budget_and_its_answer_timeout():
    assert settings.DATABASE_STATEMENT_TIMEOUT_SECONDS == 20 and settings.DATABASE_CONNECT_TIMEOUT_SECONDS == 5
    assert _statement_timeout() == "20s"
    connection.ensure_connection()
    assert connection.connection.answer_timeout == 25  # 20 s, then 5 s for the server to say so
    assert connection.settings_dict["OPTIONS"]["connect_timeout"] == 5


@postgres_only
def test_a_statement_past_its_budget_answers_503_timeout_and_is_no_outage():
    with pytest.raises(OperationalError) as raised, transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL statement_timeout = 50")
            cursor.execute("SELECT pg_sleep(2)")
    response = exception_handler(raised.value, {"request": None})
    assert (response.status_code, response.data, response["Retry-After"]) == (503, TIMED_OUT, "5")
    assert not outage.unavailable()


@postgres_only
def test_long_work_has_the_long_budget_while_it_runs_then_the_usual_one():
    assert _statement_timeout() == "20s"
    with long_statements():
        assert _statement_timeout() == "1h"
        assert connection.connection.answer_timeout == 3605
        with long_statements():  # nested: still the long budget, until the outer block ends
            pass
        assert _statement_timeout() == "1h"
    assert _statement_timeout() == "20s"
    assert connection.connection.answer_timeout == 25


@postgres_only
def test_a_rebuild_task_runs_with_the_long_budget(monkeypatch):
    seen = {}

    def rebuild_run(*, name):
        seen["budget"] = _statement_timeout()
        return 0

    monkeypatch.setattr(tasks.rebuilds, "rebuild_run", rebuild_run)
    tasks.rebuild_projection("balances")
    assert seen == {"budget": "1h"} and _statement_timeout() == "20s"


def test_a_periodic_task_meeting_no_database_returns_and_notes_the_outage_once(monkeypatch, caplog):
    def refused():
        raise OperationalError('connection to server at "10.0.0.9", port 5432 failed: Connection refused')

    monkeypatch.setattr(projections, "catch_up_all", refused)
    with caplog.at_level(logging.WARNING):
        assert tasks.catch_up_projections() is None
        assert tasks.catch_up_projections() is None
    lines = [record.getMessage() for record in caplog.records if record.levelno >= logging.WARNING]
    assert len(lines) == 1 and lines[0].startswith("database unavailable (OperationalError: connection to server")
    assert outage.unavailable()


def test_a_refused_connection_and_a_dropped_one_are_an_outage_a_cancelled_statement_is_not():
    class Cancelled(Exception):
        sqlstate = "57014"

    try:
        raise OperationalError("canceling statement due to statement timeout") from Cancelled()
    except OperationalError as cancelled:
        assert outage.timed_out(cancelled) and not outage.unreachable(cancelled)
    assert outage.unreachable(OperationalError("the database sent no answer within 25 s: connection closed"))
    assert not outage.unreachable(OperationalError("database is locked"))  # SQLite's busy: a 409
    assert UNAVAILABLE["error"] == "unavailable" and TIMED_OUT["error"] == "timeout"
