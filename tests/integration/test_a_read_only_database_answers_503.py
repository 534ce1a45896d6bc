"""A node whose database takes no writes (pointed at a standby; here the same refusal made by
``default_transaction_read_only``, SQLSTATE 25006) says so on /api/health/ready and answers a
write with a 503 ``read_only`` JSON, never a 500."""

from __future__ import annotations

import json

import psycopg
import pytest
from django.db import InternalError, connection
from django.test import Client, RequestFactory

from core.errors import READ_ONLY, database_read_only, exception_handler
from core.middleware import DatabaseUnavailableMiddleware
from tests.conftest import client_as, staff_user


def _read_only_error() -> InternalError:
    """What Django raises for a write on a standby: its InternalError over psycopg's error."""
    try:
        try:
            raise psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT in a read-only transaction")
        except psycopg.Error as driver:
            raise InternalError(str(driver)) from driver
    except InternalError as wrapped:
        return wrapped


def test_the_api_handler_answers_a_write_on_a_read_only_database_with_503_read_only():
    response = exception_handler(_read_only_error(), {"request": None})
    assert (response.status_code, response.data, response["Retry-After"]) == (503, READ_ONLY, "5")


def test_a_page_posting_to_a_read_only_database_answers_a_503_page_and_the_api_json():
    middleware = DatabaseUnavailableMiddleware(lambda request: None)
    page = middleware.process_exception(RequestFactory().post("/dashboard/tables/R1/limits"), _read_only_error())
    assert page.status_code == 503 and b"Nothing you sent was recorded" in page.content
    api = middleware.process_exception(RequestFactory().post("/api/cage/purchases"), _read_only_error())
    assert (api.status_code, json.loads(api.content)) == (503, READ_ONLY)


def test_other_internal_errors_are_not_taken_for_a_read_only_database():
    assert not database_read_only(InternalError("something else"))


@pytest.fixture
def read_only_database(committed_db):
    """The test database refusing writes to every session, this one included, as a standby does."""
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        cursor.execute("SET default_transaction_read_only = on")
    yield
    connection.close()  # whatever state the failed requests left it in
    with connection.cursor() as cursor:
        cursor.execute("SET default_transaction_read_only = off")
        cursor.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')


def test_a_node_on_a_read_only_database_is_not_ready_and_says_why(read_only_database):
    response = Client().get("/api/health/ready")
    assert response.status_code == 503
    body = response.json()
    assert "writable" in body["failing"]
    assert body["checks"]["writable"]["ok"] is False
    assert "read-only" in body["checks"]["writable"]["error"]


def test_a_write_on_a_read_only_database_answers_503_read_only_not_500(committed_db):
    api = client_as(staff_user("cashier-ro", "cashier"))
    name = connection.settings_dict["NAME"]
    with connection.cursor() as cursor:
        cursor.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        cursor.execute("SET default_transaction_read_only = on")
    try:
        response = api.post(
            "/api/patrons/register", {"kind": "identified", "name": "Nobody", "document": "RO-1"}, format="json"
        )
    finally:
        connection.close()
        with connection.cursor() as cursor:
            cursor.execute("SET default_transaction_read_only = off")
            cursor.execute(f'ALTER DATABASE "{name}" RESET default_transaction_read_only')
    assert response.status_code == 503, response.content
    assert response.json() == READ_ONLY
    assert response["Retry-After"] == "5"
