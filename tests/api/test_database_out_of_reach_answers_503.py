"""The database out of reach (down, restarting, out of connection slots) is a 503 with
``Retry-After`` — JSON under /api/, a short page elsewhere — never a 500 and never the
driver's message (it names the database's host and port)."""

import json

import pytest
from django.db import InterfaceError, OperationalError
from django.test import RequestFactory

from core.errors import exception_handler
from core.middleware import DatabaseUnavailableMiddleware

DRIVER = 'connection to server at "10.0.0.5", port 5432 failed: FATAL:  sorry, too many clients already'


def _middleware():
    return DatabaseUnavailableMiddleware(lambda request: None)


@pytest.mark.parametrize("exc", [OperationalError(DRIVER), InterfaceError("connection already closed")])
def test_an_api_view_meeting_no_database_answers_503_json(exc):
    response = _middleware().process_exception(RequestFactory().post("/api/cage/redemptions"), exc)
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert json.loads(response.content) == {
        "error": "unavailable",
        "detail": "the database is unavailable; retry in a few seconds",
    }
    assert b"10.0.0.5" not in response.content


def test_a_page_meeting_no_database_answers_a_503_page():
    response = _middleware().process_exception(RequestFactory().get("/dashboard/"), OperationalError(DRIVER))
    assert response.status_code == 503 and response["Retry-After"] == "5"
    assert b"Nothing you sent was recorded" in response.content and b"5432" not in response.content


def test_other_errors_are_left_to_django():
    assert _middleware().process_exception(RequestFactory().get("/dashboard/"), ValueError("x")) is None


def test_the_api_exception_handler_answers_503_and_keeps_a_locked_sqlite_a_409():
    response = exception_handler(OperationalError(DRIVER), {"request": None})
    assert response.status_code == 503 and response.data["error"] == "unavailable"
    assert response["Retry-After"] == "5"
    locked = exception_handler(OperationalError("database is locked"), {"request": None})
    assert locked.status_code == 409 and locked.data["error"] == "busy"
