"""Log lines carry time, level, logger, request id, user, device and table; the
request id comes back in ``X-Request-ID``; django-axes names the username and the address."""

import io
import json
import logging
import re
from datetime import datetime

import pytest
from django.test import Client
from rest_framework.test import APIClient

from core.logs import ContextFilter, JsonFormatter, TextFormatter
from staff.services import device_token_issue
from tests.conftest import staff_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def json_lines():
    """The JSON lines logged at INFO and above during the test, as dicts."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(ContextFilter())
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield lambda: [json.loads(line) for line in stream.getvalue().splitlines()]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_a_refused_request_is_logged_with_time_level_logger_request_id_user_and_table(table, json_lines):
    client = APIClient()
    client.force_authenticate(staff_user("cashier1", "cashier"))
    response = client.post("/api/tables/R1/closer", {}, format="json", HTTP_X_REQUEST_ID="lb-7f3a9c")
    assert response.status_code == 403
    assert response["X-Request-ID"] == "lb-7f3a9c"
    forbidden = [line for line in json_lines() if line["logger"] == "django.request"]
    assert len(forbidden) == 1
    line = forbidden[0]
    assert line["message"] == "Forbidden: /api/tables/R1/closer"
    assert line["level"] == "WARNING"
    assert line["request_id"] == "lb-7f3a9c"
    assert line["user"] == "cashier1"
    assert line["table"] == "R1"
    assert line["time"].endswith("Z")
    assert abs((datetime.fromisoformat(line["time"]) - datetime.now().astimezone()).total_seconds()) < 60
    access = [line for line in json_lines() if line["logger"] == "casino.request"]
    assert [(a["method"], a["path"], a["status"], a["view"], a["request_id"]) for a in access] == [
        ("POST", "/api/tables/R1/closer", 403, "table-close-counted", "lb-7f3a9c")
    ]
    assert access[0]["duration_ms"] >= 0


def test_a_device_request_is_logged_with_its_device_and_table(table, json_lines):
    staff_user("pit1", "pit_boss")
    token = device_token_issue(name="terminal-R1", kind="terminal", table="R1", actor="pit1")["token"]
    shoe = APIClient()
    shoe.credentials(HTTP_AUTHORIZATION=f"Device {token}")
    assert shoe.post("/api/tables/R1/rounds", {}, format="json").status_code == 201
    (access,) = [line for line in json_lines() if line["logger"] == "casino.request"]
    assert (access["user"], access["device"], access["table"], access["status"]) == (
        "device:terminal-R1",
        "terminal-R1",
        "R1",
        201,
    )


def test_a_request_without_a_usable_request_id_gets_a_new_one(db):
    plain = Client().get("/api/health/")
    assert re.fullmatch(r"[0-9a-f]{32}", plain["X-Request-ID"])
    forged = Client().get("/api/health/", HTTP_X_REQUEST_ID='x" level=ERROR')
    assert re.fullmatch(r"[0-9a-f]{32}", forged["X-Request-ID"])
    assert plain["X-Request-ID"] != forged["X-Request-ID"]


def test_the_text_format_reads_as_one_line_with_the_context():
    record = logging.LogRecord("ledger.store", logging.WARNING, __file__, 1, "slow append: %d ms", (120,), None)
    record.created = datetime.fromisoformat("2026-12-01T23:15:02.123+00:00").timestamp()
    record.request_id, record.user, record.table = "abc123", "alice", "R1"
    assert TextFormatter().format(record) == (
        "2026-12-01T23:15:02.123Z WARNING ledger.store [req=abc123 user=alice table=R1] slow append: 120 ms"
    )


def test_a_failed_login_is_logged_with_the_username_and_the_address_unmasked(db, json_lines):
    staff_user("alice", "cashier")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Basic YWxpY2U6d3Jvbmc=")  # alice:wrong
    assert client.get("/api/patrons/", REMOTE_ADDR="192.0.2.7").status_code == 401
    axes = [line["message"] for line in json_lines() if line["logger"].startswith("axes")]
    failure = [message for message in axes if "login failure" in message]
    assert failure, axes
    assert 'username: "alice"' in failure[0]
    assert 'ip_address: "192.0.2.7"' in failure[0]
    assert "****" not in failure[0]


def test_a_line_outside_any_request_has_no_context_fields():
    record = logging.LogRecord("ledger.tasks", logging.INFO, __file__, 1, "caught up", (), None)
    assert ContextFilter().filter(record)
    assert not any(hasattr(record, key) for key in ("request_id", "user", "device", "table"))
    assert "request_id" not in json.loads(JsonFormatter().format(record))
